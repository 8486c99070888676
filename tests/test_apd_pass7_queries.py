"""Issue 44, pass 7 (cross-system): settling a step's units reads what they possess
once, never once per unit (``units.possessed_by``).  Sicily 3.60742 is the rule whose
rows carry the possessed SW along ("any captured support weapons ... in the possession
of these units"): the number of reads of the retained forces does not grow with the
number of units withdrawn, at 3.607 nor when an amended answer undoes it."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from campaign.models import Purchase, Unit
from tests import test_rule_mechanisms
from tests.test_rule_mechanisms import add

pytestmark = [pytest.mark.django_db, pytest.mark.rules]

users = test_rule_mechanisms.users


def _unit_reads(queries) -> int:
    return sum(
        1
        for q in queries
        if q["sql"].lstrip().upper().startswith("SELECT") and 'FROM "campaign_unit"' in q["sql"]
    )


def _withdrawing(users, lines: int):
    """At 3.607 after July 14 PM with the British units removed: ``lines`` lines of the
    I4's squads, each possessing a captured Bren."""
    from tests.test_sicily_withdrawal import _purchase, at_step_after

    players = at_step_after("jul14pm", "3.607", users, british_withdrawal=True)
    i4 = _purchase(players, "axis", "I4", "jul14pm")
    Purchase.objects.filter(pk=i4.pk).update(revealed_at=timezone.now())
    for n in range(lines):
        squad = add(players, "axis", f"4-6-7 #{n}", "squad")
        Unit.objects.filter(pk=squad.pk).update(purchase=i4)
        add(players, "axis", "Bren LMG", "sw", markers=["captured"], possessor=squad.ref)
    return players


def _reads(users, lines: int) -> tuple[int, int]:
    """The reads of the retained forces at Done of 3.607 and at the amendment that
    undoes its withdrawal, ``lines`` lines withdrawn and returned."""
    from tests.test_sicily_pass6 import _amend

    players = _withdrawing(users, lines)
    with CaptureQueriesContext(connection) as settled:
        players.finish()
    withdrawn = Unit.objects.filter(
        campaign_id=players.campaign_id, markers__contains=["withdrawn"]
    )
    assert withdrawn.count() == 2 * lines
    with CaptureQueriesContext(connection) as undone:
        _amend(players, "british", british_withdrawal=False)
    assert not withdrawn.exists()
    return _unit_reads(settled.captured_queries), _unit_reads(undone.captured_queries)


def test_3_60742_settling_reads_the_possessed_sw_once_not_per_unit(users, modules, make_user):
    """3.60742 at Done of 3.607 and after its answer is amended to no: the SW each
    withdrawn line possesses are withdrawn with it (and back with it).  The side's
    units and what they possess are read together, so one line withdrawn and four cost
    the same reads (before: one more read per line, for its SW, at each; and one per
    unit for its weapons, deferred, wherever an exchange step lay ahead)."""
    one = _reads(users, 1)
    four = _reads((make_user("third_player"), make_user("fourth_player")), 4)
    assert one == four
