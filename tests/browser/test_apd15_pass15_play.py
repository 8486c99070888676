"""Issue 44, pass 15, A Pleasant Diversion in two browsers: at 2.5 the American's
Encircled leader marked heroic takes his 1TC by the form at his printed Morale (A7.7
exempts the heroic: no "Morale one lower" among its DRMs), then, after the American's
Done, the German's Encircled squad takes its 1TC by his form one level lower (A7.7).
The prefix (SG1's result) and the units are walked through the services."""

from __future__ import annotations

import pytest

from tests.browser.helpers import live_page
from tests.test_rule_mechanisms import add, apd_at

pytestmark = [pytest.mark.browser, pytest.mark.rules, pytest.mark.django_db(transaction=True)]


_open = live_page


def test_2_5_a7_7_a_heroic_leader_and_a_german_squad_roll_their_1tcs_in_two_browsers(
    asgi_server, new_context, browser_login, modules, make_user
):
    """2.5: "Each Encircled unit must take a 1TC"; A7.7 lowers the Morale of every
    NON-HEROIC Personnel unit so marked.  The American's heroic 8-1's 1TC, rolled by his
    form, lists the 1TC and his Morale but not "Encircled: Morale one lower (A7.7)"; the
    German's page offers no Done before the American's (1.2); after it, the German's
    4-6-7's 1TC, rolled by his form, lists it."""
    players, _ = apd_at((make_user("us_p"), make_user("de_p")), "2.5")
    add(players, "american", "8-1 leader", "leader", "encircled", markers=["heroic"])
    add(players, "german", "4-6-7", "squad", "encircled")
    us = _open(asgi_server, new_context, browser_login, players, "american")
    de = _open(asgi_server, new_context, browser_login, players, "german")
    assert not de.get_by_role("button", name="Done with 2.5", exact=True).count()
    us.locator("#table-encirclement_1tc").get_by_role("button", name="Roll DR").click()
    entry = us.locator("#campaign-log", has_text="Encirclement 1TC for 8-1 leader")
    entry.wait_for()
    text = entry.text_content() or ""
    assert "1TC" in text and "A7.7" not in text, text
    us.get_by_role("button", name="Done with 2.5", exact=True).click()
    de.reload()
    de.locator("body[data-live]").wait_for(state="attached")
    de.locator("#table-encirclement_1tc").get_by_role("button", name="Roll DR").click()
    mine = de.locator("#campaign-log", has_text="Encirclement 1TC for 4-6-7")
    mine.wait_for()
    assert "Encircled: Morale one lower (A7.7)" in (mine.text_content() or "")
