"""How the browser tests play: two players sign up, host and join, and walk the
campaign's steps through their pages, each click on what a player sees."""

import re

PASSWORD = "full-run-pass-9"


def sign_up(page, url, username):
    page.goto(url)
    page.locator("#id_username").fill(username)
    page.locator("#id_password1").fill(PASSWORD)
    page.locator("#id_password2").fill(PASSWORD)
    page.get_by_role("button", name="Create account").click()


def host_and_join(asgi_server, new_context, cg, host_side, guest_side_name):
    host = new_context().new_page()
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
    guest = new_context().new_page()
    guest.goto(invite)
    guest.wait_for_url(lambda url: "/signup/" in url)
    sign_up(guest, guest.url, "guest")
    guest.wait_for_url(lambda url: "/join/" in url)
    guest.get_by_role("button", name=f"Take the {guest_side_name} side").click()
    guest.wait_for_url(host.url)
    host.locator("#campaign-sides .presence.online").wait_for()
    return host, guest


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
    button = page.get_by_role("button", name="Confirm the result", exact=True)
    button.click()
    button.wait_for(state="detached")


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
    ):
        if button.count():
            if button is ahead:
                page.once("dialog", lambda d: d.accept())
            button.first.click()
            button.first.wait_for(state="detached")
            return True
    return False


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
