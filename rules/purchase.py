"""What a side may buy now, and at what cost: pure functions over the module.

Every refusal is a sentence with its rule, shown on the purchase page beside the RG
and returned when a purchase is refused.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence, Set
from dataclasses import dataclass, replace
from fractions import Fraction

from rules.drm import RollContext, holds, may_hold
from rules.schema import (
    AddLater,
    ComesWith,
    CostVariant,
    CountLimit,
    DateWindow,
    Module,
    Prerequisite,
    ReinforcementGroup,
    RequiresRetained,
    ResultCap,
    RGChart,
    UnitReminder,
)
from rules.snapshot import Bought
from rules.text import cited


@dataclass(frozen=True)
class CostOption:
    variant: str  # "" for the printed cost
    label: str
    cost: int
    implies: str = ""


def price_column(cv: CostVariant) -> str:
    """A cost variant's column header in the RG chart: its short name, else its label."""
    return cv.short or cv.label


def group_context(
    module: Module, side: str, group: ReinforcementGroup, cost_variant: str = ""
) -> RollContext:
    """What the conditions on an RG read: its side, nationalities, the RG, its price."""
    nationalities = tuple(module.side(side).nationalities)
    return RollContext(side, nationalities, group=group, cost_variant=cost_variant)


def printed_implies(module: Module, side: str, group: ReinforcementGroup | None) -> str:
    """What ``group`` bought at its printed cost implies, with the rule, as its RG
    Purchase Record line says it ("" when the module says nothing of it for this RG;
    Sicily 3.6175: an RG bought for its printed value enters during the scenario)."""
    columns = module.purchase_record
    printed = columns.printed_price if columns is not None else None
    if printed is None or group is None or group.setup_on_map_free:
        return ""
    if not holds(printed.applies_to, group_context(module, side, group)):
        return ""
    return f"printed cost: {cited(printed.implies, printed.rule)}"


def implies_of(cv: CostVariant, side: str) -> str:
    """What a price obliges ``side``'s RG: its ``implies``, then what it obliges that
    side only (``implies_by_side``); "" where it says nothing."""
    return " ".join(w for w in (cv.implies, cv.implies_by_side.get(side)) if w)


def implied_words(cv: CostVariant, side: str) -> str:
    """What a price obliges ``side``'s RG, with its rule, as the RG Purchase Record line
    says it after the price's label ("The RG must be set up on-map in Reserve (SSR CG6;
    3.4; 3.6175)", Sicily 3.6175); "" where the price says nothing."""
    words = implies_of(cv, side)
    if not words:
        return ""
    return cited(words, cv.rule or "")


def free_setup_words(module: Module, side: str, group: ReinforcementGroup) -> str:
    """What an RG that sets up on-map at no extra cost on its purchase date may do, in
    its chart footnote's words with the footnote cited (Sicily Axis chart footnote g,
    British f); "" where the chart names no such footnote."""
    chart = module.chart(side)
    letter = chart.setup_on_map_free_footnote if chart is not None else None
    if chart is None or letter is None or not group.setup_on_map_free:
        return ""
    name = module.side(side).name
    return cited(chart.footnotes[letter], f"{chart.rule} {name} chart footnote {letter}")


def price_obliges(
    module: Module, side: str, group: ReinforcementGroup | None, cost_variant: str
) -> str:
    """What an RG's price obliges for its set-up or entry, in its RG Purchase Record
    line's words (Sicily 3.6175: in Reserve; for Standard On-Map Setup; at its printed
    value it enters during the scenario; chart footnotes g/f: on-map at no extra cost);
    "" where the module says nothing of it."""
    if group is None:
        return ""
    if cost_variant:
        cv = next((c for c in module.cost_variants if c.id == cost_variant), None)
        if cv is None:
            return ""
        said = implied_words(cv, side)
        return f"{cv.label}: {said}" if said else ""
    return printed_implies(module, side, group) or free_setup_words(module, side, group)


def reminded_rgs(
    module: Module,
    reminders: Sequence[UnitReminder],
    side: str,
    held: Sequence[tuple[str, str, str]],
) -> list[tuple[UnitReminder, list[str]]]:
    """For each of a step's ``reminders`` naming RGs (``UnitReminder.rgs``) the words of
    ``side``'s held RG lines it selects (``held``: each line's words, RG ID and price),
    where it selects any: Sicily Axis chart footnote f lists the side's O1 modules."""
    out = []
    for r in reminders:
        if r.rgs is None:
            continue
        named = [
            words
            for words, group_id, cost_variant in held
            if (group := module.group(side, group_id)) is not None
            and holds(r.rgs, group_context(module, side, group, cost_variant))
        ]
        if named:
            out.append((r, named))
    return out


def enters_later(module: Module, side: str, group: ReinforcementGroup, cost_variant: str) -> bool:
    """Whether ``group`` bought at ``cost_variant`` ("" its printed cost) enters play
    during the scenario rather than setting up on the map (``PurchaseRecordColumns.
    printed_price``; Sicily 3.6175: "If an Axis or British RG is purchased for its printed
    value it enters play during the course of the scenario")."""
    return not cost_variant and bool(printed_implies(module, side, group))


def records_objective(module: Module, side: str, group: ReinforcementGroup | None) -> bool:
    """Whether ``group``'s RG Purchase Record line records an Objective Hex (Sicily
    3.6179: "each Coy size RG")."""
    columns = module.purchase_record
    return (
        columns is not None
        and group is not None
        and holds(columns.objective_hex, group_context(module, side, group))
    )


def records_strength(module: Module, side: str, group: ReinforcementGroup | None) -> bool:
    """Whether ``group``'s RG Purchase Record line records a Str (``PurchaseRecordColumns.
    strength``; Sicily 3.6179: "The RG's strength, as determined in RePh step 3.6181")."""
    columns = module.purchase_record
    if columns is None or columns.strength is None:
        return True
    return group is not None and holds(columns.strength, group_context(module, side, group))


def makes_rolls(module: Module, side: str, group: ReinforcementGroup, cost_variant: str) -> bool:
    """Whether an RG of ``group`` bought at ``cost_variant`` has any secret roll to make
    (``Module.post_purchase``): one whose condition on the RG can hold.  An RG with none
    (an OBA module, a Recon, a Bombardment) is only recorded when its rolls are made."""
    ctx = group_context(module, side, group, cost_variant)
    return any(may_hold(pp.applies_to, ctx) for pp in module.post_purchase)


def ob_line_refusal(module: Module, group_id: str) -> str:
    """Why a line of the Initial-Scenario OB cannot be cancelled as a purchase: the OB
    gives it (Sicily 3.6179: "one line is also filled out for each RG given in the
    Initial Scenario OB"); the players amend the OB itself, by consent."""
    record = module.purchase_record
    cited = f" ({record.rule})" if record is not None and record.rule else ""
    return (
        f"{group_id} is given by the Initial-Scenario OB, not bought: it cannot be "
        f"cancelled{cited}. Amend the OB under Rules data instead."
    )


def brings_own_line(module: Module, group: ReinforcementGroup) -> bool:
    """Whether an RG whose chart row names no unit kind still joins the retained forces
    as a line of its own (an OBA module, a Bombardment, an Offboard Observer): any but
    one that gives only points (``grants``: a Sniper's SAN, FPP) or the Recon."""
    return not group.grants and not (module.recon is not None and module.recon.group == group.id)


def own_line_leaves(module: Module, group: ReinforcementGroup | None, state: str) -> bool:
    """Whether the line an RG is on its own (``brings_own_line``: a Bombardment, an OBA
    module) leaves the retained forces when the RG is marked ``state``: when it is
    Eliminated, the line being the RG itself (British chart footnote i: "that
    Bombardment RG is Eliminated")."""
    return (
        state == "eliminated"
        and group is not None
        and group.unit_kind is None
        and brings_own_line(module, group)
    )


def received_when_recorded(module: Module, side: str, group: ReinforcementGroup) -> list[str]:
    """What an RG with no secret roll (``makes_rolls``) receives when it is recorded,
    in the chart's words: its row's units at Full strength (no roll depletes it), then
    what comes with them ("80+mm OBA Module", "radio"; British chart footnote e);
    nothing for one that gives only points or the Recon (they came with its purchase)."""
    out: list[str] = []
    if group.unit_kind is not None and group.full:
        out.append(f"{group.full} {group.units}")
    elif group.unit_kind is None and brings_own_line(module, group):
        out.append(group.units)
    out += [
        f"{k} {unit}" if k > 1 else unit
        for unit, _, k in comes_with(module, side, group, group.full or 0)
    ]
    return out


# A hex as the map names it: a board's number (none on a map of one piece), the hex
# row's letter(s) and its number ("33B10", "4N3", "A21").
HEX_ID = re.compile(r"\d{0,3}[A-Z]{1,2}\d{1,2}")


def hexes_in(text: str) -> list[str]:
    """The hexes ``text`` names, in its order, as the map names them ("23k4" is 23K4)."""
    return HEX_ID.findall(text.upper())


def same_hex(a: str, b: str) -> bool:
    """Whether two hex names read as one hex: the same name, or the same hex row and
    number where one of them omits its board ("K4" and "23K4"; "23K4" and "31K4" are
    not: each names its board)."""
    a, b = a.upper(), b.upper()
    if a == b:
        return True
    bare_a, bare_b = a.lstrip("0123456789"), b.lstrip("0123456789")
    return bare_a == bare_b and (bare_a == a or bare_b == b)


def hexes_met(named: str, others: str) -> list[str]:
    """The hexes of ``others`` that a hex ``named`` names reads as (``same_hex``), in
    ``others``' order: "Wire in K4" meets "23K4" of "A-P mines at 23K4"."""
    mine = hexes_in(named)
    return [h for h in hexes_in(others) if any(same_hex(h, m) for m in mine)]


def hex_refusal(group: ReinforcementGroup, where: str) -> str | None:
    """Why ``where`` cannot be the hex ``group``'s line records (its label and rule in
    the sentence); None when it reads as a hex (or is blank: not given)."""
    asked = group.records_hex
    if asked is None or not where.strip() or HEX_ID.fullmatch(where.strip().upper()):
        return None
    return (
        f"the {asked.label} of {group.id} {group.type} ({asked.rule}) is a hex of the map, "
        "as its board number, hex row letter and number (e.g. 33B10)"
    )


def recorded_hex_refusal(group: ReinforcementGroup, where: str) -> str | None:
    """Why ``group`` cannot be bought with ``where`` as the hex its purchase records
    (``ReinforcementGroup.records_hex``; British chart footnote i: "he records a secret
    Pre-Registered hex for it"), in the rules' words; None when it can.  A hex given
    for an RG that records none is not read (the chart's column form sends the one
    field with every RG of its column)."""
    asked = group.records_hex
    malformed = hex_refusal(group, where)
    if malformed:
        return malformed
    # A hex recorded again on each date (footnote j) is asked before its step, not
    # with the purchase: it may be given here, or later on the line.
    if asked is not None and asked.each_date_before is None and not where.strip():
        return (
            f"when {group.id} {group.type} is purchased, its {asked.label} is recorded "
            f"with it ({asked.rule}): name the hex"
        )
    return None


def hexes_due_before(module: Module, side: str, step_ids: Iterable[str]) -> bool:
    """Whether some RG of ``side``'s chart records a hex again on each CG Date before
    one of the steps ``step_ids`` (British chart footnote j): where none does, a Done
    there owes no hex and reads no purchase for one."""
    chart = module.chart(side)
    ids = set(step_ids)
    return chart is not None and any(
        g.records_hex is not None and g.records_hex.each_date_before in ids for g in chart.groups
    )


def hex_due(group: ReinforcementGroup | None, step_id: str) -> str:
    """The label of the hex ``group``'s line must record on the current CG Date before
    its owner finishes step ``step_id`` ("" when none is due there; British chart
    footnote j: the Offboard Observer's hex, "prior to German setup")."""
    asked = group.records_hex if group is not None else None
    if asked is None or asked.each_date_before != step_id:
        return ""
    return asked.label


def comes_with(
    module: Module, side: str, group: ReinforcementGroup, units: int
) -> list[tuple[str, str, int]]:
    """What ``group`` of ``units`` units brings besides them, as (unit, kind, how
    many): its own row's, then what its chart gives the RGs it selects (PHD C5.31 RG
    footnote c: a HS with each MMG/HMG); none of what would be 0."""
    chart = module.chart(side)
    ctx = group_context(module, side, group)
    given = [c for c in (chart.comes_with if chart else []) if holds(c.applies_to, ctx)]
    out: list[tuple[str, str, int]] = []
    for c in [*group.comes_with, *given]:
        k = c.count * (units if c.per == "unit" else 1)
        if k:
            out.append((c.unit, c.kind, k))
    return out


def depleted_lacking(module: Module, side: str, group: ReinforcementGroup | None) -> str:
    """Why a Depleted ``group`` receives no units yet ("" when its Depleted figure is
    known): its chart prints no Depleted figure (Sicily I2, I8 and British I5
    "2;2/c": the cell is a footnote), the module declares it missing with a supply
    path, and the players have not supplied it.  Never the Full figure silently."""
    if group is None or group.depleted is not None:
        return ""
    path = f"rg_charts.{side}.groups.{group.id}.depleted"
    lack = next((m for m in module.missing if m.supply == path), None)
    if lack is None:
        return ""
    printed = f" (the chart prints “{group.strength_text}”)" if group.strength_text else ""
    return (
        f"the rules text gives no Depleted number of units for {group.id} {group.type}"
        f"{printed}; {lack.rule}: supply it under Rules data, then add the units it "
        "receives to the retained forces"
    )


def missing_at(group: ReinforcementGroup, units: int | None) -> list[tuple[str, int]]:
    """The units a Depleted RG of ``units`` lacks from its Full chart row, by type, as
    (type, how many): Sicily I1 "4-5-8;4-5-7;4-4-7 (4/3 each)" Depleted lacks one of
    each; an RG of one type lacks ``full - units`` of it; none where the chart prints no
    count (its units' own rolls decide, footnote m)."""
    if group.full is None or units is None or units >= group.full:
        return []
    types = group.unit_types or [group.units]
    each_full, each_now = group.full // len(types), units // len(types)
    return [(t, each_full - each_now) for t in types if each_full > each_now]


def leaving_with(
    module: Module, side: str, group: ReinforcementGroup | None, state: str
) -> list[ComesWith]:
    """What ``group`` brought (``comes_with``) that leaves the retained forces when
    the RG is marked ``state``: Sicily 3.6046 "If an OBA RG has been used ... remove
    its radio"."""
    if group is None:
        return []
    chart = module.chart(side)
    ctx = group_context(module, side, group)
    given = [c for c in (chart.comes_with if chart else []) if holds(c.applies_to, ctx)]
    return [c for c in [*group.comes_with, *given] if state in c.leaves_when]


def not_marked(module: Module, side: str, group: ReinforcementGroup, cv: CostVariant) -> bool:
    """``cv`` is only for the RGs ``side``'s chart marks with a footnote that ``group``
    lacks, and the chart marks some RG with it (PHD RG footnote a)."""
    only = cv.marked_only
    if only is None or only.footnote in group.footnotes:
        return False
    chart = module.chart(side)
    return chart is not None and any(only.footnote in g.footnotes for g in chart.groups)


def cost_options(
    module: Module, side: str, group: ReinforcementGroup, *, initial: bool = False
) -> list[CostOption]:
    """The printed cost, then each cost variant that applies (3.6175-style): at the
    cost the chart prints for it, else at the printed cost × its factor, plus what it
    adds (PHD RG footnote p: +2 TP per Pre-Registered hex).  An RG that
    sets up on map at no extra cost (``setup_on_map_free``) is not offered the on-map
    price; one a ``replaces_printed`` variant applies to is not offered the bare
    printed cost (PHD C5.32: a set-up is always chosen).  ``initial``: the Initial
    Scenario's purchases, where a variant's ``printed_when`` may hold (PHD I2)."""
    out = []
    replaced = False
    ctx = group_context(module, side, group)
    at_start = replace(ctx, initial_scenario=initial)
    costs: dict[str, int] = {}
    for cv in module.cost_variants:
        if cv.on_map and group.setup_on_map_free:
            continue
        if not holds(cv.applies_to, ctx):
            continue
        printed = (
            cv.printed_when is not None
            and group.cost is not None
            and holds(cv.printed_when, at_start)
        )
        if not printed and not_marked(module, side, group, cv):
            continue
        if printed and group.cost is not None:
            cost: int = group.cost
        elif cv.id in group.costs:
            cost = group.costs[cv.id]
        elif cv.over is not None:
            if cv.over not in costs:
                continue  # not offered the price it adds to
            cost = costs[cv.over] + cv.adds
        elif (cv.factor or cv.adds) and group.cost is not None:
            exact = group.cost * Fraction(cv.factor or "1")
            cost = (math.floor(exact) if cv.rounding == "FRD" else math.ceil(exact)) + cv.adds
        else:
            continue
        costs[cv.id] = cost
        out.append(CostOption(cv.id, cv.label, cost, implies_of(cv, side)))
        replaced = replaced or cv.replaces_printed
    if group.cost is not None and not replaced:
        out.insert(0, CostOption("", "printed", group.cost))
    return out


@dataclass(frozen=True)
class PurchaseCounts:
    """How many of one RG a side has bought (its Initial-Scenario OB aside, 3.6179) in
    the CG and on the current date, against the chart's maxima (None: no limit)."""

    in_cg: int
    on_date: int
    cg_max: int | None
    date_max: int | None

    @property
    def cg_left(self) -> int | None:
        return None if self.cg_max is None else max(0, self.cg_max - self.in_cg)

    @property
    def date_left(self) -> int | None:
        return None if self.date_max is None else max(0, self.date_max - self.on_date)


def purchase_counts(
    group: ReinforcementGroup, *, variant: str, date_index: int, bought: Sequence[Bought]
) -> PurchaseCounts:
    """``group``'s purchases counted toward its CG and CG-date maxima (3.617)."""
    mine = [b for b in bought if b.group_id == group.id and not b.initial]
    return PurchaseCounts(
        in_cg=len(mine),
        on_date=sum(1 for b in mine if b.date_index == date_index),
        cg_max=group.cg_max.get(variant),
        date_max=group.date_max,
    )


def unavailable(
    module: Module,
    *,
    variant: str,
    side: str,
    group: ReinforcementGroup,
    date_index: int,
    bought: Sequence[Bought],
    retained_tags: Set[str] = frozenset(),
    result_totals: Mapping[str, int] | None = None,
) -> list[str]:
    """Why ``group`` cannot be bought now (empty: it can, budget aside).  RGs of the
    Initial-Scenario OB count only toward what is held at a time (3.6179); what is held
    at a time counts only the RGs still in the OB (not eliminated, withdrawn or used)."""
    reasons = []
    chart = module.chart(side)
    assert chart is not None, "a group is always on its side's chart"
    date = module.dates[date_index]
    held = [b for b in bought if b.state == "held"]
    n = purchase_counts(group, variant=variant, date_index=date_index, bought=bought)
    bought = [b for b in bought if not b.initial]
    if n.date_max == 0:
        # A CG Date Max of 0 is the chart's "NA": never purchasable, not a reached count.
        reasons.append(
            f"the {chart.title} prints NA as its {chart.date_max_name or 'CG Date Max'}: "
            f"never purchasable ({chart.rule})"
        )
    elif n.cg_max == 0:
        # A CG Max of 0 in the CG's column: the RG is not available in that CG at all.
        name = module.variant(variant).name
        reasons.append(
            f"not available in {name}: the {chart.title} prints 0 as its "
            f"{chart.cg_max_name or 'CG Max'} for {name} ({chart.rule})"
        )
    elif n.cg_left == 0:
        reasons.append(
            f"the {chart.cg_max_name or 'CG maximum'} is reached ({n.in_cg} of {n.cg_max} "
            "bought in "
            f"{module.variant(variant).name}; {chart.rule})"
        )
    if n.date_left == 0 and n.date_max:
        reasons.append(
            f"the {chart.date_max_name or 'CG date maximum'} is reached ({n.on_date} of "
            f"{n.date_max} on {date.label}; "
            f"{chart.rule})"
        )
    recon = module.recon
    if (
        recon is not None
        and recon.group == group.id
        and recon.not_for_initial
        and module.variant(variant).start_date == date.id
    ):
        # Its one use, the Recon dr, is never made while preparing an Initial Scenario.
        reasons.append(f"no Recon while preparing the Initial Scenario ({recon.rule})")
    groups = {g.id: g for g in chart.groups}
    ctx = group_context(module, side, group)
    for r in chart.restrictions:
        if not holds(r.applies_to, ctx):
            continue
        if isinstance(r, DateWindow):
            reasons += outside(module, r, date_index)
        elif isinstance(r, CountLimit):
            counted = [
                b
                for b in (held if r.per == "held" else bought)
                if b.group_id in groups
                and holds(r.applies_to, group_context(module, side, groups[b.group_id]))
            ]
            if r.per == "date":
                counted = [b for b in counted if b.date_index == date_index]
                where = f"per CG date ({date.label})"
            elif r.per == "day":
                counted = [b for b in counted if module.dates[b.date_index].day == date.day]
                where = f"per calendar day ({date.day})"
            else:
                where = "in the OB at a time"
            if len(counted) >= r.max:
                reasons.append(f"no more than {r.max} {where} ({r.rule})")
        elif isinstance(r, Prerequisite):
            need = r.count_by_variant.get(variant, r.count)
            have = [
                b
                for b in bought
                if b.group_id in groups
                and holds(r.requires, group_context(module, side, groups[b.group_id]))
            ]
            if len(have) < need:
                names = ", ".join(r.requires.groups or r.requires.tags or [])
                reasons.append(
                    f"not until {need} {names} have been bought ({len(have)} so far; {r.rule})"
                )
        elif isinstance(r, RequiresRetained) and not set(r.retained_tags) & retained_tags:
            needed = [g.id for g in chart.groups if set(g.tags) & set(r.retained_tags)]
            held_rgs = f"one of {', '.join(needed)} held" if needed else "units it serves held"
            reasons.append(f"only with {held_rgs} ({r.rule})")
        elif isinstance(r, ResultCap):
            reasons += result_cap_reasons(module, r, side, groups, bought, result_totals or {})
    return reasons


def result_cap_reasons(
    module: Module,
    cap: ResultCap,
    side: str,
    groups: Mapping[str, ReinforcementGroup],
    bought: Sequence[Bought],
    totals: Mapping[str, int],
) -> list[str]:
    """Why one more RG of ``cap`` may not be bought: as many are bought over the CG as
    the side's total of the result figure it reads (PHD C5.31 RG footnote z)."""
    counted = sum(
        1
        for b in bought
        if b.group_id in groups
        and holds(cap.applies_to, group_context(module, side, groups[b.group_id]))
    )
    total = totals.get(cap.field, 0)
    if counted < total:
        return []
    label = next(f.label for f in module.result_fields if f.id == cap.field)
    return [f"only one for each of {label}: {total} so far, {counted} bought ({cap.rule})"]


def date_window_reasons(
    module: Module, *, side: str, group: ReinforcementGroup, date_index: int
) -> list[str]:
    """The chart's date windows that forbid ``group`` on this date: the limits that hold
    whatever the side holds (public: they read the module and the date only)."""
    chart = module.chart(side)
    assert chart is not None, "a group is always on its side's chart"
    ctx = group_context(module, side, group)
    return [
        reason
        for r in chart.restrictions
        if isinstance(r, DateWindow) and holds(r.applies_to, ctx)
        for reason in outside(module, r, date_index)
    ]


def outside(module: Module, window: DateWindow, date_index: int) -> list[str]:
    reasons = []
    if window.not_before and date_index < _index(module, window.not_before):
        reasons.append(f"not before {module.date(window.not_before).label} ({window.rule})")
    if window.not_after and date_index > _index(module, window.not_after):
        reasons.append(f"not after {module.date(window.not_after).label} ({window.rule})")
    return reasons


def roll_variants(module: Module, side: str, group: ReinforcementGroup) -> list[CostOption]:
    """The prices an RG of the Initial-Scenario OB may still be taken at before its
    rolls: those that change which rolls it makes (a post-purchase roll's condition
    names them: Sicily 3.6181 "[EXC: RG entering via Para drop]") at no other cost."""
    named = {
        cv
        for pp in module.post_purchase
        if pp.applies_to is not None
        for cv in [*(pp.applies_to.cost_variants or []), *(pp.applies_to.not_cost_variants or [])]
    }
    return [
        o for o in cost_options(module, side, group) if o.variant in named and o.cost == group.cost
    ]


def outlived(module: Module, side: str, bought: Sequence[Bought]) -> list[Bought]:
    """The RGs a side holds only while it holds others (a ``requires_retained``
    restriction: Sicily British footnote j, "Each Off board Observer is retained as
    long as the module he is assigned to is retained") whose others it holds no more."""
    chart = module.chart(side)
    if chart is None:
        return []
    groups = {g.id: g for g in chart.groups}
    held = [b for b in bought if b.state == "held" and b.group_id in groups]
    tags = retained_tags(chart, [b.group_id for b in held])
    out: list[Bought] = []
    for r in chart.restrictions:
        if isinstance(r, RequiresRetained) and not set(r.retained_tags) & tags:
            out += [
                b
                for b in held
                if b not in out
                and holds(r.applies_to, group_context(module, side, groups[b.group_id]))
            ]
    return out


def retained_tags(chart: RGChart, group_ids: Iterable[str]) -> set[str]:
    """The tags of the RGs a side holds (what "requires retained" rules test): pass
    only the RGs still in its OB."""
    groups = {g.id: g for g in chart.groups}
    return {t for gid in group_ids if gid in groups for t in groups[gid].tags}


def _index(module: Module, date_id: str) -> int:
    return next(i for i, d in enumerate(module.dates) if d.id == date_id)


@dataclass(frozen=True)
class Addition:
    """An RG line a further item may be bought for (``Module.add_later``): what the
    rules' conditions read of it."""

    group: ReinforcementGroup
    cost_variant: str  # the price it was bought at (what came with it)
    date_index: int  # the CG date it was bought on
    held: bool  # still in the side's OB
    added: int  # such items bought for it since


def add_later_options(module: Module, side: str, group: ReinforcementGroup) -> list[AddLater]:
    """The further items ``module.add_later`` sells for ``side``'s ``group``."""
    ctx = group_context(module, side, group)
    return [a for a in module.add_later if holds(a.applies_to, ctx)]


def add_later_reasons(
    module: Module, side: str, extra: AddLater, line: Addition, date_index: int
) -> list[str]:
    """Why ``extra`` cannot be bought now for ``line`` (PHD RG footnote p: for a module
    bought earlier, still held, within the limit counting those bought with it)."""
    rule = f" ({extra.rule})" if extra.rule else ""
    name = f"{line.group.id} {line.group.type}"
    if extra not in add_later_options(module, side, line.group):
        return [f"{name} cannot have this: {extra.label}{rule}"]
    reasons = []
    if line.date_index >= date_index:
        reasons.append(
            f"{name} was bought at this step; {extra.label}: only for one bought earlier{rule}"
        )
    if not line.held:
        reasons.append(f"{name} is no longer in your OB{rule}")
    has = extra.with_variants.get(line.cost_variant, 0) + line.added
    if has >= extra.limit:
        reasons.append(f"{name} already has {has}, the most it may have{rule}")
    return reasons


@dataclass(frozen=True)
class AddLaterOffer:
    """A further item the side may buy now for an RG line: what the page offers."""

    item: str
    label: str
    cost: int
    affirms: str  # what the player affirms, with the rule


def add_later_offers(
    module: Module, side: str, line: Addition, date_index: int
) -> list[AddLaterOffer]:
    """The further items ``side`` may buy now for ``line`` (``add_later_reasons``)."""
    out = []
    for extra in add_later_options(module, side, line.group):
        if not add_later_reasons(module, side, extra, line, date_index):
            rule = f" ({extra.rule})" if extra.rule else ""
            out.append(AddLaterOffer(extra.id, extra.label, extra.cost, extra.affirms + rule))
    return out


def owed_tables(
    module: Module, rolls: Sequence[Mapping[str, object]]
) -> tuple[list[str], list[str]]:
    """The rolls an RG's line keeps because their table was lost from the rules text when
    its rolls were made (PHD C5.33's Leader Table; its line reads "not rolled"): those
    whose table the players have supplied since (to be made now), and those still
    lacking it, by table id."""
    owed = [str(r["owed"]) for r in rolls if r.get("owed")]
    supplied = [t for t in owed if not module.table(t).missing]
    return supplied, [t for t in owed if t not in supplied]
