"""Issue 44, Sicily pass 10 part B played in real Chromium by two players (one browser
context per side): July 15 AM of CG I from 3.617 to 3.622, the steps with forms by them.
The British buy an O2 module and its Offboard Observer (O4), the Axis an I7 at its
printed value (its line says it enters during the scenario, 3.6175); the Done of both
through 3.617-3.620 goes through the services (tests/browser/at_step.py; both players
clicking through those steps is the whole-campaign browser runs'
(tests/browser/test_play15_campaign.py)); both lock their chits: the British Attack chit
is refused where he clicked until the observer's hex is recorded for this date on the
Roster (British chart footnote j: "prior to German setup", and with a British Attack the
Axis may set up first); then both finish 3.622 Unit Set Up, the Axis first (3.6222). The
prefix (the walk to July 15 AM) goes through the services."""

import re

import pytest

from campaign.models import Purchase
from tests.browser.at_step import back, park
from tests.browser.play import press, title
from tests.purchase_helpers import campaign_at

pytestmark = [pytest.mark.browser, pytest.mark.rules, pytest.mark.django_db(transaction=True)]


def _open(page, url):
    page.goto(url)
    page.locator("body[data-live]").wait_for(state="attached")


def _buy(page, label):
    press(page, page.get_by_role("button", name=label, exact=True))


def test_sicily_3_617_to_3_622_played_in_two_browsers(
    asgi_server, new_context, browser_login, modules, make_user
):
    players, _ = campaign_at("sicily", "i", "jul15am", (make_user("ax10"), make_user("br10")))
    cid = players.campaign_id
    url = f"{asgi_server.url}/campaigns/{cid}/"
    axis = browser_login(new_context(), players.users["axis"]).new_page()
    british = browser_login(new_context(), players.users["british"]).new_page()
    _open(axis, url)
    _open(british, url)
    assert title(axis).startswith("3.617") and title(british).startswith("3.617")

    # 3.617: the purchases, by the chart's Buy buttons.
    british.locator("#rg-O2").get_by_role("button", name=re.compile(r"^Buy O2 ")).first.click()
    british.locator("#campaign-record tr", has_text="O2").wait_for()
    british.locator("#rg-O4").get_by_role("button", name=re.compile(r"^Buy O4 ")).first.click()
    british.locator(
        "#campaign-record tr", has_text="Offboard Observer hex not yet recorded"
    ).wait_for()
    axis.locator("#rg-I7").get_by_role(
        "button", name="Buy I7 Italian Infantry Coy for 12 CPP", exact=True
    ).click()
    axis.locator(
        "#campaign-record tr", has_text="enters play during the course of the scenario"
    ).wait_for()
    assert Purchase.objects.filter(campaign_id=cid, side="british").count() == 2

    # 3.617 to 3.621: Done on each step (3.618 rolls the RGs' secret rolls).
    def at_initiative(page):
        return title(page).startswith("3.621")

    park(axis, british)
    # Done by both, 3.617 to 3.620 (3.618 rolls the RGs' secret rolls by Done).
    players.until_step("3.621")
    back(axis, url)
    back(british, url)
    assert at_initiative(axis) and at_initiative(british)
    press(axis, axis.get_by_role("button", name="Lock Idle"), dialog=True)

    # 3.621: the British Attack chit is refused until the observer's hex is recorded
    # (with it the Axis may set up first: "prior to German setup").
    british.once("dialog", lambda d: d.accept())
    british.get_by_role("button", name="Lock Attack").click()
    refusal = british.locator("[role=alert]", has_text="footnote j").first
    refusal.wait_for()
    said = refusal.inner_text()
    assert "Offboard Observer hex of O4" in said and "3.617 British chart footnote j" in said, said
    # On the Roster: the line asks for this date's hex; saved, the chit is locked.
    roster = british.context.new_page()
    _open(roster, url + "roster/")
    o4 = Purchase.objects.get(campaign_id=cid, group_id="O4")
    roster.locator(f"#recorded-hex-{o4.ref}").fill("33B10")
    roster.locator(f"#roster-record-{o4.ref}").get_by_role("button", name="Save").click()
    roster.locator(
        f"#roster-record-{o4.ref}", has_text="Offboard Observer hex 33B10 for July 15 AM"
    ).wait_for()
    british.reload()
    british.locator("body[data-live]").wait_for(state="attached")
    press(british, british.get_by_role("button", name="Lock Attack"), dialog=True)
    for page in (axis, british):
        page.locator("#step-title", has_text="3.622").wait_for()
    # A British Assault: the Axis set up first and finish 3.622 first (3.6222).
    for page in (axis, british):
        done = page.get_by_role("button", name="Done with 3.622", exact=True)
        press(page, done, dialog=bool(done.evaluate("b => b.form.hasAttribute('hx-confirm')")))
    for page in (axis, british):
        page.locator("#step-title", has_text="3.6223").wait_for()
    o4.refresh_from_db()
    assert o4.recorded_hex == "33B10"
