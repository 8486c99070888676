"""Purple Heart Draw, twenty-sixth pass (issue 44): two corrections the app knows enough
to make (pass 25's Left).  Each test plays seed 000 through both seats' pages
(tests/page_play.py), the hand reading in its docstring
(docs/rules-audit/pass-26-phd26.md).

* C5.1 / C5.23: an amendment of the scenario's result is refused only once a roll has
  read it (the roll named), and accepted otherwise, what was computed from it (C5.29's
  TP) computed again.
"""

from __future__ import annotations

import pytest

from campaign.models import Roll, ScenarioResult
from tests.test_phd25_pass25 import cvp_cell
from tests.test_phda19_pass19 import seats
from tests.test_rule_mechanisms import fixed_dice, users

pytestmark = [pytest.mark.django_db, pytest.mark.rules]
__all__ = ["fixed_dice", "users"]

PROPOSE = "Propose the amendment"
ROLL_BP = "Roll DR: Battlefield Promotion Table"


def us_cvp_field(form) -> str:
    """The amendment form's field of the US's CVP lost."""
    return next(n for n, _ in form.fields if "cvp_lost" in n and n.endswith("us"))


def at_0930(users, us_lost: int, german_lost: int):
    """A PHD TM at its 0930 hrs ConPh (the US chose Attack, the German Idle), the
    result entered with each side's CVP lost: C5.29's DRMs read it there (not after
    the Initial TM Scenario)."""
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import result_values

    players, module = phd_after(users, "C5.37")
    players.chits(us="attack", german="idle")
    players.until("results")
    players.results(**result_values(module, cvp_lost_us=us_lost, cvp_lost_german=german_lost))
    return players, module


def test_c5_1_no_roll_at_c5_23_the_result_amended_at_c5_31_and_c5_29_computed_again(
    users, modules, fixed_dice
):
    """C5.1 "All ConPh losses count for the previous scenario for all purposes"; C5.23
    "Each side makes a secret DR" with "-1 per 10 CVP (FRD) amassed by the friendly
    side in this scenario"; C5.29 "-1 per 10 CVP (FRD) suffered by the friendly side in
    the previous TM Scenario" and "+1 if the friendly side selected the Attack chit".

    * 0930 hrs, US Attack, German Idle; entered: US lost 20 CVP, German 10.
    * C5.23: neither side retains an MMC, so neither rolls (the DR could harden none):
      no roll has read the result.  At C5.24 both pages still offer the amendment
      (main refused it: "read at C5.23 ... by its rolls", which no roll did).
    * C5.29: the US 3+4 +1 -2 = 6, +31 TP; the German 3+4 -1 = 6, +21 TP.
    * At C5.31 the US proposes 30 (a loss of the ConPh found late, C5.1), the German
      accepts on his page: the US's C5.29 DR is read again with its dice, 3+4 +1 -3 =
      5, +32 TP (one more); the German's, which reads his own 10, is unchanged.
    * The CG Roster's 0930 hrs line reads the US's 30 CVP on both pages (public); the
      1230 line's Repl 32 on the US's page, "·" on the German's."""
    from tests.test_phd24_pass24 import points_cells, roster_rows

    players, _ = at_0930(users, 20, 10)
    players.until_step("C5.23")
    assert not Roll.objects.filter(campaign_id=players.campaign_id, step_id="C5.23").exists()
    players.until_step("C5.24")
    page = seats(players)
    us, de = page["us"], page["german"]
    for seat in (us, de):
        seat.open()
        assert PROPOSE in seat.buttons(), (seat.buttons(), seat.text[:600])
    players.until_step("C5.28")
    fixed_dice.extend([[3, 4], [3, 4]])
    players.until_step("C5.31")
    tp = {
        r.side: (r.final, sorted(d["value"] for d in r.drms))
        for r in Roll.objects.filter(campaign_id=players.campaign_id, step_id="C5.29", date_index=2)
    }
    assert tp == {"us": (6, [-2, 1]), "german": (6, [-1])}, tp
    assert points_cells(roster_rows(players, "us")["1230 hrs"], "us")[1] == "31"

    us.open()
    field = us_cvp_field(us.form_of(PROPOSE))
    reason = "a squad eliminated in the ConPh, found late (C5.1)"
    proposed = us.press(PROPOSE, **{field: "30", "reason": reason})
    assert proposed.status == 200, proposed.text[:400]
    de.open()
    assert de.press("Accept the amendment").status == 200
    result = ScenarioResult.objects.get(campaign_id=players.campaign_id, date_index=1)
    assert result.data["cvp_lost"]["us"] == 30, result.data

    mine, theirs = roster_rows(players, "us"), roster_rows(players, "german")
    for rows in (mine, theirs):
        assert cvp_cell(rows["0930 hrs"], "us").startswith("30"), rows["0930 hrs"]
    assert points_cells(mine["1230 hrs"], "us")[1] == "32", mine["1230 hrs"]
    assert points_cells(theirs["1230 hrs"], "german")[1] == "21", theirs["1230 hrs"]
    assert points_cells(theirs["1230 hrs"], "us") == ["·"] * 5, theirs["1230 hrs"]


def test_c5_23_the_german_alone_rolls_and_the_refusal_names_his_dr(users, modules, fixed_dice):
    """C5.23: the German retains a 4-6-7, the US no MMC.  Before any DR the result may
    still be amended at C5.23 (both pages offer it).  The German makes his secret DR
    (4+4 -2 for the US's 20 CVP he amassed = 6, "1 MMC may Battle Harden"): the result
    has been read,
    so neither page offers the amendment any more, and the US's forged proposal is
    refused naming that DR ("the German's DR on the Battlefield Promotion Table at
    C5.23"), never its dice; the result unchanged."""
    from tests.test_phda18_pass18 import forge
    from tests.test_rule_mechanisms import add

    players, _ = at_0930(users, 20, 10)
    add(players, "german", "4-6-7", "squad", location="B1")
    players.until_step("C5.23")
    page = seats(players)
    us, de = page["us"], page["german"]
    for seat in (us, de):
        seat.open()
        assert PROPOSE in seat.buttons(), seat.buttons()
    us.open()
    form = us.form_of(PROPOSE)
    field = us_cvp_field(form)
    fields = dict(form.fields)
    de.open()
    fixed_dice.append([4, 4])
    rolled = de.press(ROLL_BP)
    assert rolled.status == 200, rolled.text[:400]
    (roll,) = Roll.objects.filter(campaign_id=players.campaign_id, step_id="C5.23")
    assert (roll.side, roll.final, roll.result) == (
        "german",
        6,
        "1 MMC may Battle Harden",
    ), roll.result
    for seat in (us, de):
        seat.open()
        assert PROPOSE not in seat.buttons(), seat.buttons()
    refused = forge(us, "amend", **{**fields, field: "30", "reason": "found late"})
    assert refused.status == 409, (refused.status, refused.text[:400])
    assert (
        "read by the German's DR on the Battlefield Promotion Table at C5.23 Bravery and "
        "Battlefield Promotions" in refused.text
    ), refused.text[:400]
    assert "Battle Harden" not in refused.text, refused.text[:400]  # nor what it gave
    result = ScenarioResult.objects.get(campaign_id=players.campaign_id, date_index=1)
    assert result.data["cvp_lost"]["us"] == 20 and result.amendment is None


# The German's chart row for TM11: a Gren Pl of two 4-6-7 with an LMG (its SW column).
GRENS_LMG = {
    "id": "I1",
    "type": "Gren Pl",
    "units": "4-6-7",
    "unit_kind": "squad",
    "full": "2",
    "cost": "4",
    "sw": "LMG 1",
}


def test_tm11_the_rg_whose_last_unit_left_is_eliminated_by_the_app_a_put_back_revives_it(
    users, modules, fixed_dice
):
    """TM11 "each requisitioned/OB-given RG is retained until eliminated in a TM
    Scenario.  Each un-entered RG (or part thereof) is retained": the German buys I1
    Gren Pl (two 4-6-7 and an LMG, its SW column) at C5.31.

    * Bought, its units are not yet received (C5.33's step gives them): it has lost
      none, it stays in the OB.
    * At C5.37 (revealed when both finished C5.31, the default policy) he removes the
      two 4-6-7 from his retained forces: the LMG is a part of it left, the RG stays.
    * He removes the LMG: the last line it brought is gone, so the app marks I1
      Eliminated with a log line citing TM11, on both seats' pages (a revealed RG's
      state is public), not left for its owner to mark.
    * He puts the LMG back (removed by mistake): I1 is back in the OB, said on both."""
    from campaign.models import Purchase, Unit
    from tests.test_phd_conph import phd_after
    from tests.test_phda19_pass19 import roster
    from tests.test_rule_mechanisms import supply_chart

    players, _ = phd_after(users, "C5.31")
    supply_chart(players, "german", [GRENS_LMG])
    page = seats(players)
    us, de = page["us"], page["german"]
    de.open()
    assert de.press("Buy I1 Gren Pl for 4 TP, On-Map set up").status == 200
    rg = Purchase.objects.get(campaign_id=players.campaign_id, side="german", group_id="I1")
    assert not Unit.objects.filter(purchase=rg).exists()
    players.until_step("C5.37")
    rg.refresh_from_db()
    assert rg.state == Purchase.State.HELD and rg.revealed_at is not None
    kinds = sorted(Unit.objects.filter(purchase=rg).values_list("kind", flat=True))
    assert kinds == ["squad", "sw"], kinds  # its units received at C5.33
    forces = roster(players, "german")
    forces.open()
    assert forces.press("Remove 4-6-7 (I1 Gren Pl)").status == 200
    rg.refresh_from_db()
    assert rg.state == Purchase.State.HELD, rg.state
    forces.open()
    assert forces.press("Remove LMG (I1)").status == 200
    rg.refresh_from_db()
    assert rg.state == Purchase.State.ELIMINATED, rg.state
    said = "German's I1 Gren Pl is eliminated: its last unit has left the retained forces (TM11)."
    for seat in (de, us):
        assert said in seat.open(), seat.text[-2500:]
    forces.open()
    back = forces.press("Put LMG (I1) back")
    assert back.status == 200, back.text[:400]
    rg.refresh_from_db()
    assert rg.state == Purchase.State.HELD, rg.state
    revived = (
        "German's I1 Gren Pl is back in the OB: LMG (I1) is back in its retained forces (TM11)."
    )
    for seat in (de, us):
        assert revived in seat.open(), seat.text[-2500:]


def test_tm11_a_secret_rg_eliminated_by_c5_15s_settle_shows_nothing_on_the_us_pages(
    users, modules, fixed_dice
):
    """TM11 through a settle, the RG still secret (the campaign's policy: purchases
    revealed only by their owner).  The German's I1 Gren Pl (two 4-6-7 and an LMG),
    bought at C5.31 and received at C5.33, is his secret.  In the 0930 hrs ConPh he
    removes the 4-6-7 (C5.14); the LMG is possessed by no one, and C5.15 "any SW/Guns
    that are not possessed are eliminated" takes it at the step's Done: the RG's last
    line gone, the app marks I1 Eliminated (TM11) on his page.  The US's campaign page
    and roster read the same words before and after: nothing of the secret RG, its
    units or its elimination (the opponent's pages depend only on what was revealed)."""
    from campaign.models import Campaign, Purchase, Unit
    from tests.test_phd_conph import phd_after
    from tests.test_phda19_pass19 import roster
    from tests.test_rule_mechanisms import result_values, supply_chart

    players, module = phd_after(users, "C5.31")
    Campaign.objects.filter(pk=players.campaign_id).update(reveal_policy="owner")
    supply_chart(players, "german", [GRENS_LMG])
    page = seats(players)
    us, de = page["us"], page["german"]
    de.open()
    assert de.press("Buy I1 Gren Pl for 4 TP, On-Map set up").status == 200
    players.until_step("C5.37")
    players.chits(us="attack", german="idle")
    players.until("results")
    players.results(**result_values(module, cvp_lost_us=0, cvp_lost_german=0))
    players.until_step("C5.14")
    rg = Purchase.objects.get(campaign_id=players.campaign_id, side="german", group_id="I1")
    assert rg.revealed_at is None and rg.state == Purchase.State.HELD
    forces = roster(players, "german")
    forces.open()
    assert forces.press("Remove 4-6-7 (I1 Gren Pl)").status == 200
    lmg = Unit.objects.get(purchase=rg, kind="sw")
    assert lmg.possessor_id is None, lmg.markers
    players.until_step("C5.15")
    us_page, us_roster = us.open(), roster(players, "us").open()
    players.until_step("C5.16")
    assert not Unit.objects.filter(purchase=rg).exists()
    rg.refresh_from_db()
    assert rg.state == Purchase.State.ELIMINATED, rg.state
    said = "German's I1 Gren Pl is eliminated: its last unit has left the retained forces (TM11)."
    assert said in de.open(), de.text[-2500:]
    after = us.open()
    for words in ("TM11", "Gren", "its last unit", "LMG"):
        assert words not in after and words not in us_page, (words, after[-2500:])
    assert roster(players, "us").open() == us_roster
