"""Walked campaign states, kept per test process: a walk's prefix made once, copied after.

Many tests walk the same module to the same step with the same choices (Sicily's
July 15 AM to 3.614, PHD's 0930 to C5.35, ...); each walk is tens of service calls, a
few hundred statements.  ``tests.walk`` asks this cache before it walks: the state a
walk starts from is read as rows and reduced to a fingerprint (primary keys as
ordinals, the players as their seat order (their usernames, where the hosting and
joining events quote them, as the seat order too: a walk by other players from the
same state is the same walk), the rows' random references (a unit's, a purchase's, a
supplement's: ``references``) as ordinals too, timestamps, the dice seed and the
invitation token left out); where the same walk was made from the same fingerprint
earlier in the process, the campaign's rows are replaced by the rows that walk left
(the campaign's id and the players' user ids its own, the references it started with
its own, the rows' keys new, in the same order, and timestamps moved by the time
since), and nothing is walked.  The walk a
test makes itself (its own choices, what it added) has a fingerprint of its own and is
walked through the services, and so is the part under test.

Where the copy could differ from a walk, the cache stands aside and the walk is made:
 * outside a test transaction that rolls back (``db``): a committing test's walk sends
   pushes and e-mails once it commits, which a copy would not;
 * a test capturing on-commit callbacks (``django_capture_on_commit_callbacks``);
 * a test that patched anything but the dice with an empty queue (``fixed_dice`` with
   nothing queued rolls the campaign's own dice, as an unpatched run does), or than
   what it declares ``neutral`` while it builds the state it starts from;
 * a row that names a user who is not one of the walk's players, or a live socket.
On PostgreSQL a snapshot is read in one statement and a copy written in two
(``_read_at_once``, ``_restore_at_once``): the statements per model were most of a
copy's cost.  The REFIT_* settings are part of the fingerprint.  ``tests/test_walk_cache.py`` proves
a copied state equal to a freshly walked one, row for row.  REFIT_WALK_CACHE=0 turns
the cache off.

The dice: a walk that rolls rolled with its campaign's seed; the copy carries that seed
and those rolls (a campaign's seed is random: any seed's walk is as good a walk).
"""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import json
import os
import pickle
import re
import secrets
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.apps import apps
from django.conf import settings
from django.db import connection, models
from django.utils import timezone

ENABLED = os.environ.get("REFIT_WALK_CACHE", "1") != "0"


@dataclass
class Gate:
    """Set per test by ``tests/conftest.py``: whether this test's walks may be copied."""

    open: bool = False
    patches: list[Any] = field(default_factory=list)  # the test's MonkeyPatch objects
    neutral: list[tuple[Any, str]] = field(default_factory=list)  # see ``neutral``
    # The seeds the test's campaigns get (``dice_of_the_test`` in tests/conftest.py):
    # while ``rules.dice.new_seed`` is this, a walk's seed derives from where it starts
    # (``seeded``).
    seed_of_test: Any = None


GATE = Gate()
# Walks copied (``hits``: from this process's or, ``shared``, another's), walked on
# from a shorter one (``prefixes``), made (``misses``) and made without the cache;
# the steps the walks made and walked on finished (``steps``) and those their
# prefixes spared (``steps_spared``); the CPU-seconds spent in ``walked``.
STATS: dict[str, float] = dict.fromkeys(
    ("hits", "prefixes", "misses", "bypassed", "shared", "steps", "steps_spared", "cpu_s"), 0
)


def _dice_patch_is_inert(value: object) -> bool:
    """A patched ``rules.dice.faces`` whose queue of fixed faces is empty rolls the
    campaign's own dice (``fixed_dice`` in the rules suites)."""
    cells = getattr(value, "__closure__", None) or ()
    lists = [c.cell_contents for c in cells if isinstance(c.cell_contents, list)]
    return bool(lists) and all(not queue for queue in lists)


@contextlib.contextmanager
def neutral(*patched: tuple[Any, str]):
    """While a test builds the state it starts from, its patches of these (object,
    attribute) pairs do not keep its walks from being copied: patches whose effect a
    copy keeps, or that the test does not need kept.  A clock frozen at one instant (a
    copy moves the walk's timestamps by the time since it was made: none); the same
    dice seed for every campaign (a walk draws none; a copy carries the seed of the
    walk it copies, which any test that states it starts from whatever state it built
    accepts, as a test of several worlds built from one such state does); the same
    campaign id (a campaign is made before its walks, and keeps its id in a copy)."""
    GATE.neutral[:] = patched
    try:
        yield
    finally:
        GATE.neutral[:] = []


def _seeds_of_test() -> bool:
    """Whether the test's campaigns are seeded from its id (``dice_of_the_test``)."""
    import rules.dice

    return GATE.seed_of_test is not None and rules.dice.new_seed is GATE.seed_of_test


def _patches_allow() -> bool:
    import rules.dice

    for patch in GATE.patches:
        for obj, name, _old in getattr(patch, "_setattr", ()):
            if obj is rules.dice and name == "faces" and _dice_patch_is_inert(rules.dice.faces):
                continue
            if obj is rules.dice and name == "new_seed" and _seeds_of_test():
                continue  # see ``seeded``
            if any(obj is o and name == n for o, n in GATE.neutral):
                continue
            return False
        if getattr(patch, "_setitem", ()) or getattr(patch, "_savesyspath", None):
            return False
    return True


def usable() -> bool:
    if not (ENABLED and GATE.open and _patches_allow()):
        return False
    return connection.in_atomic_block


# ----------------------------------------------------------------------- the rows


def _scoped_models() -> list[type[models.Model]]:
    """The models whose rows belong to one campaign (a ``campaign`` foreign key), each
    after the campaign-scoped models it points to."""
    campaign_model = apps.get_model("campaign", "Campaign")
    scoped = [
        m
        for m in apps.get_app_config("campaign").get_models()
        if any(
            f.is_relation and f.many_to_one and f.related_model is campaign_model
            for f in m._meta.concrete_fields
        )
    ]
    ordered: list[type[models.Model]] = []
    while len(ordered) < len(scoped):
        for m in scoped:
            if m in ordered:
                continue
            needs = {
                f.related_model
                for f in m._meta.concrete_fields
                if f.is_relation and f.related_model in scoped and f.related_model is not m
            }
            if needs <= set(ordered):
                ordered.append(m)
    return ordered


_MODELS: list[type[models.Model]] = []


def scoped_models() -> list[type[models.Model]]:
    if not _MODELS:
        _MODELS.extend(_scoped_models())
    return _MODELS


def _user_model() -> type[models.Model]:
    from django.contrib.auth import get_user_model

    return get_user_model()


@dataclass
class Snapshot:
    """A campaign's rows: the campaign, each scoped model's rows (by primary key), the
    players' notification settings; ``users`` the players' ids in seat order."""

    campaign: dict[str, Any]
    rows: dict[str, list[dict[str, Any]]]
    settings_rows: list[dict[str, Any]]
    users: list[int]
    taken_at: datetime.datetime
    usernames: list[str] = field(default_factory=list)  # the players', as ``users``


class Uncacheable(Exception):
    pass


# A walk never changes a campaign's module data; its checksum stands for it.  A seat's
# renewals name the walk's own revisions (random, not game data): a copy starts with
# none, as an imported campaign does.
_UNREAD = {("campaign.Campaign", "module_data"), ("campaign.Seat", "renewed_by")}


def _values(model: type[models.Model], qs: models.QuerySet) -> list[dict[str, Any]]:
    label = model._meta.label
    names = [f.attname for f in model._meta.concrete_fields if (label, f.name) not in _UNREAD]
    return list(qs.order_by("pk").values(*names))


def _counts(campaign_id: Any, user_ids: list[Any]) -> tuple[dict[str, int], int, int]:
    """In one statement: how many rows each scoped model has for the campaign, its
    seats' live sockets, the players' notification settings.  A snapshot then reads
    only the models that have rows (most of a campaign's 19 have none at a given step:
    a statement each was a third of a walk's cost, PostgreSQL's round trips)."""
    quote = connection.ops.quote_name
    campaign_model = apps.get_model("campaign", "Campaign")
    key = campaign_model._meta.pk.get_db_prep_value(campaign_id, connection)
    parts, params = [], []
    for m in scoped_models():
        column = m._meta.get_field("campaign").column
        parts.append(f"(SELECT COUNT(*) FROM {quote(m._meta.db_table)} WHERE {quote(column)} = %s)")
        params.append(key)
    seat, presence = apps.get_model("campaign", "Seat"), apps.get_model("campaign", "Presence")
    parts.append(
        f"(SELECT COUNT(*) FROM {quote(presence._meta.db_table)} WHERE "
        f"{quote(presence._meta.get_field('seat').column)} IN (SELECT "
        f"{quote(seat._meta.pk.column)} FROM {quote(seat._meta.db_table)} WHERE "
        f"{quote(seat._meta.get_field('campaign').column)} = %s))"
    )
    params.append(key)
    notif = apps.get_model("campaign", "NotificationSettings")
    marks = ", ".join(["%s"] * len(user_ids)) or "NULL"
    parts.append(
        f"(SELECT COUNT(*) FROM {quote(notif._meta.db_table)} WHERE "
        f"{quote(notif._meta.get_field('user').column)} IN ({marks}))"
    )
    params += user_ids
    with connection.cursor() as cursor:
        cursor.execute("SELECT " + ", ".join(parts), params)
        *counts, sockets, settings_count = cursor.fetchone()
    labels = [m._meta.label for m in scoped_models()]
    return dict(zip(labels, counts, strict=True)), sockets, settings_count


def snapshot(campaign_id: Any, users: Sequence[Any]) -> Snapshot:
    user_ids = [u.pk for u in users]
    read = _read_at_once if connection.vendor == "postgresql" else _read_rows
    campaign, rows, settings_rows = read(campaign_id, user_ids)
    names = [u.get_username() for u in users]
    return Snapshot(campaign, rows, settings_rows, user_ids, timezone.now(), names)


def _read_rows(
    campaign_id: Any, user_ids: list[Any]
) -> tuple[dict[str, Any], dict[str, list[dict[str, Any]]], list[dict[str, Any]]]:
    """The campaign's row, its scoped models' rows and the players' notification
    settings, through the ORM: a statement for the counts, then one per model with rows."""
    campaign_model = apps.get_model("campaign", "Campaign")
    counts, sockets, settings_count = _counts(campaign_id, user_ids)
    if sockets:
        raise Uncacheable("a live socket")
    (campaign,) = _values(campaign_model, campaign_model._base_manager.filter(pk=campaign_id))
    rows = {
        m._meta.label: (
            _values(m, m._base_manager.filter(campaign_id=campaign_id))
            if counts[m._meta.label]
            else []
        )
        for m in scoped_models()
    }
    notif = apps.get_model("campaign", "NotificationSettings")
    settings_rows = (
        _values(notif, notif._base_manager.filter(user_id__in=user_ids)) if settings_count else []
    )
    return campaign, rows, settings_rows


def _read_columns(model: type[models.Model]) -> list[models.Field]:
    label = model._meta.label
    return [f for f in model._meta.concrete_fields if (label, f.name) not in _UNREAD]


def _as_json(model: type[models.Model], where: str) -> str:
    """A subquery: ``model``'s rows ``where`` holds, as a JSON array of objects keyed by
    attname, in key order (NULL where there are none).  ``json_build_object`` takes
    at most 100 arguments: 50 columns (the widest of these models has 28)."""
    quote = connection.ops.quote_name
    pairs = ", ".join(f"'{f.attname}', t.{quote(f.column)}" for f in _read_columns(model))
    return (
        f"(SELECT json_agg(json_build_object({pairs}) ORDER BY t.{quote(model._meta.pk.column)})"
        f"::text FROM {quote(model._meta.db_table)} t WHERE {where})"
    )


def _from_json(model: type[models.Model], rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """JSON's rows as the ORM's ``values()`` gives them: timestamps and UUIDs parsed (the
    other types these models use, numbers, booleans, text and JSON, are JSON's own)."""
    parse: list[tuple[str, Callable[[str], Any]]] = []
    for f in _read_columns(model):
        target = f.target_field if f.is_relation else f
        if isinstance(target, models.DateTimeField):
            parse.append((f.attname, datetime.datetime.fromisoformat))
        elif isinstance(target, models.UUIDField):
            parse.append((f.attname, uuid.UUID))
    for row in rows:
        for name, to_python in parse:
            if row[name] is not None:
                row[name] = to_python(row[name])
    return rows


_AT_ONCE: list[str] = []  # the statement, made once per process


def _read_at_once(
    campaign_id: Any, user_ids: list[Any]
) -> tuple[dict[str, Any], dict[str, list[dict[str, Any]]], list[dict[str, Any]]]:
    """As ``_read_rows``, in one statement (PostgreSQL: each model's rows as one JSON array):
    a snapshot's round trips were most of its cost, a statement per model with rows."""
    quote = connection.ops.quote_name
    campaign_model = apps.get_model("campaign", "Campaign")
    seat, presence = apps.get_model("campaign", "Seat"), apps.get_model("campaign", "Presence")
    notif = apps.get_model("campaign", "NotificationSettings")
    if not _AT_ONCE:
        pk = quote(campaign_model._meta.pk.column)
        parts = [f"SELECT 'campaign', {_as_json(campaign_model, f't.{pk} = %(c)s')}"]
        for m in scoped_models():
            column = quote(m._meta.get_field("campaign").column)
            parts.append(f"SELECT '{m._meta.label}', {_as_json(m, f't.{column} = %(c)s')}")
        parts.append(
            f"SELECT 'sockets', (SELECT COUNT(*)::text FROM {quote(presence._meta.db_table)} "
            f"WHERE {quote(presence._meta.get_field('seat').column)} IN (SELECT "
            f"{quote(seat._meta.pk.column)} FROM {quote(seat._meta.db_table)} WHERE "
            f"{quote(seat._meta.get_field('campaign').column)} = %(c)s))"
        )
        user = quote(notif._meta.get_field("user").column)
        parts.append(f"SELECT 'settings', {_as_json(notif, f't.{user} = ANY(%(u)s)')}")
        _AT_ONCE.append(" UNION ALL ".join(parts))
    key = campaign_model._meta.pk.get_db_prep_value(campaign_id, connection)
    with connection.cursor() as cursor:
        cursor.execute(_AT_ONCE[0], {"c": key, "u": list(user_ids)})
        read = dict(cursor.fetchall())
    if read["sockets"] != "0":
        raise Uncacheable("a live socket")
    (campaign,) = _from_json(campaign_model, json.loads(read["campaign"]))
    rows = {
        m._meta.label: _from_json(m, json.loads(read[m._meta.label] or "[]"))
        for m in scoped_models()
    }
    return campaign, rows, _from_json(notif, json.loads(read["settings"] or "[]"))


# Where a row quotes a player's username: the hosting and joining events (and a notice
# quoting them), "alice hosts ...", "bob joins as ..." (campaign/services/hosting.py).
_QUOTED = ("hosts ", "joins as ")


def _quoting(usernames: Sequence[str]) -> re.Pattern[str]:
    """A username where a row quotes it: the whole name (not the end of a longer word)
    before one of ``_QUOTED``."""
    if not usernames:
        return re.compile(r"(?!)")  # nothing to find
    names = "|".join(re.escape(n) for n in sorted(usernames, key=len, reverse=True))
    after = "|".join(re.escape(q) for q in _QUOTED)
    return re.compile(rf"(?<!\S)({names}) (?={after})")


def _renamed(value: Any, pattern: re.Pattern[str], names: dict[str, str]) -> Any:
    """``value`` (a string, or JSON) with each username ``pattern`` finds replaced by
    ``names``'s value for it."""
    if isinstance(value, str):
        if " hosts " in value or " joins as " in value:
            return pattern.sub(lambda m: f"{names[m.group(1)]} ", value)
        return value
    if isinstance(value, dict):
        return {_renamed(k, pattern, names): _renamed(v, pattern, names) for k, v in value.items()}
    if isinstance(value, list):
        return [_renamed(v, pattern, names) for v in value]
    return value


_LEFT_OUT = {("campaign.Campaign", "dice_seed"), ("campaign.Campaign", "dice_seed_hash")}
_RANDOM = {("campaign.Invitation", "token")}
# The references a row is named by on the pages (``campaign.models.new_ref``: random,
# unique within the campaign): a purchase's, a unit's, a supplement's, a correction's,
# a start sheet's package.  No service orders or rolls by one, so two states whose rows
# differ only in them are the same state for a walk (``references``).
_REFS = ("ref", "package")


def references(snap: Snapshot) -> list[str]:
    """The campaign's random references (``_REFS``), each once, in the order of its
    first row (the models in ``scoped_models``' order, the rows by key): two states
    whose rows correspond in order name theirs in the same order."""
    found: dict[str, None] = {}
    for m in scoped_models():
        names = [f.attname for f in m._meta.concrete_fields if f.name in _REFS]
        if not names:
            continue
        for row in snap.rows[m._meta.label]:
            for name in names:
                if row.get(name):
                    found.setdefault(row[name], None)
    return list(found)


def fingerprint(snap: Snapshot, usernames: Sequence[str], *, seed: bool = False) -> str:
    """The snapshot with what differs between two equal walks left out: keys as
    ordinals, users as their index among the players, timestamps, the dice seed (unless
    ``seed``), the invitation token, the campaign's id, the rows' random references as
    ordinals (a supplement proposed before the walk, a unit added: ``restore`` names
    them as the campaign copied into names them)."""
    parts = normalized(snap, usernames, seed=seed, refs=True)
    parts.append(
        sorted((k, repr(getattr(settings, k))) for k in dir(settings) if k.startswith("REFIT_"))
    )
    return hashlib.sha256(repr(parts).encode()).hexdigest()


def normalized(
    snap: Snapshot, usernames: Sequence[str], *, seed: bool = False, refs: bool = False
) -> list[Any]:
    """The snapshot's rows as two equal walks leave them: keys as ordinals, users as
    their index among the players, each timestamp as whether it is set; without the
    campaign's id, the invitation token and (unless ``seed``) the dice seed; with
    ``refs``, the random references as ordinals too, wherever a row quotes them."""
    left_out = _RANDOM | (set() if seed else _LEFT_OUT)
    user_model = _user_model()
    campaign_model = apps.get_model("campaign", "Campaign")
    ordinals = {label: {r["id"]: i for i, r in enumerate(rs)} for label, rs in snap.rows.items()}

    uuids: dict[Any, int] = {}
    # The players by their seat order, not their usernames: walks by other players from
    # the same state are the same walk (``restore`` quotes the new players' names).
    quoting = _quoting(usernames)
    players = {name: f"<player {i}>" for i, name in enumerate(usernames)}
    texts = {str(snap.campaign["id"]): "<campaign>"}
    if not seed:
        for name in ("dice_seed", "dice_seed_hash"):
            texts[snap.campaign[name]] = f"<{name}>"
    if refs:
        texts.update((ref, f"<ref {i}>") for i, ref in enumerate(references(snap)))

    def norm(model: type[models.Model], row: dict[str, Any]) -> tuple:
        label = model._meta.label
        out = []
        for f in model._meta.concrete_fields:
            if f.primary_key or (label, f.name) in left_out | _UNREAD:
                continue
            value = row[f.attname]
            if isinstance(f, models.DateTimeField):
                value = value is not None
            elif isinstance(f, models.UUIDField) and value is not None:
                value = uuids.setdefault(value, len(uuids))
            elif isinstance(value, str | dict | list):
                value = _renamed(_replaced(value, texts), quoting, players)
            elif f.is_relation:
                target = f.related_model
                if target is campaign_model:
                    continue
                if target is user_model:
                    if value is not None and value not in snap.users:
                        raise Uncacheable(f"{label}.{f.name} names another user")
                    value = None if value is None else snap.users.index(value)
                elif target._meta.label in ordinals:
                    value = None if value is None else ordinals[target._meta.label][value]
            out.append((f.name, repr(value)))
        return tuple(out)

    parts: list[Any] = [len(usernames), norm(campaign_model, snap.campaign)]
    for m in scoped_models():
        parts.append((m._meta.label, [norm(m, r) for r in snap.rows[m._meta.label]]))
    notif = apps.get_model("campaign", "NotificationSettings")
    parts.append([norm(notif, r) for r in snap.settings_rows])
    return parts


def _keys(snap: Snapshot) -> dict[str, list[Any]]:
    """Each model's primary keys in the snapshot, in order."""
    notif = apps.get_model("campaign", "NotificationSettings")
    out = {label: [r["id"] for r in rows] for label, rows in snap.rows.items()}
    out[notif._meta.label] = [r["id"] for r in snap.settings_rows]
    return out


def restore(
    snap: Snapshot,
    campaign_id: Any,
    users: Sequence[Any],
    kept: dict[str, dict[Any, Any]] | None = None,
    texts: dict[str, str] | None = None,
    current: Snapshot | None = None,
) -> None:
    """Replace campaign ``campaign_id``'s rows (and the players' notification settings)
    by ``snap``'s, for the players ``users`` (seat order as in the snapshot).  A row
    ``kept`` names (model label: the snapshot's key -> the campaign's) keeps the
    campaign's key, as it kept it through the walk (a test's Purchase or Unit object
    still refreshes); the others get new keys, in the snapshot's order.  ``texts``: more
    strings replaced in the rows (a seed, ``_reseeded``).  ``current``: the campaign's
    snapshot taken just before, whose empty models need no DELETE."""
    user_model = _user_model()
    campaign_model = apps.get_model("campaign", "Campaign")
    notif = apps.get_model("campaign", "NotificationSettings")
    user_map = {old: new.pk for old, new in zip(snap.users, users, strict=True)}
    texts = {str(snap.campaign["id"]): str(campaign_id), **(texts or {})}
    # The walk's players' usernames, where its rows quote them, become these players'.
    names = {old: new.get_username() for old, new in zip(snap.usernames, users, strict=True)}
    quoting = _quoting(snap.usernames)
    uuids: dict[Any, uuid.UUID] = {}
    shift = timezone.now() - snap.taken_at
    using = connection.alias
    kept = kept or {}

    def mapped(
        model: type[models.Model], row: dict[str, Any], keys: dict[str, dict], own: bool = False
    ) -> dict:
        """``row``'s values for the campaign copied into; a reference to a row of the
        same model is left unset (set once the rows exist) unless ``own``: its keys
        are all known."""
        out = {}
        for f in model._meta.concrete_fields:
            if f.primary_key or f.attname not in row:
                continue
            value = row[f.attname]
            if f.is_relation:
                target = f.related_model
                if value is None:
                    pass
                elif target is campaign_model:
                    value = campaign_id
                elif target is user_model:
                    value = user_map[value]
                elif target is model:
                    value = keys[model._meta.label][value] if own else None
                elif target._meta.label in keys:
                    value = keys[target._meta.label][value]
            elif (model._meta.label, f.name) in _RANDOM:
                value = secrets.token_urlsafe(24)
            elif isinstance(f, models.DateTimeField) and value is not None:
                value = value + shift
            elif isinstance(f, models.UUIDField) and value is not None:
                value = uuids.setdefault(value, uuid.uuid4())
            elif isinstance(value, str | dict | list):
                value = _renamed(_replaced(value, texts), quoting, names)
            out[f.attname] = value
        return out

    if connection.vendor == "postgresql":
        _restore_at_once(snap, campaign_id, users, kept, current, mapped)
        return
    for m in reversed(scoped_models()):
        if current is None or current.rows[m._meta.label]:
            m._base_manager.filter(campaign_id=campaign_id)._raw_delete(using)
    if current is None or current.settings_rows:
        notif._base_manager.filter(user_id__in=[u.pk for u in users])._raw_delete(using)

    fields = mapped(campaign_model, snap.campaign, {})
    campaign_model._base_manager.filter(pk=campaign_id).update(**fields)

    keys: dict[str, dict] = {}
    for m in [*scoped_models(), notif]:
        label = m._meta.label
        source = snap.settings_rows if m is notif else snap.rows[label]
        same = kept.get(label, {})
        keys[label] = {r["id"]: same[r["id"]] for r in source if r["id"] in same}
        with_key = [r for r in source if r["id"] in same]
        if with_key:
            m._base_manager._insert(
                [m(pk=same[r["id"]], **mapped(m, r, keys)) for r in with_key],
                fields=list(m._meta.concrete_fields),
                raw=True,
                using=using,
            )
        new = [r for r in source if r["id"] not in same]
        if new:
            returned = m._base_manager._insert(
                [m(**mapped(m, r, keys)) for r in new],
                fields=[f for f in m._meta.concrete_fields if not f.primary_key],
                returning_fields=[m._meta.pk],
                raw=True,
                using=using,
            )
            keys[label].update((r["id"], got[0]) for r, got in zip(new, returned, strict=True))
        for f in m._meta.concrete_fields:
            if f.is_relation and f.related_model is m:
                for r in source:
                    if r[f.attname] is not None:
                        m._base_manager.filter(pk=keys[label][r["id"]]).update(
                            **{f.attname: keys[label][r[f.attname]]}
                        )


def _restore_at_once(
    snap: Snapshot,
    campaign_id: Any,
    users: Sequence[Any],
    kept: dict[str, dict[Any, Any]],
    current: Snapshot | None,
    mapped: Callable[..., dict[str, Any]],
) -> None:
    """``restore`` in two statements (PostgreSQL): the rows removed, the campaign's row
    updated and the new rows' keys drawn from their sequences (in the snapshot's order,
    as an INSERT ... RETURNING draws them); then every model's rows inserted, their keys
    and references to each other all known.  Each INSERT and DELETE is one part of a
    WITH (the foreign keys are DEFERRABLE INITIALLY DEFERRED: any order works); a
    statement per model, and an UPDATE per self reference, were most of a copy's cost."""
    from django.db.models import sql

    quote = connection.ops.quote_name
    using = connection.alias
    campaign_model = apps.get_model("campaign", "Campaign")
    notif = apps.get_model("campaign", "NotificationSettings")
    everything = [*scoped_models(), notif]
    source = {m: snap.settings_rows if m is notif else snap.rows[m._meta.label] for m in everything}
    keys: dict[str, dict[Any, Any]] = {}
    fresh: dict[type[models.Model], list[dict[str, Any]]] = {}
    for m in everything:
        same = kept.get(m._meta.label, {})
        keys[m._meta.label] = {r["id"]: same[r["id"]] for r in source[m] if r["id"] in same}
        fresh[m] = [r for r in source[m] if r["id"] not in same]

    parts: list[str] = []
    params: list[Any] = []
    key = campaign_model._meta.pk.get_db_prep_value(campaign_id, connection)
    for m in reversed(scoped_models()):
        if current is None or current.rows[m._meta.label]:
            column = quote(m._meta.get_field("campaign").column)
            parts.append(f"DELETE FROM {quote(m._meta.db_table)} WHERE {column} = %s")
            params.append(key)
    if current is None or current.settings_rows:
        user = quote(notif._meta.get_field("user").column)
        parts.append(f"DELETE FROM {quote(notif._meta.db_table)} WHERE {user} = ANY(%s)")
        params.append([u.pk for u in users])
    update = campaign_model._base_manager.filter(pk=campaign_id).query.chain(sql.UpdateQuery)
    update.add_update_values(mapped(campaign_model, snap.campaign, {}))
    update_sql, update_params = update.get_compiler(using).as_sql()
    parts.append(update_sql)
    params += update_params
    drawn = [m for m in everything if fresh[m]]
    selects = [
        f"SELECT '{m._meta.label}', ARRAY(SELECT nextval(pg_get_serial_sequence("
        f"'{m._meta.db_table}', '{m._meta.pk.column}')) FROM generate_series(1, {len(fresh[m])}))"
        for m in drawn
    ] or ["SELECT NULL, NULL"]
    with_ = ", ".join(f"w{n} AS ({part})" for n, part in enumerate(parts))
    with connection.cursor() as cursor:
        cursor.execute(f"WITH {with_} {' UNION ALL '.join(selects)}", params)
        got = dict(cursor.fetchall())
    for m in drawn:
        new_keys = got[m._meta.label]
        keys[m._meta.label].update(zip([r["id"] for r in fresh[m]], new_keys, strict=True))

    parts, params = [], []
    for m in everything:
        label = m._meta.label
        # The rows that keep their keys first, then the new ones, as ``restore`` inserts.
        ordered = [r for r in source[m] if r["id"] in kept.get(label, {})] + fresh[m]
        if not ordered:
            continue
        insert = sql.InsertQuery(m)
        insert.insert_values(
            list(m._meta.concrete_fields),
            [m(pk=keys[label][r["id"]], **mapped(m, r, keys, True)) for r in ordered],
            raw=True,
        )
        ((insert_sql, insert_params),) = insert.get_compiler(using=using).as_sql()
        parts.append(insert_sql)
        params += insert_params
    if parts:
        with_ = ", ".join(f"w{n} AS ({part})" for n, part in enumerate(parts))
        with connection.cursor() as cursor:
            cursor.execute(f"WITH {with_} SELECT 1", params)


def _replaced(value: Any, texts: dict[str, str]) -> Any:
    """``value`` (a string, or JSON) with each of ``texts``' keys replaced by its value."""
    if isinstance(value, str):
        for old, new in texts.items():
            if old and old in value:
                value = value.replace(old, new)
        return value
    if isinstance(value, dict):
        return {_replaced(k, texts): _replaced(v, texts) for k, v in value.items()}
    if isinstance(value, list):
        return [_replaced(v, texts) for v in value]
    return value


# ----------------------------------------------------------------------- the cache


def seeded(snap: Snapshot, campaign_id: Any, key: tuple[str, str]) -> None:
    """Under ``dice_of_the_test`` each campaign's seed derives from the test's id, so
    that a test rolls the same dice on every run.  A copy carries the seed of the walk
    it copies: were that the seed of whichever test made the walk first in the process,
    a test's dice after a copied walk would depend on the order the tests ran in.  So a
    walk from a campaign that has drawn no dice yet (its seed read by nothing so far)
    is made from a seed derived from where it starts and where it goes (``key``), the
    same in every test and every run, and its copies carry that seed; from a campaign
    that has drawn dice the seed is part of the fingerprint (``walked``).  The seed's
    published SHA-256, where a row quotes it (the hosting event), is replaced too."""
    campaign_model = apps.get_model("campaign", "Campaign")
    old_seed, old_hash = snap.campaign["dice_seed"], snap.campaign["dice_seed_hash"]
    new_seed = _walk_seed(key)
    new_hash = hashlib.sha256(new_seed.encode()).hexdigest()
    texts = {old_seed: new_seed, old_hash: new_hash}
    campaign_model._base_manager.filter(pk=campaign_id).update(
        dice_seed=new_seed, dice_seed_hash=new_hash
    )
    snap.campaign.update(dice_seed=new_seed, dice_seed_hash=new_hash)
    for m in scoped_models():
        quoting = [
            f
            for f in m._meta.concrete_fields
            if not f.is_relation
            and isinstance(f, models.CharField | models.TextField | models.JSONField)
        ]
        for row in snap.rows[m._meta.label]:
            changed = {}
            for f in quoting:
                value = row.get(f.attname)
                if isinstance(value, str | dict | list):
                    new = _replaced(value, texts)
                    if new != value:
                        changed[f.attname] = row[f.attname] = new
            if changed:
                m._base_manager.filter(pk=row["id"]).update(**changed)


@dataclass(frozen=True)
class Trail:
    """What a walk to a step passed (``tests/walk.py``, ``_until``): the index of each
    step it finished, in order, and whether every finish moved the campaign on."""

    finished: tuple[int, ...] = ()
    moved: bool = True

    def then(self, more: Trail) -> Trail:
        return Trail(self.finished + more.finished, self.moved and more.moved)


@dataclass(frozen=True)
class Until:
    """A walk that finishes steps until a step ``reached_at`` (a step's index) holds,
    within ``limit`` finishes (each moving the campaign on where ``must_move``);
    ``walk_from(limit)`` walks so from the campaign's current state and returns its
    trail.  A walk from the same state to a step it passes on the way is its prefix:
    the state that walk left, walked on (``walked``)."""

    reached_at: Callable[[int], bool]
    limit: int
    must_move: bool
    walk_from: Callable[[int], Trail]


@dataclass
class Entry:
    """The state a walk left, each model's keys before the walk, and its trail (for a
    walk to a step)."""

    after: Snapshot
    keys_before: dict[str, list[Any]]
    trail: Trail | None = None
    # The random references of the state the walk started from (``references``): a
    # copy names them as the campaign copied into names its own.
    refs_before: tuple[str, ...] = ()


# (goal, fingerprint) -> the walk made from that state to that goal
_WALKS: dict[tuple[str, str], Entry] = {}

# The directory the test processes of one run share their walks in (REFIT_WALK_SHARE),
# if any: a walk made by one is written there, a file per walk
# (``<fingerprint>/<goal's hash>``, written whole then renamed into place), and the
# others copy it as if they had made it.  The run's first process (xdist's controller)
# makes the directory before its test processes start and removes it at the end
# (``tests/conftest.py``): nothing outlives the run, so no walk made by other code (or
# on the other backend) is ever read.
SHARED: list[Path] = (
    [Path(os.environ["REFIT_WALK_SHARE"])] if os.environ.get("REFIT_WALK_SHARE") else []
)


def _file(key: tuple[str, str]) -> Path:
    return SHARED[0] / key[1] / hashlib.sha256(key[0].encode()).hexdigest()


def _write(key: tuple[str, str], entry: Entry) -> None:
    if not SHARED:
        return
    path = _file(key)
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        part = path.with_name(f"{path.name}.{os.getpid()}.part")
        part.write_bytes(pickle.dumps((key, entry), protocol=pickle.HIGHEST_PROTOCOL))
        part.replace(path)


def _read(path: Path) -> tuple[tuple[str, str], Entry] | None:
    try:
        key, entry = pickle.loads(path.read_bytes())
    except (OSError, EOFError, pickle.UnpicklingError):
        return None
    STATS["shared"] += 1
    return key, entry


def _found(key: tuple[str, str]) -> Entry | None:
    """The walk made from this state to this goal, by this process or another of the run."""
    entry = _WALKS.get(key)
    if entry is None and SHARED and _file(key).is_file():
        read = _read(_file(key))
        if read is not None:
            entry = _WALKS[key] = read[1]
    return entry


def _from(start: str) -> list[tuple[str, Entry]]:
    """Every walk made from the state fingerprinted ``start`` (its goal, the walk)."""
    if SHARED and (SHARED[0] / start).is_dir():
        with contextlib.suppress(OSError):
            for path in (SHARED[0] / start).iterdir():
                if path.suffix == ".part" or "." in path.name:
                    continue
                known = [g for g, fp in _WALKS if fp == start]
                if any(hashlib.sha256(g.encode()).hexdigest() == path.name for g in known):
                    continue
                read = _read(path)
                if read is not None:
                    _WALKS[read[0]] = read[1]
    return [(goal, entry) for (goal, fp), entry in _WALKS.items() if fp == start]


def _prefix(key: tuple[str, str], until: Until, drawn: bool) -> Entry | None:
    """The longest walk made from the same state whose every finished step is short of
    ``until``'s goal: the walk to the goal passes through the state it left.  Its dice
    must be the walk's: from a campaign that had drawn dice (the seed in the
    fingerprint), any; else one that drew none (its seed is then replaced by the one
    this walk is made from, ``seeded``)."""
    best: Entry | None = None
    for goal, entry in _from(key[1]):
        trail = entry.trail
        if goal == key[0] or trail is None or not 0 < len(trail.finished) < until.limit:
            continue
        if until.must_move and not trail.moved:
            continue
        if not drawn and entry.after.campaign["rolls_made"]:
            continue
        if any(until.reached_at(index) for index in trail.finished):
            continue
        if best is None or len(trail.finished) > len(best.trail.finished):  # type: ignore[union-attr]
            best = entry
    return best


def walked(
    goal: str,
    campaign_id: Any,
    users: Sequence[Any],
    walk: Callable[[], Trail | None],
    until: Until | None = None,
) -> None:
    """Make ``walk`` (which moves campaign ``campaign_id`` to ``goal``), or copy the
    state the same walk from the same state left earlier in this run; a walk to a step
    (``until``) goes on from the state a walk from the same state to an earlier step
    left."""
    started = time.process_time()
    try:
        _walked(goal, campaign_id, users, walk, until)
    finally:
        STATS["cpu_s"] += time.process_time() - started


def _walked(
    goal: str,
    campaign_id: Any,
    users: Sequence[Any],
    walk: Callable[[], Trail | None],
    until: Until | None,
) -> None:
    if not usable():
        STATS["bypassed"] += 1
        walk()
        return
    usernames = [u.get_username() for u in users]
    try:
        before = snapshot(campaign_id, users)
        # Dice drawn from the test's own seed: the walk goes on from that seed (``seeded``).
        drawn = _seeds_of_test() and bool(before.campaign["rolls_made"])
        key = (goal, fingerprint(before, usernames, seed=drawn))
    except Uncacheable:
        STATS["bypassed"] += 1
        walk()
        return
    found = _found(key)
    if found is not None:
        STATS["hits"] += 1
        texts = _renamed_refs(found, before)
        restore(found.after, campaign_id, users, _kept(found, before), texts, before)
        return
    shorter = _prefix(key, until, drawn) if until is not None else None
    if shorter is not None and until is not None and shorter.trail is not None:
        STATS["prefixes"] += 1
        texts = _renamed_refs(shorter, before)
        if _seeds_of_test() and not drawn:
            texts.update(_reseeded(shorter.after, key))
        restore(shorter.after, campaign_id, users, _kept(shorter, before), texts, before)
        spared = len(shorter.trail.finished)
        more = until.walk_from(until.limit - spared)
        STATS["steps_spared"] += spared
        STATS["steps"] += len(more.finished)
        trail: Trail | None = shorter.trail.then(more)
    else:
        STATS["misses"] += 1
        if _seeds_of_test() and not drawn:
            seeded(before, campaign_id, key)
        trail = walk()
        STATS["steps"] += len(trail.finished) if trail else 0
    with contextlib.suppress(Uncacheable):
        entry = _WALKS[key] = Entry(
            snapshot(campaign_id, users), _keys(before), trail, tuple(references(before))
        )
        _write(key, entry)


def _kept(entry: Entry, before: Snapshot) -> dict[str, dict[Any, Any]]:
    """Equal fingerprints: the two states' rows correspond in order."""
    now = _keys(before)
    return {
        label: dict(zip(old, now[label], strict=True)) for label, old in entry.keys_before.items()
    }


def _renamed_refs(entry: Entry, before: Snapshot) -> dict[str, str]:
    """Equal fingerprints: the random references of the state ``entry``'s walk started
    from, each to the one in the same place in ``before`` (the campaign copied into)."""
    return {
        old: new
        for old, new in zip(entry.refs_before, references(before), strict=True)
        if old != new
    }


def _reseeded(after: Snapshot, key: tuple[str, str]) -> dict[str, str]:
    """The texts that turn the seed a walk that drew no dice was made from (and its
    SHA-256) into the seed ``key``'s walk is made from (``seeded``)."""
    new_seed = _walk_seed(key)
    return {
        after.campaign["dice_seed"]: new_seed,
        after.campaign["dice_seed_hash"]: hashlib.sha256(new_seed.encode()).hexdigest(),
    }


def _walk_seed(key: tuple[str, str]) -> str:
    return hashlib.sha256(f"walk:{key[0]}:{key[1]}".encode()).hexdigest()
