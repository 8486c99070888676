"""Issue 44, seventh PHD pass (part B), in real Chromium: class 2, an option only a
footnote offers (RG footnote p's second sentence: a further Pre-Registered hex for an
OBA module bought earlier), offered on the RG's line where the player acts, with what
he must affirm; and its refusal when he does not."""

import pytest

from campaign.models import AddedLater, Seat
from tests.test_phd_pass7b import oba_bought_at_the_start

# The rules on screen: run once, on PostgreSQL + Redis (the embedded run leaves them out).
pytestmark = [pytest.mark.browser, pytest.mark.rules, pytest.mark.django_db(transaction=True)]


def test_class_2_rg_footnote_p_a_further_pre_registered_hex_bought_on_the_rg_line(
    asgi_server, new_context, browser_login, modules, make_user
):
    """C5.31 RG footnote p: "If the OBA module is unused during current TM Scenario, an
    additional two TP expenditure may be made to requisition each additional
    Pre-Registered hex": at the 0930 purchase step the German's O1 (bought at the start
    with one hex) offers a further hex on its line; bought without ticking that the
    module was unused, it is refused in words with the rule and nothing is spent;
    ticked, 2 TP are spent and the line says so; no third is offered."""
    users = (make_user("german_p7"), make_user("us_p7"))
    players, o1, _ = oba_bought_at_the_start(users)
    c = players.campaign
    before = Seat.objects.get(campaign=c, side="german").points
    german = browser_login(new_context(), users[0]).new_page()
    german.goto(f"{asgi_server.url}/campaigns/{c.pk}/")
    german.locator("body[data-live]").wait_for()
    german.locator("#step-title", has_text="C5.31").wait_for()
    line = german.locator(f"#purchase-{o1.ref}")
    buy = line.get_by_role("button", name="Buy: A further Pre-Registered hex (2 TP)")
    buy.click()
    german.get_by_text("Only if: The OBA module was unused").wait_for()
    assert "C5.31 RG footnote p" in german.locator("[role=alert]").first.inner_text()
    assert not AddedLater.objects.filter(campaign=c).exists()
    line.get_by_label("The OBA module was unused during the current TM Scenario").check()
    buy.click()
    german.locator(f"#purchase-{o1.ref} .added-later").wait_for()
    assert "bought on 0930 hrs" in line.locator(".added-later").inner_text()
    assert Seat.objects.get(campaign=c, side="german").points == before - 2
    assert line.get_by_role("button", name="Buy: A further Pre-Registered hex (2 TP)").count() == 0
