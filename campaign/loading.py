"""Model instances built from a read's row in one step.

Django builds each instance a read returns by calling the model's ``__init__`` with
the row's values: a signal sent before and after, then one ``setattr`` per field
through the class's descriptors.  A page after a change reads some hundred instances
(the purchases the seat may see, its units, the seats, the log), and building them
was about a sixth of the campaign page's CPU (``bench/profiling.py --cpu``: 3,920
``Model.__init__`` and 85,000 ``setattr`` for 40 pages).

``LoadedAtOnce.from_db`` (Django's documented hook for how a model is loaded) gives
the instance the same state in one update of its ``__dict__``, in the same order as
``__init__`` would: ``_state`` (not adding, the database read from), then each
concrete field's attribute.  It is what ``__init__`` does for a full row with no
signal receivers: no field of a full row is deferred, and the only data descriptors
on a field's attribute (a foreign key's ``*_id``) only drop a cached related object,
which a new instance has none of (looking for one makes the state's empty cache, made
here too: an instance pickles as Django's does).  A partial row (``only``/``defer``) or a model
some code listens to ``pre_init``/``post_init`` for is built by Django as before.
``tests/test_loading.py`` holds the instances to Django's.
"""

from __future__ import annotations

from typing import Any

from django.db.models.base import ModelState
from django.db.models.signals import post_init, pre_init

# Each model's concrete fields' attribute names, in the order of a read's columns, and
# the positions of its foreign keys among them.
_ATTNAMES: dict[type[Any], tuple[tuple[str, ...], tuple[int, ...]]] = {}


def _attnames(model: Any) -> tuple[tuple[str, ...], tuple[int, ...]]:
    fields = model._meta.concrete_fields
    return (
        tuple(f.attname for f in fields),
        tuple(i for i, f in enumerate(fields) if f.is_relation),
    )


class LoadedAtOnce:
    """Mixed into a model (before ``models.Model``): its rows are built in one step."""

    @classmethod
    def from_db(cls, db: str | None, field_names: Any, values: Any) -> Any:
        found = _ATTNAMES.get(cls)
        if found is None:
            found = _ATTNAMES[cls] = _attnames(cls)
        names, keys = found
        if len(values) != len(names) or pre_init.has_listeners(cls) or post_init.has_listeners(cls):
            return super().from_db(db, field_names, values)  # type: ignore[misc]
        new = cls.__new__(cls)
        state = ModelState()
        if any(values[i] is not None for i in keys):
            # ``__init__`` sets a foreign key's id through its descriptor, which looks
            # for a cached related object first: the state's cache is made then.
            state.__dict__["fields_cache"] = {}
        state.adding = False
        state.db = db
        attributes = new.__dict__
        attributes["_state"] = state
        attributes.update(zip(names, values, strict=True))
        return new
