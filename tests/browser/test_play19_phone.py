"""Pages that read on a phone, at every step with a form: a campaign of each system
walked through its between-scenario sequence, each side's page opened at 390 px at
each step that is not a plain checklist (tables, exchanges, purchases, strength,
fortifications, Recon, initiative, set-up), with units of every kind held so the
steps' forms are drawn.  Nothing on any of them scrolls sideways."""

from __future__ import annotations

import pytest

from tests.browser.helpers import PHONE, horizontal_overflow
from tests.test_rule_mechanisms import add

# How the pages fit a phone (presentation: the same HTML on both backends): once, on
# PostgreSQL + Redis.  The steps are finished below the browser (``players.finish``).
pytestmark = [
    pytest.mark.browser,
    pytest.mark.presentation,
    pytest.mark.django_db(transaction=True),
]

HOLDINGS = [
    ("8-1 leader", "leader", "wounded"),
    ("4-6-7", "squad", None),
    ("2-4-7", "half_squad", "reduced"),
    ("PzKpfw IVH", "vehicle", None),
    ("MMG", "sw", None),
    ("75L ATG", "gun", None),
]


def _walk_on_a_phone(players, pages, url, last: str, limit: int = 60) -> list[str]:
    """Each step up to ``last`` (its id, or the next scenario's result) finished in
    turn; the pages of the steps with a form read at 390 px; what scrolls sideways, by
    step and side."""
    wide: list[str] = []
    for _ in range(limit):
        cycle, index, ended, module = players._where()
        step = module.steps[index]
        if step.kind != "checklist":
            for side, page in pages.items():
                page.goto(url)
                page.locator("#step-title").wait_for()
                over = horizontal_overflow(page)
                if over > 0:
                    wide.append(f"{step.id} ({side}): {over} px")
        if ended or step.id == last or step.kind == "results":
            return wide
        players.finish()
    raise AssertionError(f"{last} not reached")


def _phones(asgi_server, new_context, browser_login, players):
    return {
        side: browser_login(new_context(viewport=PHONE), user).new_page()
        for side, user in players.users.items()
    }


def _hold(players):
    for side in players.users:
        for name, kind, marker in HOLDINGS:
            add(players, side, name, kind, marker) if marker else add(players, side, name, kind)


def _sicily(users):
    from tests.purchase_helpers import campaign_at

    return campaign_at("sicily", "i", "jul15am", users, step="3.601")[0], "3.621"


def _purple_heart_draw(users):
    from tests.test_phd_conph import phd_after

    return phd_after(users, "C5.13")[0], "C5.37"


def _a_pleasant_diversion(users):
    from tests.test_apd17_pass17 import midday

    return midday(users, "2.1")[0], "3.7"


@pytest.mark.parametrize("reach", [_sicily, _purple_heart_draw, _a_pleasant_diversion])
def test_each_systems_steps_with_a_form_read_on_a_phone(
    reach, asgi_server, new_context, browser_login, modules, make_user
):
    players, last = reach((make_user("a"), make_user("b")))
    _hold(players)
    url = f"{asgi_server.url}/campaigns/{players.campaign_id}/"
    pages = _phones(asgi_server, new_context, browser_login, players)
    assert _walk_on_a_phone(players, pages, url, last) == []
