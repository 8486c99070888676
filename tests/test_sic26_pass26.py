"""Sicily (seed 001), pass 26 of the sentence audit (issue 44): sentences whose facts the
app now holds, since each side's 3.605 Setup Area list (pass 22), each unit line's Setup
Area and where each hidden Fortification lies (3.6073, pass 25), through the pages
(tests/page_play.py) of both seats (docs/rules-audit/pass-26-sic26.md)."""

from __future__ import annotations

import pytest

from campaign.models import Seat as SeatModel
from tests import test_rule_mechanisms as mechanisms
from tests.page_play import text_of
from tests.purchase_helpers import campaign_at
from tests.test_sica18_pass18 import _forge, _seat
from tests.test_sicsa_pass24 import _listed

users = mechanisms.users

pytestmark = [pytest.mark.django_db, pytest.mark.rules]

ON_MAP = "I RG for Standard On-Map Setup (20% more, FRU)"


def _on_map_buys(seat) -> list[str]:
    return [b for b in seat.buttons() if "On-Map" in b and b.startswith("Buy")]


def _to_purchase(players, axis: str, british: str):
    """Both 3.605 pages list their Setup Areas, then both walk to 3.617: the two seats."""
    _listed(players, axis, british)
    players.until("purchase")
    SeatModel.objects.filter(campaign_id=players.campaign_id).update(points=40)
    return _seat(players, "axis"), _seat(players, "british")


def test_3_6175_the_british_3_605_list_naming_none_withholds_the_on_map_price(users, modules):
    """3.6175: "A British RG may be purchased for Standard On-Map Setup only if there is
    >= one Set Up Area on the Map."  The fact was a yes/no the players entered with the
    scenario's result, before 3.605 made the lists; 3.617 follows 3.605, so the British
    list is read instead.  CG I, the RePh before July 15 AM: the Axis list A, the British
    none.  The British chart offers no On-map price and says why with the list and the
    rule; a forged On-map buy is refused citing 3.6175 once, the CPP unchanged; the Axis
    chart keeps its On-map price and says nothing of it.  The result asks no such
    question any more."""
    players, module = campaign_at("sicily", "i", "jul15am", users, step="3.605")
    assert "british_no_setup_area" not in {f.id for f in module.result_fields}
    axis, british = _to_purchase(players, "A", "")
    said = british.open()
    assert not _on_map_buys(british), british.buttons()
    assert (
        f"{ON_MAP}: not offered: you listed no Setup Area at 3.605, and this price needs "
        "at least one Setup Area of yours on the map (3.6175)."
    ) in said, said[:3000]
    forged = _forge(british, "buy", group="I3", variant="on_map")
    words = text_of(forged.html)
    assert forged.refused and words.count("3.6175") == 1, words[:400]
    assert "you listed no Setup Area at 3.605" in words
    assert "You have 40 CPP" in british.open()
    theirs = axis.open()
    assert _on_map_buys(axis), axis.buttons()
    assert "not offered" not in theirs and "you listed no Setup Area" not in theirs


@pytest.mark.parametrize("british_list", ["North", None])
def test_3_6175_the_on_map_price_offered_with_a_british_setup_area_or_no_list(
    users, modules, british_list
):
    """3.6175 the other way: the British list North (>= one Setup Area): the On-map price
    is offered and bought.  The British post no list at all (Done at 3.605 without one):
    the app does not know their Setup Areas and sells it, as it did before any result
    answered the question."""
    from tests.test_sica22_pass22 import _rolled

    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.605")
    if british_list is None:
        _rolled(_seat(players, "axis"), "Record my Setup Areas", areas="A")
        players.until("purchase")
        SeatModel.objects.filter(campaign_id=players.campaign_id).update(points=40)
        british = _seat(players, "british")
    else:
        _, british = _to_purchase(players, "A", british_list)
    said = british.open()
    assert "you listed no Setup Area" not in said
    buy = next(b for b in _on_map_buys(british) if b.startswith("Buy I1"))
    assert british.press(buy).status == 200
