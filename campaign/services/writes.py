"""Writes deferred to one statement (issue 49: the lock that reveals in few statements).

A service whose writes need nothing back from the database (no primary key, no row
count) may run them inside ``deferring()``: ``insert`` and ``update`` then only compile
their statement, and the writes go together when the block ends — on PostgreSQL as one
statement (each write a data-modifying ``WITH`` clause; all of them run, in one
snapshot), elsewhere one statement each, in order.  Outside ``deferring()`` they run at
once, as ``Model.objects.create`` and ``QuerySet.update`` would.

The order of the writes is kept as the code wrote them: any other statement the
connection runs meanwhile (a read, a savepoint) first sends the writes still pending,
so a read never misses a deferred write.  Within one statement the clauses share one
snapshot: an ``UPDATE`` does not see a row a sibling clause inserts, and two clauses
must not change one row.  So an update of a table that a pending write already
changes sends the pending writes first (an insert after an update, or after inserts,
joins them: run one after another, the earlier writes would not have touched its row
either): the deferred statement means what the writes one after another would have
meant.  A service that updates rows and inserts into one table queues the updates
first (``initiative.reveal_locked``).
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar
from uuid import UUID, uuid4

from django.db import connections, models
from django.db.models import Case, CharField, F, Field, Value, When
from django.db.models.expressions import RawSQL
from django.db.models.sql import InsertQuery, UpdateQuery

from campaign.changes import RENEWAL_AT, RENEWAL_END, Change
from campaign.models import RENEWALS_LENGTH, Seat
from campaign.services import push

_M = TypeVar("_M", bound=models.Model)


@dataclass
class _Write:
    db_table: str
    sql: str = ""
    params: tuple[Any, ...] = ()
    objs: list[models.Model] | None = None  # an insert: its rows, compiled when sent

    def compiled(self, alias: str) -> list[tuple[str, tuple[Any, ...]]]:
        if self.objs is None:
            return [(self.sql, self.params)]
        meta = self.objs[0]._meta
        fields = [f for f in meta.concrete_fields if f is not meta.auto_field and not f.generated]
        query = InsertQuery(type(self.objs[0]))
        query.insert_values(fields, self.objs, raw=False)
        return [(sql, tuple(params)) for sql, params in query.get_compiler(using=alias).as_sql()]


@dataclass
class Deferred:
    """The writes of one ``deferring()`` block, for one database alias."""

    alias: str
    pending: list[_Write] = field(default_factory=list)
    _sending: bool = False

    def add(self, write: _Write) -> None:
        same_table = [w for w in self.pending if w.db_table == write.db_table]
        if write.objs is None:
            if same_table:
                self.flush()
        else:
            # The rows join the table's pending insert, in order: one multi-row INSERT
            # numbers them in the order written (two clauses of one statement would not).
            for pending in same_table:
                if pending.objs is not None:
                    pending.objs.extend(write.objs)
                    return
        self.pending.append(write)

    def flush(self) -> None:
        """Send the pending writes: one statement on PostgreSQL."""
        if not self.pending or self._sending:
            return
        writes, self.pending = self.pending, []
        connection = connections[self.alias]
        batch = [s for w in writes for s in w.compiled(self.alias)]
        if connection.vendor == "postgresql" and len(batch) > 1:
            clauses = ", ".join(f'"w{i}" AS ({sql})' for i, (sql, _) in enumerate(batch))
            batch = [(f"WITH {clauses} SELECT 1", tuple(p for _, ps in batch for p in ps))]
        self._sending = True
        try:
            with connection.cursor() as cursor:
                for sql, params in batch:
                    cursor.execute(sql, params)
        finally:
            self._sending = False

    def before_statement(
        self, execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any
    ) -> Any:
        """The connection's execute wrapper: pending writes go before anything else."""
        if not self._sending:
            self.flush()
        return execute(sql, params, many, context)


_deferred: contextvars.ContextVar[Deferred | None] = contextvars.ContextVar(
    "refit_deferred_writes", default=None
)


@contextmanager
def deferring(alias: str = "default") -> Iterator[Deferred]:
    """Defer ``insert`` and ``update`` until the block ends (or another statement runs).
    An exception drops the pending writes: the transaction they belong to rolls back."""
    deferred = Deferred(alias)
    token = _deferred.set(deferred)
    try:
        with connections[alias].execute_wrapper(deferred.before_statement):
            yield deferred
            deferred.flush()
    finally:
        _deferred.reset(token)
        deferred.pending.clear()


def _current(alias: str) -> Deferred | None:
    deferred = _deferred.get()
    return deferred if deferred is not None and deferred.alias == alias else None


def insert(*objs: _M) -> None:
    """Insert new model instances of one model: deferred, their ``pk`` stays unset;
    at once otherwise, as ``create`` (one) or ``bulk_create`` (several) would."""
    if not objs:
        return
    model = type(objs[0])
    meta = model._meta
    alias = "default"
    deferred = _current(alias)
    if deferred is None:
        if len(objs) == 1:
            objs[0].save(force_insert=True, using=alias)
        else:
            model._default_manager.bulk_create(list(objs))
        return
    deferred.add(_Write(meta.db_table, objs=list(objs)))


def update(queryset: models.QuerySet[Any], **values: Any) -> None:
    """``queryset.update(**values)``, deferred inside ``deferring()``."""
    deferred = _current(queryset.db)
    if deferred is None:
        queryset.update(**values)
        return
    query = queryset.query.chain(UpdateQuery)
    assert isinstance(query, UpdateQuery)
    query.add_update_values(values)
    sql, params = query.get_compiler(queryset.db).as_sql()
    deferred.add(_Write(queryset.model._meta.db_table, sql, tuple(params)))


# --------------------------------------------------------------------------- the commit

# A locked seat and the name of a field the transaction set on it in memory (written
# by ``commit`` in the statement that gives the seat its new revision).
SeatField = tuple[Seat, str]

# The changes committed while serving one request (the action's answer is made from them).
_collector: contextvars.ContextVar[list[Change] | None] = contextvars.ContextVar(
    "refit_changes_collector", default=None
)


# The kind (first parameter), with the revision it renews, before the seat's earlier
# renewals, cut to the field's length: one statement, whose right-hand sides read the
# row as it was.  Plain SQL that PostgreSQL and SQLite both read: the ORM's
# ``Concat``/``Cast``/``Left`` of the same, compiled at every commit, made the commit
# two and a half times as costly (bench/profiling.py --cpu).
_RENEWED_BY = (
    'SUBSTR(CAST(%s AS TEXT) || CAST("revision" AS TEXT) || CAST(%s AS TEXT) || "renewed_by", '
    f"1, {RENEWALS_LENGTH})"
)


@contextmanager
def collecting() -> Iterator[list[Change]]:
    """Collect the changes the services of one request commit."""
    changes: list[Change] = []
    token = _collector.set(changes)
    try:
        yield changes
    finally:
        _collector.reset(token)


def commit(campaign_id: UUID | str, change: Change, *, saving: Iterable[SeatField] = ()) -> None:
    """The turn's commit: ``change`` is what the service did.  The seats that may see it
    (``Change.audience``: every seat, or the one side whose secret it is) take a new
    revision in this transaction (whatever they read at the old one is not what they
    see now), in the statement that also saves ``saving``, the fields the transaction
    set on its locked seats (points, waiting since, chits used...); once the
    transaction commits the change is pushed (``push.changed``: transport only).
    Called inside the service's transaction, which already holds every seat's row
    locked.  A seat whose stored state changes takes a new revision, so a field saved
    must be one of a seat the change concerns.  Each seat renewed records the change's
    kind with the revision it renews (``Seat.renewed_by``): what a page memoised at an
    earlier revision must re-draw (``campaign.live_pages``)."""
    secret_of = change.audience
    seats = Seat.objects.filter(campaign_id=campaign_id)
    if secret_of is not None:
        seats = seats.filter(side=secret_of)
    revision = uuid4()
    values: dict[str, Any] = {
        "revision": revision,
        "renewed_by": RawSQL(_RENEWED_BY, (change.kind + RENEWAL_AT, RENEWAL_END), CharField()),
    }
    written: dict[str, dict[int, Any]] = {}
    for seat, name in saving:
        if secret_of is not None and seat.side != secret_of:
            raise ValueError(f"the {seat.side} seat is written by a change secret to {secret_of}")
        written.setdefault(name, {})[seat.pk] = getattr(seat, name)
    for name, by_seat in written.items():
        if secret_of is not None:  # one seat: its value as it is
            values[name] = next(iter(by_seat.values()))
        else:
            model_field = Seat._meta.get_field(name)
            assert isinstance(model_field, Field)
            values[name] = Case(
                *(
                    When(pk=pk, then=Value(v, output_field=model_field))
                    for pk, v in by_seat.items()
                ),
                default=F(name),
            )
    update(seats, **values)
    change = replace(change, revision=revision)
    collected = _collector.get()
    if collected is not None:
        collected.append(change)
    push.changed(campaign_id, (change,), secret_of=secret_of)


__all__ = [
    "Deferred",
    "SeatField",
    "collecting",
    "commit",
    "deferring",
    "insert",
    "update",
]
