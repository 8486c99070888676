"""Issue 44, pass 21, Purple Heart Draw in two browsers: C5.8 "Any encircled units
[EXC: Prisoners] must take a 1TC" for a Hero recorded as "Hero" (a line naming no
counter): the German's roll without a Morale is answered with a sentence where he
clicked, asking for it (never a refusal he cannot get past); typed, the DR is made
(random here: the result shown is the one recorded).  C5.8a: the US's page names his
captured 3-3-7 beside the step; the German's names none.  The prefix and the units are
walked through the services."""

from __future__ import annotations

import pytest

from campaign.models import Roll
from tests.browser.helpers import live_page
from tests.test_phd_conph import phd_after
from tests.test_rule_mechanisms import add

pytestmark = [pytest.mark.browser, pytest.mark.rules, pytest.mark.django_db(transaction=True)]


def test_c5_8_a_heros_morale_asked_once_and_c5_8a_prisoners_named_in_two_browsers(
    asgi_server, new_context, browser_login, modules, make_user
):
    """C5.8 on the German's page, C5.8a on the US's."""
    players, _ = phd_after((make_user("us_h"), make_user("de_h")), "C5.8")
    hero = add(players, "german", "Hero", "hero", markers=("encircled",))
    add(players, "us", "3-3-7", "half_squad", markers=("captured",), location="L4")
    de = live_page(asgi_server, new_context, browser_login, players, "german")
    us = live_page(asgi_server, new_context, browser_login, players, "us")
    reminder = us.locator("p.reminder", has_text="(C5.8a): your 3-3-7 (captured; at L4).")
    reminder.wait_for()
    assert de.locator("p.reminder", has_text="C5.8a").count() == 0

    select = de.locator("#unit-encircled_1tc")
    select.wait_for()
    select.select_option(hero.ref)
    with de.expect_response(lambda r: "/act/roll/" in r.url):
        de.get_by_role("button", name="Roll DR: Encirclement 1TC").click()
    asked = de.get_by_role("alert").filter(has_text="its line names no counter to read it from")
    asked.wait_for()
    assert "C5.8" in asked.inner_text()
    assert not Roll.objects.filter(campaign_id=players.campaign_id, unit_ref=hero.ref).exists()

    de.locator("form:has(#unit-encircled_1tc) [name='typed.morale']").fill("9")
    with de.expect_response(lambda r: "/act/roll/" in r.url):
        de.get_by_role("button", name="Roll DR: Encirclement 1TC").click()
    de.get_by_role("button", name="Done with C5.8", exact=True).wait_for()
    rolled = Roll.objects.get(campaign_id=players.campaign_id, unit_ref=hero.ref)
    assert ("Passes" in rolled.result) == (rolled.final <= 0), (rolled.final, rolled.result)
    assert de.locator("body", has_text=rolled.result).count() == 1
