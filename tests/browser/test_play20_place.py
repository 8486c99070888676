"""Issue 47's "the page keeps its place" on a step with rolls (PHD C5.26 Weapon Repair),
on a phone: the US rolls for one of many malfunctioned MGs; the result and the log line
come in above the roll's form, in his page (the answer) and in the German's (the push),
and neither page moves what the player was looking at."""

from __future__ import annotations

import pytest

from campaign.models import Roll
from tests.browser.helpers import PHONE
from tests.test_phd_conph import phd_after
from tests.test_rule_mechanisms import add

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ROLL = "Roll dr: Weapon Repair Table"
TOP = "(sel) => Math.round(document.querySelector(sel).getBoundingClientRect().top)"


def _page(asgi_server, new_context, browser_login, players, side):
    page = browser_login(new_context(viewport=PHONE), players.users[side]).new_page()
    page.on("dialog", lambda d: d.accept())
    page.goto(f"{asgi_server.url}/campaigns/{players.campaign_id}/")
    page.locator("body[data-live]").wait_for(state="attached")
    return page


def test_a_roll_keeps_both_pages_in_place(
    asgi_server, new_context, browser_login, modules, make_user
):
    """C5.26a: "a dr for each malfunctioned ... retained weapon": the US rolls for the
    third of six MMGs; his Roll button and the German's step title stay where each
    player was looking (within 2 px), the page scrolled down beforehand."""
    players, _ = phd_after((make_user("us_p"), make_user("de_p")), "C5.26")
    for n in range(6):
        add(players, "us", f"MMG {n + 1}", "sw", status="malfunctioned", location=f"e{n + 1}")
    us = _page(asgi_server, new_context, browser_login, players, "us")
    de = _page(asgi_server, new_context, browser_login, players, "german")
    button = us.get_by_role("button", name=ROLL)
    button.scroll_into_view_if_needed()
    us.evaluate("() => window.scrollBy(0, 150)")
    de.locator("#campaign-step").scroll_into_view_if_needed()
    de.evaluate("() => window.scrollBy(0, 150)")
    assert us.evaluate("() => window.scrollY") > 0 and de.evaluate("() => window.scrollY") > 0
    select = us.locator("#unit-weapon_repair")
    third = select.locator("option").nth(2).get_attribute("value")
    select.select_option(third)
    button.hover()
    mine = us.evaluate(TOP, "#table-weapon_repair button[type=submit]")
    theirs = de.evaluate(TOP, "#campaign-step")
    with us.expect_response(lambda r: "/act/" in r.url):
        button.click()
    # The roll's line (the select offered "MMG 3" before the roll too: not a sign).
    us.locator("ul.rolls li", has_text="Weapon Repair Table — MMG 3").wait_for()
    de.locator("ul.rolls li", has_text="Weapon Repair Table — MMG 3").wait_for()
    us.wait_for_timeout(800)  # the change's pushes are in by now
    assert Roll.objects.filter(campaign_id=players.campaign_id).count() == 1
    assert abs(us.evaluate(TOP, "#table-weapon_repair button[type=submit]") - mine) <= 2
    assert abs(de.evaluate(TOP, "#campaign-step") - theirs) <= 2
