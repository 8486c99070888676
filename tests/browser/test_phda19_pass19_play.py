"""Issue 44, pass 19, Purple Heart Draw in two browsers: C5.21 "All retained same-class
HS with the same strength factors ... must recombine" for HS recorded as half-squad
lines, and C5.24a "create one 7-0 leader from any designated (non-crew) MMC, provided
there is no leader in that location".  The US recombines its two 3-3-7 lines: pressed
without the squad named, the refusal citing C5.21 lands where he clicked; named
"6-6-7", they become one 6-6-7 squad.  At C5.24 he designates the 6-6-7 in e6 (the one
in d5 is with his 8-1 and not offered) and the 7-0 joins in e6.  The German's page
offers neither.  The prefix and the units are walked through the services."""

from __future__ import annotations

import pytest

from campaign.models import Unit
from tests.browser.helpers import live_page
from tests.test_phd_conph import phd_after
from tests.test_rule_mechanisms import add

pytestmark = [pytest.mark.browser, pytest.mark.rules, pytest.mark.django_db(transaction=True)]


def test_c5_21_half_squad_lines_and_c5_24a_the_designated_mmc(
    asgi_server, new_context, browser_login, modules, make_user
):
    """C5.21 and C5.24a in the US's browser, the German's page offering neither."""
    players, _ = phd_after((make_user("us_h"), make_user("de_h")), "C5.21")
    a = add(players, "us", "3-3-7", "half_squad", location="e6")
    b = add(players, "us", "3-3-7", "half_squad", location="e6")
    us = live_page(asgi_server, new_context, browser_login, players, "us")
    de = live_page(asgi_server, new_context, browser_login, players, "german")
    de.locator("#exchange", has_text="You hold no HS").wait_for()

    form = us.locator("#exchange")
    form.get_by_role("button", name="Recombine the two HS").wait_for()
    form.locator("#exchange-give").select_option(a.ref)
    form.locator("#exchange-mark").select_option(b.ref)
    with us.expect_response(lambda r: "/act/exchange/" in r.url):
        form.get_by_role("button", name="Recombine the two HS").click()
    refusal = us.locator(".refusal, .error, [role=alert]", has_text="C5.21")
    refusal.first.wait_for()
    assert "Name the squad the two 3-3-7 HS form" in refusal.first.inner_text()
    assert Unit.objects.filter(pk=a.pk).exists()
    form.locator("#exchange-give").select_option(a.ref)
    form.locator("#exchange-mark").select_option(b.ref)
    form.locator("#exchange-forms").fill("6-6-7")
    with us.expect_response(lambda r: "/act/exchange/" in r.url):
        form.get_by_role("button", name="Recombine the two HS").click()
    us.locator("#exchange", has_text="You hold no HS").wait_for()
    squad = Unit.objects.get(pk=b.pk)
    assert (squad.name, squad.kind, squad.location) == ("6-6-7", "squad", "e6")

    add(players, "us", "8-1 leader", "leader", location="d5")
    beside = add(players, "us", "6-6-7", "squad", number=3, location="d5")
    players.until_step("C5.24")
    us.reload()
    us.locator("body[data-live]").wait_for(state="attached")
    select = us.locator("#instead-mmc-leader_promotion")
    select.wait_for()
    offered = select.locator("option").evaluate_all("os => os.map(o => o.value)")
    assert squad.ref in offered and beside.ref not in offered, offered
    select.select_option(squad.ref)
    with us.expect_response(lambda r: "/act/instead/" in r.url):
        us.get_by_role(
            "button", name="Instead of rolling: Promote a 7-0 leader out of the Ranks (C5.24a)"
        ).click()
    leader = Unit.objects.get(campaign_id=players.campaign_id, name="7-0 leader")
    assert leader.location == "e6"
