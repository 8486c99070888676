"""Sicily 3.6-3.614, the ninth audit pass: pass 8's left items (markers that end,
Battle Hardening of heroic leaders, Low Ammo, Replaced, a captured vehicle's "if
German") and unsampled sentences, each through the services as a player would meet
it (docs/rules-audit/pass-9-sicily-a.md)."""

from __future__ import annotations

import pytest

from campaign.models import Event, Roll
from campaign.services.errors import ActionRefused
from tests import test_rule_mechanisms as mechanisms
from tests.purchase_helpers import add_vehicle, campaign_at
from tests.test_rule_mechanisms import add, roll, unit_names

users = mechanisms.users
fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


def _log(players, rule: str) -> list[str]:
    return list(
        Event.objects.filter(campaign_id=players.campaign_id, text__contains=f"({rule})")
        .order_by("id")
        .values_list("text", flat=True)
    )


def test_3_6062_encircled_markers_are_removed_when_escape_ends(users, modules, fixed_dice):
    """3.6062 "All Encircled markers are now removed": the Escape DR of an Encircled
    squad has its +2 (3.606); completing 3.606 takes the Encircled marker off every
    unit of both sides, each keeping its other markers (an Encircled, wounded leader
    stays wounded); a unit never Encircled is left alone."""
    players, _ = campaign_at("sicily", "i", "jul15pm", users, step="3.606")
    squad = add(players, "axis", "4-6-7", "squad", markers=["encircled"])
    leader = add(players, "british", "8-1", "leader", status="wounded", markers=["encircled"])
    add(players, "british", "4-5-8", "squad", markers=["isolated"])
    fixed_dice.append([2, 3])  # pass 10: a Final 9 would mark it to be Replaced
    r = roll(players, "axis", "escape", squad)
    assert {d["label"]: d["value"] for d in r.drms}["If Encircled (NA to vehicles)"] == 2
    players.finish()
    assert players.step.id != "3.606"
    assert unit_names(players, "axis") == [("4-6-7", "squad", "ok", 1)]
    assert unit_names(players, "british") == [
        ("4-5-8", "squad", "isolated", 1),
        ("8-1", "leader", "wounded", 1),
    ]
    said = _log(players, "3.6062")
    assert len(said) == 2 and all("loses its Encircled marker" in s for s in said)
    leader.refresh_from_db()
    assert leader.has("wounded") and not leader.has("encircled")


def test_3_6113_heroic_leaders_battle_harden_and_lose_heroic_status(users, modules):
    """3.6113 "each Retained Heroic leader Battle Hardens and loses his heroic status
    [EXC: a heroic 10-3 loses his heroic status with no additional effect]": completing
    3.611, a heroic 8-1 becomes a 9-1 (A15.3, the next higher quality), a wounded
    heroic 9-2 a 10-2 still wounded, a heroic 10-3 stays a 10-3; each loses the heroic
    marker; a leader not heroic is not Battle Hardened."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.611")
    add(players, "axis", "8-1 leader", "leader", markers=["heroic"])
    add(players, "axis", "9-2 leader", "leader", status="wounded", markers=["heroic"])
    add(players, "axis", "10-3 leader", "leader", markers=["heroic"])
    add(players, "axis", "8-0 leader", "leader")
    add(players, "british", "7-0 leader", "leader", markers=["heroic"])
    players.finish()
    assert players.step.id != "3.611"
    assert unit_names(players, "axis", kind="leader") == [
        ("10-2 leader", "leader", "wounded", 1),
        ("10-3 leader", "leader", "ok", 1),
        ("8-0 leader", "leader", "ok", 1),
        ("9-1 leader", "leader", "ok", 1),
    ]
    assert unit_names(players, "british", kind="leader") == [("8-0 leader", "leader", "ok", 1)]
    said = _log(players, "3.6113")
    assert any("8-1 leader Battle Hardens: now 9-1 leader" in s for s in said)
    assert not any("10-3 leader Battle Hardens" in s for s in said)
    assert sum("loses its heroic marker" in s for s in said) == 4


def test_3_6141c_an_isolated_afv_kept_under_recall_suffers_ammunition_shortage(users, modules):
    """3.6141c "If Mobile, under Recall, and Isolated, such an AFV begins the next
    scenario under Recall (as well as suffering from Ammunition Shortage; A19.131)":
    completing 3.613, the Mobile, Isolated, Recalled StuG is marked Low Ammo and stays
    Recalled; the non-Isolated one leaves Recall and gets no Low Ammo; an Immobilized
    one is not Mobile and gets none."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.613")
    cut_off, _ = add_vehicle(players, "axis", "StuG IIIG", status="recalled", markers=["isolated"])
    free, _ = add_vehicle(players, "axis", "StuG IIIG #2", status="recalled")
    stuck, _ = add_vehicle(
        players, "axis", "StuG IIIG #3", status="recalled", markers=["isolated", "immobilized"]
    )
    players.finish()
    assert players.step.id == "3.614"
    for unit in (cut_off, free, stuck):
        unit.refresh_from_db()
    assert cut_off.state.marked == {"isolated", "recalled", "low_ammo"}
    assert free.state.marked == {"ok"}
    assert "low_ammo" not in stuck.state.marked


def test_3_61425_low_ammo_is_removed_from_each_non_captured_non_isolated_vehicle(users, modules):
    """3.61425 "Each Low Ammo marker on each non-captured, non-Isolated vehicle is
    removed": completing 3.614, a vehicle marked Low Ammo loses it (its other markers
    kept); an Isolated one and a captured one keep it."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.614")
    freed, _ = add_vehicle(players, "axis", "PzKpfw IVH", status="low_ammo", markers=["recalled"])
    cut_off, _ = add_vehicle(
        players, "axis", "PzKpfw IVH #2", status="low_ammo", markers=["isolated"]
    )
    taken, _ = add_vehicle(
        players, "british", "PzKpfw IIIN", status="low_ammo", markers=["captured"]
    )
    players.finish()
    assert players.step.id != "3.614"
    for unit in (freed, cut_off, taken):
        unit.refresh_from_db()
    assert freed.state.marked == {"recalled"}
    assert cut_off.state.marked == {"isolated", "low_ammo"}
    assert taken.state.marked == {"captured", "low_ammo"}
    said = _log(players, "3.61425")
    assert (
        len(said) == 1
        and "PzKpfw IVH loses its Low Ammo (Ammunition Shortage, A19.131) marker" in said[0]
    )


def test_3_606_row_9_replaced_a_leader_becomes_the_next_lower_quality(users, modules, fixed_dice):
    """3.606 Infantry "9 Escapes; Replaced" (A19.13): the Escape DR of an 8-1 leader
    with a Final 9 Replaces him by an 8-0 on his line; a 6+1, none lower, escapes as he
    is; a squad's 9 leaves its line to its owner (its lower counter depends on
    nationality and class, which the seed does not print)."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.606")
    leader = add(players, "axis", "8-1 leader", "leader")
    lowest = add(players, "axis", "6+1 leader", "leader")
    squad = add(players, "axis", "4-6-7", "squad")
    # The date is still the Night of July 14 (3.612 comes later): -1 if Night, and +1
    # for the squad (two HS-equivalents).
    fixed_dice.extend([[5, 5], [5, 5], [4, 5]])
    assert roll(players, "axis", "escape", leader).final == 9
    assert roll(players, "axis", "escape", lowest).final == 9
    assert roll(players, "axis", "escape", squad).final == 9
    assert unit_names(players, "axis") == [
        ("4-6-7", "squad", "replace_due", 1),  # pass 10: marked for its owner
        ("6+1 leader", "leader", "ok", 1),
        ("8-0 leader", "leader", "ok", 1),
    ]


def test_3_6141d_if_german_is_refused_for_a_captured_vehicle(users, modules, fixed_dice):
    """3.6141d "+1 if German": a vehicle the Axis holds as captured is the enemy's
    (3.6071), never German, so the tick is refused for it, nothing rolled; an Axis
    vehicle of no RG and not captured may still be ticked German."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.614")
    taken = add(
        players, "axis", "Sherman III(a)", "vehicle", status="stunned", markers=["captured"]
    )
    own = add(players, "axis", "PzKpfw IVH", "vehicle", status="stunned")
    with pytest.raises(ActionRefused, match=r"\(3\.6141d\)"):
        roll(players, "axis", "stun_recovery", taken, ticked=["german_no_rg"])
    assert not Roll.objects.filter(table_id="stun_recovery").exists()
    fixed_dice.extend([[3], [3]])
    assert roll(players, "axis", "stun_recovery", taken).drms == []
    r = roll(players, "axis", "stun_recovery", own, ticked=["german_no_rg"])
    assert [d["value"] for d in r.drms] == [1]


def test_3_606_only_a_mobile_vehicle_on_the_map_makes_an_escape_dr(users, modules):
    """3.606's Escape columns are "Infantry" and "Mobile Vehicle" (3.6051: "Each manned,
    Immobile vehicle ... becomes Abandoned, and its crew (if any) must attempt Escape"):
    the Escape DR of an immobilized vehicle, of an Abandoned one, and of a squad
    withdrawn off map (3.60742) is refused, nothing rolled; a Mobile vehicle rolls."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.606")
    stuck = add(players, "axis", "StuG IIIG", "vehicle", status="immobilized")
    left = add(players, "axis", "StuG IIIG #2", "vehicle", status="abandoned")
    away = add(players, "axis", "4-6-7", "squad", status="withdrawn")
    for unit in (stuck, left, away):
        with pytest.raises(ActionRefused) as refused:
            roll(players, "axis", "escape", unit)
        assert refused.value.status == 400 and "3.606" in str(refused.value)
    assert not Roll.objects.filter(table_id="escape").exists()
    mobile = add(players, "axis", "StuG IIIG #3", "vehicle")
    roll(players, "axis", "escape", mobile)


def test_3_6061_a_unit_that_escapes_is_no_longer_isolated_nor_its_equipment(
    users, modules, fixed_dice
):
    """3.6061 "If a unit survives the Escape attempt, it and all Equipment it took with
    it are Retained into a friendly Setup Area": an Isolated squad whose Escape DR
    escapes loses its Isolated marker, and so does the LMG it possesses; an Isolated
    vehicle Abandoned by its DR (row 9, "in current hex") stays Isolated."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.606")
    squad = add(players, "axis", "4-6-7", "squad", status="isolated")
    lmg = add(players, "axis", "LMG", "sw", status="isolated", possessor=squad.ref)
    tank = add(players, "axis", "PzKpfw IVH", "vehicle", status="isolated")
    # 5 +2 Isolated +1 (a squad is two HS) -1 Night = 7: Escapes.
    # 7 +2 Isolated (Night NA to vehicles) = 9: Abandoned.
    fixed_dice.extend([[2, 3], [3, 4]])
    r = roll(players, "axis", "escape", squad)
    assert r.final == 7
    assert roll(players, "axis", "escape", tank).final == 9
    for unit in (squad, lmg, tank):
        unit.refresh_from_db()
    assert squad.state.marked == {"ok"} and lmg.state.marked == {"ok"}
    assert tank.state.marked == {"isolated", "abandoned"}
    said = _log(players, "3.6061")
    assert len(said) == 1 and "loses its isolated marker" in said[0] and "LMG" in said[0]


def test_3_606_12_all_units_and_equipment_eliminated_takes_the_sw_it_possesses(
    users, modules, fixed_dice
):
    """3.606 Infantry ">= 12 All units and Equipment Eliminated": the squad whose Escape
    DR gives 12 leaves the retained forces, and the LMG it possesses with it (before,
    the LMG was left unpossessed on the retained forces); another side's SW stays."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.606")
    squad = add(players, "axis", "4-6-7", "squad")
    add(players, "axis", "LMG", "sw", possessor=squad.ref)
    add(players, "axis", "MMG", "sw")
    fixed_dice.append([6, 6])  # 12 +1 (a squad is two HS) -1 Night = 12
    r = roll(players, "axis", "escape", squad)
    assert r.final == 12
    assert unit_names(players, "axis") == [("MMG", "sw", "ok", 1)]
    assert "LMG Eliminated with it" in _log_roll(players)


def _log_roll(players) -> str:
    return Event.objects.filter(campaign_id=players.campaign_id).order_by("-id")[0].text


def test_3_61426_only_british_tanks_attempt_escape_at_night(users, modules):
    """3.61426 "all mobile Isolated British Tanks must now attempt Escape": on a Night CG
    Date the Isolated Sherman owes its Escape DR; an Isolated Daimler armoured car and
    a Carrier are no tanks: they owe none and are refused one, nothing rolled."""
    from campaign.selectors import module_of, owed_rolls

    players, _ = campaign_at("sicily", "i", "jul15n", users, step="3.614")
    add(players, "british", "Sherman III(a)", "vehicle", status="isolated")
    car = add(players, "british", "Daimler AC", "vehicle", status="isolated")
    carrier = add(players, "british", "Carrier A", "vehicle", status="isolated")
    c = players.campaign
    owed = [what for table, what in owed_rolls(c, module_of(c), "british")]
    assert owed == ["Sherman III(a)"]
    for unit in (car, carrier):
        with pytest.raises(ActionRefused, match=r"\(3\.61426\)"):
            roll(players, "british", "tank_escape", unit)
    assert not Roll.objects.filter(table_id="tank_escape").exists()


def test_3_6141_3_6142_a_weapon_or_vehicle_withdrawn_off_map_owes_no_repair_dr(users, modules):
    """3.6141 "for each vehicle in a friendly Setup/", 3.6142 "each malfunctioned,
    non-Captured, Retained Weapon in each friendly Setup/": a malfunctioned LMG and a
    stunned vehicle withdrawn off map (3.60742) are in no Setup Area: they owe no dr
    (Done is not held for them) and are refused one; the same LMG on the map owes it."""
    from campaign.selectors import module_of, owed_rolls

    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.614")
    away = add(players, "axis", "LMG", "sw", status="malfunctioned", markers=["withdrawn"])
    gone = add(players, "axis", "PzKpfw IIIN", "vehicle", status="stunned", markers=["withdrawn"])
    c = players.campaign
    assert owed_rolls(c, module_of(c), "axis") == ()
    with pytest.raises(ActionRefused, match=r"\(3\.6142\)"):
        roll(players, "axis", "weapon_repair", away, typed={"repair_number": -1})
    with pytest.raises(ActionRefused, match=r"\(3\.6141d\)"):
        roll(players, "axis", "stun_recovery", gone)
    add(players, "axis", "LMG", "sw", status="malfunctioned")
    assert [t for t, _ in owed_rolls(c, module_of(c), "axis")] == ["weapon_repair"]


def test_3_613_shift_results_apply_to_the_unit_named(users, modules, fixed_dice):
    """3.613 Shift: the DR is made for a unit of the retained forces (a stack's one DR
    named for one of its units), once: ">= 12 All units, Inherent Crews and Equipment
    Eliminated" removes the squad and the LMG it possesses; "Shifted safely" leaves a
    leader as he is and he makes no second Shift DR; an immobilized vehicle cannot
    shift and is refused, nothing rolled."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.613")
    squad = add(players, "axis", "4-6-7", "squad")
    add(players, "axis", "LMG", "sw", possessor=squad.ref)
    leader = add(players, "axis", "8-1 leader", "leader")
    stuck = add(players, "axis", "StuG IIIG", "vehicle", status="immobilized")
    with pytest.raises(ActionRefused, match=r"\(3\.613\)"):
        roll(players, "axis", "shift", stuck)
    assert not Roll.objects.filter(table_id="shift").exists()
    fixed_dice.extend([[6, 6], [3, 3]])
    assert roll(players, "axis", "shift", squad).final == 12
    assert roll(players, "axis", "shift", leader).final == 6
    assert unit_names(players, "axis") == [
        ("8-1 leader", "leader", "ok", 1),
        ("StuG IIIG", "vehicle", "immobilized", 1),
    ]
    with pytest.raises(ActionRefused, match=r"Shift"):
        roll(players, "axis", "shift", leader)


def test_3_606_casualty_reduced_by_the_units_kind(users, modules, fixed_dice):
    """3.606 Infantry "10 Escapes; Casualty Reduced": a squad is reduced, a HS is
    eliminated, a leader is wounded, a wounded leader and a squad already reduced are
    eliminated (before, each was marked "casualty reduced", a leader and a HS too)."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.606")
    squad = add(players, "axis", "4-6-7", "squad")
    half = add(players, "axis", "2-4-7", "half_squad")
    leader = add(players, "axis", "8-1 leader", "leader")
    hurt = add(players, "axis", "9-1 leader", "leader", status="wounded")
    reduced = add(players, "axis", "4-4-7", "squad", status="reduced")
    # The Night -1 (the RePh after July 14 Night); +1 a squad, +1 a wounded leader.
    fixed_dice.extend([[5, 5], [5, 6], [5, 6], [5, 5], [5, 5]])
    for unit in (squad, half, leader, hurt, reduced):
        assert roll(players, "axis", "escape", unit).final == 10
    assert unit_names(players, "axis") == [
        ("4-6-7", "squad", "reduced", 1),
        ("8-1 leader", "leader", "wounded", 1),
    ]


def test_3_613_dagger_casualty_reduction_wounds_a_leader_and_eliminates_a_hs(
    users, modules, fixed_dice
):
    """3.613 footnote † "Each Personnel unit suffers Casualty Reduction on a subsequent dr
    of >= 4": a leader's 4 wounds him, a HS's 4 eliminates it."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.613")
    leader = add(players, "axis", "8-1 leader", "leader")
    half = add(players, "axis", "2-4-7", "half_squad")
    # Pass 10: the subsequent dr follows a Shift DR of 11 (the stack's).
    fixed_dice.extend([[5, 6], [4], [4]])
    roll(players, "axis", "shift", leader, stack=[half.ref])
    roll(players, "axis", "shift_casualties", leader)
    roll(players, "axis", "shift_casualties", half)
    assert unit_names(players, "axis") == [("8-1 leader", "leader", "wounded", 1)]
