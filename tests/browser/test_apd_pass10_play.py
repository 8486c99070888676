"""Issue 44, pass 10, A Pleasant Diversion played in two browsers: the Morning's
Clean-Up (2.1-2.92) and Setup (3-4.0) clicked through by both players, one page per
side, from 2.1 to the Midday's result, reading each step's text, making the rolls by
the forms (real dice) and trying a refusal where the rules give one.  The prefix (SG1's
result, confirmed) and the units the steps read are walked through the services."""

from __future__ import annotations

import re

import pytest

from tests.browser.helpers import live_page
from tests.test_rule_mechanisms import _M4_ARMOR_TYPE, _armor_group, add, apd_at

pytestmark = [pytest.mark.browser, pytest.mark.rules, pytest.mark.django_db(transaction=True)]

# Words of the module's author that a player must never read on a step's panel.
_AUTHOR_WORDS = re.compile(r"\b(OCR|transcri\w*|schema|module datum|note:)", re.IGNORECASE)


_open = live_page


def _at(page) -> str:
    return (page.locator("#step-title").text_content() or "").strip()


def _done(page, step_id: str) -> bool:
    button = page.get_by_role("button", name=f"Done with {step_id}", exact=True)
    if not button.count():  # a table the rules text lacks, not supplied: go on without
        button = page.get_by_role("button", name="Go on without it", exact=True)
    if not button.count():
        return False
    button.click()
    page.wait_for_function(
        "(id) => !document.querySelector('#step-title')?.textContent.includes(id) || "
        "document.querySelector('#campaign-step')?.textContent.includes('Waiting for your "
        "opponent')",
        arg=step_id,
    )
    return True


def test_apd_clean_up_and_setup_played_in_two_browsers_2_1_to_4_0(
    asgi_server, new_context, browser_login, modules, make_user
):
    """1.2: "the entire sequence below is followed at the end of each CG scenario ...
    Both players (if applicable), American first, complete each step before moving on
    to the next step."  Each step's panel names its rule and title, in the rules'
    order, with no author's words; the German's page offers no Done before the
    American's at a step both do (1.2); at 2.5 Done waits for the Encircled squad's
    1TC (made by the form, its Morale from the counter); 3.1's compulsory Recovery dr
    and 3.3's Repair dr are made by the forms; the amendment of the result says 3
    Note's "CVP are NA" in the Setup Phase; 4.0 puts the Midday in play."""
    players, module = apd_at((make_user("us_p"), make_user("de_p")), "2.1")
    add(players, "american", "6-6-6", "squad", "encircled")
    add(players, "american", "8-1 leader", "leader", "wounded")
    add(players, "american", "BAZ 44", "sw", "malfunctioned")
    add(players, "german", "4-6-7", "squad")
    # The American chart and armor-type rows the seed lacks, supplied and accepted.
    _armor_group(players, [{"range": "1-6", "result": "M4", "effect": _M4_ARMOR_TYPE}], full=3)
    us = _open(asgi_server, new_context, browser_login, players, "american")
    de = _open(asgi_server, new_context, browser_login, players, "german")
    order = [s.id for s in module.steps]
    seen: list[str] = []
    for _ in range(60):
        us.locator("#step-title").wait_for()
        title = _at(us)
        if "1.2" in title and seen:
            break
        sid = title.split()[0]
        if sid not in seen:
            seen.append(sid)
            panel = us.locator("#campaign-step").inner_text()
            step = module.steps[order.index(sid)]
            assert step.title.split("/")[0] in panel, (sid, panel)
            assert not _AUTHOR_WORDS.search(panel), (sid, panel)
            if sid == "2.5":
                lacking = us.locator("#finish-lacking").inner_text()
                assert "Roll first: the Encirclement 1TC for 6-6-6 (2.5)" in lacking, lacking
                form = us.locator("#table-encirclement_1tc")
                form.locator("input[name='typed.leadership']").fill("-1")
                form.get_by_role("button", name="Roll DR").click()
                us.locator("#campaign-log", has_text="Encirclement 1TC for 6-6-6").wait_for()
            if sid == "3.1":
                us.locator("#amend summary").click()  # the player opens the amendment
                assert "CVP are NA for units/weapons eliminated in this phase (3 Note)" in (
                    us.locator("#amend").inner_text()
                )
                us.locator("#table-recovery").get_by_role("button", name="Roll dr").click()
                us.locator("#campaign-log", has_text="Recovery Table for 8-1 leader").wait_for()
            if sid == "3.4":
                us.locator("#rg-A1").get_by_role("button", name=re.compile(r"^Buy ")).first.click()
                us.locator(".purchases li", has_text="A1").wait_for()
            if sid == "3.3":
                form = us.locator("#table-repair_sw")
                form.get_by_role("button", name="Roll dr").click()
                us.locator("#campaign-log", has_text="Repair SW for BAZ 44").wait_for()
        if sid in ("2.5", "3.8") and _at(de).split()[0] == sid:
            # 1.2 "American first": the German is offered no Done before the American's.
            assert not de.get_by_role("button", name=f"Done with {sid}", exact=True).count()
        moved = _done(us, sid)
        de.reload()
        de.locator("body[data-live]").wait_for(state="attached")
        if _at(de).split()[0] == sid:
            moved = _done(de, sid) or moved
        us.reload()
        us.locator("body[data-live]").wait_for(state="attached")
        stuck = us.locator("#campaign-step").inner_text()
        assert moved or _at(us).split()[0] != sid, f"stuck at {sid}: {stuck}"
    assert seen == [s for s in order if s in seen]  # the rules' order
    assert {"2.1", "2.5", "3.1", "3.3", "3.4", "3.5", "3.6", "3.7", "3.8", "3.9"} <= set(seen)
    log = us.locator("#campaign-log").text_content() or ""
    assert "December 6 Midday scenario is in play" in log
    for roll in ("American Reinforcement Table", "Leader Table", "M4 Model Table"):
        assert roll in log, (roll, seen)  # A1's rolls, each at its step
