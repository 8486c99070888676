"""Issue 46: one click, one action.  The page names its posts with a token of its own
(``X-Refit-Once``, renewed when an answer arrives); the same form posted again with
the same token — a double-click whose second click got through, a retry — is answered
as the first was and acted on once, never a second purchase; a post after the answer
(a new token) is a new action.  Sicily 3.617: M2 Recon, Date Max 2."""

from __future__ import annotations

import re
import threading

import pytest
from django.db import connection
from django.test import Client

from campaign.models import ActionAnswer, Event, Purchase, Seat
from tests.purchase_helpers import campaign_at

pytestmark = pytest.mark.django_db


@pytest.fixture
def users(make_user):
    return make_user("axis_p"), make_user("brit_p")


@pytest.fixture
def british(modules, users):
    players, _ = campaign_at("sicily", "i", "jul15am", users)
    return players


def post(client, players, action, data, token, live=False):
    headers = {"HTTP_HX_REQUEST": "true", "HTTP_X_REFIT_ONCE": token}
    if live:
        headers["HTTP_X_REFIT_LIVE"] = "1"
    return client.post(f"/campaigns/{players.campaign_id}/act/{action}/", data, **headers)


def parts_of(answer):
    """The page parts an htmx answer carries (the ids of its out-of-band swaps)."""
    return tuple(re.findall(r'<[a-z]+ id="([^"]+)"[^>]*hx-swap-oob', answer.content.decode()))


def bought(players, group):
    return Purchase.objects.filter(campaign_id=players.campaign_id, group_id=group).count()


def points(players, side="british"):
    return Seat.objects.get(campaign_id=players.campaign_id, side=side).points


def test_3_617_the_same_buy_posted_twice_is_one_purchase_answered_alike(british, client):
    """M2 may be bought twice on July 15 AM: the same form posted twice from the same
    page is still one purchase, and the second post gets the first's answer."""
    client.force_login(british.users["british"])
    before = points(british)
    first = post(client, british, "buy", {"group": "M2"}, "page-1")
    second = post(client, british, "buy", {"group": "M2"}, "page-1")
    assert first.status_code == second.status_code == 200
    assert bought(british, "M2") == 1
    assert points(british) == before - 1
    # The answer shows the purchase, each time (the parts the first post changed).
    assert "M2" in second.content.decode()
    assert parts_of(second) == parts_of(first)
    assert Event.objects.filter(campaign_id=british.campaign_id, kind="purchase").count() == 1


def test_3_617_a_buy_after_the_answer_is_a_new_purchase(british, client):
    """The page renews its token when an answer arrives: the price clicked again, on
    purpose, buys the second M2 the chart allows."""
    client.force_login(british.users["british"])
    post(client, british, "buy", {"group": "M2"}, "page-1")
    post(client, british, "buy", {"group": "M2"}, "page-2")
    assert bought(british, "M2") == 2


def test_other_forms_with_the_same_token_are_other_actions(british, client):
    """The token names the page; the form's fields name the action: two prices
    clicked in one breath are two purchases."""
    client.force_login(british.users["british"])
    post(client, british, "buy", {"group": "M2"}, "page-1")
    post(client, british, "buy", {"group": "M1"}, "page-1")
    assert bought(british, "M2") == bought(british, "M1") == 1


def test_3_617_a_repeat_that_the_rules_would_refuse_gets_the_first_answer(british, client):
    """Where the limit allows one more only, the repeated post is not refused ("Date
    Max reached"): it answers with the first purchase, which is what the player did."""
    client.force_login(british.users["british"])
    post(client, british, "buy", {"group": "M2"}, "page-0")  # one of the two bought
    first = post(client, british, "buy", {"group": "M2"}, "page-1")
    second = post(client, british, "buy", {"group": "M2"}, "page-1")
    assert first.status_code == second.status_code == 200
    assert bought(british, "M2") == 2
    third = post(client, british, "buy", {"group": "M2"}, "page-2")  # a new click: refused
    assert third.status_code in (400, 409) and "3.617" in third.content.decode()


def test_a_refused_post_is_not_remembered(british, client):
    """A refusal changed nothing: the same form posted again is tried again (and
    refused again, with its sentence)."""
    client.force_login(british.users["british"])
    for _ in range(2):
        answer = post(client, british, "buy", {"group": "NOPE"}, "page-1")
        assert answer.status_code in (400, 409) and 'class="error"' in answer.content.decode()
    assert not ActionAnswer.objects.exists()


def test_a_message_sent_twice_from_the_same_page_is_one_message(british, client):
    client.force_login(british.users["axis"])
    url = f"/campaigns/{british.campaign_id}/messages/"
    for _ in range(2):
        answer = client.post(
            url, {"text": "See you Sunday"}, HTTP_HX_REQUEST="true", HTTP_X_REFIT_ONCE="p1"
        )
        assert answer.status_code == 200
    assert Event.objects.filter(campaign_id=british.campaign_id, kind="message").count() == 1


def test_a_post_without_a_token_is_acted_on_each_time(british, client):
    """A page without the script (a plain form) names no submission."""
    client.force_login(british.users["british"])
    url = f"/campaigns/{british.campaign_id}/act/buy/"
    client.post(url, {"group": "M2"}, HTTP_HX_REQUEST="true")
    client.post(url, {"group": "M2"}, HTTP_HX_REQUEST="true")
    assert bought(british, "M2") == 2


def test_another_players_token_is_his_own(british, client):
    """The answers are remembered per player: the opponent's post with the same token
    and fields is his own action."""
    client.force_login(british.users["axis"])
    post(client, british, "buy", {"group": "G1"}, "same")
    assert ActionAnswer.objects.filter(user=british.users["axis"]).count() == 1
    assert not ActionAnswer.objects.filter(user=british.users["british"]).exists()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_3_617_the_same_buy_posted_at_once_from_five_threads_is_one_purchase(modules, users):
    """The same form posted five times at the same instant (a double-click, retries),
    at PostgreSQL: one purchase, one point spent, every post answered alike — the
    unique answer makes the racing posts wait for the first and read its answer."""
    players, _ = campaign_at("sicily", "i", "jul15am", users)
    before = points(players)
    barrier = threading.Barrier(5)
    answers = []

    def attempt():
        client = Client()
        client.force_login(players.users["british"])
        try:
            barrier.wait(timeout=20)
            answers.append(post(client, players, "buy", {"group": "M2"}, "page-1", live=True))
        finally:
            connection.close()

    threads = [threading.Thread(target=attempt) for _ in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [a.status_code for a in answers] == [200] * 5
    assert len({parts_of(a) for a in answers}) == 1
    assert bought(players, "M2") == 1
    assert points(players) == before - 1
    assert ActionAnswer.objects.count() == 1


def test_the_answers_are_not_in_a_backup(british, client):
    """Remembered answers are the server's, not the game's: a backup leaves them out."""
    from campaign.services import backup

    client.force_login(british.users["british"])
    post(client, british, "buy", {"group": "M2"}, "page-1")
    assert ActionAnswer.objects.count() == 1
    assert b"actionanswer" not in backup.export_campaign(campaign_id=british.campaign_id)
