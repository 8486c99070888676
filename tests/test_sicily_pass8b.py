"""Sicily (seed 001), the eighth pass of the sentence audit, part B (issue 44): 3.615
to 3.623 and the RG charts, tried through the services as two players meet them
(docs/rules-audit/pass-7-sicily-b.md, "Pass 8")."""

from __future__ import annotations

import pytest

from campaign.models import Seat
from campaign.services.errors import ActionRefused
from tests import test_rule_mechanisms as mechanisms
from tests.purchase_helpers import campaign_at
from tests.test_rule_mechanisms import buy

users = mechanisms.users

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


def test_3_617_british_chart_g2_cg_date_max_na_is_refused_as_na(users, modules):
    """3.617 Canadian (British) RG Chart, G2 Airlanding AT Pltn: its CG Date Max is
    printed "NA".  The player is told it is NA on the chart, not that a maximum of 0 is
    reached; nothing is spent."""
    players, _ = campaign_at("sicily", "i", "jul14pm", users)
    seat = Seat.objects.get(campaign_id=players.campaign_id, side="british")
    before = seat.points
    with pytest.raises(ActionRefused) as refused:
        buy(players, "british", "G2")
    words = str(refused.value)
    assert "prints NA as its CG Date Max" in words
    assert "3.617" in words
    assert "maximum is reached" not in words
    seat.refresh_from_db()
    assert seat.points == before


def test_3_619_footnote_e_the_roster_marks_the_foxhole_a_trench_removed(users, modules):
    """3.619 footnote e: "When the trench is placed the foxhole is removed."  The CG
    Roster's FORTIFICATIONS list marks the Foxhole of 12F4 removed by the Trench placed
    there; the Foxhole of 12G5, not replaced, stays as it was."""
    from campaign.seat_views.roster import roster_view
    from tests.test_sicily_pass7b import _fortify

    players, _ = campaign_at("sicily", "i", "jul14pm", users)
    buy(players, "axis", "M3")
    players.until("fortify")
    _fortify(players, "axis", "foxhole", tier=1, location="12F4")
    _fortify(players, "axis", "foxhole", tier=1, location="12G5")
    players.until("initiative")
    players.chits(axis="idle", british="idle")
    players.until("purchase")
    buy(players, "axis", "M3")
    buy(players, "axis", "M3")
    players.until("fortify")
    _fortify(players, "axis", "trench", location="12f4")
    seat = Seat.objects.get(campaign_id=players.campaign_id, side="axis")
    forts = roster_view(seat).fortifications
    assert forts[0].startswith("July 14 PM: Axis 1 × Foxhole")
    assert forts[0].endswith("at 12F4 (removed: Trench placed there on July 14 Night)"), forts
    assert forts[1].endswith("at 12G5"), forts
    assert "removed" not in forts[2], forts


def test_3_617_exc_july_14_pm_left_shows_what_remains_and_marks_it_lost(users, modules):
    """3.617: "write the number of CPP remaining, even if zero, in the 'Left' column"
    [EXC: "Any CPP remaining after this step on the 14 PM date are lost"]: the Axis who
    spend 1 (an M3) of 29 see 28 Left on July 14 PM, marked lost with the rule; July 14 Night
    starts at 0 (3.620)."""
    from django.test import Client

    from tests.test_roster import roster_of

    players, _ = campaign_at("sicily", "i", "jul14pm", users, points=29)
    buy(players, "axis", "M3")
    players.until("initiative")
    players.chits(axis="idle", british="idle")
    players.until("purchase")
    view = roster_of(players.campaign, "axis")
    axis = view.side_names.index("Axis")
    pm = next(ln for ln in view.lines if ln.date == "July 14 PM").sides[axis]
    night = next(ln for ln in view.lines if ln.date == "July 14 Night").sides[axis]
    assert (pm.spent, pm.left, pm.lost, pm.carried) == (1, 28, 28, 0), pm
    assert "3.617" in pm.lost_rule
    assert night.start == 0, night
    client = Client()
    client.force_login(players.users["axis"])
    page = client.get(f"/campaigns/{players.campaign_id}/roster/").content.decode()
    assert f"(28 lost, {pm.lost_rule})" in page
