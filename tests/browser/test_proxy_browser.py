"""Issue 48 in real Chromium: the hosted topology (the repository's Caddyfile serving
HTTPS in front of two workers started with the web image's command; see
tests/proxy.py), with Chromium trusting Caddy's local CA.  Two players sign up, host,
invite and join through the proxy; one buys an RG; their initiative chits are
revealed in both browsers over ``wss://`` with each player's socket on another
worker; one worker is killed mid-campaign and both go on through the other, nothing
lost and no error on screen."""

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from campaign.models import InitiativeOutcome, Purchase
from tests.browser.play import host_and_join
from tests.purchase_helpers import campaign_at
from tests.servers import CHROMIUM, CHROMIUM_ARGS, ServerLog
from tests.walk import Players, host_game

pytestmark = [
    pytest.mark.browser,
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.django_db(transaction=True),
]


@pytest.fixture
def trusting(chromium, stack):
    """A Chromium that trusts the certificates of Caddy's local CA (by their keys), as a
    player's browser trusts a public CA: no certificate error is ignored otherwise."""
    spki = ",".join(stack.spki_hashes())
    browser = chromium.browser_type.launch(
        executable_path=CHROMIUM,
        headless=True,
        args=[*CHROMIUM_ARGS, f"--ignore-certificate-errors-spki-list={spki}"],
    )
    contexts = []

    def new_context(**options):
        context = browser.new_context(**options)
        context.set_default_timeout(15_000)
        contexts.append(context)
        return context

    yield new_context
    browser.close()


def _on_screen_errors(page) -> list[str]:
    return [t for t in page.locator(".error, [role=alert]").all_inner_texts() if t.strip()]


def test_two_players_through_the_proxy_on_two_workers_one_killed(stack, trusting, modules):
    logs = [ServerLog(worker.log_path) for worker in stack.workers]
    host, guest = host_and_join(stack, trusting, "sicily/i", "british", "Axis")
    assert host.url.startswith(stack.origin) and guest.url.startswith(stack.origin)
    users = (User.objects.get(username="guest"), User.objects.get(username="host"))

    # A purchase through the proxy (Sicily at its RG purchase step; the same players).
    players, _ = campaign_at("sicily", "i", "jul14n", users, policy="owner")
    host.goto(f"{stack.origin}/campaigns/{players.campaign_id}/")
    host.get_by_role("button", name="Buy V6 AC Pltn II for 5 CPP", exact=True).click()
    host.locator(".purchases li", has_text="AC Pltn II").wait_for()
    assert Purchase.objects.filter(campaign_id=players.campaign_id).count() == 1

    # The initiative, with each player's socket on another worker (least_conn).
    campaign = host_game("test-skirmish", "short", users[1], users[0], name="Through the proxy")
    walk = Players(campaign, {"red": users[1], "blue": users[0]})
    walk.results(**{"cvp_lost.red": 0, "cvp_lost.blue": 0, "san.red": 2, "san.blue": 2})
    walk.until("initiative")
    red, blue = host, guest
    closed = {"red": 0, "blue": 0}
    for name, page in (("red", red), ("blue", blue)):
        page.on(
            "websocket",
            lambda ws, name=name: ws.on(
                "close", lambda _: closed.__setitem__(name, closed[name] + 1)
            ),
        )
        page.goto(f"{stack.origin}/campaigns/{campaign.pk}/")
        page.wait_for_function("document.body.dataset.live === '1'")
    closed.update(red=0, blue=0)  # the sockets of the pages left behind
    red.once("dialog", lambda d: d.accept())
    red.get_by_role("button", name="Lock Idle").click()
    blue.locator(".chits", has_text="Red: has chosen").wait_for()

    # One worker dies: a page loses a socket, reconnects through the proxy to the
    # other worker and is resynced; the players go on.
    stack.kill(0)
    for _ in range(50):
        if any(closed.values()):
            break
        red.wait_for_timeout(100)
    # Each page holds two sockets (the campaign's and the site's), spread over both
    # workers: the kill is felt (tests/test_deploy.py shows one player on each worker).
    assert any(closed.values()), closed
    red.wait_for_timeout(1000)  # every socket of the dead worker has closed by now
    for page in (red, blue):
        page.wait_for_function("document.body.dataset.live === '1'", timeout=30_000)
    blue.once("dialog", lambda d: d.accept())
    blue.get_by_role("button", name="Lock Attack").click()
    for name, page in (("red", red), ("blue", blue)):
        reveal = page.locator("#initiative-result")
        try:
            reveal.wait_for(timeout=30_000)
        except PlaywrightTimeoutError:
            shown = page.locator("main").inner_text()[:1500]
            raise AssertionError(f"{name} never saw the reveal ({closed}):\n{shown}") from None
        assert "Red Idle, Blue Attack → Blue Attack" in reveal.inner_text()
        assert _on_screen_errors(page) == []
    assert InitiativeOutcome.objects.filter(campaign=campaign).count() == 1
    for log in logs:
        assert log.server_errors() == []
