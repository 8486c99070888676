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
