"""How the browser tests play: two players sign up, host and join, and walk the
campaign's steps through their pages, each click on what a player sees."""

import re

from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

PASSWORD = "full-run-pass-9"


def sign_up(page, url, username):
    page.goto(url)
    page.locator("#id_username").fill(username)
    page.locator("#id_password1").fill(PASSWORD)
    page.locator("#id_password2").fill(PASSWORD)
    page.get_by_role("button", name="Create account").click()


def host_and_join(asgi_server, new_context, cg, host_side, guest_side_name, viewport=None):
    """The host signs up and hosts ``cg``; the guest signs up from the invitation and
    takes the other side (both windows ``viewport`` wide, Playwright's default if none)."""
    options = {"viewport": viewport} if viewport else {}
    host = new_context(**options).new_page()
    sign_up(host, asgi_server.url + "/signup/", "host")
    host.wait_for_url("**/campaigns/")
    host.get_by_role("link", name="Host a new campaign").click()
    host.locator("#id_name").fill(f"Run {cg}")
    host.locator("#id_cg").select_option(cg)
    host.wait_for_load_state("networkidle")
    host.locator("#id_side").select_option(host_side)
    host.get_by_role("button", name="Create campaign").click()
    host.wait_for_url(re.compile(r".*/campaigns/[0-9a-f-]{36}/$"))
    invite = host.locator("#invite-url").input_value()
    guest = new_context(**options).new_page()
    guest.goto(invite)
    guest.wait_for_url(lambda url: "/signup/" in url)
    sign_up(guest, guest.url, "guest")
    guest.wait_for_url(lambda url: "/join/" in url)
    guest.get_by_role("button", name=f"Take the {guest_side_name} side").click()
    guest.wait_for_url(host.url)
    host.locator("#campaign-sides .presence.online").wait_for()
    return host, guest


def fill(page, form: str, values: dict[str, str]) -> None:
    """Type or pick each value into the field of that name in ``form``."""
    for name, value in values.items():
        field = page.locator(f"{form} [name='{name}']")
        if field.evaluate("e => e.tagName") == "SELECT":
            field.select_option(value)
        else:
            field.fill(value)


def unfold(page) -> None:
    """Open the list of each datum the rules lack, where the page folded it (the start
    sheet leads while several are missing)."""
    for fold in ("#supplies-fold", "#supply-items"):
        for _ in range(3):  # a push may re-draw the fold between a look and a click
            if page.locator(fold).get_attribute("open") is not None:
                break
            page.locator(f"{fold} > summary").click()
            page.wait_for_timeout(100)


def supply(page, label: str, values: dict[str, str], checks: tuple[str, ...] = ()) -> None:
    """The player opens the form of one missing datum, fills it in and proposes it."""
    unfold(page)
    item = page.locator("#campaign-supplies li", has_text=label).first
    item.get_by_role("link", name="Supply it").click()
    page.locator("form.supply-form").wait_for()
    fill(page, "form.supply-form", values)
    for name in checks:
        page.locator(f"form.supply-form [name='{name}']").check()
    page.get_by_role("button", name="Propose it to my opponent").click()
    page.locator("#campaign-supplies li", has_text=label).get_by_text(
        "Waiting for your opponent to accept it"
    ).wait_for()


def accept(page, label: str) -> None:
    """The player accepts the datum his opponent proposed (asked first)."""
    item = page.locator("#campaign-supplies li", has_text=label).first
    # The opponent's proposal has reached this page (its push unfolds the list) before
    # the player looks for its Accept: a fold opened by hand as the push lands is not
    # folded again by a second click.
    item.get_by_role("button", name="Accept").wait_for(state="attached")
    unfold(page)
    page.once("dialog", lambda d: d.accept())
    item.get_by_role("button", name="Accept").click()
    page.locator("#campaign-supplies li", has_text=label).get_by_text("supplied by").wait_for()


def sheet(page) -> str:
    """The player's scenario sheet, as plain text (what he pastes into VASL)."""
    campaign = re.search(r"/campaigns/([0-9a-f-]{36})/", page.url)
    assert campaign, page.url
    url = page.url[: campaign.end()] + "sheet.txt"
    return page.request.get(url).text()


def enter_result(page, values):
    for key, value in values.items():
        field = page.locator(f"[name='{key}']")
        if field.get_attribute("type") == "checkbox":
            if value:
                field.check()
        else:
            field.fill(str(value))
    page.get_by_role("button", name="Enter the result").click()


def confirm(page) -> None:
    press(page, page.get_by_role("button", name="Confirm the result", exact=True))


def act(page, extra=None, until=None) -> bool:
    """Take the action this page offers for the step it shows, and wait until the page
    has moved past it (its socket brings the new state); False if it offers none now,
    or if the page shows ``until`` (the walk's goal).  Map steps are finished together
    where the page offers it (no rolls)."""
    step_id = title(page).split(" ")[0]
    # Read after the step: a push may have brought the goal since the walk looked, and a
    # step read before it names buttons that the goal's page no longer has.
    if until is not None and until(page):
        return False
    if extra and extra(page):
        return True
    ahead = page.get_by_role(
        "button", name=re.compile(rf"^Done with {re.escape(step_id)} to .*\(no rolls\)$")
    )
    for button in (
        page.get_by_role("button", name="Confirm the result", exact=True),
        ahead,
        page.get_by_role("button", name=f"Done with {step_id}", exact=True),
        page.get_by_role("button", name="Go on without it", exact=True),
    ):
        if button.count():
            press(page, button.first, dialog=asks(button.first))
            return True
    return False


def asks(button) -> bool:
    """Whether the button's form asks to confirm first (a Done that gives something up,
    finishing several steps at once, going on without the step's data)."""
    return button.evaluate("b => !!(b.form && b.form.hasAttribute('hx-confirm'))")


# The request a step's action button makes (``{% action_form %}``).
_ACTION = re.compile(r"/campaigns/[0-9a-f-]{36}/act/[\w-]+/$")


def _is_action(request) -> bool:
    return request.method == "POST" and _ACTION.search(request.url) is not None


def press(page, button, *, dialog: bool = False) -> None:
    """Click an action's ``button`` as a player does, and wait until the page has moved
    past it.  A click that Chromium never turned into the action's request is made
    again (once), as a player whose click did not take would; an action the server
    refused, or a page that stays put after its action was taken, fails with what the
    server answered and what the page shows, so a failure says where it went wrong."""
    for attempt in (1, 2):
        if dialog:  # the button asks to confirm first
            page.once("dialog", lambda d: d.accept())
        try:
            with page.expect_request(_is_action) as sent:
                button.click()
            break
        except PlaywrightTimeoutError:
            if attempt == 2 or not button.count():
                raise AssertionError(_what_page_shows(page, "the click made no request")) from None
    answer = sent.value.response()
    said = f"the server answered {answer.status}" if answer else "the request got no answer"
    if answer is None or not answer.ok:
        detail = answer.text()[:500] if answer else ""
        raise AssertionError(_what_page_shows(page, f"{said}: {detail}"))
    try:
        button.wait_for(state="detached")
    except PlaywrightTimeoutError:
        raise AssertionError(_what_page_shows(page, f"{said}, and the page stayed")) from None


def _what_page_shows(page, what: str) -> str:
    shows = page.evaluate(
        """() => ({
            live: document.body.dataset.live === "1",
            refusals: [...document.querySelectorAll(".refusal, #flash")]
                .map(e => e.innerText.trim()).filter(Boolean),
        })"""
    )
    return (
        f"{what}; the page's socket {'is' if shows['live'] else 'is not'} live; "
        f"refusals shown: {shows['refusals']}; step: {title(page)}"
    )


def walk(host, guest, until, extra=None, limit=150):
    """Both players act on what their pages show until both pages show the goal.  The
    pages follow the campaign through their sockets, in order; a page with nothing to
    do waits for the next state."""
    for _ in range(limit):
        if until(host) and until(guest):
            return
        if not act(host, extra, until) and not act(guest, extra, until):
            host.wait_for_timeout(50)
    raise AssertionError(
        "the run did not reach its goal: "
        + host.locator("#step-title").inner_text()
        + "\n"
        + host.locator("#campaign-step").inner_text()[:1500]
    )


def title(page) -> str:
    return page.locator("#step-title").inner_text()
