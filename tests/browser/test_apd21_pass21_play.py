"""Issue 44, pass 21, A Pleasant Diversion in real Chromium: 2.4 and 2.6 name each
side's own vehicles on its own screen.  The Morning's Clean-Up: the American holds a
mobile M4A3(75)W at 12L6 and an immobilized M4A3(76)W, the German a PzVG at 20A1.  At
2.4 the American's step card names his Mobile M4A3(75)W (2.4), the German's his PzVG
with the EXC's Stall (2.4 EXC); neither names the other's.  Both click Done at 2.4 and
2.5 (no one Encircled); at 2.6 the
American's card names the M4A3(75)W as one that may be Bogged (2.6), not the
immobilized one."""

from __future__ import annotations

import pytest

from tests.test_rule_mechanisms import add, apd_at

pytestmark = [pytest.mark.browser, pytest.mark.rules, pytest.mark.django_db(transaction=True)]


def test_2_4_2_6_each_side_reads_its_own_vehicles_on_the_clean_up_steps(
    asgi_server, new_context, browser_login, modules, make_user
):
    """2.4 "All Mobile vehicles may automatically change their current Stopped/Motion
    status [EXC: PzVG must still roll for Stall ...]"; 2.6 "Each non-abandoned,
    Bogged/Mired vehicle must undergo ≥ one Bog Removal attempt (D8.3)"."""
    players, _ = apd_at((make_user("us_21"), make_user("de_21")), "2.4")
    add(players, "american", "M4A3(75)W", "vehicle", location="12L6")
    add(players, "american", "M4A3(76)W", "vehicle", "immobilized")
    add(players, "german", "PzVG", "vehicle", location="20A1")
    url = f"{asgi_server.url}/campaigns/{players.campaign_id}/"
    us = browser_login(new_context(), players.users["american"]).new_page()
    de = browser_login(new_context(), players.users["german"]).new_page()
    for page in (us, de):
        page.goto(url)
        page.locator("body[data-live]").wait_for()
    mine = us.locator("#campaign-step p.reminder")
    mine.first.wait_for()
    text = " ".join(mine.all_inner_texts())
    assert "Stopped/Motion" in text and "M4A3(75)W" in text, text
    assert "M4A3(76)W" not in text and "PzVG" not in text, text
    theirs = " ".join(de.locator("#campaign-step p.reminder").all_inner_texts())
    assert "Stall" in theirs and "PzVG" in theirs and "M4A3" not in theirs, theirs
    for step in ("2.4", "2.5"):
        for page in (us, de):
            done = page.get_by_role("button", name=f"Done with {step}", exact=True)
            done.wait_for()
            done.click()
    us.locator("#campaign-step p.reminder", has_text="Bog Removal").wait_for()
    bog = us.locator("#campaign-step p.reminder", has_text="Bog Removal").inner_text()
    assert "M4A3(75)W" in bog and "M4A3(76)W" not in bog, bog
