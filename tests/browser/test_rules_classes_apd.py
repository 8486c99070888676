"""Issue 44 in real Chromium, A Pleasant Diversion's share of the classes: what the
player sees on screen where a rule's condition, a table's dice or a sequence decide.

- class 6: the 3.6 note a DRM (-1 PzGr Platoon I / PzV Section) is neither offered
  nor applied where it cannot apply: the German's PzIV Section, any American group;
  the PzGr Platoon I's leader DR carries it by itself.
- class 7: a module whose table prints a row no roll can reach, or leaves a final
  no row covers, is refused on the /modules/ page, the row or the final named.
- class 9: the 3.6 Leader DR and the 3.7 M4 Model DR of an Armor Group are made at
  their own steps, after buying (1.2 "complete each step before moving on"): at 3.4
  the line shows its armor-type dr only."""

from __future__ import annotations

from pathlib import Path

import pytest

from campaign.models import Purchase, Seat
from tests.test_rule_mechanisms import (
    _M4_ARMOR_TYPE,
    GERMAN_CHART,
    _armor_group,
    apd_at,
    buy,
    roll,
    row_table,
    supply,
)

# The rules on screen: run once, on PostgreSQL + Redis (the embedded run leaves them out).
pytestmark = [pytest.mark.browser, pytest.mark.rules, pytest.mark.django_db(transaction=True)]
HILL = Path(__file__).parent.parent / "fixtures" / "authored" / "modules" / "hill-621.yaml"
DRM = "PzGr Platoon I / PzV Section"


def _upload(page, url, text: str) -> str:
    page.goto(f"{url}/modules/")
    page.locator("#id_file").set_input_files(
        files=[{"name": "hill-621.yaml", "mimeType": "application/x-yaml", "buffer": text.encode()}]
    )
    page.get_by_role("button", name="Check and add the module").click()
    alert = page.locator("[role=alert]")
    alert.wait_for()
    return alert.inner_text()


def test_class_7_a_row_no_roll_reaches_and_a_final_no_row_covers_are_refused(
    asgi_server, new_context, browser_login, make_user
):
    """Class 7 (APD 3.1's Recovery Table is a dr table of rows 1-3 and 4-6): the
    authored module's Wounded Leaders dr, +1 at Night, printed 1-3 / 4-6 / 7 / 8, has a
    row 8 no roll reaches; printed 1-3 / 4-6, its final 7 falls on no row.  Each upload
    is refused with the row or the final named, and no module is added."""
    from campaign.models import ModuleRecord

    page = browser_login(new_context(), make_user("author")).new_page()
    text = HILL.read_text()
    rows = (
        '      - {range: "≤3", result: Recovers, effect: {do: status, status: ok}}\n'
        '      - {range: "≥4", result: Evacuated, effect: {do: eliminate}}\n'
    )
    assert rows in text
    closed = rows.replace("≤3", "1-3").replace("≥4", "4-6")
    unreachable = closed + (
        '      - {range: "7", result: Evacuated, effect: {do: eliminate}}\n'
        '      - {range: "8", result: Lost, effect: {do: eliminate}}\n'
    )
    said = _upload(page, asgi_server.url, text.replace(rows, unreachable))
    assert "wounded: row 8 can never come up (a final 1..7" in said, said
    said = _upload(page, asgi_server.url, text.replace(rows, closed))
    assert "wounded: a final 7 (German's roll with its DRMs) falls on no row" in said, said
    assert not ModuleRecord.objects.exists()


def test_class_6_the_pzgr_pzv_drm_is_not_offered_where_it_cannot_apply(
    asgi_server, new_context, browser_login, modules, make_user, monkeypatch
):
    """Class 6, APD 3.6 note a: "-1 DRM for PzGr Platoon I/PzV Section" (under the
    German columns).  At 3.6 the German's two groups show no box to claim it; the PzGr
    Platoon I's Leader DR carries it by itself, the PzIV Section's does not; and the
    American's Armor Group, at 3.4, is never offered it."""
    players, _ = apd_at((make_user("us_p"), make_user("de_p")), "3.4")
    supply(players, "rg_charts.german", GERMAN_CHART)
    for row, given in (("a", "PzGr Platoon I:group: RA1"), ("b", "PzIV Section:group: RB1")):
        result, effect = given.split(":", 1)  # any dr gives the group: no dice decide
        supply(
            players, f"tables.german_reinforcement_row_{row}", row_table([("1-6", result, effect)])
        )
    supply(players, "tables.german_reinforcement_row_c", row_table([("1-6", "HE (only)", "none")]))
    _armor_group(players, [{"range": "1-6", "result": "M4", "effect": _M4_ARMOR_TYPE}])
    buy(players, "american", "A1")
    url = f"{asgi_server.url}/campaigns/{players.campaign_id}/"
    us = browser_login(new_context(), players.users["american"]).new_page()
    us.goto(url)
    us.locator("#campaign-record tr", has_text="Armor Group").wait_for()
    assert DRM not in us.locator("main").inner_text()
    players.until_step("3.5")
    for row in ("a", "b", "c"):
        roll(players, "german", f"german_reinforcement_row_{row}", item=f"Row {row.upper()}")
    players.finish()
    players.until_step("3.6")
    players.finish_side("american")  # his Done makes A1's rolls left
    assert players.waiting() == ["german"]
    de = browser_login(new_context(), players.users["german"]).new_page()
    de.goto(url)
    de.locator("#step-title", has_text="3.6").wait_for()
    assert de.get_by_role("checkbox", name=DRM).count() == 0
    for group in ("PzGr Platoon I", "PzIV Section"):
        line = de.locator(".purchases li", has_text=group)
        line.get_by_role("button", name="Make its secret rolls").click()
        line.locator(".roll-result").first.wait_for()
    pzgr = de.locator(".purchases li", has_text="PzGr Platoon I").inner_text()
    pziv = de.locator(".purchases li", has_text="PzIV Section").inner_text()
    assert f"-1 {DRM} (German)" in pzgr, pzgr
    assert DRM not in pziv, pziv
    assert Purchase.objects.filter(side="german", rolled_at__isnull=True).count() == 0
    assert Seat.objects.get(campaign_id=players.campaign_id, side="german").points == 0


def test_class_9_an_armor_groups_leader_and_m4_drs_wait_for_their_steps(
    asgi_server, new_context, browser_login, modules, make_user
):
    """Class 9, APD 1.2 / 3.4 / 3.6 / 3.7: the sequence was in the module, but the app
    made every roll of an Armor Group while the American was still buying.  At 3.4 its
    line makes the armor-type dr only, shows it, and offers no second roll; the Leader
    and M4 Model DRs come at 3.6 and 3.7 (pass 8), on the same line."""
    players, _ = apd_at((make_user("us_p9"), make_user("de_p9")), "3.4")
    _armor_group(players, [{"range": "1-6", "result": "M4", "effect": _M4_ARMOR_TYPE}])
    buy(players, "american", "A1")
    url = f"{asgi_server.url}/campaigns/{players.campaign_id}/"
    us = browser_login(new_context(), players.users["american"]).new_page()
    us.goto(url)
    line = us.locator(".purchases li", has_text="Armor Group")
    line.get_by_role("button", name="Make its secret rolls").click()
    line.locator(".roll-result").first.wait_for()
    shown = line.inner_text()
    assert "American Reinforcement Table: M4" in shown, shown
    assert "Leader Table" not in shown and "M4 Model Table" not in shown, shown
    assert line.get_by_role("button", name="Make its secret rolls").count() == 0
    players.until_step("3.6")
    us.goto(url)
    us.locator("#step-title", has_text="3.6").wait_for()
    line = us.locator(".purchases li", has_text="Armor Group")
    line.get_by_role("button", name="Make its secret rolls").click()
    line.locator(".roll-result", has_text="Leader Table").wait_for()
    shown = line.inner_text()
    assert "American Reinforcement Table: M4" in shown and "M4 Model Table" not in shown, shown
    assert line.get_by_role("button", name="Make its secret rolls").count() == 0
    players.until_step("3.7")
    us.goto(url)
    us.locator("#step-title", has_text="3.7").wait_for()
    line = us.locator(".purchases li", has_text="Armor Group")
    line.get_by_role("button", name="Make its secret rolls").click()
    line.locator(".roll-result", has_text="M4 Model Table").wait_for()
    shown = line.inner_text()
    assert "American Reinforcement Table: M4" in shown and "Leader Table" in shown, shown
