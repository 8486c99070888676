"""Issue 44, Sicily pass 19 played in real Chromium by two players (one browser context
per side): CG I, July 16 Night, 3.617 to 3.618.  The British buy an O2 (an OBA module,
its radio with it, British chart footnote e) by its price button; both press Done at
3.617; at 3.618 (3.6181: no DR for an RG whose ID is not I, V or G) the British read
"Record it and receive its units (no secret rolls)" with the units named beside it, and
once it is pressed their line reads "received: 80+mm OBA Module, radio"; the Axis page
offers no such button.  The prefix (the walk to July 16 Night) goes through the
services."""

import pytest

from campaign.models import Purchase
from tests.browser.play import act, press, title
from tests.purchase_helpers import campaign_at

pytestmark = [pytest.mark.browser, pytest.mark.rules, pytest.mark.django_db(transaction=True)]


def _open(page, url):
    page.goto(url)
    page.locator("body[data-live]").wait_for(state="attached")


def test_sicily_3_6181_recording_an_oba_module_says_what_it_receives(
    asgi_server, new_context, browser_login, modules, make_user
):
    players, _ = campaign_at("sicily", "i", "jul16n", (make_user("ax19"), make_user("br19")))
    cid = players.campaign_id
    url = f"{asgi_server.url}/campaigns/{cid}/"
    axis = browser_login(new_context(), players.users["axis"]).new_page()
    british = browser_login(new_context(), players.users["british"]).new_page()
    _open(axis, url)
    _open(british, url)
    assert title(axis).startswith("3.617") and title(british).startswith("3.617")

    british.get_by_role("button", name="Buy O2 Lgt Arty for 8 CPP", exact=True).click()
    british.locator("#campaign-record tr", has_text="O2").first.wait_for()
    assert Purchase.objects.filter(campaign_id=cid, side="british", group_id="O2").count() == 1

    def at_strength(page):
        return title(page).startswith("3.618")

    for _ in range(40):
        if at_strength(axis) and at_strength(british):
            break
        if not act(axis, until=at_strength) and not act(british, until=at_strength):
            axis.wait_for_timeout(100)
    assert at_strength(axis) and at_strength(british)

    record = british.get_by_role("button", name="Record it: RG 1 of the list, O2 Lgt Arty")
    assert record.inner_text() == "Record it and receive its units (no secret rolls)"
    assert "80+mm OBA Module, radio" in british.locator("#campaign-step").inner_text()
    assert axis.get_by_role("button", name="Record it").count() == 0
    press(british, record)
    british.locator("#campaign-step", has_text="received: 80+mm OBA Module, radio").wait_for()
