"""Issue 44, pass 20, Purple Heart Draw in two browsers: C5.8 "Any encircled units
[EXC: Prisoners] must take a 1TC ... with the failure of this 1TC resulting in the
elimination of the unit", and C5.21 EXC "A HS in possession of a MMG ... (even if
Malfunctioned)".  The German's page at C5.8 offers the 1TC for his Encircled 4-6-7
only (not his captured 2-4-7) and no Done until it is made; his DR (random here) either
eliminates the squad or leaves it Encircled, and then Done is offered.  At C5.21 the
US's select leaves out the 3-3-7 possessing a MMG and his page says why.  The prefix
and the units are walked through the services."""

from __future__ import annotations

import pytest

from campaign.models import Roll, Unit
from tests.browser.helpers import live_page
from tests.test_phd_conph import phd_after
from tests.test_rule_mechanisms import add

pytestmark = [pytest.mark.browser, pytest.mark.rules, pytest.mark.django_db(transaction=True)]


def test_c5_8_the_encircled_1tc_and_c5_21_exc_in_two_browsers(
    asgi_server, new_context, browser_login, modules, make_user
):
    """C5.8 on the German's page, C5.21 EXC on the US's."""
    players, _ = phd_after((make_user("us_e"), make_user("de_e")), "C5.8")
    squad = add(players, "german", "4-6-7", "squad", markers=("encircled",))
    prisoner = add(players, "german", "2-4-7", "half_squad", markers=("encircled", "captured"))
    de = live_page(asgi_server, new_context, browser_login, players, "german")
    us = live_page(asgi_server, new_context, browser_login, players, "us")
    us.get_by_role("button", name="Done with C5.8", exact=True).wait_for()

    select = de.locator("#unit-encircled_1tc")
    select.wait_for()
    offered = select.locator("option").evaluate_all("os => os.map(o => o.value)")
    assert squad.ref in offered and prisoner.ref not in offered, offered
    assert de.get_by_role("button", name="Done with C5.8", exact=True).count() == 0
    assert "Roll first" in de.locator("body").inner_text()
    select.select_option(squad.ref)
    with de.expect_response(lambda r: "/act/roll/" in r.url):
        de.get_by_role("button", name="Roll DR: Encirclement 1TC").click()
    de.get_by_role("button", name="Done with C5.8", exact=True).wait_for()
    gone = not Unit.objects.filter(pk=squad.pk).exists()
    rolled = Roll.objects.get(campaign_id=players.campaign_id, table_id="encircled_1tc")
    assert ("Fails" in rolled.result) == gone, rolled.result
    assert de.locator("body", has_text=rolled.result).count() == 1

    a = add(players, "us", "3-3-7", "half_squad", location="c4")
    b = add(players, "us", "3-3-7", "half_squad", location="c5")
    c = add(players, "us", "3-3-7", "half_squad", location="c6")
    add(players, "us", "MMG", "sw", possessor=a.ref)
    players.until_step("C5.21")
    us.reload()
    us.locator("body[data-live]").wait_for(state="attached")
    give = us.locator("#exchange-give")
    give.wait_for()
    offered = give.locator("option").evaluate_all("os => os.map(o => o.value)")
    assert b.ref in offered and c.ref in offered and a.ref not in offered, offered
    barred = us.locator("#exchange-barred")
    assert "3-3-7 possesses MMG" in barred.inner_text() and "C5.21 EXC" in barred.inner_text()
    de.reload()
    de.locator("body[data-live]").wait_for(state="attached")
    assert de.locator("#exchange-barred").count() == 0
