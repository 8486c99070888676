"""Issue 49: the notices read the log lines of their own transaction in memory
(a deferred insert has no key to read them by), through the gate's own rule:
``visibility.event_shown`` answers what ``Event.objects.visible_to`` answers."""

from __future__ import annotations

import itertools

import pytest
from django.utils import timezone

from campaign.models import Event, EventKind
from campaign.visibility import event_shown
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
