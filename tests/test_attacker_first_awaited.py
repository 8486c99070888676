"""PHD C5.14 "In turn, Attacker first": while the Attacker of the scenario just played
(C5.3) has not done its Redeployment, the campaign waits for the Attacker only — the
Defender's seat is not told "your move" (notice, title badge, dashboard), it waits for
its opponent and may remind him; once the Attacker is done, the Defender's move begins."""

from __future__ import annotations

import pytest

from campaign.models import Notification, Seat
from campaign.seat_views.campaign_page import campaign_view
from campaign.seat_views.dashboard import dashboard_rows
from campaign.services import messages, steps
from tests import test_rule_mechanisms as mechanisms
from tests.purchase_helpers import campaign_at

users = mechanisms.users

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


def awaited(players) -> set[str]:
    return set(
        Seat.objects.filter(
            campaign_id=players.campaign_id, waiting_since__isnull=False
        ).values_list("side", flat=True)
    )


def your_move_notices(players, side) -> int:
    return Notification.objects.filter(
        user=players.users[side], kind=Notification.Kind.YOUR_MOVE
    ).count()


def test_c5_14_only_the_attacker_is_told_your_move_until_it_is_done(
    users, modules, django_capture_on_commit_callbacks
):
    """C5.14/C5.3: after the Initial TM Scenario the US is the Attacker (C4.2): at C5.14
    the German (Defender) page says he waits for his opponent, no "your move" badge,
    none on his dashboard, no notice; the US is told.  When the US is done, the German
    is told "your move" once."""
    with django_capture_on_commit_callbacks(execute=True):
        players, _ = campaign_at("purple-heart-draw", "tm", "t0930", users, step="C5.14")
    us, german = (
        campaign_view(players.users["us"], players.campaign_id),
        campaign_view(players.users["german"], players.campaign_id),
    )
    assert us.your_move and us.status == "you"
    assert not german.your_move and german.status == "opponent" and german.can_nudge
    assert awaited(players) == {"us"}
    (row,) = dashboard_rows(players.users["german"])
    assert not row.your_move
    notices = your_move_notices(players, "german")
    with django_capture_on_commit_callbacks(execute=True):
        messages.nudge_opponent(campaign_id=players.campaign_id, user=players.users["german"])
    with django_capture_on_commit_callbacks(execute=True):
        steps.finish_step(campaign_id=players.campaign_id, user=players.users["us"])
    german = campaign_view(players.users["german"], players.campaign_id)
    assert german.your_move and german.status == "you"
    assert awaited(players) == {"german"}
    assert your_move_notices(players, "german") == notices + 1
