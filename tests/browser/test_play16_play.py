"""Playtest 16 (``docs/playtest-16.md``): the paths playtest 15 did not play, in two
browsers (the guest on a 390 px phone): the third scenario and the CG's end, a player
who leaves mid-step and comes back, each undo, a stale form, the keyboard only, the
chat on the phone, a start sheet refused then agreed.  Each test sets the campaign
where its path begins through the services (the earlier steps are playtest 15's),
then plays that path through the pages, branching on what they say; each page is
read as a player reads it (``Reader``: sideways scroll, author's words, unlabelled
fields, buttons named alike)."""

from __future__ import annotations

import re

import pytest

from tests.browser.helpers import PHONE, live_pages
from tests.browser.play import confirm, enter_result
from tests.browser.test_play15_campaign import DESKTOP
from tests.browser.test_play15_campaign import Reader as Reader15
from tests.test_rule_mechanisms import result_values, start, supply

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


class Reader(Reader15):
    """Playtest 15's reader, but "None yet." (the roster's empty list) is English, not
    Python's None."""

    def read(self, page, where: str = "") -> None:
        before = len(self.found)
        super().read(page, where)
        text = page.locator("main").first.inner_text() if page.locator("main").count() else ""
        if not re.search(r"\bNone\b(?! yet)", text):
            self.found[before:] = [f for f in self.found[before:] if "'None'" not in f]


def pages_of(asgi_server, new_context, browser_login, players, phone_side: str) -> dict:
    """Each side's campaign page: ``phone_side``'s on a 390 px phone, the other's on a
    desktop."""
    host = next(s for s in players.users if s != phone_side)
    desk = live_pages(
        asgi_server, new_context, browser_login, _only(players, host), viewport=DESKTOP
    )
    phone = live_pages(
        asgi_server, new_context, browser_login, _only(players, phone_side), viewport=PHONE
    )
    return {**desk, **phone}


class _only:
    def __init__(self, players, side):
        self.campaign_id = players.campaign_id
        self.users = {side: players.users[side]}


def test_the_third_scenario_ends_the_cg_with_the_seed_and_the_final_roster(
    asgi_server, new_context, browser_login, modules, make_user
):
    """A Pleasant Diversion's third date (Dec 6 Afternoon): its result entered on the
    desktop and confirmed on the phone ends the CG (4.0): both pages say so and who
    won, offer no further step, disclose the dice seed (the dice page verifies every
    roll with it) and show the final roster."""
    players, module = start(
        "pleasant-diversion", "cg", (make_user("am"), make_user("de")), "american"
    )
    players.results(**result_values(module, vp_american=63, cvp_lost_american=41))
    supply(players, "dates.dec6midday.vp_required", {"value": "120"}, by="american")
    players.until("results")
    players.results(**result_values(module, vp_american=40, cvp_lost_american=20))
    players.until("results")
    pages = pages_of(asgi_server, new_context, browser_login, players, "german")
    desk, phone = pages["american"], pages["german"]
    reader = Reader()
    for side, page in pages.items():
        reader.read(page, f"the Afternoon's result ({side})")
    enter_result(desk, {"vp.american": 30, "cvp_lost.american": 12, "cvp_lost.german": 9})
    confirm(phone)
    for side, page in pages.items():
        page.locator("#campaign-header .outcome").wait_for()
        reader.read(page, f"the CG's end ({side})")
        header = page.locator("#campaign-header").inner_text()
        assert "the CG has ended" in header and "Waiting for" not in header, header
        assert "Midday scenario" not in header, header  # the last date's news, gone
        assert not page.locator("#campaign-step form").count()  # nothing more to do
        seed = page.locator("#campaign-sides").inner_text()
        assert re.search(r"Seed: [0-9a-f]{64}", seed), seed
    # The phone checks every roll against the disclosed seed, then reads the roster.
    phone.get_by_role("link", name="All rolls and their verification").click()
    phone.locator("#verified").wait_for()
    reader.read(phone, "the dice page at the end")
    phone.go_back()
    phone.get_by_role("link", name="CG Roster and retained forces").first.click()
    roster = phone.locator("#cg-roster")
    roster.wait_for()
    reader.read(phone, "the final CG Roster")
    assert "Afternoon" in roster.inner_text()
    reader.report()
