"""Issue 17: two real browsers play as people do — and see what happened.

A whole Sicily CG date with both players (result, Refit steps, purchases with an
overspend refused on screen, initiative locked at the same instant, roster); both
Done buttons at the same instant; a live push while a form is being filled in; a
logout with a second tab open; the invitation forms after a push; print media; a
390 px phone; the site's own 404.  Every page is checked with axe-core (serious and
critical violations fail) and the server's log must hold no 5xx.
"""

from __future__ import annotations

import pytest

from campaign.models import Seat
from campaign.services import units
from tests.browser.helpers import (
    PHONE,
    ServerLog,
    assert_accessible,
    horizontal_overflow,
)
from tests.conftest import ARTIFACTS
from tests.walk import host_game

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _open(new_context, browser_login, asgi_server, campaign, user, path="", **ctx):
    context = new_context(**ctx) if ctx else new_context()
    page = browser_login(context, user).new_page()
    page.goto(f"{asgi_server.url}/campaigns/{campaign.pk}/{path}")
    page.locator("body[data-live='1']").wait_for()  # the page's socket is open
    return page


def _sicily(make_user, **kw):
    alice, bob = make_user("alice"), make_user("bob")
    return host_game("sicily", "i", alice, bob, name="Primosole", **kw), alice, bob


def _title(page) -> str:
    return page.locator("#step-title").inner_text()


def _click_together(*buttons) -> None:
    """Click several buttons in the same instant: the clicks are dispatched in the
    pages without waiting for any answer."""
    for button in buttons:
        button.dispatch_event("click")


def _add_unit(page, name: str) -> None:
    """The player adds a unit on the roster page (actions from the test process itself
    would not reach a worker's sockets on the embedded, in-process channel layer)."""
    page.locator(".unit-add input[name=name]").fill(name)
    page.locator(".unit-add").get_by_role("button", name="Add").click()
    page.locator("#retained-forces", has_text=name).wait_for()


def _done(page, step_id: str) -> None:
    page.get_by_role("button", name=f"Done with {step_id}", exact=True).click()


def test_a_sicily_date_played_like_people(
    asgi_server, new_context, browser_login, modules, make_user
):
    log = ServerLog(asgi_server.log_path)
    campaign, alice, bob = _sicily(make_user)
    axis = _open(new_context, browser_login, asgi_server, campaign, alice)
    brit = _open(new_context, browser_login, asgi_server, campaign, bob)
    assert_accessible(axis, "campaign page at the result step")

    # The scenario's result: the Axis player enters it, the British confirm.
    for key, value in {"cvp_lost.axis": 12, "cvp_lost.british": 3, "san.axis": 3}.items():
        axis.locator(f"[name='{key}']").fill(str(value))
    axis.locator("[name='san.british']").fill("4")
    axis.get_by_role("button", name="Enter the result").click()
    brit.get_by_role("button", name="Confirm the result").click()

    # The map steps 3.601-3.615 (3.612, the new date, is the server's): one click each.
    for page in (axis, brit):
        page.locator("#step-title", has_text="3.601").wait_for()
        button = page.get_by_role("button", name="Done with 3.601 to 3.615", exact=False)
        page.once("dialog", lambda d: d.accept())
        button.click()
    # 3.616 is the server's too: both land on the purchase step, July 14 PM.
    for page in (axis, brit):
        page.locator("#step-title", has_text="3.617").wait_for()
        assert "July 14 PM" in page.locator("#campaign-header").inner_text()
    assert_accessible(brit, "purchase chart")

    # An overspend is refused where the player clicked, in words, and changes nothing:
    # the British points are spent elsewhere behind this page's back.
    buy = brit.get_by_role("button", name="Buy M1 Sniper for 3 CPP", exact=True)
    Seat.objects.filter(campaign=campaign, side="british").update(points=2)
    buy.click()
    refusal = brit.locator("#rg-M1 .refusal [role=alert]")
    refusal.wait_for()
    assert "not enough CPP (3 needed, 2 left)" in refusal.inner_text()
    assert "Nothing was changed" in refusal.inner_text()
    Seat.objects.filter(campaign=campaign, side="british").update(points=12)

    # Purchases: a Sniper each, in secret.
    brit.reload()
    brit.get_by_role("button", name="Buy M1 Sniper for 3 CPP", exact=True).click()
    axis.get_by_role("button", name="Buy M1 Sniper for 2 CPP", exact=True).click()
    for page in (axis, brit):
        page.locator(".purchases li", has_text="Sniper").wait_for()
    assert "British" not in axis.locator("#campaign-record").inner_text()  # secret so far
    for page in (axis, brit):
        _done(page, "3.617")
    # 3.618 (a Sniper has no rolls) and 3.619 (no FPP) wait for each side's Done: that
    # a side has nothing to do there is its secret, so they never pass by themselves.
    # Recon (3.620): neither side bought an M2 Recon RG, so neither has a dr to make.
    for step in ("3.618", "3.619", "3.620"):
        for page in (axis, brit):
            page.locator("#step-title", has_text=step).wait_for()
            _done(page, step)

    # Initiative: both lock at the same instant; both see the reveal.
    for page in (axis, brit):
        page.locator("#step-title", has_text="3.621").wait_for()
        page.on("dialog", lambda d: d.accept())
    _click_together(
        axis.get_by_role("button", name="Lock Idle"),
        brit.get_by_role("button", name="Lock Attack"),
    )
    for page in (axis, brit):
        page.locator("#initiative-result", has_text="British Attack").wait_for()
        # The reveal is told once: in short in the header, in full in the log.
        assert page.content().count("Initiative revealed:") == 1

    # Set up (in the order the result gives), then the scenario is in play.
    for page in (axis, brit):
        page.locator("#step-title", has_text="3.622").wait_for()
    _click_together(
        axis.get_by_role("button", name="Done with 3.622", exact=True),
        brit.get_by_role("button", name="Done with 3.622", exact=True),
    )
    for page in (axis, brit):
        page.locator("#campaign-header .badge", has_text="scenario in play").wait_for()
        page.locator("#campaign-record", has_text="Sniper").wait_for()

    # The roster, on both sides.
    brit.goto(f"{asgi_server.url}/campaigns/{campaign.pk}/roster/")
    brit.locator("#cg-roster", has_text="July 14 PM").wait_for()
    assert_accessible(brit, "roster")
    assert not log.server_errors(), log.server_errors()


@pytest.mark.parametrize("step", ["3.601"])
def test_both_done_at_the_same_instant(
    asgi_server, new_context, browser_login, modules, make_user, step
):
    log = ServerLog(asgi_server.log_path)
    campaign, alice, bob = _sicily(make_user)
    from tests.walk import players_of

    players = players_of(campaign, alice, bob)
    players.results(**{"cvp_lost.axis": 0, "cvp_lost.british": 0, "san.axis": 3, "san.british": 3})
    pages = [
        _open(new_context, browser_login, asgi_server, campaign, user) for user in (alice, bob)
    ]
    for _ in range(4):  # four steps in a row, both clicking at the same instant
        current = _title(pages[0]).split(" ")[0]
        _click_together(
            *(p.get_by_role("button", name=f"Done with {current}", exact=True) for p in pages)
        )
        for p in pages:
            p.wait_for_function(
                "old => !document.querySelector('#step-title').innerText.startsWith(old + ' ')",
                arg=current,
            )
    assert not log.server_errors(), log.server_errors()


def test_a_push_does_not_break_an_open_form(
    asgi_server, new_context, browser_login, modules, make_user
):
    campaign, alice, bob = _sicily(make_user)
    axis = _open(new_context, browser_login, asgi_server, campaign, alice)
    brit = _open(new_context, browser_login, asgi_server, campaign, bob, "roster/")
    axis.locator("[name='cvp_lost.axis']").fill("7")
    axis.locator("[name='cvp_lost.british']").focus()
    axis.keyboard.type("1")
    # The British player acts meanwhile: the Axis page's step part is pushed again.
    _add_unit(brit, "8-1 leader")
    axis.locator("#campaign-log", has_text="adds 8-1 leader").wait_for()
    axis.keyboard.type("2")
    assert axis.locator("[name='cvp_lost.axis']").input_value() == "7"
    assert axis.locator("[name='cvp_lost.british']").input_value() == "12"


def test_logout_in_one_tab_closes_the_other_tabs_socket(
    asgi_server, new_context, browser_login, modules, make_user
):
    campaign, alice, bob = _sicily(make_user)
    context = browser_login(new_context(), alice)
    first = context.new_page()
    first.goto(f"{asgi_server.url}/campaigns/{campaign.pk}/")
    first.locator("body[data-live='1']").wait_for()
    second = context.new_page()
    second.goto(f"{asgi_server.url}/campaigns/{campaign.pk}/")
    second.get_by_role("button", name="Log out").click()
    second.wait_for_url("**/login/")
    first.locator("body:not([data-live])").wait_for()  # its socket was closed
    before = first.locator("#campaign-log").inner_text()
    opponent = _open(new_context, browser_login, asgi_server, campaign, bob, "roster/")
    _add_unit(opponent, "8-1 leader")  # a change the signed-out tab would have shown
    first.wait_for_timeout(1500)
    assert first.locator("#campaign-log").inner_text() == before  # nothing more arrives
    first.close()  # a signed-out page is not checked further
    second.close()


def test_invitation_forms_work_after_a_live_push(
    asgi_server, new_context, browser_login, modules, make_user
):
    alice = make_user("alice")
    campaign = host_game("sicily", "i", alice, None, name="Open seat")
    host = _open(new_context, browser_login, asgi_server, campaign, alice)
    first = host.locator("#invite-url").input_value()
    host.once("dialog", lambda d: d.accept())
    host.get_by_role("button", name="New link").click()  # the part comes back by push
    host.wait_for_function("old => document.querySelector('#invite-url').value !== old", arg=first)
    host.once("dialog", lambda d: d.accept())
    host.get_by_role("button", name="Revoke link").click()  # a pushed form: no CSRF 403
    host.get_by_role("button", name="Make an invitation link").wait_for()
    assert "This form has expired" not in host.content()


def test_the_roster_prints_every_unit_and_pages_fit_a_phone(
    asgi_server, new_context, browser_login, modules, make_user
):
    campaign, alice, bob = _sicily(make_user)
    units.add_unit(campaign_id=campaign.pk, user=alice, name="9-2 leader", location="12H3")
    units.add_unit(campaign_id=campaign.pk, user=alice, name="4-6-8", status="isolated")
    phone = _open(
        new_context, browser_login, asgi_server, campaign, alice, "roster/", viewport=PHONE
    )
    for path in ("", "roster/", "dice/", "state.json"):
        phone.goto(f"{asgi_server.url}/campaigns/{campaign.pk}/{path}")
        if path != "state.json":
            assert horizontal_overflow(phone) <= 0, f"{path or 'campaign'} scrolls sideways"
            assert_accessible(phone, path or "campaign page (phone)")
    for path in ("/campaigns/", "/campaigns/new/"):
        phone.goto(asgi_server.url + path)
        assert horizontal_overflow(phone) <= 0, f"{path} scrolls sideways"
    phone.goto(f"{asgi_server.url}/campaigns/{campaign.pk}/roster/")
    phone.emulate_media(media="print")
    text = phone.locator("#retained-forces").inner_text()
    assert "9-2 leader — in good order (12H3)" in text
    assert "4-6-8 — isolated" in text
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    phone.screenshot(path=str(ARTIFACTS / "roster-print-phone.png"), full_page=True)
    phone.emulate_media(media="screen")


def test_the_404_page_is_the_sites_own(asgi_server, new_context):
    page = new_context().new_page()
    response = page.goto(asgi_server.url + "/no/such/page/")
    assert response.status == 404
    body = page.locator("main").inner_text()
    assert "Not found" in body and "Resolver404" not in body and "tried" not in body
    assert_accessible(page, "404")
