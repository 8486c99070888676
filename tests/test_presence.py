"""Issue 18: presence that heals.  A seat is online while one of its sockets beats
(a row per socket with an expiry, renewed every heartbeat), not while a counter says
so: a socket whose worker died simply stops beating and expires, and the opponent's
page turns it offline by itself.  Consumers weather a channel layer that fails: a
socket is accepted, joins its groups when the layer is back and resyncs its page; no
exception escapes."""

from __future__ import annotations

import asyncio
import logging
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from channels.layers import InMemoryChannelLayer, get_channel_layer
from channels.testing import WebsocketCommunicator
from django.test import Client, override_settings
from django.utils import timezone

from campaign.models import Presence, Seat
from campaign.seat_views.campaign_page import campaign_view
from campaign.services import initiative, presence, push
from config.asgi import application
from tests.walk import Players

HEADERS = [(b"origin", b"http://127.0.0.1"), (b"host", b"127.0.0.1")]
FAST = {"PRESENCE_HEARTBEAT": 0.1, "PRESENCE_TTL": 0.6, "PRESENCE_RESYNC_BEATS": 1000}


def _online(campaign, user) -> dict[str, bool]:
    return {s.id: s.online for s in campaign_view(user, campaign.pk).sides}


@pytest.mark.django_db
def test_a_seat_is_online_while_one_of_its_sockets_beats(hosted):
    campaign, alice, bob = hosted
    red = Seat.objects.get(campaign=campaign, side="red")
    assert _online(campaign, bob) == {"red": False, "blue": False}
    assert presence.beat(socket="tab-1", seat_id=red.pk) is True
    assert presence.beat(socket="tab-2", seat_id=red.pk) is True
    assert presence.beat(socket="tab-1", seat_id=red.pk) is False  # renewed, not new
    assert _online(campaign, bob)["red"]
    presence.leave(socket="tab-1")
    assert _online(campaign, bob)["red"]  # the other tab is still open
    # The worker of tab 2 is killed: nothing deletes its row, it just stops beating.
    Presence.objects.filter(socket="tab-2").update(expires_at=timezone.now())
    assert _online(campaign, bob) == {"red": False, "blue": False}
    assert presence.sweep() == 1 and not Presence.objects.exists()


@pytest.mark.django_db
def test_a_renewing_beat_is_one_statement(hosted, django_assert_num_queries):
    """Every open page beats every PRESENCE_HEARTBEAT seconds: renewing is one UPDATE."""
    campaign, _, _ = hosted
    red = Seat.objects.get(campaign=campaign, side="red")
    assert presence.beat(socket="tab-1", seat_id=red.pk) is True
    first = Presence.objects.get(socket="tab-1").expires_at
    with django_assert_num_queries(1):
        assert presence.beat(socket="tab-1", seat_id=red.pk) is False
    assert Presence.objects.get(socket="tab-1").expires_at > first


async def _socket(campaign, user):
    client = Client()
    await sync_to_async(client.force_login)(user)
    cookie = f"sessionid={client.cookies['sessionid'].value}".encode()
    comm = WebsocketCommunicator(
        application, f"/ws/campaigns/{campaign.pk}/", headers=[*HEADERS, (b"cookie", cookie)]
    )
    connected, _ = await comm.connect(timeout=10)
    assert connected
    return comm


async def _until(comm, needle: str, timeout: float = 10) -> str:
    async def wait() -> str:
        while True:
            frame = await comm.receive_from(timeout=timeout)
            if needle in frame:
                return frame

    return await asyncio.wait_for(wait(), timeout)


@pytest.mark.django_db(transaction=True)
async def test_a_socket_of_a_killed_worker_expires_and_the_opponent_sees_it(hosted):
    campaign, alice, bob = hosted
    red = await sync_to_async(Seat.objects.get)(campaign=campaign, side="red")
    # Alice's page was served by a worker that was killed: its row stopped beating.
    await sync_to_async(Presence.objects.create)(
        socket="killed", seat=red, expires_at=timezone.now() + timedelta(seconds=0.6)
    )
    with override_settings(**FAST):
        bob_ws = await _socket(campaign, bob)
        await _until(bob_ws, 'class="presence online"')
        # No one does anything: Bob's own heartbeat re-renders the sides.
        await _until(bob_ws, 'class="presence offline"')
        await bob_ws.disconnect()
    # Bob's row went with his socket; the dead one is swept when a socket next opens.
    left = await sync_to_async(list)(Presence.objects.values_list("socket", flat=True))
    assert left == ["killed"]


@pytest.mark.django_db(transaction=True)
async def test_a_beating_socket_stays_online_past_its_ttl_and_leaves_when_closed(hosted):
    campaign, alice, bob = hosted
    with override_settings(**FAST):
        alice_ws = await _socket(campaign, alice)
        await _until(alice_ws, 'id="campaign-header"')  # sent once its presence is written
        first = await sync_to_async(Presence.objects.get)()
        await asyncio.sleep(3 * FAST["PRESENCE_TTL"])
        renewed = await sync_to_async(Presence.objects.get)()
        assert renewed.socket == first.socket and renewed.expires_at > first.expires_at
        assert (await sync_to_async(_online)(campaign, bob))["red"]
        await alice_ws.disconnect()
    assert not await sync_to_async(Presence.objects.exists)()
    assert not (await sync_to_async(_online)(campaign, bob))["red"]


# --------------------------------------------------------------------------- a failing layer


class FlakyLayer(InMemoryChannelLayer):
    """The in-memory layer, with Redis's failures: while ``down``, every call raises
    ConnectionError, and coming back it has forgotten every group (a restart)."""

    down = False

    async def _check(self) -> None:
        if FlakyLayer.down:
            await asyncio.sleep(0.01)
            raise ConnectionError("Error 111 connecting to 127.0.0.1:6390. Connection refused.")

    async def group_add(self, group, channel):
        await self._check()
        await super().group_add(group, channel)

    async def group_send(self, group, message):
        await self._check()
        await super().group_send(group, message)

    async def group_discard(self, group, channel):
        await self._check()
        await super().group_discard(group, channel)

    async def receive(self, channel):
        await self._check()
        return await super().receive(channel)

    def restart(self) -> None:
        FlakyLayer.down = False
        self.groups.clear()


FLAKY = {"default": {"BACKEND": "tests.test_presence.FlakyLayer"}}


@pytest.fixture
def flaky():
    FlakyLayer.down = False
    yield FlakyLayer
    FlakyLayer.down = False


def _lock(players: Players, side: str, chit: str) -> None:
    initiative.lock_initiative(campaign_id=players.campaign_id, user=players.users[side], chit=chit)


@pytest.mark.django_db(transaction=True)
async def test_a_socket_opened_during_a_layer_outage_is_accepted_and_catches_up(
    hosted, flaky, caplog
):
    campaign, alice, bob = hosted
    players = Players(campaign, {"red": alice, "blue": bob})
    values = {"cvp_lost.red": 0, "cvp_lost.blue": 0, "san.red": 2, "san.blue": 2}
    await sync_to_async(players.results)(**values)
    await sync_to_async(players.until)("initiative")
    with override_settings(CHANNEL_LAYERS=FLAKY, **FAST):
        flaky.down = True
        bob_ws = await _socket(campaign, bob)  # accepted, though its groups cannot be joined
        await _until(bob_ws, 'id="campaign-step"')
        await _until(bob_ws, 'id="campaign-log"')  # the page's other parts, in a 2nd frame
        # Alice locks her chit: the push is lost (the layer is down) ...
        await sync_to_async(_lock)(players, "red", "attack")
        assert await bob_ws.receive_nothing(timeout=0.3)
        # ... the layer comes back, empty: Bob's socket re-joins and resyncs by itself.
        get_channel_layer().restart()
        await _until(bob_ws, "<strong>Red</strong>: has chosen")
        # Pushes flow again.
        await sync_to_async(_lock)(players, "blue", "idle")
        await _until(bob_ws, "Initiative revealed: Red Attack, Blue Idle")
        flaky.down = True  # and it closes during another outage without an error
        await bob_ws.disconnect()
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not errors, [r.getMessage() for r in errors]
    assert not [r for r in caplog.records if r.exc_info], "a traceback was logged"


@pytest.mark.django_db(transaction=True)
async def test_a_live_socket_is_accepted_during_a_layer_outage(make_user, flaky, caplog):
    user = await sync_to_async(make_user)()
    client = Client()
    await sync_to_async(client.force_login)(user)
    cookie = f"sessionid={client.cookies['sessionid'].value}".encode()
    with override_settings(CHANNEL_LAYERS=FLAKY):
        flaky.down = True
        comm = WebsocketCommunicator(
            application, "/ws/live/", headers=[*HEADERS, (b"cookie", cookie)]
        )
        connected, _ = await comm.connect(timeout=10)
        assert connected
        assert "live" in await comm.receive_from(timeout=10)
        await comm.disconnect()
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


@pytest.mark.django_db(transaction=True)
async def test_a_push_is_sent_once_per_change_and_in_order_while_heartbeats_run(hosted):
    """Heartbeat renders and push renders share one lock: frames never go back in time,
    and each part of a change is sent once (the parts a player reads first in one
    frame, the others in the next)."""
    campaign, alice, bob = hosted
    players = Players(campaign, {"red": alice, "blue": bob})
    values = {"cvp_lost.red": 0, "cvp_lost.blue": 0, "san.red": 2, "san.blue": 2}
    await sync_to_async(players.results)(**values)
    await sync_to_async(players.until)("initiative")
    with override_settings(**{**FAST, "PRESENCE_HEARTBEAT": 0.01, "PRESENCE_RESYNC_BEATS": 2}):
        bob_ws = await _socket(campaign, bob)
        await sync_to_async(_lock)(players, "red", "attack")
        await get_channel_layer().group_send(
            push.campaign_group(campaign.pk),
            {"type": push.CAMPAIGN_CHANGED, "changes": ["ChitLocked"]},
        )
        chosen, logged = "<strong>Red</strong>: has chosen", "Red has chosen its initiative chit."
        frames: list[str] = []
        while not (any(chosen in f for f in frames) and any(logged in f for f in frames)):
            frames.append(await bob_ws.receive_from(timeout=10))
        for k, frame in enumerate(frames):
            assert frame.count('id="campaign-step"') <= 1 and frame.count('id="campaign-log"') <= 1
            if any(chosen in f for f in frames[:k]):  # never back to a step without it
                assert 'id="campaign-step"' not in frame or chosen in frame
        # From now on the page is up to date: beats and resyncs send nothing more.
        assert await bob_ws.receive_nothing(timeout=0.5)
        await bob_ws.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_the_periodic_resync_redraws_a_page_only_when_its_seat_has_a_new_revision(
    hosted, monkeypatch, caplog
):
    """Every PRESENCE_RESYNC_BEATS beats a socket catches up on a push lost unseen, but
    an idle page (its seat's revision the same as when it was last drawn in full) is
    not re-rendered: only its sides are (presence).  A change whose push was lost gives
    the seat a new revision, and the next resync draws the page in full."""
    from campaign.consumers import CampaignConsumer

    campaign, alice, bob = hosted
    players = Players(campaign, {"red": alice, "blue": bob})
    values = {"cvp_lost.red": 0, "cvp_lost.blue": 0, "san.red": 2, "san.blue": 2}
    await sync_to_async(players.results)(**values)
    await sync_to_async(players.until)("initiative")
    rendered: list[set[str]] = []
    render = CampaignConsumer._render

    def recording(self, view, parts):
        rendered.append({str(p) for p in parts})
        return render(self, view, parts)

    monkeypatch.setattr(CampaignConsumer, "_render", recording)
    with override_settings(**{**FAST, "PRESENCE_HEARTBEAT": 0.05, "PRESENCE_RESYNC_BEATS": 2}):
        bob_ws = await _socket(campaign, bob)
        await _until(bob_ws, 'id="campaign-log"')  # drawn in full at connecting

        async def beats(n: int) -> None:
            while len(rendered) < n:
                await asyncio.sleep(0.02)

        await asyncio.wait_for(beats(12), 30)  # ten beats, five of them resyncs
        assert all(parts == {"sides"} for parts in rendered[2:]), rendered
        # Alice locks her chit and its push is lost: the next resync draws it.
        monkeypatch.setattr(push, "send", lambda group, message: None)
        await sync_to_async(_lock)(players, "red", "attack")
        await _until(bob_ws, "<strong>Red</strong>: has chosen")
        await bob_ws.disconnect()
    # The catch-up is logged: a lost push is seen in the worker's log, not guessed.
    assert "caught up at its resync" in caplog.text
