"""The page player (tests/page_play.py) drives a step as a browser does: a price button
posts its column's form, a forged value is refused with a sentence on the answer, and the
purchase's Cancel button is on the page after."""

import pytest

from campaign.models import Purchase
from tests.page_play import Seat
from tests.purchase_helpers import campaign_at

pytestmark = pytest.mark.django_db


def test_a_player_buys_cancels_and_is_refused_through_the_pages_own_buttons(modules, make_user):
    players, _ = campaign_at("sicily", "i", "jul14pm", (make_user("pa"), make_user("pb")))
    axis = Seat(players.users["axis"], players.campaign_id)
    axis.open()
    bought = axis.press("Buy I7 Italian Infantry Coy for 12 CPP")
    assert bought.status == 200, bought.text[:300]
    assert Purchase.objects.filter(campaign_id=players.campaign_id, group_id="I7").exists()
    forged = axis.press("Buy I4 Fallschirmjäger Signal Coy for 15 CPP", group="XX")
    assert forged.refused and forged.text
    assert Purchase.objects.filter(campaign_id=players.campaign_id).count() == 1
    cancelled = axis.press("Cancel RG 1 of the list: I7 Italian Infantry Coy")
    assert cancelled.status == 200, cancelled.text[:300]
    assert Purchase.objects.get(campaign_id=players.campaign_id).status == "cancelled"
    assert "Buy I7 Italian Infantry Coy for 12 CPP" in axis.buttons()


def test_an_rg_with_no_secret_rolls_is_recorded_by_a_button_that_says_so(modules, make_user):
    """Sicily 3.6181 rolls the strength of I, V and G RGs only (PHD C5.33 the Leader Table
    of I/A RGs with footnote l): an O, M or B RG has no secret roll, and its button read
    "Make its secret rolls" though pressing it rolled nothing.  Its button now says it
    records the RG; an I RG's still makes its rolls."""
    players, _ = campaign_at("sicily", "i", "jul14pm", (make_user("pa"), make_user("pb")))
    axis = Seat(players.users["axis"], players.campaign_id)
    axis.open()
    assert axis.press("Buy O3 Med Arty 1 for 8 CPP").status == 200
    assert axis.press("Buy I7 Italian Infantry Coy for 12 CPP").status == 200
    players.finish()  # to 3.618, where the RGs' rolls are made
    axis.open()
    assert any(b.startswith("Make its secret rolls: RG ") and "I7" in b for b in axis.buttons())
    (record,) = [b for b in axis.buttons() if b.startswith("Record it: ")]
    assert "O3" in record and "(no secret rolls)" in record
    assert axis.press(record).status == 200
    o3 = Purchase.objects.get(campaign_id=players.campaign_id, group_id="O3")
    assert o3.rolled_at is not None and not o3.details.get("rolls")
    assert not any(b.startswith("Record it: ") for b in axis.buttons())
