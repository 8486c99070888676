"""Sicily (seed 001), the sixth pass of the sentence audit (issue 44): what the fifth
pass left, and claims tried through the services as a player would, each with the test
that failed before its fix (docs/rules-audit/pass-6-sicily.md)."""

from __future__ import annotations

import pytest
from django.utils import timezone

from campaign.models import Campaign, Event, Purchase, Seat, Unit
from campaign.selectors import module_of
from campaign.services.errors import ActionRefused
from rules import machine
from tests import test_rule_mechanisms as mechanisms
from tests.test_rule_mechanisms import add, buy, roll
from tests.walk import host_game, players_of

users = mechanisms.users
fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


def buying_on(date_id, users, points=200, british_areas: str | None = None, **yes):
    """Both players enter the result of the CG scenario played the date before
    ``date_id`` (every figure 0, the yes/no answers ``yes`` given as
    ``<field>_<side>``) and walk to its purchase step (3.617); ``british_areas``: the
    British 3.605 Setup Area list (None: not listed)."""
    alice, bob = users
    c = host_game("sicily", "i", alice, bob, name="pass6")
    module = module_of(c)
    Campaign.objects.filter(pk=c.pk).update(date_index=machine.date_index(module, date_id) - 1)
    players = players_of(c, alice, bob)
    players.results(**mechanisms.result_values(module, **yes))
    if british_areas is not None:
        from campaign.services import units

        players.until_step("3.605")
        units.record_setup_areas(
            campaign_id=c.pk, user=players.users["british"], areas=british_areas
        )
    players.until("purchase")
    Seat.objects.filter(campaign=c).update(points=points)
    return players, module


# ------------------------------------------------------------------------- 3.6175


def test_3_6175_british_on_map_setup_only_with_a_british_setup_area_on_the_map(users, modules):
    """3.6175: "A British RG may be purchased for Standard On-Map Setup only if there is
    >= one Set Up Area on the Map."  The British 3.605 list names none of their Setup
    Areas (pass 26: read from the list, no more a yes/no of the result): then the
    On-Map price is refused with the rule, and not shown on the chart;
    the printed price stays, and the Axis (the sentence is the British's) keeps its
    On-Map price."""
    players, module = buying_on("jul15am", users, british_areas="")
    with pytest.raises(ActionRefused, match=r"On-Map Setup.*listed no Setup Area.*\(3\.6175\)"):
        buy(players, "british", "I1", "on_map")
    assert not Purchase.objects.filter(campaign_id=players.campaign_id, side="british").exists()
    from rules import availability

    snap_prices = {
        o.variant
        for g, options, _ in availability.chart_offers(module, _snapshot(players, "british"))
        if g.id == "I1"
        for o in options
    }
    assert snap_prices == {""}
    assert buy(players, "british", "I1").cost_variant == ""
    assert buy(players, "axis", "I1", "on_map").cost_variant == "on_map"


def test_3_6175_british_on_map_setup_sold_while_a_setup_area_is_on_the_map(users, modules):
    """3.6175: with a British Setup Area on the map (their 3.605 list names North), the
    British buy an "I" RG for Standard On-Map Setup at 20% more (FRU)."""
    players, module = buying_on("jul15am", users, british_areas="North")
    line = buy(players, "british", "I1", "on_map")
    assert line.cost_variant == "on_map"


def _snapshot(players, side):
    from campaign.selectors import holdings
    from campaign.services.turns import take_turn

    turn = take_turn(players.campaign_id, players.users[side], None)
    c = turn.campaign
    return turn.snapshot(holdings(c, side, purchases=True))


# ------------------------------------------------------------------------- 3.60742


def test_3_60742_captured_sw_possessed_by_withdrawn_units_are_withdrawn_with_them(users, modules):
    """3.60742: "Withdrawn Axis units (and any captured support weapons and vehicles in
    the possession of these units) are retained by the Axis off map".  After July 14 PM,
    the British units removed (3.60741): the captured Bren possessed by the I4's squads
    is withdrawn with them; a captured Bren possessed by a squad of another RG, and an
    Axis LMG (not captured) of no RG possessed by the I4's squads, stay."""
    from tests.test_sicily_withdrawal import _purchase, at_step_after

    players = at_step_after("jul14pm", "3.607", users, british_withdrawal=True)
    squads = add(players, "axis", "4-6-7", "squad", number=3)
    line = _purchase(players, "axis", "I4", "jul14pm")
    Purchase.objects.filter(pk=line.pk).update(revealed_at=timezone.now())  # played: revealed
    Unit.objects.filter(pk=squads.pk).update(purchase=line)
    other = add(players, "axis", "4-6-8", "squad")
    bren = add(players, "axis", "Bren LMG", "sw", markers=["captured"], possessor=squads.ref)
    others_bren = add(players, "axis", "Bren LMG", "sw", markers=["captured"], possessor=other.ref)
    own_lmg = add(players, "axis", "LMG", "sw", possessor=squads.ref)
    players.finish()
    for unit in (squads, bren, others_bren, own_lmg, other):
        unit.refresh_from_db()
    assert "withdrawn" in squads.state.marked
    assert {"withdrawn", "captured"} <= bren.state.marked
    assert bren.possessor_id == squads.pk
    assert "withdrawn" not in others_bren.state.marked
    assert "withdrawn" not in own_lmg.state.marked
    assert "withdrawn" not in other.state.marked
    assert Event.objects.filter(
        campaign_id=players.campaign_id, text__contains="possessed by 4-6-7"
    ).exists()


def _amend(players, by, **yes):
    """``by`` proposes the July 14 PM result with the answers ``yes``; the other accepts."""
    from campaign.services import steps
    from tests.test_sicily_withdrawal import answers

    module = module_of(players.campaign)
    steps.propose_result_amendment(
        campaign_id=players.campaign_id,
        user=players.users[by],
        values=answers(module, **yes),
        reason="the answer of 3.60741 was entered wrong",
    )
    other = "british" if by == "axis" else "axis"
    steps.answer_result_amendment(
        campaign_id=players.campaign_id, user=players.users[other], accept=True
    )


def test_3_60742_an_answer_amended_after_3_607_undoes_or_makes_the_withdrawal(users, modules):
    """3.60741-3.60742: the result (and its answer "British units north of the river
    removed") may be amended with consent until 3.616 reads it.  Amended to no after
    3.607 withdrew the I4's squads and the captured SW they possess: both are back in
    play, with the rule on the log; amended to yes again: withdrawn again."""
    from tests.test_sicily_withdrawal import _purchase, at_step_after

    players = at_step_after("jul14pm", "3.607", users, british_withdrawal=True)
    squads = add(players, "axis", "4-6-7", "squad", number=3)
    line = _purchase(players, "axis", "I4", "jul14pm")
    Purchase.objects.filter(pk=line.pk).update(revealed_at=timezone.now())
    Unit.objects.filter(pk=squads.pk).update(purchase=line)
    bren = add(players, "axis", "Bren LMG", "sw", markers=["captured"], possessor=squads.ref)
    players.finish()
    assert players.step.id == "3.608"
    _amend(players, "british", british_withdrawal=False)
    for unit in (squads, bren):
        unit.refresh_from_db()
        assert "withdrawn" not in unit.state.marked, unit.name
    assert "captured" in bren.state.marked
    assert Event.objects.filter(
        campaign_id=players.campaign_id, text__contains="no longer calls for it (3.60742)"
    ).exists()
    _amend(players, "axis", british_withdrawal=True)
    for unit in (squads, bren):
        unit.refresh_from_db()
        assert "withdrawn" in unit.state.marked, unit.name


# ------------------------------------------------------------------------- 3.6141c


def test_3_6141c_an_afv_made_mobile_at_3_6141b_leaves_recall_unless_isolated(
    users, modules, fixed_dice
):
    """3.6141b-c: "Each non-Captured, non-Abandoned, immobilized vehicle must make a dr
    ... <= 2 Becomes Mobile", then "Each Mobile, non-Isolated Retained AFV under Recall
    [is no longer under Recall]. If Mobile, under Recall, and Isolated, such an AFV
    begins the next scenario under Recall".  A Recalled, immobilized StuG repaired at
    3.6141b is Mobile at 3.6141c: its Recall ends with the roll, on the log with its
    rule; an Isolated one repaired keeps its Recall; one not repaired keeps both."""
    from tests.purchase_helpers import add_vehicle
    from tests.test_sicily_withdrawal import at_step_after

    players = at_step_after("jul15am", "3.614", users)
    free, _ = add_vehicle(players, "axis", "StuG IIIG", status="recalled", markers=["immobilized"])
    isolated, _ = add_vehicle(
        players, "axis", "StuG IIIG", status="recalled", markers=["immobilized", "isolated"]
    )
    stuck, _ = add_vehicle(players, "axis", "StuG IIIG", status="recalled", markers=["immobilized"])
    fixed_dice.extend([[1], [1], [6]])
    roll(players, "axis", "immobilization_repair", free)
    roll(players, "axis", "immobilization_repair", isolated)
    roll(players, "axis", "immobilization_repair", stuck)
    for unit in (free, isolated, stuck):
        unit.refresh_from_db()
    assert not {"recalled", "immobilized"} & free.state.marked
    assert "recalled" in isolated.state.marked and "immobilized" not in isolated.state.marked
    assert {"recalled", "immobilized"} <= stuck.state.marked
    assert Event.objects.filter(
        campaign_id=players.campaign_id, text__contains="(3.6141c)"
    ).exists()


# ------------------------------------------------------------------------- 3.606


def test_3_606_a_squads_escape_dr_has_plus_1_for_its_second_hs_equivalent(
    users, modules, fixed_dice
):
    """3.606 "+1 per HS-equivalent > one HS using the same Escape DR*": a squad is two
    HS-equivalents, so the DR made for a squad has +1 by itself (before this pass the
    player typed it, and a squad's DR typed 0 went without it); a half-squad's has
    none; the units escaping with it are named with it (the stack, pass 10), their
    HS-equivalents counted; NA to vehicles."""
    from tests.purchase_helpers import campaign_at

    players, _ = campaign_at("sicily", "i", "jul15pm", users, step="3.606")
    squad = add(players, "axis", "4-6-8", "squad")
    half = add(players, "axis", "2-4-8", "half_squad")
    tank = add(players, "axis", "PzIVG", "vehicle")
    other = add(players, "axis", "2-4-8 B", "half_squad")
    fixed_dice.extend([[3, 3], [3, 3], [3, 3]])
    r = roll(players, "axis", "escape", squad, stack=[other.ref])
    assert r.final == 8  # 6 + 2 (three HS-equivalents, one beyond the first counted each)
    assert sorted((d["how"], d["value"]) for d in r.drms) == [("auto", 2)]
    assert roll(players, "axis", "escape", half).final == 6
    assert roll(players, "axis", "escape", tank).final == 6


# ------------------------------------------------------------------------- 3.6142


def test_3_6142_the_weapon_repair_dr_is_not_made_without_the_repair_number(
    users, modules, fixed_dice
):
    """3.6142 drm "-x (Weapon Repair Number)": every weapon has a Repair Number, so the
    dr made without it (before this pass: accepted, the -x lost) is refused with the
    rule, nothing rolled; with it, the dr is made (a vehicle's MA and MG alike)."""
    from campaign.models import Roll
    from tests.purchase_helpers import add_vehicle, campaign_at

    players, _ = campaign_at("sicily", "i", "jul15pm", users, step="3.614")
    mmg = add(players, "axis", "MMG", "sw", "malfunctioned")
    tank, (ma,) = add_vehicle(players, "axis", "StuG IIIG", ("ma", ["malfunctioned"]))
    with pytest.raises(ActionRefused, match=r"Enter '-x \(Weapon Repair Number\)'.*\(3\.6142\)"):
        roll(players, "axis", "weapon_repair", mmg)
    with pytest.raises(ActionRefused, match=r"Weapon Repair Number"):
        roll(players, "axis", "weapon_repair", tank, weapon=ma)
    assert not Roll.objects.filter(table_id="weapon_repair").exists()
    fixed_dice.extend([[3]])
    r = roll(players, "axis", "weapon_repair", mmg, typed={"repair_number": -2})
    assert (r.final, r.result) == (1, "Repaired")
