"""Issue 44, pass 7 (Sicily, part A: 3.6-3.614) in real Chromium.

- 3.61424: at 3.614 the Axis chooses his Gun on the Special Ammo form and types the
  depleted ammunition type; the roll is made for the Gun and that type, and a second
  for the same Gun and type is refused on screen with the rule.
- 3.606 "-1 If lone, unwounded SMC": the box is on the Escape form (it was never
  shown), and a click rolls the leader's Escape DR with it."""

from __future__ import annotations

import pytest

from campaign.models import Roll
from tests.purchase_helpers import campaign_at
from tests.test_rule_mechanisms import add

pytestmark = [pytest.mark.browser, pytest.mark.rules, pytest.mark.django_db(transaction=True)]


def _axis_page(asgi_server, new_context, browser_login, players):
    page = browser_login(new_context(), players.users["axis"]).new_page()
    page.goto(f"{asgi_server.url}/campaigns/{players.campaign_id}/")
    page.locator("body[data-live]").wait_for()
    return page


def test_3_61424_special_ammo_for_a_gun_and_its_ammunition_type_on_screen(
    asgi_server, new_context, browser_login, modules, make_user
):
    """3.61424: one dr for each depleted type of each non-captured, non-Isolated weapon:
    the form offers the PaK 40 (not the captured 6-pdr) and asks the type."""
    players, _ = campaign_at(
        "sicily", "i", "jul15am", (make_user("ax_a"), make_user("br_a")), step="3.614"
    )
    pak = add(players, "axis", "75L PaK 40", "gun")
    add(players, "axis", "6-pdr ATG", "gun", status="captured")
    page = _axis_page(asgi_server, new_context, browser_login, players)
    box = page.locator("#table-special_ammo")
    offered = box.locator("#unit-special_ammo option").all_inner_texts()
    assert offered == ["75L PaK 40 (in good order)"], offered
    box.locator("#item-special_ammo").fill("APCR")
    box.get_by_role("button", name="Roll dr").click()
    page.locator(".roll", has_text="75L PaK 40: APCR").first.wait_for()
    assert Roll.objects.get(table_id="special_ammo").unit_ref == pak.ref
    box = page.locator("#table-special_ammo")
    box.locator("#item-special_ammo").fill("apcr")
    box.get_by_role("button", name="Roll dr").click()
    page.get_by_text("has had its Special Ammo roll in this pass (3.61424)").first.wait_for()
    assert Roll.objects.filter(table_id="special_ammo").count() == 1


def test_3_606_lone_smc_box_on_the_escape_form(
    asgi_server, new_context, browser_login, modules, make_user
):
    """3.606 "-1 If lone, unwounded SMC": the Axis chooses his 9-1, ticks the box and
    rolls; the DR carries the -1."""
    players, _ = campaign_at(
        "sicily", "i", "jul15pm", (make_user("ax_e"), make_user("br_e")), step="3.606"
    )
    leader = add(players, "axis", "9-1", "leader")
    page = _axis_page(asgi_server, new_context, browser_login, players)
    box = page.locator("#table-escape")
    box.locator("#unit-escape").select_option(leader.ref)
    box.locator("#tick-escape-lone_smc").check()
    box.get_by_role("button", name="Roll DR").click()
    page.locator(".roll", has_text="If lone, unwounded SMC").first.wait_for()
    r = Roll.objects.get(table_id="escape")
    assert any(d["label"] == "If lone, unwounded SMC" and d["value"] == -1 for d in r.drms), r.drms
