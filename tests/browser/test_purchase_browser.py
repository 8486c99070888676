"""Issue 8 in real Chromium: a side buys two RGs, sees their secret strength and leader
rolls, reveals one; the opponent's open page shows that one live and nothing of the other."""

import pytest

from tests.purchase_helpers import campaign_at

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_buy_two_roll_reveal_one(asgi_server, new_context, browser_login, modules, make_user):
    players, _ = campaign_at(
        "sicily", "i", "jul14n", (make_user("axis_p"), make_user("brit_p")), policy="owner"
    )
    url = f"{asgi_server.url}/campaigns/{players.campaign_id}/"
    brit = browser_login(new_context(), players.users["british"]).new_page()
    axis = browser_login(new_context(), players.users["axis"]).new_page()
    axis_frames = []
    axis.on("websocket", lambda ws: ws.on("framereceived", lambda f: axis_frames.append(str(f))))
    for page in (brit, axis):
        page.goto(url)
        page.locator("#step-title", has_text="3.617").wait_for()

    brit.get_by_role("button", name="Buy I1 Lgt Inf Rifle Coy for 18 CPP", exact=True).click()
    brit.locator(".purchases li", has_text="Lgt Inf Rifle Coy").wait_for()
    brit.get_by_role("button", name="Buy V6 AC Pltn II for 5 CPP", exact=True).click()
    brit.locator(".purchases li", has_text="AC Pltn II").wait_for()
    assert "CPP: 177" in brit.locator("#campaign-sides").inner_text()
    for rg in ("Lgt Inf Rifle Coy", "AC Pltn II"):
        brit.locator(".purchases li", has_text=rg).get_by_role(
            "button", name="Make its secret rolls"
        ).click()
        brit.locator(".purchases li", has_text=rg).locator(".roll-result").first.wait_for()
    rifle = brit.locator(".purchases li", has_text="Lgt Inf Rifle Coy").inner_text()
    assert "RG Strength:" in rifle and "Leader Allotment: Personnel Leader:" in rifle

    # Nothing of it has reached the Axis player.
    seen = axis.content() + "".join(axis_frames)
    assert "Lgt Inf Rifle Coy" not in seen and "AC Pltn II" not in seen

    # Reveal the armoured cars only.
    row = brit.locator("#campaign-record tr", has_text="AC Pltn II")
    brit.once("dialog", lambda d: d.accept())
    row.get_by_role("button", name="Reveal").click()
    axis.locator("#campaign-record tr", has_text="AC Pltn II").wait_for()
    seen = axis.content() + "".join(axis_frames)
    assert "Lgt Inf Rifle Coy" not in seen
    assert "British reveals V6 AC Pltn II" in axis.locator("#campaign-log").inner_text()
