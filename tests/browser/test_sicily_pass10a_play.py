"""Issue 44, pass 10 (Sicily, part A: 3.6-3.614), in two browsers: the Axis plays the steps
of 3.604 to 3.614 on one date that have forms (3.604, 3.606, 3.610, 3.613) by the forms,
one refusal met where a player would meet it (docs/rules-audit/pass-10-sicily-a.md); the
Done of the steps between them goes through the services (tests/browser/at_step.py),
both players clicking through every step being the whole-campaign browser runs'
(tests/browser/test_play15_campaign.py)."""

from __future__ import annotations

import pytest

from campaign.models import Roll, Unit
from tests.browser.at_step import back, blank, park
from tests.purchase_helpers import campaign_at
from tests.test_rule_mechanisms import add

SIDES = ("axis", "british")

pytestmark = [pytest.mark.browser, pytest.mark.rules, pytest.mark.django_db(transaction=True)]


def _done(pages, step: str) -> None:
    for page in pages:
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
    url = f"{asgi_server.url}/campaigns/{cid}/"
    axis, british = (blank(new_context, browser_login, players, side) for side in SIDES)
    back(axis, url)

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
    _done([axis], "3.604")
    park(axis)
    players.until_step("3.606")  # the British's Done at 3.604 and both at 3.605

    # 3.606: one Escape DR for the leader and the squad stacked with him, its
    # HS-equivalents DRM computed from the squad named with him.
    back(axis, url)
    box = axis.locator("#table-escape")
    box.locator("#unit-escape").select_option(leader.ref)
    box.locator("#stack-escape").select_option([squad.ref])
    box.get_by_role("button", name="Roll DR").click()
    line = axis.locator(".roll", has_text="with 4-6-8").first
    line.wait_for()
    r = Roll.objects.get(campaign_id=cid, table_id="escape")
    assert r.stack.split() == [squad.ref]
    assert {d["label"][:14]: d["value"] for d in r.drms}["+1 per HS-equi"] == 1
    park(axis)
    # 3.612 New CG Date and 3.6122 (no SAN >= 4: no roll) pass by themselves.
    players.until_step("3.610")  # 3.606 to 3.609, Done by both
    back(axis, url)
    # 3.610: an Escape DR of 10 or 11 (real dice; footnote 3's Random Selection) may
    # have wounded the leader (11: Replaced by an 8-0 first); his Wounded Leaders dr is
    # then owed before Done, and the Axis rolls it by the form.
    axis.locator("#step-title", has_text="3.610").wait_for()
    if axis.locator("#finish-lacking").count():
        said = axis.locator("#finish-lacking").inner_text()
        assert "Wounded Leaders" in said and "compulsory" in said, said
        axis.locator("#table-wounded_leaders").get_by_role("button", name="Roll dr").click()
        axis.locator("ul.rolls li.roll", has_text="Wounded Leaders").wait_for()
    _done([axis], "3.610")
    park(axis)
    players.until_step("3.613")  # the British's Done at 3.610, both at 3.611

    # 3.613: a stack's Shift DR of 11 (made here with set dice), then the subsequent
    # dr for each of its units by the form; the British, who shifted nobody, get none.
    back(axis, url)
    back(british, url)
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
    _done([axis, british], "3.613")
    players.until_step("3.615")  # 3.614, Done by both; the pages hear it pushed
    for page in (axis, british):
        page.locator("#step-title", has_text="3.615").wait_for()
    assert Roll.objects.filter(campaign_id=cid, table_id="shift_casualties").count() == 2
