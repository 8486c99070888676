"""Issue 44, pass 11, A Pleasant Diversion (seed 002): sentences of 2.x-4.0 that no
pass doc had quoted or named, tried in play as a player would (wrong side, twice,
skipped, another row, another unit kind).  Each test cites its rule;
docs/rules-audit/pass-11-apd11.md lists what was tried and what held."""

from __future__ import annotations

import html

import pytest

from campaign.models import Campaign, Event, Purchase, Roll, Seat, Unit
from campaign.services.errors import ActionRefused
from tests import test_rule_mechanisms
from tests.test_apd_pass5 import done, points
from tests.test_rule_mechanisms import (
    _M4_ARMOR_TYPE,
    GERMAN_CHART,
    _armor_group,
    add,
    add_vehicle,
    apd_at,
    buy,
    patch_module,
    rg_roll,
    roll,
    supply_german,
    unit_names,
)

pytestmark = [pytest.mark.django_db, pytest.mark.rules]

users = test_rule_mechanisms.users
fixed_dice = test_rule_mechanisms.fixed_dice


def page_of(client, players, side) -> str:
    client.force_login(players.users[side])
    return html.unescape(client.get(f"/campaigns/{players.campaign_id}/").content.decode())


# --------------------------------------------------------------------------- 2.92 EX


def test_2_92_ex_the_american_has_33_purchase_points_at_3_4_and_the_german_none(users, modules):
    """2.92 EX: "He scored 63 VP in the scenario and needed 55 to win ... (in this case,
    55 - 63 = -8). He suffered 41 CVP ... (in this case, - 8 + 41 = 33)."  Played: the
    Morning's result 63 VP / 41 CVP; at 3.4 the American holds 33 PP, the German none
    (2.92 names the American alone), and the log shows the sum in the example's order."""
    players, _ = apd_at(users, "3.4")
    assert points(players, "american") == 33
    assert points(players, "german") == 0
    text = Event.objects.filter(kind="replenish", side="american").last().text
    assert "55 required − 63 amassed = -8" in text and "-8 + 41 CVP suffered = 33" in text


# --------------------------------------------------------------------------- 2.3, 2.4, 2.6


@pytest.mark.parametrize(
    ("step", "words"),
    [
        ("2.1", "the last Player Turn's ATTACKER"),
        ("2.1", "one at a time"),
        ("2.2", "flip SMOKE to its Dispersed side"),
        ("2.3", "even if Disrupted"),
        ("2.4", "a Stall precludes Motion status"),
        ("2.6", "MP expenditure is immaterial"),
        ("2.8", "(Wreck Blazes included)"),
        ("2.8", "withdraw as from Melee"),
        ("3.9", "Battery Access lost for good or the first Cancelled"),
        ("3.9", "Draw Piles are restored to their original composition"),
    ],
)
def test_2_1_to_3_9_the_map_steps_say_their_conditions_where_the_player_acts(
    users, modules, client, step, words
):
    """The app keeps no Melee, broken, Motion, Bogged, Blaze, SMOKE or FFE state (map
    play), so each of these steps' pages must say the sentence's condition to the player
    doing it on the map.  2.1: "Resolve all existing Melees, one at a time ... The
    player who was the ATTACKER in the final Player Turn of the scenario is considered
    to be the ATTACKER during these CC rounds."  2.2: "SMOKE is then flipped to its
    Dispersed side."  2.3: "All currently broken units of both sides automatically
    Rally, even if Disrupted."  2.4 EXC: "PzVG must still roll for Stall to gain
    Motion; a Stall precludes Motion status".  2.6: "(MP expenditure is immaterial)".
    2.8: "All existing Blazes (including Wreck Blazes) and then Flames ... Infantry
    units in Blaze locations must immediately Withdraw as if from Melee."  3.9: "Draw
    Piles are restored to their original composition ... he must either permanently
    lose Battery Access or Cancel any module in use before attempting to use another."
    2.1's "one at a time", 2.4's Stall, 2.6's MP and 3.9's "original composition" were
    not said on fold."""
    players, _ = apd_at(users, step)
    assert players.step.id == step
    assert words in page_of(client, players, "american")


def test_2_3_no_broken_status_is_kept_so_rally_owes_no_roll_and_done_moves_on(users, modules):
    """2.3: "automatically Rally": no DR.  The retained forces keep no broken status
    (the vocabulary has none), so the step owes nothing: both Done and 2.4 follows."""
    assert "broken" not in Unit.Status.values and "disrupted" not in Unit.Status.values
    players, _ = apd_at(users, "2.3")
    done(players, "american")
    done(players, "german")
    assert players.step.id == "2.4"


# --------------------------------------------------------------------------- 3.31


def test_3_31_a_6_on_ma_repair_recalls_the_vehicle_and_its_mg_still_makes_its_own_attempt(
    users, modules, fixed_dice
):
    """3.31: "A vehicle that rolls a 6 on a MA repair becomes BU if CE and is marked with
    a Recall counter (D5.431)" and "Each weapon/Vehicle may make only one Repair
    attempt": the tank whose MA rolled 6 stays, Recalled (BU), its MA gone; a second MA
    attempt is refused; its malfunctioned MG (another weapon) still makes its one."""
    players, _ = apd_at(users, "3.3")
    tank, (ma, mg) = add_vehicle(
        players, "american", "M4A3(75)W", ("ma", ["malfunctioned"]), ("mg", ["malfunctioned"])
    )
    fixed_dice.extend([[6], [1]])
    r = roll(players, "american", "repair_ma_gun", tank, weapon=ma)
    assert r.result == "Eliminated"
    with pytest.raises(ActionRefused, match=r"Repair"):
        roll(players, "american", "repair_ma_gun", tank, weapon=ma)
    r = roll(players, "american", "repair_vehicular_mg", tank, weapon=mg)
    assert r.result == "Repaired"
    tank.refresh_from_db()
    assert tank.markers == ["recalled"]
    assert sorted((w["kind"], w["markers"]) for w in tank.weapons) == [
        ("ma", ["disabled"]),
        ("mg", []),
    ]


# --------------------------------------------------------------------------- 3.5


def test_3_5_the_german_owes_all_three_row_drs_and_the_american_makes_none(
    users, modules, fixed_dice
):
    """3.5: "The German player now secretly makes three Reinforcement drs (one each on
    Rows A-C)", rows supplied: the American is refused a Row dr (not his); the German's
    Done after Rows A and B only is refused (Row C owed); after Row C it moves on."""
    players, _ = apd_at(users, "3.4")
    supply_german(players)
    players.until_step("3.5")
    with pytest.raises(ActionRefused):
        roll(players, "american", "german_reinforcement_row_a", item="Row A")
    fixed_dice.extend([[4], [3], [6]])
    roll(players, "german", "german_reinforcement_row_a", item="Row A")
    roll(players, "german", "german_reinforcement_row_b", item="Row B")
    with pytest.raises(ActionRefused, match=r"Row C"):
        done(players, "german")
    roll(players, "german", "german_reinforcement_row_c", item="Row C")
    done(players, "german")
    assert players.step.id != "3.5"
    # Row A's dr 4 gave nothing; Row B's gave RB1; Row C's is HE (only): no group.
    assert list(Purchase.objects.filter(side="german").values_list("group_id", flat=True)) == [
        "RB1"
    ]


# --------------------------------------------------------------------------- 3.6


def _american_infantry(players):
    def supplied(data):
        chart = next(c for c in data["rg_charts"] if c["side"] == "american")
        chart.update(
            missing=False,
            groups=[
                {
                    "id": "I1",
                    "type": "Armored Infantry Platoon",
                    "units": "6-6-6",
                    "unit_kind": "squad",
                    "full": 3,
                    "cost": 6,
                    "tags": ["armored_infantry"],
                }
            ],
        )

    patch_module(players.campaign, supplied)
    Seat.objects.filter(campaign_id=players.campaign_id, side="american").update(points=20)


@pytest.mark.parametrize(("dice", "leader"), [([1, 1], "10-2"), ([5, 6], "7-0"), ([6, 6], "6+1")])
def test_3_6_american_infantry_column_2_11_12_and_the_leader_enters_with_his_group(
    users, modules, fixed_dice, dice, leader
):
    """3.6 Leader Table, American Infantry: "≤ 2 10-2", "11 7-0", "12 6+1"; 3.4 note 1:
    "one DR on the Leader Table per Group received" (a second is refused); 3.6: "Each
    Leader must enter with a unit of his Group": the leader's line names his group."""
    players, _ = apd_at(users, "3.4")
    _american_infantry(players)
    i1 = buy(players, "american", "I1")
    players.until_step("3.6")
    fixed_dice.append(dice)
    rg_roll(players, "american", i1)
    with pytest.raises(ActionRefused):
        rg_roll(players, "american", i1)
    (r,) = Roll.objects.filter(table_id="leader")
    assert r.result == f"American Infantry: {leader}"
    assert (f"{leader} leader (I1)", "leader", "ok", 1) in unit_names(players, "american")
    assert ("6-6-6 (I1 Armored Infantry Platoon)", "squad", "ok", 3) in unit_names(
        players, "american"
    )


def test_3_6_note_a_takes_a_pzgr_platoons_dr_of_12_to_the_6_plus_1_row(users, modules, fixed_dice):
    """3.6 Leader Table, German Infantry "11 6+1", "12 -", note a "-1 DRM for PzGr
    Platoon I": a PzGr Platoon I's DR 12 - 1 = 11 gives a 6+1; the PzIV Section (German
    Armor, no DRM) DR 2 gives a 9-2."""
    players, _ = apd_at(users, "3.4")
    supply_german(players)
    players.until_step("3.5")
    fixed_dice.extend([[2], [5], [1]])
    for row in "abc":
        roll(players, "german", f"german_reinforcement_row_{row}", item=f"Row {row.upper()}")
    players.finish()
    players.until_step("3.6")
    ra1, rb1 = Purchase.objects.filter(side="german").order_by("id")
    fixed_dice.extend([[6, 6], [1, 1]])
    rg_roll(players, "german", ra1)
    rg_roll(players, "german", rb1)
    infantry, armor = Roll.objects.filter(table_id="leader").order_by("seq")
    assert infantry.final == 11 and infantry.result == "German Infantry: 6+1"
    assert armor.final == 2 and armor.result == "German Armor: 9-2"


# --------------------------------------------------------------------------- 3.7


@pytest.mark.parametrize(
    ("dice", "tanks"),
    [
        ([1, 1], [("M4A3(76)W (A1)", 2), ("M4A3E2(L) (A1)", 1)]),
        ([1, 2], [("M4A3(105) (A1)", 1), ("M4A3(75)W (A1)", 1), ("M4A3(76)W (A1)", 1)]),
    ],
)
def test_3_7_m4_model_rows_2_and_3_give_their_three_tanks(users, modules, fixed_dice, dice, tanks):
    """3.7 M4 Model Table: "2 2 x M4A3(76)W; M4A3E2(L)" and "3 M4A3(76)W; M4A3(105);
    M4A3(75)W": the group receives those three tanks, and 3.4 note 3 makes one
    Gyrostabilizer DR per AFV (three)."""
    players, _ = apd_at(users, "3.4")
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
    assert Roll.objects.filter(table_id="gyrostabilizer").count() == 3


# --------------------------------------------------------------------------- 3.1, 3.3


def test_3_1_3_3_the_owning_player_rolls_not_his_opponent(users, modules, fixed_dice):
    """3.1: "The owning player rolls on the following Recovery Table to determine each
    wounded leader's fate"; 3.3 Repair: each side repairs its own weapons.  At 3.1 the
    German is refused a Recovery dr for the American's wounded 8-1 (the American acts
    first, 1.2); at 3.3, the American done without repairing, the German is refused a
    Repair dr for the American's BAZ: in words, nothing rolled."""
    players, _ = apd_at(users, "3.1")
    leader = add(players, "american", "8-1 leader", "leader", "wounded")
    baz = add(players, "american", "BAZ 44", "sw", "malfunctioned")
    with pytest.raises(ActionRefused, match=r"Not your turn: American acts first at 3.1"):
        roll(players, "german", "recovery", leader)
    assert not Roll.objects.exists()
    fixed_dice.append([2])
    assert roll(players, "american", "recovery", leader).result == "Retain Unwounded"
    players.until_step("3.3")
    done(players, "american")
    assert players.waiting() == ["german"]
    with pytest.raises(ActionRefused) as refused:
        roll(players, "german", "repair_sw", baz)
    assert "BAZ 44" not in str(refused.value)  # the refusal names none of his units
    assert Roll.objects.count() == 1


def test_3_3_players_may_roll_so_done_without_a_repair_dr_moves_on(users, modules):
    """3.3: "Players may now roll on the Repair Table": the Repair dr is an option, not
    owed.  Both sides press Done with a malfunctioned BAZ and MA unrolled: 3.4 follows
    and the weapons stay malfunctioned."""
    players, _ = apd_at(users, "3.3")
    add(players, "american", "BAZ 44", "sw", "malfunctioned")
    add(players, "german", "MMG", "sw", "malfunctioned")
    done(players, "american")
    done(players, "german")
    assert players.step.id == "3.4"
    assert unit_names(players, "american") == [("BAZ 44", "sw", "malfunctioned", 1)]


# --------------------------------------------------------------------------- 3.6, 3.7 secret


def test_3_6_3_7_a_secret_dr_and_what_it_gave_are_not_on_the_opponents_page(
    users, modules, client, fixed_dice
):
    """3.6: "make one secret DR on the appropriate column of the following Leader
    Table"; 3.7: "make a secret DR on the following M4 Model Table".  After the
    American's Leader DR (10-2) and M4 Model DR (2: M4A3E2(L)), the German's page shows
    neither the leader nor the tanks; the American's own page shows both.  Under the
    default reveal policy ("when both sides finish the purchase step"): the group's
    line is revealed at 3.4's end, before these DRs, and what they gave is held from
    the German until the scenario ends (pass 12: pass-12-secret12.md, pass-12-sec14.md)."""
    players, _ = apd_at(users, "3.4")
    assert Campaign.objects.get(pk=players.campaign_id).reveal_policy == "step_end"
    _armor_group(players, [{"range": "1-6", "result": "M4", "effect": _M4_ARMOR_TYPE}])
    a1 = buy(players, "american", "A1")
    fixed_dice.append([1])
    rg_roll(players, "american", a1)
    players.until_step("3.6")
    fixed_dice.append([1, 1])
    rg_roll(players, "american", a1)
    players.until_step("3.7")
    fixed_dice.extend([[1, 1], [1, 1], [1, 1], [1, 1]])
    rg_roll(players, "american", a1)
    a1.refresh_from_db()
    assert a1.revealed_at is not None  # the line is the German's to read
    theirs = page_of(client, players, "german")
    assert "A1" in theirs
    assert "10-2" not in theirs and "M4A3E2" not in theirs
    mine = page_of(client, players, "american")
    assert "10-2" in mine and "M4A3E2" in mine


# --------------------------------------------------------------------------- 3.4, 3.5 secretly


def test_3_4_3_5_the_american_spends_and_the_german_rolls_secretly(users, modules, fixed_dice):
    """3.4: "The American player secretly spends his Purchase Points"; 3.5: "The German
    player now secretly makes three Reinforcement drs (one each on Rows A-C)".  Before
    3.4 ends the German may read neither the American's group nor his armor-type dr nor
    his points' log line; the American may read none of the German's three Row drs, the
    groups they gave, nor their log lines."""
    players, _ = apd_at(users, "3.4")
    _armor_group(players, [{"range": "1-6", "result": "M4", "effect": _M4_ARMOR_TYPE}])
    supply_german(players)
    a1 = buy(players, "american", "A1")
    fixed_dice.append([1])
    rg_roll(players, "american", a1)
    assert not Purchase.objects.visible_to("german").exists()
    assert not Roll.objects.visible_to("german").exists()
    shown = " ".join(Event.objects.visible_to("german").values_list("shown", flat=True))
    assert "A1" not in shown and "M4" not in shown, shown
    players.until_step("3.5")
    fixed_dice.extend([[2], [5], [1]])
    for row in "abc":
        roll(players, "german", f"german_reinforcement_row_{row}", item=f"Row {row.upper()}")
    assert Purchase.objects.filter(side="german").count() == 2
    assert not Purchase.objects.filter(side="german").visible_to("american").exists()
    assert not Roll.objects.filter(table_id__startswith="german_").visible_to("american").exists()
    shown = " ".join(Event.objects.visible_to("american").values_list("shown", flat=True))
    assert "PzGr" not in shown and "PzIV" not in shown and "RA1" not in shown, shown


def test_3_6_german_infantry_12_and_german_armor_6_8_give_no_leader(users, modules, fixed_dice):
    """3.6 Leader Table: German Infantry "12 -" and German Armor "6-8 -": a Row A
    infantry group with no note a DRM (not a PzGr Platoon I) rolling DR 12, and the PzIV
    Section rolling DR 6, receive no leader; each DR is made once (a second refused)."""
    players, _ = apd_at(users, "3.4")
    chart = {k: v for k, v in GERMAN_CHART.items() if k != "row-0-tags"}
    chart["row-0-type"] = "Rifle Platoon"
    supply_german(players, chart)
    players.until_step("3.5")
    fixed_dice.extend([[2], [5], [1]])
    for row in "abc":
        roll(players, "german", f"german_reinforcement_row_{row}", item=f"Row {row.upper()}")
    players.finish()
    players.until_step("3.6")
    ra1, rb1 = Purchase.objects.filter(side="german").order_by("id")
    fixed_dice.extend([[6, 6], [3, 3]])
    rg_roll(players, "german", ra1)
    rg_roll(players, "german", rb1)
    with pytest.raises(ActionRefused):
        rg_roll(players, "german", ra1)
    infantry, armor = Roll.objects.filter(table_id="leader").order_by("seq")
    assert (infantry.final, infantry.drms) == (12, [])
    assert infantry.result == "German Infantry: No leader"
    assert armor.final == 6 and armor.result == "German Armor: No leader"
    assert unit_names(players, "german", kind="leader") == []
