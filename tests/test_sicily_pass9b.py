"""Sicily (seed 001), the ninth pass of the sentence audit, part B (issue 44): 3.615
to 3.623 and the RG charts, tried through the services as two players meet them
(docs/rules-audit/pass-9-sicily-b.md)."""

from __future__ import annotations

import pytest
from django.test import Client

from campaign.models import Purchase, Seat
from campaign.services.errors import ActionRefused
from tests import test_rule_mechanisms as mechanisms
from tests.purchase_helpers import campaign_at, roster_of
from tests.test_rule_mechanisms import buy

users = mechanisms.users

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


def _points(players, side):
    return Seat.objects.get(campaign_id=players.campaign_id, side=side).points


def _page(players, side):
    client = Client()
    client.force_login(players.users[side])
    return client.get(f"/campaigns/{players.campaign_id}/").content.decode()


def test_british_footnote_i_b1_records_its_secret_pre_registered_hex_when_bought(users, modules):
    """3.617 British chart footnote i: "When the British player purchases a pre-game
    Bombardment, he records a secret Pre-Registered hex for it."  B1 without a hex is
    refused with the footnote, nothing spent; with one, its line records it, seen by
    the British only; the chart row asks for it beside the price."""
    from campaign.services import purchases

    players, _ = campaign_at("sicily", "i", "jul14n", users)
    assert 'placeholder="Pre-Registered hex"' in _page(players, "british")
    before = _points(players, "british")
    with pytest.raises(ActionRefused) as refused:
        buy(players, "british", "B1")
    words = str(refused.value)
    assert "Pre-Registered hex" in words and "footnote i" in words, words
    assert _points(players, "british") == before
    assert not Purchase.objects.filter(campaign_id=players.campaign_id, group_id="B1").exists()
    b1 = purchases.purchase_rg(
        campaign_id=players.campaign_id,
        user=players.users["british"],
        group_id="B1",
        recorded_hex="23g5",
    )
    b1.refresh_from_db()
    assert b1.recorded_hex == "23G5"
    assert _points(players, "british") == before - 3
    mine = next(ln for ln in roster_of(players.campaign, "british").record if ln.group_id == "B1")
    assert mine.recorded_hex == "Pre-Registered hex 23G5"
    axis = roster_of(players.campaign, "axis").record
    assert all("23G5" not in ln.recorded_hex for ln in axis)
    # Another RG of the same column form is not refused for the hex field it carries.
    m1 = purchases.purchase_rg(
        campaign_id=players.campaign_id,
        user=players.users["british"],
        group_id="M1",
        recorded_hex="23G5",
    )
    m1.refresh_from_db()
    assert m1.recorded_hex == ""


def test_3_617_a_cg_max_of_0_in_the_cgs_column_is_not_available_in_that_cg(users, modules):
    """3.617 (3.6177 CG Max): British M2 Recon prints CG Max 0 for CG III.  In CG III
    it is "not available in CG III", not "0 of 0 bought"; nothing is spent, and the
    chart row gives the same reason."""
    players, _ = campaign_at("sicily", "iii", "jul14pm", users)
    before = _points(players, "british")
    with pytest.raises(ActionRefused) as refused:
        buy(players, "british", "M2")
    words = str(refused.value)
    assert "not available in CG III" in words, words
    assert "3.617" in words
    assert "0 of 0" not in words and "maximum is reached" not in words
    assert _points(players, "british") == before
    assert "not available in CG III" in _page(players, "british")
