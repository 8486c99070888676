"""What a table result does: one engine function per effect of the closed vocabulary
(``rules.schema.EffectName``), over plain data.  The write side applies the outcome
to its records; nothing is read from a result's text or a table's title.

- on the unit a roll was for (``for_units`` tables): ``eliminate``, ``status``,
  ``replace`` (``on_unit``), each possibly only for some unit kinds (3.31);
- on the RG a post-purchase roll was for: ``strength``, ``leader``, ``units``,
  ``type`` (the group kind a later roll's condition reads, APD 3.4) (``on_group``);
- on the side: ``san`` (``san_after``, clamped by the module's SAN rule, ``clamp_san``),
  ``group`` (an RG of its chart at no cost, ``granted_group``), ``units``
  (``units_given``);
- naming a side (who sets up / moves first): ``side`` (``named_side``);
- on a leader, along the module's ``leader_ladder``: ``replace_lower`` (the unit rolled
  for, ``on_unit``), ``battle_harden`` (one of the side's leaders, ``battle_hardened``);
- ``none``: the result changes nothing, said explicitly.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import get_args

from rules.schema import (
    LEADER_RATING,
    UNIT_STATUS_WORDS,
    Abandoning,
    AreaCapture,
    Effect,
    EffectName,
    HeldCap,
    HiddenFortifications,
    InherentCrew,
    MarkerHold,
    MmcClass,
    Module,
    OriginalRoll,
    ReinforcementGroup,
    Remanning,
    Settle,
    SetupAreas,
    Table,
    TableResult,
    TableRow,
    UnitExchange,
    UnitFilter,
    UnitReminder,
    UnitStatus,
    WeaponExchange,
)

# The kinds of unit whose weapons are part of their record (``UnitState.weapons``).
WEAPON_CARRIERS = ("vehicle",)
# The conditions of a carrier's weapon, marked on the weapon, never on its carrier.
WEAPON_CONDITIONS = ("malfunctioned", "mg_malfunctioned", "disabled")


@dataclass(frozen=True)
class WeaponState:
    """A weapon a unit carries (a vehicle's MA, one of its MGs): its reference on the
    unit's record, its kind (``schema.WeaponKind``), its name, its markers."""

    ref: str
    kind: str
    name: str
    markers: tuple[str, ...] = ()


# What a unit carrying no marker reads as: in good order.
OK = frozenset({"ok"})


@dataclass(frozen=True)
class UnitState:
    name: str
    kind: str
    # The markers it carries, of the closed vocabulary (``rules.schema.UnitStatus``):
    # none when it is in good order ("ok").
    markers: tuple[str, ...] = ()
    weapons: tuple[WeaponState, ...] = ()  # the weapons it carries (a vehicle's MA, MGs)
    # The RG it came with ("" : none, or not read here) and the identical units on its
    # line: what a step's ``settles`` (``UnitFilter.groups``) and a ``HeldCap`` read.
    group: str = ""
    count: int = 1
    # Its RG was requisitioned for the date being set up (``UnitFilter.bought_now``;
    # False: not, or not read here).
    bought_now: bool = False
    # The Setup Area it is Retained in, as its line records it (its possessor's for a
    # SW or Gun whose own is not entered), and the IDs the other side lists as its Setup
    # Areas (Sicily 3.605; ``placed``): what ``UnitFilter.in_enemy_setup_area`` reads
    # (the 3.6056 chart's "in enemy Setup Area" rows).  "" and (): not read here.
    setup_area: str = ""
    enemy_setup_areas: tuple[str, ...] = ()

    @property
    def marked(self) -> frozenset[str]:
        """Its markers, all the rules may read of its condition: "ok" alone when it
        carries none (a filter's ``statuses: [ok]`` reads a unit in good order)."""
        return frozenset(m for m in self.markers if m != "ok") or OK

    def has(self, marker: str) -> bool:
        return marker in self.marked

    def weapon(self, ref: str) -> WeaponState | None:
        return next((w for w in self.weapons if w.ref == ref), None)


def armed(unit: UnitState, weapon: WeaponState) -> UnitState:
    """What a table rolled for ``weapon`` reads: the weapon's markers with its
    carrier's (an Isolated or Captured vehicle's MG is Isolated or Captured), of the
    carrier's kind (a vehicular-mounted weapon: "-1 if vehicular-mounted"), named
    after both ("StuG IIIG MA")."""
    marks = tuple(dict.fromkeys(m for m in (*unit.marked, *weapon.markers) if m != "ok"))
    return UnitState(f"{unit.name} {weapon.name}", unit.kind, marks)


def of_kind(flt: UnitFilter | None, kind: str) -> bool:
    """Whether a table rolled for units of ``flt`` may be rolled for a unit of ``kind``
    or one of its weapons (``targets`` finds none where it may not: a weapon is read
    with its carrier's kind, ``armed``): what sorts a side's units among the tables
    once per kind, not once per unit and table."""
    return flt is not None and (flt.kinds is None or kind in flt.kinds)


def targets(flt: UnitFilter | None, unit: UnitState) -> list[tuple[str, UnitState]]:
    """What on ``unit``'s line a table rolled for units of ``flt`` may be rolled for:
    ("", the unit) where it matches; for a unit carrying weapons on a table rolled for
    weapons (``UnitFilter.weapons``), each of its weapons of those kinds that matches,
    by its reference — never the vehicle itself (Sicily 3.6142: "a separate dr ... for
    each malfunctioned ... Weapon"), which has none to roll for if it lists none."""
    if flt is None:
        return []
    if flt.weapons is not None and unit.kind in WEAPON_CARRIERS:
        return [
            (w.ref, armed(unit, w))
            for w in unit.weapons
            if w.kind in flt.weapons and matches(flt, armed(unit, w))
        ]
    return [("", unit)] if matches(flt, unit) else []


@dataclass(frozen=True)
class WeaponOutcome:
    """What a roll made for a weapon does: the weapon leaves its carrier's record
    (``removed``) or is marked ``status``; its carrier is marked ``carrier_status``
    (Sicily 3.6142 footnote: "if MA, the AFV is immediately Recalled").  The carrier
    never leaves for its weapon's roll."""

    removed: bool = False
    status: str | None = None
    carrier_status: str | None = None

    @property
    def changes(self) -> bool:
        return self.removed or self.status is not None or self.carrier_status is not None


def on_weapon(effects: list[Effect], unit: UnitState, weapon: WeaponState) -> WeaponOutcome:
    """What a roll made for ``weapon`` of ``unit`` does: the first effect for the
    carrier's kind acts on the weapon, the first one ``to: carrier`` on its carrier."""
    mine = for_kind(effects, unit.kind, unit.name)
    carrier = next((e.status for e in mine if e.to == "carrier" and e.do == "status"), None)
    removed, status = False, None
    for effect in (e for e in mine if e.to is None):
        if effect.do == "eliminate":
            removed = True
        elif effect.do == "status" and effect.status not in weapon.markers:
            status = effect.status
        break
    if carrier is not None and carrier in unit.marked:
        carrier = None
    return WeaponOutcome(removed=removed, status=status, carrier_status=carrier)


@dataclass(frozen=True)
class UnitOutcome:
    """What becomes of the unit a roll was for: it leaves (``removed``), is marked
    ``status``, and/or ``added`` units (name, kind) take its place."""

    removed: bool = False
    status: str | None = None
    added: tuple[tuple[str, str], ...] = ()
    at: str | None = None  # where ``added`` go, if not where the unit was (``Effect.at``)
    unmarked: str | None = None  # the marker it loses, its others kept (``unmark``)
    renamed: str | None = None  # its new name, Battle Hardened (``harden``)
    with_possessed: bool = False  # it leaves with what it possesses (``Effect.with_possessed``)
    # A second marker besides ``status`` (Sicily 3.606 row 11: "to be Replaced", then
    # "casualty reduced"); on ``added`` units, ``status`` (and this) mark them.
    also: str | None = None
    because: str | None = None  # the rule an elimination follows (``Effect.because``)
    # ``renamed`` is the next lower quality counter of a Replacement (A19.13), not a
    # Battle Hardening: PHD C5.14 "Redeploys, Replaced" read from the counter's figures.
    replaced: bool = False

    @property
    def changes(self) -> bool:
        return (
            self.removed
            or self.status is not None
            or bool(self.added)
            or self.unmarked is not None
            or self.renamed is not None
        )


@dataclass(frozen=True)
class NewUnits:
    name: str
    kind: str
    count: int = 1


@dataclass
class GroupOutcome:
    """What an RG's post-purchase rolls give it."""

    strength: str | None = None
    leaders: list[str] = field(default_factory=list)
    units: list[NewUnits] = field(default_factory=list)
    types: list[str] = field(default_factory=list)  # group kinds its rolls gave it


def row_effects(row: TableResult, column: str | None = None) -> list[Effect]:
    """The effects of a result: its column's (a multi-column table), else the row's."""
    if column and column in row.column_effects:
        return [row.column_effects[column]]
    return ([row.effect] if row.effect else []) + list(row.effects)


def placed_by_owner(module: Module) -> bool:
    """Whether a result of one of the module's tables puts a replacement where its
    owner places it (``Effect.at``: APD 3.1 footnote *, with the friendly MMC nearest):
    where none does, a Done owes no such placement and reads no log line for one."""
    return any(
        effect.at is not None
        for table in module.tables
        for row in table.rows
        for effect in [*row_effects(row), *row.column_effects.values()]
    )


def result_effects(
    table: Table, final: int, column: str | None = None, original: int | None = None
) -> list[Effect]:
    """The effects of a roll: those of its Original roll's result where the table gives
    one (``Table.original``), else of its Final roll's row."""
    return [] if table.missing else row_effects(table.result_row(final, original), column)


def roll_column(table: Table, side: str, unit_kind: str | None = None) -> str | None:
    """The column a roll on ``table`` reads: the side's (``column_for_side``), else the
    one the kind of the unit rolled for reads (``column_for_kind``: Sicily 3.606, a
    vehicle's Escape the Mobile Vehicle column); None: the table's one column."""
    by_kind: dict[str, str] = {k: c for k, c in table.column_for_kind.items()}
    return table.column_for_side.get(side) or (by_kind.get(unit_kind) if unit_kind else None)


# Half-squad equivalents of a unit kind (A1.31: a squad two, a HS or crew one; an SMC or
# a vehicle none).
HS_EQUIVALENTS = {"squad": 2, "half_squad": 1}


# The markers of a unit's Location rather than of the unit: a SW or Gun is in its
# possessor's Location, so it reads them from him (PHD C2.0 "Isolated Location": C5.26a
# "+1 If Isolated", C5.27c "Each non-captured, non-isolated weapon").
LOCATION_MARKERS = frozenset({"isolated"})


def in_location_of(state: UnitState, holder: UnitState | None) -> UnitState:
    """``state`` as the rules read it where ``holder`` possesses it: the holder's Location
    markers (Isolated) are its own too, though only the holder's line carries them."""
    if holder is None:
        return state
    extra = tuple(m for m in holder.marked & LOCATION_MARKERS if m not in state.markers)
    if not extra:
        return state
    return replace(state, markers=tuple(m for m in state.markers if m != "ok") + extra)


def hs_equivalents(kinds: Sequence[str]) -> int:
    """The HS-equivalents of units of these kinds making one roll together (PHD C5.14
    "+1 per HS equivalent > one squad using the same Redeployment DR", Sicily 3.606 "+1
    per HS-equivalent > one HS using the same Escape DR": the DRM counts those beyond
    its first, ``offset``): a squad and a HS, 3; a leader, 0."""
    return sum(HS_EQUIVALENTS.get(k, 0) for k in kinds)


def leadership_modifier(name: str) -> int | None:
    """A leader's leadership modifier read from the quality first in his line's name
    (ASL: "8-1" -1, "9-2 (V1)" -2, "6+1" +1, "7-0" 0); None: the name gives none."""
    found = LEADER_RATING.match(name.strip())
    return None if found is None else int(found.group(0)[-2:])


@dataclass(frozen=True)
class LeaderAt:
    """A leader of the side rolling, as his line gives him: for the DRM he gives a unit
    in his Location (``location_leadership``)."""

    words: str  # "8-1 leader"
    name: str
    location: str
    marked: frozenset[str]
    owes_roll: bool  # he still owes his own roll on the table rolled on


def _place(location: str) -> str:
    return " ".join(location.split()).casefold()


@dataclass(frozen=True)
class Leadership:
    """What the retained forces say of the leadership DRM a unit's roll takes (APD 2.5
    "leadership applies normally", A10.7): ``value`` read, with ``source`` saying whose
    ("8-1 leader at 20A1"); or None, typed by the owner, ``source`` saying why.
    ``first``: a leader in the unit's Location who still owes his own roll, and takes it
    first (A10.7).  ``owed``: typed, and the roll is not made without it (the record
    puts a leader in the Location whose DRM the rules text at hand does not give)."""

    value: int | None
    source: str
    first: str = ""
    owed: bool = False


def location_leadership(kind: str, location: str, leaders: Iterable[LeaderAt]) -> Leadership:
    """The leadership DRM of the best leader in a unit's Location (never his own:
    ``leaders`` are the side's others), with the words saying whose, where the retained
    forces hold the facts (APD 2.5 "leadership applies normally", A10.7).  Typed where
    they do not: the unit's Location or a leader's is not entered (he may be there), or
    a leader there names no quality.  A leader there who still owes his own roll takes
    it first (A10.7: his result decides whether he is there to lead), unless the unit
    is a leader too.  Typed and owed (never taken as 0) where a leader there is wounded
    (his DRM, A17.2, is not in the CG text), the unit is a Hero (whether a leader
    leads him, A15, is not in the CG text either), or the unit is a leader and another
    leader there still owes his own roll (whether he leads the other's check before his
    own, A10.7, is not in the CG text).  A Prisoner leads no one; a leader
    the roll eliminated has left the retained forces."""
    where = _place(location)
    if not where:
        return Leadership(None, "its Location is not entered")
    free = [leader for leader in leaders if "captured" not in leader.marked]
    here = [leader for leader in free if _place(leader.location) == where]
    for leader in here:
        if leader.owes_roll and kind != "leader":
            at = f"{leader.words} at {leader.location.strip()}"
            return Leadership(None, f"the {at} takes his own roll first", first=at)
    found: list[tuple[int, str]] = []
    unknown = next(
        (f"the {ld.words}'s Location is not entered" for ld in free if not _place(ld.location)),
        "",
    )
    for leader in here:
        at = f"{leader.words} at {leader.location.strip()}"
        if kind == "hero":
            return Leadership(
                None,
                f"the {at} is with the Hero: whether he leads a Hero (A15) is not in the "
                "CG text, so you type it",
                owed=True,
            )
        if "wounded" in leader.marked:
            return Leadership(
                None,
                f"the {at} is wounded: a wounded leader's DRM (A17.2) is not in the CG "
                "text, so you type it",
                owed=True,
            )
        modifier = leadership_modifier(leader.name)
        if modifier is None:
            unknown = unknown or f"the {leader.words}'s line names no quality"
        elif not leader.owes_roll:
            found.append((modifier, at))
        else:  # a leader's roll while another leader there still owes his
            return Leadership(
                None,
                f"the {at} has not taken his own roll yet: whether he leads another "
                "leader's check before his own (A10.7) is not in the CG text, so you type it",
                owed=True,
            )
    if unknown:
        return Leadership(None, unknown)
    if not found:
        other = "other " if kind == "leader" else ""
        return Leadership(0, f"no {other}leader at {location.strip()}")
    value, source = min(found)
    return Leadership(value, source)


def for_drms(effects: list[Effect], applied: Iterable[str], attacker: bool = False) -> list[Effect]:
    """The effects that hold for a roll whose DRMs ``applied`` (their ids) applied, by
    the scenario's Attacker where ``attacker``: one naming DRMs (``Effect.if_drms``)
    only where one of them did (PHD C5.14 i: "+2 Unit is in enemy FEBA" and a result
    that remains in hex eliminate the unit); one for the Attacker only
    (``Effect.if_attacker``, C5.14 ii) only where he rolls."""
    ids = set(applied)
    return [
        e
        for e in effects
        if (not e.if_drms or ids.intersection(e.if_drms)) and (attacker or not e.if_attacker)
    ]


def for_kind(effects: list[Effect], kind: str, name: str = "") -> list[Effect]:
    """The effects for a unit of ``kind`` whose line reads ``name`` (``Effect.kinds``,
    ``Effect.named``)."""
    return [
        e
        for e in effects
        if (e.kinds is None or kind in e.kinds) and (e.named is None or names_any(name, e.named))
    ]


def reminded(
    reminders: Sequence[UnitReminder], units: Sequence[tuple[str, UnitState]]
) -> list[tuple[UnitReminder, list[str]]]:
    """For each of a step's ``reminders`` (``Step.reminds``) the words of the units
    (``units``: each unit's words and state) it selects, where it selects any: Sicily
    3.6222 EXC lists the side's immobilized vehicles."""
    out = []
    for r in reminders:
        named = [words for words, unit in units if matches(r.units, unit)]
        if named:
            out.append((r, named))
    return out


def matches(flt: UnitFilter | None, unit: UnitState) -> bool:
    """Whether a table rolled for units of ``flt`` may be rolled for ``unit``."""
    if flt is None:
        return False
    return (
        (flt.kinds is None or unit.kind in flt.kinds)
        and (flt.statuses is None or not unit.marked.isdisjoint(flt.statuses))
        and (flt.not_statuses is None or unit.marked.isdisjoint(flt.not_statuses))
        and (flt.all_statuses is None or unit.marked.issuperset(flt.all_statuses))
        and (flt.groups is None or unit.group in flt.groups)
        and (flt.of_rg is None or bool(unit.group) == flt.of_rg)
        and (flt.bought_now is None or unit.bought_now == flt.bought_now)
        and not (flt.not_named and names_any(unit.name, flt.not_named))
        and (flt.named is None or names_any(unit.name, flt.named))
        and not (flt.not_if is not None and matches(flt.not_if.units, unit))
        and (
            flt.in_enemy_setup_area is None
            or in_enemy_area(unit.setup_area, unit.enemy_setup_areas) == flt.in_enemy_setup_area
        )
    )


def placed(state: UnitState, area: str, holder_area: str, theirs: Sequence[str]) -> UnitState:
    """``state`` with where it stands (Sicily 3.605): the Setup Area its line records, or
    (none entered) its possessor's ``holder_area`` (a SW or Gun is where its possessor
    is), and ``theirs``, the IDs the other side lists as its Setup Areas."""
    where = " ".join(area.split()) or " ".join(holder_area.split())
    return replace(state, setup_area=where, enemy_setup_areas=tuple(theirs))


def inherent_crew(crews: Sequence[InherentCrew], vehicle: UnitState) -> InherentCrew | None:
    """The Inherent crew counter of ``vehicle``: the first of ``crews`` whose vehicles
    it is one of (None: the module names none for it, Sicily 3.606 "crew (if any)")."""
    return next((c for c in crews if matches(c.vehicles, vehicle)), None)


def crew_escapes(effects: list[Effect], unit: UnitState) -> bool:
    """Whether the result of a roll made for ``unit`` lets its Inherent crew escape
    (Sicily 3.606 rows 9-10 "crew (if any) Escapes")."""
    first = next(iter(for_kind(effects, unit.kind, unit.name)), None)
    return first is not None and first.crew_escapes


def crew_marker(effects: list[Effect], unit: UnitState) -> UnitStatus | None:
    """The marker the crew a result of a roll made for ``unit`` lets escape bears
    (``Effect.crew_marker``: Sicily 3.613 footnote †, its CS DR owed)."""
    first = next(iter(for_kind(effects, unit.kind, unit.name)), None)
    return first.crew_marker if first is not None and first.crew_escapes else None


def line_key(name: str) -> str:
    """The squad's line a HS's ``name`` is of, as two HS are matched to recombine (PHD
    C5.21, Sicily 3.6111): the name, case and spaces aside."""
    return name.strip().lower()


def in_pairs(flt: UnitFilter, units: Sequence[UnitState]) -> list[bool]:
    """For each of ``units``, whether it is one of ``flt`` that could recombine with
    another of its line (PHD C5.21, Sicily 3.6111: two HS of one squad's line): its line
    counts two, or another line of ``flt`` bears its name (``line_key``)."""
    mine = [matches(flt, u) for u in units]
    names = [line_key(u.name) for u, m in zip(units, mine, strict=True) if m]
    return [
        m and (u.count > 1 or names.count(line_key(u.name)) > 1)
        for u, m in zip(units, mine, strict=True)
    ]


def names_any(name: str, words: Sequence[str]) -> bool:
    """Whether a unit's ``name`` names one of ``words`` (a whole word, any case): "2-2-8
    Crew (G3)" names "crew" (PHD C5.22 "(non-crew) MMC"); its plural names it too ("A-P
    mines in K6" names "mine": PHD C5.28)."""
    return any(re.search(rf"\b{re.escape(w)}(?:e?s)?\b", name, re.IGNORECASE) for w in words)


def rated(name: str, ladder: Sequence[str], step: int) -> str | None:
    """A leader's name ``step`` qualities up (+1) or down (-1) ``ladder`` ("9-1 leader",
    +1 → "9-2 leader"); None: not a leader's quality on the ladder, or none there."""
    m = LEADER_RATING.match(name.strip())
    if m is None or m.group() not in ladder:
        return None
    n = list(ladder).index(m.group()) + step
    if not 0 <= n < len(ladder):
        return None
    return ladder[n] + name.strip()[m.end() :]


def on_unit(
    effects: list[Effect],
    unit: UnitState,
    ladder: Sequence[str] = (),
    tables: Sequence[Table] = (),
    side: str = "",
) -> UnitOutcome:
    """What a roll made for ``unit`` (one of ``side``'s) does to it: the first effect
    for its kind (and what it does ``then``); ``tables``: the module's, where a
    Replacement reads the classes of MMC from one (``Effect.classes_from``)."""
    for effect in for_kind(effects, unit.kind, unit.name):
        first = _on_unit(effect, unit, ladder, tables, side)
        return first if effect.then is None else then_casualty_reduced(first, unit)
    return UnitOutcome()


def then_casualty_reduced(first: UnitOutcome, unit: UnitState) -> UnitOutcome:
    """``first`` (a Replacement), then Casualty Reduction of what it left (Sicily 3.606
    row 11 "Escapes; Replaced, then Casualty Reduced"): the leader put in the unit's
    place is reduced (wounded), or the unit itself, marked as ``first`` marks it (an MMC
    to be Replaced: a squad reduced, a HS eliminated)."""
    if first.removed and first.added:
        name, kind = first.added[0]
        after = casualty_reduced(UnitState(name, kind, unit.markers, unit.weapons))
        return UnitOutcome(removed=True) if after.removed else replace(first, status=after.status)
    if first.removed:
        return first
    marked = (*unit.markers, first.status) if first.status else unit.markers
    after = casualty_reduced(UnitState(unit.name, unit.kind, marked, unit.weapons))
    if after.removed:
        return UnitOutcome(removed=True)
    if first.status is None or first.status == after.status:
        return UnitOutcome(status=after.status)
    return UnitOutcome(status=first.status, also=after.status)


def _on_unit(
    effect: Effect,
    unit: UnitState,
    ladder: Sequence[str],
    tables: Sequence[Table] = (),
    side: str = "",
) -> UnitOutcome:
    """What one effect does to ``unit``."""
    if effect.do == "replace_lower":
        lower = rated(unit.name, ladder, -1)
        if lower is not None:
            return UnitOutcome(removed=True, added=((lower, unit.kind),))
        if effect.classes_from is not None:
            classes = next((reduction(t)[1] for t in tables if t.id == effect.classes_from), [])
            counter = lower_counter(classes, unit, side)
            if counter is not None:
                return UnitOutcome(renamed=counter, replaced=True)
        if effect.status is None or unit.has(effect.status):
            return UnitOutcome()
        return UnitOutcome(status=effect.status)
    if effect.do == "eliminate":
        return UnitOutcome(
            removed=True, with_possessed=effect.with_possessed, because=effect.because
        )
    if effect.do == "replace":
        assert effect.unit is not None
        # The replacement is of the same kind (an evacuated leader by a 7-0 leader).
        return UnitOutcome(removed=True, added=((effect.unit, unit.kind),), at=effect.at)
    if effect.do == "status":
        return UnitOutcome() if unit.has(effect.status or "") else UnitOutcome(status=effect.status)
    if effect.do == "none":
        return UnitOutcome()
    if effect.do == "unmark":
        return (
            UnitOutcome(unmarked=effect.status) if unit.has(effect.status or "") else UnitOutcome()
        )
    if effect.do == "harden":
        return UnitOutcome(renamed=rated(unit.name, ladder, +1))
    if effect.do == "casualty_reduce":
        return casualty_reduced(unit)
    return UnitOutcome()


# What Casualty Reduction makes of a unit that survives it, by kind (an SMC is wounded).
CASUALTY_REDUCED = {"squad": "reduced", "leader": "wounded", "hero": "wounded"}


def casualty_reduced(unit: UnitState) -> UnitOutcome:
    """Casualty Reduction of ``unit``: a squad is reduced to a HS (marked ``reduced``), a
    leader or Hero wounded; a HS or crew, a squad already reduced and an SMC already
    wounded are eliminated (Sicily 3.606 "Escapes; Casualty Reduced")."""
    status = CASUALTY_REDUCED.get(unit.kind)
    if status is None or unit.has(status):
        return UnitOutcome(removed=True)
    return UnitOutcome(status=status)


def exchange_refusal(
    exchange: WeaponExchange, side: str, unit: UnitState, weapon_ref: str, sw: UnitState
) -> str:
    """Why ``sw`` may not repair the weapon ``weapon_ref`` of ``unit`` by the step's
    weapon exchange (Sicily 3.61421, PHD C5.27b), in words ("": it may)."""
    rule = f" ({exchange.rule})"
    weapon = unit.weapon(weapon_ref)
    if weapon is None or weapon_ref not in dict(targets(exchange.repairs, unit)):
        what = f"{unit.name} {weapon.name}" if weapon else f"That weapon of {unit.name}"
        return f"{what} is not a weapon this exchange repairs{rule}."
    names = exchange.names.get(side, [])
    if not exchange_gives(exchange, side, sw):
        return (
            f"{sw.name} cannot repair it: it takes a friendly {' or '.join(names) or 'SW'}"
            f" of yours, possessed and not captured{rule}."
        )
    return ""


def exchange_gives(exchange: WeaponExchange, side: str, sw: UnitState) -> bool:
    """Whether ``side`` may give up ``sw`` in the weapon exchange: of ``gives`` (PHD
    C5.27b "must be possessed", not captured) and named one of the side's ``names``
    (a German LMG, a US MMG)."""
    names = exchange.names.get(side, [])
    named = any(re.match(rf"{re.escape(n)}\b", sw.name.strip(), re.IGNORECASE) for n in names)
    return matches(exchange.gives, sw) and named


def working_weapon(abandoning: Abandoning, vehicle: UnitState) -> str:
    """The name of a weapon of ``abandoning.without_functioning`` recorded on
    ``vehicle`` in good order (no malfunctioned or disabled marker): Sicily 3.6051
    "without functioning MA" ("": none)."""
    return next(
        (
            w.name
            for w in vehicle.weapons
            if w.kind in abandoning.without_functioning
            and not set(w.markers) & set(WEAPON_CONDITIONS)
        ),
        "",
    )


def remanning_refusal(remanning: Remanning, vehicle: UnitState, by: UnitState | None) -> str:
    """Why ``by`` may not remann ``vehicle`` (Sicily 3.6141a: "may be remanned and
    operated ... by Personnel Retained within the same Setup Area"), in words ("": it
    may).  ``by`` None: the side retains none who could."""
    rule = (
        f" ({remanning.rule}: an Abandoned vehicle may be remanned by Personnel Retained "
        "within the same Setup Area)"
    )
    if not matches(remanning.vehicles, vehicle):
        marked = UNIT_STATUS_WORDS[remanning.status]
        return (
            f"{vehicle.name} is not a vehicle of yours marked {marked} that may be remanned{rule}."
        )
    if by is None:
        return f"{vehicle.name} cannot be remanned: you retain no Personnel to man it{rule}."
    if not matches(remanning.by, by):
        return (
            f"{by.name} cannot remann {vehicle.name}: only Personnel you retain (not captured, "
            f"not withdrawn off map) can{rule}."
        )
    return ""


def apart_refusal(
    areas: SetupAreas | None, one: tuple[str, str], other: tuple[str, str], doing: str, rule: str
) -> str:
    """Why ``one`` and ``other`` (each its name and its Setup Area as entered on the
    retained forces, "" where none is) may not act together at a step whose rule says
    "within the same Setup Area" (Sicily 3.6111, 3.6112, 3.6141a, 3.61421;
    ``SetupAreas``): both areas entered and different.  "": they may (either area not
    entered is the players' to judge, and a module without ``setup_areas`` records none)."""
    if areas is None:
        return ""
    (a_name, a_area), (b_name, b_area) = one, other
    a, b = " ".join(a_area.split()), " ".join(b_area.split())
    if not a or not b or a.casefold() == b.casefold():
        return ""
    word = areas.label
    return (
        f"{a_name} is Retained in {word} {a} and {b_name} in {word} {b}: {doing} only within "
        f"the same {word} ({rule}). Correct a {word} ({areas.rule}) on your retained forces if "
        "it is wrong."
    )


def setup_area_ids(text: str) -> list[str]:
    """The Setup Area IDs a side lists (Sicily 3.605), separated by commas: each with
    its spaces squeezed, none empty, one of each (case aside), in the side's order."""
    out: list[str] = []
    for part in text.replace(";", ",").split(","):
        sid = " ".join(part.split())
        if sid and sid.casefold() not in {o.casefold() for o in out}:
            out.append(sid)
    return out


def overlap_refusal(
    areas: SetupAreas, mine: Sequence[str], theirs: Sequence[str], their_side: str
) -> str:
    """Why a side may not list ``mine`` as its Setup Areas: an ID the other side
    (``their_side``, its name) lists too (Sicily 3.6051: where two opposing Setup Areas
    overlap is No-Man's Land, and "A No-Man's Land hex can never be part of a Setup
    Area").  "": it may."""
    taken = {t.casefold() for t in theirs}
    both = [m for m in mine if m.casefold() in taken]
    if not both:
        return ""
    word = areas.label
    return (
        f"{word} {', '.join(both)} is listed by the {their_side}: where two opposing "
        f"{word}s overlap it is No-Man's Land, which can never be part of a {word} "
        f"({areas.overlap_rule}). Give each of your {word}s its own ID ({areas.rule})."
    )


def setup_areas_at(module: Module, step_id: str) -> SetupAreas | None:
    """The module's Setup Areas where each side lists its IDs at step ``step_id``
    (``SetupAreas.step``, Sicily 3.605); None elsewhere."""
    areas = module.setup_areas
    return areas if areas is not None and areas.step == step_id else None


def fortification_areas_at(module: Module, step_id: str) -> HiddenFortifications | None:
    """The module's hidden Fortifications where their owner states, at step ``step_id``,
    the Setup Area each lies in (``SetupAreas.step``, Sicily 3.605; 3.6073); None
    elsewhere."""
    areas = setup_areas_at(module, step_id)
    return areas.hidden_fortifications if areas is not None else None


def fortifications_revealed_at(module: Module, step_id: str) -> HiddenFortifications | None:
    """The module's hidden Fortifications where those in the opponent's Setup Areas are
    placed on-map on completing step ``step_id`` (Sicily 3.607: 3.6073); None elsewhere."""
    areas = module.setup_areas
    hid = areas.hidden_fortifications if areas is not None else None
    return hid if hid is not None and hid.step == step_id else None


def fortification_area(text: str, mine: Sequence[str], theirs: Sequence[str]) -> str | None:
    """The Setup Area ID ``text`` names among the IDs either side lists (Sicily 3.605),
    in its lister's spelling; None: neither side lists it."""
    here = " ".join(text.split()).casefold()
    return next((a for a in (*mine, *theirs) if a.casefold() == here), None) if here else None


def still_hidden_in_enemy_area(
    hid: HiddenFortifications,
    item_id: str,
    *,
    on_map: bool,
    setup_area: str,
    stated: bool,
    theirs: Sequence[str],
) -> bool:
    """Whether a Fortification is placed on-map by 3.6073 ("Each still-hidden
    Fortification within a Setup Area of the purchaser's opponent"): one of the
    module's Fortifications, not on the map, stated (in this pass) in a Setup Area its
    opponent lists (``theirs``)."""
    return item_id in hid.items and not on_map and stated and in_enemy_area(setup_area, theirs)


def enemy_area_words(areas: SetupAreas) -> str:
    """What the rules say of a unit in an enemy Setup Area, with its rule (Sicily 3.6056
    chart); "" where the module says nothing."""
    if not areas.enemy_area:
        return ""
    return f"{areas.enemy_area} ({areas.enemy_area_rule})"


def in_enemy_area(location: str, theirs: Sequence[str]) -> bool:
    """Whether a unit entered in Setup Area ``location`` (Sicily 3.605) stands in one of
    the IDs the other side lists as its own (case and spaces aside)."""
    here = " ".join(location.split()).casefold()
    return bool(here) and here in {t.casefold() for t in theirs}


def capture_offered(capture: AreaCapture, unit: UnitState) -> bool:
    """Whether the side listing the Setup Areas ``unit`` is read with
    (``UnitState.enemy_setup_areas``, ``placed``) chooses what becomes of it: one of
    ``capture.units`` entered in one of them (Sicily 3.6056 chart "is Captured or
    Eliminated (enemy's choice; 3.6071)")."""
    return matches(capture.units, unit) and in_enemy_area(unit.setup_area, unit.enemy_setup_areas)


def unaided_elimination(
    capture: AreaCapture, piece: UnitState, area: str, own: Sequence[tuple[UnitState, str]]
) -> str:
    """The rule refusing the chooser's Elimination of ``piece`` entered in Setup Area
    ``area`` ("" : none refuses it): it is one of ``capture.eliminated_by.pieces`` and
    none of his units ``own`` (each with the Setup Area its line names) of ``by`` stands
    there, nor any whose line names none (not known: the map's).  Sicily 3.6071 "each
    such non-vehicle piece may be Eliminated by any Personnel ... Retained in that Setup
    Area"."""
    need = capture.eliminated_by
    if need is None or not matches(need.pieces, piece):
        return ""
    here = " ".join(area.split()).casefold()
    for unit, where in own:
        entered = " ".join(where.split()).casefold()
        if matches(need.by, unit) and (not entered or entered == here):
            return ""
    return need.rule


def captured_markers(markers: Sequence[str]) -> list[str]:
    """A unit's markers once the side Controlling its Setup Area Retains it (Sicily
    3.6071 "Retained (as Captured, if applicable)"): marked captured, or, already
    captured (its new owner's own Equipment taken back), no longer; possessed by none of
    his, it is no longer "unpossessed" either (it is his)."""
    kept = [m for m in markers if m not in ("ok", "unpossessed", "captured")]
    return kept if "captured" in markers else [*kept, "captured"]


def battle_hardened(
    effects: list[Effect],
    leaders: Sequence[UnitState],
    ladder: Sequence[str],
    not_named: Sequence[str] = (),
) -> tuple[int, str] | None:
    """Which of the side's ``leaders`` a ``battle_harden`` result Battle Hardens and
    into whom: (its index, its new name), the non-wounded leader of the quality named,
    else of the next lower quality the side has (PHD C5.24 footnote *: "if a 9-1 is
    selected, but there is no 9-1, then the next lower quality would be an 8-1,
    followed by an 8-0, etc."); None: no such leader (or no such result).  A leader whose
    line names one of ``not_named`` is none of them (C5.24 "Infantry Leader": not an
    Armour Leader, ``Table.leaders_not_named``)."""
    named = next((e.unit for e in effects if e.do == "battle_harden"), None)
    if named is None or named not in ladder:
        return None
    top = list(ladder).index(named)
    for quality in reversed(ladder[: top + 1]):
        for i, u in enumerate(leaders):
            m = LEADER_RATING.match(u.name.strip())
            if u.kind != "leader" or "wounded" in u.marked or not m or m.group() != quality:
                continue
            if not_named and names_any(u.name, not_named):
                continue
            higher = rated(u.name, ladder, +1)
            if higher is not None:
                return i, higher
    return None


def hardens_leader(table: Table) -> bool:
    """Whether a result of ``table`` Battle Hardens one of the side's leaders (PHD C5.24)."""
    return any(e.do == "battle_harden" for row in table.rows for e in row_effects(row))


def no_leader_to_harden(table: Table, leaders: Sequence[UnitState]) -> str:
    """Why a roll on ``table``, whose results Battle Harden one of the side's leaders,
    is refused: of its ``leaders`` (those no other rule excludes: an AFV RG's, one
    Battle Hardened already in this pass) none is unwounded and of the kind it may
    harden, so whatever the DR, none Battle Hardens (PHD C5.24: "Battle Harden one
    Retained Non-Wounded Infantry Leader"; footnote *: "If there is no lower quality
    leader available, then no SMC will be Battle-Harden"); "" where one is, or where
    the table hardens no leader."""
    if not hardens_leader(table):
        return ""
    excluded = table.leaders_not_named
    for u in leaders:
        if u.kind == "leader" and "wounded" not in u.marked and not names_any(u.name, excluded):
            return ""
    return (
        "you retain no unwounded leader it could Battle Harden: whatever the DR, none "
        f"would ({table.rule})"
    )


def not_hardened_for_group(table: Table, group: ReinforcementGroup | None) -> bool:
    """Whether a leader who came with ``group`` is none a ``battle_harden`` result of
    ``table`` may Battle Harden: the RG's units are of ``leaders_not_of_group_kinds``
    (PHD C5.24 "Infantry Leader": an AFV RG's leader is an Armour Leader)."""
    return group is not None and group.unit_kind in table.leaders_not_of_group_kinds


# What an MMC is (A1.1: squads and half-squads; a crew is recorded as a half-squad).
MMC_KINDS = frozenset({"squad", "half_squad"})


def mmc_to_harden(effects: list[Effect]) -> int:
    """How many of its MMC a result lets the side Battle Harden (PHD C5.23)."""
    return sum(e.count for e in effects if e.do == "harden_mmc")


def hardens_mmc(table: Table) -> bool:
    """Whether a result of ``table`` lets the side Battle Harden MMC (PHD C5.23)."""
    return any(mmc_to_harden(row_effects(row)) for row in table.rows)


def own_mmc(unit: UnitState) -> bool:
    """Whether ``unit`` is one of the side's own MMC: a squad or half-squad, not one it
    holds prisoner (PHD C5.23's Battle Hardening, C5.28 note 2's Casualty Reduction)."""
    return unit.kind in MMC_KINDS and retained(unit)


def retained(unit: UnitState) -> bool:
    """Whether the side currently retains ``unit``: not marked captured (a man held
    prisoner, PHD C5.15).  PHD C5.24 footnote *: "If that side does not currently retain
    the leader selected ... the next lower quality"; C5.24a's "one leader per four
    squad-equivalents of its currently retained units" counts no captured leader."""
    return "captured" not in unit.marked


def no_mmc_to_harden(table: Table, units: Sequence[UnitState]) -> str:
    """Why a roll on ``table``, whose results let the side Battle Harden MMC, is not
    made: of ``units`` (the side's own, none Battle Hardened in this pass already) none
    is an MMC of its own (not one held prisoner), so whatever the DR, none Battle
    Hardens (PHD C5.23 "the number of MMC that may be Battle-Hardened ... No unit may
    Battle Harden more than once during the ConPh"); "" where one is, or where the
    table hardens no MMC."""
    if not hardens_mmc(table):
        return ""
    if any(own_mmc(u) for u in units):
        return ""
    return f"you hold no MMC it could Battle Harden: whatever the DR, none would ({table.rule})"


def mmc_to_reduce(effects: list[Effect], item: str = "") -> int:
    """How many of its MMC a result makes the side Casualty Reduce (PHD C5.28 note 2),
    the roll made for ``item``: an effect ``named`` counts only where the item names
    one of its words (note 2 "vs a Known Minefield": a roll naming mines)."""
    return sum(
        e.count
        for e in effects
        if e.do == "reduce_mmc" and (e.named is None or names_any(item, e.named))
    )


def reduction(table: Table) -> tuple[list[int], list[MmcClass]]:
    """The original rolls of ``table`` whose result Casualty Reduces MMC, and the
    classes of MMC it falls on first (PHD C5.28 note 2: an original 6; Engineer, then
    Elite); ([], []) where none does."""
    found = [(o.roll, e) for o in table.original for e in row_effects(o) if e.do == "reduce_mmc"]
    return [n for n, _ in found], (list(found[0][1].first) if found else [])


def mmc_class(cls: MmcClass, unit: UnitState, footnotes: Sequence[str], side: str = "") -> bool:
    """Whether ``unit`` (its RG marked ``footnotes``), one of ``side``'s, is of the
    class ``cls``: by its RG's footnotes, its markers, or the counter figures its line
    names (``MmcClass.figures``: a "6-6-7" line is a US 1st Line MMC)."""
    return (
        bool(set(cls.footnotes) & set(footnotes))
        or side in cls.all_of
        or not unit.marked.isdisjoint(cls.statuses)
        or bool(set(counter_figures(unit.name)) & set(cls.figures.get(side, ())))
    )


def counter_figures(name: str) -> list[str]:
    """The counter figures a unit's line names ("4-6-7 (I1 Gren Pl)" → ["4-6-7"])."""
    return re.findall(r"(?<![\d-])\d{1,2}-\d-\d(?![\d-])", name)


def lower_counter(classes: Sequence[MmcClass], unit: UnitState, side: str) -> str | None:
    """The line ``unit`` (a squad or HS of ``side``) reads once Replaced by its next
    lower quality counter (A19.13; PHD C5.14 "Redeploys, Replaced"): its class read
    from the counter figures its line names along ``classes`` (highest first, each
    with its figures: C5.28 note 2's, ASL Chapter H's counters), the next class given
    for the side; of its figures, a squad's is the one of the most Firepower, a HS's
    the one of the least not above its own (ASL's HS counters print less Firepower than
    their class's squads).  None: the line names no figures of a class, or no lower
    class has a counter of its kind (its owner renames it)."""
    own = counter_figures(unit.name)
    ranked = [c.figures[side] for c in classes if c.figures.get(side)]
    at = next((n for n, figures in enumerate(ranked) if own and own[0] in figures), None)
    if at is None or at + 1 >= len(ranked):
        return None

    def firepower(figures: str) -> int:
        return int(figures.split("-")[0])

    lower = ranked[at + 1]
    if unit.kind == "half_squad":
        fits = [f for f in lower if firepower(f) <= firepower(own[0])]
        chosen = min(fits, key=firepower) if fits else None
    else:
        chosen = max(lower, key=firepower)
    return None if chosen is None else unit.name.replace(own[0], chosen, 1)


def class_words(cls: MmcClass, side: str) -> str:
    """A class of MMC as ``side``'s player reads it, with the counters that make it
    where the class is read from figures ("a 1st Line MMC (6-6-7, 3-3-7)"); "" where
    it is read from figures, none of them ``side``'s."""
    if side in cls.all_of:
        return f"{cls.label} ({cls.all_of[side]})"
    figures = cls.figures.get(side)
    if figures:
        return f"{cls.label} ({', '.join(figures)})"
    return "" if cls.figures and not (cls.footnotes or cls.statuses) else cls.label


def left_over(exchange: UnitExchange, unit: UnitState, held: Iterable[UnitState]) -> UnitOutcome:
    """What becomes of a unit of an exchange's ``gives`` still held when its owner
    finishes the step: it leaves, none marked for it; or, where the side holds no unit
    the exchange could mark, it stays, marked ``kept_status`` (APD 3.2 EXC: "If unable
    to Battle Harden any MMC, the Hero remains onboard unwounded instead"); with no
    ``kept_status`` it always leaves (Sicily 3.6112)."""
    if exchange.kept_status is None or any(matches(exchange.marks, u) for u in held):
        return UnitOutcome(removed=True)
    if unit.has(exchange.kept_status):
        return UnitOutcome()
    return UnitOutcome(status=exchange.kept_status)


def settled(row: Settle, unit: UnitState, ladder: Sequence[str] = ()) -> UnitOutcome:
    """What completing a step does to ``unit`` by one of its ``settles``: nothing to a
    unit the row does not name (``ladder``: the leaders' qualities, for ``harden``)."""
    if not matches(row.units, unit):
        return UnitOutcome()
    return on_unit(row.effects, unit, ladder)


def hold_refusal(
    holds: Sequence[MarkerHold], was: UnitState, after: Iterable[str], what: str
) -> str:
    """Why ``what`` (the unit as it ``was``) may not leave only the markers ``after``: a
    marker one of ``holds`` keeps on it is taken off (PHD C5.13a: "Units marked with a
    Stun counter may remove it after redeploying only if they are not Isolated at that
    time"); "" where none is."""
    gone = was.marked - set(after)
    for hold in holds:
        if hold.status in gone and matches(hold.units, was):
            return (
                f"{what} keeps its {UNIT_STATUS_WORDS[hold.status]} marker: {hold.reason} "
                f"({hold.rule}). Nothing was changed."
            )
    return ""


def hardened_by_settles(rows: Sequence[Settle], unit: UnitState) -> bool:
    """Whether completing the step Battle Hardens ``unit`` by one of its ``settles``
    (``harden``): PHD C5.24, a Heroic leader, which its DR may not Battle Harden
    as well ("No SMC may Battle Harden more than once during the ConPh")."""
    return any(
        matches(row.units, unit) and any(e.do == "harden" for e in row.effects) for row in rows
    )


def settle_holds(
    row: Settle,
    side: str,
    played_on: str | None,
    answers: Mapping[str, Mapping[str, object]],
) -> bool:
    """Whether a step's ``settles`` row acts on ``side``'s units in this pass:
    ``played_on`` is the date id of the CG scenario just played (None: none, an Idle
    date), ``answers`` its confirmed result (``{field: {side: value}}``).  Sicily
    3.60741-3.60742: only after the July 14 PM scenario, only where the result says
    the British units north of the river were withdrawn."""
    if row.sides is not None and side not in row.sides:
        return False
    if row.after_dates and played_on not in row.after_dates:
        return False
    if row.result_yes is not None:
        return played_on is not None and any(answers.get(row.result_yes, {}).values())
    return True


def held_excess(cap: HeldCap, units: Iterable[UnitState]) -> Fraction:
    """How many of ``units`` a side holds beyond ``cap`` (0: none), counted as the cap
    counts (squad-equivalents: a half-squad/crew is half)."""
    held = Fraction(0)
    for unit in units:
        if not matches(cap.units, unit):
            continue
        weight = (
            Fraction(1, 2)
            if cap.count == "squad_equivalents" and unit.kind == "half_squad"
            else Fraction(1)
        )
        held += weight * unit.count
    return max(Fraction(0), held - cap.max)


def on_group(effects: list[Effect], outcome: GroupOutcome) -> None:
    """Add what a post-purchase roll gives to the RG's outcome."""
    for effect in effects:
        if effect.do == "strength":
            outcome.strength = effect.strength
        elif effect.do == "leader":
            assert effect.unit is not None
            outcome.leaders.append(effect.unit)
        elif effect.do == "units":
            assert effect.unit is not None and effect.kind is not None
            outcome.units.append(NewUnits(effect.unit, effect.kind, effect.count))
        elif effect.do == "type":
            assert effect.type is not None
            outcome.types.append(effect.type)


def san_after(effects: list[Effect], san: int) -> int:
    """The side's SAN after a roll's effects (never below 0)."""
    for effect in effects:
        if effect.do == "san" and effect.by is not None:
            san = max(0, san + effect.by)
    return san


def clamp_san(san: int, minimum: int | None, maximum: int | None) -> int:
    """A SAN below ``minimum`` is raised to it, one above ``maximum`` lowered to it."""
    if minimum is not None and san < minimum:
        san = minimum
    if maximum is not None and san > maximum:
        san = maximum
    return san


def san_announcement(module: Module, sans: Mapping[str, int | None]) -> str | None:
    """What is told to both sides when the scenario commences, where the module's SAN
    rule says each side announces its current SAN (Sicily 3.623); None where not."""
    rule = module.san
    if rule is None or rule.announced is None:
        return None
    said = ", ".join(
        f"{side.name} {'—' if sans.get(side.id) is None else sans[side.id]}"
        for side in module.sides
    )
    return f"Each side announces its current SAN: {said} ({rule.announced})."


def named_side(effects: list[Effect]) -> str | None:
    return next((e.side for e in effects if e.do == "side"), None)


def granted_group(effects: list[Effect]) -> str | None:
    return next((e.group for e in effects if e.do == "group"), None)


def types_given(tables: Iterable[Table], group_id: str) -> frozenset[str]:
    """The group kinds the tables whose results give RG ``group_id`` make it
    (``gives_type``; APD 3.6: a German group of Row A is an infantry group)."""
    return frozenset(
        t.gives_type
        for t in tables
        if t.gives_type and any(granted_group(row_effects(r)) == group_id for r in t.rows)
    )


def units_given(effects: list[Effect]) -> list[NewUnits]:
    out = GroupOutcome()
    on_group([e for e in effects if e.do == "units"], out)
    return out.units


# --------------------------------------------------------------------------- typed by players

_SHORT = re.compile(r"^\s*(?P<do>[A-Za-z][A-Za-z _-]*?)\s*(?::\s*(?P<arg>.+?))?\s*$")


def _counted(text: str) -> tuple[int, str, str | None]:
    """ "2 x M4A3 (vehicle)" → (2, "M4A3", "vehicle"); the count and the kind optional."""
    typed = re.match(r"^(?:(\d+)\s*[x×]\s*)?(.+?)(?:\s*\(([\w-]+)\))?$", text.strip())
    assert typed is not None  # the pattern matches any non-empty text
    return int(typed.group(1) or 1), typed.group(2), typed.group(3)


# ASL's notation for a unit counter, read where a player lists units without naming
# their kind (an Initial-Scenario OB line): "8-1" a leader, "4-6-7" a squad, "2-3-8 HS"
# a half-squad, "1-4-9 Hero" a Hero; anything else is "other" (the player may name the
# kind).
_LEADER = re.compile(r"^\d{1,2}[-+]\d\b(?!-)|\bleader\b", re.IGNORECASE)
_SQUAD = re.compile(r"^\d-\d-\d\b")
_HALF = re.compile(r"\b(HS|half[- ]squad|crew)\b", re.IGNORECASE)
_HERO = re.compile(r"\bhero\b", re.IGNORECASE)  # "1-4-9 Hero" (A15.2), not a squad
KIND_WORDS = {
    "squad": "squad",
    "hs": "half_squad",
    "half-squad": "half_squad",
    "half squad": "half_squad",
    "crew": "half_squad",
    "leader": "leader",
    "hero": "hero",
    "vehicle": "vehicle",
    "afv": "vehicle",
    "gun": "gun",
    "sw": "sw",
    "other": "other",
}


def unit_line(text: str) -> NewUnits:
    """A line of units as a player lists them ("2 x 4-6-7", "8-1 leader", "3 x Sherman
    III(a) (vehicle)"): how many, which, and of what kind."""
    count, name, kind = _counted(text)
    if kind is not None and kind.lower() in KIND_WORDS:
        return NewUnits(name, KIND_WORDS[kind.lower()], count)
    if kind is not None:  # a parenthesis that is part of the name: "Sherman III(a)"
        name = re.sub(r"^\d+\s*[x×]\s*", "", text.strip())
    if _HERO.search(name):
        return NewUnits(name, "hero", count)
    if _HALF.search(name):
        return NewUnits(name, "half_squad", count)
    if _SQUAD.search(name):
        return NewUnits(name, "squad", count)
    if _LEADER.search(name):
        return NewUnits(name, "leader", count)
    return NewUnits(name, "other", count)


def parse_short(text: str) -> dict[str, object]:
    """An effect as players type it in a supplied table: "eliminate", "status: ok",
    "strength: full", "leader: 8-1 leader", "units: 2 x M4A3 (vehicle)",
    "group: RA1", "san: -2", "side: axis", "replace lower: ok", "battle harden: 9-1",
    "type: m4", "none".  Returns the effect's data, which
    the schema then checks."""
    m = _SHORT.match(text)
    if not m:
        raise ValueError(f"'{text}' is not an effect (e.g. 'eliminate', 'status: ok')")
    # An effect of two words is typed as two ("battle harden: 9-1").
    do, arg = re.sub(r"[ -]+", "_", m["do"].lower()), (m["arg"] or "").strip()
    if do not in get_args(EffectName):
        words = ", ".join(e.replace("_", " ") for e in get_args(EffectName))
        raise ValueError(
            f"'{text}' is not an effect: write one of {words}, "
            "with what it needs after a colon (e.g. 'status: ok', 'san: -2')"
        )
    data: dict[str, object] = {"do": do}
    if do in ("status", "strength", "group", "side", "type"):
        data[do] = arg
    elif do in ("leader", "replace", "battle_harden"):
        data["unit"] = arg
    elif do == "replace_lower" and arg:
        data["status"] = arg
    elif do == "rejoin":
        data["kind"] = arg or "sw"
    elif do == "units":
        count, unit, kind = _counted(arg)
        data.update(count=count, unit=unit, kind=kind or "other")
    elif do == "harden_mmc":
        try:
            data["count"] = int(arg)
        except ValueError:
            raise ValueError(f"'{text}': how many MMC, e.g. 'harden mmc: 2'") from None
    elif do == "san":
        try:
            data["by"] = int(arg)
        except ValueError:
            raise ValueError(f"'{text}': SAN changes by a whole number, e.g. 'san: -2'") from None
    return data


def short(effect: Effect) -> str:
    """An effect as ``parse_short`` reads it (to prefill a form)."""
    if effect.do in ("status", "strength", "group", "side", "type"):
        return f"{effect.do}: {getattr(effect, effect.do)}"
    if effect.do == "battle_harden":
        return f"battle harden: {effect.unit}"
    if effect.do in ("leader", "replace"):
        return f"{effect.do}: {effect.unit}"
    if effect.do == "units":
        return f"units: {effect.count} x {effect.unit} ({effect.kind})"
    if effect.do == "replace_lower":
        return "replace lower" + (f": {effect.status}" if effect.status else "")
    if effect.do == "san":
        return f"san: {effect.by:+d}"
    if effect.do == "harden_mmc":
        return f"harden mmc: {effect.count}"
    if effect.do == "rejoin":
        return f"rejoin: {effect.kind}"
    return effect.do


# --------------------------------------------------------------------------- a stack's roll


def stack_refusal(table: Table, named: str, joining: UnitState) -> str:
    """Why ``joining`` may not use the same roll on ``table`` as the unit ``named`` (""
    if it may): the table is made for one unit at a time, or the unit is not of the
    kinds its stack takes (Sicily 3.606: Infantry only, the '*' DRM being NA to vehicle
    Escape) or not one it is rolled for."""
    if table.stack is None:
        return f"The {table.title} ({table.rule}) is made for one unit at a time."
    if joining.kind not in table.stack.kinds or not matches(table.for_units, joining):
        return (
            f"{joining.name} cannot use the same {table.title} DR as {named} ({table.stack.rule})."
        )
    return ""


def overstack_refusal(table: Table, kinds: Sequence[str]) -> str:
    """Why units of these kinds may not make one roll on ``table`` together ("" if they
    may): more HS-equivalents than a Location holds (PHD C5.13a "No unit may overstack
    during Redeployment").  The units already at its end are the map's."""
    limit = table.stack.overstack if table.stack else None
    if limit is None:
        return ""
    hs = hs_equivalents(kinds)
    if hs <= limit.hs:
        return ""
    squads = f"{limit.hs // 2} squads" if limit.hs % 2 == 0 else f"{limit.hs} half-squads"
    return (
        f"No unit may overstack: a stack of {hs} HS-equivalents is more than a "
        f"Location holds ({squads} or their equivalent; {limit.rule}).  Redeploy it as "
        "two stacks."
    )


def falls_on_one(table: Table, final: int, original: int | None = None) -> bool:
    """Whether a stack's roll with this result falls on one of its units, picked by
    Random Selection (Sicily 3.606 footnote 3), rather than on each."""
    if table.stack is None:
        return False
    row = table.result_row(final, original)
    if isinstance(row, OriginalRoll):  # 3.606 footnote 1: Heat of Battle for one
        return row.roll in table.stack.random_original
    return isinstance(row, TableRow) and row.range in table.stack.random


def sent_on(table: Table, earlier: Table, finals: Iterable[tuple[int, int]]) -> bool:
    """Whether one of a unit's rolls on ``earlier`` (each its final and its dice's sum)
    gave a row ``table.after`` names, sending the unit to ``table`` (Sicily 3.613 †)."""
    if table.after is None:
        return True
    wanted = set(table.after.ranges)
    for final, original in finals:
        row = earlier.result_row(final, original)
        if isinstance(row, TableRow) and row.range in wanted:
            return True
    return False


def not_sent_refusal(table: Table, earlier: Table, what: str) -> str:
    """Why ``what`` may not roll on ``table``: no roll of it on ``earlier`` in this pass
    gave a row ``table.after`` names (Sicily 3.613 †)."""
    assert table.after is not None
    return (
        f"{what} has no {table.title} to roll: only a unit whose {earlier.title} gave "
        f"{' or '.join(table.after.ranges)} in this pass rolls it ({table.after.rule})."
    )
