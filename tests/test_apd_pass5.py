"""Issue 44, pass 5, A Pleasant Diversion (seed 002): the ledger's enforced, offered and
computed claims tried as a player would meet them — the wrong side, the wrong step,
past a cap, twice, skipped, another kind of unit.  Each test cites the sentence it
tries (rules/ledger/sentences/pleasant-diversion.yaml); docs/rules-audit/pass-5-apd.md
lists what was found."""

from __future__ import annotations

import pytest

from campaign.models import Purchase, Roll, Seat
from campaign.services import steps
from campaign.services.errors import ActionRefused
from tests import test_rule_mechanisms
from tests.purchase_helpers import add_vehicle
from tests.test_rule_mechanisms import (
    _M4_ARMOR_TYPE,
    _armor_group,
    add,
    apd_at,
    buy,
    exchange,
    result_values,
    rg_roll,
    roll,
    start,
    supply_german,
    unit_names,
)

pytestmark = [pytest.mark.django_db, pytest.mark.rules]

users = test_rule_mechanisms.users
fixed_dice = test_rule_mechanisms.fixed_dice


def done(players, side, **kw):
    steps.finish_step(campaign_id=players.campaign_id, user=players.users[side], **kw)


def points(players, side) -> int:
    return Seat.objects.get(campaign_id=players.campaign_id, side=side).points


# --------------------------------------------------------------------------- 1.2


def test_1_2_american_first_the_german_waits_for_the_americans_done(users, modules, fixed_dice):
    """1.2: "Both players (if applicable), American first, complete each step before
    moving on to the next step": at 3.1 the German's Recovery dr waits for the
    American's Done."""
    players, _ = apd_at(users, "3.1")
    leader = add(players, "german", "8-1 leader", "leader", "wounded")
    with pytest.raises(ActionRefused):
        roll(players, "german", "recovery", leader)
    assert not Roll.objects.filter(campaign_id=players.campaign_id).exists()
    done(players, "american")
    fixed_dice.append([2])
    assert roll(players, "german", "recovery", leader).result == "Retain Unwounded"


# --------------------------------------------------------------------------- 2.9 - 2.92


def test_2_9_the_scenario_cgv_building_requirement_wins_below_the_vp(users, modules):
    """2.9: "If the VP total is ≥ the required CG scenario total and/or the American
    achieved the scenario-specific CGV Building VC requirements then the American is the
    winner": 40 VP of 55, but the CGV Building requirement met."""
    players, module = start("pleasant-diversion", "cg", users, "american")
    players.results(
        **result_values(module, vp_american=40, cvp_lost_american=10, cgv_scenario_american=True)
    )
    players.until("purchase")
    assert players.campaign.results.get().winner == "american"


def test_2_92_only_the_american_receives_purchase_points(users, modules):
    """2.92: "The American player adds ... to determine how many Purchase Points he
    receives"; 3.5: the German rolls, he buys nothing: after 2.92 the German holds no
    points, the American the 2.92 EX's 33."""
    players, _ = apd_at(users, "3.4")
    assert points(players, "american") == 33
    assert points(players, "german") == 0


# --------------------------------------------------------------------------- 3.1


def test_3_1_the_recovery_dr_is_for_a_wounded_leader_only(users, modules):
    """3.1: "rolls on the following Recovery Table to determine each wounded leader's
    fate": an unwounded leader, a wounded Hero, a squad, and a leader named by hand (no
    unit of the retained forces) are refused the dr."""
    players, _ = apd_at(users, "3.1")
    for name, kind, status in (
        ("8-1 leader", "leader", "ok"),
        ("1-4-9 Hero", "hero", "wounded"),
        ("7-4-7", "squad", "ok"),
    ):
        unit = add(players, "american", name, kind, status)
        with pytest.raises(ActionRefused):
            roll(players, "american", "recovery", unit)
    with pytest.raises(ActionRefused):
        roll(players, "american", "recovery", item="9-1 leader")
    assert not Roll.objects.filter(campaign_id=players.campaign_id).exists()


def test_3_1_the_owning_player_rolls_never_the_opponent(users, modules):
    """3.1: "The owning player rolls ... each wounded leader's fate": the German cannot
    roll for an American leader (his turn comes after the American's, 1.2)."""
    players, _ = apd_at(users, "3.1")
    leader = add(players, "american", "8-1 leader", "leader", "wounded")
    with pytest.raises(ActionRefused):
        roll(players, "german", "recovery", leader)


# --------------------------------------------------------------------------- 3.2


def test_3_2_exchange_only_at_3_2_and_never_for_a_captured_mmc(users, modules):
    """3.2: "for each such eliminated Hero the owning player may Battle Harden ... any
    one MMC": at 3.1 the exchange is not offered; a Captured squad (a Prisoner, 2.1) is
    no MMC of his to harden."""
    players, _ = apd_at(users, "3.1")
    hero = add(players, "american", "1-4-9 Hero", "hero")
    squad = add(players, "american", "7-4-7", "squad")
    with pytest.raises(ActionRefused):
        exchange(players, "american", hero, squad)
    players.until_step("3.2")
    prisoner = add(players, "american", "7-4-7", "squad", "captured")
    with pytest.raises(ActionRefused, match=r"is not one of your squads or half-squads"):
        exchange(players, "american", hero, prisoner)
    assert unit_names(players, "american", kind="hero") == [("1-4-9 Hero", "hero", "ok", 1)]


# --------------------------------------------------------------------------- 3.3 / 3.31


def test_3_3_each_repair_row_takes_its_own_kind_of_weapon(users, modules):
    """3.3's three rows: "Repair MA/Gun", "Repair SW", "Repair vehicular MG", each "for
    malfunctioned, non-captured weapons": a SW on the MA/Gun row, a Gun on the SW row,
    a vehicle's MA on the vehicular MG row and a SW in good order are refused."""
    players, _ = apd_at(users, "3.3")
    sw = add(players, "american", "BAZ 44", "sw", "malfunctioned")
    gun = add(players, "american", "57L AT", "gun", "malfunctioned")
    good = add(players, "american", "MMG", "sw", "ok")
    tank, (ma,) = add_vehicle(players, "american", "M4A3(75)W", ("ma", ["malfunctioned"]))
    for table, unit, weapon in (
        ("repair_ma_gun", sw, ""),
        ("repair_sw", gun, ""),
        ("repair_vehicular_mg", tank, ma),
        ("repair_sw", good, ""),
    ):
        with pytest.raises(ActionRefused):
            roll(players, "american", table, unit, weapon=weapon)
    assert not Roll.objects.filter(campaign_id=players.campaign_id).exists()


def test_3_31_a_sw_or_gun_not_possessed_makes_no_repair_attempt(users, modules):
    """3.31: "Guns/SW must be Possessed to attempt Repair": a malfunctioned SW and Gun
    marked not possessed are refused their dr."""
    players, _ = apd_at(users, "3.3")
    sw = add(players, "american", "BAZ 44", "sw", "malfunctioned", markers=["unpossessed"])
    gun = add(players, "american", "57L AT", "gun", "malfunctioned", markers=["unpossessed"])
    for table, unit in (("repair_sw", sw), ("repair_ma_gun", gun)):
        with pytest.raises(ActionRefused):
            roll(players, "american", table, unit)
    assert not Roll.objects.filter(campaign_id=players.campaign_id).exists()


def test_3_3_players_may_roll_a_repair_is_not_compulsory(users, modules):
    """3.3: "Players may now roll on the Repair Table": a malfunctioned SW left unrolled
    does not stop Done (unlike 3.1's wounded leaders)."""
    players, _ = apd_at(users, "3.3")
    add(players, "american", "BAZ 44", "sw", "malfunctioned")
    done(players, "american")
    assert players.step.id == "3.3"  # the German's turn now (1.2)


# --------------------------------------------------------------------------- 3.4


def test_3_4_only_the_american_buys_within_his_purchase_points(users, modules, fixed_dice):
    """3.4: "The American player secretly spends his Purchase Points ... He may purchase
    as many of each group as he has Purchase Points available": the German buys nothing;
    with 20 PP the American buys two 10-PP groups, a third is refused."""
    players, _ = apd_at(users, "3.4")
    _armor_group(players, [{"range": "1-6", "result": "M4", "effect": _M4_ARMOR_TYPE}], date_max=5)
    with pytest.raises(ActionRefused):
        buy(players, "german", "A1")
    buy(players, "american", "A1")
    buy(players, "american", "A1")
    with pytest.raises(ActionRefused):
        buy(players, "american", "A1")
    assert Purchase.objects.filter(campaign_id=players.campaign_id).count() == 2
    assert points(players, "american") == 0


def test_3_4_purchases_are_made_at_3_4_only(users, modules):
    """3.4 is the American's purchase step: at 3.3 and at 3.5 a purchase is refused."""
    players, _ = apd_at(users, "3.3")
    _armor_group(players, [{"range": "1-6", "result": "M4", "effect": _M4_ARMOR_TYPE}])
    with pytest.raises(ActionRefused):
        buy(players, "american", "A1")
    players.until_step("3.5")
    with pytest.raises(ActionRefused):
        buy(players, "american", "A1")
    assert not Purchase.objects.filter(campaign_id=players.campaign_id).exists()


def test_3_4_the_armor_type_dr_is_once_per_armor_group(users, modules, fixed_dice):
    """3.4: "For each Armor Group purchased, make a dr to determine armor type": one dr
    per group; a second on the same group is refused."""
    players, _ = apd_at(users, "3.4")
    _armor_group(players, [{"range": "1-6", "result": "M4", "effect": _M4_ARMOR_TYPE}])
    a1 = buy(players, "american", "A1")
    fixed_dice.append([3])
    rg_roll(players, "american", a1)
    with pytest.raises(ActionRefused):
        rg_roll(players, "american", a1)
    assert Roll.objects.filter(table_id="american_reinforcement").count() == 1


# --------------------------------------------------------------------------- 3.5 / 3.6


def test_3_5_three_drs_one_each_on_rows_a_c_german_only_and_required(users, modules, fixed_dice):
    """3.5: "The German player now secretly makes three Reinforcement drs (one each on
    Rows A-C)": the American may not roll them; Done waits for all three; a row is rolled
    once."""
    players, _ = apd_at(users, "3.4")
    supply_german(players)
    players.until_step("3.5")
    with pytest.raises(ActionRefused):
        roll(players, "american", "german_reinforcement_row_a", item="Row A")
    with pytest.raises(ActionRefused, match="Roll first"):
        done(players, "german")
    fixed_dice.extend([[5]])
    roll(players, "german", "german_reinforcement_row_a", item="Row A")
    with pytest.raises(ActionRefused):
        roll(players, "german", "german_reinforcement_row_a", item="Row A")
    with pytest.raises(ActionRefused, match="Roll first"):
        done(players, "german")
    fixed_dice.extend([[1], [1]])
    roll(players, "german", "german_reinforcement_row_b", item="Row B")
    roll(players, "german", "german_reinforcement_row_c", item="Row C")
    done(players, "german")
    assert Roll.objects.filter(table_id__startswith="german_reinforcement").count() == 3


def test_3_6_one_leader_dr_per_group_and_only_the_owner_rolls_it(users, modules, fixed_dice):
    """3.6: "make one secret DR ... to determine the type of leader received by that
    Group": a group's Leader DR is made once; the German cannot roll for the American's
    group."""
    players, _ = apd_at(users, "3.4")
    _armor_group(players, [{"range": "1-6", "result": "M5A1", "effect": {"do": "none"}}])
    a1 = buy(players, "american", "A1")
    fixed_dice.append([4])
    rg_roll(players, "american", a1)
    players.until_step("3.6")
    with pytest.raises(ActionRefused):
        rg_roll(players, "german", a1)
    fixed_dice.append([3, 3])
    rg_roll(players, "american", a1)
    with pytest.raises(ActionRefused):
        rg_roll(players, "american", a1)
    assert Roll.objects.filter(table_id="leader").count() == 1
    assert not Roll.objects.filter(table_id="m4_model").exists()  # not an M4 group (3.7)


def test_3_6_the_leader_table_drm_never_reaches_an_american_group(users, modules, fixed_dice):
    """3.6 Leader Table note a: "-1 DRM for PzGr Platoon I/PzV Section", German groups:
    an American Armor Group tagged like a PzV Section by mistake gets no -1."""
    players, _ = apd_at(users, "3.4")
    _armor_group(
        players,
        [{"range": "1-6", "result": "M5A1", "effect": {"do": "none"}}],
        tags=("armor", "pzv_section"),
    )
    a1 = buy(players, "american", "A1")
    fixed_dice.append([4])
    rg_roll(players, "american", a1)
    players.until_step("3.6")
    fixed_dice.append([3, 3])
    rg_roll(players, "american", a1)
    leader = Roll.objects.get(table_id="leader")
    assert leader.final == 6 and leader.result == "American Armor: 8-1"


def test_3_6_done_makes_each_groups_leader_dr_never_skips_it(users, modules, fixed_dice):
    """3.6: "For each American Armored Infantry Platoon and Armor Reinforcement Group ...
    make one secret DR": a group left unrolled at Done gets its rolls then, never none
    (its armor-type dr was made by the Done at 3.4, pass 9: 1.2)."""
    players, _ = apd_at(users, "3.4")
    _armor_group(players, [{"range": "1-6", "result": "M5A1", "effect": {"do": "none"}}])
    a1 = buy(players, "american", "A1")
    fixed_dice.extend([[4]])  # the armor-type dr, at 3.4's Done
    players.until_step("3.6")
    fixed_dice.extend([[3, 3]])
    done(players, "american")
    rolled = list(Roll.objects.order_by("seq").values_list("table_id", "item"))
    assert rolled == [("american_reinforcement", "A1 Armor Group"), ("leader", "A1 Armor Group")]
    assert Purchase.objects.get(pk=a1.pk).rolled_at is not None


def test_3_6_a_row_c_group_rolls_no_leader(users, modules, fixed_dice):
    """3.6: leaders for "each German infantry (Row A) and armor (Row B) Reinforcement
    Group": a group Row C gives rolls none."""
    from tests.test_rule_mechanisms import row_table, supply

    players, _ = apd_at(users, "3.4")
    supply_german(players)
    supply(
        players,
        "tables.german_reinforcement_row_c",
        row_table([("1-6", "PzGr Platoon I", "group: RA1")]),
    )
    players.until_step("3.5")
    fixed_dice.extend([[4], [6], [2]])  # Row A nothing, Row B RB1, Row C RA1
    for row in ("a", "b", "c"):
        roll(players, "german", f"german_reinforcement_row_{row}", item=f"Row {row.upper()}")
    done(players, "german")
    players.until_step("3.6")
    rb1, rc = Purchase.objects.filter(side="german").order_by("id")
    fixed_dice.extend([[3, 3], [3, 3]])
    rg_roll(players, "german", rb1)
    rg_roll(players, "german", rc)
    assert list(Roll.objects.filter(table_id="leader").values_list("item", flat=True)) == [
        "RB1 PzIV Section"
    ]


@pytest.mark.parametrize(("cvp", "ends"), [(30, True), (110, False)], ids=["won", "105cvp"])
def test_cg_vc_all_cgv_buildings_win_the_cg_unless_the_germans_amassed_105_cvp(
    users, modules, cvp, ends
):
    """CG VC: "Provided the Germans have not amassed ≥ 105 CVP, the Americans win ...
    and/or if they control all existing CGV Buildings": all CGV Buildings held with 20
    VP end the CG in the American's favour at 2.9; with 110 CVP lost, they do not."""
    from tests.test_computations import pd_result

    players, _ = start("pleasant-diversion", "cg", users, "american")
    players.results(**pd_result(vp=20, cvp_american=cvp, buildings=True))
    if ends:
        players.until_step("2.9")
        assert "American wins the CG" in players.campaign.outcome
    else:
        players.until("results")  # the Midday scenario is next
        assert players.campaign.ended_at is None and players.campaign.date_index == 1


def test_3_31_while_a_gun_is_removed_and_3_note_adds_no_cvp(users, modules, fixed_dice):
    """3.31: "... while a Gun is removed from the board": a Gun's MA repair dr of 6
    takes it off the retained forces (a 5 leaves it malfunctioned, NE)."""
    players, _ = apd_at(users, "3.3")
    ne = add(players, "american", "57L AT", "gun", "malfunctioned")
    lost = add(players, "american", "76L AT", "gun", "malfunctioned")
    fixed_dice.extend([[5], [6]])
    assert roll(players, "american", "repair_ma_gun", ne).result == "NE"
    assert roll(players, "american", "repair_ma_gun", lost).result == "Eliminated"
    assert unit_names(players, "american") == [("57L AT", "gun", "malfunctioned", 1)]


def test_3_3_the_vehicular_mg_row_repairs_on_1_2_only(users, modules, fixed_dice):
    """3.3 Repair Table, "Repair vehicular MG 1-2 | 3-5 | 6": a 3 leaves the MG
    malfunctioned (NE), where the SW row would repair it; a 2 repairs it."""
    players, _ = apd_at(users, "3.3")
    tank, (mg,) = add_vehicle(players, "american", "M4A3(75)W", ("mg", ["malfunctioned"]))
    fixed_dice.append([3])
    assert roll(players, "american", "repair_vehicular_mg", tank, weapon=mg).result == "NE"
    tank.refresh_from_db()
    assert tank.weapons[0]["markers"] == ["malfunctioned"]


def test_3_4_note_3_an_armor_groups_tanks_roll_their_gyrostabilizer_dr_untagged(
    users, modules, fixed_dice
):
    """3.4 note 3: "Make one DR on the H1.42 Gyrostabilizer Table per AFV": an Armor
    Group's tanks are AFVs, whether or not the players' chart also calls the group
    'afv': the three M4s the M4 Model DR gives roll three Gyrostabilizer DRs (found in
    pass 5: a group tagged only 'armor' rolled none)."""
    players, _ = apd_at(users, "3.4")
    _armor_group(players, [{"range": "1-6", "result": "M4", "effect": _M4_ARMOR_TYPE}], full=1)
    a1 = buy(players, "american", "A1")
    fixed_dice.extend([[1]])
    rg_roll(players, "american", a1)
    players.until_step("3.6")
    fixed_dice.extend([[1, 1]])  # leader (3.6)
    rg_roll(players, "american", a1)
    players.until_step("3.7")
    fixed_dice.extend([[1, 2], [2, 2], [3, 3], [4, 4]])  # M4 (3), 3 gyros (3.7)
    rg_roll(players, "american", a1)
    tables = list(Roll.objects.order_by("seq").values_list("table_id", flat=True))
    assert tables.count("gyrostabilizer") == 3, tables


def test_3_8_each_reinforcement_enters_along_its_friendly_board_edge(users, modules, fixed_dice):
    """3.8: "All reinforcements enter on/after Turn 1 along the owning side's Friendly
    Board Edge": the American's Armor Group bought at 3.4 and the German's groups Rows
    A-B give at 3.5 carry that entry on their Purchase Record lines (each side's own
    edge), and the American's scenario sheet says it; the owner may still correct it."""
    from campaign.models import Purchase
    from campaign.seat_views.sheet import scenario_sheet, sheet_text
    from campaign.services import purchases

    players, _ = apd_at(users, "3.4")
    supply_german(players)
    _armor_group(players, [{"range": "1-6", "result": "M5A1", "effect": {"do": "none"}}])
    a1 = buy(players, "american", "A1")
    players.until_step("3.5")
    fixed_dice.extend([[1], [1], [1]])
    for row in ("a", "b", "c"):
        roll(players, "german", f"german_reinforcement_row_{row}", item=f"Row {row.upper()}")
    entries = dict(Purchase.objects.values_list("group_id", "entry_area"))
    assert entries == {
        "A1": "along the American Friendly Board Edge, on/after Turn 1 (3.8)",
        "RA1": "along the German Friendly Board Edge, on/after Turn 1 (3.8)",
        "RB1": "along the German Friendly Board Edge, on/after Turn 1 (3.8)",
    }
    assert "along the American Friendly Board Edge, on/after Turn 1 (3.8)" in (
        sheet_text(scenario_sheet(players.campaign, "american"))
    )
    purchases.record_entry_area(
        campaign_id=players.campaign_id,
        user=players.users["american"],
        purchase_id=a1.ref,
        entry_area="board 42 south edge",
        notes="",
    )
    assert Purchase.objects.get(pk=a1.pk).entry_area == "board 42 south edge"
