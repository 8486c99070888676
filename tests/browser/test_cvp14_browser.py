"""Issue 44, class 8 (losses where they happen) in real Chromium: at PHD C5.8 the US
removes a squad that failed its Encircled 1TC, saying it was eliminated: its CVP join
the US's CVP lost in the scenario just played (C5.1), on the log both players read;
then removes another by mistake (the default: a correction), which counts nothing,
and puts it back."""

import pytest

from campaign.models import ScenarioResult
from tests.test_cvp14 import supply_value
from tests.test_phd_conph import phd_after
from tests.test_rule_mechanisms import add

pytestmark = [pytest.mark.browser, pytest.mark.rules, pytest.mark.django_db(transaction=True)]


def test_c5_1_a_squad_removed_as_eliminated_counts_a_slip_is_put_back(
    asgi_server, new_context, browser_login, modules, make_user
):
    players, _ = phd_after(
        (make_user("us_p"), make_user("de_p")), "C5.8", cvp_lost_us=5, cvp_lost_german=3
    )
    supply_value(players, "cvp_per_kind.squad", "2", by="us")
    failed = add(players, "us", "6-6-7 A", "squad")  # its 1TC owed since pass 20 if Encircled
    slip = add(players, "us", "6-6-7 B", "squad")
    base = f"{asgi_server.url}/campaigns/{players.campaign_id}/"
    us = browser_login(new_context(), players.users["us"]).new_page()
    us.on("dialog", lambda d: d.accept())
    us.goto(base + "roster/")
    us.locator("body[data-live]").wait_for(state="attached")

    row = us.locator(f"#unit-{failed.ref}")
    row.locator("summary", has_text="Edit").click()
    # The choice is in ASL words, the safe one (a correction) chosen by default.
    correction = row.get_by_label("Entered by mistake: a correction, nothing counts")
    assert correction.is_checked()
    row.get_by_label("Eliminated at C5.8 Encircled Units: its CVP count").check()
    row.get_by_role("button", name="Remove").click()
    us.locator(f"#unit-{failed.ref}").wait_for(state="detached")
    data = ScenarioResult.objects.get(campaign_id=players.campaign_id).data
    assert data["cvp_lost"] == {"us": 7, "german": 3}

    # The German reads the loss and its CVP on his log.
    german = browser_login(new_context(), players.users["german"]).new_page()
    german.goto(base)
    german.locator("#campaign-log", has_text="CVP lost 5 → 7 (C5.1)").wait_for()

    row = us.locator(f"#unit-{slip.ref}")
    row.locator("summary", has_text="Edit").click()
    row.get_by_role("button", name="Remove").click()
    back = us.get_by_role("button", name="Put 6-6-7 B back")
    back.wait_for()
    assert ScenarioResult.objects.get(campaign_id=players.campaign_id).data["cvp_lost"]["us"] == 7
    back.click()
    us.locator(f"#unit-{slip.ref}", has_text="6-6-7 B").wait_for()
    german.reload()
    german.locator("#campaign-log", has_text="puts back 6-6-7 B").wait_for()
