"""The Done's statements (issue 49): every player pays a Done at every step, so it
reads what it needs once and writes once, whatever the campaign holds.  ×1 is July 14
PM (2 CG dates) with the records of ``test_queries._grow(…, 1)``, ×10 is July 17 PM
(11 CG dates) with ten times the purchases, units, rolls and log lines."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from campaign.models import StepMark
from campaign.services import steps
from tests.purchase_helpers import campaign_at
from tests.test_queries import LARGE, SMALL, _grow, statements


def _done_statements(players, side: str) -> list[str]:
    c = players.campaign
    with CaptureQueriesContext(connection) as ctx:
        steps.finish_step(
            campaign_id=players.campaign_id, user=players.users[side], without_data=True
        )
    assert StepMark.objects.filter(
        campaign=c, cycle=c.cycle, step_index=c.step_index, side=side
    ).exists()
    return statements(ctx)


def _sicily_done(make_user, scale, n: int) -> list[str]:
    date, factor = scale
    users = (make_user(f"axis_done{n}"), make_user(f"brit_done{n}"))
    players, _ = campaign_at("sicily", "i", date, users)
    _grow(players, factor)
    return _done_statements(players, "axis")


@pytest.mark.django_db
def test_a_done_runs_the_same_few_statements_with_ten_times_the_data_sicily_3_617(
    make_user, modules
):
    """Sicily 3.617 (the RG purchase step), the first side's Done: the seats' lock, the
    pass's marks, the units a held cap counts (3.60742 EXC, read once with what the
    owed rolls read), then the writes in one statement (the mark, the log line, the
    position, the "only you" notice and the seats' revisions; whether the British were
    told it is their move comes with the lock), at ×1 and ×10 alike (was 11)."""
    small = _sicily_done(make_user, SMALL, 1)
    large = _sicily_done(make_user, LARGE, 2)
    assert len(small) == len(large), (small, large)
    # (SQLite: each write a statement of its own)
    bound = 4 if connection.vendor == "postgresql" else 8
    assert len(small) <= bound, "\n".join(small)


@pytest.mark.django_db
def test_a_done_with_compulsory_rolls_ahead_reads_once_phd_c5(make_user, modules):
    """PHD at the RG purchase step (C5.31), the first side's Done (going on without the
    RG chart the rules text lacks), with compulsory rolls ahead (C5.19 and the others
    ``Table.required`` names; C5.34's per RG held): the rolls and the RGs held are each
    read once, no purchase is read for a hex no RG
    records (Sicily's British footnote j) nor a log line for a placement no table makes
    (APD 3.1 footnote *), and the writes go in one statement (was 12)."""
    users = (make_user("us_done"), make_user("ger_done"))
    players, _ = campaign_at("purple-heart-draw", "tm", "t0930", users)
    found = _done_statements(players, players.waiting()[0])
    bound = 5 if connection.vendor == "postgresql" else 9
    assert len(found) <= bound, "\n".join(found)
