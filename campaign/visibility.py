"""The visibility gate: what a seat may see of a campaign's secret records, and the
one disclosure policy of each kind of secret.

Each kind of secret (``SECRETS``: an initiative chit, an RG purchase, its rolls, a
secret table roll, a unit line of a secret RG, a fortification, a recon, a side's
points) is declared once, as a ``Disclosure``: the model whose rows hold it, what the
opponent sees before it is revealed (``Before.NOTHING``, or ``Before.EXISTS``: the log's
public line, worded here) and what reveals it.  The rest derives from that
declaration: the gate of each model (``SecretQuerySet.visible_to``: the owner's rows,
and the others once revealed, by the fields the declaration names), the log's public
wording (``Disclosure.kept(...).public_text``, which ``Turn.record`` and
``record_event`` write) and each change's audience (``Change(kept=kept).audience``,
``campaign.changes``: the owner's seat only while the change is secret).

Every page, htmx fragment, JSON document and websocket frame reads secret records
through ``Model.objects.visible_to(side)`` and nothing else.  A record is a side's
secret until it is revealed (``revealed_at``); the CG's end reveals everything.  An
RG's line revealed by the campaign's policy before the scenario may hold back what
its DRs on a secret table gave it (``PURCHASE.held``: the gate's ``outcome_shown``,
and ``UNIT.withheld``) until the scenario ends.  So is a unit changed by the effect of
a side's secret roll (PHD C5.23, C5.24: ``UNIT.former``): the opponent's rows of it
are its former state, and a line split off it is counted in that line, until the
scenario ends.
Filters run in the database, before any window or count, so what a seat receives is
a function of what has been revealed to it only.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypeVar

from django.db import models
from django.db.models import Case, F, Q, Value, When
from django.db.models.query import ModelIterable

from campaign.prepared import Param

_M = TypeVar("_M", bound=models.Model)
# A seat's side, or the placeholder of a prepared read (``campaign.prepared``) that
# binds it per call: the gate is the same query either way.
Side = str | Param


class Before(StrEnum):
    """What the opponent sees of a secret before it is revealed."""

    NOTHING = "nothing"  # not even that it exists: no log line, no push, no count
    EXISTS = "exists"  # that it exists: the log's public line (``Disclosure.wording``)


@dataclass(frozen=True)
class Disclosure:
    """One kind of secret, declared once (``SECRETS``).

    ``model``: the model whose rows hold it (its gate reads ``owner``, the owning
    side's field, and ``revealed``, the time it was revealed; ``open``: the rows of the
    model that are nobody's secret); ``before``: what the opponent sees before the
    reveal; ``wording``: the public log line when that is ``Before.EXISTS`` (fields
    filled by ``kept``); ``revealed_by``: what reveals it, in words; ``held``: the
    flag that holds back, on a revealed row, the part its secret DRs made (``holds``,
    in words; empty: the row is all one secret): the gate marks each row it returns
    ``outcome_shown`` (``SecretQuerySet``); ``withheld``: the flag that keeps a row
    hidden though ``revealed`` is set (a unit its RG's held DRs gave); ``former``: the
    field of a row's former state, which the opponent reads in place of the row's own
    while it is held (``{}``: none; ``{"within": ref}``: a line split off a held line,
    which the opponent reads counted in that one, so not at all): the gate applies it
    to each row it returns (``FormerStateIterable``); ``apart``: the flag that keeps one
    part of a revealed row (``aparts``, in words) its owner's while set, whatever reveals
    the rest: the gate marks each row it returns ``apart_shown``."""

    name: str
    model: str
    before: Before
    revealed_by: str
    wording: str = ""
    owner: str = "side"
    revealed: str = "revealed_at"
    open: tuple[tuple[str, Any], ...] = ()
    held: str = ""
    holds: str = ""
    withheld: str = ""
    former: str = ""
    apart: str = ""
    aparts: str = ""

    def __post_init__(self) -> None:
        if (self.before is Before.EXISTS) != bool(self.wording):
            raise ValueError(f"{self.name}: a public wording is what Before.EXISTS shows")

    def kept(self, owner: str, /, *, secret: bool = True, **words: object) -> Kept | None:
        """A change ``owner`` (a side) makes to a secret of this kind: kept while ``secret``
        (None once revealed: an open change).  The log line's public text and the
        push's audience both come from it."""
        if not secret:
            return None
        text = self.wording.format(**words) if self.before is Before.EXISTS else ""
        return Kept(self, owner, text)

    def held_back(self, owner: str, unit: str, *, gone: str = "") -> Kept:
        """A change ``owner`` makes to a row whose former state is held (``former``):
        kept until that row is released, which reveals it (``Kept.held``: its ref).
        ``gone``: the row itself leaves, which the opponent sees (it leaves his pages):
        his log line says so in its former words."""
        return Kept(self, owner, gone, held=unit)

    def visible(self, side: Side) -> Q:
        """The gate: the rows of this kind ``side``'s seat may read."""
        revealed = Q(**{f"{self.revealed}__isnull": False})
        if self.withheld:
            revealed &= Q(**{self.withheld: False})
        shown = Q(**{self.owner: side}) | revealed
        for name, value in self.open:
            shown |= Q(**{name: value})
        if self.former:  # a line split off a held one is counted in it
            shown &= Q(**{self.owner: side}) | ~Q(**{f"{self.former}__has_key": "within"})
        return shown

    def former_visible(self, side: Side) -> Q:
        """Of the rows ``side`` may read, those it reads in their former state."""
        return ~Q(**{self.owner: side}) & Q(**{f"{self.former}__has_key": "name"})

    def apart_hidden(self, side: Side) -> Q:
        """Of the rows ``side`` may read, those whose part kept apart (``apart``) it may not."""
        return ~Q(**{self.owner: side}) & Q(**{self.apart: True})

    # ------------------------------------------------------------ in memory
    # The same rules for one row held in memory (a row this transaction wrote, which an
    # action's answer adds to what its seat was shown): each reads the fields the
    # declaration names, as the Q above does.  ``tests/test_visibility_twin.py`` holds
    # each to the SQL gate's answer over every combination of those fields.

    def admits(self, row: Any, side: str) -> bool:
        """``visible``, of one row: whether ``side``'s seat may read it."""
        if self.former:
            raise TypeError(f"{self.name}: a row with a former state is read through the gate")
        shown = _field(row, self.owner) == side or self._revealed(row)
        return shown or any(_matches(row, name, value) for name, value in self.open)

    def outcome_admits(self, row: Any, side: str) -> bool:
        """``outcome_visible``, of one row ``side`` may read."""
        revealed = _field(row, self.revealed) is not None and not _field(row, self.held)
        shown = _field(row, self.owner) == side or revealed
        return shown or any(_matches(row, name, value) for name, value in self.open)

    def apart_admits(self, row: Any, side: str) -> bool:
        """Not ``apart_hidden``, of one row ``side`` may read."""
        return _field(row, self.owner) == side or _field(row, self.apart) is not True

    def shown(self, row: Any, side: str) -> Any | None:
        """``SecretQuerySet.visible_to``, of one model instance held in memory: the row
        marked as the gate marks it (``outcome_shown``, ``apart_shown``), or None
        where ``side``'s seat may not read it."""
        if not self.admits(row, side):
            return None
        if self.apart:
            row.apart_shown = self.apart_admits(row, side)
        if self.held:
            row.outcome_shown = self.outcome_admits(row, side)
        return row

    def _revealed(self, row: Any) -> bool:
        revealed = _field(row, self.revealed) is not None
        return revealed and not (self.withheld and _field(row, self.withheld))

    def outcome_visible(self, side: Side) -> Q:
        """Of the rows ``side`` may read, those whose held part (``held``) it may read too."""
        revealed = Q(**{f"{self.revealed}__isnull": False}) & Q(**{self.held: False})
        shown = Q(**{self.owner: side}) | revealed
        for name, value in self.open:
            shown |= Q(**{name: value})
        return shown


def _field(row: Any, path: str) -> Any:
    """The value a gate's lookup ``path`` reads of a row in memory: a field, a related
    row's field (``purchase__revealed_at``) or a JSON key (``details__hex_held``,
    missing: None)."""
    value = row
    for name in path.split("__"):
        if isinstance(value, dict):
            value = value.get(name)
        elif value is not None:
            value = getattr(value, name)
    return value


def _matches(row: Any, lookup: str, value: Any) -> bool:
    """One of ``open``'s lookups (``field=value``, ``field__isnull=flag``) of a row."""
    if lookup.endswith("__isnull"):
        return (_field(row, lookup.removesuffix("__isnull")) is None) is bool(value)
    return bool(_field(row, lookup) == value)


@dataclass(frozen=True)
class Kept:
    """A change kept secret by one side: what its log line shows the opponent
    (``public_text``, empty: nothing) and whose seat alone hears of it (``side``);
    ``held``: the row whose former state it changes behind (``Disclosure.former``), whose
    release reveals it (the log line records it: ``data["held"]``)."""

    disclosure: Disclosure
    side: str
    public_text: str
    held: str = ""


# --------------------------------------------------------------------- the secrets
_AT_THE_END = "the CG's end (every secret is revealed then)"
# A DR on a table the rules call secret (APD 3.6 "make one secret DR", 3.7; PHD C5.33;
# Sicily 3.6181 "one Secret DR") and what it gives stay the roller's until the units
# it gave have played: a reveal of the purchases by the campaign's policy before the
# scenario (the default: when both sides finish the purchase step) shows the RG's line
# and leaves them held.
_SECRET_DRS_END = (
    "the end of the scenario (the units it gave have set up or entered), the owner's "
    "reveal of the RG, or " + _AT_THE_END
)
CHIT = Disclosure(
    "initiative chit",
    "InitiativeChit",
    Before.EXISTS,
    "the other side's chit: both are revealed by the lock of the second, at once",
    wording="{side} has chosen its initiative chit.",
)
PURCHASE = Disclosure(
    "RG purchase (its line of the RG Purchase Record, entry area and objective hex)",
    "Purchase",
    Before.NOTHING,
    "the RG's reveal (the campaign's reveal policy, the player revealing it) or " + _AT_THE_END,
    held="outcome_held",
    holds=(
        "what the RG's DRs on a secret table gave it (its strength, SW, leaders, units and "
        "the rolls of its line), revealed at " + _SECRET_DRS_END
    ),
    # Sicily British chart footnote i: "he records a secret Pre-Registered hex for it"
    # (and footnote j: "Secretly record the hex"): whatever reveals the line, the hex is
    # kept until the roll that uses it (3.622: "he places an AR counter in the Pre-Reg
    # hex") or the CG's end.  The flag: ``purchases.HEX_HELD``.
    apart="details__hex_held",
    aparts=(
        "the hex its purchase recorded secretly (its Pre-Registered hex), revealed by the "
        "roll that uses it or " + _AT_THE_END
    ),
)
RG_ROLLS = Disclosure(
    "RG's secret rolls (strength, SW, leaders)",
    "Roll",
    Before.NOTHING,
    "its RG's reveal, or where it rolls on a secret table " + _SECRET_DRS_END,
    open=(("secret", False),),
)
SECRET_ROLL = Disclosure(
    "secret table roll",
    "Roll",
    Before.EXISTS,
    _AT_THE_END,
    wording="{side} made a secret roll ({table}).",
    open=(("secret", False),),
)
# Sicily 3.617 "the RG(s) purchased may all be kept secret", M1 "SAN Increase +1", 3.623
# "Each side announces its current SAN": after an Idle date, with purchases still
# secret, whether a side rolls at 3.6122 (its SAN >= 4) would tell that it bought a
# Sniper; its roll and the SAN it leaves are its own until the announcement.
SAN_ROLL = Disclosure(
    "SAN adjustment roll of a side whose SAN may have changed in secret (a Sniper bought "
    "since the last scenario, its purchases not revealed)",
    "Roll",
    Before.NOTHING,
    "the CG's end (the SAN it leaves is announced to both as the next scenario "
    "commences, Sicily 3.623)",
    open=(("secret", False),),
)
UNIT = Disclosure(
    "unit line of a still-secret RG (and the rolls made for it); a unit's state changed "
    "by a secret roll's effect (PHD C5.23, C5.24: the opponent reads its former state)",
    "Unit",
    Before.NOTHING,
    "its RG's reveal, or where a secret table's DR gave it, or changed the unit, "
    + _SECRET_DRS_END,
    revealed="purchase__revealed_at",
    withheld="purchase__outcome_held",
    open=(("purchase__isnull", True),),
    former="held",
)
FORTIFICATION = Disclosure(
    "fortification purchase (and its points given up or taken back; where its owner "
    "states it lies hidden, Sicily 3.6073)",
    "FortificationBuy",
    Before.NOTHING,
    # Sicily 3.6073 "Each still-hidden Fortification within a Setup Area of the
    # purchaser's opponent is placed on-map": its purchase revealed then
    # (``fortification_areas.reveal_hidden``); a minefield's presence only, by a public
    # log line ("reveal its presence but not its strength"), its purchase still secret.
    "its placing on-map as a still-hidden Fortification in a Setup Area its opponent "
    "lists (Sicily 3.6073; a minefield: a public line tells its presence, its purchase "
    "stays secret), or " + _AT_THE_END,
)
RECON = Disclosure("Recon purchase and its dr", "ReconBuy", Before.NOTHING, _AT_THE_END)
ADDED_LATER = Disclosure(
    "item bought later for an RG already held (PHD RG footnote p: a further Pre-Registered hex)",
    "AddedLater",
    Before.NOTHING,
    "the reveal of the purchases of its CG date (the campaign's reveal policy), its RG's "
    "reveal by the player, or " + _AT_THE_END,
)


def _points(name: str, wording: str) -> Disclosure:
    """A side's points, kept on its log line alone (the seat holds the figure)."""
    return Disclosure(
        name,
        "Event",
        Before.EXISTS,
        _AT_THE_END,
        wording=wording,
        owner="secret_side",
        open=(("secret_side", ""),),
    )


POINTS = _points("side's replenished points", "{side} received its {code} (secret).")
# A side the rules give no points (APD 3.5: the German receives none): the opponent
# reads that rule, never the points it carries.
POINTS_NONE = _points(
    "side's points where the rules give it none", "{side} receives no {code} ({rule})."
)
POINTS_LOST = _points("side's unspent points lost", "{side} loses its unspent {code} ({rule}).")
POINTS_RECOMPUTED = _points(
    "side's points recomputed from an amended result",
    "{side}'s {code} of {where} are recomputed from the amended result (secret).",
)
SECRETS = (
    CHIT,
    PURCHASE,
    RG_ROLLS,
    SECRET_ROLL,
    SAN_ROLL,
    UNIT,
    FORTIFICATION,
    RECON,
    ADDED_LATER,
    POINTS,
    POINTS_NONE,
    POINTS_LOST,
    POINTS_RECOMPUTED,
)


def gate_of(model: type[models.Model] | str) -> Disclosure:
    """The declaration a model's gate reads: its kinds of secret share one gate (the
    same owner, reveal and open rows: checked by ``tests/test_visibility_policy.py``)."""
    name = model if isinstance(model, str) else model.__name__
    return next(d for d in SECRETS if d.model == name)


class FormerStateIterable(ModelIterable):
    """The gate's rows as model instances, each the opponent reads in its former state
    (``Disclosure.former``, annotated ``former_shown``) given that state's fields."""

    def __iter__(self) -> Iterator[Any]:
        for row in super().__iter__():
            if getattr(row, "former_shown", False):
                gate = gate_of(type(row))
                for name, value in getattr(row, gate.former).items():
                    setattr(row, name, value)
                setattr(row, gate.former, {})
            yield row


class SecretQuerySet(models.QuerySet[_M]):
    """Records that hold a kind of secret (``SECRETS``): one side's until revealed."""

    def _refuse_former(self) -> None:
        if self._iterable_class is FormerStateIterable:
            raise TypeError(
                "the gate gives these rows in their former state where it holds one: read "
                "model instances, not values (visibility.FormerStateIterable)"
            )

    def values(self, *fields: Any, **expressions: Any) -> Any:
        self._refuse_former()
        return super().values(*fields, **expressions)

    def values_list(self, *fields: Any, flat: bool = False, named: bool = False) -> Any:
        self._refuse_former()
        return super().values_list(*fields, flat=flat, named=named)

    def visible_to(self, side: Side) -> SecretQuerySet[_M]:
        gate = gate_of(self.model)
        shown = self.filter(gate.visible(side))
        if gate.former:
            shown = shown.annotate(
                former_shown=Case(
                    When(gate.former_visible(side), then=Value(True)),
                    default=Value(False),
                    output_field=models.BooleanField(),
                )
            )
            shown._iterable_class = FormerStateIterable
        if gate.apart:
            shown = shown.annotate(
                apart_shown=Case(
                    When(gate.apart_hidden(side), then=Value(False)),
                    default=Value(True),
                    output_field=models.BooleanField(),
                )
            )
        if not gate.held:
            return shown
        return shown.annotate(
            outcome_shown=Case(
                When(gate.outcome_visible(side), then=Value(True)),
                default=Value(False),
                output_field=models.BooleanField(),
            )
        )


# The names the models use (``campaign.models``): one gate, by each model's declaration.
OwnedSecretQuerySet = SecretQuerySet
RollQuerySet = SecretQuerySet
UnitQuerySet = SecretQuerySet


def event_hidden(side: Side) -> Q:
    """An opponent's log line still secret to ``side``: the seat reads its public text."""
    return ~gate_of("Event").visible(side)


def event_shown(event: Any, side: str) -> str:
    """What ``side``'s seat reads of one log line held in memory (an ``Event`` this
    transaction recorded): the same rule as ``EventQuerySet.visible_to``'s ``shown``
    (``event_hidden``), for the notices built before the line is written.  Empty:
    nothing to show.  ``tests/test_visibility_twin.py`` holds the two to one answer."""
    hidden = event.secret_side not in ("", side) and event.revealed_at is None
    return str(event.public_text if hidden else event.text)


class EventQuerySet(models.QuerySet[_M]):
    def readable_by(self, side: Side) -> EventQuerySet[_M]:
        """Events whose full record (text and data) the seat may read."""
        return self.filter(gate_of(self.model).visible(side))

    def visible_to(self, side: Side) -> EventQuerySet[_M]:
        """Events the seat may read, each with ``shown``: its full text, or the public
        text of an opponent's unrevealed secret; events with nothing to show are
        dropped here, before any slicing."""
        return self.annotate(
            shown=Case(When(event_hidden(side), then=F("public_text")), default=F("text"))
        ).exclude(shown=Value(""))
