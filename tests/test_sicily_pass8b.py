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
