"""Issue 10: several ASGI workers, restarts and a Redis outage.

Two daphne processes share PostgreSQL and Redis: a player on each still sees the
reveal.  A worker restarted between two actions loses nothing and a reconnecting
socket is resynced.  With Redis down, actions still work over HTTP and pages show the
truth; pushes resume when Redis returns.
"""

import asyncio
import subprocess
import time

import httpx
import pytest
import websockets
from asgiref.sync import sync_to_async
from django.test import Client

from campaign.models import InitiativeOutcome
from tests.conftest import ARTIFACTS
from tests.servers import free_port
from tests.walk import Players

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.django_db(transaction=True)]
CSRF = "c" * 32


def _cookie(user) -> str:
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}; csrftoken={CSRF}"


def _at_initiative(campaign, alice, bob) -> Players:
    players = Players(campaign, {"red": alice, "blue": bob})
    players.results(**{"cvp_lost.red": 0, "cvp_lost.blue": 0, "san.red": 2, "san.blue": 2})
    players.until("initiative")
    return players


async def _socket(server, campaign, cookie):
    url = server.url.replace("http://", "ws://") + f"/ws/campaigns/{campaign.pk}/"
    return await websockets.connect(
        url, additional_headers={"Cookie": cookie, "Origin": server.url}, max_size=2**22
    )


async def _until(ws, needle: str, timeout: float = 10) -> str:
    deadline = time.monotonic() + timeout
    while True:
        frame = await asyncio.wait_for(ws.recv(), timeout=max(0.1, deadline - time.monotonic()))
        if needle in frame:
            return frame


async def _lock(server, campaign, cookie, chit) -> int:
    async with httpx.AsyncClient(timeout=20) as http:
        r = await http.post(
            f"{server.url}/campaigns/{campaign.pk}/act/chit/",
            data={"chit": chit},
            headers={"Cookie": cookie, "X-CSRFToken": CSRF, "HX-Request": "true"},
        )
    return r.status_code


async def test_two_workers_a_player_on_each_both_see_the_reveal(hosted, start_server):
    campaign, alice, bob = hosted
    await sync_to_async(_at_initiative)(campaign, alice, bob)
    one, two = start_server(), start_server()
    a_cookie, b_cookie = await sync_to_async(_cookie)(alice), await sync_to_async(_cookie)(bob)
    alice_ws = await _socket(one, campaign, a_cookie)
    bob_ws = await _socket(two, campaign, b_cookie)
    assert await _lock(one, campaign, a_cookie, "attack") == 200
    await _until(bob_ws, "<strong>Red</strong>: has chosen")
    assert await _lock(two, campaign, b_cookie, "idle") == 200
    for ws in (alice_ws, bob_ws):
        frame = await _until(ws, "Initiative revealed: Red Attack, Blue Idle")
        assert "Red Attack" in frame
        await ws.close()


async def test_a_restarted_worker_loses_nothing_and_resyncs_the_socket(hosted, start_server):
    campaign, alice, bob = hosted
    await sync_to_async(_at_initiative)(campaign, alice, bob)
    a_cookie, b_cookie = await sync_to_async(_cookie)(alice), await sync_to_async(_cookie)(bob)
    server = start_server()
    bob_ws = await _socket(server, campaign, b_cookie)
    assert await _lock(server, campaign, a_cookie, "idle") == 200
    server.stop()  # the worker goes down between the two actions
    with pytest.raises(websockets.ConnectionClosed):
        await asyncio.wait_for(_until(bob_ws, "never"), timeout=5)
    restarted = start_server()
    bob_ws = await _socket(restarted, campaign, b_cookie)  # the browser reconnects
    frame = await _until(bob_ws, "has chosen")  # resynced at once
    assert "<strong>Red</strong>: has chosen" in frame
    assert await _lock(restarted, campaign, b_cookie, "idle") == 200
    await _until(bob_ws, "Initiative revealed: Red Idle, Blue Idle")
    assert await sync_to_async(InitiativeOutcome.objects.count)() == 1
    await bob_ws.close()


async def test_redis_outage_actions_work_and_pushes_resume(hosted, start_server):
    campaign, alice, bob = hosted
    await sync_to_async(_at_initiative)(campaign, alice, bob)
    port = free_port()
    ARTIFACTS.mkdir(exist_ok=True)

    def redis():
        return subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(ARTIFACTS),
            ],
            stdout=subprocess.DEVNULL,
        )

    proc = redis()
    time.sleep(0.5)
    server = start_server(REDIS_URL=f"redis://127.0.0.1:{port}/0")
    a_cookie, b_cookie = await sync_to_async(_cookie)(alice), await sync_to_async(_cookie)(bob)
    try:
        proc.terminate()
        proc.wait()
        # Redis is down: the action still works over HTTP ...
        assert await _lock(server, campaign, a_cookie, "attack") == 200
        async with httpx.AsyncClient(timeout=20) as http:
            page = await http.get(
                f"{server.url}/campaigns/{campaign.pk}/", headers={"Cookie": b_cookie}
            )
        # ... and a reload shows the truth.
        assert page.status_code == 200 and "<strong>Red</strong>: has chosen" in page.text
        proc = redis()  # Redis returns: pushes resume
        time.sleep(0.5)
        bob_ws = await _socket(server, campaign, b_cookie)
        assert await _lock(server, campaign, b_cookie, "attack") == 200
        await _until(bob_ws, "Initiative revealed: Red Attack, Blue Attack")
        await bob_ws.close()
    finally:
        proc.terminate()
