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
        r = roll(
            players,
            "axis",
            "shift",
            item=f"4-6-7 in area A, {hexes} hexes",
            typed={"uncontrolled_hexes": hexes},
        )
        finals[hexes] = r.final
    assert finals == {7: 7, 14: 8, 4: 6}
    with pytest.raises(ActionRefused, match=r"\(3\.613\)"):
        roll(players, "axis", "shift", item="8-1", typed={"uncontrolled_hexes": -5})


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
    fixed_dice.extend([[4], [4], [3]])
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
