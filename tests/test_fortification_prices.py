"""PHD C5.35's Fortification Table where the rules text is damaged (issue 44,
classes 2 and 3): the items whose DSP cost cell is lost are declared
missing and bought once the players supply their cost; at most 30 DSP per TM Scenario
on Mines (note 6)."""

from __future__ import annotations

import pytest
from django.test import Client

from campaign.models import FortificationBuy
from campaign.services import purchases
from campaign.services.errors import ActionRefused
from tests.test_rule_mechanisms import supply
from tests.walk import host_game, players_of

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


@pytest.fixture
def at_c5_35(make_user, modules):
    """A PHD TM at the Initial Scenario's fortification step; the German has 60 DSP."""
    german, us = make_user("german_player"), make_user("us_player")
    c = host_game("purple-heart-draw", "tm", german, us, side="german", through_start=False)
    players = players_of(c, german, us)
    players.until_step("I-C5.35")
    return players


def buy(players, item_id, **kw):
    return purchases.buy_fortification(
        campaign_id=players.campaign_id, user=players.users["german"], item_id=item_id, **kw
    )


def dsp(players) -> int:
    players.campaign.refresh_from_db()
    return players.campaign.seats.get(side="german").fortification_points


def test_c5_35_wire_whose_cost_is_lost_is_bought_once_the_players_supply_it(at_c5_35):
    """C5.35: the Wire row's DSP cost is lost in the rules text: refused in words (the
    points untouched) until one side supplies it and the other accepts."""
    players = at_c5_35
    with pytest.raises(ActionRefused, match=r"its DSP cost is not in the rules text \(C5.35\)"):
        buy(players, "wire")
    assert dsp(players) == 60 and not FortificationBuy.objects.exists()
    supply(players, "fortifications.items.wire.cost", {"value": "2"})
    bought = buy(players, "wire", count=3)
    assert (bought.cost, dsp(players)) == (6, 54)


def test_c5_35_note_6_no_more_than_30_dsp_per_tm_scenario_on_mines(at_c5_35):
    """Note 6: "A side may not spend > 30 DSP per TM Scenario on Mines" — A-P and A-T
    factors together."""
    players = at_c5_35
    supply(players, "fortifications.items.ap_mines.cost", {"value": "1"})
    supply(players, "fortifications.items.at_mines.cost", {"value": "2"})
    buy(players, "ap_mines", count=20)
    buy(players, "at_mines", count=5)  # 30 DSP on Mines
    with pytest.raises(
        ActionRefused,
        match=r"no more than 30 DSP on Mines per CG date \(C5.35 note 6\); 30 spent so far",
    ):
        buy(players, "ap_mines")
    assert dsp(players) == 30


def test_c5_35_the_page_says_which_costs_are_missing_and_the_mines_cap(at_c5_35):
    """The Fortification Table on the page: a lost cost reads "not in the rules text"
    with the refusal's words beside it; the Mines rows show note 6's cap."""
    players = at_c5_35
    client = Client()
    client.force_login(players.users["german"])
    page = client.get(f"/campaigns/{players.campaign_id}/").content.decode()
    assert "not in the rules text" in page
    assert "its DSP cost is not in the rules text (C5.35): supply it first" in page
    assert "≤ 30 DSP on Mines per CG date (C5.35 note 6)" in page
