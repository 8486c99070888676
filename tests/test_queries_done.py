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


# The statements of a Done, by step kind, and for the Done that moves the campaign on
# (the step's completion: the date's replenishment, the scenario's winner, a reveal, the
# waiting state) — ceilings, PostgreSQL's then SQLite's (each write a statement there).
# A Done at a step that only marks the side done reads the seats' lock, what the side
# owes and holds, the pass's marks, and writes once.
# (PHD's C5.19-C5.24 tables read the RGs held and the rolls made for each, C5.34.)
STILL = {"table": (10, 13)}
STILL_ELSE = (8, 12)
# Moving on: the next step's settle.  The date's replenishment (PHD C5.28, APD 2.8's
# next step 2.9, Sicily 3.615) reads the confirmed results and any Lull once for both
# sides (was once per side and twice more for each side's DRMs: 31, 26 and 21), then
# rolls: a roll bumps the campaign's count, stores the roll, the seat's points and the
# log line; APD's winner is recorded (2.9).
MOVED = {"table": (19, 24), "checklist": (19, 25), "exchange": (13, 19)}
MOVED_ELSE = (11, 15)


def _done_statements_by_kind(players, dones: int) -> dict[tuple[str, bool], int]:
    """Both sides' Dones for ``dones`` Dones from where ``players`` stand (entering a
    nil scenario result where one is asked): the most statements a Done took, by its
    step's kind and whether it moved the campaign on."""
    from campaign.selectors import module_of
    from campaign.services.errors import ActionRefused

    module = module_of(players.campaign)
    sides = [s.id for s in module.sides]
    nil = {
        f"{f.id}.{s}": (False if f.kind == "bool" else 0)
        for f in module.result_fields
        for s in sides
    }
    most: dict[tuple[str, bool], int] = {}
    real = steps.finish_step

    def counted(**kw):
        c = players.campaign
        kind = module.steps[c.step_index].kind
        with CaptureQueriesContext(connection) as ctx:
            real(**kw)
        after = players.campaign
        key = (kind, (after.cycle, after.step_index) != (c.cycle, c.step_index))
        most[key] = max(most.get(key, 0), len(statements(ctx)))

    steps.finish_step = counted  # type: ignore[assignment]
    try:
        for _ in range(dones):
            try:
                players.finish()
            except ActionRefused:
                try:
                    players.results(**nil)
                except ActionRefused:
                    break  # a step the walk cannot finish (a chit to pick, data to supply)
    finally:
        steps.finish_step = real  # type: ignore[assignment]
    return most


@pytest.mark.django_db
@pytest.mark.parametrize(
    "module_id,variant",
    [("sicily", "i"), ("purple-heart-draw", "tm"), ("pleasant-diversion", "cg")],
)
def test_a_done_of_each_step_kind_stays_under_its_ceiling(make_user, modules, module_id, variant):
    """Every player pays a Done at every step: from the start of each seed CG through
    its first dates (Sicily 3.601-3.621, PHD TM and ConPh C1-C5.35, APD 1.1-2.8), the
    statements of the Done of each kind of step stay under a ceiling, the Done that
    completes the step (the next step's settle) included."""
    from tests.walk import host_game, players_of

    a, b = make_user(f"kinds_{variant}_a"), make_user(f"kinds_{variant}_b")
    players = players_of(host_game(module_id, variant, a, b, through_start=False), a, b)
    most = _done_statements_by_kind(players, 60)
    pg = connection.vendor == "postgresql"
    over = {
        key: n
        for key, n in most.items()
        if n
        > (MOVED.get(key[0], MOVED_ELSE) if key[1] else STILL.get(key[0], STILL_ELSE))[
            0 if pg else 1
        ]
    }
    assert len(most) >= 4, most
    assert not over, (over, most)
