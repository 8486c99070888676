"""Issue 44, fifth PHD pass, in real Chromium: a roll discipline the rules state only
in a sentence's opening words (class 5: C5.14 "In turn, Attacker first"), its refusal
on the Defender's screen until the Attacker is done in his own browser."""

import pytest

from campaign.models import Roll
from tests.browser.test_rules_classes_phd_a import _pages
from tests.test_rule_mechanisms import add, result_values, start

# The rules on screen: run once, on PostgreSQL + Redis (the embedded run leaves them out).
pytestmark = [pytest.mark.browser, pytest.mark.rules, pytest.mark.django_db(transaction=True)]


def test_c5_14_class_5_the_defender_rolls_once_the_attacker_is_done(
    asgi_server, new_context, browser_login, modules, make_user
):
    """C5.14: "Redeployment of Isolated/Non-Isolated Units: In turn, Attacker first".
    After the Initial TM Scenario (US Attack, C4.2: the US moved first, so it is the
    Attacker, C5.3) the German's Redeployment Table says why he may not roll yet and
    offers no roll; the US rolls and presses Done in his browser, and the German's page
    (pushed) offers the roll, which he makes."""
    players, module = start("purple-heart-draw", "tm", (make_user("us_p"), make_user("ge_p")), "us")
    players.results(**result_values(module))
    players.until_step("C5.14")
    # One Redeployment DR per retained unit (C5.13), chosen from the side's own units.
    us_squad = add(players, "us", "6-6-7 of E Coy", "squad")
    ge_squad = add(players, "german", "4-6-8 of 5th Rgt", "squad")
    us, ge = _pages(asgi_server, new_context, browser_login, players)
    ge_table = ge.locator("#table-redeployment")
    ge_table.get_by_text(
        "You may not roll on it now: the Attacker (American, C5.3) goes first at C5.14: "
        "you roll once it is done."
    ).wait_for()
    assert not ge_table.get_by_role("button", name="Roll DR").count()
    us.locator("#unit-redeployment").select_option(us_squad.ref)
    us.locator("#table-redeployment").get_by_role("button", name="Roll DR").click()
    us.locator("#campaign-step .rolls li", has_text="6-6-7 of E Coy").wait_for()
    us.get_by_role("button", name="Done").first.click()
    ge_table.get_by_role("button", name="Roll DR").wait_for()
    ge.locator("#unit-redeployment").select_option(ge_squad.ref)
    ge_table.get_by_role("button", name="Roll DR").click()
    ge.locator("#campaign-step .rolls li", has_text="4-6-8 of 5th Rgt").wait_for()
    assert Roll.objects.filter(
        campaign_id=players.campaign_id, side="german", table_id="redeployment"
    ).exists()
