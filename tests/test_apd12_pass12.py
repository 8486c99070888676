"""Issue 44, pass 12, A Pleasant Diversion (seed 002): the Left items of passes 9-11
(3.5's refusal for the side that does not act, A7.7's Encircled Morale at 2.5's 1TC,
2.5's CVP, 3.1's 7-0 with no MMC), then sentences of the CG rules, the Clean-Up 2.-2.92
and the Setup 3.-4.0 tried in play as a player would (wrong side, twice, skipped,
another row, another date, a result that should follow by itself).  Each test cites its
rule; docs/rules-audit/pass-12-apd12.md lists what was tried and what held."""

from __future__ import annotations

import html
import re

import pytest

from campaign.models import Campaign, Event, Purchase, Roll, ScenarioResult, Seat, Unit
from campaign.services import supplements
from campaign.services.errors import ActionRefused
from tests import test_rule_mechanisms
from tests.test_apd_pass5 import done, points
from tests.test_rule_mechanisms import (
    _M4_ARMOR_TYPE,
    GERMAN_CHART,
    _armor_group,
    add,
    add_vehicle,
    buy,
    result_values,
    rg_roll,
    roll,
    row_table,
    start,
    supply,
    supply_german,
    unit_names,
)

pytestmark = [pytest.mark.django_db, pytest.mark.rules]

users = test_rule_mechanisms.users
fixed_dice = test_rule_mechanisms.fixed_dice


def apd(users, step_id, vp=63, cvp=41, **more):
    """The CG after its Morning scenario (``vp`` VP scored, ``cvp`` CVP lost by the
    American), walked to ``step_id``."""
    players, module = start("pleasant-diversion", "cg", users, "american")
    players.results(**result_values(module, vp_american=vp, cvp_lost_american=cvp, **more))
    players.until_step(step_id)
    return players, module


def page_of(client, players, side) -> str:
    client.force_login(players.users[side])
    text = html.unescape(client.get(f"/campaigns/{players.campaign_id}/").content.decode())
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", text))


def lost(players) -> dict:
    return ScenarioResult.objects.filter(campaign_id=players.campaign_id).last().data["cvp_lost"]


def supply_value(players, path, value, by="american"):
    other = "german" if by == "american" else "american"
    proposal = supplements.propose_supplement(
        campaign_id=players.campaign_id, user=players.users[by], path=path, form={"value": value}
    )
    supplements.accept_supplement(
        campaign_id=players.campaign_id, user=players.users[other], ref=proposal.ref
    )


# --------------------------------------------------------------------------- Left: 3.5


def test_3_5_the_american_reads_that_only_the_german_acts_there(users, modules, fixed_dice, client):
    """3.5: "The German player now secretly makes three Reinforcement drs": the German
    acts alone at 3.5.  The American trying a Row dr reads that only the German acts
    there (never "German acts first", as if his turn came after), nothing is rolled;
    his page does not tell him the Rows are "One roll for your side"."""
    players, _ = apd(users, "3.4")
    supply_german(players)
    players.until_step("3.5")
    before = Roll.objects.filter(campaign_id=players.campaign_id).count()
    with pytest.raises(ActionRefused) as refused:
        roll(players, "american", "german_reinforcement_row_a", item="Row A")
    assert str(refused.value) == (
        "Only German acts at 3.5 German Reinforcements: there is nothing for you to do here."
    )
    assert Roll.objects.filter(campaign_id=players.campaign_id).count() == before
    page = page_of(client, players, "american")
    assert "One roll for your side" not in page
    assert "German's roll" in page
    assert "One roll for your side" in page_of(client, players, "german")


# --------------------------------------------------------------------------- Left: 2.5 / A7.7


def test_2_5_a7_7_the_encircled_units_1tc_is_taken_at_its_encircled_morale(
    users, modules, fixed_dice
):
    """2.5: "Each Encircled unit must take a 1TC"; the Encircled markers are removed only
    "then", so each unit takes it while Encircled, and A7.7 gives every non-berserk,
    non-heroic Personnel unit so marked a Morale one lower.  A 4-6-7 (Morale 7) rolling
    DR 6: 6 +1 (1TC) = 7 would pass at Morale 7; Encircled it is taken at 6 and fails.  A
    Hero (heroic: A7.7 exempts him) rolling DR 8 +1 against his Morale 9 passes."""
    players, _ = apd(users, "2.5")
    squad = add(players, "american", "4-6-7", "squad", "encircled")
    hero = add(players, "american", "1-4-9 hero", "hero", "encircled")
    fixed_dice.extend([[3, 3], [4, 4]])
    r = roll(players, "american", "encirclement_1tc", squad)
    assert {"label": "Encircled: Morale one lower (A7.7)", "value": 1, "how": "auto"} in r.drms
    assert r.result.startswith("Failed"), (r.drms, r.final, r.result)
    r = roll(players, "american", "encirclement_1tc", hero)
    assert all("A7.7" not in d["label"] for d in r.drms), r.drms
    assert r.result.startswith("Passed"), (r.drms, r.final, r.result)


# --------------------------------------------------------------------------- Left: 2.5 CVP


def test_2_note_2_5_a_unit_the_1tc_eliminates_counts_its_cvp_and_the_pp_follow(
    users, modules, fixed_dice
):
    """2 Note: "CVP are recorded normally throughout this phase"; 2.5: "Failing the 1TC
    results in the unit's immediate Elimination"; 2.92: the American's Purchase Points
    add "the total of his CVP suffered in the CG thus far".  The squad the 1TC eliminates
    is a loss the app holds: once the players have supplied a squad's CVP (A26.2, not in
    the seed), its CVP join the American's CVP lost (41 → 43) and 2.92 gives 35 PP, not
    33; before they are supplied the log says they are not counted."""
    players, module = apd(users, "2.5")
    assert "cvp_per_kind.squad" in [m.supply for m in module.missing]
    first = add(players, "american", "4-6-7", "squad", "encircled")
    second = add(players, "american", "4-6-7", "squad", "encircled")
    fixed_dice.extend([[6, 6], [6, 6]])
    roll(players, "american", "encirclement_1tc", first)
    assert lost(players)["american"] == 41
    line = Event.objects.filter(campaign_id=players.campaign_id, kind="roll").last()
    assert "CVP are not counted" in line.text and "2 Note" in line.text
    supply_value(players, "cvp_per_kind.squad", "2")
    roll(players, "american", "encirclement_1tc", second)
    assert lost(players)["american"] == 43
    players.until_step("3.4")
    assert points(players, "american") == 35


# --------------------------------------------------------------------------- CG VC, 2.9-2.92


def test_cg_vc_150_vp_wins_the_cg_at_the_mornings_end(users, modules):
    """CG VC: "Provided the Germans have not amassed ≥ 105 CVP, the Americans win if
    their VP total is ≥ 150 at any CG-Scenario end": 150 VP at the Morning's end, 104
    CVP lost: once the Clean-Up reaches the step that reads the result (2 Note: its
    losses count first), the CG ends and the American wins; nothing more is asked."""
    players, _ = apd(users, "2.8", vp=150, cvp=104)
    done(players, "american")
    done(players, "german")
    c = Campaign.objects.get(pk=players.campaign_id)
    assert c.ended_at is not None
    assert "American wins the CG (CG VC)" in c.outcome
    with pytest.raises(ActionRefused, match="The campaign has ended"):
        done(players, "american")


def test_cg_vc_105_cvp_amassed_denies_the_150_vp_win(users, modules):
    """CG VC "Provided the Germans have not amassed ≥ 105 CVP": 150 VP with 105 CVP lost
    by the American: the CG goes on (the Clean-Up follows)."""
    players, _ = apd(users, "3.1", vp=150, cvp=105)
    c = Campaign.objects.get(pk=players.campaign_id)
    assert c.ended_at is None
    texts = Event.objects.filter(campaign_id=players.campaign_id).values_list("text", flat=True)
    assert any("American can no longer win the CG" in t for t in texts)


def test_2_9_the_german_wins_below_55_and_moves_first(users, modules, client):
    """2.9: "If the VP total is ≥ the required CG scenario total ... the American is the
    winner ...; otherwise the German wins. The winning side moves first in the following
    scenario."  54 VP of 55: the German won and moves first."""
    players, _ = apd(users, "3.1", vp=54)
    page = page_of(client, players, "american")
    assert "German won the December 6 Morning scenario: German moves first" in page


@pytest.mark.parametrize(("vp", "cvp", "pp"), [(55, 10, 10), (100, 10, 0), (54, 0, 1)])
def test_2_91_2_92_differential_zero_negative_pp_ignored(users, modules, vp, cvp, pp):
    """2.91: "This can result in a positive or negative number, or 0"; 2.92: "Negative
    Purchase Points are ignored."  55 VP: differential 0, PP = CVP 10; 100 VP and 10
    CVP: -45 + 10 = -35, ignored: 0 PP; 54 VP, no CVP: 1 PP."""
    players, _ = apd(users, "3.4", vp=vp, cvp=cvp)
    assert points(players, "american") == pp


def test_2_9_and_or_the_cgv_building_requirement_wins_the_scenario_below_55(users, modules, client):
    """2.9: "If the VP total is ≥ the required CG scenario total and/or the American
    achieved the scenario-specific CGV Building VC requirements then the American is the
    winner": 30 VP of 55 but the CGV Building requirement met: the American won."""
    players, _ = apd(users, "3.1", vp=30, cgv_scenario_american=True)
    page = page_of(client, players, "german")
    assert "American won the December 6 Morning scenario: American moves first" in page


@pytest.mark.parametrize(("cvp", "ends"), [(0, True), (105, False)])
def test_cg_vc_all_cgv_buildings_win_the_cg_unless_105_cvp(users, modules, cvp, ends):
    """CG VC: "... the Americans win if their VP total is ≥ 150 ... and/or if they
    control all existing CGV Buildings", "Provided the Germans have not amassed ≥ 105
    CVP": 20 VP, all CGV Buildings held: the CG ends, American win; with 105 CVP lost, it
    goes on."""
    players, _ = apd(users, "2.8", vp=20, cvp=cvp, cgv_buildings_american=True)
    done(players, "american")
    done(players, "german")
    c = Campaign.objects.get(pk=players.campaign_id)
    assert (c.ended_at is not None) is ends
    if ends:
        assert "American wins the CG" in c.outcome and "CGV Buildings" in c.outcome


# --------------------------------------------------------------------------- 1.2, 2.1-2.5


def test_1_2_american_first_the_germans_done_waits_at_each_clean_up_step(users, modules):
    """1.2: "Both players (if applicable), American first, complete each step before
    moving on to the next step": at 2.2 the German's Done is refused until the
    American's, in words naming the American."""
    players, _ = apd(users, "2.2")
    with pytest.raises(ActionRefused, match=r"Not your turn: American acts first at 2.2"):
        done(players, "german")
    done(players, "american")
    done(players, "german")
    assert players.step.id == "2.3"


def test_2_1_all_prisoners_are_removed_and_captured_weapons_stay(users, modules):
    """2.1: "All Prisoners are then removed from play": an American squad and leader
    marked Captured (the German's Prisoners) leave the American forces when 2.1 is done;
    a captured German MMG held by the American (a weapon, not a Prisoner) stays."""
    players, _ = apd(users, "2.1")
    add(players, "american", "6-6-6", "squad", "captured")
    add(players, "american", "8-0 leader", "leader", "captured")
    add(players, "american", "MMG", "sw", "captured")
    add(players, "american", "6-6-6", "squad")
    done(players, "american")
    done(players, "german")
    assert unit_names(players, "american") == [
        ("6-6-6", "squad", "ok", 1),
        ("MMG", "sw", "captured", 1),
    ]


def test_2_5_encircled_markers_go_after_the_1tc_other_markers_stay(users, modules, fixed_dice):
    """2.5: "All Encircled markers are then removed": the German 4-6-7 that passed its
    1TC (DR 2) loses its Encircled marker when 2.5 is done but keeps Elite; the 1TC is
    owed by the German too (his Done waits for it)."""
    players, _ = apd(users, "2.5")
    squad = add(players, "german", "4-6-7", "squad", "encircled", markers=["elite"])
    done(players, "american")
    with pytest.raises(ActionRefused, match=r"Roll first"):
        done(players, "german")
    fixed_dice.append([1, 1])
    assert roll(players, "german", "encirclement_1tc", squad).result.startswith("Passed")
    done(players, "german")
    assert unit_names(players, "german") == [("4-6-7", "squad", "elite", 1)]


# --------------------------------------------------------------------------- 3.1-3.3


def test_3_1_each_wounded_leader_rolls_done_waits_and_1_3_4_6_split_at_3(
    users, modules, fixed_dice
):
    """3.1: "The owning player rolls on the following Recovery Table to determine each
    wounded leader's fate": Done without the roll is refused; dr 3 is "Retain
    Unwounded" (1-3), dr 4 "Evacuated" (4-6): the leader goes and a 7-0 joins; a
    leader marked Captured as well (a Prisoner) makes no roll."""
    players, _ = apd(users, "3.1")
    nine = add(players, "american", "9-1 leader", "leader", "wounded")
    eight = add(players, "american", "8-1 leader", "leader", "wounded")
    add(players, "american", "6-6-6", "squad")
    held = add(players, "american", "7-0 leader", "leader", "wounded", markers=["captured"])
    with pytest.raises(ActionRefused, match=r"Roll first: .*Recovery"):
        done(players, "american")
    with pytest.raises(ActionRefused):
        roll(players, "american", "recovery", held)
    fixed_dice.extend([[3], [4]])
    assert roll(players, "american", "recovery", nine).result == "Retain Unwounded"
    assert roll(players, "american", "recovery", eight).result == "Evacuated*"
    done(players, "american")
    names = unit_names(players, "american", kind="leader")
    assert ("9-1 leader", "leader", "ok", 1) in names
    assert not any(n[0] == "8-1 leader" for n in names)
    assert any(n[0].startswith("7-0 leader") and n[2] == "ok" for n in names), names


def test_3_1_footnote_a_7_0_with_no_friendly_mmc(users, modules, fixed_dice):
    """3.1 footnote "*": the Evacuated leader "is immediately replaced with a 7-0 leader
    in the same location as the friendly MMC nearest": with no MMC held the 7-0 still
    joins (the rules say nothing more); the public log line names no count of MMC."""
    players, _ = apd(users, "3.1")
    eight = add(players, "american", "8-1 leader", "leader", "wounded")
    fixed_dice.append([6])
    roll(players, "american", "recovery", eight)
    assert [n[0] for n in unit_names(players, "american")] == ["7-0 leader"]
    line = Event.objects.filter(campaign_id=players.campaign_id, kind="roll").last()
    assert line.secret_side == ""
    assert "7-0" in line.text and "no MMC" not in line.text


def test_3_2_a_wounded_hero_is_eliminated_too_and_with_no_mmc_stays_unwounded(users, modules):
    """3.2: "Heroes (whether wounded or unwounded) are eliminated ... [EXC: If unable to
    Battle Harden any MMC, the Hero remains onboard unwounded instead]": the American's
    wounded Hero, beside a squad, leaves at Done; the German's wounded Hero, with no MMC,
    stays and is no longer wounded."""
    players, _ = apd(users, "3.2")
    add(players, "american", "1-4-9 hero", "hero", "wounded")
    add(players, "american", "6-6-6", "squad")
    add(players, "german", "1-4-9 hero", "hero", "wounded")
    done(players, "american")
    done(players, "german")
    assert unit_names(players, "american") == [("6-6-6", "squad", "ok", 1)]
    assert unit_names(players, "german") == [("1-4-9 hero", "hero", "ok", 1)]


@pytest.mark.parametrize(
    ("table", "kind", "weapon", "dr", "result"),
    [
        ("repair_sw", "sw", None, 3, "Repaired"),
        ("repair_sw", "sw", None, 4, "NE"),
        ("repair_ma_gun", "vehicle", "ma", 4, "Repaired"),
        ("repair_ma_gun", "vehicle", "ma", 5, "NE"),
        ("repair_vehicular_mg", "vehicle", "mg", 2, "Repaired"),
        ("repair_vehicular_mg", "vehicle", "mg", 3, "NE"),
    ],
)
def test_3_3_repair_table_rows_split_where_printed(
    users, modules, fixed_dice, table, kind, weapon, dr, result
):
    """3.3 Repair Table: "Repair MA/Gun 1-4 | 5 | 6", "Repair SW 1-3 | 4-5 | 6", "Repair
    vehicular MG 1-2 | 3-5 | 6": each row's edges, rolled by the German after the
    American's Done (1.2)."""
    players, _ = apd(users, "3.3")
    done(players, "american")
    if weapon:
        unit, (ref,) = add_vehicle(players, "german", "PzIVH", (weapon, ["malfunctioned"]))
    else:
        unit, ref = add(players, "german", "MMG", "sw", "malfunctioned"), ""
    fixed_dice.append([dr])
    assert roll(players, "german", table, unit, weapon=ref).result == result


def test_3_note_a_sw_the_repair_dr_eliminates_counts_no_cvp(users, modules, fixed_dice):
    """3 Note: "CVP are NA for units/weapons eliminated in this phase": the American's
    BAZ eliminated by a repair dr 6 leaves, and the CVP lost stay 41; the German's
    repair before the American's Done is refused (1.2, American first)."""
    players, _ = apd(users, "3.3")
    baz = add(players, "american", "BAZ 44", "sw", "malfunctioned")
    mmg = add(players, "german", "MMG", "sw", "malfunctioned")
    with pytest.raises(ActionRefused, match=r"Not your turn: American acts first at 3.3"):
        roll(players, "german", "repair_sw", mmg)
    fixed_dice.append([6])
    assert roll(players, "american", "repair_sw", baz).result == "Eliminated"
    assert unit_names(players, "american") == []
    assert lost(players)["american"] == 41


# ----------------------------------------------------------------- 3.4, 2.91, CG dates, 4.0


def test_3_4_unused_pp_are_retained_2_91_totals_every_scenario_and_the_cg_ends_after_the_afternoon(
    users, modules, client, fixed_dice
):
    """3.4: "Unused Purchase Points may be retained for future use"; 2.91: "The amount of
    VP which the American has scored for each scenario played is totaled to compute his
    current CG VP total. This number is subtracted from the VP required to win the
    previous scenario"; 2.92: "the total of his CVP suffered in the CG thus far"; 4.0:
    "Once invoked, No Quarter will remain in effect for the duration of the CG"; CG
    DATES: "(3 CG dates)".  Morning 63 VP / 41 CVP, nothing bought: 33 PP kept.  Midday
    (required 120, supplied) 40 VP / 10 CVP: 120 - 103 = 17; 17 + 51 = 68; 33 + 68 =
    101 PP at the Midday's 3.4.  3.31 "Each weapon/Vehicle may make only one Repair
    attempt": the BAZ that rolled NE at the Morning's 3.3 is refused a second dr there,
    and makes its one attempt again at the Midday's 3.3.  No Quarter invoked at the
    Morning stays invoked at the Midday.  After the Afternoon's result the CG ends (no
    fourth date)."""
    players, module = apd(users, "3.3", no_quarter_american=True)
    baz = add(players, "american", "BAZ 44", "sw", "malfunctioned")
    fixed_dice.append([4])
    assert roll(players, "american", "repair_sw", baz).result == "NE"
    with pytest.raises(ActionRefused, match=r"one Repair Table: Repair SW roll in this pass"):
        roll(players, "american", "repair_sw", baz)
    players.until_step("3.4")
    assert points(players, "american") == 33
    supply_value(players, "dates.dec6midday.vp_required", "120")
    players.until("results")
    assert players.step.id == "1.2"
    values = result_values(module, vp_american=40, cvp_lost_american=10)
    players.results(**values)
    lasting = (
        "No Quarter invoked (4.0): since the December 6 Morning scenario, for the rest of the CG."
    )
    client.force_login(players.users["german"])
    sheet = html.unescape(
        client.get(f"/campaigns/{players.campaign_id}/sheet.txt").content.decode()
    )
    assert lasting in re.sub(r"\s+", " ", sheet), sheet
    players.until_step("3.3")
    fixed_dice.append([1])  # 3.31's one attempt is per Setup Phase: the Midday's own
    assert roll(players, "american", "repair_sw", baz).result == "Repaired"
    players.until_step("3.4")
    assert points(players, "american") == 101
    players.until("results")
    players.results(**result_values(module, vp_american=10, cvp_lost_american=5))
    for _ in range(20):
        if Campaign.objects.get(pk=players.campaign_id).ended_at is not None:
            break
        players.finish()
    c = Campaign.objects.get(pk=players.campaign_id)
    assert c.ended_at is not None
    assert "German wins" in c.outcome


# --------------------------------------------------------------------------- 3.6, 3.7, 3.8


def _german_groups(players, fixed_dice):
    """The German's Rows A-C supplied and rolled (3.5): RA1 (PzGr Platoon I) and RB1
    (PzIV Section); the campaign at 3.6."""
    supply_german(players)
    players.until_step("3.5")
    fixed_dice.extend([[2], [5], [1]])
    for row in "abc":
        roll(players, "german", f"german_reinforcement_row_{row}", item=f"Row {row.upper()}")
    players.finish()
    players.until_step("3.6")
    return Purchase.objects.filter(side="german").order_by("id")


@pytest.mark.parametrize(
    ("infantry_dice", "infantry", "armor_dice", "armor"),
    [
        ([2, 2], "9-1", [1, 2], "9-1"),
        ([3, 3], "8-1", [2, 3], "8-1"),
        ([4, 5], "8-0", [4, 4], "No leader"),
        ([5, 6], "7-0", [5, 5], "No leader"),
    ],
)
def test_3_6_german_columns_rows_3_to_10_with_note_a(
    users, modules, fixed_dice, infantry_dice, infantry, armor_dice, armor
):
    """3.6 Leader Table, German Infantry "3 9-1", "4-5 8-1", "6-8 8-0", "9-10 7-0" and
    German Armor "3 9-1", "4-5 8-1", "6-8 -", "9-10 -"; note a "-1 DRM for PzGr Platoon
    I" applies by itself to RA1 (DR 4 - 1 = 3 ...), never to the PzIV Section."""
    players, _ = apd(users, "3.4")
    ra1, rb1 = _german_groups(players, fixed_dice)
    fixed_dice.extend([infantry_dice, armor_dice])
    rg_roll(players, "german", ra1)
    rg_roll(players, "german", rb1)
    inf, arm = Roll.objects.filter(table_id="leader").order_by("seq")
    assert inf.final == sum(infantry_dice) - 1 and inf.result == f"German Infantry: {infantry}"
    assert arm.final == sum(armor_dice) and arm.result == f"German Armor: {armor}"
    assert arm.drms == []


def test_3_6_only_row_a_and_b_groups_roll_a_leader_row_c_none(users, modules, fixed_dice):
    """3.6: "for each German infantry (Row A) and armor (Row B) Reinforcement Group, make
    one secret DR": a group Row C gives (here the players' Row C names RC1, a PzGr
    Platoon) owes no Leader DR: the German's Done after RA1's and RB1's passes."""
    players, _ = apd(users, "3.4")
    chart = dict(GERMAN_CHART)
    chart.update(
        {
            "row-2-id": "RC1",
            "row-2-type": "PzGr Platoon II",
            "row-2-units": "4-6-7",
            "row-2-full": "2",
            "row-2-cost": "0",
            "row-2-unit_kind": "squad",
        }
    )
    supply_german(players, chart)
    supply(
        players,
        "tables.german_reinforcement_row_c",
        row_table([("1-6", "PzGr Platoon II", "group: RC1")]),
    )
    players.until_step("3.5")
    fixed_dice.extend([[2], [5], [1]])
    for row in "abc":
        roll(players, "german", f"german_reinforcement_row_{row}", item=f"Row {row.upper()}")
    players.finish()
    players.until_step("3.6")
    ra1, rb1, rc1 = Purchase.objects.filter(side="german").order_by("id")
    assert rc1.group_id == "RC1"
    rg_roll(players, "german", rc1)  # nothing owed: no roll
    assert not Roll.objects.filter(table_id="leader").exists()
    fixed_dice.extend([[3, 3], [3, 3]])
    rg_roll(players, "german", ra1)
    rg_roll(players, "german", rb1)
    done(players, "german")
    assert players.step.id != "3.6"
    assert Roll.objects.filter(table_id="leader").count() == 2


@pytest.mark.parametrize(
    ("dice", "tanks"),
    [
        ([2, 2], [("M4A3(75)W (A1)", 1), ("M4A3(76)W (A1)", 2)]),
        ([3, 4], [("M4A1(76) (A1)", 2), ("M4A3(75)W (A1)", 1)]),
    ],
)
def test_3_7_m4_model_rows_4_5_and_6_8(users, modules, fixed_dice, dice, tanks):
    """3.7 M4 Model Table: "4-5 2 x M4A3(76)W; M4A3(75)W", "6-8 2 x M4A1(76);
    M4A3(75)W": the group receives those three tanks."""
    players, _ = apd(users, "3.4")
    _armor_group(players, [{"range": "1-6", "result": "M4", "effect": _M4_ARMOR_TYPE}])
    a1 = buy(players, "american", "A1")
    fixed_dice.append([1])
    rg_roll(players, "american", a1)
    players.until_step("3.6")
    fixed_dice.append([2, 2])
    rg_roll(players, "american", a1)
    players.until_step("3.7")
    fixed_dice.extend([dice, [1, 1], [1, 1], [1, 1]])
    rg_roll(players, "american", a1)
    mine = Unit.objects.filter(campaign_id=players.campaign_id, purchase_id=a1.pk)
    assert sorted((u.name, u.count) for u in mine.filter(kind="vehicle")) == tanks


def test_3_8_reinforcements_enter_along_the_friendly_board_edge_on_or_after_turn_1(
    users, modules, fixed_dice, client
):
    """3.8: "All reinforcements enter on/after Turn 1 along the owning side's Friendly
    Board Edge": the German's RA1 and RB1 (from Rows A and B, not bought) carry that
    entry on their RG Purchase Record lines, as a bought RG does; the 3.8 page says it."""
    players, _ = apd(users, "3.4")
    ra1, rb1 = _german_groups(players, fixed_dice)
    entry = "along the German Friendly Board Edge, on/after Turn 1 (3.8)"
    assert [p.entry_area for p in (ra1, rb1)] == [entry, entry]
    fixed_dice.extend([[3, 3], [3, 3]])
    rg_roll(players, "german", ra1)
    rg_roll(players, "german", rb1)
    players.until_step("3.8")
    done(players, "american")
    page = page_of(client, players, "german")
    assert "on/after Turn 1 along the owning side's Friendly Board Edge" in page


def test_2_note_the_amendment_says_the_1tcs_counted_cvp_are_already_in_the_figures(
    users, modules, fixed_dice, client
):
    """2 Note: "CVP are recorded normally throughout this phase": the CVP of a unit the
    2.5 1TC eliminated are counted by the app (above); the amendment's help, which
    invites "the CVP lost in melee or encirclement", says the figures already hold those
    a roll counted, so they are not added twice."""
    players, _ = apd(users, "2.5")
    supply_value(players, "cvp_per_kind.squad", "2")
    squad = add(players, "american", "4-6-7", "squad", "encircled")
    fixed_dice.append([6, 6])
    roll(players, "american", "encirclement_1tc", squad)
    page = page_of(client, players, "american")
    assert "the figures already hold the CVP of a unit a roll here eliminated" in page


def test_2_9_to_2_92_the_american_computes_without_a_click_of_either(users, modules):
    """2.9: "The American player totals his amassed VP"; 2.91, 2.92: "The American
    player adds the total of his CVP ...": quantities the app holds, so nobody is asked
    to act there: once 2.8 is done by both, 2.9-2.92 pass by themselves (the winner and
    the PP in the log) and the German was never asked for anything."""
    players, _ = apd(users, "2.8")
    done(players, "american")
    done(players, "german")
    assert players.step.id == "3.1"
    kinds = set(
        Event.objects.filter(campaign_id=players.campaign_id).values_list("kind", flat=True)
    )
    assert "replenish" in kinds
    assert points(players, "american") == 33


def test_3_4_as_many_as_pp_allow_within_the_scenario_maximum(users, modules):
    """3.4: "He may purchase as many of each group as he has Purchase Points available,
    but the scenario maximum allowed for each group may not be exceeded": A1 (10 PP, at
    most 2 a scenario), 33 PP: two bought, a third refused by the maximum (in words,
    citing 3.4; nothing spent); the maximum counts per scenario."""
    players, _ = apd(users, "3.4")
    _armor_group(players, [{"range": "1-6", "result": "M4", "effect": _M4_ARMOR_TYPE}], date_max=2)
    Seat.objects.filter(campaign_id=players.campaign_id, side="american").update(points=33)
    buy(players, "american", "A1")
    buy(players, "american", "A1")
    with pytest.raises(ActionRefused) as refused:
        buy(players, "american", "A1")
    assert "3.4" in str(refused.value)
    assert points(players, "american") == 13


def test_3_2_two_heroes_one_mmc_the_second_hero_stays_unwounded(users, modules):
    """3.2: "for each such eliminated Hero the owning player may Battle Harden any one
    MMC. [EXC: If unable to Battle Harden any MMC, the Hero remains onboard unwounded
    instead]": two Heroes, one squad.  The first Hero hardens the squad; the second,
    with no MMC left able to harden (a second hardening would be Fanatic, NA), stays at
    Done, unwounded, and is not eliminated."""
    from tests.test_rule_mechanisms import exchange

    players, _ = apd(users, "3.2")
    first = add(players, "american", "1-4-9 Hero", "hero")
    add(players, "american", "2-4-9 Hero", "hero", "wounded")
    squad = add(players, "american", "6-6-6", "squad")
    exchange(players, "american", first, squad)
    done(players, "american")
    assert unit_names(players, "american") == [
        ("2-4-9 Hero", "hero", "ok", 1),
        ("6-6-6", "squad", "battle_hardened", 1),
    ]


def test_4_0_play_commences_with_the_rph_of_the_previous_scenarios_winner(users, modules, client):
    """4.0: "Play then commences with the RPh of the player who won the previous
    scenario": the German won the Morning (54 VP of 55); at 3.9, the last step before
    4.0 puts the Midday in play (4.0 asks nothing of the players), both pages name the
    German's RPh."""
    players, _ = apd(users, "3.9", vp=54)
    for side in ("american", "german"):
        assert "play begins with German's RPh (2.9; 4.0)" in page_of(client, players, side)


@pytest.mark.parametrize(("cvp_morning", "cvp_midday", "ends"), [(0, 0, True), (60, 45, False)])
def test_cg_vc_the_vp_and_cvp_totals_run_over_the_cg(users, modules, cvp_morning, cvp_midday, ends):
    """CG VC: "Provided the Germans have not amassed ≥ 105 CVP, the Americans win if
    their VP total is ≥ 150 at any CG-Scenario end": both are CG totals.  100 VP at the
    Morning, 50 at the Midday: 150 in all, and the CG ends at the Midday's Clean-Up;
    with 60 + 45 = 105 CVP lost over the two, it goes on."""
    players, module = apd(users, "3.4", vp=100, cvp=cvp_morning)
    supply_value(players, "dates.dec6midday.vp_required", "120")
    players.until("results")
    players.results(**result_values(module, vp_american=50, cvp_lost_american=cvp_midday))
    for _ in range(12):
        if Campaign.objects.get(pk=players.campaign_id).ended_at is not None:
            break
        players.finish()
    c = Campaign.objects.get(pk=players.campaign_id)
    assert (c.ended_at is not None) is ends
    if ends:
        assert "American wins the CG (CG VC)" in c.outcome


def test_2_note_a_german_unit_the_1tc_eliminates_counts_for_the_german(users, modules, fixed_dice):
    """2 Note, 2.5: the CVP of a German leader the 1TC eliminates join the German's CVP
    lost (not the American's), once a leader's CVP are supplied; a non-Encircled German
    squad is offered no 1TC."""
    players, _ = apd(users, "2.5")
    supply_value(players, "cvp_per_kind.leader", "1", by="german")
    leader = add(players, "german", "8-1 leader", "leader", "encircled")
    calm = add(players, "german", "4-6-7", "squad")
    done(players, "american")
    with pytest.raises(ActionRefused):
        roll(players, "german", "encirclement_1tc", calm)
    fixed_dice.append([6, 6])
    assert roll(players, "german", "encirclement_1tc", leader).result.startswith("Failed")
    assert lost(players) == {"american": 41, "german": 1}


def test_3_3_a_weapon_not_malfunctioned_makes_no_repair_attempt(users, modules):
    """3.3: "making a dr per repair attempt for malfunctioned, non-captured weapons": a
    BAZ in order is refused a Repair dr, in words, nothing rolled."""
    players, _ = apd(users, "3.3")
    baz = add(players, "american", "BAZ 44", "sw")
    with pytest.raises(ActionRefused) as refused:
        roll(players, "american", "repair_sw", baz)
    assert "malfunctioned" in str(refused.value)
    assert not Roll.objects.filter(campaign_id=players.campaign_id).exists()


def test_3_2_the_owning_player_hardens_his_own_mmc_not_the_opponents(users, modules):
    """3.2: "for each such eliminated Hero the owning player may Battle Harden ... any
    one MMC": the American giving up his Hero for the German's squad is refused, nothing
    changes; for his own squad it is done."""
    from tests.test_rule_mechanisms import exchange

    players, _ = apd(users, "3.2")
    hero = add(players, "american", "1-4-9 Hero", "hero")
    theirs = add(players, "german", "4-6-7", "squad")
    mine = add(players, "american", "6-6-6", "squad")
    with pytest.raises(ActionRefused):
        exchange(players, "american", hero, theirs)
    assert unit_names(players, "german") == [("4-6-7", "squad", "ok", 1)]
    exchange(players, "american", hero, mine)
    assert unit_names(players, "american") == [("6-6-6", "squad", "battle_hardened", 1)]
