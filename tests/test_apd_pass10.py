"""Issue 44, pass 10, A Pleasant Diversion (seed 002): pass 9's "Left" items (3 Note
and the amendment's help, 2.5's 1TC per Encircled unit, the armor-type dr after a Done
at 3.4, the 3.1 footnote with no MMC), then sentences of 2.x-4.0 no pass had tried in
play.  Each test cites its rule; docs/rules-audit/pass-10-apd.md lists what was tried."""

from __future__ import annotations

import pytest

from campaign.models import Event, Purchase, Roll, Unit
from campaign.services import purchases, steps
from campaign.services.errors import ActionRefused
from tests import test_rule_mechanisms
from tests.test_apd_pass5 import done
from tests.test_rule_mechanisms import (
    _M4_ARMOR_TYPE,
    _armor_group,
    add,
    apd_at,
    buy,
    edit,
    rg_roll,
    roll,
    unit_names,
)

pytestmark = [pytest.mark.django_db, pytest.mark.rules]

users = test_rule_mechanisms.users
fixed_dice = test_rule_mechanisms.fixed_dice


# --------------------------------------------------------------------------- 3.4


def test_3_4_an_armor_type_dr_made_by_done_is_never_made_again_by_a_take_back(
    users, modules, fixed_dice
):
    """3.4: "For each Armor Group purchased, make a dr to determine armor type" — once.
    The American's Done at 3.4 makes the dr (pass 9); 3.4 is his alone, so the Done
    moves the CG on to 3.5 and there is no Done at 3.4 to take back (refused in words);
    the group whose dr is made can no longer be cancelled and rebought (a re-roll by
    refund), and its dr is not made again: the dice stand."""
    players, _ = apd_at(users, "3.4")
    _armor_group(players, [{"range": "1-6", "result": "M4", "effect": _M4_ARMOR_TYPE}], full=3)
    a1 = buy(players, "american", "A1")
    fixed_dice.extend([[4]])
    done(players, "american")
    assert players.step.id == "3.5"
    with pytest.raises(ActionRefused, match="no Done to take back"):
        steps.take_back_done(campaign_id=players.campaign_id, user=players.users["american"])
    assert Purchase.objects.get(pk=a1.pk).status == Purchase.Status.ACTIVE
    assert list(Roll.objects.values_list("table_id", "final")) == [("american_reinforcement", 4)]


def test_3_4_an_armor_type_dr_made_by_a_click_stands_the_group_is_not_refunded(
    users, modules, fixed_dice
):
    """3.4: the armor-type dr made at 3.4 by the group's roll button stands: the group
    can no longer be cancelled (refund and rebuy would roll again), nor rolled again."""
    players, _ = apd_at(users, "3.4")
    _armor_group(players, [{"range": "1-6", "result": "M4", "effect": _M4_ARMOR_TYPE}], full=3)
    a1 = buy(players, "american", "A1")
    fixed_dice.extend([[2]])
    rg_roll(players, "american", a1)
    with pytest.raises(ActionRefused, match="can no longer be cancelled"):
        purchases.cancel_purchase(
            campaign_id=players.campaign_id, user=players.users["american"], purchase_id=a1.ref
        )
    with pytest.raises(ActionRefused):
        rg_roll(players, "american", a1)
    assert Purchase.objects.get(pk=a1.pk).status == Purchase.Status.ACTIVE
    assert list(Roll.objects.values_list("table_id", "final")) == [("american_reinforcement", 2)]


# --------------------------------------------------------------------------- 2 Note, 3 Note


@pytest.mark.parametrize(("step", "says_na"), [("2.5", False), ("3.1", True), ("3.3", True)])
def test_2_note_3_note_the_amendment_says_whether_this_phases_losses_count_cvp(
    users, modules, client, step, says_na
):
    """2 Note: "CVP are recorded normally throughout this phase" (the Clean-Up): the
    amendment of the result invites the CVP lost in melee or encirclement.  3 Note:
    "CVP are NA for units/weapons eliminated in this phase" (the Setup Phase): there
    it says so, citing 3 Note, and invites only a figure entered wrong."""
    players, _ = apd_at(users, step)
    client.force_login(players.users["german"])
    page = client.get(f"/campaigns/{players.campaign_id}/").content.decode()
    assert "Amend the scenario result" in page
    na = "CVP are NA for units/weapons eliminated in this phase (3 Note)"
    assert (na in page) is says_na
    assert ("the CVP lost in melee or encirclement" in page) is not says_na


# --------------------------------------------------------------------------- 2.5


def test_2_5_each_encircled_unit_takes_its_1tc_and_one_that_fails_is_eliminated(
    users, modules, fixed_dice
):
    """2.5: "Each Encircled unit must take a 1TC (leadership applies normally). Failing
    the 1TC results in the unit's immediate Elimination ... All Encircled markers are
    then removed."  The app holds the Encircled marker and reads the Morale from the
    counter: Done waits for each Encircled unit's 1TC; DR 6 +1 +1 (Encircled, A7.7: pass
    12) -1 (leadership) against the 4-6-7's Morale 7 passes; DR 7 +1 +1 against the
    2-4-7's 7 fails and the half-squad is eliminated; the German 8-1's DR 8 +1 +1
    against 8 fails; a second 1TC for the same
    unit and one for the Encircled PzIV (2.5 EXC: its PRC are the map's) are refused;
    the survivor's Encircled marker leaves with 2.5."""
    players, _ = apd_at(users, "2.5")
    squad = add(players, "american", "4-6-7", "squad", "encircled")
    hs = add(players, "american", "2-4-7", "half_squad", "encircled")
    add(players, "american", "4-6-7", "squad")  # not Encircled: no 1TC
    leader = add(players, "german", "8-1 leader", "leader", "encircled")
    tank = add(players, "german", "PzIVH", "vehicle", markers=["encircled", "immobilized"])
    with pytest.raises(ActionRefused, match=r"Roll first: .*Encirclement 1TC"):
        done(players, "american")
    fixed_dice.extend([[3, 3], [4, 3], [6, 2]])
    r = roll(players, "american", "encirclement_1tc", squad, typed={"leadership": -1})
    assert r.result.startswith("Passed"), r.result
    with pytest.raises(ActionRefused, match=r"\(2.5\)|already|once"):
        roll(players, "american", "encirclement_1tc", squad)
    r = roll(players, "american", "encirclement_1tc", hs)
    assert r.result.startswith("Failed"), r.result
    done(players, "american")
    with pytest.raises(ActionRefused):
        roll(players, "german", "encirclement_1tc", tank)
    r = roll(players, "german", "encirclement_1tc", leader)
    assert r.result.startswith("Failed"), r.result
    done(players, "german")
    assert players.step.id == "2.6"
    assert unit_names(players, "american") == [
        ("4-6-7", "squad", "ok", 1),
        ("4-6-7", "squad", "ok", 1),
    ]
    assert unit_names(players, "german") == [("PzIVH", "vehicle", "immobilized", 1)]
    texts = list(Event.objects.filter(kind="roll").values_list("text", flat=True))
    assert any("Morale" in t and "1TC" in t for t in texts), texts


def test_2_5_a_1tc_for_a_line_that_names_no_morale_is_refused_in_words(users, modules):
    """2.5's 1TC reads the Morale from the counter: an Encircled squad recorded by a name
    without its figures is refused with a sentence (nothing rolled), not a 500."""
    players, _ = apd_at(users, "2.5")
    squad = add(players, "american", "Rifle squad", "squad", "encircled")
    with pytest.raises(ActionRefused, match=r"Morale.*names none"):
        roll(players, "american", "encirclement_1tc", squad)
    assert not Roll.objects.exists()


# --------------------------------------------------------------------------- 3.1, 3.2


@pytest.mark.parametrize("mmc", [1, 2])
def test_3_1_footnote_an_evacuated_leaders_sw_is_transferred_to_the_only_mmc(
    users, modules, fixed_dice, mmc
):
    """3.1 footnote *: "An Evacuated leader is permanently removed from play, but is
    immediately replaced with a 7-0 leader in the same location as the friendly MMC
    nearest (in hexes) ... Any SW Possessed by an Evacuated leader is considered
    Transferred to the MMC as well."  The German's wounded 9-1 possessing an MMG rolls
    dr 5: he leaves and a 7-0 joins.  Holding one MMC (the 4-6-7 at 12H3), that MMC is
    the nearest whatever the hexes: the 7-0 is placed at 12H3 and the MMC possesses the
    MMG.  Holding two, the nearest is the map's: the owner places him and names the
    MMG's possessor.  An unwounded leader is not rolled for (3.1 "each wounded
    leader"), and Done waits for the wounded one's dr."""
    players, _ = apd_at(users, "3.1")
    leader = add(players, "german", "9-1 leader", "leader", "wounded", location="12F5")
    mmg = add(players, "german", "MMG", "sw", possessor=leader.ref)
    squad = add(players, "german", "4-6-7", "squad", location="12H3")
    if mmc == 2:
        add(players, "german", "2-4-7", "half_squad", location="12B1")
    fine = add(players, "german", "8-0 leader", "leader")
    done(players, "american")
    with pytest.raises(ActionRefused, match=r"Roll first: .*Recovery Table"):
        done(players, "german")
    with pytest.raises(ActionRefused):
        roll(players, "german", "recovery", fine)
    fixed_dice.append([5])
    assert roll(players, "german", "recovery", leader).result == "Evacuated*"
    names = [n for n, *_ in unit_names(players, "german")]
    assert "9-1 leader" not in names and "7-0 leader" in names and "MMG" in names
    seven = Unit.objects.get(campaign_id=players.campaign_id, name="7-0 leader")
    text = Event.objects.filter(kind="roll").latest("id").text
    if mmc == 1:
        assert seven.location == "12H3"
        assert Unit.objects.get(pk=mmg.pk).possessor_id == squad.pk
        assert "placed with 4-6-7 at 12H3, the only friendly MMC" in text, text
        assert "MMG Transferred to 4-6-7" in text, text
    else:
        assert seven.location == ""
        assert Unit.objects.get(pk=mmg.pk).possessor_id is None
        assert "MMC at 12B1, 12H3" in text, text
        # Pass 16: Done waits for the MMG's MMC; naming the 4-6-7 places the 7-0 there.
        with pytest.raises(ActionRefused, match="MMG"):
            done(players, "german")
        edit(players, "german", mmg, None, possessor=squad.ref)
        assert Unit.objects.get(pk=seven.pk).location == "12H3"
    done(players, "german")
    assert players.step.id == "3.2"


def test_3_2_an_eliminated_heros_sw_is_transferred_to_the_battle_hardened_mmc(users, modules):
    """3.2: "Any SW Possessed by an eliminated Hero is considered Transferred to the
    Battle Hardened MMC."  The American gives up his Hero (possessing a BAZ) for his
    squad: the squad is Battle Hardened and now possesses the BAZ; the Hero is gone."""
    from tests.test_rule_mechanisms import exchange

    players, _ = apd_at(users, "3.2")
    hero = add(players, "american", "1-4-9 Hero", "hero")
    baz = add(players, "american", "BAZ 44", "sw", possessor=hero.ref)
    squad = add(players, "american", "6-6-6", "squad")
    exchange(players, "american", hero, squad)
    assert unit_names(players, "american") == [
        ("6-6-6", "squad", "battle_hardened", 1),
        ("BAZ 44", "sw", "ok", 1),
    ]
    assert Unit.objects.get(pk=baz.pk).possessor_id == squad.pk


# --------------------------------------------------------------------------- 3.3, 3.31


def test_3_3_3_31_captured_unpossessed_and_abandoned_make_no_repair_attempt(
    users, modules, fixed_dice
):
    """3.3: "a dr per repair attempt for malfunctioned, non-captured weapons"; 3.31: "In
    all cases, vehicles must not be Abandoned and Guns/SW must be Possessed to attempt
    Repair."  A captured malfunctioned MMG, an unpossessed malfunctioned LMG and an
    Abandoned tank's malfunctioned MA are each refused in words (nothing rolled); a SW
    in good order is not rolled for either; the possessed malfunctioned BAZ is."""
    from tests.purchase_helpers import add_vehicle

    players, _ = apd_at(users, "3.3")
    captured = add(players, "american", "MMG", "sw", markers=["malfunctioned", "captured"])
    loose = add(players, "american", "LMG", "sw", markers=["malfunctioned", "unpossessed"])
    whole = add(players, "american", "BAR", "sw")
    tank, (ma,) = add_vehicle(players, "american", "M4A3(75)W", ("ma", ["malfunctioned"]))
    from tests.test_rule_mechanisms import edit

    edit(players, "american", tank, None, markers=["abandoned"])
    for unit, table, weapon in (
        (captured, "repair_sw", ""),
        (loose, "repair_sw", ""),
        (whole, "repair_sw", ""),
        (Unit.objects.get(pk=tank.pk), "repair_ma_gun", ma),
    ):
        with pytest.raises(ActionRefused):
            roll(players, "american", table, unit, weapon=weapon)
    assert not Roll.objects.exists()
    baz = add(players, "american", "BAZ 44", "sw", "malfunctioned")
    fixed_dice.append([3])
    assert roll(players, "american", "repair_sw", baz).result == "Repaired"


# --------------------------------------------------------------------------- 3.4, 3.6, 3.7


def test_3_4_3_6_3_7_points_bound_the_buying_no_leader_row_and_the_m4_tables_last_row(
    users, modules, fixed_dice
):
    """3.4: "He may purchase as many of each group as he has Purchase Points available":
    with 20 PP two Armor Groups (10 PP each) are bought, a third is refused in words.
    3.6 Leader Table, American Armor "9-10 -": a Leader DR of 10 gives the group no
    leader.  3.7 M4 Model Table "11-12 2 x M4A3(75); M4A3": DR 12 gives those three
    tanks, and 3.4 note 3 "one DR on the H1.42 Gyrostabilizer Table per AFV" makes
    three Gyrostabilizer DRs."""
    from campaign.services.purchases import purchase_rg

    players, _ = apd_at(users, "3.4")
    _armor_group(players, [{"range": "1-6", "result": "M4", "effect": _M4_ARMOR_TYPE}])
    a1 = buy(players, "american", "A1")
    second = buy(players, "american", "A1")
    with pytest.raises(ActionRefused, match="PP"):
        purchase_rg(campaign_id=players.campaign_id, user=players.users["american"], group_id="A1")
    assert Purchase.objects.filter(status=Purchase.Status.ACTIVE).count() == 2
    purchases.cancel_purchase(
        campaign_id=players.campaign_id, user=players.users["american"], purchase_id=second.ref
    )  # one group follows, for the rolls below
    fixed_dice.extend([[1]])  # armor type M4 (3.4)
    rg_roll(players, "american", a1)
    players.until_step("3.6")
    fixed_dice.extend([[5, 5]])  # Leader DR 10: American Armor "-"
    rg_roll(players, "american", a1)
    players.until_step("3.7")
    fixed_dice.extend([[6, 6], [1, 1], [2, 2], [3, 3]])  # M4 Model DR 12, three gyros
    rg_roll(players, "american", a1)
    mine = Unit.objects.filter(campaign_id=players.campaign_id, purchase_id=a1.pk)
    assert not mine.filter(kind="leader").exists()
    tanks = sorted((u.name, u.count) for u in mine.filter(kind="vehicle"))
    assert tanks == [("M4A3 (A1)", 1), ("M4A3(75) (A1)", 2)], tanks
    assert Roll.objects.filter(table_id="gyrostabilizer").count() == 3
    leader = Roll.objects.get(table_id="leader")
    assert leader.final == 10 and "No leader" in leader.result


def test_3_2_exc_fanatic_is_na_so_a_hardened_mmc_leaves_the_hero_onboard(users, modules):
    """3.2: "the owning player may Battle Harden [EXC: Fanatic status is NA] any one MMC.
    [EXC: If unable to Battle Harden any MMC, the Hero remains onboard unwounded
    instead]."  The American's only squad is already Battle Hardened (a second hardening
    would be Fanatic, NA): giving the wounded Hero up for it is refused in words, and at
    Done the Hero, unable to harden any MMC, stays, unwounded."""
    from tests.test_rule_mechanisms import exchange

    players, _ = apd_at(users, "3.2")
    hero = add(players, "american", "1-4-9 Hero", "hero", "wounded")
    squad = add(players, "american", "6-6-6", "squad", "battle_hardened")
    with pytest.raises(ActionRefused, match=r"\(3.2\)"):
        exchange(players, "american", hero, squad)
    done(players, "american")
    assert unit_names(players, "american") == [
        ("1-4-9 Hero", "hero", "ok", 1),
        ("6-6-6", "squad", "battle_hardened", 1),
    ]


def test_3_31_a_gun_must_be_possessed_and_a_possessed_guns_5_is_ne(users, modules, fixed_dice):
    """3.31: "Guns/SW must be Possessed to attempt Repair"; 3.3 Repair Table "Repair
    MA/Gun 1-4 | 5 | 6": an unpossessed malfunctioned 57L AT is refused its dr in
    words; a possessed one's dr 5 is NE: it stays malfunctioned, on the forces."""
    players, _ = apd_at(users, "3.3")
    loose = add(players, "american", "57L AT", "gun", markers=["malfunctioned", "unpossessed"])
    with pytest.raises(ActionRefused):
        roll(players, "american", "repair_ma_gun", loose)
    gun = add(players, "american", "57L AT", "gun", "malfunctioned")
    fixed_dice.append([5])
    assert roll(players, "american", "repair_ma_gun", gun).result == "NE"
    assert Unit.objects.get(pk=gun.pk).markers == ["malfunctioned"]
    assert Roll.objects.count() == 1
