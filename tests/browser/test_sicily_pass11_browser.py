"""Sicily (seed 001), pass 11 of issue 44 in real Chromium: a typed DRM outside what
it can be is refused on screen, with the rule (docs/rules-audit/pass-11-sicily11.md)."""

import pytest

from tests.browser.test_rules_classes_sicily import _open, _refusal
from tests.purchase_helpers import add_unit, campaign_at

pytestmark = [pytest.mark.browser, pytest.mark.rules, pytest.mark.django_db(transaction=True)]


def test_3_606_a_leader_drm_no_leader_gives_is_refused_on_screen(
    asgi_server, new_context, browser_login, modules, make_user
):
    """3.606 "+x (Armor-)Leader/": a leader gives -3 (10-3) to +1 (6+1) (A10.7).  The
    Axis types -9 on the Escape form of an Isolated squad and clicks Roll DR: the
    refusal sentence, with its bounds and 3.606, is shown beside the form, and no DR
    is made."""
    players, _ = campaign_at(
        "sicily", "i", "jul14n", (make_user("ax"), make_user("br")), step="3.606"
    )
    add_unit(players, "axis", "4-6-7", "squad", "isolated")
    axis = _open(asgi_server, new_context, browser_login, players, "axis")
    escape = axis.locator("#table-escape")
    escape.locator("input[name='typed.leader']").fill("-9")
    escape.get_by_role("button", name="Roll DR").click()
    said = _refusal(axis, "#table-escape")
    assert "must be between -3 and 1 (3.606)" in said, said
    assert not players.campaign.rolls.filter(table_id="escape").exists()
