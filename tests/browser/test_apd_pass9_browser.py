"""Issue 44, pass 9, A Pleasant Diversion in real Chromium.

- 4.0 NEXT CG SCENARIO passes by itself, so its panel is never shown: once both
  players are done with 3.9, the log line that puts the Midday in play says what 4.0
  asks of them (Concealment, then Snipers) and who moves first."""

from __future__ import annotations

import pytest

from tests.test_apd_pass5 import done
from tests.test_rule_mechanisms import apd_at

pytestmark = [pytest.mark.browser, pytest.mark.rules, pytest.mark.django_db(transaction=True)]


def test_4_0_what_the_next_cg_scenario_asks_is_on_the_page_when_it_is_in_play(
    asgi_server, new_context, browser_login, modules, make_user
):
    """4.0: "Players now begin the next CG scenario by first determining Concealment for
    onboard units and then placing Snipers.  Play then commences with the RPh of the
    player who won the previous scenario."  The American presses Done at 3.9, the German
    after him; the page's log then says it, in that order, and that the American (who
    won the Morning) moves first."""
    players, _ = apd_at((make_user("us_c"), make_user("de_c")), "3.9")
    url = f"{asgi_server.url}/campaigns/{players.campaign_id}/"
    us = browser_login(new_context(), players.users["american"]).new_page()
    us.goto(url)
    us.locator("body[data-live]").wait_for()
    us.get_by_role("button", name="Done with 3.9", exact=True).click()
    us.locator("#campaign-step", has_text="Waiting for your opponent").wait_for()
    done(players, "german")
    us.reload()  # a service call pushes nothing on the embedded backend
    us.locator("body[data-live]").wait_for()
    us.locator("#step-title", has_text="1.2").wait_for()
    log = us.locator("#campaign-log").text_content() or ""
    line = next(x for x in log.splitlines() if "Midday scenario is in play" in x).strip()
    assert "4.0 Next CG Scenario:" in line, line
    assert line.index("Determine Concealment for onboard units") < line.index("place Snipers")
    assert "American moves first (2.9; 4.0)." in line, line
