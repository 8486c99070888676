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
