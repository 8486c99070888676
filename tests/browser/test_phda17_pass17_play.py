"""Issue 44, pass 17, Purple Heart Draw in two browsers: C5.13a "Units marked with a
Stun counter may remove it after redeploying only if they are not Isolated at that
time".  Both players finish C5.14 by their Done buttons (the Attacker first): the
German's stunned Panzer is in good order on his retained forces, the US's stunned,
Isolated Sherman keeps its Stun (and is Low Ammo); the US player unticks its Stun on
the roster and reads the refusal citing C5.13a, nothing changed.  The prefix (the
Initial TM Scenario's result) and the units are walked through the services."""

from __future__ import annotations

import pytest

from campaign.models import Unit
from campaign.selectors import module_of, step_attacker
from tests.browser.helpers import live_page
from tests.test_phd_conph import phd_after
from tests.test_rule_mechanisms import add

pytestmark = [pytest.mark.browser, pytest.mark.rules, pytest.mark.django_db(transaction=True)]


def _done(page, step="C5.14"):
    button = page.get_by_role("button", name=f"Done with {step}", exact=True)
    if not button.count():
        page.reload()
        page.locator("body[data-live]").wait_for(state="attached")
    with page.expect_response(lambda r: "/act/finish/" in r.url):
        button.click()


def test_c5_13a_a_stun_comes_off_unless_isolated_and_its_removal_is_refused(
    asgi_server, new_context, browser_login, modules, make_user
):
    """C5.13a: after both Done buttons at C5.14 the German Panzer reads "in good order",
    the US Sherman "stunned, isolated, Low Ammo"; unticking the Sherman's Stun on the US
    roster is refused in words citing C5.13a, and the Sherman keeps its markers."""
    players, _ = phd_after((make_user("us_s"), make_user("de_s")), "C5.14")
    add(players, "german", "PzKpfw IVH", "vehicle", markers=("stunned",))
    sherman = add(players, "us", "M4A1 Sherman", "vehicle", markers=("stunned", "isolated"))
    c = players.campaign
    module = module_of(c)
    attacker = step_attacker(c, module, module.steps[c.step_index]) or "us"
    defender = "german" if attacker == "us" else "us"
    pages = {
        side: live_page(asgi_server, new_context, browser_login, players, side)
        for side in ("us", "german")
    }
    _done(pages[attacker])
    _done(pages[defender])
    pages["german"].locator("#campaign-step", has_text="C5.15").or_(
        pages["german"].locator("#step-title", has_text="C5.15")
    ).first.wait_for()
    base = f"{asgi_server.url}/campaigns/{players.campaign_id}/roster/"
    de = pages["german"]
    de.goto(base)
    de.locator("#retained-forces", has_text="PzKpfw IVH — in good order").wait_for()
    us = pages["us"]
    us.goto(base)
    us.locator("body[data-live]").wait_for(state="attached")
    forces = us.locator("#retained-forces")
    forces.locator("li, tr", has_text="M4A1 Sherman").first.wait_for()
    assert "M4A1 Sherman — stunned, isolated, Low Ammo" in forces.inner_text()
    edit = us.locator(f"#unit-edit-{sherman.ref}")
    edit.locator("summary").click()
    edit.locator(f"#unit-marker-{sherman.ref}-stunned").uncheck()
    edit.get_by_role("button", name="Save").click()
    refusal = us.locator(".refusal, .error, [role=alert]", has_text="C5.13a")
    refusal.first.wait_for()
    said = refusal.first.inner_text()
    assert "keeps its stunned marker" in said and "Nothing was changed" in said, said
    assert set(Unit.objects.get(pk=sherman.pk).markers) == {"stunned", "isolated", "low_ammo"}
