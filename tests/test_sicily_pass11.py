"""Sicily (seed 001), the eleventh pass of the sentence audit (issue 44): sentences of
3.6-3.623 and the RG charts that no earlier pass doc quotes, tried through the
services as two players meet them (docs/rules-audit/pass-11-sicily11.md)."""

from __future__ import annotations

import pytest

from campaign.models import Purchase, Seat
from campaign.services.errors import ActionRefused
from tests import test_rule_mechanisms as mechanisms
from tests.purchase_helpers import campaign_at, make_rolls, roster_of
from tests.test_rule_mechanisms import buy, mark_rg

users = mechanisms.users
fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


def _points(players, side):
    return Seat.objects.get(campaign_id=players.campaign_id, side=side).points


def _line(players, side, purchase):
    return next(ln for ln in roster_of(players.campaign, side).record if ln.id == purchase.ref)


def test_3_617_cpp_expended_are_subtracted_regardless_of_later_strength(users, modules, fixed_dice):
    """3.617: "All CPP expended are subtracted from the current CPP total"; 3.6175:
    "Lists the CPP cost of the RG (regardless of its later-determined Strength). This
    is the number of CPP that must be subtracted from the current CPP total in order to
    receive that RG."  Two Axis I5 (14 CPP): one Full, one Depleted; each took 14 and
    the Depleted roll gives nothing back (on July 14 PM the rest is lost after the
    step, 3.617 EXC)."""
    players, _ = campaign_at("sicily", "i", "jul14pm", users, points=100)
    full = buy(players, "axis", "I5")
    depleted = buy(players, "axis", "I5")
    assert _points(players, "axis") == 100 - 28
    players.until("strength")
    # 3.617 EXC: what is left after the step on the 14 PM date is lost.
    assert _points(players, "axis") == 0
    fixed_dice[:] = [[1, 1]]
    make_rolls(players, "axis", full)
    fixed_dice[:] = [[6, 6]]
    make_rolls(players, "axis", depleted)
    assert _line(players, "axis", full).strength == "F"
    assert _line(players, "axis", depleted).strength == "D"
    assert _points(players, "axis") == 0
    assert {p.cost for p in Purchase.objects.filter(campaign_id=players.campaign_id)} == {14}


def test_3_6179_p_and_r_count_each_purchase_and_a_cancel_gives_it_back(users, modules):
    """3.6179: "#P (Number Purchased): The total number of friendly RG of this Group
    Type purchased thus far during the CG"; "#R (Number Remaining): The number of this
    RG Group Type still available for subsequent purchase in the CG."  Axis I5 (CG I
    Max 2) bought twice reads #P 1, 2 and #R 1, 0; a third is refused with 3.617 and
    nothing spent; cancelling the second gives its #R and CPP back."""
    from campaign.services import purchases

    players, _ = campaign_at("sicily", "i", "jul14pm", users, points=100)
    bought = [buy(players, "axis", "I5") for _ in range(2)]
    lines = [_line(players, "axis", p) for p in bought]
    assert [(ln.number_purchased, ln.number_remaining) for ln in lines] == [(1, "1"), (2, "0")]
    before = _points(players, "axis")
    with pytest.raises(ActionRefused) as refused:
        buy(players, "axis", "I5")
    assert "3.617" in str(refused.value), str(refused.value)
    assert _points(players, "axis") == before
    purchases.cancel_purchase(
        campaign_id=players.campaign_id, user=players.users["axis"], purchase_id=bought[1].ref
    )
    assert _line(players, "axis", bought[0]).number_remaining == "1"
    assert _points(players, "axis") == before + 14


def test_3_6179_objective_hex_only_for_a_coy_size_rg_and_seen_by_its_owner(users, modules):
    """3.6179: "Objective Hex: Record the Objective Hex of each Coy size RG (see 3.2)."
    An Axis I7 (Italian Infantry Coy) records one; an I8 (Italian MG Coy, no coy
    footnote: not a Coy size RG for the limit) is refused in words naming the RG and
    3.6179, nothing changed; the opponent's record never shows the hex."""
    from campaign.services import purchases

    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    coy = buy(players, "axis", "I7")
    mg = buy(players, "axis", "I8")

    def record(purchase, where):
        purchases.record_entry_area(
            campaign_id=players.campaign_id,
            user=players.users["axis"],
            purchase_id=purchase.ref,
            entry_area="",
            objective_hex=where,
        )

    record(coy, "24Q5")
    assert _line(players, "axis", coy).objective_hex == "24Q5"
    with pytest.raises(ActionRefused) as refused:
        record(mg, "24Q5")
    words = str(refused.value)
    assert "I8" in words and "records no Objective Hex" in words and "3.6179" in words, words
    mg.refresh_from_db()
    assert mg.objective_hex == ""
    british = roster_of(players.campaign, "british").record
    assert all(ln.objective_hex == "" for ln in british)


def test_3_6175_the_reserve_price_is_20_percent_less_frd_and_subtracted(users, modules):
    """3.6175: "If an Axis "I" or "G" type RG is purchased for 20% less (FRD) than its
    printed value the RG must be set up on-map in Reserve".  Axis I7 (12) In Reserve
    costs 9 (9.6 rounded down); the British, whose chart has no Reserve price, are
    refused it with the rule and keep their CPP."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    buy(players, "axis", "I7", "reserve")
    assert _points(players, "axis") == 100 - 9
    with pytest.raises(ActionRefused) as refused:
        buy(players, "british", "I3", "reserve")
    assert "3.6175" in str(refused.value), str(refused.value)
    assert _points(players, "british") == 100


def test_british_footnote_i_a_bombardment_once_eliminated_is_not_marked_twice(users, modules):
    """3.617 British chart footnote i: "After the Bombardment has been fully resolved,
    its FFE:C is removed and that Bombardment RG is Eliminated."  The British mark
    their B1 eliminated; marking it so again is refused in words (409), and the line
    says it is eliminated; the Axis may not mark the British RG."""
    from campaign.services import purchases

    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    b1 = purchases.purchase_rg(
        campaign_id=players.campaign_id,
        user=players.users["british"],
        group_id="B1",
        recorded_hex="23G5",
    )
    mark_rg(players, "british", b1, Purchase.State.ELIMINATED)
    with pytest.raises(ActionRefused) as refused:
        mark_rg(players, "british", b1, Purchase.State.ELIMINATED)
    assert refused.value.status == 409
    assert "B1 is already eliminated" in str(refused.value), str(refused.value)
    assert _line(players, "british", b1).state == Purchase.State.ELIMINATED
    with pytest.raises(ActionRefused):
        mark_rg(players, "axis", b1, Purchase.State.HELD)


def test_3_6_steps_in_order_no_rg_is_bought_before_3_617(users, modules):
    """3.6: "Each step (and sub-step) must be carried out in the numbered/sequential
    order."  At 3.615 (Ammunition Shortage) an RG purchase is refused, nothing spent."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, step="3.615", points=100)
    with pytest.raises(ActionRefused) as refused:
        buy(players, "axis", "I7")
    assert refused.value.status in (400, 409), refused.value.status
    assert _points(players, "axis") == 100
    assert not Purchase.objects.filter(campaign_id=players.campaign_id).exists()


def test_3_6172_name_and_id_are_secret_on_the_opponents_record(users, modules):
    """3.6172: "This name and its ID are secretly recorded on the RG Purchase Record
    (3.6179)."  The Axis buys I7; the British record shows no Axis line naming I7 or
    "Italian Infantry Coy" while it is unrevealed; the Axis's own line does."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    bought = buy(players, "axis", "I7")
    assert _line(players, "axis", bought).group_type == "Italian Infantry Coy"
    theirs = roster_of(players.campaign, "british").record
    assert all(ln.group_id != "I7" for ln in theirs), theirs
    assert all("Italian" not in ln.group_type for ln in theirs), theirs


def test_3_6179_leader_and_sw_received_are_written_on_the_line(users, modules, fixed_dice):
    """3.6179: "SW Received: As each SW for that RG is determined (RePh step 3.6182),
    record the number of each Weapon type received"; "Leader(s): As each eligible RG's
    (armor) leader(s) is determined (RePh step 3.6183) record his A10.7/D5.4 Strength
    Factor."  A Full Axis I7 (Italian) reads "1 LMG" and its leader DR 2+2 with the
    +2 Italian RG computed: an 8-1."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    bought = buy(players, "axis", "I7")
    players.until("strength")
    fixed_dice[:] = [[1, 1], [2, 2]]
    make_rolls(players, "axis", bought)
    line = _line(players, "axis", bought)
    assert line.strength == "F" and line.sw == "1 LMG", line
    assert any("8-1" in r and "+2 Italian RG" in r for r in line.rolls), line.rolls


def test_3_6041_an_eliminated_encircled_units_equipment_is_left_unpossessed(
    users, modules, fixed_dice
):
    """3.6041: "Failing the 1TC results in the unit's immediate Elimination ...
    Otherwise, any Equipment that an Eliminated Encircled unit possessed is left in the
    Location unpossessed."  An Encircled 4-6-7 holding an LMG fails (DR 12): the squad
    leaves the retained forces, the LMG stays, marked not possessed."""
    from campaign.models import Unit
    from campaign.services import steps
    from tests.purchase_helpers import add_unit

    players, _ = campaign_at("sicily", "i", "jul14n", users, step="3.604")
    squad = add_unit(players, "axis", "4-6-7", "squad", "encircled")
    add_unit(players, "axis", "LMG", "sw", possessor=squad.ref)
    fixed_dice[:] = [[6, 6]]
    steps.roll_on_table(
        campaign_id=players.campaign_id,
        user=players.users["axis"],
        table_id="encircled_1tc",
        unit_id=squad.ref,
    )
    left = list(Unit.objects.filter(campaign_id=players.campaign_id, side="axis"))
    assert [(u.name, u.markers, u.possessor_id) for u in left] == [("LMG", ["unpossessed"], None)]


def _escape(players, unit, leader, table="escape", side="axis"):
    from campaign.services import steps

    return steps.roll_on_table(
        campaign_id=players.campaign_id,
        user=players.users[side],
        table_id=table,
        unit_id=unit.ref,
        typed={"leader": leader},
    )


def test_3_606_the_leader_drm_typed_is_bounded_by_what_a_leader_can_give(
    users, modules, fixed_dice
):
    """3.606 "+x (Armor-)Leader/": the player types the leader's modifier, which a
    leader gives from -3 (a 10-3) to +1 (a 6+1) (A10.7, as 3.6041's 1TC leadership DRM).
    A typed -9 is refused in words naming the DRM, its bounds and 3.606; no roll is
    made; -3 is accepted."""
    from campaign.models import Roll
    from tests.purchase_helpers import add_unit

    players, _ = campaign_at("sicily", "i", "jul14n", users, step="3.606")
    squad = add_unit(players, "axis", "4-6-7", "squad", "isolated")
    with pytest.raises(ActionRefused) as refused:
        _escape(players, squad, -9)
    words = str(refused.value)
    assert "Leader" in words and "between -3 and 1" in words and "3.606" in words, words
    assert not Roll.objects.filter(campaign_id=players.campaign_id).exists()
    fixed_dice[:] = [[1, 2]]
    roll = _escape(players, squad, -3)
    assert {"label": "(Armor-)Leader/...", "value": -3, "how": "typed"} in roll.drms


def test_3_61426_the_armor_leader_drm_is_bounded_by_3_6183s_armor_leaders(
    users, modules, fixed_dice
):
    """3.61426 (the Escape of a mobile Isolated British tank at Night, 3.606's Mobile
    Vehicle column) "+x (Armor-)Leader/": the Armor Leaders of this CG are 10-2 to 8-1
    (3.6183's Armor Leader column), -2 to -1.  A typed -3 is refused with its bounds
    and the rule; -2 is accepted."""
    from tests.purchase_helpers import add_unit

    players, _ = campaign_at("sicily", "i", "jul14n", users, step="3.614")
    tank = add_unit(players, "british", "Sherman V", "vehicle", "isolated")
    with pytest.raises(ActionRefused) as refused:
        _escape(players, tank, -3, table="tank_escape", side="british")
    words = str(refused.value)
    assert "between -2 and 0" in words and "Armor-Leader" in words, words
    fixed_dice[:] = [[1, 2]]
    roll = _escape(players, tank, -2, table="tank_escape", side="british")
    assert {"label": "Armor-Leader DRM", "value": -2, "how": "typed"} in roll.drms
