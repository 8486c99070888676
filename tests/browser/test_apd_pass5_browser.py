"""Issue 44, pass 5, A Pleasant Diversion in real Chromium: APD 3.8's entry on the
American's screen.  He buys an Armor Group at 3.4 with a click; its line on his RG
Purchase Record (the roster) reads where it enters, "along the American Friendly Board
Edge, on/after Turn 1 (3.8)", in the box where he may correct it."""

from __future__ import annotations

import pytest

from campaign.models import Purchase
from tests.test_rule_mechanisms import _M4_ARMOR_TYPE, _armor_group, apd_at

pytestmark = [pytest.mark.browser, pytest.mark.rules, pytest.mark.django_db(transaction=True)]

ENTRY = "along the American Friendly Board Edge, on/after Turn 1 (3.8)"


def test_3_8_a_bought_reinforcements_line_says_where_it_enters(
    asgi_server, new_context, browser_login, modules, make_user
):
    """3.8: "All reinforcements enter on/after Turn 1 along the owning side's Friendly
    Board Edge"."""
    players, _ = apd_at((make_user("us_e"), make_user("de_e")), "3.4")
    _armor_group(players, [{"range": "1-6", "result": "M4", "effect": _M4_ARMOR_TYPE}])
    url = f"{asgi_server.url}/campaigns/{players.campaign_id}/"
    us = browser_login(new_context(), players.users["american"]).new_page()
    us.goto(url)
    us.locator("body[data-live]").wait_for()
    us.get_by_role("button", name="Buy A1 Armor Group for 10 PP", exact=True).click()
    us.locator(".purchases li", has_text="Armor Group").wait_for()
    assert Purchase.objects.get(group_id="A1").entry_area == ENTRY
    us.goto(url + "roster/")
    box = us.get_by_label("Entry or set-up area of A1")
    box.wait_for()
    assert box.input_value() == ENTRY
