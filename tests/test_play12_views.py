"""Playtest 12 (``docs/playtest-12.md``): a click that gives something up for good asks
first, saying what it gives up, on the step's own form."""

from __future__ import annotations

import html
import re

import pytest

from tests import test_rule_mechanisms as mechanisms
from tests.test_rule_mechanisms import add, apd_at, result_values, roll, start
from tests.walk import host_game

users = mechanisms.users
fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.django_db]


def _confirm_of(page: str, action: str) -> str:
    """The question the form posting ``action`` asks before it posts ("" : none)."""
    form = re.search(rf'<form[^>]*action="[^"]*/act/{action}/"[^>]*>', page)
    assert form, f"no {action} form on the page"
    asked = re.search(r'hx-confirm="([^"]*)"', form.group(0))
    return html.unescape(asked.group(1)) if asked else ""


def test_3_2_marking_an_mmc_for_a_hero_asks_first(users, modules, client):
    """APD 3.2: the Hero given up "for each such eliminated Hero the owning player may
    Battle Harden ... any one MMC" leaves for good: *Mark battle hardened* asks first,
    naming what leaves."""
    players, _ = apd_at(users, "3.2")
    add(players, "american", "1-4-9 Hero", "hero")
    add(players, "american", "7-4-7", "squad")
    client.force_login(players.users["american"])
    page = client.get(f"/campaigns/{players.campaign_id}/").content.decode()
    assert _confirm_of(page, "exchange") == (
        "Mark the unit you chose battle hardened? One of your Heroes leaves your forces "
        "for it (3.2)."
    )


def test_c5_23_battle_hardening_an_mmc_asks_first(users, modules, client, fixed_dice):
    """PHD C5.23: after the Battlefield Promotion DR, *Battle Harden this MMC* marks
    the MMC chosen at once and uses up one of the number the DR allows: it asks
    first."""
    players, module = start("purple-heart-draw", "tm", users, "us")
    players.results(**result_values(module))
    players.until_step("C5.23")
    add(players, "us", "6-6-7", "squad", number=2)
    fixed_dice.extend([[1, 2]])
    roll(players, "us", "battlefield_promotion")
    client.force_login(players.users["us"])
    page = client.get(f"/campaigns/{players.campaign_id}/").content.decode()
    assert "Battle Harden this MMC" in page
    assert _confirm_of(page, "harden").startswith("Battle Harden the MMC you chose?")


def test_each_datum_counts_the_ones_still_missing(users, modules, client):
    """The rules-data fold says how many of its data are still missing, the number the
    start sheet's link gives, beside how many it lists (PHD: one of them is given by
    the rules text, amendable)."""
    first, second = users
    c = host_game("purple-heart-draw", "tm", first, second, side="us", through_start=False)
    client.force_login(first)
    page = html.unescape(client.get(f"/campaigns/{c.pk}/").content.decode())
    link = re.search(r"the (\d+) data still missing on one page", page)
    fold = re.search(r"<summary>Each datum \((\d+), (\d+) still missing\)</summary>", page)
    assert link and fold, "the counts are not both said"
    assert fold.group(2) == link.group(1)
    assert int(fold.group(1)) >= int(fold.group(2))
