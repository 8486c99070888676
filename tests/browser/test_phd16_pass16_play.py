"""Issue 44, pass 16, Purple Heart Draw in two browsers: C5.13a "Units that end this
Redeployment phase Isolated (only), suffer from Ammunition shortage for the next TM
Scenario".  The US (the Attacker) and then the German finish C5.14 by their Done buttons;
each one's unit marked Isolated now reads Low Ammo (Ammunition Shortage) on his own
retained forces, marked by the app.  The prefix (the Initial TM Scenario's result) and
the units are walked through the services."""

from __future__ import annotations

import pytest

from tests.browser.helpers import live_page
from tests.test_phd_conph import phd_after
from tests.test_rule_mechanisms import add

pytestmark = [pytest.mark.browser, pytest.mark.rules, pytest.mark.django_db(transaction=True)]

LOW_AMMO = "Low Ammo (Ammunition Shortage, A19.131)"


_open = live_page


def _done(page, step="C5.14"):
    button = page.get_by_role("button", name=f"Done with {step}", exact=True)
    if not button.count():
        page.reload()
        page.locator("body[data-live]").wait_for(state="attached")
    with page.expect_response(lambda r: "/act/finish/" in r.url):
        button.click()


def test_c5_13a_isolated_units_are_marked_low_ammo_when_both_finish_redeployment(
    asgi_server, new_context, browser_login, modules, make_user
):
    """C5.13a: after both Done buttons at C5.14, the US squad and the German Panzer its
    owner marked Isolated read "Low Ammo (Ammunition Shortage, A19.131)" on the owner's
    retained forces; the US squad not Isolated does not."""
    players, _ = phd_after((make_user("us_p"), make_user("de_p")), "C5.14")
    add(players, "us", "6-6-7 A", "squad", markers=("isolated",))
    add(players, "us", "6-6-7 B", "squad")
    add(players, "german", "PzKpfw IVH", "vehicle", markers=("isolated",))
    us = _open(asgi_server, new_context, browser_login, players, "us")
    de = _open(asgi_server, new_context, browser_login, players, "german")
    _done(us)
    _done(de)
    # Both done: the German's page moves on to C5.15 (the settling is in that commit).
    de.locator("#campaign-step", has_text="C5.15").wait_for()
    base = f"{asgi_server.url}/campaigns/{players.campaign_id}/roster/"
    us.goto(base)
    forces = us.locator("#retained-forces")
    forces.locator("li, tr", has_text="6-6-7 A").first.wait_for()
    text = forces.inner_text()
    assert f"6-6-7 A — isolated, {LOW_AMMO}" in text, text
    assert "6-6-7 B — Low Ammo" not in text
    de.goto(base)
    de.locator("#retained-forces", has_text=f"PzKpfw IVH — isolated, {LOW_AMMO}").wait_for()
