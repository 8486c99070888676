"""Sicily (seed 001), the tenth pass of the sentence audit, part B (issue 44): 3.615
to 3.623 and the RG charts, tried through the services as two players meet them
(docs/rules-audit/pass-10-sicily-b.md)."""

from __future__ import annotations

import pytest

from campaign.models import Seat
from campaign.services.errors import ActionRefused
from tests import test_rule_mechanisms as mechanisms
from tests.purchase_helpers import campaign_at, roster_of
from tests.test_rule_mechanisms import buy

users = mechanisms.users
fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


def _points(players):
    return sorted(
        Seat.objects.filter(campaign_id=players.campaign_id).values_list("side", "points")
    )


def test_3_616_exc_a_forgo_refused_names_the_exc_side_date_and_cg(users, modules):
    """3.616 EXC: "On the July 14 PM date of CG III the British player may fore go all
    or a portion of the allotted CPP."  The Axis in CG III, the British in CG I (July 14
    PM) and the British in CG II on July 15 AM are refused in the EXC's words (the
    side, the date and the CG, with "3.616 EXC"), not only with where the campaign
    is; nothing changes."""
    from campaign.services import steps

    for variant, date, side, step in (
        ("iii", "jul14pm", "axis", "3.616"),
        ("i", "jul14pm", "british", None),
        ("ii", "jul15am", "british", None),
    ):
        players, _ = campaign_at("sicily", variant, date, users, step=step)
        before = _points(players)
        with pytest.raises(ActionRefused) as refused:
            steps.forgo_points(campaign_id=players.campaign_id, user=players.users[side], amount=1)
        words = str(refused.value)
        assert "3.616 EXC" in words, words
        assert "only the British may forgo CPP, on the July 14 PM date of CG III" in words, words
        assert refused.value.status == 409
        assert _points(players) == before


def test_3_6175_printed_value_enters_during_the_scenario_on_the_record_line(users, modules):
    """3.6175: "If an Axis or British RG is purchased for its printed value it enters
    play during the course of the scenario (SSR CG4 and CG5)."  The record line of an
    Axis I7 and a British V1 bought at the printed cost says so, with the rule; the I7
    bought In Reserve or On-map says its own price instead; an RG without units (M1
    Sniper) and a footnote g RG (I9: on-map at no extra cost) say nothing of it."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=200)
    buy(players, "axis", "I7")
    buy(players, "axis", "I9")
    buy(players, "axis", "M1")
    buy(players, "british", "V1")
    buy(players, "british", "I3", "on_map")
    axis = {ln.group_id: ln.bought_as for ln in roster_of(players.campaign, "axis").record}
    british = {ln.group_id: ln.bought_as for ln in roster_of(players.campaign, "british").record}
    said = (
        "printed cost: it enters play during the course of the scenario, per SSR CG4 and "
        "CG5 (3.6175)"
    )
    assert axis["I7"] == said, axis
    assert british["V1"] == said, british
    assert axis["I9"] == "" and axis["M1"] == "", axis
    assert "20% more" in british["I3"], british
