"""The websocket endpoint is authenticated by the session and refuses anonymous sockets."""

import asyncio
import json
import re

import pytest
from asgiref.sync import sync_to_async
from autobahn.exception import Disconnected as DaphneDisconnected
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.test import Client

from campaign.changes import PresenceChanged
from campaign.consumers import ANONYMOUS_CLOSE_CODE, LiveConsumer
from campaign.services.push import user_group
from config.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)

ORIGIN = (b"origin", b"http://127.0.0.1")
HOST = (b"host", b"127.0.0.1")


def _session_cookie(user) -> bytes:
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}".encode()


async def test_anonymous_socket_is_refused():
    comm = WebsocketCommunicator(application, "/ws/live/", headers=[ORIGIN, HOST])
    connected, code = await comm.connect(timeout=10)
    assert not connected
    await comm.disconnect()  # as the server does after refusing
    assert code == ANONYMOUS_CLOSE_CODE


async def test_socket_from_a_foreign_origin_is_refused(make_user):
    user = await sync_to_async(make_user)()
    cookie = await sync_to_async(_session_cookie)(user)
    comm = WebsocketCommunicator(
        application,
        "/ws/live/",
        headers=[(b"origin", b"http://evil.example"), HOST, (b"cookie", cookie)],
    )
    connected, _ = await comm.connect(timeout=10)
    assert not connected
    await comm.disconnect()  # as the server does after refusing


async def test_logged_in_socket_connects_and_closes_when_its_session_ends(make_user):
    user = await sync_to_async(make_user)()
    cookie = await sync_to_async(_session_cookie)(user)
    comm = WebsocketCommunicator(
        application, "/ws/live/", headers=[ORIGIN, HOST, (b"cookie", cookie)]
    )
    connected, _ = await comm.connect(timeout=10)
    assert connected
    hello = await comm.receive_from(timeout=10)
    assert 'id="live-status"' in hello and "live" in hello
    # Another session of the same user ending leaves this socket open ...
    await get_channel_layer().group_send(
        user_group(user.pk), {"type": "session.ended", "session": "some-other-session"}
    )
    assert await comm.receive_nothing(timeout=0.3)
    # ... its own session ending closes it.
    session = cookie.decode().split("=", 1)[1]
    await get_channel_layer().group_send(
        user_group(user.pk), {"type": "session.ended", "session": session}
    )
    assert (await comm.receive_output(timeout=3))["type"] == "websocket.close"
    await comm.disconnect()  # as the server does after the close


async def _campaign_socket(campaign, user):
    cookie = await sync_to_async(_session_cookie)(user)
    comm = WebsocketCommunicator(
        application, f"/ws/campaigns/{campaign.pk}/", headers=[ORIGIN, HOST, (b"cookie", cookie)]
    )
    connected, code = await comm.connect(timeout=10)
    return comm, connected, code


async def _receive_until(comm, needle: str, limit: int = 10) -> str:
    for _ in range(limit):
        frame = await comm.receive_from(timeout=3)
        if needle in frame:
            return frame
    raise AssertionError(f"no frame contained {needle!r}")


async def test_campaign_socket_refuses_strangers_and_anonymous(hosted, make_user):
    campaign, *_ = hosted
    mallory = await sync_to_async(make_user)("mallory")
    comm, connected, code = await _campaign_socket(campaign, mallory)
    assert not connected and code == 4404
    await comm.disconnect()  # as the server does after refusing
    comm = WebsocketCommunicator(
        application, f"/ws/campaigns/{campaign.pk}/", headers=[ORIGIN, HOST]
    )
    connected, code = await comm.connect(timeout=10)
    assert not connected and code == ANONYMOUS_CLOSE_CODE
    await comm.disconnect()  # as the server does after refusing


async def test_members_see_each_other_online_live(hosted):
    campaign, alice, bob = hosted
    alice_ws, connected, _ = await _campaign_socket(campaign, alice)
    assert connected
    first = await alice_ws.receive_from(timeout=10)
    assert 'id="campaign-header"' in first and 'hx-swap-oob="true"' in first
    bob_ws, connected, _ = await _campaign_socket(campaign, bob)
    assert connected
    frame = await _receive_until(alice_ws, 'class="presence online"')
    assert "bob" in frame
    await bob_ws.disconnect()
    await _receive_until(alice_ws, 'class="presence offline"')
    await alice_ws.disconnect()


@pytest.mark.parametrize(
    "closed",
    [
        DaphneDisconnected("Attempt to send on a closed protocol"),  # daphne, mid-handshake
        OSError("client disconnected"),  # the ASGI spec's error (uvicorn)
    ],
    ids=["daphne", "asgi-spec"],
)
async def test_a_push_racing_the_browsers_close_is_dropped_not_raised(closed):
    """The browser closes its socket (it navigates away) while a change is being
    rendered for it: the server refuses the frame.  The push is dropped quietly — no
    traceback in the worker's log — and nothing more is sent to that socket."""
    consumer = LiveConsumer()
    attempts: list[dict] = []

    async def server_refuses(message: dict) -> None:
        attempts.append(message)
        raise closed

    consumer.base_send = server_refuses
    await consumer.send(text_data="<div id='sides'></div>")
    assert consumer.closing
    await consumer.send(text_data="<div id='sides'></div>")
    assert len(attempts) == 1, "a closing socket is sent nothing more"


def _page_shows(user, campaign, path: str = "") -> dict[str, str]:
    """What each part of ``user``'s page shows, as its socket reports it (``shows``)."""
    client = Client()
    client.force_login(user)
    html = client.get(f"/campaigns/{campaign.pk}/{path}").content.decode()
    return dict(re.findall(r'data-part="([a-z_]+)" data-fp="([0-9a-f]{8})"', html))


async def _socket_showing(campaign, user, shows: dict[str, str], page: str = ""):
    cookie = await sync_to_async(_session_cookie)(user)
    query = ",".join(f"{part}.{fp}" for part, fp in shows.items())
    comm = WebsocketCommunicator(
        application,
        f"/ws/campaigns/{campaign.pk}/?{page}shows={query}",
        headers=[ORIGIN, HOST, (b"cookie", cookie)],
    )
    connected, _ = await comm.connect(timeout=10)
    assert connected
    return comm


async def _only_presence(receive, timeout: float) -> bool:
    """Whether every message received within ``timeout`` of the last is a presence
    announcement (who is online), none about anything a player did."""
    while True:
        try:
            message = await asyncio.wait_for(receive(), timeout)
        except TimeoutError:
            return True
        if message.get("changes") != [PresenceChanged.kind]:
            return False


def _parts_in(frame: str) -> list[str]:
    return re.findall(r'data-part="([a-z_]+)"', frame)


async def test_a_connecting_page_is_sent_only_the_parts_it_does_not_show(hosted):
    """The page says what each part shows; at connecting, only the parts that differ
    are sent.  Before: the page sent one digest of the whole seat view, which counted
    the player's own presence (offline while the page loaded), so every page got all
    its parts again just after its socket opened, and a click under way on its step
    part was lost.  A part whose fingerprint is stale or missing is sent."""
    campaign, alice, bob = hosted
    alice_ws = await _socket_showing(
        campaign, alice, await sync_to_async(_page_shows)(alice, campaign)
    )
    assert await alice_ws.receive_nothing(timeout=0.5)
    shows = await sync_to_async(_page_shows)(bob, campaign)
    assert {"header", "step", "sides", "record", "log"} <= set(shows)
    bob_ws = await _socket_showing(campaign, bob, shows)
    assert _parts_in(await alice_ws.receive_from(timeout=3)) == ["sides"]  # bob is online
    assert await bob_ws.receive_nothing(timeout=0.5)
    await bob_ws.disconnect()
    assert _parts_in(await alice_ws.receive_from(timeout=3)) == ["sides"]  # and offline
    # A page that shows an older step, and one that says nothing of its log.
    stale = {**shows, "step": "00000000"}
    del stale["log"]
    bob_ws = await _socket_showing(campaign, bob, stale)
    # The parts a player reads first come in a frame of their own, then the rest.
    assert _parts_in(await bob_ws.receive_from(timeout=3)) == ["step"]
    assert _parts_in(await bob_ws.receive_from(timeout=3)) == ["log"]
    assert await bob_ws.receive_nothing(timeout=0.5)
    await bob_ws.disconnect()
    await alice_ws.disconnect()


async def test_the_roster_page_says_what_it_shows_too(hosted):
    campaign, alice, _ = hosted
    shows = await sync_to_async(_page_shows)(alice, campaign, "roster/")
    assert set(shows) == {"roster", "roster_record", "forces", "charts", "unread"}
    comm = await _socket_showing(campaign, alice, shows, page="page=roster&")
    assert await comm.receive_nothing(timeout=0.5)
    await comm.disconnect()
    comm = await _socket_showing(
        campaign, alice, {**shows, "forces": "0badf00d"}, page="page=roster&"
    )
    assert _parts_in(await comm.receive_from(timeout=3)) == ["forces"]
    await comm.disconnect()


async def test_a_secret_change_reaches_only_its_own_sides_sockets(modules, make_user):
    """A change one side keeps secret (an RG bought) is pushed to that side's group
    only: the opponent's sockets are not even told to render (what they would render
    is unchanged anyway), so nothing on his side, frames or work, follows the
    opponent's secret.  The reveal is pushed to both."""
    from campaign.services import purchases, push
    from tests.purchase_helpers import campaign_at

    users = (await sync_to_async(make_user)("axis_ws"), await sync_to_async(make_user)("brit_ws"))
    players, _ = await sync_to_async(campaign_at)("sicily", "i", "jul14pm", users)
    campaign = await sync_to_async(lambda: players.campaign)()
    axis, british = players.users["axis"], players.users["british"]
    layer = get_channel_layer()
    # Listeners on the campaign's groups, as a socket of each side joins them.
    listeners = {}
    for name, group in (
        ("campaign", push.campaign_group(campaign.pk)),
        ("axis", push.side_group(campaign.pk, "axis")),
        ("british", push.side_group(campaign.pk, "british")),
    ):
        listeners[name] = await layer.new_channel()
        await layer.group_add(group, listeners[name])
    axis_ws = await _socket_showing(
        campaign, axis, await sync_to_async(_page_shows)(axis, campaign)
    )
    british_ws = await _socket_showing(
        campaign, british, await sync_to_async(_page_shows)(british, campaign)
    )
    for ws in (axis_ws, british_ws):  # each sees the other come online
        while await ws.receive_nothing(timeout=0.5) is False:
            await ws.receive_from(timeout=10)
    for channel in listeners.values():  # the presence announcements
        while True:
            try:
                await asyncio.wait_for(layer.receive(channel), 0.2)
            except TimeoutError:
                break

    bought = await sync_to_async(purchases.purchase_rg)(
        campaign_id=campaign.pk, user=british, group_id="M1"
    )
    message = await asyncio.wait_for(layer.receive(listeners["british"]), 3)
    while message["changes"] == [PresenceChanged.kind]:  # a late presence announcement
        message = await asyncio.wait_for(layer.receive(listeners["british"]), 3)
    assert message["type"] == push.CAMPAIGN_CHANGED
    for name in ("campaign", "axis"):
        # Nothing but who is online (an announcement the loaded machine sent late).
        assert await _only_presence(lambda n=name: layer.receive(listeners[n]), 0.3)
    assert ">M1<" in await _receive_until(british_ws, ">M1<")
    while not await axis_ws.receive_nothing(timeout=0.5):
        frame = await axis_ws.receive_from(timeout=10)
        assert _parts_in(frame) == ["sides"] and "M1" not in frame, frame[:500]

    await sync_to_async(purchases.reveal_purchase)(
        campaign_id=campaign.pk, user=british, purchase_id=bought.ref
    )
    assert (await asyncio.wait_for(layer.receive(listeners["campaign"]), 3))["changes"]
    assert ">M1<" in await _receive_until(axis_ws, ">M1<")
    for ws in (axis_ws, british_ws):
        await ws.disconnect()


async def test_a_purchase_re_draws_only_the_rows_it_changed(modules, make_user):
    """The buyer's socket gets the RG chart with the rows the purchase changed and,
    for every other row, an empty one that htmx keeps the page's own for
    (hx-preserve): the page ends up showing what a fresh render shows."""
    from campaign.services import purchases
    from tests.purchase_helpers import campaign_at

    users = (await sync_to_async(make_user)("axis_rows"), await sync_to_async(make_user)("b_rows"))
    players, _ = await sync_to_async(campaign_at)("sicily", "i", "jul14pm", users)
    campaign = await sync_to_async(lambda: players.campaign)()
    british = players.users["british"]
    client = Client()
    await sync_to_async(client.force_login)(british)
    url = f"/campaigns/{campaign.pk}/"
    page = (await sync_to_async(client.get)(url)).content.decode()
    shows = dict(re.findall(r'data-part="([a-z_]+)" data-fp="([0-9a-f]{8})"', page))
    ws = await _socket_showing(campaign, british, shows)
    assert await ws.receive_nothing(timeout=0.5)

    await sync_to_async(purchases.purchase_rg)(campaign_id=campaign.pk, user=british, group_id="M1")
    frame = await _receive_until(ws, 'data-part="step"')
    chart = re.compile(r'<tr data-keep[^>]*id="(rg-[^"]+)"[^>]*>(.*?)</tr>', re.S)
    rows = dict(chart.findall(frame))
    kept = {rg for rg in rows if f'id="{rg}" hx-preserve="true"></tr>' in frame}
    whole = set(rows) - kept
    assert "rg-M1" in whole and rows["rg-M1"]
    assert len(kept) > 10 and len(whole) < len(kept)
    assert all(rows[rg] == "" for rg in kept)
    # What the page shows once htmx has put its own rows back: a fresh render.
    shown = dict(chart.findall(page))
    fresh = dict(chart.findall((await sync_to_async(client.get)(url)).content.decode()))
    assert set(fresh) == set(rows)
    assert all(rows[rg] == fresh[rg] for rg in whole)
    assert all(shown[rg] == fresh[rg] for rg in kept)
    await ws.disconnect()


# Issue 48: hostile input on the sockets (the fuzz suite's; a module of transactional
# tests, as the sockets need committed data).
async def test_hostile_socket_frames_and_queries_change_nothing(hosted, caplog):
    """The sockets take nothing from the client: any frame is ignored, any query
    (bytes that are not UTF-8 among them) is read safely, and the socket stays up."""
    from tests.test_bad_input import snapshot
    from tests.test_fuzz import _no_traceback

    campaign, alice, _ = hosted

    def cookie() -> bytes:
        client = Client()
        client.force_login(alice)
        return f"sessionid={client.cookies['sessionid'].value}".encode()

    headers = [(b"origin", b"http://127.0.0.1"), (b"host", b"127.0.0.1")]
    headers.append((b"cookie", await sync_to_async(cookie)()))
    frames = [
        "9" * 5000,
        "\x00\x01",
        "{}",
        json.dumps({"page": "roster", "action": "buy", "group": "M1"}),
        "x" * 200_000,
    ]
    queries = [b"page=" + b"r" * 5000, b"page=%ff%fe", b"page=\xff\xfe", b"%00=%00&page=x&page=y"]
    before = await sync_to_async(snapshot)(campaign.pk)
    for query in queries:
        socket = WebsocketCommunicator(
            application, f"/ws/campaigns/{campaign.pk}/", headers=headers
        )
        socket.scope["query_string"] = query  # raw bytes, as a client may send them
        connected, _ = await socket.connect(timeout=10)
        assert connected
        await socket.receive_from(timeout=5)  # the page's first sync
        for frame in frames:
            await socket.send_to(text_data=frame)
        await socket.send_to(bytes_data=b"\xff\xfe" * 1000)
        # Still up: whatever came back (a presence push) is a frame, never a close.
        while not await socket.receive_nothing(timeout=0.3):
            assert (await socket.receive_output())["type"] == "websocket.send"
        await socket.disconnect()
    assert await sync_to_async(snapshot)(campaign.pk) == before
    _no_traceback(caplog)
