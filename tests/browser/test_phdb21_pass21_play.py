"""Issue 44, pass 21 (C5.25-C5.41), Purple Heart Draw in two browsers: C5.28 "+1
Roadblock along a hexside of an enemy Front Line Hex ..." is for a roll vs a Roadblock
only (the roll names its fortification).  The US ticks it on a Wire roll: the refusal
is shown where he clicked, citing C5.28, and no roll is made; ticked on a Roadblock
roll it applies (the live server's dice are random: only the DRM is read).  The German's
page offers the same DRM for his own rolls."""

from __future__ import annotations

import pytest

from campaign.models import Roll
from tests.browser.helpers import live_page
from tests.test_phd_conph import phd_after

pytestmark = [pytest.mark.browser, pytest.mark.rules, pytest.mark.django_db(transaction=True)]

TABLE = "fortification_clearance"


def test_c5_28_the_roadblock_drm_on_a_wire_roll_is_refused_where_the_us_clicked(
    asgi_server, new_context, browser_login, modules, make_user
):
    players, _ = phd_after((make_user("us_p21"), make_user("de_p21")), "C5.28")
    us = live_page(asgi_server, new_context, browser_login, players, "us")
    de = live_page(asgi_server, new_context, browser_login, players, "german")
    form = us.locator(f"form:has(input[name=table][value={TABLE}])")
    form.wait_for()
    form.locator(f"#item-{TABLE}").fill("Wire in M12")
    form.locator(f"#tick-{TABLE}-roadblock_front").check()
    with us.expect_response(lambda r: "/act/roll/" in r.url) as sent:
        form.get_by_role("button", name="Roll dr: Fortification Clearance Table").click()
    assert 400 <= sent.value.status < 500, sent.value.status
    us.get_by_text("does not apply").first.wait_for()
    assert "C5.28" in us.locator("body").inner_text()
    assert not Roll.objects.filter(campaign_id=players.campaign_id, table_id=TABLE).exists()
    form = us.locator(f"form:has(input[name=table][value={TABLE}])")
    form.locator(f"#item-{TABLE}").fill("Roadblock in M13")
    form.locator(f"#tick-{TABLE}-roadblock_front").check()
    with us.expect_response(lambda r: "/act/roll/" in r.url) as sent:
        form.get_by_role("button", name="Roll dr: Fortification Clearance Table").click()
    assert sent.value.status == 200, sent.value.status
    made = Roll.objects.get(campaign_id=players.campaign_id, table_id=TABLE, side="us")
    assert [d["value"] for d in made.drms] == [1]
    de.locator(f"#tick-{TABLE}-roadblock_front").wait_for()
