"""Issue 44, pass 12, A Pleasant Diversion in two browsers: at 2.5 the American's
Encircled squad takes its 1TC by the form and the Encircled DRM of A7.7 is applied by
itself; at 3.5, the step the German acts at alone, the American's page says the Rows
are the German's roll (no roll form for him) while the German rolls Row A by the form.
The prefix (SG1's result, the German's supplied Rows) is walked through the services."""

from __future__ import annotations

import pytest

from tests.browser.helpers import live_page
from tests.test_rule_mechanisms import add, apd_at, supply_german

pytestmark = [pytest.mark.browser, pytest.mark.rules, pytest.mark.django_db(transaction=True)]


_open = live_page


def test_2_5_a7_7_and_3_5_the_german_alone_rolls_in_two_browsers(
    asgi_server, new_context, browser_login, modules, make_user
):
    """2.5 / A7.7: the Encircled 6-6-6's 1TC, rolled by the American's form, lists
    "Encircled: Morale one lower (A7.7)" among its DRMs in the log.  3.5: "The German
    player now secretly makes three Reinforcement drs": the American's page reads "The
    German's roll, one in this pass: nothing for you to roll here." and has no Roll
    button; the German's page has one and his Row A dr is made by it."""
    players, _ = apd_at((make_user("us_p"), make_user("de_p")), "2.5")
    add(players, "american", "6-6-6", "squad", "encircled")
    us = _open(asgi_server, new_context, browser_login, players, "american")
    form = us.locator("#table-encirclement_1tc")
    form.get_by_role("button", name="Roll DR").click()
    entry = us.locator("#campaign-log", has_text="Encirclement 1TC for 6-6-6")
    entry.wait_for()
    assert "Encircled: Morale one lower (A7.7)" in (entry.text_content() or "")
    players.finish()
    supply_german(players)
    players.until_step("3.5")
    us.reload()
    us.locator("body[data-live]").wait_for(state="attached")
    de = _open(asgi_server, new_context, browser_login, players, "german")
    row_a = us.locator("#table-german_reinforcement_row_a")
    assert "The German's roll, one in this pass: nothing for you to roll here." in (
        row_a.inner_text()
    )
    assert not row_a.get_by_role("button", name="Roll dr").count()
    mine = de.locator("#table-german_reinforcement_row_a")
    assert "One roll for your side in this pass." in mine.inner_text()
    mine.get_by_role("button", name="Roll dr").click()
    de.locator("#campaign-log", has_text="German Reinforcement Table, Row A").wait_for()
