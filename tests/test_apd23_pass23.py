"""Issue 44, pass 23, A Pleasant Diversion (seed 002): 15 sentences of the CG rules, the
Clean-Up Phase 2.-2.92 and the Setup Phase 3.-4.0 drawn at random (random.Random(23);
the 9 no pass 20-22 drew, and 6 of pass 20's again), each tried at its edge through the
pages (tests/page_play.py) on both sides.  Each test cites its rule;
docs/rules-audit/pass-23-apd23.md lists what was tried."""

from __future__ import annotations

import pytest

from campaign.models import Campaign, ScenarioResult
from tests import test_rule_mechanisms
from tests.test_apd12_pass12 import apd, supply_value
from tests.test_apd17_pass17 import midday
from tests.test_apd18_pass18 import seats
from tests.test_apd22_pass22 import amend_vp, charts, pp
from tests.test_rule_mechanisms import result_values

pytestmark = [pytest.mark.django_db, pytest.mark.rules]

users = test_rule_mechanisms.users
fixed_dice = test_rule_mechanisms.fixed_dice

SCENARIO_CGV = "American achieved this scenario's CGV Building requirement"


def above_log(text: str) -> str:
    """A page's text above its campaign log (the log keeps earlier dates' lines)."""
    return text.split("Campaign log")[0]


def test_cg_scenario_vc_the_afternoons_result_asks_no_scenario_cgv_requirement(users, modules):
    """CG SCENARIO VICTORY CONDITIONS "The following levels of victory apply for each of
    the first two CG-Scenarios" (drawn, D03), with CG DATES (3 CG dates, D01) and 1.2:
    the Midday's result form (the second CG scenario) asks whether the American achieved
    the scenario's CGV Building requirement (2.9 reads it for the scenario's winner);
    the Afternoon's (the third, the CG's last) does not: no scenario VC apply to it and
    no 2.9 follows it (on main both pages asked it).  It still asks what the CG VC read
    (VP, CVP lost, all CGV Buildings).  A yes posted for it anyway is not recorded.  The
    American enters the result through his page, the German confirms it through his:
    the CG ends, the German wins (123 < 150), on both pages."""
    players, module = apd(users, "3.4")
    supply_value(players, "dates.dec6midday.vp_required", "120")
    players.until("results")
    american, german = seats(players)
    assert SCENARIO_CGV in above_log(american.text)  # the Midday: the second CG scenario
    players.results(**result_values(module, vp_american=40, cvp_lost_american=10))
    players.until("results")
    american, german = seats(players)
    for seat in (american, german):
        assert "When the December 6 Afternoon scenario is over" in seat.text
        assert SCENARIO_CGV not in above_log(seat.text), above_log(seat.text)[:2500]
        assert "American controls all existing CGV buildings" in seat.text
        assert "VP scored by the American in the scenario" in seat.text
    form = american.form_of("Enter the result")
    names = [n for n, _ in form.fields] + list(form.choices)
    assert not [n for n in names if n.startswith("cgv_scenario")], names
    typed = {n: "0" for n, _ in form.fields if n.startswith(("vp", "cvp_lost"))}
    typed[next(n for n in names if n.startswith("vp."))] = "20"
    entered = american.press("Enter the result", **typed, **{"cgv_scenario.american": "on"})
    assert entered.status == 200, entered.text[:500]
    result = ScenarioResult.objects.filter(campaign_id=players.campaign_id).last()
    assert "cgv_scenario" not in result.data, result.data
    german.open()
    assert SCENARIO_CGV not in above_log(german.text)
    assert german.press("Confirm the result").status == 200
    assert Campaign.objects.get(pk=players.campaign_id).ended_at is not None
    for seat in (american, german):
        text = seat.open()
        assert "The CG ends after its last date, December 6 Afternoon. German wins" in text
        assert "(CG total) 123 < 150" in text, text[:2500]
        assert SCENARIO_CGV not in above_log(text)


def test_2_92_a_negative_midday_figure_amended_after_a_purchase_stays_ignored(
    users, modules, fixed_dice
):
    """2.92 "Negative Purchase Points are ignored" (drawn, D08) at its edge, at the
    Midday with the Morning's 33 PP kept (3.4) and the result amended after a purchase:
    100 required (supplied) − (63 + 78) + 41 CVP = 0, so 33 PP; the American buys A1
    (10): 23.  The Midday's VP amended to 85 make the figure −7: ignored, the 23 PP on
    hand stay (no shortfall line: nothing is owed), and the log names the figure and
    that it is ignored.  Amended to 70 (+8): 31 PP.  The German's page shows none of the
    American's PP."""
    players, _ = midday(users, "3.4", vp=78, cvp=0, required="100")
    charts(players)
    american, german = seats(players)
    assert pp(players) == 33
    assert american.press("Buy A1 Armor Group for 10 PP").status == 200
    assert pp(players) == 23
    amend_vp(american, german, "85")
    assert pp(players) == 23
    text = american.text
    assert "-48 + 41 CVP suffered = -7" in text, text[:3000]
    assert "negative purchase points are ignored: 0 · total 33 (recomputed)" in text
    assert "fewer than your RGs of this date cost" not in text
    assert "Done with 3.4" in american.buttons()
    german.open()
    assert "-7" not in german.text and "23 PP" not in german.text
    amend_vp(american, german, "70")
    assert pp(players) == 31
    assert "0 → 8 replenished; 23 → 31 PP on hand" in american.text


def test_1_2_if_applicable_3_4_and_3_5_each_side_acts_only_at_its_own_step_at_the_midday(
    users, modules, fixed_dice
):
    """1.2 "Both players (if applicable), American first, complete each step before
    moving on to the next step" (drawn, D07) with 3.5 "The German player now secretly
    makes three Reinforcement drs (one each on Rows A-C)" (drawn, D09), at the Midday:
    at 3.4 (the American's alone) the German's page offers no Buy and no Done, and
    waits; once the American is done with 3.4 the German's page offers one Roll per
    Row and the American's none (3.5 is the German's alone).  Each Row rolled once:
    its button goes; the results (RA1 from Row A) are on the German's page, not the
    American's (who reads the Rows' printed table only)."""
    players, _ = midday(users, "3.4")
    charts(players)
    american, german = seats(players)
    assert not [b for b in german.buttons() if b.startswith(("Buy", "Done", "Roll"))]
    assert "Remind your opponent" in german.buttons()
    assert american.press("Done with 3.4").status == 200
    german.open()
    rows = [f"Roll dr: German Reinforcement Table, Row {r}" for r in "ABC"]
    assert [b for b in german.buttons() if b.startswith("Roll")] == rows
    american.open()
    assert not [b for b in american.buttons() if b.startswith(("Roll", "Done"))]
    fixed_dice.extend([[2], [4], [5]])
    for row in rows:
        assert german.press(row).status == 200
        assert row not in german.buttons()
    assert "German receives RA1 PzGr Platoon I" in german.text
    assert "Row A: dr 2 → 2 : PzGr Platoon I" in above_log(german.text)
    american.open()
    for said in ("RA1", "German receives RA1", "Row A: dr", "rolled on the German Reinforcement"):
        assert said not in american.text, said
