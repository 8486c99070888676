"""Sicily 3.6-3.614, the tenth audit pass: pass 9's left items (stacks, a line of
several identical units, the Encircled 1TC, "+1 if German" for a hand-added vehicle,
an MMC Replaced) and unsampled sentences, each through the services as a player would
meet it (docs/rules-audit/pass-10-sicily-a.md)."""

from __future__ import annotations

import pytest

from campaign.models import Event, Roll, Unit
from campaign.services import steps
from campaign.services.errors import ActionRefused
from tests import test_rule_mechanisms as mechanisms
from tests.purchase_helpers import campaign_at
from tests.test_rule_mechanisms import add, roll, unit_names

users = mechanisms.users
fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


def test_3_6061_one_of_a_line_of_isolated_squads_escapes_and_is_no_longer_isolated(
    users, modules, fixed_dice
):
    """3.6061 "If a unit survives the Escape attempt, it ... [is] Retained into a
    friendly Setup Area": of a line of two Isolated 4-6-7s, the one whose Escape DR
    escapes loses its Isolated marker; the other stays Isolated."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.606")
    add(players, "axis", "4-6-7", "squad", status="isolated", number=2)
    line = Unit.objects.get(campaign_id=players.campaign_id, name="4-6-7")
    fixed_dice.append([2, 3])
    assert roll(players, "axis", "escape", line).final == 7
    assert unit_names(players, "axis") == [
        ("4-6-7", "squad", "isolated", 1),
        ("4-6-7", "squad", "ok", 1),
    ]


def test_3_6141c_one_of_a_line_made_mobile_leaves_recall(users, modules, fixed_dice):
    """3.6141b/c on a line of two identical units: of two immobilized StuGs under Recall
    on one line, the one whose Immobilization Repair dr makes it Mobile leaves Recall
    (3.6141c read after 3.6141b); the other stays immobilized and Recalled."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.614")
    add(
        players,
        "axis",
        "StuG IIIG",
        "vehicle",
        status="immobilized",
        markers=["recalled"],
        number=2,
    )
    line = Unit.objects.get(campaign_id=players.campaign_id, name="StuG IIIG")
    fixed_dice.append([1])
    roll(players, "axis", "immobilization_repair", line)
    assert unit_names(players, "axis") == [
        ("StuG IIIG", "vehicle", "immobilized, recalled", 1),
        ("StuG IIIG", "vehicle", "ok", 1),
    ]


def test_3_6061_a_leader_replaced_by_his_escape_dr_is_no_longer_isolated(
    users, modules, fixed_dice
):
    """3.606 row 9 "Escapes; Replaced" then 3.6061 "If a unit survives the Escape
    attempt, it ... [is] Retained into a friendly Setup Area": the Isolated 8-1 whose
    Escape DR gives 9 is Replaced by an 8-0 who escaped too, so no longer Isolated
    (before, the 8-0 stayed Isolated)."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.606")
    leader = add(players, "axis", "8-1 leader", "leader", status="isolated")
    fixed_dice.append([3, 5])  # 8 +2 Isolated -1 Night = 9
    assert roll(players, "axis", "escape", leader).final == 9
    assert unit_names(players, "axis") == [("8-0 leader", "leader", "ok", 1)]


def _escape(players, side, named, *stack, **kw):
    return roll(players, side, "escape", named, stack=[u.ref for u in stack], **kw)


def test_3_606_a_stack_makes_one_escape_dr_that_counts_as_each_units(users, modules, fixed_dice):
    """3.606 "+1 per HS-equivalent > one HS using the same Escape DR": an Isolated 8-1
    escaping with a 4-6-7 and a 2-4-7 makes one DR; their three HS-equivalents give +2,
    computed (typing it is refused); the DR escapes, so each unit, not only the one
    named, is no longer Isolated (3.6061); each has had its one Escape DR, so a second
    for the squad is refused; a vehicle cannot join (the '*' DRM is NA to vehicle
    Escape: Infantry stacks only)."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.606")
    leader = add(players, "axis", "8-1 leader", "leader", status="isolated")
    squad = add(players, "axis", "4-6-7", "squad", status="isolated")
    hs = add(players, "axis", "2-4-7", "half_squad", status="isolated")
    tank = add(players, "axis", "StuG IIIG", "vehicle", status="isolated")
    with pytest.raises(ActionRefused, match=r"StuG IIIG cannot use the same Escape DR.*3\.606"):
        _escape(players, "axis", leader, squad, tank)
    with pytest.raises(ActionRefused, match=r"HS-equivalent.*applies by itself"):
        _escape(players, "axis", leader, squad, hs, typed={"excess_hs": 1})
    assert not Roll.objects.filter(table_id="escape").exists()
    fixed_dice.append([1, 3])  # 4 +2 HS-equivalents +2 Isolated -1 Night = 7
    r = _escape(players, "axis", leader, squad, hs)
    assert r.final == 7
    assert {d["label"][:14]: d["value"] for d in r.drms}["+1 per HS-equi"] == 2
    assert "with 4-6-7, 2-4-7" in r.item
    assert unit_names(players, "axis") == [
        ("2-4-7", "half_squad", "ok", 1),
        ("4-6-7", "squad", "ok", 1),
        ("8-1 leader", "leader", "ok", 1),
        ("StuG IIIG", "vehicle", "isolated", 1),
    ]
    for unit in (squad, hs):
        with pytest.raises(ActionRefused, match=r"has made its one Escape roll"):
            roll(players, "axis", "escape", unit)


def test_3_606_footnote_3_random_selection_picks_the_unit_casualty_reduced(
    users, modules, fixed_dice
):
    """3.606 row 10 "Escapes; Casualty Reduced" with footnote 3 "Use Random Selection
    for a stack": a 4-6-7 and an 8-1 under one Escape DR of 10; the app's dice pick
    one (a dr each, the highest: the 8-1), who is wounded; the squad escapes as it is."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.606")
    squad = add(players, "axis", "4-6-7", "squad")
    leader = add(players, "axis", "8-1 leader", "leader")
    fixed_dice.extend([[4, 6], [2], [5]])  # 10 +1 (a squad) -1 Night = 10; dr 2 and 5
    r = _escape(players, "axis", squad, leader)
    assert r.final == 10
    assert unit_names(players, "axis") == [
        ("4-6-7", "squad", "ok", 1),
        ("8-1 leader", "leader", "wounded", 1),
    ]
    picks = Roll.objects.filter(purpose__startswith="Random Selection").order_by("seq")
    assert [(p.item, p.final) for p in picks] == [("4-6-7", 2), ("8-1 leader", 5)]
    said = Event.objects.filter(campaign_id=players.campaign_id, kind="roll").last().text
    assert (
        "Random Selection picks 8-1 leader (4-6-7 dr 2, 8-1 leader dr 5) (3.606); "
        "8-1 leader is now wounded" in said
    ), said


def test_3_606_12_eliminates_every_unit_of_the_stack_and_their_equipment(
    users, modules, fixed_dice
):
    """3.606 ">= 12 All units and Equipment Eliminated": a stack's DR of 12 removes each
    unit of the stack and the LMG one of them possesses."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.606")
    squad = add(players, "axis", "4-6-7", "squad")
    leader = add(players, "axis", "8-1 leader", "leader")
    add(players, "axis", "LMG", "sw", possessor=leader.ref)
    fixed_dice.append([6, 6])  # 12 +1 (a squad) -1 Night = 12
    assert _escape(players, "axis", squad, leader).final == 12
    assert unit_names(players, "axis") == []


def test_3_613_a_stacks_shift_dr_counts_for_each_and_12_eliminates_all(users, modules, fixed_dice):
    """3.613: a 4-6-7 and a StuG shifting together make one Shift DR; ">= 12 All units,
    Inherent Crews and Equipment Eliminated" removes both; a 9-10 "No Shift" DR for a
    leader and a HS counts as each one's Shift DR (a second for the HS is refused)."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.613")
    squad = add(players, "axis", "4-6-7", "squad")
    tank = add(players, "axis", "StuG IIIG", "vehicle")
    leader = add(players, "axis", "8-1 leader", "leader")
    hs = add(players, "axis", "2-4-7", "half_squad")
    fixed_dice.extend([[6, 6], [4, 5]])
    assert roll(players, "axis", "shift", squad, stack=[tank.ref]).final == 12
    assert roll(players, "axis", "shift", leader, stack=[hs.ref]).final == 9
    assert unit_names(players, "axis") == [
        ("2-4-7", "half_squad", "ok", 1),
        ("8-1 leader", "leader", "ok", 1),
    ]
    with pytest.raises(ActionRefused, match=r"2-4-7 has made its one Shift roll"):
        roll(players, "axis", "shift", hs)


def test_3_6041_each_encircled_unit_takes_a_1tc_and_is_eliminated_if_it_fails(
    users, modules, fixed_dice
):
    """3.6041 "Each encircled unit [EXC: Prisoner] must take a separate 1TC (leadership
    DRM may apply if present and at owner's choice) ... Failing the 1TC results in the
    unit's immediate Elimination ... any Equipment that an Eliminated Encircled unit
    possessed is left in the Location unpossessed": at 3.604 Done waits for a DR for
    each Encircled unit (a unit not Encircled owes none and is refused one); the 4-6-7's
    DR 8 against its Morale 7 fails: Eliminated, its LMG left unpossessed; the wounded
    8-1's DR 6 -1 (its leadership typed) against Morale 7 (A17.2: one less) passes: he
    stays, still Encircled until 3.6062."""
    from campaign.selectors import module_of, owed_rolls

    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.604")
    squad = add(players, "axis", "4-6-7", "squad", status="encircled")
    add(players, "axis", "LMG", "sw", possessor=squad.ref)
    leader = add(players, "axis", "8-1 leader", "leader", status="wounded", markers=["encircled"])
    free = add(players, "axis", "4-6-7 #2", "squad")
    c = players.campaign
    owed = owed_rolls(c, module_of(c), "axis")
    assert [what for t, what in owed if t == "encircled_1tc"] == ["4-6-7", "8-1 leader"]
    with pytest.raises(ActionRefused, match=r"3\.6041"):
        roll(players, "axis", "encircled_1tc", free)
    with pytest.raises(ActionRefused, match=r"3\.6041"):
        steps.finish_step(campaign_id=players.campaign_id, user=players.users["axis"])
    fixed_dice.extend([[4, 4], [3, 3]])
    r = roll(players, "axis", "encircled_1tc", squad)
    assert (r.final, r.result) == (1, "Fails: Eliminated")
    r = roll(players, "axis", "encircled_1tc", leader, typed={"leadership": -1})
    assert r.final == 6 - 7 - 1 and r.result.startswith("Passes")
    assert unit_names(players, "axis") == [
        ("4-6-7 #2", "squad", "ok", 1),
        ("8-1 leader", "leader", "wounded, encircled", 1),
        ("LMG", "sw", "unpossessed", 1),
    ]


def test_3_6041_a_line_whose_morale_cannot_be_read_is_refused_the_1tc(users, modules):
    """3.6041's 1TC is taken against the unit's Morale (A12.1), read from its counter: an
    Encircled line named "Rifle squad" is refused the DR with a sentence, nothing
    rolled."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.604")
    odd = add(players, "british", "Rifle squad", "squad", status="encircled")
    with pytest.raises(ActionRefused, match=r"Morale.*Rifle squad names none"):
        roll(players, "british", "encircled_1tc", odd)
    assert not Roll.objects.filter(table_id="encircled_1tc").exists()


def test_3_606_row_9_an_mmc_replaced_is_marked_until_its_owner_renames_it(
    users, modules, fixed_dice
):
    """3.606 Infantry "9 Escapes; Replaced [2,3]": the seed prints no MMC Replacement
    counters (A19.13), so a squad whose Escape DR gives 9 is not left silently as it
    was: it is marked "to be Replaced by its next lower quality counter", in the roll's
    words, until its owner renames its line and clears the marker (once the step has
    ended: until then it stays as the roll left it)."""
    from tests.test_rule_mechanisms import edit

    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.606")
    squad = add(players, "axis", "4-6-7", "squad", status="isolated")
    fixed_dice.append([3, 4])  # 7 +1 (a squad) +2 Isolated -1 Night = 9
    r = roll(players, "axis", "escape", squad)
    assert r.final == 9
    assert unit_names(players, "axis") == [("4-6-7", "squad", "replace_due", 1)]
    said = Event.objects.filter(campaign_id=players.campaign_id, kind="roll").last().text
    assert "to be Replaced by its next lower quality counter (A19.13)" in said
    players.finish()  # the line stays as the roll left it until the step ends
    squad.refresh_from_db()
    edit(players, "axis", squad, "ok", name="4-4-7")
    assert unit_names(players, "axis") == [("4-4-7", "squad", "ok", 1)]


def test_3_613_dagger_the_subsequent_dr_only_after_shifted_with_casualties_and_owed(
    users, modules, fixed_dice
):
    """3.613 "11 | Shifted with Casualties†", footnote † "Each Personnel unit suffers
    Casualty Reduction on a subsequent dr of >= 4 ... Roll separately for each unit":
    the subsequent dr is refused for a unit that made no Shift DR, or whose DR was not
    11 (before, any unit could roll it); after a stack's DR of 11, Done waits for a dr
    for each of its units."""
    from campaign.selectors import module_of, owed_rolls

    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.613")
    squad = add(players, "axis", "4-6-7", "squad")
    leader = add(players, "axis", "8-1 leader", "leader")
    safe = add(players, "axis", "2-4-7", "half_squad")
    idle = add(players, "axis", "4-6-7 #2", "squad")
    fixed_dice.extend([[2, 3]])
    assert roll(players, "axis", "shift", safe).result == "Shifted safely"
    for unit in (safe, idle):
        with pytest.raises(ActionRefused, match=r"only a unit whose Shift gave 11"):
            roll(players, "axis", "shift_casualties", unit)
    fixed_dice.extend([[5, 6]])
    assert roll(players, "axis", "shift", squad, stack=[leader.ref]).final == 11
    c = players.campaign
    owed = [w for t, w in owed_rolls(c, module_of(c), "axis") if t == "shift_casualties"]
    assert owed == ["4-6-7", "8-1 leader"]
    with pytest.raises(ActionRefused, match=r"Roll first"):
        steps.finish_step(campaign_id=players.campaign_id, user=players.users["axis"])
    fixed_dice.extend([[4], [2]])
    roll(players, "axis", "shift_casualties", squad)
    roll(players, "axis", "shift_casualties", leader)
    assert unit_names(players, "axis") == [
        ("2-4-7", "half_squad", "ok", 1),
        ("4-6-7", "squad", "reduced", 1),
        ("4-6-7 #2", "squad", "ok", 1),
        ("8-1 leader", "leader", "ok", 1),
    ]
