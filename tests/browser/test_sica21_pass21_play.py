"""Issue 44, pass 21, Sicily in two browsers: 3.6111 "All Retained same-class HS with the
same strength factors within the same Setup/" once each unit's Setup Area is on its line
(3.605 MARKING THE MAP: an ID for each).  The Axis holds two 2-4-7 HS entered in Setup
Areas A and B: Recombine, pressed, lands a refusal citing 3.6111 and naming both Setup
Areas where he clicked, nothing changed; he corrects the second's Setup Area on his
retained forces, and the two become one 4-4-7 in Setup Area A.  The British pages
offer no Recombine and show the 4-4-7 in Setup Area A."""

from __future__ import annotations

import pytest

from campaign.models import Unit
from tests.browser.helpers import live_page
from tests.purchase_helpers import campaign_at
from tests.test_rule_mechanisms import add

pytestmark = [pytest.mark.browser, pytest.mark.rules, pytest.mark.django_db(transaction=True)]

WORDS = "Recombine the two HS"


def test_3_6111_hs_in_different_setup_areas_are_refused_then_recombined(
    asgi_server, new_context, browser_login, modules, make_user
):
    """3.6111 within the same Setup Area, in the Axis's browser; the British page offers
    no Recombine."""
    players, _ = campaign_at(
        "sicily", "iii", "jul14pm", (make_user("ax_s"), make_user("br_s")), step="3.611"
    )
    a = add(players, "axis", "2-4-7", "half_squad", location="A")
    b = add(players, "axis", "2-4-7", "half_squad", location="B")
    axis = live_page(asgi_server, new_context, browser_login, players, "axis")
    british = live_page(asgi_server, new_context, browser_login, players, "british")
    assert british.get_by_role("button", name=WORDS).count() == 0

    def recombine() -> None:
        button = axis.get_by_role("button", name=WORDS)
        form = axis.locator("form", has=button)
        form.locator("select[name=give]").select_option(a.ref)
        form.locator("select[name=mark]").select_option(b.ref)
        form.locator("input[name=forms]").fill("4-4-7")
        with axis.expect_response(lambda r: "/act/exchange/" in r.url):
            button.click()

    recombine()
    refusal = axis.locator(".refusal, .error, [role=alert]", has_text="3.6111").first
    refusal.wait_for()
    said = refusal.inner_text()
    assert "Setup Area A" in said and "Setup Area B" in said, said
    assert said.count("Nothing was changed") == 1, said
    assert Unit.objects.filter(pk__in=[a.pk, b.pk]).count() == 2

    roster = live_page(asgi_server, new_context, browser_login, players, "axis", "roster/")
    roster.locator(f"#unit-edit-{b.ref} summary").click()
    roster.locator(f"#unit-location-{b.ref}").fill("A")
    with roster.expect_response(lambda r: "/units/" in r.url):
        roster.locator(f"#unit-edit-{b.ref}").get_by_role("button", name="Save").click()
    roster.locator(f"#unit-{b.ref}", has_text="(A)").wait_for()

    axis.reload()
    axis.locator("body[data-live]").wait_for(state="attached")
    recombine()
    squad = Unit.objects.get(campaign_id=players.campaign_id, side="axis", name="4-4-7")
    assert squad.location == "A"
    assert not Unit.objects.filter(campaign_id=players.campaign_id, name="2-4-7").exists()
    theirs = live_page(asgi_server, new_context, browser_login, players, "british", "roster/")
    theirs.locator(".unit", has_text="4-4-7 — in good order (A)").wait_for()
    british.reload()
    british.locator("body[data-live]").wait_for(state="attached")
    assert british.get_by_role("button", name=WORDS).count() == 0
