"""Issue 44, pass 9 (Sicily, part A: 3.6-3.614) in real Chromium.

- 3.613: the Shift form offers the units that can shift (the squad, not the
  immobilized StuG); a Final 12 eliminates the squad and the LMG it possesses, and the
  campaign log on screen says so."""

from __future__ import annotations

import pytest

from campaign.models import Unit
from tests.purchase_helpers import campaign_at
from tests.test_rule_mechanisms import add

pytestmark = [pytest.mark.browser, pytest.mark.rules, pytest.mark.django_db(transaction=True)]


def test_3_613_shift_form_offers_units_that_can_shift_and_applies_12(
    asgi_server, new_context, browser_login, modules, make_user, monkeypatch
):
    """3.613 ">= 12 All units, Inherent Crews and Equipment Eliminated": the Shift form
    offers the Axis his squad and leader, not the immobilized StuG; a click rolls the
    leader's Shift DR; the squad's DR of 12 (made with set dice) eliminates it and its
    LMG, and the roll and the log on screen say so."""
    import rules.dice
    from tests.test_rule_mechanisms import roll

    players, _ = campaign_at(
        "sicily", "i", "jul15am", (make_user("ax_s9"), make_user("br_s9")), step="3.613"
    )
    squad = add(players, "axis", "4-6-7", "squad")
    add(players, "axis", "LMG", "sw", possessor=squad.ref)
    leader = add(players, "axis", "8-1 leader", "leader")
    add(players, "axis", "StuG IIIG", "vehicle", status="immobilized")
    page = browser_login(new_context(), players.users["axis"]).new_page()
    page.goto(f"{asgi_server.url}/campaigns/{players.campaign_id}/")
    page.locator("body[data-live]").wait_for()
    box = page.locator("#table-shift")
    offered = box.locator("#unit-shift option").all_inner_texts()
    assert any("4-6-7" in o for o in offered) and any("8-1" in o for o in offered), offered
    assert not any("StuG" in o for o in offered), offered
    box.locator("#unit-shift").select_option(leader.ref)
    box.get_by_role("button", name="Roll DR").click()
    page.locator(".roll", has_text="Shift — 8-1 leader").first.wait_for()

    real = rules.dice.faces
    sixes = [[6, 6]]
    monkeypatch.setattr(
        rules.dice, "faces", lambda *a, **k: list(sixes.pop()) if sixes else real(*a, **k)
    )
    roll(players, "axis", "shift", squad)
    page.reload()  # rolled by the service here, not in this browser
    line = page.locator(".roll", has_text="Shift — 4-6-7").first.inner_text()
    assert "All units, Inherent Crews and Equipment Eliminated" in line, line
    log = page.locator("#campaign-log").text_content() or ""
    assert "4-6-7 is removed from the retained forces; LMG Eliminated with it" in log, log
    assert not Unit.objects.filter(campaign_id=players.campaign_id, side="axis", kind="sw").exists()
    assert not Unit.objects.filter(pk=squad.pk).exists()
