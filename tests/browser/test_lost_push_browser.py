"""A click is not left unanswered when its push is lost: an action taken through a live
page is answered without its change, which the page's socket brings.  If the channel
layer forgot the page's groups (a Redis that restarted empty does), no frame comes;
a few seconds later the page reconnects its socket, says what it shows, and is sent
what changed, long before the periodic resync."""

import os
import time

import pytest
import redis

from tests.purchase_helpers import campaign_at

pytestmark = [
    pytest.mark.browser,
    pytest.mark.redis,
    pytest.mark.django_db(transaction=True),
]


def forget_groups(campaign_id) -> int:
    """What a Redis restart does to the campaign's groups: they are gone, with no
    error anywhere (channels-redis keeps a group as a sorted set of channels).  The
    page counts as live once its socket is open, which may be a moment before the
    consumer has joined its groups: they are waited for (5 s at most) first."""
    client = redis.Redis.from_url(os.environ["REDIS_URL"])
    for _ in range(50):
        keys = list(client.scan_iter(f"asgi:group:campaign-{campaign_id}*"))
        if len(keys) >= 2:
            break
        time.sleep(0.1)
    return client.delete(*keys) if keys else 0


def buyers_page(start_server, new_context, browser_login, make_user):
    """The British player's live page at Sicily's first purchase step, and the list of
    the campaign sockets it opens.  Served by a worker of its own that beats at the
    product's 10 s (the suite's worker beats every 3 s, and its beat would catch up
    the lost push before the page's own reconnect, which is what is tested here)."""
    asgi_server = start_server(REFIT_PRESENCE_HEARTBEAT="10")
    players, _ = campaign_at("sicily", "i", "jul14n", (make_user("axis_p"), make_user("brit_p")))
    brit = browser_login(new_context(), players.users["british"]).new_page()
    sockets = []
    brit.on("websocket", lambda ws: "/ws/campaigns/" in ws.url and sockets.append(ws))
    brit.goto(f"{asgi_server.url}/campaigns/{players.campaign_id}/")
    brit.wait_for_function("document.body.dataset.live === '1'")
    return players, brit, sockets


def buy_rifles(brit) -> None:
    brit.get_by_role("button", name="Buy I1 Lgt Inf Rifle Coy for 18 CPP", exact=True).click()
    brit.locator(".purchases li", has_text="Lgt Inf Rifle Coy").wait_for()


def test_a_purchase_whose_push_is_lost_still_shows_on_the_buyers_page(
    start_server, new_context, browser_login, modules, make_user
):
    players, brit, sockets = buyers_page(start_server, new_context, browser_login, make_user)
    assert len(sockets) == 1
    assert forget_groups(players.campaign_id) >= 2  # the campaign's and the side's
    # Shown within 10 s (the test's wait), before the resync at the next 10 s beat.
    buy_rifles(brit)
    assert "CPP: 182" in brit.locator("#campaign-sides").inner_text()
    # The page waits 3 s for the push it missed, then reconnects its socket (the buy's
    # own answer may already have drawn the figures): waited for, up to 10 s.
    for _ in range(100):
        if len(sockets) == 2:
            break
        brit.wait_for_timeout(100)
    assert len(sockets) == 2  # the page reconnected its socket
    assert brit.evaluate("document.body.dataset.live") == "1"


def test_a_page_whose_push_comes_does_not_reconnect(
    start_server, new_context, browser_login, modules, make_user
):
    _, brit, sockets = buyers_page(start_server, new_context, browser_login, make_user)
    buy_rifles(brit)
    brit.wait_for_timeout(4000)  # past the page's 3 s wait for the push
    assert len(sockets) == 1
