"""Issue 45 in real Chromium: a SW and who possesses it.  The owner names the squad
that possesses his BAR on the roster's Edit fold; the opponent's roster shows it live;
the BAR shows on the squad's line too (still a line of its own); "possessed" and
"not possessed" at once is refused in words where he clicked; the
squad taken off the retained forces leaves the BAR not possessed (Sicily 3.6041: "left
in the Location unpossessed"; APD 3.31: an unpossessed SW makes no Repair attempt)."""

from __future__ import annotations

import pytest

from campaign.models import Unit
from tests.purchase_helpers import add_unit
from tests.test_rule_mechanisms import apd_at

pytestmark = [pytest.mark.browser, pytest.mark.rules, pytest.mark.django_db(transaction=True)]


def test_3_31_a_sw_possessed_by_a_squad_is_named_on_the_roster_and_left_when_it_goes(
    asgi_server, new_context, browser_login, modules, make_user
):
    players, _ = apd_at((make_user("us_p"), make_user("german_p")), "3.3")
    squad = add_unit(players, "american", "7-4-7", "squad")
    bar = add_unit(players, "american", "BAR", "sw")
    base = f"{asgi_server.url}/campaigns/{players.campaign_id}/roster/"
    page = {
        side: browser_login(new_context(), user).new_page() for side, user in players.users.items()
    }
    german = page["german"]
    german.goto(base)
    german.wait_for_selector("body[data-live]")
    seen = german.locator(f"#unit-{bar.ref}")
    seen.get_by_text("BAR — in good order").wait_for()

    us = page["american"]
    us.goto(base)
    us.wait_for_selector("body[data-live]")
    line = us.locator(f"#unit-{bar.ref}")
    line.locator("summary", has_text="Edit").click()
    line.get_by_label("Who possesses BAR").select_option(label="7-4-7")
    line.get_by_role("button", name="Save BAR", exact=True).click()
    seen.get_by_text("possessed by 7-4-7").wait_for()
    assert Unit.objects.get(pk=bar.pk).possessor_id == squad.pk
    # The BAR shows on the squad's line too, as a vehicle's weapons on its line, and
    # is still a line of its own.
    german.locator(f"#unit-{squad.ref}").get_by_role(
        "list", name="SW and Guns 7-4-7 possesses"
    ).get_by_text("BAR — in good order").wait_for()

    line.get_by_label("not possessed (SW/Gun)").check()
    line.get_by_role("button", name="Save BAR", exact=True).click()
    us.get_by_role("alert").filter(
        has_text="BAR cannot be possessed by 7-4-7 and not possessed at once"
    ).wait_for()
    assert Unit.objects.get(pk=bar.pk).possessor_id == squad.pk

    holder = us.locator(f"#unit-{squad.ref}")
    holder.locator("summary", has_text="Edit").click()
    us.once("dialog", lambda d: d.accept())
    holder.get_by_role("button", name="Remove").click()
    seen.get_by_text("BAR — not possessed").wait_for()
    assert "possessed by" not in seen.inner_text()
    assert Unit.objects.get(pk=bar.pk).markers == ["unpossessed"]
