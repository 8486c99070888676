"""Issue 9 in real Chromium: one player changes a unit's markers and buys an RG; the
other's open roster shows the change and, after the reveal, the RG, without reload.
The print stylesheet is rendered to a screenshot."""

import pytest

from campaign.services import units
from tests.conftest import ARTIFACTS
from tests.purchase_helpers import campaign_at

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_roster_updates_live_and_prints(
    asgi_server, new_context, browser_login, modules, make_user
):
    players, _ = campaign_at(
        "sicily", "i", "jul14n", (make_user("axis_p"), make_user("brit_p")), policy="owner"
    )
    leader = units.add_unit(
        campaign_id=players.campaign_id,
        user=players.users["british"],
        name="9-1 leader",
        kind="leader",
        markers=["wounded"],
    )
    base = f"{asgi_server.url}/campaigns/{players.campaign_id}/"
    brit = browser_login(new_context(), players.users["british"]).new_page()
    axis = browser_login(new_context(), players.users["axis"]).new_page()
    axis.goto(base + "roster/")
    axis.locator("#retained-forces", has_text="9-1 leader — wounded").wait_for()

    # The British player marks the leader recovered on the roster page.
    brit.goto(base + "roster/")
    row = brit.locator(f"#unit-{leader.ref}")
    # The roster reads first: a unit is a line of text, its form behind Edit.
    assert not row.locator("input[name=markers]").first.is_visible()
    assert "9-1 leader — wounded" in row.inner_text()
    row.locator("summary", has_text="Edit").click()
    # Its state is its set of markers (issue 45): wounded and isolated at once ...
    row.get_by_label("isolated").check()
    row.get_by_role("button", name="Save").click()
    axis.locator("#retained-forces", has_text="9-1 leader — wounded, isolated").wait_for()
    # ... then recovered: the wounded marker off, the other stays.
    row.get_by_label("wounded (leader)").uncheck()
    row.get_by_role("button", name="Save").click()
    axis.locator("#retained-forces", has_text="9-1 leader — isolated").wait_for()

    # ... buys an RG on the campaign page: nothing shows on the Axis roster ...
    brit.goto(base)
    brit.get_by_role("button", name="Buy V6 AC Pltn II for 5 CPP", exact=True).click()
    brit.locator(".purchases li", has_text="AC Pltn II").wait_for()
    axis.wait_for_timeout(500)
    assert "AC Pltn II" not in axis.content()
    # ... and reveals it: the Axis roster shows it live.
    brit.once("dialog", lambda d: d.accept())
    brit.locator("#campaign-record tr", has_text="AC Pltn II").get_by_role(
        "button", name="Reveal"
    ).click()
    axis.locator("#roster-record", has_text="AC Pltn II").wait_for()
    axis.locator("#cg-roster", has_text="V6").wait_for()

    axis.emulate_media(media="print")
    ARTIFACTS.mkdir(exist_ok=True)
    axis.screenshot(path=str(ARTIFACTS / "roster-print.png"), full_page=True)
    assert axis.locator(".unit-add").count() == 0 or not axis.locator(".unit-add").is_visible()
