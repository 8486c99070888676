"""Sicily (seed 001), the seventh pass of the sentence audit (issue 44), part A
(3.6-3.614): what the sixth pass left, and claims tried through the services as a
player would, each with the test that failed before its fix
(docs/rules-audit/pass-7-sicily-a.md)."""

from __future__ import annotations

import html

import pytest

from campaign.models import Event, Roll, Unit
from campaign.services.errors import ActionRefused
from tests import test_rule_mechanisms as mechanisms
from tests.purchase_helpers import campaign_at
from tests.test_rule_mechanisms import add, roll

users = mechanisms.users
fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


def at_3_614(users, date_id="jul15am"):
    players, module = campaign_at("sicily", "i", date_id, users, step="3.614")
    return players, module


# ------------------------------------------------------------------------- 3.61424


def test_3_61424_special_ammo_is_rolled_for_a_weapon_of_the_retained_forces(users, modules):
    """3.61424: "Each non-captured, non-Isolated weapon ... may make a dr ... for each type
    of special ammunition which is depleted": the dr is made for a weapon of the side's
    retained forces (a Gun, a SW or a vehicle) and the type named; a captured or an
    Isolated weapon's dr is refused with the rule, and so is a squad's."""
    players, _ = at_3_614(users)
    gun = add(players, "axis", "75L PaK 40", "gun")
    captured = add(players, "axis", "6-pdr ATG", "gun", status="captured")
    isolated = add(players, "axis", "StuG IIIG", "vehicle", status="isolated")
    squad = add(players, "axis", "4-6-7", "squad")
    r = roll(players, "axis", "special_ammo", gun, item="APCR")
    assert r.unit_ref and "75L PaK 40" in r.item and "APCR" in r.item
    for unit in (captured, isolated, squad):
        with pytest.raises(ActionRefused, match=r"not rolled for it \(3\.61424\)"):
            roll(players, "axis", "special_ammo", unit, item="Smoke")
    with pytest.raises(ActionRefused, match=r"Choose which of your"):
        roll(players, "axis", "special_ammo", item="75L PaK 40: Smoke")
    assert Roll.objects.filter(table_id="special_ammo").count() == 1


def test_3_61424_one_dr_per_weapon_and_depleted_ammunition_type(users, modules):
    """3.61424: "a dr ... for each type of special ammunition which is depleted ... for
    that weapon": a second dr for the same weapon and type is refused, another type of
    the same weapon rolls, and the same type of another weapon rolls; the type must be
    named."""
    players, _ = at_3_614(users)
    gun = add(players, "axis", "75L PaK 40", "gun")
    stug = add(players, "axis", "StuG IIIG", "vehicle")
    roll(players, "axis", "special_ammo", gun, item="APCR")
    with pytest.raises(ActionRefused, match=r"has had its Special Ammo roll .*\(3\.61424\)"):
        roll(players, "axis", "special_ammo", gun, item=" apcr ")
    with pytest.raises(
        ActionRefused, match=r"Say what the Special Ammo roll for 75L PaK 40 is for"
    ):
        roll(players, "axis", "special_ammo", gun, item="")
    roll(players, "axis", "special_ammo", gun, item="Smoke")
    roll(players, "axis", "special_ammo", stug, item="APCR")
    assert Roll.objects.filter(table_id="special_ammo").count() == 3


def test_3_61424_the_step_offers_each_eligible_weapon_and_asks_the_ammunition_type(
    users, modules, client
):
    """3.61424 as the player sees it at 3.614: the Special Ammo form chooses one of the
    side's non-captured, non-Isolated weapons and asks what of it (its depleted
    ammunition type); a captured Gun is not offered."""
    players, _ = at_3_614(users)
    add(players, "axis", "75L PaK 40", "gun")
    add(players, "axis", "6-pdr ATG", "gun", status="captured")
    client.force_login(players.users["axis"])
    shown = html.unescape(client.get(f"/campaigns/{players.campaign_id}/").content.decode())
    form = shown[shown.index('id="table-special_ammo"') :]
    form = form[: form.index("</form>")]
    assert "once for each item of it you name in this pass" in form
    assert "75L PaK 40" in form and "6-pdr ATG" not in form
    assert 'id="item-special_ammo"' in form and "depleted ammunition type" in form


# ------------------------------------------------------------------------- 3.60742


def test_3_60742_a_return_amended_to_no_withdraws_again_the_units_it_returned(users, modules):
    """3.60742: withdrawn Axis units "may be returned to play after a CG Date ends with
    the British player in control of >= 5 hexes North of the river(s)".  3.607 returned
    them on the answer yes; the result amended to no after 3.607 (with consent, until
    3.616 reads it) withdraws again exactly the units that row returned (their refs are
    on the log), with the rule on the log; a unit it did not return is left as it is;
    amended to yes again, they return again."""
    from tests.test_sicily_pass6 import _amend
    from tests.test_sicily_withdrawal import at_step_after

    players = at_step_after("jul15am", "3.607", users, british_control_north=True)
    back = add(players, "axis", "4-6-7", "squad", status="withdrawn", number=2)
    bren = add(players, "axis", "Bren LMG", "sw", markers=["captured", "withdrawn"])
    never = add(players, "axis", "8-1", "leader")
    players.finish()
    assert players.step.id == "3.608"
    for unit in (back, bren):
        unit.refresh_from_db()
        assert "withdrawn" not in unit.state.marked, unit.name
    _amend(players, "british", british_control_north=False)
    for unit in (back, bren, never):
        unit.refresh_from_db()
    assert "withdrawn" in back.state.marked and back.count == 2
    assert {"withdrawn", "captured"} <= bren.state.marked
    assert "withdrawn" not in never.state.marked
    assert Event.objects.filter(
        campaign_id=players.campaign_id,
        text__contains="is withdrawn (off map) again: the amended result no longer calls "
        "for its return (3.60742)",
    ).exists()
    _amend(players, "axis", british_control_north=True)
    for unit in (back, bren):
        unit.refresh_from_db()
        assert "withdrawn" not in unit.state.marked, unit.name


# ------------------------------------------------------------------------- 3.606


def test_3_606_drms_offered_for_a_unit_kind_appear_on_the_escape_form(users, modules, client):
    """3.606 "-1 If lone, unwounded SMC" and "-1 if CT AFV": the player claims them for
    a leader or Hero, or a vehicle (the unit chosen on the form).  Before this pass the
    form was built for no unit, so neither box was ever shown and the DRMs could not be
    claimed in play; now both are shown, and the service still refuses each for a unit
    of another kind, with the rule."""
    players, _ = campaign_at("sicily", "i", "jul15pm", users, step="3.606")
    squad = add(players, "axis", "4-6-7", "squad")
    add(players, "axis", "9-1", "leader")
    client.force_login(players.users["axis"])
    shown = html.unescape(client.get(f"/campaigns/{players.campaign_id}/").content.decode())
    form = shown[shown.index('id="table-escape"') :]
    form = form[: form.index("</form>")]
    assert 'value="lone_smc"' in form and "If lone, unwounded SMC" in form
    assert 'value="ct_afv"' in form and "If CT AFV" in form
    for drm in ("lone_smc", "ct_afv"):
        with pytest.raises(ActionRefused, match=r"does not apply to this roll \(3\.606\)"):
            roll(players, "axis", "escape", squad, ticked=[drm])


# ------------------------------------------------------------------------- 3.613


def test_3_613_plus_1_per_five_frd_uncontrolled_hexes_is_computed_from_the_count(
    users, modules, fixed_dice
):
    """3.613 "+1 Per five (FRD) Uncontrolled-Territory hexes along that path": the
    player counts the hexes on the map and types the count; the DRM is computed from it
    (7 hexes +1, 14 hexes +2, 4 hexes none).  Before this pass the typed figure was the
    DRM itself: 7 hexes typed gave +7, and a path of 12 hexes could not be typed."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.613")
    finals = {}
    for hexes in (7, 14, 4):
        fixed_dice.append([3, 3])
        squad = add(players, "axis", f"4-6-7 in area A, {hexes} hexes", "squad")
        r = roll(players, "axis", "shift", squad, typed={"uncontrolled_hexes": hexes})
        finals[hexes] = r.final
    assert finals == {7: 7, 14: 8, 4: 6}
    leader = add(players, "axis", "8-1", "leader")
    with pytest.raises(ActionRefused, match=r"\(3\.613\)"):
        roll(players, "axis", "shift", leader, typed={"uncontrolled_hexes": -5})


def test_3_613_footnote_dagger_casualties_dr_is_made_for_each_unit_and_applied(
    users, modules, fixed_dice
):
    """3.613 footnote †: "Each Personnel unit suffers Casualty Reduction on a subsequent dr
    of >= 4. Each vehicle is Eliminated on a subsequent dr of >= 4 ... Roll separately
    for each unit."  The dr is made for a unit of the retained forces, its kind choosing
    the column: a squad's 4 Casualty Reduces it, a vehicle's 4 eliminates it, a 3 leaves
    a unit as it was; a second dr for the same unit is refused.  Before this pass the dr
    was made for an item named in words and its result was the players' to write."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.613")
    squad = add(players, "axis", "4-6-7", "squad")
    stug = add(players, "axis", "StuG IIIG", "vehicle")
    leader = add(players, "axis", "8-1", "leader")
    # Pass 10: the subsequent dr follows a Shift DR of 11 (here one for the stack).
    fixed_dice.extend([[5, 6], [4], [4], [3]])
    roll(players, "axis", "shift", squad, stack=[stug.ref, leader.ref])
    roll(players, "axis", "shift_casualties", squad)
    roll(players, "axis", "shift_casualties", stug)
    roll(players, "axis", "shift_casualties", leader)
    squad.refresh_from_db()
    leader.refresh_from_db()
    assert "reduced" in squad.state.marked
    assert not Unit.objects.filter(pk=stug.pk).exists()
    assert leader.state.marked == {"ok"}
    with pytest.raises(ActionRefused, match=r"has made its one .* roll in this pass"):
        roll(players, "axis", "shift_casualties", squad)


# ------------------------------------------------------------- the sample, held in play


def _drms(r: Roll) -> dict[str, tuple[int, str]]:
    return {d["label"]: (d["value"], d["how"]) for d in r.drms}


def _markers(unit: Unit) -> set[str] | None:
    """The unit's markers now, None once it has left the retained forces."""
    fresh = Unit.objects.filter(pk=unit.pk).first()
    return None if fresh is None else set(fresh.state.marked)


def test_3_606_escape_rows_by_column_and_drms_by_kind_held_in_play(users, modules, fixed_dice):
    """The sample of 3.606 (docs/rules-audit/pass-7-sicily-a.md): each row of the Escape
    Table reached by a DR made for a named unit, its column by the unit's kind, its
    effect written (Infantry: <= 8 Escapes, 9 Escapes; Replaced (the new counter is the
    player's), 10 Casualty Reduced, 11 Replaced then Casualty Reduced, >= 12 Eliminated;
    Mobile Vehicle: 9 and 11 Abandoned, 10 and >= 12 Eliminated); an Original 2 escapes
    whatever the DRMs (footnote 1); the DRMs marked * (NA to vehicle Escape) are refused
    for a vehicle; +1 If a Captured vehicle, +2 If Isolated apply by themselves; -1 if
    CT AFV is refused for a squad; "-2 adjacent" and "-1 two hexes" never both; the
    leader's +x is typed."""
    players, _ = campaign_at("sicily", "i", "jul15pm", users, step="3.606")

    def squad_dr(dice, markers=(), **kw):
        unit = add(players, "axis", "4-6-7", "squad", markers=markers)
        fixed_dice.append(dice)
        return unit, roll(players, "axis", "escape", unit, **kw)

    # Infantry column (a squad has +1 by itself for its second HS-equivalent).
    for dice, final, after in (
        ([3, 4], 8, {"ok"}),
        ([4, 4], 9, {"replace_due"}),  # pass 10: Replaced, marked for its owner
        ([4, 5], 10, {"reduced"}),
        ([5, 5], 11, {"replace_due", "reduced"}),  # pass 12: Replaced, then reduced
        ([5, 6], 12, None),
    ):
        unit, r = squad_dr(dice)
        assert r.final == final and _markers(unit) == after, (final, _markers(unit))
    unit, r = squad_dr([1, 1], ["encircled"], typed={"excess_pp": 5})
    assert r.final == 10 and _markers(unit) == {"encircled"}  # an Original 2 Escapes (footnote 1)
    # Mobile Vehicle column.
    for dice, after in (([4, 5], {"abandoned"}), ([5, 5], None), ([5, 6], {"abandoned"})):
        tank = add(players, "axis", "PzKpfw IVH", "vehicle")
        fixed_dice.append(dice)
        roll(players, "axis", "escape", tank)
        assert _markers(tank) == after, (dice, _markers(tank))
    captured = add(players, "axis", "Sherman", "vehicle", status="captured", markers=["isolated"])
    fixed_dice.append([2, 3])
    r = roll(players, "axis", "escape", captured, ticked=["ct_afv"])
    assert _drms(r) == {
        "If CT AFV": (-1, "ticked"),
        "If a Captured vehicle": (1, "auto"),
        "If Isolated": (2, "auto"),
    }
    tank = add(players, "axis", "PzKpfw IVH", "vehicle")
    for claim in ({"typed": {"excess_pp": 1}},):
        with pytest.raises(ActionRefused, match=r"does not apply to this roll \(3\.606\)"):
            roll(players, "axis", "escape", tank, **claim)
    squad = add(players, "axis", "4-6-7", "squad")
    with pytest.raises(ActionRefused, match=r"do not both apply to one roll \(3\.606\)"):
        roll(
            players, "axis", "escape", squad, ticked=["adjacent_setup_area", "two_hexes_setup_area"]
        )
    fixed_dice.append([3, 3])
    r = roll(players, "axis", "escape", squad, typed={"leader": -2}, ticked=["enemy_setup_area"])
    assert r.final == 6 + 1 - 2 + 1


def test_3_610_wounded_leader_rows_and_drms_held_in_play(users, modules, fixed_dice):
    """The sample of 3.610: "a dr ... for each currently wounded Retained Leader": a
    leader not wounded and a wounded squad are refused; <= 1 Retained unwounded (the
    wounded marker goes), 2-4 Retained wounded; +1 if Isolated applies by itself, -1 if
    Heroic is ticked; one dr per leader."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.610")
    fit = add(players, "axis", "9-1", "leader")
    squad = add(players, "axis", "4-6-7", "squad", status="wounded")
    for unit in (fit, squad):
        with pytest.raises(ActionRefused, match=r"not rolled for it \(3\.610\)"):
            roll(players, "axis", "wounded_leaders", unit)
    healed = add(players, "axis", "8-1", "leader", status="wounded", markers=["heroic"])
    kept = add(players, "axis", "8-0", "leader", status="wounded", markers=["isolated"])
    fixed_dice.extend([[2], [2]])
    r = roll(players, "axis", "wounded_leaders", healed)
    assert r.final == 1 and _markers(healed) == {"heroic"}
    r = roll(players, "axis", "wounded_leaders", kept)
    assert _drms(r) == {"if Isolated": (1, "auto")}
    assert r.final == 3 and _markers(kept) == {"wounded", "isolated"}
    with pytest.raises(ActionRefused, match=r"has made its one Wounded Leaders roll"):
        roll(players, "axis", "wounded_leaders", kept)


def test_3_614_repair_rows_and_drms_held_in_play(users, modules, fixed_dice):
    """The sample of 3.614: 3.6141b <= 2 Becomes Mobile, >= 3 No change, +1 if Isolated
    by itself, +1 if in a Front-Line hex ticked; 3.6141d <= 2 the stun removed, 3-5
    kept; 3.6142 <= 1 Repaired, >= 2 a SW Eliminated, a vehicle's MA Disabled and the
    AFV Recalled (footnote *), -1 if vehicular-mounted by itself for the vehicle only;
    3.61422's table is missing, so its dr is refused with the rule; 3.61426's Escape is
    the British's at Night only."""
    from tests.purchase_helpers import add_vehicle

    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.614")
    mobile = add(players, "axis", "StuG IIIG", "vehicle", status="immobilized")
    stuck = add(
        players, "axis", "StuG IIIG #2", "vehicle", status="immobilized", markers=["isolated"]
    )
    fixed_dice.extend([[2], [2]])
    roll(players, "axis", "immobilization_repair", mobile)
    r = roll(players, "axis", "immobilization_repair", stuck, ticked=["front_line"])
    assert _drms(r) == {"if Isolated": (1, "auto"), "if in a Front-Line hex": (1, "ticked")}
    assert _markers(mobile) == {"ok"} and _markers(stuck) == {"immobilized", "isolated"}
    recovers = add(players, "axis", "PzKpfw IVH", "vehicle", status="stunned")
    stays = add(players, "axis", "PzKpfw IVH #2", "vehicle", status="stunned")
    fixed_dice.extend([[1], [2]])  # +1 if German (ticked: these are of no RG)
    roll(players, "axis", "stun_recovery", recovers, ticked=["german_no_rg"])
    roll(players, "axis", "stun_recovery", stays, ticked=["german_no_rg"])
    assert _markers(recovers) == {"ok"} and _markers(stays) == {"stunned"}
    lmg = add(players, "axis", "LMG", "sw", status="malfunctioned")
    mmg = add(players, "axis", "MMG", "sw", status="malfunctioned")
    fixed_dice.extend([[2], [3]])
    r = roll(players, "axis", "weapon_repair", lmg, typed={"repair_number": -1})
    assert "if vehicular-mounted" not in _drms(r) and _markers(lmg) == {"ok"}
    roll(players, "axis", "weapon_repair", mmg, typed={"repair_number": -1})
    assert _markers(mmg) is None
    tank, (ma,) = add_vehicle(players, "axis", "PzKpfw IIIN", ("ma", ["malfunctioned"]))
    fixed_dice.append([4])
    r = roll(players, "axis", "weapon_repair", tank, weapon=ma, typed={"repair_number": -1})
    assert _drms(r)["if vehicular-mounted"] == (-1, "auto") and r.final == 2
    tank.refresh_from_db()
    assert "recalled" in tank.state.marked and "disabled" in tank.state.weapon(ma).markers
    captured = add(players, "axis", "Bren LMG", "sw", status="captured")
    with pytest.raises(ActionRefused, match=r"leave out the Captured Equipment \(3\.61422\)"):
        roll(players, "axis", "captured_equipment", captured)
    sherman = add(players, "british", "Sherman", "vehicle", status="isolated")
    with pytest.raises(ActionRefused, match=r"3\.61426"):
        roll(players, "british", "tank_escape", sherman)


# ------------------------------------------------------------------------- 3.6141d


def test_3_6141d_plus_1_if_german_by_itself_for_a_german_rgs_vehicle_ticked_for_one_of_no_rg(
    users, modules, fixed_dice
):
    """3.6141d "+1 if German": a StuG of the German V1 has it by itself; a vehicle of no
    RG (the OB's, or captured) has no nationality on the record, so the Axis ticks it
    for a German one and leaves it for an Italian one (before this pass an Italian
    vehicle of the OB got +1 by itself); the British are never offered it."""
    from django.utils import timezone

    from campaign.models import Purchase
    from tests.test_sicily_withdrawal import _purchase

    players, _ = at_3_614(users)
    line = _purchase(players, "axis", "V1", "jul14pm")
    Purchase.objects.filter(pk=line.pk).update(revealed_at=timezone.now())
    stug = add(players, "axis", "StuG IIIG", "vehicle", status="stunned")
    Unit.objects.filter(pk=stug.pk).update(purchase=line)
    italian = add(players, "axis", "L6/40", "vehicle", status="stunned")
    german = add(players, "axis", "PzKpfw IVH", "vehicle", status="stunned")
    sherman = add(players, "british", "Sherman III(a)", "vehicle", status="stunned")
    fixed_dice.extend([[3], [3], [3], [3]])
    with pytest.raises(ActionRefused, match=r"does not apply to this roll \(3\.6141d\)"):
        roll(players, "axis", "stun_recovery", stug, ticked=["german_no_rg"])
    assert _drms(roll(players, "axis", "stun_recovery", stug)) == {"if German": (1, "auto")}
    assert _drms(roll(players, "axis", "stun_recovery", italian)) == {}
    r = roll(players, "axis", "stun_recovery", german, ticked=["german_no_rg"])
    assert _drms(r) == {"if German (a vehicle not of an RG)": (1, "ticked")}
    with pytest.raises(ActionRefused, match=r"does not apply to this roll \(3\.6141d\)"):
        roll(players, "british", "stun_recovery", sherman, ticked=["german_no_rg"])
    assert _drms(roll(players, "british", "stun_recovery", sherman)) == {}
