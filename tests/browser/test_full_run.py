"""Issue 10: complete two-player runs in real Chromium, every click through the pages.

Sicily (seed 001): create, invite, join, enter the scenario result, the whole RePh with
a purchase and the initiative reveal, into the next CG date.  Purple Heart Draw (seed
000) and A Pleasant Diversion (seed 002): shorter runs, into their purchase steps.
"""

import re

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
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


def through_the_start(host, guest):
    """Both players finish the steps before the Initial Scenario (buying nothing)."""
    walk(
        host,
        guest,
        lambda p: (
            p.locator("[name^='cvp_lost']").count() > 0
            or bool(p.get_by_role("button", name="Confirm the result").count())
        ),
    )


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


def test_sicily_full_refit_phase_into_the_next_date(asgi_server, new_context, modules):
    host, guest = host_and_join(asgi_server, new_context, "sicily/i", "british", "Axis")
    through_the_start(host, guest)
    enter_result(
        host, {"cvp_lost.axis": 12, "cvp_lost.british": 3, "san.axis": 3, "san.british": 4}
    )
    confirm(guest)
    host.locator("#step-title", has_text="3.601").wait_for()
    walk(host, guest, lambda p: title(p).startswith("3.617"))
    for page in (host, guest):  # each side buys a Sniper (M1: SAN +1), in secret
        page.locator("#step-title", has_text="3.617").wait_for()
        page.locator("#rg-M1 button").first.click()
        page.locator(".purchases li", has_text="Sniper").wait_for()

    def extra(page):
        t = title(page)
        for name in ("Lock Attack", "Lock Idle"):
            button = page.get_by_role("button", name=name)
            if t.startswith("3.621") and button.is_visible() and button.is_enabled():
                page.once("dialog", lambda d: d.accept())
                mine = page.get_by_role(
                    "button", name="Lock Attack" if page is host else "Lock Idle"
                )
                mine.click()
                mine.wait_for(state="detached")
                return True
        return False

    walk(
        host,
        guest,
        lambda p: (
            "July 14 PM" in p.locator("#campaign-header .position").inner_text()
            and title(p).startswith("3.6 ")
        ),
        extra=extra,
    )
    for page in (host, guest):  # both pages, live: the new date's scenario is in play
        page.locator("#campaign-header .position", has_text="July 14 PM").wait_for()
        page.locator("#campaign-header .badge", has_text="scenario in play").wait_for()
        page.locator("#initiative-result").wait_for()
        page.locator("#campaign-record", has_text="Sniper").wait_for()
    header = guest.locator("#campaign-header").inner_text()
    assert "July 14 PM" in header and "scenario in play" in header
    assert "British Attack" in header and "Axis Idle" in header  # the reveal, on both pages
    assert "British Attack" in host.locator("#campaign-header").inner_text()
    # Each side sees its own Sniper purchase; the opponent sees it revealed (step_end).
    record = guest.locator("#campaign-record").inner_text()
    assert record.count("Sniper") == 2
    host.locator("#campaign-log", has_text="Purchases of July 14 PM are revealed").wait_for()
    log = host.locator("#campaign-log").inner_text()
    assert "New CG date: July 14 PM" in log and "Purchases of July 14 PM are revealed" in log


def test_purple_heart_draw_short_run(asgi_server, new_context, modules):
    host, guest = host_and_join(asgi_server, new_context, "purple-heart-draw/tm", "us", "German")
    through_the_start(host, guest)
    enter_result(
        host,
        {
            "cvp_lost.us": 25,
            "cvp_lost.german": 8,
            "san.us": 3,
            "san.german": 3,
            "highway_controlled.us": False,
            "highway_controlled.german": False,
        },
    )
    confirm(guest)
    # C5.29 is the server's: it passes by itself and its arithmetic is in each side's log.
    walk(host, guest, lambda p: title(p).startswith("C5.31"))
    host.locator("#campaign-log", has_text="American TP:").wait_for()  # after the step's frame
    log = host.locator("#campaign-log").inner_text()
    assert "American TP:" in log and "-2 " in log  # −1 per 10 CVP lost (FRD)
    assert "German TP:" not in log  # the other side's TP are not on this page
    assert "German received its TP (secret)" in log
    assert "lacks the American RG chart" in host.locator("#campaign-step").inner_text()


def test_pleasant_diversion_short_run(asgi_server, new_context, modules):
    host, guest = host_and_join(
        asgi_server, new_context, "pleasant-diversion/cg", "american", "German"
    )
    enter_result(
        host,
        {
            "vp.american": 63,
            "cvp_lost.american": 41,
            "cvp_lost.german": 5,
            "san.american": 3,
            "san.german": 3,
        },
    )
    confirm(guest)
    walk(host, guest, lambda p: title(p).startswith("3.4"))
    # 2.92 EX: 55 − 63 + 41 = 33 Purchase Points, shown to the American only.
    assert "You have 33 PP" in host.locator("#campaign-step").inner_text()
    assert "PP: 33" not in guest.locator("#campaign-sides").inner_text()
    assert "PP: 33" in host.locator("#campaign-sides").inner_text()
