"""Issue 44, pass 17, A Pleasant Diversion in two browsers: 2.5 "Each Encircled unit
must take a 1TC (leadership applies normally)".  The German's Encircled 4-6-7 shares
20A1 with his 8-1 leader, every leader of his located: his choice of unit reads the
-1 the roll will take and whose it is; typing 0 for it is refused in words naming the
8-1; rolled without typing, the -1 applies by itself, and the American's page shows the
roll's line with it live.  The dice are the live server's: nothing here reads them."""

from __future__ import annotations

import pytest

from campaign.models import Roll
from tests.browser.helpers import live_page
from tests.test_apd_pass5 import done
from tests.test_rule_mechanisms import add, apd_at

pytestmark = [pytest.mark.browser, pytest.mark.rules, pytest.mark.django_db(transaction=True)]


def test_2_5_the_leader_in_the_units_location_is_read_and_a_typed_0_refused_in_two_browsers(
    asgi_server, new_context, browser_login, modules, make_user
):
    players, _ = apd_at((make_user("us_p"), make_user("de_p")), "2.5")
    done(players, "american")
    add(players, "german", "4-6-7", "squad", "encircled", location="20A1")
    add(players, "german", "8-1 leader", "leader", location="20A1")

    us = live_page(asgi_server, new_context, browser_login, players, "american")
    de = live_page(asgi_server, new_context, browser_login, players, "german")
    form = de.locator("#table-encirclement_1tc")
    form.get_by_text("leadership -1, 8-1 leader at 20A1").wait_for(state="attached")
    form.locator("#typed-encirclement_1tc-leadership").fill("0")
    form.get_by_role("button", name="Roll DR: Encirclement 1TC").click()
    de.get_by_role("alert").filter(has_text="is -1 on the record (8-1 leader at 20A1)").wait_for()
    assert not Roll.objects.filter(campaign_id=players.campaign_id).exists()

    form.locator("#typed-encirclement_1tc-leadership").fill("")
    form.get_by_role("button", name="Roll DR: Encirclement 1TC").click()
    us.locator("#campaign-log", has_text="8-1 leader at 20A1").wait_for()
    (r,) = Roll.objects.filter(campaign_id=players.campaign_id)
    assert [d["value"] for d in r.drms if "Leadership" in d["label"]] == [-1], r.drms
