"""Issue 20 in real Chromium: the waiting seat's title badge appears live and clears
after it acts; with the player's opt-in, a background tab shows a notification when
it becomes their move."""

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# The browser's notifications, recorded instead of shown (a headless Chromium has no
# notification centre), and a tab that can be told it is in the background.
FAKE_NOTIFICATIONS = """
window.__notes = [];
window.__hidden = false;
class FakeNotification {
  constructor(title, options) { window.__notes.push({title, body: (options || {}).body}); }
  close() {}
}
FakeNotification.permission = "default";
FakeNotification.requestPermission = () => {
  FakeNotification.permission = "granted";
  return Promise.resolve("granted");
};
window.Notification = FakeNotification;
Object.defineProperty(document, "hidden", {get: () => window.__hidden});
"""

MOVE = "(1) Your move — Bridge at dawn · Refit"
NO_MOVE = "Bridge at dawn · Refit"


def _page(new_context, browser_login, asgi_server, campaign, user):
    context = browser_login(new_context(), user)
    context.add_init_script(FAKE_NOTIFICATIONS)
    page = context.new_page()
    page.goto(f"{asgi_server.url}/campaigns/{campaign.pk}/")
    page.locator("#campaign-header").wait_for()
    page.locator("body[data-live]").wait_for(state="attached")  # its socket is open
    return page


def test_title_badge_appears_live_clears_after_acting_and_a_background_tab_is_notified(
    asgi_server, new_context, browser_login, hosted
):
    campaign, alice, bob = hosted  # alice: Red, bob: Blue; at T3.0, the scenario on the map
    red = _page(new_context, browser_login, asgi_server, campaign, alice)
    blue = _page(new_context, browser_login, asgi_server, campaign, bob)
    # The scenario is being played on the map: nobody's move in Refit.
    expect(red).to_have_title(NO_MOVE)
    expect(blue).to_have_title(NO_MOVE)
    assert "played on the map" in red.locator("#campaign-header").inner_text()

    # Red opts in to browser notifications, then its tab goes to the background.
    optin = red.locator("[data-notify-optin]")
    optin.get_by_role("button", name="Notify me in this browser").click()
    expect(optin).to_contain_text("Browser notifications are on.")
    red.evaluate("() => { window.__hidden = true; }")

    # Red enters the result: Red's badge clears; Blue, to confirm it, keeps its own.
    for side, value in (("red", "3"), ("blue", "1")):
        red.locator(f"#f-cvp_lost\\.{side}").fill(value)
        red.locator(f"#f-san\\.{side}").fill("2")
    red.get_by_role("button", name="Enter the result").click()
    expect(red).to_have_title(NO_MOVE)
    blue.get_by_role("button", name="Confirm the result").wait_for()
    expect(blue).to_have_title(MOVE)
    assert red.evaluate("() => window.__notes") == []

    # Blue confirms: T3.1 waits for both — Red's badge appears live, and its tab,
    # in the background, shows a notification.
    blue.get_by_role("button", name="Confirm the result").click()
    expect(red).to_have_title(MOVE)
    red.wait_for_function("() => window.__notes.length === 1")
    note = red.evaluate("() => window.__notes[0]")
    assert note == {"title": "Your move — Bridge at dawn", "body": "T3.1 Rally · Day 1 AM"}
    assert blue.evaluate("() => window.__notes") == []  # Blue acted: nothing for it

    # Red acts: its badge clears.
    red.evaluate("() => { window.__hidden = false; }")
    red.get_by_role("button", name="Done with T3.1", exact=True).click()
    expect(red).to_have_title(NO_MOVE)
    expect(blue).to_have_title(MOVE)


def test_a_message_to_a_background_tab_is_a_browser_notification(
    asgi_server, new_context, browser_login, hosted
):
    """Issue 46: the opponent's message reaches a player whose tab is in the background
    as a browser notification (with the same opt-in as "your move")."""
    campaign, alice, bob = hosted
    red = _page(new_context, browser_login, asgi_server, campaign, alice)
    blue = _page(new_context, browser_login, asgi_server, campaign, bob)
    optin = red.locator("[data-notify-optin]")
    optin.get_by_role("button", name="Notify me in this browser").click()
    expect(optin).to_contain_text("Browser notifications are on.")
    red.evaluate("() => { window.__hidden = true; }")
    blue.locator("#message-text").fill("Ready when you are")
    blue.get_by_role("button", name="Send").click()
    red.wait_for_function("() => window.__notes.length === 1")
    note = red.evaluate("() => window.__notes[0]")
    assert note["title"] == "Message — Bridge at dawn"
    assert "Ready when you are" in note["body"]
    assert blue.evaluate("() => window.__notes") == []  # its own message: nothing


@pytest.mark.presentation
def test_scenario_sheet_and_notification_settings_pages(
    asgi_server, new_context, browser_login, hosted
):
    """Both pages as a player reaches them (axe-core checks each page left open)."""
    campaign, alice, _ = hosted
    page = _page(new_context, browser_login, asgi_server, campaign, alice)
    page.get_by_role("link", name="Scenario sheet").click()
    page.get_by_role("heading", name="Scenario sheet: Red").wait_for()
    assert "8-1 leader" in page.locator("article.sheet").inner_text()  # Red's OB
    settings = page.context.new_page()
    settings.goto(f"{asgi_server.url}/settings/")
    settings.get_by_label("E-mail address").fill("alice@example.org")
    settings.get_by_label("at most one e-mail per hour (the rest in one summary)").check()
    settings.get_by_role("button", name="Save").click()
    settings.get_by_text("Your notification settings are saved.").wait_for()
    assert settings.get_by_label("E-mail address").input_value() == "alice@example.org"


def _until(campaign_id, side: str, *, open: bool) -> None:
    """Wait until a campaign socket of ``side`` is open (``open``: its page is live), or
    until none is (its page was left)."""
    import time

    from campaign.models import Presence

    deadline = time.monotonic() + 10
    while Presence.objects.filter(seat__campaign_id=campaign_id, seat__side=side).exists() != open:
        assert time.monotonic() < deadline, (
            f"the page's socket never {'opened' if open else 'closed'}"
        )
        time.sleep(0.1)


def test_the_page_opens_with_what_happened_since_the_last_visit(
    asgi_server, new_context, browser_login, modules, make_user
):
    """Issue 46: "since your last visit": the Axis player comes back after the British
    bought in secret and wrote to him while he was away: the page opens with both (the
    purchase in the gate's words only), and a reload says nothing is new."""
    from campaign.services import messages, purchases
    from tests.purchase_helpers import campaign_at

    players, _ = campaign_at("sicily", "i", "jul14n", (make_user("ax"), make_user("br")))
    page = browser_login(new_context(), players.users["axis"]).new_page()
    url = f"{asgi_server.url}/campaigns/{players.campaign_id}/"
    page.goto(url)
    # The first visit is recorded by the digest's own fetch: wait for its answer, so
    # what follows happens after that visit (a loaded machine answers it late).
    page.locator("section#digest").wait_for(state="attached")  # the placeholder is a div
    # Its socket is open before he leaves: on a loaded machine a socket still connecting
    # when the page is left closes later, after what follows (then rightly no news).
    _until(players.campaign_id, "axis", open=True)
    # He leaves the page (what reaches an open page live is no news when he comes
    # back): wait until its socket has closed, so what follows happens after he left.
    page.goto("about:blank")
    _until(players.campaign_id, "axis", open=False)
    purchases.purchase_rg(
        campaign_id=players.campaign_id, user=players.users["british"], group_id="V6"
    )
    messages.send_message(
        campaign_id=players.campaign_id, user=players.users["british"], text="Back Sunday"
    )
    page.goto(url)
    digest = page.locator("#digest", has_text="Back Sunday")
    digest.wait_for()
    assert "Back Sunday" in digest.inner_text() and "AC Pltn II" not in digest.inner_text()
    page.reload()
    page.locator("#digest", has_text="Nothing new from your opponent").wait_for()
