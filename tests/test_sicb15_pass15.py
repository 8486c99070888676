"""Sicily (seed 001), the fifteenth pass of the sentence audit (issue 44): the Left
items of pass 12 (British chart footnote i's Bombardment, 3.6212 footnote * and
British forces not yet entered), then sentences of 3.615 to the end of the RePh, the
RG charts and their footnotes no earlier pass doc quotes, tried through the services
as two players meet them (docs/rules-audit/pass-15-sicb15.md)."""

from __future__ import annotations

import pytest

from campaign.models import Seat
from campaign.services import purchases
from campaign.services.errors import ActionRefused
from tests import test_rule_mechanisms as mechanisms
from tests.purchase_helpers import add_unit, campaign_at, make_rolls
from tests.test_rule_mechanisms import buy

users = mechanisms.users
fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


def _points(players, side):
    return Seat.objects.get(campaign_id=players.campaign_id, side=side).points


def _reveal(players, side, purchase):
    purchases.reveal_purchase(
        campaign_id=players.campaign_id, user=players.users[side], purchase_id=purchase.ref
    )


# --------------------------------------------------------------------------- Left: 3.6212 *


def test_3_6212_star_british_units_not_yet_entered_are_not_on_map(users, modules):
    """3.6212 matrix footnote *: "The Attack Chit cannot be selected by the Axis player
    if the British player currently has no on-map Retained units."; 3.6175: "If an Axis
    or British RG is purchased for its printed value it enters play during the course
    of the scenario".  On July 14 N the British hold only the units of an I3 bought that
    date at its printed value, revealed: they have not entered, so the Axis Attack is
    refused with the footnote; Idle is accepted."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    p = buy(players, "british", "I3")
    make_rolls(players, "british", p)
    _reveal(players, "british", p)
    players.until("initiative")
    with pytest.raises(ActionRefused) as refused:
        players.chits(axis="attack")
    said = str(refused.value)
    assert "3.6212" in said and "3.6175" in said, said
    players.chits(axis="idle")


def test_3_6212_star_a_withdrawn_british_unit_is_not_on_map(users, modules):
    """3.6212 footnote *: a British unit marked withdrawn (off map) is no on-map
    Retained unit: the Axis Attack is refused while it is the only one."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, kind="initiative")
    add_unit(players, "british", "4-5-8", "squad", "withdrawn")
    with pytest.raises(ActionRefused) as refused:
        players.chits(axis="attack")
    assert "3.6212" in str(refused.value)


def test_3_6212_star_a_british_unit_on_the_map_allows_the_axis_attack(users, modules):
    """3.6212 footnote *: the same British roster with one squad in good order beside
    the withdrawn one: the Axis may choose Attack."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, kind="initiative")
    add_unit(players, "british", "4-5-8", "squad", "withdrawn")
    add_unit(players, "british", "4-5-7", "squad")
    players.chits(axis="attack")
