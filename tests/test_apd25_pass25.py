"""Issue 44, pass 25, A Pleasant Diversion (seed 002): where two rules meet.  Earlier
passes tried each sentence alone, then the state across dates; these tests try two
sentences of the CG rules, the Clean-Up Phase 2.-2.92 and the Setup Phase 3.-4.0 that
apply to the same unit, purchase, roll, step or figure, through the pages
(tests/page_play.py), both seats, each against a hand computation from the rules text
(in its docstring).  docs/rules-audit/pass-25-apd25.md lists what was tried."""

from __future__ import annotations

import re
from html import unescape

import pytest

from campaign.models import Campaign
from tests import test_rule_mechanisms
from tests.page_play import Seat
from tests.test_apd17_pass17 import midday
from tests.test_apd18_pass18 import seats
from tests.test_apd22_pass22 import amend_vp, charts, pp
from tests.test_apd24_pass24 import above_log

pytestmark = [pytest.mark.django_db, pytest.mark.rules]

users = test_rule_mechanisms.users
fixed_dice = test_rule_mechanisms.fixed_dice


# ------------------------------------------------ Left of pass 24: the ended CG's header


def test_cg_vc_a_cg_ended_by_an_amendment_in_the_next_setup_names_its_last_scenario_on_the_header(
    users, modules
):
    """CG VC "the Americans win if their VP total is ≥ 150 at any CG-Scenario end" meets
    CG DATES "December 6 Morning/Midday/Afternoon": the Midday's result amended to 87 VP
    in the Afternoon's Setup Phase (its 3.4): 63 + 87 = 150 ≥ 150 with 41 + 10 = 51 < 105
    CVP amassed, so the CG ends at the Midday's end; the Afternoon's scenario is never
    played.  Both seats' page headers name the Midday as the CG's last (on main they
    read "December 6 Afternoon — the CG has ended"; the scenario sheets already named
    the Midday, pass 24), and so does each one's "My campaigns" row (its CG date column
    read December 6 Afternoon)."""
    players, _ = midday(users, "3.4")
    american, german = seats(players)
    amend_vp(american, german, "87")
    assert Campaign.objects.get(pk=players.campaign_id).ended_at is not None
    for side in ("american", "german"):
        head = above_log(Seat(players.users[side], players.campaign_id).open())
        assert "December 6 Midday — the CG has ended" in head, head[:600]
        assert "December 6 Afternoon — the CG has ended" not in head
        campaigns = Seat(players.users[side], players.campaign_id)
        campaigns.url = "/campaigns/"
        row = campaigns.open().split("test campaign", 1)[1][:300]
        assert "December 6 Midday" in row and "December 6 Afternoon" not in row, row


# ------------------------------------------------ Left of pass 22: one warning at the last 3.4


def test_3_4_at_the_cgs_last_purchase_one_warning_where_done_is_pressed_says_the_pp_are_lost(
    users, modules
):
    """3.4 "Unused Purchase Points may be retained for future use" meets CG DATES (the
    Afternoon the last): the Midday's 3.4 sets up the CG's last scenario, so no use
    follows for PP left there.  With 101 PP (33 kept + 120 − 103 + 51 = 68) and nothing
    bought, the American's page says it once, in the warning beside his Done (and in
    Done's confirmation), with the figure and both rules: "Your 101 unspent PP cannot be
    used later ... lost with the CG's end ... (CG Dates; 1.2) ... (3.4)".  On main two
    lines said it (one at the top of the step, one at Done).  The German's page says
    nothing of it."""
    players, _ = midday(users, "3.4")
    charts(players)
    american, german = seats(players)
    assert pp(players) == 101
    text = above_log(american.text)
    for words in ("unspent", "lost with the CG's end", "cannot be used later"):
        assert len(re.findall(words, text)) == 1, (words, text[:3000])
    page = unescape(american.html)
    warnings = page.split('id="finish-warnings"')[1].split("</ul>")[0]
    said = (
        "Your 101 unspent PP cannot be used later and are lost with the CG's end: "
        "December 6 Afternoon is the last scenario of the CG (CG Dates; 1.2); unused PP are "
        "retained only for a future purchase (3.4)."
    )
    assert said in re.sub(r"\s+", " ", warnings), warnings
    confirm = f"{said} You have bought no RG at 3.4. Finish the step anyway?"
    assert confirm in page, page.split("Done with 3.4")[0][-800:]
    assert "unspent" not in above_log(german.text)


# ------------------------------------------------ 1. combined limits


def amend(american: Seat, german: Seat, reason: str = "miscounted", **figures: str) -> None:
    """The American proposes the scenario's figures amended through his page (each
    ``figures`` key a field name's parts, "vp.american", "cvp_lost.american"), the
    German accepts through his."""
    form = american.form_of("Propose the amendment")
    typed = {}
    for key, value in figures.items():
        name = next(n for n, _ in form.fields if n.endswith(key) and "c" + key not in n)
        typed[name] = value
    assert american.press("Propose the amendment", reason=reason, **typed).status == 200
    german.open()
    assert german.press("Accept the amendment").status == 200
    american.open()


def test_cg_vc_150_vp_and_105_cvp_amended_together_the_proviso_keeps_the_cg_going(users, modules):
    """CG VC "Provided the Germans have not amassed ≥ 105 CVP, the Americans win if
    their VP total is ≥ 150 at any CG-Scenario end" meets 2.9-2.92 on one amended
    result: at the Afternoon's 3.4 the Midday's figures are amended together, 40 → 87
    VP and the American's CVP lost 10 → 64 (through both pages).  By hand: 63 + 87 = 150
    ≥ 150, but the Germans have amassed 41 + 64 = 105 ≥ 105, so the proviso denies the
    CG win: the CG goes on.  2.9: 150 ≥ 120, the American wins the Midday and moves
    first (both headers).  2.91: 120 − 150 = −30; 2.92: −30 + (41 + 64) = 75; 3.4: + 33
    kept = 108 PP, on the American's page only.  (87 VP alone ends the CG: pass 24.)"""
    players, _ = midday(users, "3.4")
    american, german = seats(players)
    amend(american, german, **{"vp.american": "87", "cvp_lost.american": "64"})
    assert Campaign.objects.get(pk=players.campaign_id).ended_at is None
    for seat in (american, german):
        head = above_log(seat.open())
        assert "American won the December 6 Midday scenario: American moves first" in head
        assert "— the CG has ended" not in head
    assert pp(players) == 108
    assert "You have 108 PP" in american.text
    assert not re.search(r"\b108\b", german.text)


def test_3_4_two_buys_each_within_the_maximum_together_past_the_pp_the_second_is_refused(
    users, modules
):
    """3.4 "He may purchase as many of each group as he has Purchase Points available,
    but the scenario maximum allowed for each group may not be exceeded": two caps on
    one group.  The Morning (55 − 63 + 41 = 33 PP), the result amended to 80 VP: 55 −
    80 + 41 = 16 PP.  A1 (10 PP, scenario maximum 2): the first is bought (6 left); the
    second is within the maximum (1 of 2) but past the PP: its Buy is gone and, posted
    anyway, refused in words citing 3.4 ("not enough PP (10 needed, 6 left; 3.4)"; on
    main the sentence cited no rule), the PP unchanged; the German's page shows none
    of it."""
    from tests.test_apd12_pass12 import apd
    from tests.test_apd18_pass18 import at_of, forge

    players, _ = apd(users, "3.4")
    charts(players)
    american, german = seats(players)
    amend(american, german, **{"vp.american": "80"})
    assert pp(players) == 16
    buy = "Buy A1 Armor Group for 10 PP"
    assert american.press(buy).status == 200
    assert pp(players) == 6
    assert buy not in american.buttons()
    answer = forge(american, "buy", at=at_of(american), group="A1")
    said = "not enough PP (10 needed, 6 left; 3.4)"
    assert answer.refused and said in answer.text, answer.text[:400]
    assert pp(players) == 6
    assert "A1" not in german.open().split("Rules data")[0]


# ------------------------------------------------ 2. a correction meeting a later step


def test_3_1_footnote_an_evacuation_corrected_back_after_the_7_0_was_placed_with_an_mmc(
    users, modules, fixed_dice
):
    """3.1 footnote * "... replaced with a 7-0 leader in the same location as the
    friendly MMC nearest ... The owning player may choose which location in the event of
    a tie.  Any SW Possessed by an Evacuated leader is considered Transferred to the MMC
    as well", undone after a later action used it: the German's wounded 8-0 at 21A1
    with an LMG is Evacuated (dr 5); he has two MMC (5-4-8 at 21B1, 4-6-7 at 21C1), so he
    places the 7-0 with the 5-4-8 at 21B1 through his page, which takes the LMG.  Then
    he proposes the roll's write-back corrected (the 8-0 back, unwounded: the dr was a
    1) and the American accepts.  By hand: no Evacuation, so no 7-0 and no transfer:
    the 8-0 at 21A1 with his LMG, the 5-4-8 with nothing, and his Done offered."""
    from tests.test_apd12_pass12 import apd
    from tests.test_apd19_pass19 import RECOVERY
    from tests.test_apd24_pass24 import lines
    from tests.test_apd_pass5 import done
    from tests.test_roster_possession import possess
    from tests.test_rule_mechanisms import add

    players, _ = apd(users, "3.1")
    done(players, "american")
    leader = add(players, "german", "8-0 leader", "leader", "wounded", location="21A1")
    possess(players, "german", add(players, "german", "LMG", "sw"), leader)
    add(players, "german", "5-4-8", "squad", location="21B1")
    add(players, "german", "4-6-7", "squad", location="21C1")
    american, german = seats(players)
    fixed_dice.append([5])
    assert german.press(RECOVERY, unit=leader.ref).status == 200
    assert german.press("Place the 7-0 leader", location="21B1").status == 200
    assert lines(players, "german") == [
        ("4-6-7", "21C1", ""),
        ("5-4-8", "21B1", ""),
        ("7-0 leader", "21B1", ""),
        ("LMG", "", "5-4-8"),
    ]
    proposed = german.press(
        "Propose the correction",
        name="8-0 leader",
        kind="leader",
        markers="",
        gone="",
        reason="the dr was a 1",
    )
    assert proposed.status == 200, proposed.text[:300]
    american.open()
    assert american.press("Accept the correction").status == 200
    assert lines(players, "german") == [
        ("4-6-7", "21C1", ""),
        ("5-4-8", "21B1", ""),
        ("8-0 leader", "21A1", ""),
        ("LMG", "", "8-0 leader"),
    ]
    german.open()
    assert "Place the 7-0 leader" not in german.buttons()
    assert "Done with 3.1" in german.buttons()


def test_2_note_2_5_an_amendment_at_3_4_keeps_the_cvp_the_1tc_added_and_2_92_reads_both(
    users, modules, fixed_dice
):
    """2 Note "CVP are recorded normally throughout this phase" and 2.5 "Failing the
    1TC results in the unit's immediate Elimination" meet an amendment made later, at
    3.4, of another figure of the same result (2.91's VP): the American's Encircled
    6-6-6 fails its 1TC at the Morning's 2.5 (DR 6+6; a squad's CVP 2, supplied): 41 + 2
    = 43 CVP lost, and 2.92 reads 55 − 63 + 43 = 35 PP.  At 3.4 the VP are amended 63 →
    60 (through both pages).  By hand: the 1TC's 2 CVP stay: 55 − 60 = −5, −5 + 43 = 38
    PP (not 36, which the 41 first entered would give); the result's CVP lost reads 43."""
    from tests.test_apd12_pass12 import apd, lost, supply_value
    from tests.test_apd18_pass18 import ROLL_1TC
    from tests.test_rule_mechanisms import add

    players, _ = apd(users, "2.5")
    supply_value(players, "cvp_per_kind.squad", "2")
    squad = add(players, "american", "6-6-6", "squad", "encircled", location="12A2")
    american, german = seats(players)
    fixed_dice.append([6, 6])
    assert american.press(ROLL_1TC, unit=squad.ref).status == 200
    assert lost(players)["american"] == 43
    players.until_step("3.4")
    american, german = seats(players)
    assert pp(players) == 35
    amend(american, german, **{"vp.american": "60"})
    assert lost(players)["american"] == 43
    assert pp(players) == 38
    assert "You have 38 PP" in american.text
    assert not re.search(r"\b38 PP\b", german.text)


# ------------------------------------------------ 3. two modifiers on one roll


def test_2_5_a10_7_a_leader_the_1tc_eliminates_leads_no_one_the_squads_1tc_has_no_drm(
    users, modules, fixed_dice
):
    """2.5 "Each Encircled unit must take a 1TC (leadership applies normally).  Failing
    the 1TC results in the unit's immediate Elimination" meets itself on one Location:
    the American's Encircled 9-2 leader and Encircled 6-6-7 at 12A1 (every Location
    entered).  A10.7: the leader checks first, his own DRM never applies: DR 6+6 = 12,
    +1 (1TC) +1 (A7.7 Encircled) − 9 (Morale) = 5 > 0: Failed, Eliminated.  He has left
    the forces and leads no one, so the squad's check has no leadership DRM: DR 3+4 = 7,
    +1 +1 − 7 = 2 > 0: Failed (with the 9-2's −2 it would have been 0, Passed).  Both
    eliminated; squad CVP 2 and leader CVP 1 supplied: 41 + 3 = 44 CVP lost."""
    from campaign.models import Roll
    from tests.test_apd12_pass12 import apd, lost, supply_value
    from tests.test_apd18_pass18 import ROLL_1TC
    from tests.test_rule_mechanisms import add

    players, _ = apd(users, "2.5")
    supply_value(players, "cvp_per_kind.squad", "2")
    supply_value(players, "cvp_per_kind.leader", "1")
    leader = add(players, "american", "9-2 leader", "leader", "encircled", location="12A1")
    squad = add(players, "american", "6-6-7", "squad", "encircled", location="12A1")
    american, german = seats(players)
    fixed_dice.extend([[6, 6], [3, 4]])
    assert american.press(ROLL_1TC, unit=leader.ref).status == 200
    assert american.press(ROLL_1TC, unit=squad.ref).status == 200
    first, second = Roll.objects.filter(
        campaign_id=players.campaign_id, table_id="encirclement_1tc"
    ).order_by("seq")
    assert (first.final, second.final) == (5, 2), (first.drms, second.drms)
    assert not [d for d in second.drms if "Leadership" in d["label"] and d["value"]], second.drms
    assert first.result.startswith("Failed") and second.result.startswith("Failed")
    assert lost(players)["american"] == 44


def test_3_6_note_a_meets_the_german_armor_column_and_3_5_note_2_a_pzv_section_takes_no_schuerzen(
    users, modules, fixed_dice
):
    """3.6 Leader Table note a "-1 DRM for PzGr Platoon I/PzV Section" on the German
    Armor column (a PzV Section is an armor group, Row B), and 3.5 note 2 "Make one DR
    on the H1.42 Schuerzen Table per PzIV", on one group: the German's Row B gives RB1
    PzV Section (two PzVG).  Its Leader DR through his page: DR 1+2 = 3, −1 (note a) = 2:
    the "≤ 2" row, German Armor "9-2" (DR 3 alone reads 9-1).  No Schuerzen DR is made
    for it (a PzVG is no PzIV).  The American's page shows none of it."""
    from campaign.models import Roll
    from tests.test_apd12_pass12 import apd
    from tests.test_apd_pass5 import done
    from tests.test_rule_mechanisms import GERMAN_CHART, supply_german

    players, _ = apd(users, "3.4")
    chart = {
        **GERMAN_CHART,
        "row-1-type": "PzV Section",
        "row-1-units": "PzVG",
        "row-1-tags": "pzv_section",
    }
    supply_german(players, chart)
    players.until_step("3.5")
    american, german = seats(players)
    fixed_dice.extend([[5], [1], [1]])  # Row A: nothing; Row B: RB1; Row C: nothing
    for row in "ABC":
        assert german.press(f"Roll dr: German Reinforcement Table, Row {row}").status == 200
    done(players, "german")
    players.until_step("3.6")
    american, german = seats(players)
    fixed_dice.append([1, 2])
    rolls = next(b for b in german.buttons() if b.startswith("Make its secret rolls"))
    assert "RB1 PzV Section" in rolls, german.buttons()
    assert german.press(rolls).status == 200
    (leader,) = Roll.objects.filter(campaign_id=players.campaign_id, table_id="leader")
    assert leader.final == 2 and leader.result == "German Armor: 9-2", leader.result
    assert [d["value"] for d in leader.drms] == [-1], leader.drms
    assert not Roll.objects.filter(campaign_id=players.campaign_id, table_id="schuerzen")
    assert "Leader Table: German Armor: 9-2" in german.text
    assert "9-2" not in american.open().split("Rules data")[0]


# ------------------------------------------------ 4. once-limits meeting a repeat


def test_3_1_a_recovery_dr_corrected_back_to_wounded_is_not_rolled_again_until_the_next_setup(
    users, modules, fixed_dice
):
    """3.1 "The owning player rolls on the following Recovery Table to determine each
    wounded leader's fate" (once per leader per Setup Phase, required) meets a
    correction of its write-back: the German's wounded 8-1 rolls dr 2 (Retain
    Unwounded); the players agree the line was written wrong and put him back wounded
    (proposed on the German's page, accepted on the American's).  The dice stand: the
    roll was made, so no second Recovery dr is offered and his Done is not held for it.
    At the Midday's 3.1 (a new Setup Phase) he is a wounded leader again, and owes it:
    his Done waits for it; dr 1 retains him unwounded."""
    from tests.test_apd12_pass12 import apd, supply_value
    from tests.test_apd19_pass19 import RECOVERY
    from tests.test_apd_pass5 import done
    from tests.test_rule_mechanisms import add, result_values

    players, module = apd(users, "3.1")
    supply_value(players, "dates.dec6midday.vp_required", "120")
    done(players, "american")
    leader = add(players, "german", "8-1 leader", "leader", "wounded", location="20A3")
    american, german = seats(players)
    fixed_dice.append([2])
    assert german.press(RECOVERY, unit=leader.ref).status == 200
    proposed = german.press(
        "Propose the correction",
        name="8-1 leader",
        kind="leader",
        markers="wounded",
        gone="",
        reason="he was still wounded",
    )
    assert proposed.status == 200, proposed.text[:300]
    american.open()
    assert american.press("Accept the correction").status == 200
    german.open()
    assert RECOVERY not in german.buttons()
    assert "Done with 3.1" in german.buttons()
    done(players, "german")
    players.until("results")
    players.results(**result_values(module, vp_american=40, cvp_lost_american=10))
    players.until_step("3.1")
    done(players, "american")
    american, german = seats(players)
    assert RECOVERY in german.buttons()
    assert "Done with 3.1" not in german.buttons()
    fixed_dice.append([1])
    assert german.press(RECOVERY, unit=leader.ref).status == 200
    assert "Done with 3.1" in german.buttons()


def test_3_3_3_31_a_vehicles_ma_eliminated_and_recalled_its_mg_still_makes_its_own_attempt(
    users, modules, fixed_dice
):
    """3.3 "making a dr per repair attempt for malfunctioned, non-captured weapons" and
    3.31 "Each weapon/Vehicle may make only one Repair attempt. A vehicle that rolls a 6
    on a MA repair becomes BU if CE and is marked with a Recall counter" on one vehicle:
    the American's M4A3(76)W with its MA and its BMG malfunctioned.  MA dr 6: the MA is
    eliminated (disabled) and the tank Recalled; it is not Abandoned, so its BMG still
    makes its own one attempt (3.31 "vehicles must not be Abandoned"): dr 2, Repaired
    (vehicular MG 1-2).  Then no attempt is offered for either (one each)."""
    from campaign.models import Unit
    from tests.purchase_helpers import add_vehicle
    from tests.test_apd12_pass12 import apd

    players, _ = apd(users, "3.3")
    tank, (ma, mg) = add_vehicle(
        players,
        "american",
        "M4A3(76)W",
        ("ma", ["malfunctioned"]),
        ("mg", ["malfunctioned"], "BMG"),
    )
    american, german = seats(players)
    fixed_dice.extend([[6], [2]])
    assert american.press("Roll dr: Repair Table: Repair MA/Gun", unit=f"{tank.ref}.{ma}")
    offered = [v for v, _ in american.options("Roll dr: Repair Table: Repair vehicular MG", "unit")]
    assert offered == [f"{tank.ref}.{mg}"], offered
    assert american.press("Roll dr: Repair Table: Repair vehicular MG", unit=f"{tank.ref}.{mg}")
    assert not [b for b in american.buttons() if "Repair" in b], american.buttons()
    fresh = Unit.objects.get(pk=tank.pk)
    assert fresh.markers == ["recalled"]
    assert [w["markers"] for w in fresh.weapons] == [["disabled"], []], fresh.weapons


def test_3_2_3_31_a_hero_left_at_done_with_an_mmc_to_harden_is_asked_first_his_sw_then_unrepairable(
    users, modules
):
    """3.2 "Heroes (whether wounded or unwounded) are eliminated, but for each such
    eliminated Hero the owning player may Battle Harden ... any one MMC ... Any SW
    Possessed by an eliminated Hero is considered Transferred to the Battle Hardened
    MMC" meets 3.31 "Guns/SW must be Possessed to attempt Repair": the American's
    2-4-7 Hero possesses a malfunctioned BAZ 44, and his 6-6-7 could be hardened.  Done
    without marking it gives up the hardening and leaves the BAZ possessed by no one,
    so it can make no Repair attempt at 3.3: the Done asks first, naming both (on main
    one click did it, no confirmation).  Pressed anyway, the Hero is gone, the BAZ
    unpossessed, and 3.3 offers it no dr."""
    from html import unescape

    from campaign.models import Unit
    from tests.test_apd12_pass12 import apd
    from tests.test_roster_possession import possess
    from tests.test_rule_mechanisms import add

    players, _ = apd(users, "3.2")
    hero = add(players, "american", "2-4-7 Hero", "hero", location="12L5")
    baz = possess(
        players, "american", add(players, "american", "BAZ 44", "sw", "malfunctioned"), hero
    )
    add(players, "american", "6-6-7", "squad", location="12L5")
    american, german = seats(players)
    said = (
        "Your 2-4-7 Hero leaves your forces without the 6-6-7 marked battle hardened for "
        "it, which you may still do (3.2); the BAZ 44 the 2-4-7 Hero possesses is then "
        "left unpossessed."
    )
    page = unescape(american.html)
    warnings = page.split('id="finish-warnings"')[1].split("</ul>")[0]
    assert said in re.sub(r"\s+", " ", warnings), warnings
    assert f"{said} Finish the step anyway?" in page
    assert said not in unescape(german.html)
    assert american.press("Done with 3.2").status == 200
    players.until_step("3.3")
    assert not Unit.objects.filter(pk=hero.pk).exists()
    assert Unit.objects.get(pk=baz.pk).markers == ["malfunctioned", "unpossessed"]
    american, german = seats(players)
    assert "You have no malfunctioned SWs (not captured or unpossessed) to roll for" in (
        american.text
    )


def test_2_5_exc_2_6_2_7_3_31_a_vehicle_abandoned_at_2_5_is_no_later_steps_and_repairs_nothing(
    users, modules
):
    """Four sentences on one vehicle: 2.5 EXC "the Encircled Vulnerable PRC of an
    Immobile vehicle are Eliminated, leaving the vehicle Abandoned"; 2.6 "Each
    non-abandoned, Bogged/Mired vehicle must undergo ≥ one Bog Removal attempt"; 2.7
    "Each Shocked/UK AFV must undergo ≥ one recuperation attempt"; 3.31 "vehicles must
    not be Abandoned ... to attempt Repair".  The American's Encircled, immobilized
    M4A3(75)W with a malfunctioned MA, and a mobile M4A3(76)W.  At 2.5 he marks the first
    Abandoned through his roster page (its crew's CVP, 1, supplied: 41 + 1 = 42 lost).
    2.6's and 2.7's reminders then name the M4A3(76)W only; 3.3 offers no Repair dr
    for the Abandoned tank's MA; 2.92: 55 − 63 + 42 = 34 PP."""
    from tests.purchase_helpers import add_vehicle
    from tests.test_apd12_pass12 import apd, lost, supply_value
    from tests.test_apd20_pass20 import ABANDON, roster
    from tests.test_apd21_pass21 import reminder
    from tests.test_apd_pass5 import done

    players, _ = apd(users, "2.5")
    supply_value(players, "cvp_per_kind.half_squad", "1")
    add_vehicle(
        players,
        "american",
        "M4A3(75)W",
        ("ma", ["malfunctioned"]),
        status="encircled",
        markers=["immobilized"],
    )
    add_vehicle(players, "american", "M4A3(76)W")
    assert roster(players, "american").press(f"{ABANDON} (M4A3(75)W)").status == 200
    assert lost(players)["american"] == 42
    for step in ("2.6", "2.7"):
        players.until_step(step)
        american, _ = seats(players)
        line = reminder(american, step)
        assert "M4A3(76)W" in line and "M4A3(75)W" not in line, line
    players.until_step("3.3")
    american, _ = seats(players)
    assert "Roll dr: Repair Table: Repair MA/Gun" not in american.buttons()
    assert pp(players) == 34
    done(players, "american")


def test_3_31_one_repair_attempt_holds_across_a_done_taken_back(users, modules, fixed_dice):
    """3.31 "Each weapon/Vehicle may make only one Repair attempt" meets a repeated step:
    the American's BAZ 44 (malfunctioned, possessed by his 6-6-7) rolls dr 4 (NE, Repair
    SW 4-5) at 3.3; he presses Done, then takes it back through his page before the
    German acts.  The step is his again, but the BAZ made its one attempt: no dr is
    offered for it, and his Done is offered again."""
    from tests.test_apd12_pass12 import apd
    from tests.test_roster_possession import possess
    from tests.test_rule_mechanisms import add

    players, _ = apd(users, "3.3")
    squad = add(players, "american", "6-6-7", "squad", location="12L5")
    baz = possess(
        players, "american", add(players, "american", "BAZ 44", "sw", "malfunctioned"), squad
    )
    american, german = seats(players)
    fixed_dice.append([4])
    assert american.press("Roll dr: Repair Table: Repair SW", unit=baz.ref).status == 200
    assert american.press("Done with 3.3").status == 200
    assert american.press("Take back my Done at 3.3").status == 200
    assert "Roll dr: Repair Table: Repair SW" not in american.buttons()
    assert "Done with 3.3" in american.buttons()
