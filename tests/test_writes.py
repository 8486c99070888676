"""Issue 49: writes deferred to one statement (``campaign.services.writes``).  The
revealing initiative lock (3.621 / C5.37) writes once; a read meanwhile sees every
deferred write; an update after a write to its table is not folded into it; a refused
action leaves nothing."""

from __future__ import annotations

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from campaign.models import Event, EventKind, InitiativeChit, InitiativeOutcome, Seat
from campaign.services import initiative, writes
from campaign.services.errors import ActionRefused
from campaign.services.events import record_event
from tests.test_initiative import new_campaign
from tests.test_queries import statements


@pytest.fixture
def players(modules, make_user):
    players, _ = new_campaign("sicily", "i", (make_user("axis_w"), make_user("brit_w")))
    return players


def _event(campaign, text: str) -> Event:
    return record_event(campaign, kind=EventKind.DECLARE, text=text)


@pytest.mark.django_db
def test_deferred_writes_go_in_one_statement_on_postgresql(players):
    c = players.campaign
    with CaptureQueriesContext(connection) as ctx, transaction.atomic(), writes.deferring():
        _event(c, "one")
        _event(c, "two")
        writes.update(Seat.objects.filter(campaign=c), san=4)
        assert not ctx.captured_queries or not any(
            "campaign_event" in q["sql"] for q in ctx.captured_queries
        ), "nothing is written before the block ends"
    sent = [s for s in statements(ctx) if "campaign_event" in s or "campaign_seat" in s]
    # (the two log lines are one multi-row INSERT, numbered in the order written)
    assert len(sent) == (1 if connection.vendor == "postgresql" else 2), sent
    assert list(
        Event.objects.filter(campaign=c, text__in=["one", "two"])
        .values_list("text", flat=True)
        .order_by("id")
    ) == ["one", "two"]
    assert set(Seat.objects.filter(campaign=c).values_list("san", flat=True)) == {4}


@pytest.mark.django_db
def test_a_read_meanwhile_sees_the_deferred_writes(players):
    c = players.campaign
    with transaction.atomic(), writes.deferring():
        _event(c, "seen")
        assert Event.objects.filter(campaign=c, text="seen").count() == 1


@pytest.mark.django_db
def test_an_update_after_an_insert_into_its_table_sees_the_row(players):
    """Run one after another, the update would change the row just inserted: it does
    here too (the pending insert goes first)."""
    c = players.campaign
    with transaction.atomic(), writes.deferring():
        _event(c, "late")
        writes.update(Event.objects.filter(campaign=c, text="late"), public_text="changed")
    assert Event.objects.get(campaign=c, text="late").public_text == "changed"


@pytest.mark.django_db
def test_a_refusal_inside_the_block_writes_nothing(players):
    c = players.campaign
    with pytest.raises(ActionRefused), transaction.atomic(), writes.deferring():
        _event(c, "dropped")
        raise ActionRefused("no")
    assert not Event.objects.filter(campaign=c, text="dropped").exists()


@pytest.mark.django_db
def test_the_revealing_lock_writes_every_record_of_the_reveal(players):
    """3.621: both chits revealed at the same instant, both lock lines readable by the
    opponent, the outcome recorded, the campaign moved on, the seats' new revisions."""
    c = players.campaign
    position = (c.cycle, c.step_index)
    axis, brit = players.users["axis"], players.users["british"]
    before = {s.side: s.revision for s in Seat.objects.filter(campaign=c)}
    initiative.lock_initiative(campaign_id=c.pk, user=axis, chit="idle")
    assert InitiativeChit.objects.get(campaign=c, side="axis").revealed_at is None
    initiative.lock_initiative(campaign_id=c.pk, user=brit, chit="attack")
    chits = InitiativeChit.objects.filter(campaign=c, cycle=c.cycle)
    assert {ch.side: ch.chit for ch in chits} == {"axis": "idle", "british": "attack"}
    assert len({ch.revealed_at for ch in chits}) == 1 and chits[0].revealed_at is not None
    locks = Event.objects.filter(campaign=c, kind=EventKind.CHIT)
    assert locks.count() == 2 and not locks.filter(revealed_at=None).exists()
    assert InitiativeOutcome.objects.filter(campaign=c, cycle=c.cycle).count() == 1
    after = {s.side: s for s in Seat.objects.filter(campaign=c)}
    assert all(after[s].revision != before[s] for s in before)
    assert after["british"].attack_chits_used == 1
    c.refresh_from_db()
    assert (c.cycle, c.step_index) != position
