"""Sicily (seed 001), pass 12 part C of the sentence audit (issue 44): the left items of
3.6212 footnote * and British chart footnote i, then sentences of 3.615-3.623 and the RG
charts' footnotes no earlier pass doc quotes, tried through the services as two players
meet them (docs/rules-audit/pass-12-sicc13.md)."""

from __future__ import annotations

import pytest

from campaign.services.errors import ActionRefused
from tests import test_rule_mechanisms as mechanisms
from tests.purchase_helpers import campaign_at
from tests.test_rule_mechanisms import add, buy

users = mechanisms.users
fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


def _step_page(players, side):
    from django.test import Client

    client = Client()
    client.force_login(players.users[side])
    return client.get(f"/campaigns/{players.campaign_id}/").content.decode()


# --------------------------------------------------------------------------- Part 1


def test_3_6212_star_an_empty_british_roster_is_the_fact_not_a_declaration(users, modules):
    """3.6212 matrix footnote *: "The Attack Chit cannot be selected by the Axis player
    if the British player currently has no on-map Retained units."  When the British
    retained forces (the roster Refit holds) list no unit, that is the fact: the Axis
    Attack is refused with the footnote without any British declaration, and nothing
    is locked; Idle is accepted."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, kind="initiative")
    page = _step_page(players, "axis")
    assert "retained forces list no unit you can see" in page, page
    assert "3.6212 matrix footnote *" in page
    with pytest.raises(ActionRefused) as refused:
        players.chits(axis="attack")
    text = str(refused.value)
    assert "3.6212" in text and "retained" in text, text
    from campaign.models import InitiativeChit

    assert not InitiativeChit.objects.filter(campaign_id=players.campaign_id).exists()
    players.chits(axis="idle")


def test_3_6212_star_a_british_unit_on_the_roster_lets_the_axis_attack(users, modules):
    """3.6212 footnote *: with one unit on the British retained forces the Axis may
    choose Attack (the British have not declared none)."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, kind="initiative")
    add(players, "british", "4-5-8", "squad")
    assert "retained forces list no unit" not in _step_page(players, "axis")
    players.chits(axis="attack")


def test_3_6212_star_a_secret_british_rg_does_not_decide_the_axis_chit(users, modules):
    """3.617 "the RG(s) purchased may all be kept secret" with 3.6212 footnote *: an
    RG the British bought this RePh is not on the map yet (it sets up at 3.622), and
    its lines are secret: the Axis chit is decided by the British units the Axis may
    see, so the Axis learns nothing of the purchase (refused either way)."""
    players, _ = campaign_at(
        "sicily", "i", "jul14n", users, kind="purchase", points=100, policy="owner"
    )
    i1 = buy(players, "british", "I1")
    assert i1.pk
    players.until("initiative")
    with pytest.raises(ActionRefused):
        players.chits(axis="attack")
