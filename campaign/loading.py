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
here too: an instance pickles as Django's does).  A partial row (``only``/``defer``) is
built the same way with the fields read, in the order of the model's fields (as
Django reads them), the others left deferred as ``__init__`` leaves them (read on
access).  A model some code listens to ``pre_init``/``post_init`` for is built by
Django as before.  ``tests/test_loading.py`` holds the instances to Django's.
"""

from __future__ import annotations

from typing import Any

from django.db.models.base import ModelState
from django.db.models.signals import post_init, pre_init

# Each model's fields' attribute names as a read gives them (all of them, or the named
# ones, in the order of the model's concrete fields), and the positions of its foreign
# keys among them; None for a read Django's own ``from_db`` must build.
_ATTNAMES: dict[tuple[type[Any], Any], tuple[tuple[str, ...], tuple[int, ...]] | None] = {}


def _attnames(model: Any, field_names: Any) -> tuple[tuple[str, ...], tuple[int, ...]] | None:
    fields = model._meta.concrete_fields
    if field_names is not None:
        wanted = set(field_names)
        fields = [f for f in fields if f.attname in wanted]
        if len(fields) != len(wanted):
            return None  # a name that is not a concrete field's: Django's way
    return (
        tuple(f.attname for f in fields),
        tuple(i for i, f in enumerate(fields) if f.is_relation),
    )


class LoadedAtOnce:
    """Mixed into a model (before ``models.Model``): its rows are built in one step."""

    @classmethod
    def from_db(cls, db: str | None, field_names: Any, values: Any) -> Any:
        full = len(values) == len(cls._meta.concrete_fields)  # type: ignore[attr-defined]
        key = (cls, None if full else tuple(field_names or ()))
        try:
            found = _ATTNAMES[key]
        except KeyError:
            found = _ATTNAMES[key] = _attnames(cls, None if full else key[1])
        if (
            found is None
            or len(values) != len(found[0])
            # No receiver anywhere (a list's truth) says none for this model at once.
            or ((pre_init.receivers or post_init.receivers) and _listened(cls))
        ):
            return super().from_db(db, field_names, values)  # type: ignore[misc]
        names, keys = found
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


def _listened(model: Any) -> bool:
    return pre_init.has_listeners(model) or post_init.has_listeners(model)
