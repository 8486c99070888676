"""Issue 49: the notices read the log lines of their own transaction in memory
(a deferred insert has no key to read them by), through the gate's own rule:
``visibility.event_shown`` answers what ``Event.objects.visible_to`` answers.  An
answer adds the purchase rows its change wrote to those its seat was shown, through
the declaration's own rules in memory (``Disclosure.shown``), which answer what
``Purchase.objects.visible_to`` answers."""

from __future__ import annotations

import itertools

import pytest
from django.utils import timezone

from campaign.models import Event, EventKind, Purchase
from campaign.visibility import PURCHASE, event_shown, gate_of
from tests.test_initiative import new_campaign


@pytest.mark.django_db
def test_event_shown_in_memory_is_the_gates_answer(modules, make_user):
    players, _ = new_campaign("sicily", "i", (make_user("axis_t"), make_user("brit_t")))
    c = players.campaign
    made = []
    for secret_side, public_text, revealed in itertools.product(
        ("", "axis", "british"), ("", "has chosen"), (False, True)
    ):
        made.append(
            Event.objects.create(
                campaign=c,
                kind=EventKind.CHIT,
                date_index=c.date_index,
                side=secret_side,
                text=f"full {secret_side} {public_text} {revealed}",
                public_text=public_text,
                secret_side=secret_side,
                revealed_at=timezone.now() if revealed else None,
            )
        )
    for side in ("axis", "british"):
        gated = dict(
            Event.objects.visible_to(side)
            .filter(pk__in=[e.pk for e in made])
            .values_list("pk", "shown")
        )
        assert {e.pk: event_shown(e, side) for e in made if event_shown(e, side)} == gated


def _gated(model, side, pks, *marks):
    """The SQL gate's answer for the rows ``pks``: each row it returns, with its marks."""
    return {
        r.pk: tuple(getattr(r, m) for m in marks)
        for r in model.objects.visible_to(side).filter(pk__in=pks)
    }


def _twinned(gate, rows, side, *marks):
    """The in-memory twin's answer (``Disclosure.shown``) for the same rows."""
    return {
        r.pk: tuple(getattr(shown, m) for m in marks)
        for r in rows
        if (shown := gate.shown(r, side)) is not None
    }


@pytest.mark.django_db
def test_a_purchase_shown_in_memory_is_the_gates_answer(modules, make_user):
    """Issue 49: an answer adds the purchase rows its change wrote to those its seat
    was shown, through ``PURCHASE.shown``: over every owner, reveal, held outcome and
    hex kept apart (missing, set, cleared), and either seat, the twin returns the rows
    the SQL gate returns, marked alike."""
    players, _ = new_campaign("sicily", "i", (make_user("axis_p"), make_user("brit_p")))
    c = players.campaign
    made = []
    cases = itertools.product(
        ("axis", "british"), (False, True), (False, True), ("missing", True, False)
    )
    for n, (owner, revealed, held, hex_held) in enumerate(cases):
        made.append(
            Purchase.objects.create(
                campaign=c,
                side=owner,
                cycle=c.cycle,
                date_index=c.date_index,
                group_id=f"T{n}",
                group_type="twin",
                cost=1,
                ordinal=1,
                date_ordinal=1,
                revealed_at=timezone.now() if revealed else None,
                outcome_held=held,
                details={} if hex_held == "missing" else {"hex_held": hex_held},
            )
        )
    marks = ("outcome_shown", "apart_shown")
    rows = [Purchase.objects.get(pk=p.pk) for p in made]  # unmarked, as stored
    for side in ("axis", "british"):
        gated = _gated(Purchase, side, [p.pk for p in made], *marks)
        assert len(gated) == 18  # its own 12, the opponent's 6 revealed
        assert _twinned(PURCHASE, rows, side, *marks) == gated
        assert _twinned(PURCHASE, made, side, *marks) == gated  # as created


@pytest.mark.django_db
def test_a_log_line_admitted_in_memory_is_the_gates_answer(modules, make_user):
    """The generic twin (``Disclosure.admits``: the owner, the reveal and the open rows
    of a declaration) on the log's gate, which has open rows (a line nobody's secret)."""
    players, _ = new_campaign("sicily", "i", (make_user("axis_l"), make_user("brit_l")))
    c = players.campaign
    made = [
        Event.objects.create(
            campaign=c,
            kind=EventKind.CHIT,
            date_index=c.date_index,
            text="t",
            secret_side=secret_side,
            revealed_at=timezone.now() if revealed else None,
        )
        for secret_side, revealed in itertools.product(("", "axis", "british"), (False, True))
    ]
    gate = gate_of("Event")
    for side in ("axis", "british"):
        readable = set(
            Event.objects.readable_by(side)
            .filter(pk__in=[e.pk for e in made])
            .values_list("pk", flat=True)
        )
        assert {e.pk for e in made if gate.admits(e, side)} == readable
