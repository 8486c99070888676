"""Issue 44, pass 7, A Pleasant Diversion in real Chromium.

- 3.2 [EXC: Fanatic status is NA] with A15.3: two Heroes, two squads.  The American
  clicks *Mark battle hardened* for his first Hero on his 6-6-6; for the second Hero
  the select then offers only his other squad (the 6-6-6 is Elite now: a second
  hardening would be Fanatic)."""

from __future__ import annotations

import pytest

from tests.test_rule_mechanisms import add, apd_at

pytestmark = [pytest.mark.browser, pytest.mark.rules, pytest.mark.django_db(transaction=True)]


def test_3_2_a15_3_a_squad_hardened_for_one_hero_is_not_offered_for_the_next(
    asgi_server, new_context, browser_login, modules, make_user
):
    """3.2: "for each such eliminated Hero the owning player may Battle Harden [EXC:
    Fanatic status is NA] any one MMC": the 6-6-6 hardened for the first Hero is not
    offered for the second; the 6-6-7 is, and a click marks it."""
    players, _ = apd_at((make_user("us_h"), make_user("de_h")), "3.2")
    add(players, "american", "1-4-9 Hero", "hero", number=2)
    add(players, "american", "6-6-6", "squad")
    add(players, "american", "6-6-7", "squad")
    url = f"{asgi_server.url}/campaigns/{players.campaign_id}/"
    us = browser_login(new_context(), players.users["american"]).new_page()
    us.on("dialog", lambda d: d.accept())  # marking gives up a Hero: it asks first
    us.goto(url)
    us.locator("body[data-live]").wait_for()
    mark = us.locator("#exchange-mark")
    assert mark.locator("option").all_inner_texts() == [
        "6-6-6 (in good order)",
        "6-6-7 (in good order)",
    ]
    mark.select_option(label="6-6-6 (in good order)")
    us.get_by_role("button", name="Mark battle hardened").click()
    us.locator("#exchange-mark option", has_text="6-6-6").wait_for(state="detached")
    offered = us.locator("#exchange-mark option").all_inner_texts()
    assert offered == ["6-6-7 (in good order)"], offered
    us.get_by_role("button", name="Mark battle hardened").click()
    us.locator("#exchange", has_text="You hold no Heroes").first.wait_for()
    squads = dict(players.campaign.units.filter(kind="squad").values_list("name", "markers"))
    assert squads == {"6-6-6": ["battle_hardened"], "6-6-7": ["battle_hardened"]}
