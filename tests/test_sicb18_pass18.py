"""Sicily (seed 001), the eighteenth pass of the sentence audit (issue 44): 3.615 to the
end played through the page's own buttons (tests/page_play.py), each side's page read
beside the seed's sentences of the step, on paths the earlier tests use little (CG II
and III, late and night dates, a Dual Attack at night, the British holding only
off-map RGs, points at zero) (docs/rules-audit/pass-18-sicb18.md)."""

from __future__ import annotations

import pytest

from campaign.models import InitiativeChit
from tests import test_rule_mechanisms as mechanisms
from tests.page_play import Seat
from tests.purchase_helpers import campaign_at

users = mechanisms.users
fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


def _seats(players):
    return {side: Seat(players.users[side], players.campaign_id) for side in ("axis", "british")}


def _press_through(seats, *steps):
    """Each side presses Done at each of ``steps`` on its page, British first where the
    page offers it (as two players would, each at his own page)."""
    for step in steps:
        for side in ("axis", "british"):
            seat = seats[side]
            seat.open()
            answer = seat.press(f"Done with {step}")
            assert answer.status == 200, answer.text[:300]


# ----------------------------------------------------------------------- 3.6212 matrix *


def test_3_6212_star_a_british_bombardment_is_no_on_map_retained_unit(users, modules):
    """3.6212 matrix footnote *: "The Attack Chit cannot be selected by the Axis player if
    the British player currently has no on-map Retained units."  The last date of CG I
    (July 17 PM): the British retained forces hold only the B1 they bought this date (a
    Pregame Bombardment, resolved off the map and then eliminated, British chart
    footnote i), bought through the page with its Pre-Registered hex.  At 3.621 the Axis
    press "Lock Attack": refused with the footnote's sentence shown where they clicked,
    no chit locked; "Lock Idle" is accepted."""
    players, _ = campaign_at("sicily", "i", "jul17pm", users, points=60)
    seats = _seats(players)
    british = seats["british"]
    british.open()
    refused = british.press("Buy B1 Bombardment for 3 CPP")
    assert refused.refused and "Pre-Registered hex" in refused.text, refused.text[:300]
    bought = british.press("Buy B1 Bombardment for 3 CPP", hex="21C5")
    assert bought.status == 200, bought.text[:300]
    _press_through(seats, "3.617", "3.618", "3.619", "3.620")
    assert players.step.id == "3.621", players.step.id
    axis = seats["axis"]
    axis.open()
    answer = axis.press("Lock Attack")
    assert answer.refused, "the Axis locked Attack against a side holding only a Bombardment"
    assert "3.6212" in answer.text and "choose Idle" in answer.text, answer.text[:400]
    assert not InitiativeChit.objects.filter(campaign_id=players.campaign_id).exists()
    assert axis.press("Lock Idle").status == 200
