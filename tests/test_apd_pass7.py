"""Issue 44, pass 7, A Pleasant Diversion (seed 002): what pass 6 left (an MMC Battle
Hardened twice, A15.3), and the sentences passes 4-6 had not tried in play — the
boundaries of each table's rows, the "≥" of each victory figure, the 105-CVP proviso,
the German's own required roll, what 2.1 leaves (captured weapons are no Prisoners),
the 3 Note's CVP for each kind of loss the Setup Phase makes.  Each test cites the
sentence it tries (rules/ledger/sentences/pleasant-diversion.yaml);
docs/rules-audit/pass-7-apd.md lists each sentence tried and what was found."""

from __future__ import annotations

import html

import pytest

from campaign.models import Event, Purchase, Roll, ScenarioResult, Seat, Unit
from campaign.services.errors import ActionRefused
from tests import test_rule_mechanisms
from tests.purchase_helpers import add_vehicle
from tests.test_apd_pass5 import done, points
from tests.test_computations import pd_result
from tests.test_rule_mechanisms import (
    _armor_group,
    add,
    apd_at,
    buy,
    exchange,
    rg_roll,
    roll,
    start,
    unit_names,
)

pytestmark = [pytest.mark.django_db, pytest.mark.rules]

users = test_rule_mechanisms.users
fixed_dice = test_rule_mechanisms.fixed_dice


def _shown(client, players, side) -> str:
    client.force_login(players.users[side])
    return html.unescape(client.get(f"/campaigns/{players.campaign_id}/").content.decode())


# --------------------------------------------------------------------------- 3.2, A15.3


def test_3_2_a15_3_an_mmc_battle_hardened_once_is_not_hardened_again(users, modules, client):
    """3.2: "for each such eliminated Hero the owning player may Battle Harden [EXC:
    Fanatic status is NA] any one MMC": a Line MMC Battle Hardened becomes Elite
    (A15.3), so a second hardening would make it Fanatic, NA.  Two Heroes and one
    squad: the first Hero hardens the squad; the squad is then neither offered for the
    second Hero nor accepted, and as the side can harden no other MMC the second Hero
    remains onboard unwounded at Done (3.2's second EXC)."""
    players, _ = apd_at(users, "3.2")
    heroes = add(players, "american", "1-4-9 Hero", "hero", "wounded", number=2)
    squad = add(players, "american", "6-6-6", "squad")
    exchange(players, "american", heroes, squad)
    assert ("6-6-6", "squad", "battle_hardened", 1) in unit_names(players, "american")
    shown = _shown(client, players, "american")
    panel = shown.split("Your Heroes", 1)[1].split("</form>")[0]
    assert "6-6-6" not in panel
    hero = Unit.objects.get(campaign_id=players.campaign_id, kind="hero")
    with pytest.raises(
        ActionRefused,
        match=r"6-6-6 is not one of your squads or half-squads \(not captured or elite or "
        r"battle hardened\) \(3.2\)",
    ):
        exchange(players, "american", hero, Unit.objects.get(pk=squad.pk))
    assert unit_names(players, "american") == [
        ("1-4-9 Hero", "hero", "wounded", 1),
        ("6-6-6", "squad", "battle_hardened", 1),
    ]
    done(players, "american")
    assert unit_names(players, "american") == [
        ("1-4-9 Hero", "hero", "ok", 1),
        ("6-6-6", "squad", "battle_hardened", 1),
    ]


def test_3_2_a15_3_a_squad_hardened_before_the_setup_phase_is_not_offered(users, modules):
    """3.2 [EXC: Fanatic status is NA]: a squad its owner marked Battle Hardened on his
    retained forces (hardened in play, A15.3) cannot harden again; a Line squad beside
    it can, so a Hero given up for nothing is eliminated at Done."""
    players, _ = apd_at(users, "3.2")
    hero = add(players, "german", "1-4-9 Hero", "hero")
    hardened = add(players, "german", "4-6-7", "squad", "battle_hardened")
    line = add(players, "german", "4-6-7", "squad")
    done(players, "american")
    with pytest.raises(ActionRefused, match=r"battle hardened\) \(3.2\)"):
        exchange(players, "german", hero, hardened)
    exchange(players, "german", hero, line)
    assert unit_names(players, "german") == [
        ("4-6-7", "squad", "battle_hardened", 1),
        ("4-6-7", "squad", "battle_hardened", 1),
    ]


# --------------------------------------------------------------------------- CG VC, 2.9


@pytest.mark.parametrize(("cvp", "won"), [(104, True), (105, False)])
def test_cg_vc_150_vp_win_the_cg_at_the_morning_unless_105_cvp_amassed(users, modules, cvp, won):
    """CG VC: "Provided the Germans have not amassed ≥ 105 CVP, the Americans win if
    their VP total is ≥ 150 at any CG-Scenario end": 150 VP in the Morning (the first
    CG scenario end) win the CG there with 104 CVP lost; with 105 the proviso fails and
    the CG goes on."""
    players, _ = start("pleasant-diversion", "cg", users, "american")
    players.results(**pd_result(vp=150, cvp_american=cvp))
    if won:
        players.until_step("2.9")
    else:
        players.until("results")  # the Midday's: the CG went on
    c = players.campaign
    assert (c.ended_at is not None) is won
    if won:
        assert "American wins the CG" in c.outcome


@pytest.mark.parametrize(("vp", "pp"), [(55, 41), (54, 42)])
def test_2_9_2_91_the_required_total_itself_wins_and_a_0_differential(users, modules, vp, pp):
    """2.9: "If the VP total is ≥ the required CG scenario total ... the American is
    the winner": 55 of 55 wins the Morning, 54 does not; 2.91: the differential "can
    result in a positive or negative number, or 0" (55 − 55 = 0: 41 PP, the CVP alone;
    55 − 54 = 1: 42 PP)."""
    players, _ = start("pleasant-diversion", "cg", users, "american")
    players.results(**pd_result(vp=vp, cvp_american=41))
    players.until_step("3.4")
    winner = ScenarioResult.objects.get(campaign_id=players.campaign_id).winner
    assert winner == ("american" if vp >= 55 else "german")
    assert points(players, "american") == pp


# --------------------------------------------------------------------------- 2.1


def test_2_1_captured_weapons_and_vehicles_are_no_prisoners_and_stay(users, modules):
    """2.1: "All Prisoners are then removed from play": the German's men marked
    Captured (his squad, his leader) are Prisoners and leave at Done; the SW and the
    vehicle he captured are weapons, no Prisoners, and stay."""
    players, _ = apd_at(users, "2.1")
    add(players, "german", "4-6-7", "squad", "captured")
    add(players, "german", "8-0 leader", "leader", "captured")
    add(players, "german", "BAZ 44", "sw", "captured")
    add_vehicle(players, "german", "M4A3(75)W", status="captured")
    players.finish()
    assert unit_names(players, "german") == [
        ("BAZ 44", "sw", "captured", 1),
        ("M4A3(75)W", "vehicle", "captured", 1),
    ]


# --------------------------------------------------------------------------- 3.1


def test_3_1_recovery_rows_3_retains_and_4_evacuates_the_german_rolls_too(
    users, modules, fixed_dice
):
    """3.1 Recovery Table: "1-3 Retain Unwounded", "4-6 Evacuated*", at their edges,
    and for the German (the owning player of his own leaders), whose Done waits for
    each of his wounded leaders' dr as the American's does."""
    players, _ = apd_at(users, "3.1")
    done(players, "american")
    kept = add(players, "german", "8-1 leader", "leader", "wounded")
    gone = add(players, "german", "9-1 leader", "leader", "wounded")
    fixed_dice.extend([[3]])
    roll(players, "german", "recovery", kept)
    with pytest.raises(ActionRefused):
        done(players, "german")
    fixed_dice.extend([[4]])
    roll(players, "german", "recovery", gone)
    assert unit_names(players, "german") == [
        ("7-0 leader", "leader", "ok", 1),
        ("8-1 leader", "leader", "ok", 1),
    ]
    done(players, "german")
    assert players.step.id != "3.1"


def test_3_note_an_evacuated_leader_and_a_sw_eliminated_by_repair_add_no_cvp(
    users, modules, fixed_dice
):
    """3 Note: "CVP are NA for units/weapons eliminated in this phase": an Evacuated
    leader (3.1) and a SW eliminated on its Repair dr of 6 (3.3) leave the retained
    forces, and the Morning's result keeps its 41 CVP, so 2.92's total after the Midday
    counts none of them."""
    players, _ = apd_at(users, "3.1")
    leader = add(players, "american", "9-2 leader", "leader", "wounded")
    fixed_dice.extend([[6]])
    roll(players, "american", "recovery", leader)
    players.until_step("3.3")
    sw = add(players, "american", "MMG", "sw", "malfunctioned")
    fixed_dice.extend([[6]])
    roll(players, "american", "repair_sw", sw)
    assert not Unit.objects.filter(pk=sw.pk).exists()
    result = ScenarioResult.objects.get(campaign_id=players.campaign_id)
    assert result.data["cvp_lost"]["american"] == 41
    assert points(players, "american") == 33


# --------------------------------------------------------------------------- 3.3


@pytest.mark.parametrize(
    ("table", "kind", "dr", "after"),
    [
        ("repair_sw", "sw", 3, "ok"),
        ("repair_sw", "sw", 4, "malfunctioned"),
        ("repair_sw", "sw", 5, "malfunctioned"),
        ("repair_ma_gun", "gun", 4, "ok"),
        ("repair_ma_gun", "gun", 5, "malfunctioned"),
    ],
)
def test_3_3_repair_table_rows_at_their_edges(users, modules, fixed_dice, table, kind, dr, after):
    """3.3 REPAIR TABLE: "Repair SW 1-3 | 4-5 | 6" and "Repair MA/Gun 1-4 | 5 | 6": a SW
    repairs on 3 and stays malfunctioned (NE) on 4 and 5; a Gun repairs on 4 and not on
    5; the German rolls his own (both players, 3.3)."""
    players, _ = apd_at(users, "3.3")
    done(players, "american")
    weapon = add(players, "german", "MG42" if kind == "sw" else "75L PaK 40", kind, "malfunctioned")
    fixed_dice.extend([[dr]])
    roll(players, "german", table, weapon)
    weapon.refresh_from_db()
    assert (", ".join(weapon.markers) or "ok") == after


def test_1_2_the_german_repairs_after_the_americans_done(users, modules, fixed_dice):
    """1.2 "American first, complete each step" at 3.3: the German's Repair dr waits
    for the American's Done."""
    players, _ = apd_at(users, "3.3")
    sw = add(players, "german", "MG42", "sw", "malfunctioned")
    with pytest.raises(ActionRefused):
        roll(players, "german", "repair_sw", sw)
    done(players, "american")
    fixed_dice.extend([[1]])
    roll(players, "german", "repair_sw", sw)


# --------------------------------------------------------------------------- 3.4


def test_3_4_as_many_of_each_group_as_his_points_the_last_point_spent(users, modules, fixed_dice):
    """3.4: "He may purchase as many of each group as he has Purchase Points
    available, but the scenario maximum allowed for each group may not be exceeded":
    two 10-PP groups with 20 PP (maximum 3) spend every point, a third is refused for
    its points (not its maximum); none left to retain."""
    players, _ = apd_at(users, "3.4")
    _armor_group(
        players, [{"range": "1-6", "result": "M5A1", "effect": {"do": "none"}}], date_max=3
    )
    buy(players, "american", "A1")
    buy(players, "american", "A1")
    assert points(players, "american") == 0
    with pytest.raises(ActionRefused, match=r"not enough PP \(10 needed, 0 left; 3.4\)"):
        buy(players, "american", "A1")
    assert Purchase.objects.filter(campaign_id=players.campaign_id).count() == 2


# --------------------------------------------------------------------------- 3.6, 3.7


@pytest.mark.parametrize(
    ("dr", "leader"),
    [((1, 1), "10-2 leader"), ((4, 5), None), ((6, 6), None)],
    ids=["2", "9", "12"],
)
def test_3_6_american_armor_column_at_its_edges(users, modules, fixed_dice, dr, leader):
    """3.6 LEADER TABLE, American Armor column: "≤ 2 10-2"; "9-10 -" and "12 -" (no
    leader): the group's line gets a 10-2 on DR 2 and none on 9 or 12."""
    players, _ = apd_at(users, "3.4")
    _armor_group(players, [{"range": "1-6", "result": "M5A1", "effect": {"do": "none"}}])
    a1 = buy(players, "american", "A1")
    fixed_dice.append([4])
    rg_roll(players, "american", a1)
    players.until_step("3.6")
    fixed_dice.append(list(dr))
    rg_roll(players, "american", a1)
    leaders = Unit.objects.filter(campaign_id=players.campaign_id, kind="leader", purchase=a1)
    assert [u.name.split(" (")[0] for u in leaders] == ([leader] if leader else [])


@pytest.mark.parametrize(
    ("dr", "tanks"),
    [
        ((1, 1), [("M4A3(76)W", 2), ("M4A3E2(L)", 1)]),
        ((6, 6), [("M4A3", 1), ("M4A3(75)", 2)]),
    ],
    ids=["2", "12"],
)
def test_3_7_m4_model_table_first_and_last_rows(users, modules, fixed_dice, dr, tanks):
    """3.7 M4 MODEL TABLE: "2: 2 x M4A3(76)W; M4A3E2(L)" and "11-12: 2 x M4A3(75);
    M4A3": the M4 group's line receives those three tanks, by model."""
    from tests.test_rule_mechanisms import _M4_ARMOR_TYPE

    players, _ = apd_at(users, "3.4")
    _armor_group(players, [{"range": "1-6", "result": "M4", "effect": _M4_ARMOR_TYPE}])
    a1 = buy(players, "american", "A1")
    fixed_dice.append([1])
    rg_roll(players, "american", a1)
    players.until_step("3.6")
    fixed_dice.extend([[3, 3]])
    rg_roll(players, "american", a1)
    players.until_step("3.7")
    fixed_dice.extend([list(dr)])
    rg_roll(players, "american", a1)
    got = Unit.objects.filter(campaign_id=players.campaign_id, kind="vehicle", purchase=a1)
    assert sorted((u.name.split(" (A1)")[0], u.count) for u in got) == tanks
    assert Roll.objects.filter(table_id="m4_model").count() == 1


# --------------------------------------------------------------------------- 4.0


def test_4_0_sniper_values_are_the_cgs_own_at_the_next_scenario(users, modules):
    """4.0: "Sniper values are reset to their original numbers": whatever SAN the
    Morning's scenario ended with, each side begins the Midday with the SAN it began
    the CG with (none is entered with a result)."""
    players, _ = start("pleasant-diversion", "cg", users, "american")
    before = dict(Seat.objects.filter(campaign_id=players.campaign_id).values_list("side", "san"))
    players.results(**pd_result(vp=63, cvp_american=41))
    players.until("results")
    after = dict(Seat.objects.filter(campaign_id=players.campaign_id).values_list("side", "san"))
    assert after == before
    assert not any("san" in k for k in players.campaign.module_data.get("result_fields", []))
    assert Event.objects.filter(campaign_id=players.campaign_id).exists()


# --------------------------------------------------------------------------- 3.6, rows 11-12


def test_3_6_leader_table_rows_11_and_12_german_columns_with_note_a(users, modules, fixed_dice):
    """3.6 LEADER TABLE, rows "11: 6+1 | - | - | -"... read by German columns: the
    PzGr Platoon I's DR 12 with note a's -1 is 11, a 6+1 (German Infantry); the PzIV
    Section's DR 12 (no DRM) is "-" on the German Armor column: no leader."""
    from tests.test_rule_mechanisms import german_groups

    players, _ = apd_at(users, "3.4")
    ra1, rb1 = german_groups(players, fixed_dice)
    fixed_dice.extend([[6, 6], [6, 6]])
    done(players, "german")
    rolls = Roll.objects.filter(table_id="leader").order_by("seq")
    assert [(r.final, r.result) for r in rolls] == [
        (11, "German Infantry: 6+1"),
        (12, "German Armor: No leader"),
    ]
    leaders = Unit.objects.filter(campaign_id=players.campaign_id, side="german", kind="leader")
    assert [u.name.split(" (")[0] for u in leaders] == ["6+1 leader"]


def test_3_6_american_infantry_column_12_gives_a_6_plus_1(users, modules, fixed_dice):
    """3.6 LEADER TABLE, "12: - | - | 6+1 | -": only the American Infantry column gives a
    leader on 12: an Armored Infantry Platoon's DR 12 gives it a 6+1 leader."""
    players, _ = apd_at(users, "3.4")
    _armor_group(
        players,
        [{"range": "1-6", "result": "M5A1", "effect": {"do": "none"}}],
        tags=("armored_infantry",),
        unit_kind="squad",
    )
    a1 = buy(players, "american", "A1")
    players.until_step("3.6")
    fixed_dice.append([6, 6])
    rg_roll(players, "american", a1)
    roll_ = Roll.objects.get(table_id="leader")
    assert roll_.result == "American Infantry: 6+1"
    assert Unit.objects.filter(purchase=a1, kind="leader", name__startswith="6+1").exists()


# --------------------------------------------------------------------------- 3.2 SW


def test_3_2_a_hero_eliminated_for_no_mmc_leaves_his_sw_unpossessed(users, modules):
    """3.2: "Any SW Possessed by an eliminated Hero is considered Transferred to the
    Battle Hardened MMC": a Hero his owner gives up for no MMC (he could have: a squad
    was there) is eliminated at Done and, no MMC hardened for him, his BAZ is left
    where he was, not possessed (it is not lost with him)."""
    players, _ = apd_at(users, "3.2")
    hero = add(players, "american", "1-4-9 Hero", "hero")
    add(players, "american", "6-6-6", "squad")
    add(players, "american", "BAZ 44", "sw", possessor=hero.ref)
    done(players, "american")
    assert unit_names(players, "american") == [
        ("6-6-6", "squad", "ok", 1),
        ("BAZ 44", "sw", "unpossessed", 1),
    ]


# --------------------------------------------------------------------------- CG VC / 2.9


def test_cg_dates_the_afternoon_ends_the_cg_by_its_vc_and_asks_no_vp_required(users, modules):
    """CG Scenario VC apply "for each of the first two CG-Scenarios"; CG DATES: three.
    After the Afternoon scenario (the last), the CG VC decide at its 2.9 — the CG ends
    there, with no VP requirement asked of the players for the Afternoon and no Setup
    Phase after it (no 3.4/3.5 for a scenario that will not be played)."""
    from tests.test_computations import supply_midday_vp

    players, _ = start("pleasant-diversion", "cg", users, "american")
    supply_midday_vp(players, 110)
    players.results(**pd_result(vp=20, cvp_american=10))
    players.until("results")
    players.results(**pd_result(vp=20, cvp_american=10))
    players.until("results")
    players.results(**pd_result(vp=20, cvp_american=10))
    c = players.campaign
    assert c.ended_at is not None and "German wins" in c.outcome
    texts = list(Event.objects.filter(campaign_id=c.pk).values_list("text", flat=True))
    assert not any("VP required to win the December 6 Afternoon" in t for t in texts)
    assert Seat.objects.get(campaign_id=c.pk, side="american").points >= 0


# --------------------------------------------------------------------------- 3.7 on the sheet


def test_3_7_the_scenario_sheet_lists_each_tank_the_group_received(users, modules, fixed_dice):
    """3.7: the M4 Model Table "determine[s] the tanks received by that Group": DR 2
    gives "2 x M4A3(76)W; M4A3E2(L)".  The scenario sheet the American sets up from
    (page and text for VASL) listed the line of two M4A3(76)W as one tank; it now reads
    "2 × M4A3(76)W (A1)", as the roster does."""
    from campaign.seat_views.sheet import scenario_sheet, sheet_text
    from tests.test_rule_mechanisms import _M4_ARMOR_TYPE

    players, _ = apd_at(users, "3.4")
    _armor_group(players, [{"range": "1-6", "result": "M4", "effect": _M4_ARMOR_TYPE}])
    a1 = buy(players, "american", "A1")
    fixed_dice.append([1])
    rg_roll(players, "american", a1)
    players.until_step("3.6")
    fixed_dice.extend([[3, 3], [1, 1]])
    rg_roll(players, "american", a1)
    players.until("results")
    text = sheet_text(scenario_sheet(players.campaign, "american"))
    assert "  2 × M4A3(76)W (A1) (in good order)" in text
    assert "  M4A3E2(L) (A1) (in good order)" in text


def test_3_1_each_of_two_identical_wounded_leaders_rolls_his_own_dr(users, modules, fixed_dice):
    """3.1: "The owning player rolls on the following Recovery Table to determine each
    wounded leader's fate": a line of two wounded 8-1 leaders owes two drs.  After the
    first (Evacuated: a 7-0 replaces him), Done is still refused for the other; his own
    dr (Retain Unwounded) lets Done pass."""
    players, _ = apd_at(users, "3.1")
    pair = add(players, "american", "8-1 leader", "leader", "wounded", number=2)
    fixed_dice.append([5])
    roll(players, "american", "recovery", pair)
    with pytest.raises(ActionRefused, match=r"3\.1"):
        done(players, "american")
    left = Unit.objects.get(campaign_id=players.campaign_id, name="8-1 leader")
    fixed_dice.append([1])
    roll(players, "american", "recovery", left)
    done(players, "american")
    assert unit_names(players, "american") == [
        ("7-0 leader", "leader", "ok", 1),
        ("8-1 leader", "leader", "ok", 1),
    ]
