"""Issue 46: "since your last visit" — the campaign page opens with what the opponent
did since the player last opened it (moves, proposals, messages, reveals), read
through the gate: an opponent's secret purchase shows only that one was made."""

from __future__ import annotations

import pytest

from campaign.models import Seat
from campaign.services import messages, purchases
from tests.purchase_helpers import campaign_at

pytestmark = pytest.mark.django_db


def test_the_digest_lists_the_opponents_moves_since_the_last_visit(modules, make_user, login):
    players, _ = campaign_at("sicily", "i", "jul14n", (make_user("ax"), make_user("br")))
    axis = login(players.users["axis"])
    url = f"/campaigns/{players.campaign_id}/digest/"
    first = axis.get(url)
    assert first.status_code == 200 and "Since your last visit" not in first.content.decode()
    assert Seat.objects.get(campaign_id=players.campaign_id, side="axis").visited_at
    bought = purchases.purchase_rg(
        campaign_id=players.campaign_id, user=players.users["british"], group_id="V6"
    )
    messages.send_message(
        campaign_id=players.campaign_id, user=players.users["british"], text="Your move!"
    )
    page = axis.get(url).content.decode()
    assert "Since your last visit" in page and "Your move!" in page
    assert "AC Pltn II" not in page and bought.group_id not in page  # the gate's words only
    assert "British" in page
    again = axis.get(url).content.decode()  # seen: nothing new
    assert "Nothing new from your opponent since your last visit" in again
    # The British player's own digest never lists his own moves.
    british = login(players.users["british"])
    british.get(url)
    messages.send_message(
        campaign_id=players.campaign_id, user=players.users["british"], text="Still there?"
    )
    assert "Still there?" not in british.get(url).content.decode()


def test_a_stranger_gets_no_digest(modules, make_user, login):
    players, _ = campaign_at("sicily", "i", "jul14n", (make_user("ax"), make_user("br")))
    stranger = login(make_user("mallory"))
    assert stranger.get(f"/campaigns/{players.campaign_id}/digest/").status_code == 404


def test_the_same_page_load_asking_twice_is_told_the_same(modules, make_user, login):
    """A page that fetches its digest twice (its socket's processing, a retry) reads
    the same lines both times; the next page load finds nothing new."""
    players, _ = campaign_at("sicily", "i", "jul14n", (make_user("ax"), make_user("br")))
    axis = login(players.users["axis"])
    url = f"/campaigns/{players.campaign_id}/digest/"
    axis.get(url, {"page": "1000.5"})
    messages.send_message(
        campaign_id=players.campaign_id, user=players.users["british"], text="Ready?"
    )
    first = axis.get(url, {"page": "2000.5"}).content.decode()
    again = axis.get(url, {"page": "2000.5"}).content.decode()
    assert "Ready?" in first and first == again
    assert "Nothing new" in axis.get(url, {"page": "3000.5"}).content.decode()
