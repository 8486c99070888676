"""The worker's HTTP handler (``config.handler``): the middleware chain is built sync
and entered once, so a request hands over from the event loop to the thread for
sync code once and stays there until its response is made."""

import threading

import pytest
from asgiref.sync import AsyncToSync
from channels.testing import HttpCommunicator

from campaign import middleware
from config.asgi import application, django_asgi_app
from config.handler import OneHopASGIHandler

pytestmark = pytest.mark.django_db(transaction=True)
HOST = [(b"host", b"127.0.0.1")]


def get(path: str) -> HttpCommunicator:
    return HttpCommunicator(application, "GET", path, headers=HOST)


@pytest.fixture
def hand_overs(monkeypatch):
    """The calls back from sync code to the event loop, and the threads the edge
    middleware ran in, while the fixture lives."""
    seen = {"to_loop": 0, "threads": set()}
    to_loop = AsyncToSync.__call__

    def counted(self, *args, **kwargs):
        seen["to_loop"] += 1
        return to_loop(self, *args, **kwargs)

    problem = middleware._problem

    def where(request):
        seen["threads"].add(threading.get_ident())
        return problem(request)

    monkeypatch.setattr(AsyncToSync, "__call__", counted)
    monkeypatch.setattr(middleware, "_problem", where)
    return seen


async def test_a_page_is_served_without_going_back_to_the_event_loop(hand_overs):
    assert isinstance(django_asgi_app, OneHopASGIHandler)
    response = await get("/login/").get_response()
    assert response["status"] == 200
    assert b'name="password"' in response["body"]
    assert hand_overs["to_loop"] == 0  # Django's own async chain went back once (axes)
    assert len(hand_overs["threads"]) == 1
    assert threading.get_ident() not in hand_overs["threads"]  # not on the event loop


async def test_a_refusal_at_the_edge_is_still_a_sentence_through_the_worker(hand_overs):
    response = await get("/campaigns/%00/").get_response()
    assert response["status"] == 400
    assert "control character" in response["body"].decode()
    assert hand_overs["to_loop"] == 0


async def test_a_missing_page_is_a_404_page_through_the_worker():
    response = await get("/no-such-page/").get_response()
    assert response["status"] == 404
    assert b"<html" in response["body"].lower()


def test_healthz_says_what_it_checked_and_the_version(client, db):
    """Issue 48: the proxy's and compose's health check: 200 when the database and the
    channel layer answer, with the version; no session needed, nothing secret."""

    response = client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok" and body["database"] and body["channel_layer"]
    assert body["version"] and body["version"] != "unknown"
    assert "sessionid" not in response.cookies


def test_the_version_is_in_the_footer_and_the_command(client, db, capsys):
    from django.core.management import call_command

    from campaign.views.health import version

    assert f"Refit {version()}" in client.get("/").content.decode()
    call_command("version")
    assert capsys.readouterr().out.strip() == version()
