"""Issue 17 (wear): how many clicks a date takes each player who has nothing special
to do — the Refit Phase after a scenario, and an Idle date.  Steps with nothing for a
side to do pass by themselves; map steps are finished together.  The figures are
printed (`pytest -s tests/test_clicks.py`) and bounded here.

Before this (every step a "Done" per side): a Sicily Refit date took 23 clicks per
side (22 × Done + the chit) plus entering and confirming the result; an Idle date 11
per side (10 × Done + the chit)."""

from __future__ import annotations

from collections import Counter

import pytest

from campaign.selectors import (
    campaign_seats,
    done_sides,
    module_of,
    seats_done,
    sides_awaited,
    snapshot,
)
from campaign.services import initiative, steps
from rules import availability
from tests.purchase_helpers import keep_retained_units
from tests.walk import host_game, players_of

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


def lazy_click(players, clicks: Counter, chit: dict[str, str]) -> None:
    """The side the campaign waits for does the least it can: one click."""
    c = players.campaign
    module = module_of(c)
    step = module.steps[c.step_index]
    # The side awaited (the side setting up first at Sicily 3.622, 3.6222).
    side = sides_awaited(c, module, step, done_sides(c))[0]
    user = players.users[side]
    clicks[side] += 1
    if step.kind == "initiative":
        initiative.lock_initiative(campaign_id=c.pk, user=user, chit=chit[side])
        return
    seats = campaign_seats(c.pk)
    run = availability.finish_ahead(module, snapshot(c, side, seats=seats, done=seats_done(seats)))
    steps.finish_step(campaign_id=c.pk, user=user, through=run[-1].id if run else "")


def walk_date(players, chit: dict[str, str]) -> Counter:
    """Clicks until the date's initiative is revealed: a scenario in play, or an Idle
    date looping to the next."""
    clicks: Counter = Counter()
    cycle = players.campaign.cycle
    while players.campaign.cycle == cycle and not players.campaign.in_play:
        lazy_click(players, clicks, chit)
    return clicks


@pytest.fixture
def sicily(modules, make_user):
    alice, bob = make_user("alice"), make_user("bob")
    c = host_game("sicily", "i", alice, bob)
    players = players_of(c, alice, bob)
    players.results(**{"cvp_lost.axis": 0, "cvp_lost.british": 0, "san.axis": 3, "san.british": 3})
    keep_retained_units(players)  # 3.6212*: the Axis may Attack a British side with units
    return players


def test_a_refit_date_takes_a_handful_of_clicks_per_side(sicily, capsys):
    clicks = walk_date(sicily, {"axis": "attack", "british": "idle"})
    assert sicily.campaign.in_play  # the next scenario
    with capsys.disabled():
        print(f"\nSicily Refit date (3.601-3.623), clicks per side: {dict(clicks)}")
    # 3.601-3.620 at once, the chit, the set-up (3.622, in order: 3.6222), the Recon
    # Inspection and Bombardment after all set-up (3.6223).
    assert max(clicks.values()) <= 4


def test_an_idle_date_takes_few_clicks_per_side(sicily, capsys):
    walk_date(sicily, {"axis": "idle", "british": "idle"})  # July 14 PM goes Idle
    assert not sicily.campaign.in_play and sicily.step.id != "3.601"
    clicks = walk_date(sicily, {"axis": "idle", "british": "idle"})
    with capsys.disabled():
        print(f"\nSicily Idle date (3.612-3.621), clicks per side: {dict(clicks)}")
    assert max(clicks.values()) <= 2  # 3.6122-3.620 at once, and the chit
