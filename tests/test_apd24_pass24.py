"""Issue 44, pass 24, A Pleasant Diversion (seed 002): what carries, and what is
computed, across the CG's dates.  Earlier passes tried each sentence of the CG rules,
the Clean-Up Phase 2.-2.92 and the Setup Phase 3.-4.0 at one step of one date; these
tests follow the state from one date to the next through the pages
(tests/page_play.py), both seats, and check each carried figure against a hand
computation from the rules text (in each docstring).  Each test cites its rule;
docs/rules-audit/pass-24-apd24.md lists what was tried."""

from __future__ import annotations

import pytest

from campaign.models import Campaign, Unit
from tests import test_rule_mechanisms
from tests.page_play import Seat
from tests.test_apd12_pass12 import apd, supply_value
from tests.test_apd18_pass18 import seats
from tests.test_apd19_pass19 import RECOVERY
from tests.test_apd22_pass22 import charts, pp
from tests.test_apd_pass5 import done
from tests.test_roster_possession import held, possess
from tests.test_rule_mechanisms import add, result_values

pytestmark = [pytest.mark.django_db, pytest.mark.rules]

users = test_rule_mechanisms.users
fixed_dice = test_rule_mechanisms.fixed_dice


def above_log(text: str) -> str:
    """A page's text above its campaign log (the log keeps earlier dates' lines)."""
    return text.split("Campaign log")[0]


def log_of(text: str) -> str:
    return text.split("Campaign log", 1)[1]


def lines(players, side: str) -> list[tuple[str, str, str]]:
    """``side``'s retained forces: (name, Location, possessor's name) per line, sorted."""
    found = Unit.objects.filter(campaign_id=players.campaign_id, side=side)
    return sorted(
        (u.name, u.location, u.possessor.name if u.possessor else "")
        for u in found.select_related("possessor")
    )


# ------------------------------------------------ Left of passes 22-23: 3.1 footnote *


def test_3_1_footnote_an_evacuation_corrected_back_takes_the_7_0_away_and_gives_back_the_sw(
    users, modules, fixed_dice
):
    """3.1 footnote *: "An Evacuated leader is permanently removed from play, but is
    immediately replaced with a 7-0 leader in the same location as the friendly MMC
    nearest ... Any SW Possessed by an Evacuated leader is considered Transferred to the
    MMC as well."  The 7-0 and the SW's transfer are what the Evacuation did: the
    German's wounded 8-1 at 20A3 with an LMG rolls dr 6 (Evacuated) at the Morning's
    3.1; the 7-0 joins at the 5-4-8's 20A4 (his only MMC) and the LMG is the 5-4-8's.
    The German proposes, through his page, that the roll wrote wrongly (the 8-1 back, in
    good order: the dr was misread); the American accepts through his.  The 8-1 is back
    at 20A3, and with him what the Evacuation did is undone: the 7-0 leaves (no leader
    replaced him), the LMG is the 8-1's again; the log line on both pages says so.  On
    main the 7-0 stayed (two leaders for one) and the LMG stayed the 5-4-8's.  At the
    Midday's 3.1 the 8-1 (unwounded) owes no Recovery dr: the German's Done is offered."""
    players, module = apd(users, "3.1")
    supply_value(players, "dates.dec6midday.vp_required", "120")
    done(players, "american")
    leader = add(players, "german", "8-1 leader", "leader", "wounded", location="20A3")
    lmg = possess(players, "german", add(players, "german", "LMG", "sw"), leader)
    add(players, "german", "5-4-8", "squad", location="20A4")
    american, german = seats(players)
    fixed_dice.append([6])
    assert german.press(RECOVERY, unit=leader.ref).status == 200
    assert lines(players, "german") == [
        ("5-4-8", "20A4", ""),
        ("7-0 leader", "20A4", ""),
        ("LMG", "", "5-4-8"),
    ]
    proposed = german.press(
        "Propose the correction",
        name="8-1 leader",
        kind="leader",
        markers="",
        gone="",
        reason="misread the dr: it was a 2",
    )
    assert proposed.status == 200, proposed.text[:300]
    american.open()
    assert american.press("Accept the correction").status == 200
    assert lines(players, "german") == [
        ("5-4-8", "20A4", ""),
        ("8-1 leader", "20A3", ""),
        ("LMG", "", "8-1 leader"),
    ]
    assert held(lmg) == ("8-1 leader", [])
    said = "the 7-0 leader that replaced him leaves; LMG is the 8-1 leader's again (3.1 footnote *)"
    for seat in (american, german):
        assert said in log_of(seat.open())[:1500], log_of(seat.text)[:1500]
    assert "Done with 3.1" in german.buttons()
    done(players, "german")
    players.until("results")
    players.results(**result_values(module, vp_american=40))
    players.until_step("3.1")
    done(players, "american")
    american, german = seats(players)
    assert "You have no wounded leaders (not captured) to roll for" in above_log(german.text)
    assert "Done with 3.1" in german.buttons()
    assert lines(players, "german") == [
        ("5-4-8", "20A4", ""),
        ("8-1 leader", "20A3", ""),
        ("LMG", "", "8-1 leader"),
    ]


def test_3_1_footnote_an_evacuation_corrected_back_before_the_7_0_is_placed_frees_the_done(
    users, modules, fixed_dice
):
    """3.1 footnote * (as above), where the German has two MMC (21B1, 21C1): the
    Evacuated 8-0's 7-0 waits for its Location and the LMG for the MMC he is placed with,
    so the German's Done waits ("Not yet: LMG ...").  The Evacuation corrected back by
    consent (through both pages): the 8-0 is back at 21A1 with his LMG, no 7-0 is left
    to place, and his Done is offered at once (on main the 7-0 and the LMG still waited
    for a placement of a leader who was never Evacuated)."""
    players, _ = apd(users, "3.1")
    done(players, "american")
    leader = add(players, "german", "8-0 leader", "leader", "wounded", location="21A1")
    possess(players, "german", add(players, "german", "LMG", "sw"), leader)
    add(players, "german", "5-4-8", "squad", location="21B1")
    add(players, "german", "4-6-7", "squad", location="21C1")
    american, german = seats(players)
    fixed_dice.append([5])
    assert german.press(RECOVERY, unit=leader.ref).status == 200
    assert "Done with 3.1" not in german.buttons()
    assert "Place the 7-0 leader" in german.buttons()
    assert german.press(
        "Propose the correction",
        name="8-0 leader",
        kind="leader",
        markers="",
        gone="",
        reason="the dr was a 1",
    )
    american.open()
    assert american.press("Accept the correction").status == 200
    german.open()
    assert lines(players, "german") == [
        ("4-6-7", "21C1", ""),
        ("5-4-8", "21B1", ""),
        ("8-0 leader", "21A1", ""),
        ("LMG", "", "8-0 leader"),
    ]
    assert "Place the 7-0 leader" not in german.buttons()
    assert "Done with 3.1" in german.buttons(), above_log(german.text)[:2000]


# ------------------------------------------------ the whole CG, both seats, date by date


def enter_result(players, vp: int, cvp_american: int, cvp_german: int) -> tuple[Seat, Seat]:
    """The American enters the scenario's result through his page, the German confirms
    it through his; both seats, read again."""
    american, german = seats(players)
    typed = {
        "vp.american": str(vp),
        "cvp_lost.american": str(cvp_american),
        "cvp_lost.german": str(cvp_german),
    }
    entered = american.press("Enter the result", **typed)
    assert entered.status == 200, entered.text[:400]
    german.open()
    assert german.press("Confirm the result").status == 200
    american.open()
    return american, german


def test_cg_dates_the_whole_cg_on_both_seats_each_carried_figure_at_each_date(
    users, modules, fixed_dice
):
    """The CG played whole, December 6 Morning to Afternoon (CG DATES "3 CG dates"),
    both seats, each figure that carries checked at the next date against the rules:

    Morning (SG1, 1.2): 63 VP, the American loses 41 CVP, the German 30.  2.9: 63 ≥ 55
    (2.92 EX), the American wins and "The winning side moves first in the following
    scenario": the Midday's header on both pages says American moves first.  2.91/2.92:
    55 − 63 = −8; −8 + 41 = 33 PP (the EX's figure).  3.4: A1 bought (10): 23 left,
    "Unused Purchase Points may be retained for future use".  3.5: three Row drs.

    Midday: 40 VP, 10 CVP lost by the American, 30 by the German; 120 required
    (supplied).  2.9 "totals his amassed VP from all CG scenarios played": 63 + 40 =
    103 < 120: the German wins, and moves first in the Afternoon (both headers).  2.91:
    120 − 103 = 17; 2.92 "adds the total of his CVP suffered in the CG thus far":
    17 + (41 + 10) = 68; with the 23 kept: 91 PP on the American's page, nothing of it
    on the German's.  3.4 "the scenario maximum allowed for each group" (2) is the
    Midday's: the Morning's A1 does not count against it, so two more are bought (71
    left).  3.5: the German's three Row drs are owed again, once each.

    Afternoon (the last): 20 VP; CG VC "≥ 150 at any CG-Scenario end": 63 + 40 + 20 =
    123 < 150 (and the Germans amassed 41 + 10 + 10 = 61 < 105 CVP): the CG ends with
    the German's win, on both pages, no step after it."""
    players, _ = test_rule_mechanisms.start("pleasant-diversion", "cg", users, "american")
    charts(players)
    supply_value(players, "dates.dec6midday.vp_required", "120")
    american, german = enter_result(players, 63, 41, 30)
    players.until_step("3.4")
    american, german = seats(players)
    assert pp(players) == 33
    assert "You have 33 PP" in american.text
    assert "VP differential 55 required − 63 amassed = -8 · -8 + 41 CVP suffered = 33" in (
        american.text
    )
    assert "33" not in above_log(german.text).split("Sides")[0]
    assert american.press("Buy A1 Armor Group for 10 PP").status == 200
    assert pp(players) == 23
    players.until_step("3.5")
    american, german = seats(players)
    fixed_dice.extend([[2], [4], [5]])
    for row in "ABC":
        assert german.press(f"Roll dr: German Reinforcement Table, Row {row}").status == 200
    players.until("results")
    american, german = seats(players)
    for seat in (american, german):
        head = above_log(seat.text)
        assert "December 6 Midday — step 1 of 23" in head
        assert "American won the December 6 Morning scenario: American moves first" in head
    assert "PP: 23" in american.text and "PP: 23" not in german.text

    american, german = enter_result(players, 40, 10, 30)
    players.until_step("3.4")
    american, german = seats(players)
    assert pp(players) == 91
    assert "You have 91 PP" in american.text
    assert (
        "carried over 23 · VP differential 120 required − 103 amassed = 17 (CG total: 63 + 40)"
        " · 17 + 51 CVP suffered = 68 (CG total: 41 + 10) · total 91"
    ) in american.text
    assert "carried over" not in german.text, german.text.split("carried over")[0][-300:]
    assert "You have 91 PP" not in german.text and "PP: 91" not in german.text
    for n in (1, 2):
        assert american.press("Buy A1 Armor Group for 10 PP").status == 200, n
    assert pp(players) == 71
    assert "Buy A1 Armor Group for 10 PP" not in american.buttons()
    players.until_step("3.5")
    american, german = seats(players)
    rows = [f"Roll dr: German Reinforcement Table, Row {r}" for r in "ABC"]
    assert [b for b in german.buttons() if b.startswith("Roll")] == rows
    players.until("results")
    american, german = seats(players)
    for seat in (american, german):
        head = above_log(seat.text)
        assert "December 6 Afternoon — step 1 of 23" in head
        assert "German won the December 6 Midday scenario: German moves first" in head

    american, german = enter_result(players, 20, 10, 30)
    assert Campaign.objects.get(pk=players.campaign_id).ended_at is not None
    for seat in (american, german):
        text = seat.open()
        assert "The CG ends after its last date, December 6 Afternoon. German wins" in text
        assert "(CG total) 123 < 150" in text
        assert not [b for b in seat.buttons() if b.startswith(("Done", "Enter", "Buy"))]


def test_the_mornings_clean_up_and_setup_carry_into_the_middays_on_the_pages(
    users, modules, fixed_dice
):
    """What the Morning's sequence wrote, read at the Midday's, through the American's
    and the German's pages (squad CVP 2, supplied; 120 VP required at the Midday):

    2.5 "Failing the 1TC results in the unit's immediate Elimination" with 2 Note "CVP
    are recorded normally throughout this phase": the American's Encircled 6-6-6 fails
    (DR 6+6), 41 + 2 = 43 CVP lost; his 4-6-6 passes (DR 1+1) and "All Encircled
    markers are then removed".  2.92 (same date, after 2.5) reads the 43: 55 − 63 = −8,
    −8 + 43 = 35 PP.  At the Midday's 2.5 the 4-6-6 owes no 1TC (no marker carried).
    At the Midday's 2.92, "his CVP suffered in the CG thus far": 120 − (63 + 40) = 17,
    17 + (43 + 10) = 70, + 35 kept (3.4) = 105 PP.

    3.1 "Retain Unwounded": his 9-1 (dr 2) is unwounded at the Midday, owing no
    Recovery dr.  3.2: his wounded Hero given up, his 6-6-7 Battle Hardened, still so at
    the Midday, with no Hero left to give.  3.3/3.31 "Each weapon/Vehicle may make only
    one Repair attempt": his M4A3(76)W's MA (dr 5) and his BAZ 44 (dr 4) stay
    malfunctioned (NE); the one attempt is the Setup Phase's, so at the Midday's 3.3
    each is offered its dr again.  3.31 "A vehicle that rolls a 6 on a MA repair ... is
    marked with a Recall counter": the German's PzKpfw IVH keeps its Recall at the
    Midday, its MA eliminated and not offered again."""
    from tests.purchase_helpers import add_vehicle
    from tests.test_apd12_pass12 import lost
    from tests.test_apd18_pass18 import ROLL_1TC

    players, module = apd(users, "2.5")
    supply_value(players, "dates.dec6midday.vp_required", "120")
    supply_value(players, "cvp_per_kind.squad", "2")
    passes = add(players, "american", "4-6-6", "squad", "encircled", location="12A1")
    fails = add(players, "american", "6-6-6", "squad", "encircled", location="12A2")
    leader = add(players, "american", "9-1 leader", "leader", "wounded", location="14A1")
    hero = add(players, "american", "2-4-7 Hero", "hero", "wounded", location="12L5")
    hardened = add(players, "american", "6-6-7", "squad", location="12L5")
    tank, (ma,) = add_vehicle(players, "american", "M4A3(76)W", ("ma", ["malfunctioned"]))
    baz = add(players, "american", "BAZ 44", "sw", "malfunctioned")
    panzer, (gma,) = add_vehicle(players, "german", "PzKpfw IVH", ("ma", ["malfunctioned"]))
    american, german = seats(players)
    fixed_dice.extend([[1, 1], [6, 6]])
    for unit in (passes, fails):
        assert american.press(ROLL_1TC, unit=unit.ref).status == 200
    assert lost(players)["american"] == 43
    players.until_step("3.1")
    american, german = seats(players)
    assert pp(players) == 35
    assert "-8 + 43 CVP suffered = 35" in log_of(american.text)
    fixed_dice.append([2])
    assert american.press(RECOVERY, unit=leader.ref).status == 200
    players.until_step("3.2")
    american, german = seats(players)
    assert american.press("Mark battle hardened", give=hero.ref, mark=hardened.ref).status == 200
    players.until_step("3.3")
    american, german = seats(players)
    fixed_dice.extend([[5], [4]])
    assert american.press("Roll dr: Repair Table: Repair MA/Gun", unit=f"{tank.ref}.{ma}")
    assert american.press("Roll dr: Repair Table: Repair SW", unit=baz.ref).status == 200
    assert not [b for b in american.buttons() if "Repair" in b]
    done(players, "american")
    german.open()
    fixed_dice.append([6])
    assert german.press("Roll dr: Repair Table: Repair MA/Gun", unit=f"{panzer.ref}.{gma}")
    players.until("results")
    players.results(**result_values(module, vp_american=40, cvp_lost_american=10))

    players.until_step("2.5")
    american, german = seats(players)
    assert "encircled" not in Unit.objects.get(pk=passes.pk).markers
    assert ROLL_1TC not in american.buttons() and "Done with 2.5" in american.buttons()
    players.until_step("3.1")
    american, german = seats(players)
    assert pp(players) == 105
    assert "17 + 53 CVP suffered = 70 (CG total: 43 + 10) · total 105" in log_of(american.text)
    assert RECOVERY not in american.buttons() and "Done with 3.1" in american.buttons()
    assert Unit.objects.get(pk=leader.pk).markers == []
    players.until_step("3.2")
    american, german = seats(players)
    assert "Mark battle hardened" not in american.buttons()
    assert Unit.objects.get(pk=hardened.pk).markers == ["battle_hardened"]
    players.until_step("3.3")
    american, german = seats(players)
    offered = [v for v, _ in american.options("Roll dr: Repair Table: Repair MA/Gun", "unit")]
    assert offered == [f"{tank.ref}.{ma}"], offered
    assert [v for v, _ in american.options("Roll dr: Repair Table: Repair SW", "unit")] == [baz.ref]
    done(players, "american")
    german.open()
    assert "Roll dr: Repair Table: Repair MA/Gun" not in german.buttons()
    assert Unit.objects.get(pk=panzer.pk).markers == ["recalled"]


def test_4_0_sniper_values_reset_each_scenario_sheet_reads_sg1s_san_on_both_seats(users, modules):
    """4.0 "Sniper values are reset to their original numbers": the SAN of each CG
    scenario is SG1's (1.2: the Morning is SG1), whatever the Morning's play did; no SAN
    is entered with a result, so none carries.  SG1's SAN supplied by consent (American
    3, German 4; the seed lacks SG1), and its ELR (4, 3: APD has no rule changing it).
    The Midday's and the Afternoon's scenario sheets read SAN 3 / ELR 4 on the
    American's seat and SAN 4 / ELR 3 on the German's."""
    from tests.test_start import _supply

    players, module = test_rule_mechanisms.start("pleasant-diversion", "cg", users, "american")
    start = "variants.cg.start"
    _supply(players, "american", f"{start}.san", {"value.american": "3", "value.german": "4"})
    _supply(players, "german", f"{start}.elr", {"value.american": "4", "value.german": "3"})
    supply_value(players, "dates.dec6midday.vp_required", "120")
    for vp, date in ((63, "December 6 Midday"), (40, "December 6 Afternoon")):
        players.results(**result_values(module, vp_american=vp, cvp_lost_american=41))
        players.until("results")
        for side, san, elr in (("american", 3, 4), ("german", 4, 3)):
            sheet = Seat(players.users[side], players.campaign_id, "sheet/").open()
            assert f"{date} : The {date} scenario is in play." in sheet, sheet[:800]
            assert f"SAN {san} ELR {elr}" in sheet, sheet[:800]


# ------------------------------------------------ Left of passes 22-23: 1.1 Balance

BALANCE_LABEL = (
    "CG Balance provisions (one per line), for the player who takes the side you both wished "
    "(A26.4)"
)


def test_1_1_the_balance_cut_from_the_text_is_supplied_by_consent_and_on_every_sheet(
    users, modules
):
    """1.1 "Should both players wish to play the same side (A26.4) the following Balance
    is used:" (the Balance itself is cut from the rules text).  The host lists it under
    "Rules data to supply" with its rule (1.1), fills it in on its page ("Propose it to
    my opponent"), the guest accepts it on his; it is then on both seats' scenario
    sheets, at the Morning and again at the Midday (it holds for the CG), under "In
    effect".  Before it is accepted no sheet shows it (on main it had no supply path:
    the players could not record it at all)."""
    players, module = test_rule_mechanisms.start("pleasant-diversion", "cg", users, "american")
    american, german = seats(players)
    assert f"{BALANCE_LABEL} (1.1) — missing · Supply it" in american.text
    form = Seat(players.users["american"], players.campaign_id, "supply/variants.cg.start.balance/")
    form.open()
    assert "CG Balance provisions" in form.text
    balance = "German: add one 4-6-7 to the Morning OB\nAmerican: the 55 VP required become 50"
    proposed = form.press("Propose it to my opponent", value=balance)
    assert not proposed.refused and proposed.status in (200, 302), proposed.text[:300]
    sheet = Seat(players.users["german"], players.campaign_id, "sheet/").open()
    assert "CG Balance" not in sheet
    german.open()
    assert german.press(f"Accept: {BALANCE_LABEL}").status == 200
    supply_value(players, "dates.dec6midday.vp_required", "120")
    for date in ("December 6 Morning", "December 6 Midday"):
        for side in ("american", "german"):
            sheet = Seat(players.users[side], players.campaign_id, "sheet/").open()
            assert date in sheet
            for line in balance.split("\n"):
                said = f"CG Balance (1.1), for the side it names (A26.4): {line}"
                assert said in sheet, sheet[:1500]
        if date.endswith("Morning"):
            players.results(**result_values(module, vp_american=63, cvp_lost_american=41))
            players.until("results")


# ------------------------------------------------ CG VC at a CG-Scenario end, by amendment


def test_cg_vc_a_midday_result_amended_to_150_ends_the_cg_the_middays_scenario_its_last(
    users, modules
):
    """CG VC "the Americans win if their VP total is ≥ 150 at any CG-Scenario end", and
    2.9 "The winning side moves first in the following scenario", read again when the
    Midday's result is amended in the Afternoon's Setup Phase (its 3.4), through the
    pages.  120 required; 63 + 40 = 103: the German won the Midday.  Amended to 80:
    63 + 80 = 143 ≥ 120, the American won it and moves first in the Afternoon (both
    headers); 2.91/2.92 again: 120 − 143 = −23, −23 + (41 + 10) = 28, + 33 kept = 61 PP.
    Amended to 87: 150 ≥ 150 with 51 < 105 CVP amassed: the American wins the CG at the
    Midday's end, on both pages.  The Midday scenario was the CG's last: both scenario
    sheets say so (on main they said the Afternoon's was, a scenario never played)."""
    from tests.test_apd17_pass17 import midday
    from tests.test_apd22_pass22 import amend_vp

    players, _ = midday(users, "3.4")
    american, german = seats(players)
    amend_vp(american, german, "80")
    assert pp(players) == 61
    for seat in (american, german):
        said = "American won the December 6 Midday scenario: American moves first"
        assert said in above_log(seat.open())
    amend_vp(american, german, "87")
    assert Campaign.objects.get(pk=players.campaign_id).ended_at is not None
    for side in ("american", "german"):
        seat = Seat(players.users[side], players.campaign_id)
        assert "American wins the CG (CG VC): American VP total ≥ 150" in seat.open()
        sheet = Seat(players.users[side], players.campaign_id, "sheet/").open()
        assert "The CG has ended; the December 6 Midday scenario was its last." in sheet, sheet[
            :700
        ]


# ------------------------------------------------ 3.2 across two dates


def test_3_2_a_hero_kept_at_the_morning_is_given_up_at_the_midday_not_for_the_hardened_mmc(
    users, modules
):
    """3.2 "Heroes (whether wounded or unwounded) are eliminated, but for each such
    eliminated Hero the owning player may Battle Harden ... any one MMC.  [EXC: If
    unable to Battle Harden any MMC, the Hero remains onboard unwounded instead]",
    followed across two dates on the American's page.  Morning: two wounded Heroes and
    one 6-6-7: the first Hero hardens the 6-6-7 (which cannot be hardened again,
    A15.3), so the second stays onboard unwounded at Done (EXC).  Midday: the same Hero
    (now unwounded) is eliminated again at 3.2, since a 4-6-6 joined his forces: the
    page offers him for the 4-6-6 only (not the 6-6-7 hardened at the Morning), and the
    exchange leaves no Hero."""
    players, module = apd(users, "3.2")
    supply_value(players, "dates.dec6midday.vp_required", "120")
    first = add(players, "american", "2-4-7 Hero", "hero", "wounded", location="12L5")
    second = add(players, "american", "1-4-9 Hero", "hero", "wounded", location="12L6")
    hardened = add(players, "american", "6-6-7", "squad", location="12L5")
    american, german = seats(players)
    assert american.press("Mark battle hardened", give=first.ref, mark=hardened.ref)
    done(players, "american")
    kept = Unit.objects.get(pk=second.pk)
    assert kept.markers == [], kept.markers  # onboard, unwounded (EXC)
    players.until("results")
    players.results(**result_values(module, vp_american=40, cvp_lost_american=10))
    fresh = add(players, "american", "4-6-6", "squad", location="13A1")
    players.until_step("3.2")
    american, german = seats(players)
    offered = [v for v, _ in american.options("Mark battle hardened", "mark")]
    assert offered == [fresh.ref], offered
    assert american.press("Mark battle hardened", give=second.ref, mark=fresh.ref).status == 200
    assert not Unit.objects.filter(campaign_id=players.campaign_id, kind="hero").exists()
    assert Unit.objects.get(pk=fresh.pk).markers == ["battle_hardened"]
    assert Unit.objects.get(pk=hardened.pk).markers == ["battle_hardened"]


def test_2_9_2_91_a_morning_result_amended_at_its_3_4_is_the_one_the_midday_totals(users, modules):
    """2.9 "The American player totals his amassed VP from all CG scenarios played" and
    2.91 "The amount of VP which the American has scored for each scenario played is
    totaled", where the Morning's result was amended (by consent, through the pages) at
    the Morning's 3.4: 63 → 60 VP.  Morning: 55 − 60 = −5, −5 + 41 = 36 PP (was 33).
    Midday (40 VP, 10 CVP, 120 required): 120 − (60 + 40) = 20, 20 + (41 + 10) = 71,
    + 36 kept = 107 PP: the Midday's CG total reads the amended 60, not the 63 first
    entered."""
    from tests.test_apd22_pass22 import amend_vp

    players, module = apd(users, "3.4")
    supply_value(players, "dates.dec6midday.vp_required", "120")
    american, german = seats(players)
    amend_vp(american, german, "60")
    assert pp(players) == 36
    players.until("results")
    players.results(**result_values(module, vp_american=40, cvp_lost_american=10))
    players.until_step("3.4")
    american, german = seats(players)
    assert pp(players) == 107
    said = "120 required − 100 amassed = 20 (CG total: 60 + 40) · 20 + 51 CVP suffered = 71"
    assert said in log_of(american.text), log_of(american.text)[:1500]
    assert "You have 107 PP" in american.text
