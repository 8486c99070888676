"""Issue 8 in real Chromium: a side buys two RGs, sees their secret strength and leader
rolls, reveals one; the opponent's open page shows that one live and nothing of the other."""

import pytest

from campaign.models import Purchase, Seat
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
    brit.locator("#campaign-record tr", has_text="AC Pltn II").wait_for()  # its own part
    assert "CPP: 177" in brit.locator("#campaign-sides").inner_text()
    # Each purchase's push re-drew only the chart rows and record lines it changed; the
    # page kept its own for the rest (hx-preserve): it reads as a fresh page does.
    assert brit.locator("tr[hx-preserve]").count() == 0
    drawn = [brit.locator(t).inner_text() for t in ("table.chart", "#campaign-record")]
    brit.reload()
    brit.wait_for_function("document.body.dataset.live === '1'")
    assert [brit.locator(t).inner_text() for t in ("table.chart", "#campaign-record")] == drawn
    # The secret rolls come once every RG is selected (3.6181): both finish 3.617.
    assert brit.get_by_role("button", name="Make its secret rolls").count() == 0
    for page in (brit, axis):
        page.once("dialog", lambda d: d.accept())
        page.get_by_role("button", name="Done with 3.617", exact=True).click()
    brit.locator("#step-title", has_text="3.618").wait_for()
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
    assert "British reveals V6 AC Pltn II" in (axis.locator("#campaign-log").text_content() or "")


def test_a_price_buys_its_variant_and_a_line_is_revealed_without_javascript(
    asgi_server, new_context, browser_login, modules, make_user
):
    """The RG chart's prices are buttons of their column's form, and the RG Purchase
    Records' Reveal buttons of the table's one reveal form (HTML ``form`` attribute):
    with JavaScript off, Chromium itself posts the form's token, stamp and cost variant
    with the RG, then the reveal with its purchase, and each page that follows shows
    it; a refused price answers with its sentence."""
    players, _ = campaign_at("sicily", "i", "jul14pm", (make_user("axis_p"), make_user("b_p")))
    axis = browser_login(new_context(java_script_enabled=False), players.users["axis"]).new_page()
    axis.goto(f"{asgi_server.url}/campaigns/{players.campaign_id}/")
    reserve = axis.locator("#rg-I4").get_by_role("button", name="Axis I/G RG in Reserve")
    cost = int(reserve.inner_text())
    reserve.click()
    axis.locator(".purchases li", has_text="Fallschirmjäger Signal Coy").wait_for()
    bought = Purchase.objects.get(campaign_id=players.campaign_id, side="axis", group_id="I4")
    assert (bought.cost_variant, bought.cost) == ("reserve", cost)
    axis.locator("#campaign-record tr", has_text="I4").get_by_role("button", name="Reveal").click()
    axis.locator("#campaign-record tr", has_text="I4").get_by_text("revealed").wait_for()
    bought.refresh_from_db()
    assert bought.revealed_at is not None
    Seat.objects.filter(campaign_id=players.campaign_id, side="axis").update(points=0)
    axis.get_by_role("button", name="Buy M1 Sniper for 2 CPP", exact=True).click()
    assert "not enough CPP" in axis.locator("main").inner_text()
    assert Purchase.objects.filter(campaign_id=players.campaign_id, group_id="M1").count() == 0
