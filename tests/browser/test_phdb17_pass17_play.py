"""Issue 44, pass 17 (C5.25-C5.41), Purple Heart Draw in two browsers: C5.28 note 2 "vs
a Known Minefield, an original dr of 6 results in Casualty Reduction for one MMC
(Engineer if possible, otherwise owner's choice of Elite MMC ...)".  The US's Fortification
Clearance dr is made through the services (a fixed original 6: the live server's dice are
random); the US player then reads the offer on his page, names his Elite squad with the
page's button, and reads it casualty reduced on his retained forces; the German's page
offers him nothing."""

from __future__ import annotations

import pytest

from tests.browser.helpers import live_page
from tests.test_phd_conph import phd_after
from tests.test_rule_mechanisms import add, fixed_dice, roll

pytestmark = [pytest.mark.browser, pytest.mark.rules, pytest.mark.django_db(transaction=True)]
__all__ = ["fixed_dice"]


def test_c5_28_note_2_the_us_names_the_mmc_its_original_6_casualty_reduces(
    asgi_server, new_context, browser_login, modules, make_user, fixed_dice
):
    """C5.28 note 2 in the browser: the US, no Engineer held, an Elite 7-4-7 and a
    6-6-6; after his original 6 his step offers only the 7-4-7; he names it; his
    retained forces read it casualty reduced; the German's step has no such offer."""
    players, _ = phd_after((make_user("us_p"), make_user("de_p")), "C5.28")
    add(players, "us", "7-4-7", "squad", markers=("elite",))
    add(players, "us", "6-6-6", "squad")
    fixed_dice.append([6])
    roll(players, "us", "fortification_clearance", item="A-P mines in M12")
    us = live_page(asgi_server, new_context, browser_login, players, "us")
    de = live_page(asgi_server, new_context, browser_login, players, "german")
    offer = us.locator("#reduce-fortification_clearance")
    offer.wait_for()
    assert "Known Minefield" in offer.inner_text()
    options = offer.locator("select option").all_inner_texts()
    assert any("7-4-7" in o for o in options) and not any("6-6-6" in o for o in options), options
    assert not de.locator("#reduce-fortification_clearance").count()
    with us.expect_response(lambda r: "/act/reduce-mmc/" in r.url):
        offer.get_by_role(
            "button", name="Casualty Reduce this MMC: Fortification Clearance Table"
        ).click()
    us.goto(f"{asgi_server.url}/campaigns/{players.campaign_id}/roster/")
    us.locator("#retained-forces", has_text="7-4-7").wait_for()
    text = us.locator("#retained-forces").inner_text()
    assert "casualty reduced" in text, text
