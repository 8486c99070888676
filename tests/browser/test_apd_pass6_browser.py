"""Issue 44, pass 6, A Pleasant Diversion in real Chromium.

- 3.4 note 3 (fixed in pass 5, service-tested only then): at 3.6 the American clicks
  *Make its secret rolls* on an Armor Group the players' chart tags only 'armor'; its
  line shows one H1.42 Gyrostabilizer DR per tank the M4 Model DR gave, three.
- 3.2 EXC "Fanatic status is NA": at 3.2 the American's Elite squad (marked Elite on his
  retained forces) is not offered for his Hero; the Line squad is, and a click marks it
  battle hardened."""

from __future__ import annotations

import pytest

from campaign.models import Roll
from tests.test_rule_mechanisms import _M4_ARMOR_TYPE, _armor_group, add, apd_at, buy, rg_roll

pytestmark = [pytest.mark.browser, pytest.mark.rules, pytest.mark.django_db(transaction=True)]


def test_3_4_note_3_the_gyrostabilizer_drs_of_an_armor_groups_tanks_on_screen(
    asgi_server, new_context, browser_login, modules, make_user
):
    """3.4 note 3: "Make one DR on the H1.42 Gyrostabilizer Table per AFV": the three M4s
    of an Armor Group tagged only 'armor' each roll one, shown on the group's line."""
    players, _ = apd_at((make_user("us_g"), make_user("de_g")), "3.4")
    _armor_group(players, [{"range": "1-6", "result": "M4", "effect": _M4_ARMOR_TYPE}], full=1)
    a1 = buy(players, "american", "A1")
    rg_roll(players, "american", a1)  # the armor-type dr, made at 3.4
    players.until_step("3.6")
    rg_roll(players, "american", a1)  # the Leader DR, made at 3.6
    players.until_step("3.7")  # the M4 Model DR and the Gyrostabilizer DRs (pass 8)
    url = f"{asgi_server.url}/campaigns/{players.campaign_id}/"
    us = browser_login(new_context(), players.users["american"]).new_page()
    us.goto(url)
    us.locator("body[data-live]").wait_for()
    us.locator("#step-title", has_text="3.7").wait_for()
    line = us.locator(".purchases li", has_text="Armor Group")
    line.get_by_role("button", name="Make its secret rolls").click()
    line.locator(".roll-result", has_text="Gyrostabilizer").first.wait_for()
    shown = line.inner_text()
    assert shown.count("H1.42 Gyrostabilizer Table") == 3, shown
    assert "M4 Model Table" in shown, shown
    assert Roll.objects.filter(table_id="gyrostabilizer").count() == 3


def test_3_2_exc_fanatic_is_na_an_elite_squad_is_not_offered_for_the_hero(
    asgi_server, new_context, browser_login, modules, make_user
):
    """3.2: "the owning player may Battle Harden [EXC: Fanatic status is NA] any one
    MMC": the American marks his 6-6-7 Elite on his retained forces (roster); at 3.2
    the Hero's select offers his 6-6-6 only, and a click marks it battle hardened."""
    players, _ = apd_at((make_user("us_f"), make_user("de_f")), "3.2")
    add(players, "american", "1-4-9 Hero", "hero")
    elite = add(players, "american", "6-6-7", "squad")
    add(players, "american", "6-6-6", "squad")
    url = f"{asgi_server.url}/campaigns/{players.campaign_id}/"
    us = browser_login(new_context(), players.users["american"]).new_page()
    us.goto(url + "roster/")
    us.locator("body[data-live]").wait_for()
    edit = us.locator(f"#unit-edit-{elite.ref}")
    edit.locator("summary").click()
    edit.locator(f"#unit-marker-{elite.ref}-elite").check()
    edit.get_by_role("button", name="Save").click()
    us.locator(f"#unit-{elite.ref} .unit-read .status", has_text="Elite (MMC class)").wait_for()
    us.goto(url)
    us.locator("body[data-live]").wait_for()
    mark = us.locator("#exchange-mark")
    offered = mark.locator("option").all_inner_texts()
    assert offered == ["6-6-6 (in good order)"], offered
    us.once("dialog", lambda d: d.accept())  # marking gives up a Hero: it asks first
    us.get_by_role("button", name="Mark battle hardened").click()
    us.locator("#exchange .help", has_text="You hold no Heroes").or_(
        us.locator("#exchange", has_text="You hold no Heroes")
    ).first.wait_for()
    squads = dict(players.campaign.units.filter(kind="squad").values_list("name", "markers"))
    assert squads == {"6-6-6": ["battle_hardened"], "6-6-7": ["elite"]}
