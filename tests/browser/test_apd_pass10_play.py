"""Issue 44, pass 10, A Pleasant Diversion's Morning Clean-Up (2.1-2.92) and Setup (3-4.0),
from 2.1 to the Midday's result: each step's panel read as each player's page shows it,
the rolls of the steps that ask for them made by the forms in the American's browser
(real dice), the German's browser at the steps both do (1.2 "American first"), and the
Midday in play at the end.  The prefix (SG1's result, confirmed), the units the steps
read and the Done of the steps the browsers do not read are walked through the services
(tests/browser/at_step.py); the whole sequence clicked through by both players is the
whole-campaign browser runs' (tests/browser/test_play15_campaign.py)."""

from __future__ import annotations

import re

import pytest

from tests.browser.at_step import back, blank, panel, park
from tests.test_rule_mechanisms import _M4_ARMOR_TYPE, _armor_group, add, apd_at

pytestmark = [pytest.mark.browser, pytest.mark.rules, pytest.mark.django_db(transaction=True)]

# Words of the module's author that a player must never read on a step's panel.
_AUTHOR_WORDS = re.compile(r"\b(OCR|transcri\w*|schema|module datum|note:)", re.IGNORECASE)


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


def _american_at(us, sid: str) -> None:
    """What the American does in his browser at ``sid``: the rolls made by the forms,
    the amendment read, the purchase made by the chart's button."""
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


# The steps read in the American's browser, and those where the German's browser is
# read before the American's Done (both do them: 1.2 "American first").
_AMERICAN_PAGE = ("2.5", "3.1", "3.3", "3.4")
_BOTH_DO = ("2.5", "3.8")


def test_apd_clean_up_and_setup_2_1_to_4_0_each_step_at_its_page(
    asgi_server, new_context, browser_login, modules, make_user
):
    """1.2: "the entire sequence below is followed at the end of each CG scenario ...
    Both players (if applicable), American first, complete each step before moving on
    to the next step."  Each step's panel, as the American's page has it, names its
    rule and title, in the rules' order, with no author's words; the German's page
    offers no Done before the American's at a step both do (1.2); at 2.5 Done waits
    for the Encircled squad's 1TC (made by the form, its Morale from the counter);
    3.1's compulsory Recovery dr and 3.3's Repair dr are made by the forms; the
    amendment of the result says 3 Note's "CVP are NA" in the Setup Phase; 3.4's A1 is
    bought by the chart's button; 4.0 puts the Midday in play, A1's rolls in the log."""
    players, module = apd_at((make_user("us_p"), make_user("de_p")), "2.1")
    add(players, "american", "6-6-6", "squad", "encircled")
    add(players, "american", "8-1 leader", "leader", "wounded")
    add(players, "american", "BAZ 44", "sw", "malfunctioned")
    add(players, "german", "4-6-7", "squad")
    # The American chart and armor-type rows the seed lacks, supplied and accepted.
    _armor_group(players, [{"range": "1-6", "result": "M4", "effect": _M4_ARMOR_TYPE}], full=3)
    cid = players.campaign_id
    url = f"{asgi_server.url}/campaigns/{cid}/"
    us, de = (blank(new_context, browser_login, players, side) for side in ("american", "german"))
    order = [s.id for s in module.steps]
    seen: list[str] = []
    for _ in range(60):
        sid = players.step.id
        if sid == "1.2" and seen:
            break
        if sid not in seen:
            seen.append(sid)
            text = " ".join(panel(players.users["american"], cid).split())
            step = module.steps[order.index(sid)]
            assert " ".join(step.title.split("/")[0].split()) in text, (sid, text)
            assert not _AUTHOR_WORDS.search(text), (sid, text)
        if sid in _BOTH_DO:
            back(de, url)
            if _at(de).split()[0] == sid:
                # 1.2 "American first": the German is offered no Done before the American's.
                assert not de.get_by_role("button", name=f"Done with {sid}", exact=True).count()
            park(de)
        if sid in _AMERICAN_PAGE:
            back(us, url)
            assert _at(us).split()[0] == sid, (sid, _at(us))
            _american_at(us, sid)
            _done(us, sid)
            park(us)
        if players.step.id == sid:
            players.finish()
        assert players.step.id != sid, f"stuck at {sid}"
    assert seen == [s for s in order if s in seen]  # the rules' order
    assert {"2.1", "2.5", "3.1", "3.3", "3.4", "3.5", "3.6", "3.7", "3.8", "3.9"} <= set(seen)
    back(us, url)
    log = us.locator("#campaign-log").text_content() or ""
    assert "December 6 Midday scenario is in play" in log
    for roll in ("American Reinforcement Table", "Leader Table", "M4 Model Table"):
        assert roll in log, (roll, seen)  # A1's rolls, each at its step
