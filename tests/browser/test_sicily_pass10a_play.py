"""Issue 44, pass 10 (Sicily, part A: 3.6-3.614), played in two browsers: the Axis and
the British walk 3.604 to 3.614 on one date by the forms, reading each step, one
refusal met where a player would meet it (docs/rules-audit/pass-10-sicily-a.md)."""

from __future__ import annotations

import pytest

from campaign.models import Roll, Unit
from tests.browser.helpers import live_pages
from tests.purchase_helpers import campaign_at
from tests.test_rule_mechanisms import add

pytestmark = [pytest.mark.browser, pytest.mark.rules, pytest.mark.django_db(transaction=True)]


def _done(pages, step: str) -> None:
    for page in pages.values():
        page.locator("#step-title", has_text=step).wait_for()
        button = page.get_by_role("button", name=f"Done with {step}", exact=True)
        button.click()
        button.wait_for(state="detached")


def test_3_604_to_3_614_played_in_two_browsers(
    asgi_server, new_context, browser_login, modules, make_user, monkeypatch
):
    """3.6041: the Axis is offered no Done at 3.604 while his Encircled squad owes its
    1TC, and is told why; the form rolls it (a failure eliminates the squad).
    3.606: the Escape form offers the stack's units; an Isolated leader with a squad
    makes one DR whose HS-equivalents DRM is computed.
    3.613: a stack's Shift DR of 11 (made by the service, with set dice) sends both
    units to the subsequent dr (footnote †), and the Axis is offered no Done until each has made it;
    the British, who shifted nobody, are offered none.  3.614 closes the date."""
    import rules.dice
    from tests.test_rule_mechanisms import roll

    players, _ = campaign_at(
        "sicily", "i", "jul15am", (make_user("ax_p10"), make_user("br_p10")), step="3.604"
    )
    cid = players.campaign_id
    encircled = add(players, "axis", "4-6-7", "squad", status="encircled")
    leader = add(players, "axis", "8-1 leader", "leader", status="isolated")
    squad = add(players, "axis", "4-6-8", "squad", status="isolated")
    add(players, "british", "4-5-8", "squad")
    pages = live_pages(asgi_server, new_context, browser_login, players)
    axis, british = pages["axis"], pages["british"]

    # 3.604: the step says what the 1TC is; no Done while it is owed, and why.
    axis.locator("#step-title", has_text="3.604").wait_for()
    assert "Each Encircled unit takes a separate 1TC" in axis.locator("#campaign-step").inner_text()
    said = axis.locator("#finish-lacking").inner_text()
    assert "Roll first" in said and "Encirclement 1TC" in said, said
    assert axis.get_by_role("button", name="Done with 3.604", exact=True).count() == 0
    box = axis.locator("#table-encircled_1tc")
    assert "unit's Morale" in box.inner_text()
    box.get_by_role("button", name="Roll DR").click()
    line = axis.locator(".roll", has_text="Encirclement 1TC").first
    line.wait_for()
    failed = "Fails: Eliminated" in line.inner_text()
    assert failed or "Passes" in line.inner_text(), line.inner_text()
    assert Unit.objects.filter(pk=encircled.pk).exists() is not failed
    _done(pages, "3.604")
    _done(pages, "3.605")

    # 3.606: one Escape DR for the leader and the squad stacked with him, its
    # HS-equivalents DRM computed from the squad named with him.
    box = axis.locator("#table-escape")
    box.locator("#unit-escape").select_option(leader.ref)
    box.locator("#stack-escape").select_option([squad.ref])
    box.get_by_role("button", name="Roll DR").click()
    line = axis.locator(".roll", has_text="with 4-6-8").first
    line.wait_for()
    r = Roll.objects.get(campaign_id=cid, table_id="escape")
    assert r.stack.split() == [squad.ref]
    assert {d["label"][:14]: d["value"] for d in r.drms}["+1 per HS-equi"] == 1
    # 3.612 New CG Date and 3.6122 (no SAN >= 4: no roll) pass by themselves.
    for step in ("3.606", "3.607", "3.608", "3.609"):
        _done(pages, step)
    # 3.610: an Escape DR of 10 or 11 (real dice; footnote 3's Random Selection) may
    # have wounded the leader (11: Replaced by an 8-0 first); his Wounded Leaders dr is
    # then owed before Done, and the Axis rolls it by the form.
    axis.locator("#step-title", has_text="3.610").wait_for()
    if axis.locator("#finish-lacking").count():
        said = axis.locator("#finish-lacking").inner_text()
        assert "Wounded Leaders" in said and "compulsory" in said, said
        axis.locator("#table-wounded_leaders").get_by_role("button", name="Roll dr").click()
        axis.locator("ul.rolls li.roll", has_text="Wounded Leaders").wait_for()
    for step in ("3.610", "3.611"):
        _done(pages, step)

    # 3.613: a stack's Shift DR of 11 (made here with set dice), then the subsequent
    # dr for each of its units by the form; the British, who shifted nobody, get none.
    axis.locator("#step-title", has_text="3.613").wait_for()
    british.locator("#step-title", has_text="3.613").wait_for()
    first = add(players, "axis", "2-4-7", "half_squad")
    second = add(players, "axis", "9-1 leader", "leader")
    real = rules.dice.faces
    eleven = [[5, 6]]
    monkeypatch.setattr(
        rules.dice, "faces", lambda *a, **k: list(eleven.pop()) if eleven else real(*a, **k)
    )
    assert roll(players, "axis", "shift", first, stack=[second.ref]).final == 11
    axis.reload()  # rolled by the service here, not in this browser
    axis.locator("body[data-live]").wait_for(state="attached")
    said = axis.locator("#finish-lacking", has_text="Roll first").inner_text()
    assert "Shifted with Casualties" in said, said
    casualties = axis.locator("#table-shift_casualties")
    offered = casualties.locator("#unit-shift_casualties option").all_inner_texts()
    assert len(offered) == 2 and any("9-1" in o for o in offered), offered
    assert british.locator("#table-shift_casualties select[name=unit]").count() == 0
    for n in range(2):
        casualties.get_by_role("button", name="Roll dr").click()
        axis.locator(".roll", has_text="Shifted with Casualties (subsequent dr)").nth(n).wait_for()
    _done(pages, "3.613")
    _done(pages, "3.614")
    for page in pages.values():
        page.locator("#step-title", has_text="3.615").wait_for()
    assert Roll.objects.filter(campaign_id=cid, table_id="shift_casualties").count() == 2
