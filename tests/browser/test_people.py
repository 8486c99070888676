"""Issue 17: two real browsers play as people do — and see what happened.

A whole Sicily CG date with both players (result, Refit steps, purchases with an
overspend refused on screen, initiative locked at the same instant, roster); both
Done buttons at the same instant; a live push while a form is being filled in; a
logout with a second tab open; the invitation forms after a push; print media; a
390 px phone; the site's own 404.  Every page is checked with axe-core (serious and
critical violations fail) and the server's log must hold no 5xx.
"""

from __future__ import annotations

import re

import pytest

from campaign.models import ModuleRecord, Seat
from campaign.services import units
from tests.browser.helpers import (
    AUDITED,
    PHONE,
    ServerLog,
    accessibility_problems,
    assert_accessible,
    horizontal_overflow,
)
from tests.conftest import ARTIFACTS
from tests.purchase_helpers import campaign_at
from tests.test_player_words import module_notes
from tests.walk import host_game, players_of

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
    fold = page.locator(".unit-add-fold").first
    if fold.get_attribute("open") is None:  # the fold stays open after an add
        fold.locator("summary").click()
    page.locator(".unit-add input[name=name]").fill(name)
    page.locator(".unit-add").get_by_role("button", name="Add").click()
    page.locator("#retained-forces", has_text=name).wait_for()


def _done(page, step_id: str) -> None:
    """Done, accepting its confirmation where it asks one (points it forfeits)."""
    page.once("dialog", lambda d: d.accept())
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

    # The map steps 3.601-3.615 (3.612, the new date, is the server's): two clicks each
    # for the Axis (the run stops at 3.605, whose completion may make an Escape DR owed:
    # 3.6056 chart).  The British, at SAN 4, must make the 3.6122 SAN dr: their run
    # stops before it, Done waits for it, and after the dr the rest goes in one click.
    for page in (axis, brit):
        page.locator("#step-title", has_text="3.601").wait_for()
        button = page.get_by_role("button", name="Done with 3.601 to 3.605", exact=False)
        page.once("dialog", lambda d: d.accept())
        button.click()
    for page, last in ((axis, "3.615"), (brit, "3.611")):
        page.locator("#step-title", has_text="3.606").wait_for()
        button = page.get_by_role("button", name=f"Done with 3.606 to {last}", exact=False)
        page.once("dialog", lambda d: d.accept())
        button.click()
    brit.locator("#step-title", has_text="3.6122").wait_for()
    assert "Roll first: the SAN Adjustment (3.6122)" in brit.locator("#campaign-step").inner_text()
    assert not brit.get_by_role("button", name="Done with 3.6122", exact=True).count()
    brit.get_by_role("button", name="Roll dr").click()
    ahead = brit.get_by_role("button", name="Done with 3.6122 to 3.615", exact=False)
    brit.once("dialog", lambda d: d.accept())
    ahead.click()
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
        # The reveal is told once: in short in the header (the change's first frame),
        # in full in the log (the next).
        page.locator("#campaign-log", has_text="Initiative revealed:").wait_for()
        assert page.content().count("Initiative revealed:") == 1

    # Set up in the order the result gives (a British Assault: the Axis first, 3.6222),
    # then the Recon Inspection and Bombardment (3.6223), then the scenario is in play.
    for page in (axis, brit):
        page.locator("#step-title", has_text="3.622").wait_for()
    axis.get_by_role("button", name="Done with 3.622", exact=True).click()
    brit.get_by_role("button", name="Done with 3.622", exact=True).click()
    for page in (axis, brit):
        page.locator("#step-title", has_text="3.6223").wait_for()
    _click_together(
        axis.get_by_role("button", name="Done with 3.6223", exact=True),
        brit.get_by_role("button", name="Done with 3.6223", exact=True),
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
    before = first.locator("#campaign-log").text_content()
    opponent = _open(new_context, browser_login, asgi_server, campaign, bob, "roster/")
    _add_unit(opponent, "8-1 leader")  # a change the signed-out tab would have shown
    first.wait_for_timeout(1500)
    assert first.locator("#campaign-log").text_content() == before  # nothing more arrives
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


@pytest.mark.presentation
def test_the_roster_prints_every_unit_and_pages_fit_a_phone(
    asgi_server, new_context, browser_login, modules, make_user
):
    campaign, alice, bob = _sicily(make_user)
    units.add_unit(campaign_id=campaign.pk, user=alice, name="9-2 leader", location="12H3")
    units.add_unit(campaign_id=campaign.pk, user=alice, name="4-6-8", markers=["isolated"])
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


@pytest.mark.presentation
def test_the_404_page_is_the_sites_own(asgi_server, new_context):
    page = new_context().new_page()
    response = page.goto(asgi_server.url + "/no/such/page/")
    assert response.status == 404
    body = page.locator("main").inner_text()
    assert "Not found" in body and "Resolver404" not in body and "tried" not in body
    assert_accessible(page, "404")


@pytest.mark.presentation
@pytest.mark.skipif(not AUDITED, reason="axe-core runs in the real run only")
def test_the_audit_finds_what_it_looks_for(asgi_server, new_context):
    """The check answers a serious violation added to a clean page whose axe-core was
    injected by an earlier check (once per document)."""
    page = new_context().new_page()
    page.goto(asgi_server.url + "/no/such/page/")
    assert accessibility_problems(page) == []
    page.evaluate("document.querySelector('main').append(document.createElement('button'))")
    problems = accessibility_problems(page)
    assert any(p.startswith("button-name (critical)") for p in problems), problems
    page.close()  # not left with its violation for the test's own audit


_PLURAL_SLIPS = re.compile(r"\b1 (units|leaders|squads|rolls|entries|groups|chits|points)\b")


@pytest.mark.presentation
def test_the_purchase_chart_the_log_and_the_words_a_player_reads(
    asgi_server, new_context, browser_login, modules, make_user
):
    """Wear, as the Axis player meets it at July 14 PM's purchase step (3.617): the
    chart is compact (its price variants one row of choices, a filter to what can be
    bought now), the log is folded by CG date with the current date open, counts read
    as English, no transcription note of the module's authors is shown, the roster
    and the backup's place is said on the page."""
    alice, bob = make_user("alice"), make_user("bob")
    players, module = campaign_at("sicily", "i", "jul14pm", (alice, bob))
    campaign = players.campaign
    axis = _open(new_context, browser_login, asgi_server, campaign, alice)
    axis.locator("#step-title", has_text="3.617").wait_for()

    chart = axis.locator(".chart-wrap")
    filtered = chart.bounding_box()["height"]
    axis.locator("#only-available").uncheck()
    whole = chart.bounding_box()["height"]
    rows = axis.locator(".chart tbody tr").count()
    figures = f"Sicily Axis purchase chart at 1280 px: {whole:.0f} px ({rows} RGs), "
    figures += f"{filtered:.0f} px showing only the RGs the Axis can buy now\n"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "purchase-chart-height.txt").write_text(figures)
    assert whole < 2500, figures  # was about 5,600 px with the price variants stacked
    assert filtered <= whole
    # The price variants are columns of the chart: a row's choices sit side by side.
    heads = axis.locator(".chart thead th.price-col").all_inner_texts()
    assert heads[0] == "Price" and any("Reserve" in h for h in heads), heads
    reserve = axis.locator("#rg-I4").get_by_role("button", name="Axis I/G RG in Reserve")
    printed = axis.locator("#rg-I4").get_by_role("button", name="for 15 CPP", exact=False).first
    assert reserve.bounding_box()["y"] == printed.bounding_box()["y"]
    # The chart's notes are written once, below it, folded; a row's letters lead to
    # them, and open them.
    notes = axis.locator("#chart-notes")
    assert notes.locator("p").count() == len(set(notes.locator("p").all_text_contents()))
    assert notes.get_attribute("open") is None
    axis.locator("#rg-I4 a.fn").click()
    assert notes.get_attribute("open") is not None
    assert notes.get_by_text("m: A total of no more than two coy type RG").is_visible()
    axis.screenshot(path=str(ARTIFACTS / "purchase-chart.png"), full_page=True)

    folds = axis.locator("#campaign-log details.log-date")
    assert folds.count() >= 2  # July 14 AM and PM
    assert folds.first.get_attribute("open") is not None
    assert all(folds.nth(i).get_attribute("open") is None for i in range(1, folds.count()))
    assert "July 14 PM" in (folds.first.locator("summary").text_content() or "")

    sides = axis.locator("#campaign-sides").inner_text()
    assert "backup" in sides and "once the CG has ended" in sides  # the host, mid-CG

    notes = [n for n in module_notes(ModuleRecord.objects.get(id="sicily").data) if len(n) > 30]
    assert notes
    pages = {}
    for path in ("", "roster/", "sheet/"):
        axis.goto(f"{asgi_server.url}/campaigns/{campaign.pk}/{path}")
        pages[path or "campaign"] = axis.locator("body").inner_text()
    for name, text in pages.items():
        slip = _PLURAL_SLIPS.search(text)
        assert not slip, f"{name}: '{slip and slip.group(0)}'"
        shown = [n[:40] for n in notes if " ".join(n.split())[:40] in " ".join(text.split())]
        assert not shown, f"{name} shows transcription notes as rules: {shown}"


@pytest.mark.presentation
def test_every_step_of_a_refit_date_fits_a_phone(
    asgi_server, new_context, browser_login, modules, make_user
):
    """At 390 px, every page of a Refit date — the purchase chart, the strength,
    fortification, Recon and initiative steps, the roster, the scenario sheet and a
    supply form's grid — fits without scrolling sideways (wide tables scroll inside
    their own box) and passes axe-core."""
    alice, bob = make_user("alice"), make_user("bob")
    players, _ = campaign_at("sicily", "i", "jul14pm", (alice, bob))
    campaign = players.campaign
    phone = _open(new_context, browser_login, asgi_server, campaign, alice, viewport=PHONE)
    seen = []
    while True:
        step = players.step
        phone.goto(f"{asgi_server.url}/campaigns/{campaign.pk}/")
        phone.locator("#step-title", has_text=step.id).wait_for()
        assert horizontal_overflow(phone) <= 0, f"{step.id} scrolls sideways"
        assert_accessible(phone, f"{step.id} on a phone")
        seen.append(step.kind)
        if step.kind == "initiative":
            break
        players.finish()
    assert {"purchase", "strength", "fortify", "recon", "initiative"} <= set(seen), seen
    for path in ("roster/", "sheet/", "supply/tables.captured_equipment/"):
        phone.goto(f"{asgi_server.url}/campaigns/{campaign.pk}/{path}")
        assert horizontal_overflow(phone) <= 0, f"{path} scrolls sideways"
        assert_accessible(phone, f"{path} on a phone")


def test_the_opponents_done_neither_moves_nor_swallows_a_click_under_way(
    asgi_server, new_context, browser_login, modules, make_user
):
    """At a step both sides finish, the first side's Done is pushed to the other page
    while its player is clicking Done (button pressed, not yet released).  The button
    stays where it was and is not re-drawn (the header says who is done; the step part
    is unchanged for the side still to act), so the release completes the click and
    the step moves on.  Before: the push added a "Done: Axis" line above the button and
    replaced it, and the click was lost (once in ten full runs)."""
    campaign, alice, bob = _sicily(make_user)
    players_of(campaign, alice, bob).results(
        **{"cvp_lost.axis": 0, "cvp_lost.british": 0, "san.axis": 3, "san.british": 3}
    )
    axis = _open(new_context, browser_login, asgi_server, campaign, alice)
    brit = _open(new_context, browser_login, asgi_server, campaign, bob)
    step = _title(brit).split(" ")[0]
    button = brit.get_by_role("button", name=f"Done with {step}", exact=True)
    before = button.bounding_box()
    brit.mouse.move(before["x"] + before["width"] / 2, before["y"] + before["height"] / 2)
    brit.mouse.down()
    _done(axis, step)
    brit.locator("#campaign-header .status-you").wait_for()  # the push has arrived
    assert button.bounding_box() == before
    brit.mouse.up()
    for page in (axis, brit):
        page.wait_for_function(
            "old => !document.querySelector('#step-title').innerText.startsWith(old + ' ')",
            arg=step,
        )


# Tags every part of the page as it was loaded: a part re-drawn by a push loses its tag.
_TAG_PARTS_AT_LOAD = """
document.addEventListener("htmx:wsOpen", e => {
  if (!e.target.hasAttribute("data-campaign-socket")) return;
  window.refitSocket = e.detail.socketWrapper;
  window.refitOpens = (window.refitOpens || 0) + 1;
});
document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll("[data-part]").forEach(el => { el.refitTag = true; });
});
"""
_UNTAGGED = (
    "Array.from(document.querySelectorAll('[data-part]')).filter(el => !el.refitTag)"
    ".map(el => el.dataset.part)"
)


def test_a_page_is_not_re_drawn_when_its_socket_connects_or_reconnects(
    asgi_server, new_context, browser_login, modules, make_user
):
    """The page's socket says what each part shows; the server sends only what differs.
    Before: every page got all its parts again just after its socket opened (the
    page's digest counted its player's own presence, offline while the page loaded),
    so a click made then on a Done button was lost (CI, once).  After a push, a
    reconnecting socket reports what the page shows now, not what it loaded with."""
    campaign, alice, bob = _sicily(make_user)
    players_of(campaign, alice, bob).results(
        **{"cvp_lost.axis": 0, "cvp_lost.british": 0, "san.axis": 3, "san.british": 3}
    )
    axis = _open(new_context, browser_login, asgi_server, campaign, alice)
    context = new_context()
    context.add_init_script(_TAG_PARTS_AT_LOAD)
    brit = browser_login(context, bob).new_page()
    for path in ("", "roster/", ""):  # the first time, this player is offline as it loads
        brit.goto(f"{asgi_server.url}/campaigns/{campaign.pk}/{path}")
        brit.locator("body[data-live='1']").wait_for()
        brit.wait_for_timeout(1000)  # what the socket sends at connecting has arrived
        assert brit.evaluate(_UNTAGGED) == [], path
    step = _title(brit).split(" ")[0]
    _done(axis, step)  # a push re-draws the British header (waiting for: you) ...
    brit.locator("#campaign-header .status-you").wait_for()
    # The change's second frame (the log's line) has arrived too.
    brit.locator("#campaign-log li", has_text=f"Axis finished {step} ").first.wait_for(
        state="attached"
    )
    redrawn = brit.evaluate(_UNTAGGED)
    assert "header" in redrawn and "step" not in redrawn, redrawn
    brit.evaluate("document.querySelectorAll('[data-part]').forEach(el => { el.refitTag = true; })")
    brit.evaluate("window.refitSocket.reconnect()")  # ... and the socket reconnects
    brit.wait_for_function("window.refitOpens === 2")
    brit.wait_for_timeout(1000)
    assert brit.evaluate(_UNTAGGED) == []
    _done(brit, step)  # the page is live: the step moves on in both browsers
    for page in (axis, brit):
        page.wait_for_function(
            "old => !document.querySelector('#step-title').innerText.startsWith(old + ' ')",
            arg=step,
        )
