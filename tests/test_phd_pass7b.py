"""Purple Heart Draw, seventh pass, part B (issue 44): C5.26 to the end of C5, the RG
chart's footnotes and the forms.  Each test drives a sentence of
``rules/ledger/sentences/purple-heart-draw-c5-late.yaml`` (or ``-forms.yaml``) through
the services, as a player would, and cites its rule."""

from __future__ import annotations

import pytest

from campaign.models import AddedLater, Event, Purchase, Seat
from campaign.seat_views.campaign_page import campaign_view
from campaign.selectors import module_of
from campaign.services import purchases
from campaign.services.errors import ActionRefused
from tests.test_phd_conph_late import OBA, OBA_P
from tests.test_rule_mechanisms import (
    fixed_dice,
    phd_with_chart,
    result_values,
    supply_chart,
    users,
)

pytestmark = [pytest.mark.django_db, pytest.mark.rules]
__all__ = ["fixed_dice", "users"]  # the fixtures this file shares


def _points(players, side: str) -> int:
    return Seat.objects.get(campaign_id=players.campaign_id, side=side).points


def _add(players, side: str, purchase: Purchase, *, affirmed: bool = True) -> AddedLater:
    return purchases.buy_added_later(
        campaign_id=players.campaign_id,
        user=players.users[side],
        purchase_id=purchase.ref,
        item="prereg_hex",
        affirmed=affirmed,
    )


def _line(players, side: str, purchase: Purchase):
    view = campaign_view(players.users[side], players.campaign_id)
    return next((x for x in view.record if x.id == purchase.ref), None)


def oba_bought_at_the_start(users, variant: str = "prereg1"):
    """A PHD TM whose German bought O1 (an OBA module marked p) at I-C5.31 with
    ``variant``'s Pre-Registered hexes, and O2 (not marked p); then the Initial TM
    Scenario played and the campaign at the 0930 TM Scenario's C5.31."""
    players, c = phd_with_chart(users, [OBA_P, OBA])
    supply_chart(players, "us", [{**OBA, "type": "81mm OBA Module"}])
    german = players.users["german"]
    o1 = purchases.purchase_rg(campaign_id=c.pk, user=german, group_id="O1", cost_variant=variant)
    o2 = purchases.purchase_rg(campaign_id=c.pk, user=german, group_id="O2")
    players.until("results")
    players.results(**result_values(module_of(c)))
    players.until_step("C5.31")
    return players, o1, o2


def test_rg_footnote_p_a_further_pre_registered_hex_for_a_module_bought_earlier(users, modules):
    """C5.31 RG footnote p, second sentence: "If the OBA module is unused during
    current TM Scenario, an additional two TP expenditure may be made to requisition
    each additional Pre-Registered hex.  Note there is a limit of two Pre-Registered
    hexes per OBA module": at the 0930 purchase step the German buys, for 2 TP, a
    second hex for O1 (bought at the start with one); a third is refused (the limit
    counts the one bought with it); the player must affirm the module was unused (the
    map's); O2 (no footnote p) is refused.  The purchase is secret, although O1 is
    revealed: the US sees nothing of it, not even a log line, until the purchases of
    that step are revealed."""
    players, o1, o2 = oba_bought_at_the_start(users)
    line = _line(players, "german", o1)
    assert [label for _, label, _ in line.can_add_later] == ["A further Pre-Registered hex (2 TP)"]
    assert "unused during the current TM Scenario (C5.31 RG footnote p)" in line.can_add_later[0][2]
    before = _points(players, "german")
    with pytest.raises(ActionRefused, match=r"Only if: The OBA module was unused.*footnote p"):
        _add(players, "german", o1, affirmed=False)
    with pytest.raises(ActionRefused, match=r"O2 81mm OBA Module cannot have"):
        _add(players, "german", o2)
    assert _points(players, "german") == before
    added = _add(players, "german", o1)
    assert (added.cost, added.revealed_at) == (2, None)
    assert _points(players, "german") == before - 2
    line = _line(players, "german", o1)
    assert line.added_later == ("A further Pre-Registered hex (2 TP) bought on 0930 hrs",)
    assert line.can_add_later == ()  # two now: none offered
    with pytest.raises(ActionRefused, match=r"already has 2, the most it may have"):
        _add(players, "german", o1)
    assert _points(players, "german") == before - 2
    # secret: the US sees no such record, no log line naming it
    assert not AddedLater.objects.visible_to("us").exists()
    assert not Event.objects.visible_to("us").filter(data__added_later=added.pk).exists()
    # O1 itself was revealed when the start's purchase step ended (reveal policy "step
    # end"): its line shows the US the hex bought with it, not the one bought now
    assert _line(players, "us", o1).added_later == ()
    players.finish()  # both done with C5.31: this purchase step's purchases are revealed
    assert AddedLater.objects.visible_to("us").count() == 1
    assert Event.objects.visible_to("us").filter(data__added_later=added.pk).exists()
    assert _line(players, "us", o1).added_later == line.added_later


def test_rg_footnote_p_no_further_hex_at_purchase_nor_for_a_module_no_longer_held(users, modules):
    """C5.31 RG footnote p: the further hexes are for a module bought earlier (the
    ones bought with it are its price: +2/+4 TP) and still held (a module that placed
    an FFE is eliminated, TM13): refused at the step that bought it, and once it is
    marked eliminated; a module bought with none may take two later."""
    players, c = phd_with_chart(users, [OBA_P, OBA])
    german = players.users["german"]
    o1 = purchases.purchase_rg(campaign_id=c.pk, user=german, group_id="O1", cost_variant="prereg1")
    with pytest.raises(ActionRefused, match=r"was bought at this step"):
        _add(players, "german", o1)
    other = purchases.purchase_rg(campaign_id=c.pk, user=german, group_id="O1")
    players.until("results")
    players.results(**result_values(module_of(c)))
    players.until_step("C5.31")
    purchases.change_rg_state(campaign_id=c.pk, user=german, purchase_id=o1.ref, state="eliminated")
    with pytest.raises(ActionRefused, match=r"no longer in your OB"):
        _add(players, "german", o1)
    _add(players, "german", other)
    _add(players, "german", other)
    with pytest.raises(ActionRefused, match=r"already has 2"):
        _add(players, "german", other)
