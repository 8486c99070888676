"""Sicily (seed 001), RePh 3.601-3.614, the twelfth pass of the sentence audit (issue
44): the left items of passes 10 and 11 and sentences no earlier pass doc quotes, each
tried through the services as two players meet them (docs/rules-audit/pass-12-sica12.md)."""

from __future__ import annotations

import pytest

from campaign.models import Event, Roll
from campaign.services import steps, units
from campaign.services.errors import ActionRefused
from tests import test_rule_mechanisms as mechanisms
from tests.purchase_helpers import campaign_at
from tests.test_rule_mechanisms import add, roll, unit_names

users = mechanisms.users
fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


def _said(players) -> str:
    return Event.objects.filter(campaign_id=players.campaign_id, kind="roll").last().text


def _drms(r: Roll) -> dict[str, tuple[int, str]]:
    return {d["label"]: (d["value"], d["how"]) for d in r.drms}


# --------------------------------------------------------------------------- Part 1


def test_3_6141d_plus_1_if_german_is_computed_for_a_stug_added_by_hand(users, modules, fixed_dice):
    """3.6141d Stun Recovery "+1 if German": a StuG IIIG the Axis added by hand (its OB,
    no RG bought) is the counter of the chart's German V1 (no italian tag), so the +1
    applies by itself, as for a StuG of V1; ticking it besides is refused."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.614")
    stug = add(players, "axis", "StuG IIIG", "vehicle", status="stunned")
    with pytest.raises(ActionRefused):
        roll(players, "axis", "stun_recovery", stug, ticked=["german_no_rg"])
    assert not Roll.objects.filter(table_id="stun_recovery").exists()
    fixed_dice.append([1])
    r = roll(players, "axis", "stun_recovery", stug)
    assert _drms(r) == {"if German": (1, "auto")}, r.drms
    assert r.final == 2
    assert unit_names(players, "axis") == [("StuG IIIG", "vehicle", "ok", 1)]


def test_3_6141d_a_vehicle_no_chart_row_names_is_still_ticked_and_never_british(
    users, modules, fixed_dice
):
    """3.6141d: a hand-added Axis vehicle whose counter no Axis RG row names (an Italian
    or German vehicle of the OB, "Semovente 75/18") has no nationality on the record:
    the Axis player ticks "+1 if German" for it; the British never have it, even for a
    hand-added StuG IIIG (a captured one is the enemy's, 3.6071)."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.614")
    sem = add(players, "axis", "Semovente 75/18", "vehicle", status="stunned")
    fixed_dice.append([1])
    r = roll(players, "axis", "stun_recovery", sem, ticked=["german_no_rg"])
    assert _drms(r) == {"if German (a vehicle not of an RG)": (1, "ticked")}, r.drms
    stug = add(players, "british", "StuG IIIG", "vehicle", status="stunned", markers=["captured"])
    fixed_dice.append([1])
    r = roll(players, "british", "stun_recovery", stug)
    assert r.drms == [] and r.final == 1


def test_3_606_row_11_a_leader_is_replaced_then_casualty_reduced(users, modules, fixed_dice):
    """3.606 Infantry "11 Escapes; Replaced, then Casualty Reduced": an Isolated 8-1
    whose Escape DR is 11 is Replaced by an 8-0 (A19.13), and the 8-0 is then Casualty
    Reduced: wounded.  (Before, the 8-1 was only wounded, not Replaced.)"""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.606")
    leader = add(players, "axis", "8-1 leader", "leader", status="isolated")
    fixed_dice.append([4, 6])  # 10 +2 Isolated -1 Night = 11
    assert roll(players, "axis", "escape", leader).final == 11
    assert unit_names(players, "axis") == [("8-0 leader", "leader", "wounded", 1)]
    assert "replaced by a 8-0 leader" in _said(players), _said(players)


def test_3_606_row_11_a_squad_is_marked_to_be_replaced_and_reduced(users, modules, fixed_dice):
    """3.606 row 11 "Replaced, then Casualty Reduced" for an MMC: a 4-6-7 is marked to
    be Replaced by its next lower quality counter (A19.13; the seed prints none) and
    Casualty Reduced (to a HS); a 2-4-7 HS, Replaced then Casualty Reduced, is
    Eliminated."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.606")
    squad = add(players, "axis", "4-6-7", "squad", status="isolated")
    fixed_dice.append([4, 5])  # 9 +1 (a squad) +2 Isolated -1 Night = 11
    assert roll(players, "axis", "escape", squad).final == 11
    assert unit_names(players, "axis") == [("4-6-7", "squad", "reduced, replace_due", 1)]
    said = _said(players)
    assert "to be Replaced by its next lower quality counter (A19.13)" in said, said
    assert "casualty reduced" in said, said
    hs = add(players, "axis", "2-4-7", "half_squad", status="isolated")
    fixed_dice.append([5, 5])  # 10 +2 Isolated -1 Night = 11
    assert roll(players, "axis", "escape", hs).final == 11
    assert ("2-4-7", "half_squad") not in {n[:2] for n in unit_names(players, "axis")}


# --------------------------------------------------------------------------- Part 2


def test_3_610_minus_1_if_british_airborne_can_be_claimed_for_a_leader_added_by_hand(
    users, modules, fixed_dice
):
    """3.610 drm "-1 if part of British Airborne RG": a wounded British leader added by
    hand (the Initial Scenario OB's airborne leader) has no RG on the record, so his
    owner ticks it; the Axis is refused it; a leader the British bought with an RG
    has it (or not) by his RG's tag, never ticked."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.610")
    para = add(players, "british", "8-1", "leader", status="wounded")
    fixed_dice.append([3])
    r = roll(players, "british", "wounded_leaders", para, ticked=["british_airborne_no_rg"])
    assert _drms(r) == {"if part of British Airborne RG (a leader not of an RG)": (-1, "ticked")}
    assert r.final == 2 and r.result == "Retained wounded"
    axis = add(players, "axis", "8-1", "leader", status="wounded")
    with pytest.raises(ActionRefused, match=r"3\.610"):
        roll(players, "axis", "wounded_leaders", axis, ticked=["british_airborne_no_rg"])


def test_3_6141b_immobilization_repair_only_for_non_captured_non_abandoned_and_owed(
    users, modules, fixed_dice
):
    """3.6141b "Each non-Captured, non-Abandoned, immobilized vehicle must make a dr":
    a captured and an Abandoned immobilized vehicle are refused the dr, citing the rule;
    Done without the dr owed for the Axis's own immobilized StuG is refused."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.614")
    captured = add(
        players, "axis", "Sherman III(a)", "vehicle", status="immobilized", markers=["captured"]
    )
    left = add(
        players, "axis", "PzKpfw IVH", "vehicle", status="immobilized", markers=["abandoned"]
    )
    for unit in (captured, left):
        with pytest.raises(ActionRefused, match=r"3\.6141b"):
            roll(players, "axis", "immobilization_repair", unit)
    add(players, "axis", "StuG IIIG", "vehicle", status="immobilized")
    with pytest.raises(ActionRefused, match=r"Roll first"):
        steps.finish_step(campaign_id=players.campaign_id, user=players.users["axis"])
    assert not Roll.objects.filter(table_id="immobilization_repair").exists()


def test_3_6142_a_captured_malfunctioned_weapon_owes_no_repair_dr(users, modules, fixed_dice):
    """3.6142 "a separate dr ... for each malfunctioned, non-Captured, Retained Weapon":
    a captured malfunctioned LMG is refused the dr; the Axis's own malfunctioned MMG
    rolls, and its Repair Number is typed (-x), never ticked."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.614")
    theirs = add(players, "axis", "LMG", "sw", status="malfunctioned", markers=["captured"])
    with pytest.raises(ActionRefused, match=r"3\.6142"):
        roll(players, "axis", "weapon_repair", theirs, typed={"repair_number": -2})
    mmg = add(players, "axis", "MMG", "sw", status="malfunctioned")
    fixed_dice.append([2])
    r = roll(players, "axis", "weapon_repair", mmg, typed={"repair_number": -2})
    assert r.final == 0 and r.result == "Repaired"
    assert ("MMG", "sw", "ok", 1) in unit_names(players, "axis")


def test_3_61424_exc_british_weapons_before_july_15_am(users, modules):
    """3.61424 "[EXC: British weapons prior to July 15 AM CG Date]": on July 14 Night the
    British 6-pdr's special ammo dr is refused citing the EXC; the Axis's PaK on the
    same date rolls."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, step="3.614")
    gun = add(players, "british", "OQF 6-Pounder", "gun")
    with pytest.raises(ActionRefused, match=r"3\.61424"):
        roll(players, "british", "special_ammo", gun, item="APDS")
    pak = add(players, "axis", "75L PaK 40", "gun")
    assert roll(players, "axis", "special_ammo", pak, item="APCR").final is not None


def test_3_6122_a_san_below_2_is_raised_without_cpp(users, modules):
    """3.6122 "A side whose SAN is currently < 2 has it automatically raised to 2 (no CPP
    expenditure is necessary)": the Axis SAN 1 is 2 at the step, its CPP unchanged."""
    from tests.test_rule_mechanisms import result_values, seat, start

    players, module = start("sicily", "i", users, "axis")
    players.results(**result_values(module, san_axis=1, san_british=6))
    before = seat(players, "axis").points
    players.until_step("3.6122")
    assert seat(players, "axis").san == 2
    assert seat(players, "axis").points == before


def test_3_606_excess_pp_is_typed_not_below_0_and_na_to_a_vehicle(users, modules, fixed_dice):
    """3.606 "+1 per PP > IPC being carried ... *" (* NA to vehicle Escape): a negative
    count is refused, and so is the DRM for a vehicle; a squad carrying 2 PP beyond
    its IPC rolls +2."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.606")
    squad = add(players, "axis", "4-6-7", "squad", status="isolated")
    tank = add(players, "axis", "StuG IIIG", "vehicle", status="isolated")
    with pytest.raises(ActionRefused, match=r"3\.606"):
        roll(players, "axis", "escape", squad, typed={"excess_pp": -1})
    with pytest.raises(ActionRefused, match=r"3\.606"):
        roll(players, "axis", "escape", tank, typed={"excess_pp": 1})
    assert not Roll.objects.filter(table_id="escape").exists()
    fixed_dice.append([1, 2])
    r = roll(players, "axis", "escape", squad, typed={"excess_pp": 2})
    assert _drms(r)["+1 per PP > IPC being carried (NA to vehicles)"] == (2, "typed")


def test_3_606_night_minus_1_by_itself_at_night_only_and_never_for_a_vehicle(
    users, modules, fixed_dice
):
    """3.606 "-1 If current CG Date is Night*" (* NA to vehicle Escape): the RePh's
    current CG Date is the one just played until 3.612 begins the next.  After the
    July 15 AM scenario a squad's Escape DR has no -1; after the July 15 Night one it
    has it by itself, and a vehicle's DR never."""
    players, _ = campaign_at("sicily", "i", "jul15pm", users, step="3.606")
    squad = add(players, "axis", "4-6-7", "squad", status="isolated")
    fixed_dice.append([1, 2])
    assert "If current CG Date is Night (NA to vehicles)" not in _drms(
        roll(players, "axis", "escape", squad)
    )
    night, _ = campaign_at("sicily", "i", "jul16am", users, step="3.606")
    squad = add(night, "axis", "4-6-7", "squad", status="isolated")
    tank = add(night, "axis", "StuG IIIG", "vehicle", status="isolated")
    fixed_dice.extend([[1, 2], [1, 2]])
    night_drm = _drms(roll(night, "axis", "escape", squad))
    assert night_drm["If current CG Date is Night (NA to vehicles)"] == (-1, "auto")
    assert "If current CG Date is Night (NA to vehicles)" not in _drms(
        roll(night, "axis", "escape", tank)
    )


def test_3_613_a_gun_may_shift_a_withdrawn_or_immobile_unit_may_not(users, modules, fixed_dice):
    """3.613 Shift with 3.6055 "Each Gun must (for now; see ... 3.613) remain in its
    current Location": a Gun may make a Shift DR; a unit withdrawn off map (3.60742) and
    an immobilized vehicle are refused, citing 3.613; a unit's second Shift DR too."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.613")
    gun = add(players, "axis", "75L PaK 40", "gun")
    off = add(players, "axis", "4-6-7", "squad", status="withdrawn")
    stuck = add(players, "axis", "StuG IIIG", "vehicle", status="immobilized")
    for unit in (off, stuck):
        with pytest.raises(ActionRefused, match=r"3\.613"):
            roll(players, "axis", "shift", unit)
    fixed_dice.append([3, 3])
    assert roll(players, "axis", "shift", gun).result == "Shifted safely"
    with pytest.raises(ActionRefused, match=r"one Shift roll"):
        roll(players, "axis", "shift", gun)


def test_3_6112_a_british_hero_cannot_harden_an_axis_squad(users, modules):
    """3.6112 "On each side, each Retained Hero ... enables that side to Battle Harden one
    non-crew MMC of the owner's choice": the British Hero cannot mark an Axis squad;
    nothing changes on either side."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.611")
    hero = add(players, "british", "Hero 1-4-9", "hero")
    squad = add(players, "axis", "4-6-7", "squad")
    with pytest.raises(ActionRefused):
        units.exchange_unit(
            campaign_id=players.campaign_id,
            user=players.users["british"],
            give_id=hero.ref,
            mark_id=squad.ref,
        )
    assert unit_names(players, "axis") == [("4-6-7", "squad", "ok", 1)]
    assert unit_names(players, "british") == [("Hero 1-4-9", "hero", "ok", 1)]


def test_3_61421_the_lmg_given_up_must_be_in_a_setup_area_not_withdrawn(users, modules, fixed_dice):
    """3.61421 "by Eliminating a friendly SW LMG. In all cases, the MG to be Eliminated
    must be Retained within the same Setup/[Entry Area]": an LMG withdrawn off map
    (3.60742) is in no Setup Area, so it cannot repair the StuG's disabled AAMG, nor
    can a withdrawn StuG's MG be repaired; refused in words, nothing changed.  An MG
    Disabled by its 3.6142 dr at this step may be (even if disabled in step 3.6142)."""
    from tests.purchase_helpers import add_vehicle
    from tests.test_roster_rules import exchange

    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.614")
    tank, (aamg,) = add_vehicle(players, "axis", "StuG IIIG", ("mg", ["malfunctioned"], "AAMG"))
    fixed_dice.append([6])  # 6 -1 vehicular -1 Repair Number: Disabled at this step
    r = roll(players, "axis", "vehicular_mg_repair", tank, weapon=aamg, typed={"repair_number": -1})
    assert r.result.startswith("Disabled")
    away, (away_mg,) = add_vehicle(
        players, "axis", "StuG IIIG", ("mg", ["disabled"], "AAMG"), status="withdrawn"
    )
    off = add(players, "axis", "LMG", "sw", status="withdrawn")
    lmg = add(players, "axis", "LMG", "sw")
    with pytest.raises(ActionRefused, match=r"LMG cannot repair it: .*\(3\.61421\)"):
        exchange(players, "axis", tank, aamg, off)
    with pytest.raises(ActionRefused, match=r"not a weapon this exchange repairs \(3\.61421\)"):
        exchange(players, "axis", away, away_mg, lmg)
    assert unit_names(players, "axis").count(("LMG", "sw", "ok", 1)) == 1
    exchange(players, "axis", tank, aamg, lmg)
    tank.refresh_from_db()
    assert [w["markers"] for w in tank.weapons] == [[]]


def test_3_6041_exc_prisoner_a_captured_or_withdrawn_unit_takes_no_1tc(users, modules):
    """3.6041 "Each encircled unit [EXC: Prisoner] must take a separate 1TC": a captured
    Encircled squad (a prisoner) and one withdrawn off map are refused the 1TC citing
    3.6041, and Done does not wait for them."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.604")
    prisoner = add(players, "axis", "4-6-7", "squad", status="encircled", markers=["captured"])
    off = add(players, "axis", "4-4-7", "squad", status="encircled", markers=["withdrawn"])
    for unit in (prisoner, off):
        with pytest.raises(ActionRefused, match=r"3\.6041"):
            roll(players, "axis", "encircled_1tc", unit)
    steps.finish_step(campaign_id=players.campaign_id, user=players.users["axis"])
    assert not Roll.objects.filter(table_id="encircled_1tc").exists()


def test_3_6112_exc_a_heroic_leader_is_not_a_hero_given_up(users, modules):
    """3.6112 "each Retained Hero [EXC: Heroic Leader; 3.6113] is Eliminated": a leader
    marked heroic cannot be given up for a Battle Hardened squad (refused, citing
    3.6112); a Hero can, once, for one non-crew MMC."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.611")
    heroic = add(players, "axis", "8-1 leader", "leader", status="heroic")
    hero = add(players, "axis", "Hero 1-4-9", "hero")
    squad = add(players, "axis", "4-6-7", "squad")

    def give(unit):
        units.exchange_unit(
            campaign_id=players.campaign_id,
            user=players.users["axis"],
            give_id=unit.ref,
            mark_id=squad.ref,
        )

    with pytest.raises(ActionRefused, match=r"3\.6112"):
        give(heroic)
    give(hero)
    assert unit_names(players, "axis") == [
        ("4-6-7", "squad", "battle_hardened", 1),
        ("8-1 leader", "leader", "heroic", 1),
    ]


def test_3_6042_an_infantry_unit_in_an_ap_minefield_takes_a_ntc_and_is_casualty_reduced(
    users, modules, fixed_dice
):
    """3.6042 "Each Infantry unit in an A-P minefield hex ... must take a NTC (leader's
    DRM can apply); failure of the TC causes Casualty Reduction": at 3.604 the owner
    makes the NTC for a unit he names; its Morale is read from the counter (4-6-7: 7),
    a DR of 8 fails and the squad is Casualty Reduced; the 8-1's DR 8 with a leader's
    -1 typed passes; a second NTC for the squad and one for a vehicle are refused; Done
    does not wait for a NTC (who stands in a minefield is the map's)."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.604")
    squad = add(players, "axis", "4-6-7", "squad")
    leader = add(players, "axis", "8-1 leader", "leader")
    tank = add(players, "axis", "StuG IIIG", "vehicle")
    fixed_dice.extend([[4, 4], [4, 4]])
    r = roll(players, "axis", "minefield_ntc", squad)
    assert (r.final, r.result) == (1, "Fails: Casualty Reduction")
    r = roll(players, "axis", "minefield_ntc", leader, typed={"leadership": -1})
    assert r.final == 8 - 8 - 1 and r.result == "Passes"
    for unit in (squad, tank):
        with pytest.raises(ActionRefused, match=r"3\.6042|one Minefield NTC roll"):
            roll(players, "axis", "minefield_ntc", unit)
    assert unit_names(players, "axis") == [
        ("4-6-7", "squad", "reduced", 1),
        ("8-1 leader", "leader", "ok", 1),
        ("StuG IIIG", "vehicle", "ok", 1),
    ]
    steps.finish_step(campaign_id=players.campaign_id, user=players.users["axis"])


def test_3_604_the_step_says_when_an_encircled_crew_fails_and_who_takes_the_ntc(
    users, modules, client
):
    """3.6041 "[EXC: Encircled PRC of an Immobile vehicle are Eliminated, leaving the
    vehicle Abandoned]" and 3.6042's EXC are the map's (Refit keeps no crews inside
    vehicles, nor minefields): the step's page carries both conditions in words."""
    import html

    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.604")
    client.force_login(players.users["axis"])
    page = html.unescape(client.get(f"/campaigns/{players.campaign_id}/").content.decode())
    assert (
        "the Encircled crew of an Immobile vehicle is Eliminated and the vehicle left Abandoned"
        in page
    )
    assert "unless it could exit the hex without being attacked" in page
    assert "Minefield NTC" in page


def test_3_606_footnote_1_random_selection_picks_the_unit_with_heat_of_battle(
    users, modules, fixed_dice
):
    """3.606 footnote 1 "An Original 2 DR results in Escape and Heat of Battle for an
    eligible unit (A15); use Random Selection to determine the unit(s) affected in a
    stack": an Isolated 4-6-7 and 8-1 make one Escape DR, an Original 2; both escape
    (no longer Isolated, 3.6061) and the app's dice pick the one with Heat of Battle."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.606")
    squad = add(players, "axis", "4-6-7", "squad", status="isolated")
    leader = add(players, "axis", "8-1 leader", "leader", status="isolated")
    fixed_dice.extend([[1, 1], [3], [6]])  # Original 2; dr 3 and 6
    r = roll(players, "axis", "escape", squad, stack=[leader.ref])
    assert r.result.startswith("Infantry: Escapes and Heat of Battle")
    assert unit_names(players, "axis") == [
        ("4-6-7", "squad", "ok", 1),
        ("8-1 leader", "leader", "ok", 1),
    ]
    picks = Roll.objects.filter(purpose__startswith="Random Selection").order_by("seq")
    assert [(p.item, p.final) for p in picks] == [("4-6-7", 3), ("8-1 leader", 6)]
    said = _said(players)
    assert "Random Selection picks 8-1 leader" in said, said
    assert "8-1 leader has the Heat of Battle (A15), on the map" in said, said


def _page(client, players, side) -> str:
    import html

    client.force_login(players.users[side])
    return html.unescape(client.get(f"/campaigns/{players.campaign_id}/").content.decode())


@pytest.mark.parametrize(("san", "owed"), [(4, True), (3, False)])
def test_3_6122_a_san_of_4_owes_a_dr_with_plus_0_a_san_of_3_none(
    users, modules, fixed_dice, san, owed
):
    """3.6122 "If a side has a SAN ≥ 4, a SAN adjustment dr must be made with a +drm
    equal to the current SAN minus 4": the British SAN 4 owes the dr (its drm +0; a dr
    5 takes the SAN to 2); a SAN 3 owes none and is refused one."""
    from tests.test_rule_mechanisms import result_values, seat, start

    players, module = start("sicily", "i", users, "axis")
    players.results(**result_values(module, san_axis=6, san_british=san))
    players.until_step("3.6122")
    fixed_dice.append([5])
    if owed:
        assert "british" in players.waiting()
        r = roll(players, "british", "san_adjustment")
        assert r.final == 5 and seat(players, "british").san == 2
    else:
        assert "british" not in players.waiting()
        with pytest.raises(ActionRefused):
            roll(players, "british", "san_adjustment")
        assert seat(players, "british").san == 3


def test_3_610_an_evacuated_leaders_sw_stays_unpossessed(users, modules, fixed_dice):
    """3.610 "≥ 5 Eliminated (evacuated)": the wounded 8-1's dr 5 removes him from the
    retained forces; the LMG he possessed stays, not possessed (the Equipment is not
    evacuated with him)."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.610")
    leader = add(players, "axis", "8-1 leader", "leader", status="wounded")
    add(players, "axis", "LMG", "sw", possessor=leader.ref)
    fixed_dice.append([5])
    r = roll(players, "axis", "wounded_leaders", leader)
    assert r.result == "Eliminated (evacuated)"
    assert unit_names(players, "axis") == [("LMG", "sw", "unpossessed", 1)]


def test_3_6141d_six_or_more_eliminates_a_withdrawn_vehicle_owes_no_dr(users, modules, fixed_dice):
    """3.6141d "≥ 6 Eliminated", "+1 if Isolated", "+1 if German": an Isolated StuG IIIG
    added by hand (the German V1's counter), dr 4 +2 = 6, is Eliminated; a stunned StuG
    withdrawn off map (3.60742: in no Setup Area) is refused the dr."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.614")
    stug = add(players, "axis", "StuG IIIG", "vehicle", status="stunned", markers=["isolated"])
    away = add(players, "axis", "StuG IIIG", "vehicle", status="stunned", markers=["withdrawn"])
    with pytest.raises(ActionRefused, match=r"3\.6141d"):
        roll(players, "axis", "stun_recovery", away)
    fixed_dice.append([4])
    r = roll(players, "axis", "stun_recovery", stug)
    assert (r.final, r.result) == (6, "Eliminated")
    assert unit_names(players, "axis") == [("StuG IIIG", "vehicle", "stunned, withdrawn", 1)]


def test_3_613_the_page_says_the_road_drm_is_na_between_entry_areas(users, modules, client):
    """3.613 "-1 If that entire path can be traced on road hexes‡" with "‡ Not
    applicable to a Shift from one Entry Area to another": which Areas a Shift joins is
    the map's, so the Shift's page prints the footnote beside the DRM."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.613")
    add(players, "axis", "4-6-7", "squad")
    page = _page(client, players, "axis")
    assert "If that entire path can be traced on road hexes" in page
    assert "Not applicable to a Shift from one Entry Area to another." in page


def test_3_6073_the_step_says_a_minefield_is_revealed_not_its_strength(users, modules, client):
    """3.6073 "Each still-hidden Fortification within a Setup Area of the purchaser's
    opponent is placed on-map. Each such minefield is marked by placing a Minefield
    counter to reveal its presence but not its strength": Refit keeps no Setup Area, so
    the step's page carries both sentences' conditions."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.607")
    page = _page(client, players, "axis")
    assert "hidden Fortifications in the enemy Setup Area are placed on the map" in page
    assert "a Minefield counter shows its presence, not its strength" in page


def test_3_608_a_prisoner_of_a_non_isolated_guard_is_eliminated_an_isolated_ones_kept(
    users, modules
):
    """3.608 "Each prisoner guarded by a non-Isolated unit is Eliminated. An Isolated
    Guard may retain possession of his prisoner(s)": the British 4-5-8 and 8-0 marked
    captured (its men held prisoner, as APD 2.1 records them) leave its retained forces
    when 3.608 is completed; a captured 4-5-8 marked Isolated (its Guard Isolated)
    stays, and so does a captured Axis MMG (Equipment is no prisoner)."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.608")
    add(players, "british", "4-5-8", "squad", status="captured")
    add(players, "british", "8-0 leader", "leader", status="captured")
    add(players, "british", "4-5-8", "squad", status="captured", markers=["isolated"])
    add(players, "british", "MMG", "sw", status="captured")
    players.finish()
    assert unit_names(players, "british") == [
        ("4-5-8", "squad", "isolated, captured", 1),
        ("MMG", "sw", "captured", 1),
    ]
    texts = set(Event.objects.filter(kind="unit").values_list("text", flat=True))
    assert any("8-0 leader" in t and "(3.608)" in t for t in texts), texts


def test_3_6061_3_6062_an_escaped_squads_lmg_is_retained_and_encircled_goes_at_the_end(
    users, modules, fixed_dice
):
    """3.6061 "If a unit survives the Escape attempt, it and all Equipment it took with
    it are Retained into a friendly Setup Area": the Isolated, Encircled 4-6-7 that
    escapes is no longer Isolated, nor is the LMG it possesses; 3.6062 "All Encircled
    markers are now removed": its Encircled marker stays until 3.606 is completed, then
    goes, while an Isolated 8-1 who made no DR keeps his Isolated marker."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.606")
    squad = add(players, "axis", "4-6-7", "squad", status="isolated", markers=["encircled"])
    add(players, "axis", "LMG", "sw", status="isolated", possessor=squad.ref)
    add(players, "axis", "8-1 leader", "leader", status="isolated")
    fixed_dice.append([1, 2])  # 3 +1 squad +2 Isolated +2 Encircled -1 Night = 7
    assert roll(players, "axis", "escape", squad).final == 7
    assert unit_names(players, "axis") == [
        ("4-6-7", "squad", "encircled", 1),
        ("8-1 leader", "leader", "isolated", 1),
        ("LMG", "sw", "ok", 1),
    ]
    players.finish()
    assert unit_names(players, "axis") == [
        ("4-6-7", "squad", "ok", 1),
        ("8-1 leader", "leader", "isolated", 1),
        ("LMG", "sw", "ok", 1),
    ]


def test_3_6113_a_wounded_heroic_leader_battle_hardens_and_stays_wounded(users, modules):
    """3.6113 "each Retained Heroic leader Battle Hardens and loses his heroic status":
    a wounded heroic 8-1 becomes the next higher quality (A15.3) when 3.611 is
    completed, loses his heroic marker and stays wounded (3.610 came before)."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.611")
    add(players, "axis", "8-1 leader", "leader", status="wounded", markers=["heroic"])
    players.finish()
    ((name, kind, marks, n),) = unit_names(players, "axis")
    assert (kind, marks, n) == ("leader", "wounded", 1) and name != "8-1 leader", name


def test_3_606_lone_smc_and_unarmed_or_wounded_for_a_wounded_leader(users, modules, fixed_dice):
    """3.606 "-1 If lone, unwounded SMC" and "+1 If unarmed or Wounded": a wounded 8-1 is
    refused the lone SMC's -1 (he is wounded) and has the +1 by itself; ticking
    "unarmed" besides is refused (one +1, never two)."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.606")
    leader = add(players, "axis", "8-1 leader", "leader", status="wounded")
    for ticked in (["lone_smc"], ["unarmed_wounded"]):
        with pytest.raises(ActionRefused, match=r"3\.606"):
            roll(players, "axis", "escape", leader, ticked=ticked)
    fixed_dice.append([3, 3])
    r = roll(players, "axis", "escape", leader)
    assert _drms(r)["If Wounded"] == (1, "auto")


def test_3_6141b_footnote_a_repaired_isolated_vehicle_stays_where_it_is(users, modules, fixed_dice):
    """3.6141b "≤ 2 Becomes Mobile*", "* And is Retained in its current Setup Area", "+1
    if Isolated": an Isolated immobilized StuG's dr 1 +1 = 2 makes it Mobile; it stays
    Isolated (retained where it is, not moved to a friendly Setup Area)."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.614")
    stug = add(players, "axis", "StuG IIIG", "vehicle", status="immobilized", markers=["isolated"])
    fixed_dice.append([1])
    r = roll(players, "axis", "immobilization_repair", stug)
    assert (r.final, r.result) == (2, "Becomes Mobile [*]")
    assert unit_names(players, "axis") == [("StuG IIIG", "vehicle", "isolated", 1)]


def test_3_6142_plus_1_if_isolated_by_itself_non_qualified_use_ticked(users, modules, fixed_dice):
    """3.6142 drm "+1 if only Non-Qualified Use (A21.13) possible" and "+1 if Isolated":
    an Isolated malfunctioned MMG has +1 by itself and the owner ticks Non-Qualified
    Use; dr 1 +2 -1 (its Repair Number) = 2: Eliminated."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.614")
    mmg = add(players, "axis", "MMG", "sw", status="malfunctioned", markers=["isolated"])
    fixed_dice.append([1])
    r = roll(
        players,
        "axis",
        "weapon_repair",
        mmg,
        ticked=["non_qualified"],
        typed={"repair_number": -1},
    )
    assert _drms(r)["if Isolated"] == (1, "auto")
    assert _drms(r)["if only Non-Qualified Use (A21.13) possible"] == (1, "ticked")
    assert r.final == 2 and unit_names(players, "axis") == []


def test_3_613_nine_to_ten_no_shift_leaves_the_unit_as_it_is(users, modules, fixed_dice):
    """3.613 "9-10 | No Shift*": a 4-6-7's Shift DR 9 gives No Shift; the squad stays on
    the retained forces as it was, and its one Shift DR is spent."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.613")
    squad = add(players, "axis", "4-6-7", "squad")
    fixed_dice.append([4, 5])
    r = roll(players, "axis", "shift", squad)
    assert (r.final, r.result) == (9, "No Shift [*]")
    assert unit_names(players, "axis") == [("4-6-7", "squad", "ok", 1)]
    with pytest.raises(ActionRefused, match=r"one Shift roll"):
        roll(players, "axis", "shift", squad)


def test_3_610_isolated_and_heroic_cancel_out(users, modules, fixed_dice):
    """3.610 drm "+1 if Isolated", "-1 if Heroic": both by themselves for an Isolated,
    heroic, wounded 8-1; dr 1 +1 -1 = 1: Retained unwounded (still Isolated, heroic)."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.610")
    leader = add(
        players, "axis", "8-1 leader", "leader", status="wounded", markers=["isolated", "heroic"]
    )
    fixed_dice.append([1])
    r = roll(players, "axis", "wounded_leaders", leader)
    assert _drms(r) == {"if Isolated": (1, "auto"), "if Heroic": (-1, "auto")}
    assert (r.final, r.result) == (1, "Retained unwounded")
    assert unit_names(players, "axis") == [("8-1 leader", "leader", "isolated, heroic", 1)]
