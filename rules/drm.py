"""Which DRMs apply to a roll, and with what value: pure functions over the module.

A DRM with ``when`` applies by itself when the condition holds; one with ``of`` is
computed from a campaign quantity; a ``variable`` one takes the value the player
types; any other is ticked by the player.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from rules.effects import names_any
from rules.schema import (
    LEADER_RATING,
    Condition,
    Drm,
    HeldSquads,
    QualifiedUsers,
    ReinforcementGroup,
    Table,
)
from rules.text import printed

VARIABLE_LIMIT = 9  # a typed DRM is a single ASL modifier, never more than ±9


@dataclass(frozen=True)
class RollContext:
    side: str
    nationalities: tuple[str, ...] = ()
    night: bool = False
    initial_scenario: bool = False
    chose_attack_previous: bool = False
    inputs: Mapping[str, int] = field(default_factory=dict)
    group: ReinforcementGroup | None = None  # the RG rolled for, or the unit's RG
    strength: str | None = None  # "full" / "depleted", once known
    roll_number: int = 1  # the n-th of the RG's rolls on the table
    unit_kind: str | None = None  # the kind of the retained unit rolled for, if any
    unit_markers: frozenset[str] = frozenset()  # its markers ({"ok"}: none)
    cost_variant: str = ""  # the price the RG rolled for was bought at ("" printed)
    rolled_types: frozenset[str] = frozenset()  # group kinds the RG's earlier rolls gave
    # The side's retained, non-captured squads by the chart footnotes of their RGs
    # (``Condition.held_squads``); None: not read for this roll (the condition holds).
    squads_by_footnote: Mapping[str, int] | None = None
    # An earlier module of the RG rolled for placed an FFE in the scenario just played
    # (``Condition.fired_prior``, PHD C5.34/TM13).
    fired_prior: bool = False
    # Where a ``read`` input came from on the record, said with the DRM it gives (APD
    # 2.5: "8-1 leader at 20A1"): input -> words.
    read_from: Mapping[str, str] = field(default_factory=dict)
    # The item the roll names (``Condition.item_named``); None: not known yet (a
    # page's offer, before the player types it): the condition may hold.
    item: str | None = None
    # The name of the retained unit rolled for, and the chart footnotes of the RG of the
    # unit that possesses it (none: no possessor, or one of no RG), for
    # ``Condition.not_qualified_possessor`` (PHD MSR8, C5.26a).
    unit_name: str | None = None
    possessor_footnotes: frozenset[str] = frozenset()
    # The unit rolled for stands in a Setup Area the other side lists (Sicily 3.605,
    # ``Condition.in_enemy_setup_area``); False: not, or not known to.
    in_enemy_setup_area: bool = False


@dataclass(frozen=True)
class AppliedDrm:
    id: str
    label: str
    value: int
    how: str  # "auto", "ticked", "typed"


class DrmRefused(ValueError):
    pass


def holds(cond: Condition | None, ctx: RollContext) -> bool:
    """Whether every given part of the condition holds for the roll's context."""
    if cond is None:
        return True
    g = ctx.group
    return (  # in order, stopping at the first part that fails
        (cond.sides is None or ctx.side in cond.sides)
        and (
            cond.nationalities is None or not set(cond.nationalities).isdisjoint(ctx.nationalities)
        )
        and (cond.groups is None or (g is not None and g.id in cond.groups))
        and (
            cond.id_prefixes is None or (g is not None and g.id.startswith(tuple(cond.id_prefixes)))
        )
        and (cond.tags is None or (g is not None and not set(cond.tags).isdisjoint(g.tags)))
        and (cond.not_tags is None or g is None or set(cond.not_tags).isdisjoint(g.tags))
        and (cond.strength is None or ctx.strength == cond.strength)
        and (cond.night is None or ctx.night == cond.night)
        and (
            cond.chose_attack_previous is None
            or ctx.chose_attack_previous == cond.chose_attack_previous
        )
        and (cond.initial_scenario is None or ctx.initial_scenario == cond.initial_scenario)
        and (cond.first_roll is None or (ctx.roll_number == 1) == cond.first_roll)
        and (
            cond.footnotes is None
            or (g is not None and not set(cond.footnotes).isdisjoint(g.footnotes))
        )
        and (cond.unit_kinds is None or ctx.unit_kind in cond.unit_kinds)
        and (cond.not_unit_kinds is None or ctx.unit_kind not in cond.not_unit_kinds)
        and (cond.unit_markers is None or not ctx.unit_markers.isdisjoint(cond.unit_markers))
        and (cond.not_unit_markers is None or ctx.unit_markers.isdisjoint(cond.not_unit_markers))
        and (cond.cost_variants is None or ctx.cost_variant in cond.cost_variants)
        and (cond.not_cost_variants is None or ctx.cost_variant not in cond.not_cost_variants)
        and (
            cond.with_units is None
            or (g is not None and (g.unit_kind is not None) == cond.with_units)
        )
        and (cond.group_kinds is None or (g is not None and g.unit_kind in cond.group_kinds))
        and (cond.rolled_types is None or not ctx.rolled_types.isdisjoint(cond.rolled_types))
        and (
            cond.grants is None
            or (g is not None and any(g.grants.get(what) for what in cond.grants))
        )
        and (cond.held_squads is None or holds_squads(cond.held_squads, ctx))
        and (cond.of_rg is None or (ctx.unit_kind is not None and (g is not None) == cond.of_rg))
        and (cond.fired_prior is None or (g is not None and ctx.fired_prior == cond.fired_prior))
        and (cond.item_named is None or ctx.item is None or names_any(ctx.item, cond.item_named))
        and (
            cond.not_qualified_possessor is None
            or not in_qualified_hands(cond.not_qualified_possessor, ctx)
        )
        and (
            cond.in_enemy_setup_area is None or ctx.in_enemy_setup_area == cond.in_enemy_setup_area
        )
    )


def in_qualified_hands(qualified: QualifiedUsers, ctx: RollContext) -> bool:
    """Whether the unit rolled for is one of the weapons ``qualified`` names, possessed
    by a unit of an RG marked with one of its footnotes (PHD MSR8: an FT or DC an
    Assault Engineer MMC possesses)."""
    return (
        ctx.unit_name is not None
        and names_any(ctx.unit_name, qualified.names)
        and not ctx.possessor_footnotes.isdisjoint(qualified.footnotes)
    )


# The parts of a condition that read the roll itself (its date, its unit, the results
# of the RG's earlier rolls), not the RG: ``may_hold`` reads them as possible.
_ROLL_PARTS = {
    "strength": None,
    "night": None,
    "chose_attack_previous": None,
    "initial_scenario": None,
    "first_roll": None,
    "unit_kinds": None,
    "not_unit_kinds": None,
    "unit_markers": None,
    "not_unit_markers": None,
    "rolled_types": None,
    "held_squads": None,
    "of_rg": None,
    "fired_prior": None,
    "item_named": None,
    "not_qualified_possessor": None,
    "in_enemy_setup_area": None,
}


def may_hold(cond: Condition | None, ctx: RollContext) -> bool:
    """Whether the condition can hold for the RG of ``ctx`` (its side, id, kinds,
    footnotes, price) on some roll: the parts that read the roll itself are read as
    holding."""
    return cond is None or holds(cond.model_copy(update=_ROLL_PARTS), ctx)


def holds_squads(held: HeldSquads, ctx: RollContext) -> bool:
    """Whether the side holds ``held.at_least`` squads of RGs marked with one of its
    footnotes (PHD C5.28); unknown (not read for this roll, a page's offer): it may."""
    if ctx.squads_by_footnote is None:
        return True
    return sum(ctx.squads_by_footnote.get(f, 0) for f in held.footnotes) >= held.at_least


def reads_possessor(table: Table) -> bool:
    """Whether a roll on ``table`` needs who possesses the unit rolled for (its RG's
    footnotes: ``Condition.not_qualified_possessor``)."""
    return any(
        c is not None and c.not_qualified_possessor is not None
        for d in table.drms
        for c in (d.when, d.offer_when)
    )


def reads_held_squads(table: Table) -> bool:
    """Whether a roll on ``table`` needs the side's squads by RG footnote."""
    return any(
        c is not None and c.held_squads is not None
        for d in table.drms
        for c in (d.when, d.offer_when)
    )


def reads_fired(table: Table) -> bool:
    """Whether a DRM of ``table`` reads whether an earlier module of the RG rolled for
    placed an FFE (``Condition.fired_prior``, PHD C5.34): its rolls name their RG."""
    return any(
        c is not None and c.fired_prior is not None
        for d in table.drms
        for c in (d.when, d.offer_when)
    )


def reads_unit_rg(table: Table) -> bool:
    """Whether a DRM of ``table`` reads whether the unit rolled for is of an RG
    (``Condition.of_rg``, Sicily 3.6141d): a unit added by hand is then read as of the
    RG whose chart row names its counter (``Module.group_naming``)."""
    return any(
        c is not None and c.of_rg is not None for d in table.drms for c in (d.when, d.offer_when)
    )


def reads_setup_area(table: Table) -> bool:
    """Whether a DRM of ``table`` reads whether the unit rolled for stands in an enemy
    Setup Area (``Condition.in_enemy_setup_area``, Sicily 3.606)."""
    return any(
        c is not None and c.in_enemy_setup_area is not None
        for d in table.drms
        for c in (d.when, d.offer_when)
    )


def reads_unit_morale(table: Table) -> bool:
    """Whether a DRM of ``table`` counts the Morale of the unit rolled for (APD 2.5's
    and Sicily 3.6041's 1TC): its rolls are made for a unit whose counter prints one."""
    return any(d.of == "unit_morale" or d.read == "unit_morale" for d in table.drms)


def reads_location_leadership(table: Table) -> bool:
    """Whether a DRM of ``table`` is the leadership DRM of a leader in the Location of
    the unit rolled for, read where the record gives it (APD 2.5, A10.7)."""
    return any(d.read == "location_leadership" for d in table.drms)


def morale_is_read(table: Table) -> bool:
    """Whether the Morale ``reads_unit_morale`` reads may be missing from the record
    (a ``counted`` DRM ``read`` from it is then typed): no DRM needs it."""
    return not any(d.of == "unit_morale" for d in table.drms)


# A Personnel counter's figures as its line records them: a squad, half-squad, crew
# or Hero "FP-range-Morale" ("4-6-7", "2-3-8 Hero"), a leader "Morale-Leadership"
# ("8-1 leader", "6+1 leader").
_MMC_FIGURES = re.compile(r"(?<![\d-])\d{1,2}-\d{1,2}-(\d{1,2})(?![\d-])")


def unit_morale(name: str, kind: str, markers: Iterable[str] = ()) -> int | None:
    """The Morale of a unit, read from the counter its line names (None: it names none,
    e.g. "Sherman" or "Rifle squad"): a squad's, half-squad's or Hero's third figure, a
    leader's first (A1.1, A10.7); a wounded SMC's one less (A17.2)."""
    if kind == "leader":  # his quality first on his line, as the ladder reads it
        rating = LEADER_RATING.match(name.strip())
        morale = int(rating.group(0)[:-2]) if rating else None
    else:
        m = _MMC_FIGURES.search(name)
        morale = int(m.group(1)) if m else None
    if morale is None:
        return None
    return morale - (kind in ("leader", "hero") and "wounded" in markers)


def is_automatic(drm: Drm) -> bool:
    return drm.when is not None or drm.of is not None


def offered(drm: Drm, ctx: RollContext) -> bool:
    """Whether the player may claim this DRM on a roll in ``ctx`` (``offer_when``)."""
    return drm.offer_when is None or holds(drm.offer_when, ctx)


# The parts of a condition that read the unit a roll is made for.
UNIT_PARTS = (
    "unit_kinds",
    "not_unit_kinds",
    "unit_markers",
    "not_unit_markers",
    "of_rg",
    "not_qualified_possessor",
    "in_enemy_setup_area",
)


def offered_for_some_unit(drm: Drm, ctx: RollContext) -> bool:
    """Whether a form rolled for a unit the player chooses shows this DRM (Sicily 3.606
    "-1 If lone, unwounded SMC", offered for a leader or Hero): its ``offer_when`` with
    the parts that read the unit left to the roll, which refuses it for a unit it does
    not fit (``applicable_drms``)."""
    cond = drm.offer_when
    return cond is None or holds(cond.model_copy(update=dict.fromkeys(UNIT_PARTS)), ctx)


def scaled_value(drm: Drm, ctx: RollContext) -> int:
    amount = (ctx.inputs.get(drm.of, 0) if drm.of else 0) + drm.offset
    per = drm.per or 1
    steps = math.floor(amount / per) if drm.rounding == "FRD" else math.ceil(amount / per)
    value = drm.value * steps
    if drm.min is not None:
        value = max(drm.min, value)
    if drm.max is not None:
        value = min(drm.max, value)
    return value


def applicable_drms(
    table: Table,
    ctx: RollContext,
    *,
    ticked: Iterable[str] = (),
    typed: Mapping[str, int] | None = None,
) -> list[AppliedDrm]:
    """The DRMs of a roll on ``table``; refuses ticks the table does not offer."""
    ticked = set(ticked)
    typed = dict(typed or {})
    by_id = {d.id: d for d in table.drms}
    for drm_id in ticked | set(typed):
        if drm_id not in by_id:
            raise DrmRefused(f"{table.title} has no DRM '{drm_id}'.")
        if is_automatic(by_id[drm_id]):
            rule = by_id[drm_id].rule or table.rule
            raise DrmRefused(
                f"'{printed(by_id[drm_id].label)}' applies by itself; it is not ticked ({rule})."
            )
        if not offered(by_id[drm_id], ctx):
            drm = by_id[drm_id]
            rule = f" ({drm.rule or table.rule})"
            if drm.not_offered:
                raise DrmRefused(f"'{printed(drm.label)}' does not apply: {drm.not_offered}{rule}.")
            raise DrmRefused(f"'{printed(drm.label)}' does not apply to this roll{rule}.")
    read_ids = set()
    for drm in table.drms:
        if drm.read is not None and drm.read in ctx.inputs:
            read = ctx.inputs[drm.read]
            if drm.id in typed and typed[drm.id] != read:
                rule = drm.rule or table.rule
                source = ctx.read_from.get(drm.read)
                raise DrmRefused(
                    f"'{printed(drm.label)}' is {read} on the record"
                    f"{f' ({source})' if source else ''}, not {typed[drm.id]}: it is read, "
                    f"not typed ({rule})."
                )
            typed[drm.id] = read
            read_ids.add(drm.id)
    for drm in table.drms:
        if drm.variable and drm.required and drm.id not in typed and offered(drm, ctx):
            rule = drm.rule or table.rule
            raise DrmRefused(
                f"Enter '{printed(drm.label)}': the roll is not made without it ({rule})."
            )
    out = []
    for drm in table.drms:
        if drm.counted is not None:
            if drm.id in typed:
                applied = counted_drm(table, drm, typed[drm.id])
                if applied.value:
                    out.append(applied)
            continue
        if drm.variable:
            if drm.id in typed:
                value = typed[drm.id]
                low = -VARIABLE_LIMIT if drm.min is None else max(drm.min, -VARIABLE_LIMIT)
                high = VARIABLE_LIMIT if drm.max is None else min(drm.max, VARIABLE_LIMIT)
                if not low <= value <= high:
                    rule = drm.rule or table.rule
                    raise DrmRefused(
                        f"'{printed(drm.label)}' must be between {low} and {high} ({rule})."
                    )
                if value and drm.id in read_ids:  # read from the record, with its source
                    source = ctx.read_from.get(drm.read or "")
                    label = f"{drm.label}: {source}" if source else drm.label
                    out.append(AppliedDrm(drm.id, label, value, "auto"))
                elif value:
                    out.append(AppliedDrm(drm.id, drm.label, value, "typed"))
            continue
        if drm.id in typed:
            raise DrmRefused(f"'{printed(drm.label)}' has a fixed value.")
        if drm.of is not None:
            if holds(drm.when, ctx):
                value = scaled_value(drm, ctx)
                if value:
                    out.append(AppliedDrm(drm.id, drm.label, value, "auto"))
        elif drm.when is not None:
            if holds(drm.when, ctx):
                # Where the record gives it, said with it (Sicily 3.606: the unit's
                # Setup Area and who lists it).
                source = (
                    ctx.read_from.get("in_enemy_setup_area")
                    if drm.when.in_enemy_setup_area is not None
                    else None
                )
                label = f"{drm.label}: {source}" if source else drm.label
                out.append(AppliedDrm(drm.id, label, drm.value, "auto"))
        elif drm.id in ticked:
            out.append(AppliedDrm(drm.id, drm.label, drm.value, "ticked"))
    _exclusive(table, {d.id for d in out})
    return out


COUNT_LIMIT = 99  # what a player counts for a DRM (hexes along a path)


def counted_drm(table: Table, drm: Drm, count: int) -> AppliedDrm:
    """The DRM a typed count gives (``Drm.counted``: Sicily 3.613 "+1 Per five (FRD)
    Uncontrolled-Territory hexes"): ``value`` per ``per`` of the count, rounded."""
    assert drm.counted is not None and drm.per is not None
    high = COUNT_LIMIT if drm.max is None else min(drm.max, COUNT_LIMIT)
    if not 0 <= count <= high:
        rule = drm.rule or table.rule
        raise DrmRefused(f"The {drm.counted} must be between 0 and {high} ({rule}).")
    steps = math.floor(count / drm.per) if drm.rounding == "FRD" else math.ceil(count / drm.per)
    return AppliedDrm(drm.id, f"{drm.label}: {count} {drm.counted}", drm.value * steps, "typed")


def _exclusive(table: Table, applied: set[str]) -> None:
    """Refuses two DRMs of a roll that exclude each other (``Drm.excludes``): Sicily
    3.606 "-2 If adjacent to a friendly Setup Area (-1 if two hexes away ...)"."""
    by_id = {d.id: d for d in table.drms}
    for drm in table.drms:
        for other in drm.excludes:
            if drm.id in applied and other in applied:
                rule = drm.rule or table.rule
                raise DrmRefused(
                    f"'{printed(drm.label)}' and '{printed(by_id[other].label)}' do not both "
                    f"apply to one roll ({rule}): claim one of them."
                )


def after_value(label: str, value: int) -> str:
    """A DRM's name as printed after its signed ``value`` ("+1 Unit is Isolated" after
    "+1" is "Unit is Isolated"): a name the rules print with that same value does not
    say it twice, nor does a name that starts with the sign alone ("- the unit's
    Morale" after "-7") or with both signs ("+/- Leadership" after "-1"); a name that
    starts with its rate ("+1 per HS-equivalent ...") reads as the rate the value was
    counted at ("+2 at +1 per HS-equivalent ..."); any other name is kept whole.  A
    name the printed rule cuts short says so (``text.printed``)."""
    label = printed(label)
    if not value:
        return label
    name = label.removeprefix(f"{value:+d} ").removeprefix("+/- ")
    name = name.removeprefix("- " if value < 0 else "+ ")
    if name == label and _RATE.match(label):
        return f"at {label}"
    return name


_RATE = re.compile(r"[+\-−]\d+ per ")
