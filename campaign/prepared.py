"""Reads compiled once per process and run with new parameters.

Django compiles a queryset to SQL on every evaluation.  For the reads that every page,
htmx answer, push and action makes (the seats with their campaign, the pass's done
marks, the log, the purchases the seat may see), compiling costs more than the
database's answer: the seat read, with its joins and two EXISTS clauses, took 3.7-5.1
ms of which 2.2 ms was ``as_sql`` and 0.5 ms building the queryset, against 1.0 ms
for the round trip (PostgreSQL on loopback).

A ``PreparedRead`` builds its queryset once, with ``Param`` placeholders where a call
gives values, compiles it once per database alias, and then binds each call's values
(prepared for the database by the placeholder's field, as the ORM would) into the
stored SQL.  The rows are built by the ORM's own iterable (model instances with their
``select_related`` objects and annotations, or ``values_list`` tuples), so a call
returns what the same queryset would.  A call returns a list, never a queryset: a
compiled read cannot be refined further (a ``.first()`` or a slice would be silently
ignored), so the shape is fixed where it is declared.

Only the SQL and the compiler's description of the columns are shared between
threads; every call gets its own copy of the compiler, bound to the calling thread's
connection.  ``tests/test_prepared.py`` runs each read against the same queryset
evaluated by the ORM on both backends.
"""

from __future__ import annotations

import copy
import threading
import weakref
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import CharField, Expression, Field, QuerySet, UUIDField
from django.db.models.sql.compiler import SQLCompiler
from django.db.transaction import TransactionManagementError

_T = TypeVar("_T")


class Param(Expression):
    """A value given per call of a ``PreparedRead``, prepared for the database by
    ``output_field`` (``UUIDField()``, ``DateTimeField()``...).  Usable wherever the
    ORM takes an expression (``filter(campaign_id=Param("campaign", UUIDField()))``)
    and as a parameter of ``RawSQL``."""

    def __init__(self, name: str, output_field: Field[Any, Any]) -> None:
        super().__init__(output_field=output_field)
        self.name = name

    def as_sql(self, compiler: Any, connection: Any) -> tuple[str, list[Any]]:
        return "%s", [self]

    def __repr__(self) -> str:
        return f"Param({self.name!r})"


# The two values nearly every read takes: the campaign, and the seat's side (what
# the visibility gate's querysets take).
CAMPAIGN = Param("campaign", UUIDField())
SIDE = Param("side", CharField())


class _Compiled:
    """One read's SQL for one database alias and the compiler that described it."""

    def __init__(self, queryset: QuerySet[Any], alias: str) -> None:
        self.queryset = queryset.using(alias)
        self.compiler: SQLCompiler = self.queryset.query.get_compiler(using=alias)
        sql, params = self.compiler.as_sql()
        # Each call binds its own thread's connection; the compiling thread's is not
        # kept (a cached reference would keep a finished thread's connection open).
        self.compiler.connection = None
        self.sql: str = sql
        self.params: tuple[Any, ...] = tuple(params)
        self.names = frozenset(p.name for p in self.params if isinstance(p, Param))
        self.locks = self.queryset.query.select_for_update
        # What turns the columns' values into Python's (a JSON field's ``from_db_value``,
        # a backend's datetime parser...), described once per connection: the ORM asks
        # every field again at every evaluation.  Per connection, as the backend's
        # converters may be its methods (each thread has its own).
        self._converters: weakref.WeakKeyDictionary[Any, tuple[list[Any], dict[int, Any]]] = (
            weakref.WeakKeyDictionary()
        )

    def shallow(self) -> QuerySet[Any]:
        """A copy of the read's queryset and query to evaluate once, sharing their
        parts: nothing of it is changed but the query's ``get_compiler`` and the
        queryset's result cache (the ORM's ``_chain`` clones the whole WHERE tree)."""
        queryset = object.__new__(type(self.queryset))
        queryset.__dict__.update(self.queryset.__dict__)
        query = object.__new__(type(self.queryset.query))
        query.__dict__.update(self.queryset.query.__dict__)
        queryset._query = query  # type: ignore[attr-defined]
        queryset._result_cache = None
        return queryset

    def converters(self, compiler: SQLCompiler, expressions: list[Any]) -> dict[int, Any]:
        """``compiler.get_converters(expressions)``, described once per connection for
        the read's own columns (its ``select``)."""
        found = self._converters.get(compiler.connection)
        if (
            found is not None
            and len(found[0]) == len(expressions)
            and all(a is b for a, b in zip(found[0], expressions, strict=True))
        ):
            return found[1]
        described = SQLCompiler.get_converters(compiler, expressions)
        self._converters[compiler.connection] = (list(expressions), described)
        return described


class PreparedRead(Generic[_T]):
    """A read whose shape is fixed (``build`` returns the queryset, with ``Param``
    placeholders), compiled on first use and run with each call's values.

    ``compile_once`` off builds and compiles the queryset at every call, as the ORM
    does: the benchmark (``bench/profiling.py --paired``) alternates both in one
    process to measure what compiling once saves."""

    compile_once = True

    def __init__(self, build: Callable[[], QuerySet[Any, _T]]) -> None:
        self._build = build
        self._compiled: dict[str, _Compiled] = {}
        self._lock = threading.Lock()

    def compiled(self, alias: str) -> _Compiled:
        found = self._compiled.get(alias)
        if found is None:
            with self._lock:
                found = self._compiled.get(alias)
                if found is None:
                    found = self._compiled[alias] = _Compiled(self._build(), alias)
        return found

    def __call__(self, **values: Any) -> list[_T]:
        using = DEFAULT_DB_ALIAS  # Refit has one database
        compiled = (
            self.compiled(using) if PreparedRead.compile_once else _Compiled(self._build(), using)
        )
        if values.keys() != compiled.names:
            raise TypeError(f"this read takes {sorted(compiled.names)}, was given {sorted(values)}")
        connection = connections[using]
        if (
            compiled.locks
            and connection.features.has_select_for_update
            and connection.get_autocommit()
        ):
            # As the ORM refuses it when it compiles: a lock outside a transaction
            # would be released at once.
            raise TransactionManagementError(
                "select_for_update cannot be used outside of a transaction."
            )
        params = tuple(
            p.output_field.get_db_prep_value(values[p.name], connection, prepared=False)
            if isinstance(p, Param)
            else p
            for p in compiled.params
        )
        compiler = copy.copy(compiled.compiler)
        compiler.connection = connection  # this thread's
        compiler.as_sql = lambda *args, **kwargs: (compiled.sql, params)  # type: ignore[method-assign]
        if PreparedRead.compile_once:
            compiler.get_converters = lambda expressions: compiled.converters(  # type: ignore[method-assign]
                compiler, expressions
            )
        queryset = compiled.shallow()
        # The copy is evaluated here and never handed out, so nothing can refine it.
        queryset.query.get_compiler = lambda *args, **kwargs: compiler  # type: ignore[method-assign]
        return list(queryset)
