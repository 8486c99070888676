"""A half-typed form survives a reload (playtest 16, item 9): the Initial Scenario's
result half entered and a message half typed are there again after the player reloads
the page; once sent (and taken by the server) they are gone, and a refused one stays."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import live_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_half_typed_result_and_message_come_back_after_a_reload(
    asgi_server, new_context, browser_login, modules, make_user
):
    from tests.walk import host_game, players_of

    axis_user, british_user = make_user("ax"), make_user("br")
    campaign = host_game("sicily", "i", british_user, axis_user, side="british")
    players = players_of(campaign, british_user, axis_user)
    page = live_page(asgi_server, new_context, browser_login, players, "british")
    page.locator("[name='cvp_lost.axis']").fill("5")
    page.locator("[name='cvp_lost.british']").fill("12")
    page.get_by_label("Message to your opponent").fill("Sunday at 8?")
    page.reload()
    page.locator("body[data-live]").wait_for(state="attached")
    expect(page.locator("[name='cvp_lost.axis']")).to_have_value("5")
    expect(page.locator("[name='cvp_lost.british']")).to_have_value("12")
    expect(page.get_by_label("Message to your opponent")).to_have_value("Sunday at 8?")
    # A refused result (SAN missing) keeps its draft; the message sent loses it.
    page.get_by_role("button", name="Enter the result").click()
    page.get_by_role("button", name="Send").click()
    page.locator("#campaign-messages .mine", has_text="Sunday at 8?").wait_for()
    expect(page.get_by_label("Message to your opponent")).to_have_value("")
    page.reload()
    page.locator("body[data-live]").wait_for(state="attached")
    expect(page.get_by_label("Message to your opponent")).to_have_value("")
    expect(page.locator("[name='cvp_lost.axis']")).to_have_value("5")
