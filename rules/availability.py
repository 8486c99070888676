"""May this side do X now, and if not, why: one function per rule.

Each function here is used twice: by the page, to show why a button is disabled, and
by the action, to refuse with the same sentence.  They read a module and a snapshot
of the acting side (``rules.snapshot``), nothing else.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence, Set
from dataclasses import replace
from fractions import Fraction

from rules import machine, text
from rules.drm import RollContext, holds, is_automatic, offered, reads_fired
from rules.effects import (
    MMC_KINDS,
    NewUnits,
    UnitState,
    class_words,
    held_excess,
    matches,
    mmc_class,
    names_any,
    own_mmc,
    reduction,
    types_given,
)
from rules.errors import Refused
from rules.kinds import Action, Hook, Pass, kind_of
from rules.purchase import (
    HEX_ID,
    CostOption,
    cost_options,
    date_window_reasons,
    group_context,
    hexes_in,
    hexes_met,
    not_marked,
    outside,
    retained_tags,
    same_hex,
    unavailable,
)
from rules.replenish import lost_after_purchase
from rules.schema import (
    DUE_STATUSES,
    ClearedFirst,
    CostVariant,
    Drm,
    Forgo,
    FortificationItem,
    Module,
    ReinforcementGroup,
    RepairCap,
    Step,
    Table,
)
from rules.snapshot import Bought, FortificationBought, Snapshot

CHITS = {"attack": "Attack", "idle": "Idle"}
MAX_FORTIFICATIONS_PER_BUY = 50


def current_step(module: Module, snap: Snapshot) -> Step:
    return module.steps[snap.position.step_index]


def names(module: Module, sides: list[str]) -> str:
    return " and ".join(module.side(s).name for s in sides) or "nobody"


# --------------------------------------------------------------------------- turns


# What a player may do at a step before his opponent has joined: what is his alone
# and undone at will (a purchase, cancelled and refunded; a Fortification, taken back;
# a scenario's result entered, which the opponent confirms or disputes once joined).
ALONE: frozenset[Action] = frozenset({Action.BUY, Action.CANCEL, Action.FORTIFY, Action.RESULT})
ALONE_WORDS = {
    Action.BUY: "buy RGs in secret",
    Action.CANCEL: "cancel them",
    Action.FORTIFY: "buy Fortifications",
    Action.RESULT: "enter the scenario's result (your opponent confirms it)",
}


def unjoined_reason(module: Module, snap: Snapshot, step: Step) -> str:
    """What waits at ``step`` for the side that has no player yet ("" : both have
    one), and what the side may do meanwhile.  Each side does a step (``Step.acts``;
    Sicily 3.6 "performed simultaneously by each side"), and the data the rules lack
    are agreed by both (the start sheet): one player alone does not finish a step,
    roll, pick a chit or go on without data his opponent has not yet seen."""
    away = [s for s, state in snap.sides.items() if not state.joined]
    if not away:
        return ""
    if finish_refusal(module, snap, step):  # nothing to buy or roll with yet
        meanwhile = (
            " Meanwhile you may fill in the start sheet with what the rules text lacks: "
            "your opponent accepts it once he has joined."
        )
    else:
        alone = [w for a, w in ALONE_WORDS.items() if a in kind_of(step.kind).all_actions]
        meanwhile = f" Meanwhile you may {' and '.join(alone)}." if alone else ""
    return (
        f"Not yet: the {names(module, away)} side has no player yet. Each side does "
        f"{step.id} {step.title}, so finishing it (and any roll or choice it asks) waits "
        f"until your opponent has joined.{meanwhile}"
    )


def turn_refusal(module: Module, snap: Snapshot, side: str, action: Action) -> Refused | None:
    """Why ``side`` may not take ``action`` at the current step (None: it may)."""
    if snap.position.ended:
        return Refused("The campaign has ended; nothing more can be done.", status=409)
    step = current_step(module, snap)
    if action not in ALONE and action in kind_of(step.kind).all_actions:
        unjoined = unjoined_reason(module, snap, step)
        if unjoined:
            return Refused(unjoined, status=409)
    if action not in kind_of(step.kind).all_actions:
        if action == Action.FINISH and module.initiative and step.kind == "initiative":
            return Refused(
                f"Pick your chit, Attack or Idle: that is how you finish {step.id} "
                f"{step.title} ({module.initiative.rule}).",
                status=409,
            )
        return Refused(
            f"That is not part of the current step ({step.id} {step.title}).", status=409
        )
    to_act = machine.sides_to_act(module, step, snap.done)
    if side in snap.done:
        return Refused(
            f"You have already done {step.id} {step.title}; waiting for {names(module, to_act)}.",
            status=409,
        )
    if step.acts not in ("both", "in_order") and side != step.acts:
        # A step only one side acts at (PHD TM20 "The US player may make a secret dr"):
        # never "first", the other side has nothing to do there.
        return Refused(
            f"Only {names(module, [step.acts])} acts at {step.id} {step.title}: there is "
            "nothing for you to do here.",
            status=409,
        )
    if side not in to_act:
        return Refused(
            f"Not your turn: {names(module, to_act)} acts first at {step.id} {step.title}.",
            status=409,
        )
    return None


def check_turn(module: Module, snap: Snapshot, side: str, action: Action) -> None:
    refusal = turn_refusal(module, snap, side, action)
    if refusal is not None:
        raise refusal


# --------------------------------------------------------------------------- purchases


def held_tags(module: Module, snap: Snapshot) -> set[str]:
    """Tags of the RGs the side holds: those of its Initial-Scenario OB and those it
    bought."""
    chart = module.chart(snap.side)
    if chart is None:
        return set()
    return retained_tags(chart, [b.group_id for b in snap.holdings.bought if b.state == "held"])


def mmc_tags(module: Module, snap: Snapshot) -> set[str]:
    """Tags of the RGs of which the side still retains a squad or half-squad (Sicily
    3.619 footnote d: "when >= 1 airborne MMC is currently retained": an airborne RG
    whose squads are all gone no longer counts)."""
    chart = module.chart(snap.side)
    return set() if chart is None else retained_tags(chart, snap.holdings.mmc_groups)


def chart_missing(module: Module, side: str) -> str:
    """Why nothing can be bought from ``side``'s chart ("" when it exists)."""
    chart = module.chart(side)
    if chart is not None and not chart.missing:
        return ""
    rule = f" ({chart.rule})" if chart else ""
    return (
        f"{text.left_out(f'the {module.side(side).name} RG chart', first=True)}{rule}: supply "
        "it and have your opponent accept it before anything can be bought."
    )


def budget_reason(module: Module, points: int, cost: int, rule: str | None = None) -> str:
    """Why ``cost`` cannot be spent from ``points`` ("" if it can), citing ``rule`` (by
    default the currency's ``spend_rule``; "" cites none)."""
    code = module.currency.code
    rule = module.currency.spend_rule if rule is None else rule
    cite = f"; {rule}" if rule else ""
    return "" if cost <= points else f"not enough {code} ({cost} needed, {points} left{cite})"


def limit_reasons(
    module: Module, snap: Snapshot, group: ReinforcementGroup, tags: Set[str] | None = None
) -> list[str]:
    """Every limit of the chart that forbids ``group`` now, budget aside (``tags``: the
    side's ``held_tags``, when already known)."""
    return unavailable(
        module,
        variant=snap.variant,
        side=snap.side,
        group=group,
        date_index=snap.position.date_index,
        bought=snap.holdings.bought,
        retained_tags=held_tags(module, snap) if tags is None else tags,
        result_totals=dict(snap.holdings.result_totals),
    )


def _reasons(
    module: Module,
    snap: Snapshot,
    group: ReinforcementGroup,
    tags: Set[str],
    options: Sequence[CostOption],
) -> list[str]:
    reasons = limit_reasons(module, snap, group, tags)
    if options:
        cheapest = min(o.cost for o in options)
        budget = budget_reason(module, snap.me.points or 0, cheapest)
        if budget:
            reasons.append(budget)
    return reasons


def prices(module: Module, snap: Snapshot, group: ReinforcementGroup) -> list[CostOption]:
    """``group``'s prices for the side now (``cost_options``), but those its own Setup
    Area list withholds (``CostVariant.needs_setup_area``, Sicily 3.6175)."""
    options = cost_options(module, snap.side, group, initial=at_initial(module, snap))
    return [o for o in options if not _no_setup_area(module, snap, o.variant)]


def _no_setup_area(module: Module, snap: Snapshot, variant: str) -> bool:
    """Whether the price ``variant`` needs a Setup Area of the side's and the side's
    list (3.605) names none (a side that never listed is not refused: the app does not
    know)."""
    cv = next((c for c in module.cost_variants if c.id == variant), None)
    listed = snap.holdings.setup_areas
    return cv is not None and snap.side in cv.needs_setup_area and listed == ()


def withheld_prices(module: Module, snap: Snapshot) -> list[str]:
    """Each price of the side's chart that its own Setup Area list withholds
    (``CostVariant.needs_setup_area``), as a sentence with the rule: the chart shows no
    such column (Sicily 3.6175: "A British RG may be purchased for Standard On-Map Setup
    only if there is >= one Set Up Area on the Map")."""
    chart = module.chart(snap.side)
    if chart is None:
        return []
    initial = at_initial(module, snap)
    said = []
    for cv in module.cost_variants:
        if not _no_setup_area(module, snap, cv.id) or not any(
            o.variant == cv.id
            for g in chart.groups
            for o in cost_options(module, snap.side, g, initial=initial)
        ):
            continue
        said.append(f"{cv.label}: not offered: {_no_area_says(module, cv)}.")
    return said


def group_reasons(module: Module, snap: Snapshot, group: ReinforcementGroup) -> list[str]:
    """Why ``group`` cannot be bought now: every limit of the chart, then the budget
    at its cheapest price (empty: it can)."""
    options = prices(module, snap, group)
    return _reasons(module, snap, group, held_tags(module, snap), options)


def chart_offers(
    module: Module, snap: Snapshot
) -> list[tuple[ReinforcementGroup, list[CostOption], list[str]]]:
    """Each RG of the side's chart, its prices (``cost_options``) and why it cannot be
    bought now (``group_reasons``; empty: it can), what the side holds read once for
    the whole chart."""
    chart = module.chart(snap.side)
    assert chart is not None, "a side's offers are asked only where its chart exists"
    tags = held_tags(module, snap)
    offers = []
    for group in chart.groups:
        options = prices(module, snap, group)
        offers.append((group, options, _reasons(module, snap, group, tags, options)))
    return offers


def find_group(module: Module, side: str, group_id: str) -> ReinforcementGroup:
    missing = chart_missing(module, side)
    if missing:
        raise Refused(missing, status=409)
    chart = module.chart(side)
    assert chart is not None
    group = next((g for g in chart.groups if g.id == group_id), None)
    if group is None:
        raise Refused(f"There is no RG '{group_id[:16]}' on your chart.")
    return group


def check_purchase(
    module: Module, snap: Snapshot, group_id: str, cost_variant: str
) -> tuple[ReinforcementGroup, CostOption]:
    """The RG and price of a purchase the side may make now, or the refusal."""
    group = find_group(module, snap.side, group_id)
    limits = limit_reasons(module, snap, group)
    if limits:
        raise Refused(f"{group.id} {group.type} cannot be bought: " + "; ".join(limits) + ".")
    option = next(
        (o for o in prices(module, snap, group) if o.variant == cost_variant),
        None,
    )
    if option is None:
        if _no_setup_area(module, snap, cost_variant):
            raise Refused(setup_area_refusal(module, group, cost_variant))
        raise Refused(price_refusal(module, group, cost_variant, snap.side))
    budget = budget_reason(module, snap.me.points or 0, option.cost)
    if budget:
        raise Refused(
            f"{group.id} {group.type} cannot be bought at {option.cost} "
            f"{module.currency.code} ({option.label}): {budget}."
        )
    return group, option


def price_refusal(
    module: Module, group: ReinforcementGroup, cost_variant: str, side: str = ""
) -> str:
    """Why ``group`` is not sold at ``cost_variant``, with the variant's words and rule
    (Sicily 3.6175: "If an Axis "I" or "G" type RG is purchased for 20% less ...")."""
    cv = next((c for c in module.cost_variants if c.id == cost_variant), None)
    if cv is None:
        return f"{group.id} cannot be bought at that price."
    rule = f" ({cv.rule})" if cv.rule else ""
    if cv.on_map and group.setup_on_map_free:
        why = "it sets up on-map on the date of purchase at no extra cost"
    elif cv.marked_only is not None and not_marked(module, side, group, cv):
        only = cv.marked_only
        note = chart.footnotes.get(only.footnote, "") if (chart := module.chart(side)) else ""
        said = f' ("{note}")' if note else ""
        why = (
            f"'{cv.label}' is only for an RG your chart marks {only.footnote}{said}; "
            f"{group.id} is not marked {only.footnote}"
        )
        rule = f" ({only.rule})"
    else:
        why = f"'{cv.label}' is not for this RG"
    return f"{group.id} {group.type} cannot be bought at that price: {why}{rule}."


def setup_area_refusal(module: Module, group: ReinforcementGroup, variant: str) -> str:
    """Why ``group`` is not sold at ``variant`` while the side lists no Setup Area
    (Sicily 3.6175: no British Setup Area on the map)."""
    cv = next(c for c in module.cost_variants if c.id == variant)
    return f"{group.id} {group.type} cannot be bought '{cv.label}': {_no_area_says(module, cv)}."


def _no_area_says(module: Module, cv: CostVariant) -> str:
    """The fact that withholds a price: the side's Setup Area list names none."""
    areas = module.setup_areas
    word = areas.label if areas else "Setup Area"
    at = f" at {areas.step}" if areas and areas.step else ""
    rule = f" ({cv.rule})" if cv.rule else ""
    return (
        f"you listed no {word}{at}, and this price needs at least one {word} of yours "
        f"on the map{rule}"
    )


# --------------------------------------------------------------------------- fortifications


def fortification_caps(item: FortificationItem, side: str) -> list[tuple[int, str]]:
    """(maximum, "per CG" / "per CG date") caps binding ``side``."""
    if item.cap_sides is not None and side not in item.cap_sides:
        return []
    caps = []
    if item.per_cg_max is not None:
        caps.append((item.per_cg_max, "per CG"))
    if item.per_date_max is not None:
        caps.append((item.per_date_max, "per CG date"))
    return caps


def hip_cap(module: Module, item: FortificationItem, snap: Snapshot) -> int | None:
    """How many units of the side may set up HIP (3.619 footnote b: "no more than 10%
    (FRU) of the squads ... in a daytime Scenario"), from the retained forces; None
    when uncapped (at Night, for a cap on daytime scenarios)."""
    if item.hip is None:
        return None
    if item.hip.day_only and module.dates[snap.position.date_index].night:
        return None
    exact = hip_base(item, snap) * Fraction(item.hip.fraction)
    return math.floor(exact) if item.hip.rounding == "FRD" else math.ceil(exact)


def hip_counted(item: FortificationItem, snap: Snapshot) -> tuple[int, int]:
    """The side's retained squads and half-squads a HIP cap counts: not those of RGs
    bought on this date at a price the cap leaves out (PHD C5.35 note 3: "non-reserve
    Infantry squad-equivalents")."""
    assert item.hip is not None
    h = snap.holdings
    out = [
        (s, hs)
        for variant, date_index, s, hs in h.bought_as
        if variant in item.hip.not_cost_variants and date_index == snap.position.date_index
    ]
    return h.squads - sum(s for s, _ in out), h.half_squads - sum(hs for _, hs in out)


def hip_base(item: FortificationItem, snap: Snapshot) -> Fraction:
    """The squads (or squad-equivalents: a HS counts half) a HIP cap is a fraction of."""
    assert item.hip is not None
    squads, half_squads = hip_counted(item, snap)
    return Fraction(squads) + (
        Fraction(half_squads, 2) if item.hip.of == "squad_equivalents" else 0
    )


def figure_problems(item: FortificationItem, figures: Mapping[str, int] | None) -> list[str]:
    """What is wrong with the figures a price adds up (``None``: not given yet)."""
    if not item.figures or figures is None:
        return []
    return [
        f"give the {f.label} as printed on the counter ({f.min} to {f.max})"
        for f in item.figures
        if not f.min <= figures.get(f.id, -1) <= f.max
    ]


def figures_text(item: FortificationItem, figures: Mapping[str, int]) -> str:
    """ "Capacity 1 + CA DRM 5 + NCA DRM 7" for the record."""
    return " + ".join(f"{f.label} {figures.get(f.id, 0)}" for f in item.figures)


def fortification_reasons(
    module: Module,
    snap: Snapshot,
    item: FortificationItem,
    count: int = 1,
    tier: int = 0,
    figures: Mapping[str, int] | None = None,
) -> list[str]:
    """Why ``count`` × ``item`` (at its ``tier`` price, or the price its ``figures``
    add up to) cannot be bought now (empty: they can)."""
    forts = module.fortifications
    assert forts is not None
    rule = item.rule or forts.rule
    if not item.priced:
        return [
            f"its {forts.currency} cost is not in the rules text ({rule}): "
            "supply it first (Rules data to supply, on the campaign page)"
        ]
    reasons = figure_problems(item, figures)
    if item.sides is not None and snap.side not in item.sides:
        reasons.append(
            f"{module.side(snap.side).name} cannot buy {item.label} ({item.sides_rule or rule})"
        )
    if item.requires_retained and not set(item.requires_retained) & mmc_tags(module, snap):
        chart = module.chart(snap.side)
        needed = [
            g.id
            for g in (chart.groups if chart else [])
            if set(g.tags) & set(item.requires_retained)
        ]
        held = f"one of {', '.join(needed)} held" if needed else "the units it needs held"
        reasons.append(f"only with {held}, a squad or half-squad of it retained ({rule})")
    if item.not_for_initial and module.steps[snap.position.step_index].start:
        reasons.append(f"not while preparing the Initial Scenario ({rule})")
    date = snap.position.date_index
    for cap, where in fortification_caps(item, snap.side):
        have = sum(
            f.count
            for f in snap.holdings.fortifications
            if f.item_id == item.id and (where == "per CG" or f.date_index == date)
        )
        if have + count > cap:
            reasons.append(f"no more than {cap} {where} ({rule}); {have} bought so far")
    hip = hip_cap(module, item, snap)
    if hip is not None and 0 <= tier < max(1, len(item.tiers)):
        assert item.hip is not None
        weights = {t.label: Fraction(t.weight) for t in item.tiers}
        taken = sum(
            (
                f.count * weights.get(f.tier, Fraction(1))
                for f in snap.holdings.fortifications
                if f.item_id == item.id and f.date_index == date
            ),
            Fraction(0),
        )
        adding = count * (Fraction(item.tiers[tier].weight) if item.tiers else Fraction(1))
        if adding and taken + adding > hip:
            what = "squads" if item.hip.of == "squads" else "squad-equivalents"
            reasons.append(
                f"no more than {hip} HIP ({item.hip.fraction} {item.hip.rounding} of "
                f"{_figure(hip_base(item, snap))} retained {what}; {item.hip.rule}); "
                f"{_figure(taken)} taken so far"
            )
    if item.levels is not None:
        level = fortification_level(item, snap)
        top = len(item.levels.names) - 1
        if level + count > top:
            now = f"at Level {item.levels.names[level]}" if level >= 0 else "none"
            reasons.append(
                f"{item.label} {now}: {count} more would pass Level {item.levels.names[top]}, "
                f"the highest ({item.levels.rule})"
            )
    if item.tiers and not 0 <= tier < len(item.tiers):
        reasons.append(f"choose one of the prices of {item.label}")
        tier = 0
    cost = item.price(tier, figures) * count
    for spend in forts.spend_caps:
        if item.id in spend.items:
            spent = sum(
                f.cost
                for f in snap.holdings.fortifications
                if f.item_id in spend.items and f.date_index == date
            )
            if spent + cost > spend.max:
                reasons.append(
                    f"no more than {spend.max} {forts.currency} on {spend.label} per CG date "
                    f"({spend.rule}); {spent} spent so far"
                )
    points = snap.me.fortification_points or 0
    if cost > points:
        reasons.append(f"not enough {forts.currency} ({cost} needed, {points} left)")
    return reasons


def _place(location: str) -> str:
    """A place as written, folded for comparison ("12f4 " is 12F4)."""
    return " ".join(location.split()).casefold()


def replaced_here(
    module: Module, snap: Snapshot, item: FortificationItem, location: str
) -> FortificationBought | None:
    """The side's own ``in_place_of`` item recorded in ``location`` on an earlier CG
    date, which ``item`` placed there replaces (3.619 footnote e)."""
    if item.in_place_of is None or not _place(location):
        return None
    return next(
        (
            f
            for f in snap.holdings.fortifications
            if f.item_id == item.in_place_of.item
            and f.date_index < snap.position.date_index
            and _place(f.location) == _place(location)
        ),
        None,
    )


def replaced(
    module: Module, bought: Sequence[tuple[str, FortificationBought]]
) -> dict[int, FortificationBought]:
    """For each position in ``bought`` (side, buy) whose fortification a later one of
    the same side placed in its place removed (3.619 footnote e), the one that did."""
    forts = module.fortifications
    instead = {
        i.id: i.in_place_of.item
        for i in (forts.items if forts else [])
        if i.in_place_of is not None
    }
    out: dict[int, FortificationBought] = {}
    for side, new in bought:
        old_item = instead.get(new.item_id)
        if old_item is None or not _place(new.location):
            continue
        for k, (s, old) in enumerate(bought):
            if (
                k not in out
                and s == side
                and old.item_id == old_item
                and old.date_index < new.date_index
                and _place(old.location) == _place(new.location)
            ):
                out[k] = new
                break
    return out


def placement_reasons(
    module: Module, snap: Snapshot, item: FortificationItem, count: int, location: str
) -> list[str]:
    """Why ``count`` × ``item`` cannot be placed in ``location`` (Sicily 3.619 footnote
    e: only where the item it replaces stood on the previous CG date; one per place).
    Refit checks the side's own records; a place it holds nothing for (the Initial
    Scenario's, one taken over) is the player's word."""
    placed = item.in_place_of
    if placed is None:
        return []
    forts = module.fortifications
    assert forts is not None
    rule = item.rule or forts.rule
    other = next((i.label for i in forts.items if i.id == placed.item), placed.item)
    here = location.strip()
    if not _place(here):
        return [
            f"name the {placed.where} (Where) that held a {other} on the previous CG Date ({rule})"
        ]
    reasons = []
    if count != 1:
        reasons.append(f"one {item.label} per {placed.where} ({rule})")
    same = [f for f in snap.holdings.fortifications if _place(f.location) == _place(here)]
    if any(f.item_id == item.id for f in same):
        reasons.append(
            f"a {item.label} is already placed in {here}: the {other} there was removed ({rule})"
        )
    elif replaced_here(module, snap, item, here) is None and any(
        f.item_id == placed.item and f.date_index == snap.position.date_index for f in same
    ):
        reasons.append(
            f"the {other} in {here} is bought on this CG Date, not on the previous one ({rule})"
        )
    return reasons


def _figure(value: Fraction) -> str:
    return str(float(value)).removesuffix(".0")


def fortification_level(item: FortificationItem, snap: Snapshot) -> int:
    """The side's Level of ``item`` now, as an index into ``item.levels.names`` (-1:
    none): each one bought raises it by one (PHD C5.35 note 8); at the start of each
    CG date after the first, a Level above ``reduced_to`` has been reduced to it (PHD
    C5.25b, before the requisitions of that date)."""
    levels = item.levels
    if levels is None:
        return -1
    cap = levels.names.index(levels.reduced_to) if levels.reduced_to is not None else None
    bought: dict[int, int] = {}
    for f in snap.holdings.fortifications:
        if f.item_id == item.id:
            bought[f.date_index] = bought.get(f.date_index, 0) + f.count
    level = -1
    for date in range(snap.position.date_index + 1):
        if date > 0 and cap is not None:
            level = min(level, cap)
        level = min(level + bought.get(date, 0), len(levels.names) - 1)
    return level


def check_fortification(
    module: Module,
    snap: Snapshot,
    item_id: str,
    count: int,
    tier: int = 0,
    figures: Mapping[str, int] | None = None,
    location: str = "",
) -> FortificationItem:
    forts = module.fortifications
    item = next((i for i in forts.items if i.id == item_id), None) if forts else None
    if item is None:
        raise Refused("There is no such fortification in this CG.")
    if not 1 <= count <= MAX_FORTIFICATIONS_PER_BUY:
        raise Refused(f"Buy between 1 and {MAX_FORTIFICATIONS_PER_BUY} at a time.")
    reasons = fortification_reasons(module, snap, item, count, tier, figures or {})
    reasons += placement_reasons(module, snap, item, count, location)
    if reasons:
        label = (
            f"{item.label} ({item.tiers[tier].label})"
            if 0 <= tier < len(item.tiers)
            else item.label
        )
        raise Refused(f"{count} × {label} cannot be bought: " + "; ".join(reasons) + ".")
    return item


# --------------------------------------------------------------------------- recon


def recon_due(module: Module, snap: Snapshot) -> list[Bought]:
    """The Recon RGs (``recon.group``) the side bought on this date whose Recon dr is
    still to be made: each gives one (3.620, chart footnote r)."""
    recon = module.recon
    if recon is None or recon.group is None:
        return []
    return [
        b
        for b in snap.holdings.bought
        if b.group_id == recon.group
        and b.date_index == snap.position.date_index
        and not b.initial
        and b.ref not in snap.holdings.recon_rolled
    ]


def recon_drm(module: Module, variant: str) -> int:
    """What a Recon RG bought at cost variant ``variant`` adds to its Recon dr."""
    return next((cv.recon_drm for cv in module.cost_variants if cv.id == variant), 0)


def check_recon_group(module: Module, snap: Snapshot, ref: str) -> Bought:
    recon = module.recon
    if recon is None or recon.group is None:
        raise Refused("Recon is bought at this step here, not as an RG.")
    due = next((b for b in recon_due(module, snap) if b.ref == ref), None)
    if due is None:
        raise Refused(
            f"No {recon.group} Recon RG bought on this date awaits its Recon dr ({recon.rule}).",
            status=409,
        )
    return due


def recon_reasons(module: Module, snap: Snapshot, option: int) -> list[str]:
    recon = module.recon
    assert recon is not None
    reasons = []
    initial = initial_recon_reason(module, snap.position.date_index)
    if initial:
        reasons.append(initial)
    if recon.group is not None:
        if not recon_due(module, snap):
            reasons.append(f"no {recon.group} Recon RG bought on this date awaits its dr")
        return reasons
    if snap.position.date_index in snap.holdings.recon_dates:
        reasons.append(f"Recon is bought once per CG date ({recon.rule})")
    if 0 <= option < len(recon.options):
        cost = recon.options[option].cost
        budget = budget_reason(module, snap.me.points or 0, cost, rule=recon.rule)
        if budget:
            reasons.append(budget)
    return reasons


def check_recon(module: Module, snap: Snapshot, option: int) -> None:
    recon = module.recon
    if recon is None or not 0 <= option < len(recon.options):
        raise Refused("Choose one of the Recon options.")
    reasons = recon_reasons(module, snap, option)
    if reasons:
        raise Refused("Recon cannot be bought: " + "; ".join(reasons) + ".", status=409)


# --------------------------------------------------------------------------- nothing to do


def passes_by_itself(
    module: Module,
    variant: str,
    side: str,
    step: Step,
    date_index: int,
    san: int | None = None,
    *,
    san_secret: bool = False,
) -> str:
    """Why ``step`` passes by itself for ``side`` ("" when the side finishes it with
    Done), decided on public facts only: the module (with what the players supplied),
    the variant, the date and the step.  Both seats see a pass ("waiting for you", a log
    line, the campaign moving on), so it never reads the side's points, FPP or secret
    records: a side whose FPP may have come from a secret purchase waits for its Done
    even with none left, or the pass would tell its opponent so.  A step of the start
    waits while what the CG gives its sides is still to be supplied.  ``san_secret``:
    the side's SAN may have changed in secret since both sides last read it
    (``san_may_be_secret``): its SAN step then waits for its own Done or roll."""
    if step.start and module.variant(variant).start.missing:
        return ""
    for condition in kind_of(step.kind).passes:
        if condition is Pass.ALWAYS:
            return "the server does this step"
        if condition is Pass.NOTHING_TO_ROLL and not secret_rolls_possible(module, side):
            return "no RG of its chart has secret rolls to make"
        if condition is Pass.NO_FORTIFICATION_POINTS:
            reason = no_fortification_possible(module, variant, side, step, date_index)
            if reason:
                return reason
        if condition is Pass.NO_RECON and module.recon is not None:
            reason = initial_recon_reason(module, date_index)
            if reason:
                return reason
        if condition is Pass.NOTHING_TO_BUY and not chart_missing(module, side):
            chart = module.chart(side)
            assert chart is not None
            if all(
                group.cg_max.get(variant) == 0
                or date_window_reasons(module, side=side, group=group, date_index=date_index)
                for group in chart.groups
            ):
                return "no RG of the chart can be bought on this date"
        if (
            condition is Pass.NOTHING_TO_DECIDE
            and forgo_of(module, variant, side, date_index) is None
        ):
            return "the server does this step"
        if condition is Pass.NO_SAN_ROLL and not san_secret:
            reason = san_roll_reason(module, san)  # the SAN is entered with the result: public
            if reason:
                return reason
    return ""


def secret_rolls_possible(module: Module, side: str) -> bool:
    """Whether an RG the side may hold (from its chart) makes post-purchase rolls."""
    chart = module.chart(side)
    return chart is not None and any(rolls_to_make(module, side, g.id) for g in chart.groups)


def no_fortification_possible(
    module: Module, variant: str, side: str, step: Step, date_index: int
) -> str:
    """Why the side can have nothing to spend at a fortification step, on public facts
    ("" when it may): no fortification it may buy, or no FPP/DSP it can hold — none
    given by the start (or those forfeit at the start's own fortification step) and no
    RG of its chart that grants them and may be bought on this date (PHD I3)."""
    forts = module.fortifications
    if forts is None:
        return "the CG has no fortifications"
    items = [i for i in forts.items if i.sides is None or side in i.sides]
    if not items:
        return f"{module.side(side).name} may buy no fortification ({forts.rule})"
    if any(i.cost == 0 for i in items):
        return ""
    chart = module.chart(side)
    if chart is not None and any(
        g.grants.get("fortification_points")
        and g.cg_max.get(variant) != 0
        and not date_window_reasons(module, side=side, group=g, date_index=date_index)
        for g in chart.groups
    ):
        return ""
    if module.variant(variant).start.fortification_points.get(side):
        start_fortifies = any(s.start and s.kind == step.kind for s in module.steps)
        if step.start or not (forts.forfeit_unspent and start_fortifies):
            return ""
    return f"no {forts.currency} to spend (none from the start, and no RG grants them)"


def initial_recon_reason(module: Module, date_index: int) -> str:
    recon = module.recon
    assert recon is not None
    if recon.not_for_initial and module.dates[date_index].initial:
        return f"no Recon before an Initial Scenario ({recon.rule})"
    return ""


def nothing_to_do(module: Module, snap: Snapshot, step: Step) -> str:
    """Why the side itself has nothing to do at ``step`` ("" when it has something to
    do or decide there), from what it alone knows: its points, FPP and records.  It
    lets the side finish such a step ahead with others (``finish_ahead``: its own
    click); the server passes a step by itself only on public facts
    (``passes_by_itself``)."""
    public = passes_by_itself(
        module, snap.variant, snap.side, step, snap.position.date_index, snap.me.san
    )
    if public or (step.start and module.variant(snap.variant).start.missing):
        return public
    for condition in kind_of(step.kind).passes:
        if condition is Pass.NOTHING_TO_ROLL and not any(
            rolls_to_make(module, snap.side, gid) for gid in snap.holdings.unrolled
        ):
            return "no RG awaits its secret rolls"
        if condition is Pass.NO_FORTIFICATION_POINTS and not snap.me.fortification_points:
            forts = module.fortifications
            return f"no {forts.currency if forts else 'fortification points'} to spend"
        if condition is Pass.NO_RECON and module.recon is not None:
            options = range(max(1, len(module.recon.options)))
            reasons = [recon_reasons(module, snap, i) for i in options]
            if all(reasons):
                return reasons[0][0]
        if (
            condition is Pass.NOTHING_TO_BUY
            and not chart_missing(module, snap.side)
            and all(reasons for _, _, reasons in chart_offers(module, snap))
        ):
            return "no RG of the chart can be bought now"
        if condition is Pass.NOTHING_TO_EXCHANGE and step.id not in snap.holdings.exchanges:
            return "nothing to exchange"
    return ""


def compulsory(table: Table) -> bool:
    """Whether a roll on ``table`` may be owed: for every side or unit it is rolled for
    (``required``), or for the units ``required_for`` matches (Sicily 3.6051)."""
    return table.required or bool(table.required_for)


def owed_rule(table: Table, unit: UnitState) -> str | None:
    """The rule that makes ``table``'s roll compulsory for ``unit`` where the table is
    owed for some units only (``required_for``): the first entry that matches it (the
    rule of the marker it bears: Sicily 3.6051 for the crew of a vehicle Abandoned in
    No-Man's Land, the 3.6056 chart for a unit its owner marks); None: none matches."""
    return next((o.rule for o in table.required_for if matches(o.units, unit)), None)


def owed_what(table: Table, unit: UnitState, label: str) -> str:
    """What a roll owed for ``unit`` names it in Done's words: its ``label``, with the
    table's rule and the rule that made it owed where the roll is owed for some units
    only ("2-2-8 crew (3.606; 3.6051)", "4-5-8 (3.606; 3.6056 chart)")."""
    rule = None if table.required else owed_rule(table, unit)
    return f"{label} ({table.rule}; {rule})" if rule else label


def owed_for(table: Table, unit: UnitState, *, lost_too: bool = False) -> bool:
    """Whether ``table``'s roll is compulsory for ``unit``, once (``required``, rolled
    once per unit, and the unit of its kinds and conditions): "each currently wounded
    Retained Leader" (Sicily 3.610); or the unit is one ``required_for`` matches ("its
    crew (if any) must attempt Escape per 3.606", 3.6051).  Made or not, the caller
    knows.  ``lost_too``: a table the rules text lacks counts (the roll waits for it:
    PHD C5.19)."""
    return (
        (table.required or owed_rule(table, unit) is not None)
        and (lost_too or not table.missing)
        and table.once == "unit"
        and table.for_units is not None
        and matches(table.for_units, unit)
    )


def rg_roll_refusal(module: Module, step: Step) -> str:
    """Why an RG's secret rolls may not be made at ``step`` ("" : they may): at a
    purchase step they wait until every RG is selected, for the strength step after it
    (unless the step says otherwise: ``rolls_while_buying``)."""
    if step.kind != "purchase" or step.rolls_while_buying:
        return ""
    later = later_strength_step(module, step)
    where = f" at {later.id} {later.title}" if later else ""
    return (
        f"An RG's secret rolls are made{where}, once all RGs are selected: finish your "
        f"purchases at {step.id} first."
    )


def rolls_now(step: Step) -> frozenset[str] | None:
    """The tables whose post-purchase rolls an RG makes at ``step`` (None: all that
    are left, but those of a later strength step: ``rolls_later``).  A purchase step
    that rolls while buying and lists tables makes those only; the RG's other rolls
    wait for the strength step (APD 3.4: "For each Armor Group purchased, make a dr to
    determine armor type", while buying)."""
    if step.kind == "purchase" and step.rolls_while_buying and step.tables:
        return frozenset(step.tables)
    return None


def rolls_later(module: Module, step: Step) -> frozenset[str]:
    """The tables a strength step leaves to the strength steps after it, which list
    them (APD 3.6 makes the Leader DR, 3.7 the M4 Model DR; 1.2: "complete each step
    before moving on to the next step").  An RG's rolls are made in the module's order,
    so those after such a roll wait with it (3.4 note 3: the Gyrostabilizer DR per
    tank the M4 Model DR gives).  Only the strength steps right after it count."""
    if step.kind != "strength" or step not in module.steps:
        return frozenset()
    at = module.steps.index(step)
    tables: set[str] = set()
    for s in module.steps[at + 1 :]:  # the strength steps right after it only, not a
        if s.kind != "strength":  # later phase's (Sicily I-3.618, then 3.618)
            break
        tables.update(s.tables)
    return frozenset(tables)


def later_strength_step(module: Module, step: Step) -> Step | None:
    """The strength step after ``step``, if any (where an RG's later rolls are made)."""
    if step not in module.steps:
        return None
    at = module.steps.index(step)
    return next((s for s in module.steps[at + 1 :] if s.kind == "strength"), None)


def rolls_rules(module: Module, rolls: Sequence[Mapping[str, object]]) -> str:
    """The rules of the post-purchase tables an RG's line (``rolls``) was rolled on
    (or found lacking), for the refusal of a second click ("" if none)."""
    titles = {str(r.get("table")) for r in rolls}
    cited = dict.fromkeys(
        pp.rule for pp in module.post_purchase if pp.rule and module.table(pp.table).title in titles
    )
    return "; ".join(cited)


def rolls_left_now(
    module: Module,
    step: Step,
    side: str,
    group_id: str,
    cost_variant: str = "",
    done: Iterable[str] = (),
) -> str:
    """Why an RG has no roll to make at ``step`` ("": it has), its rolls on the tables
    ``done`` made."""
    now = rolls_now(step)
    later = later_strength_step(module, step)
    if now is None:
        if rolls_later(module, step) and set(step.tables) & set(done) and later:
            return (
                f"{group_id} has no roll to make at {step.id}: its rolls are made at "
                f"{later.id} {later.title}."
            )
        return ""
    if set(rolls_to_make(module, side, group_id, cost_variant)) & now - set(done):
        return ""
    where = f" at {later.id} {later.title}" if later else " later"
    return f"{group_id} has no roll to make at {step.id}: its rolls are made{where}."


def rolls_to_make(module: Module, side: str, group_id: str, cost_variant: str = "") -> list[str]:
    """The tables of the post-purchase rolls an RG of ``side`` bought at
    ``cost_variant`` makes (before its strength is known)."""
    ctx = _group_ctx(module, side, group_id, cost_variant)
    if ctx is None:
        return []
    # The kinds a table giving the RG makes it (APD 3.6's Row A infantry groups); the
    # kinds only its own rolls may give are not known before them.
    ctx = replace(ctx, rolled_types=types_given(module.tables, group_id))
    return [pp.table for pp in module.post_purchase if holds(pp.applies_to, ctx)]


def _group_ctx(
    module: Module, side: str, group_id: str, cost_variant: str = ""
) -> RollContext | None:
    chart = module.chart(side)
    group = next((g for g in chart.groups if g.id == group_id), None) if chart else None
    return None if group is None else group_context(module, side, group, cost_variant)


def claimable_drms(
    module: Module, side: str, group_id: str, cost_variant: str = ""
) -> list[tuple[Table, Drm]]:
    """The DRMs of an RG's post-purchase rolls that the player claims by ticking (the
    rules leave them to him, e.g. a DRM whose label the rules text cut), where they
    may apply to this RG (``offer_when``)."""
    ctx = _group_ctx(module, side, group_id, cost_variant)
    if ctx is None:
        return []
    out = []
    for table_id in dict.fromkeys(rolls_to_make(module, side, group_id, cost_variant)):
        table = module.table(table_id)
        out += [
            (table, d)
            for d in table.drms
            if not d.variable and not is_automatic(d) and offered(d, ctx)
        ]
    return out


def finish_ahead(module: Module, snap: Snapshot) -> list[Step]:
    """The run of steps, from the current one, that the side may finish at once (empty
    when fewer than two): steps a side may finish ahead (map work, optional rolls,
    declining to buy), and between them steps where it has nothing to do
    (``nothing_to_do``: the server's own, nothing to roll or spend — which stays so
    when it buys nothing on the way).  Its click says so to its opponent, as a Done at
    each of those steps would."""
    if snap.side in snap.done:
        return []
    run: list[Step] = []
    for step in module.steps[snap.position.step_index :]:
        acts = step.acts in ("both", "in_order", snap.side)
        if not acts or not (
            finishes_ahead(module, step, run) or (run and nothing_to_do(module, snap, step))
        ):
            break
        if rolls_owed(module, snap, step):
            break  # a compulsory roll is made at its step, never skipped on the way
        if run and _required_tables_missing(module, snap, step):
            # Nor one owed on a table the rules text lacks: supplied, or gone on without
            # knowingly, at its step (PHD C5.19 "For each Wounded Leader a dr is made").
            break
        if run and rolls_now(step) is not None:
            break  # a step that rolls while buying makes them at its own Done (APD 3.4)
        if run and step.attacker_first:
            break  # PHD C5.14 "In turn, Attacker first": the Defender waits there for him
        if run and step.reminds and step.id in snap.holdings.exchanges:
            break  # its page names units of the side the rules speak of there (3.6055)
        run.append(step)
        if marks_due(step):
            # Completing it may make a roll owed at a step after it, which units owe it
            # known only then (Sicily 3.6056 chart: Personnel in a Setup Area the other
            # side lists "must attempt Escape", both lists standing once both are done).
            break
    while run and not _may_end_run(module, snap, run[-1], run[:-1]):
        run.pop()
    return run if len(run) >= 2 else []


def marks_due(step: Step) -> bool:
    """Whether completing ``step`` may mark units with a roll owed later (its
    ``settles`` set one of ``DUE_STATUSES``: Sicily 3.605's "must attempt Escape")."""
    return any(
        e.do == "status" and e.status in DUE_STATUSES for row in step.settles for e in row.effects
    )


def may_run_through(module: Module, step_index: int) -> list[Step]:
    """The steps from ``step_index`` that a run of ``finish_ahead`` could reach, from the
    module alone (more than any side's run: who acts, the rolls owed and what the side
    holds are not read): what the side's holdings need be read for, no further."""
    run: list[Step] = []
    for step in module.steps[step_index:]:
        if not (finishes_ahead(module, step, run) or (run and kind_of(step.kind).passes)):
            break
        run.append(step)
    return run


def finishes_ahead(module: Module, step: Step, run: Sequence[Step] = ()) -> bool:
    """Whether a side may finish ``step`` ahead, after the steps ``run`` finished with
    it: a step of a kind finished ahead, one whose rules let it be finished with the
    next ones (``Step.finished_with``: Sicily 3.622), or one of those next ones."""
    if kind_of(step.kind).finish_ahead or step.finished_with:
        return True
    ids = [s.id for s in module.steps]
    at = ids.index(step.id)
    return any(
        s.finished_with and ids.index(s.id) < at <= ids.index(s.finished_with.through) for s in run
    )


def finished_with_words(step: Step) -> tuple[str, str] | None:
    """What finishing ``step`` with the next ones means where its rules let a side do so
    (``Step.finished_with``): the button's words and its confirmation ("declare no
    Recon Location"; "You declare no Recon Location (3.6223) and make no rolls in
    them."); None for a step without it."""
    fw = step.finished_with
    if fw is None:
        return None
    return fw.says, f"You {fw.says} ({fw.rule}) and make no rolls in them."


def _may_end_run(module: Module, snap: Snapshot, step: Step, before: Sequence[Step]) -> bool:
    """A run of steps finished ahead ends on a step of the kinds a side may finish
    ahead (or one the run's first step names, ``Step.finished_with``), or on one of its
    own it has nothing to do at (Sicily 3.611 for a side that holds no Hero) — never on
    one the server passes (a new date)."""
    kind = kind_of(step.kind)
    if kind.finish_ahead or (before and finishes_ahead(module, step, before)):
        return True
    return Pass.ALWAYS not in kind.passes and bool(nothing_to_do(module, snap, step))


def declines_to_buy(step: Step) -> bool:
    """Finishing this step ahead means buying nothing in it."""
    return bool(set(kind_of(step.kind).actions) & {Action.BUY, Action.RECON, Action.FORTIFY})


# --------------------------------------------------------------------------- initiative


def chit_refusal(module: Module, snap: Snapshot, chit: str) -> str:
    """Why the side may not lock ``chit`` now (an Attack-chit limit, or a restriction
    such as 3.6212*), as a sentence with its rule; "" when it may."""
    ini = module.initiative
    assert ini is not None
    side = snap.side
    limit = (module.variant(snap.variant).attack_chits or {}).get(side)
    if chit == "attack" and limit is not None and snap.me.attack_chits_used >= limit:
        return (
            f"{module.side(side).name} has used all {limit} Attack chits this CG allows "
            f"({ini.rule}); choose Idle."
        )
    opponent = snap.sides[machine.opponent(module, side)]
    for r in ini.restrictions:
        if (
            r.side == side
            and r.chit == chit
            and r.forbidden_when == "opponent_has_no_on_map_retained_units"
            and (opponent.no_on_map_units or (r.from_roster and opponent.lists_no_unit))
        ):
            name = module.side(opponent.side).name
            why = (
                f"{name} has declared it has no on-map retained units"
                if opponent.no_on_map_units
                else f"the {name} retained forces list no unit on the map you can see"
                + not_entered_words(module)
            )
            return f"{r.text} ({r.rule}) {why}; choose Idle."
    return ""


def not_counted(module: Module, side: str, unit: UnitState) -> bool:
    """Whether ``side``'s retained ``unit`` (its ``group`` the RG it came with) is no
    "on-map Retained unit" for a restriction on the opponent's chit that reads
    ``side``'s roster (``ChitRestriction.not_counted``; Sicily 3.6212*: Equipment, an SW
    or Gun alone; a Pregame Bombardment, an Offboard Observer, an OBA module)."""
    ini = module.initiative
    return any(
        r.not_counted is not None and matches(r.not_counted, unit)
        for r in (ini.restrictions if ini else [])
        if r.side != side and r.from_roster
    )


def chit_by_default(module: Module, step: Step) -> str | None:
    """The chit a side's Done at ``step`` locks for it, where the rules make a side that
    picks none Idle (PHD C2.0); None: Done is no part of the step."""
    ini = module.initiative
    if step.kind != "initiative" or ini is None or ini.idle_by_default is None:
        return None
    return "idle"


def check_chit(module: Module, snap: Snapshot, chit: str) -> None:
    if chit not in CHITS:
        rule = f" ({module.initiative.rule})" if module.initiative else ""
        raise Refused(f"Choose Attack or Idle{rule}.")
    refusal = chit_refusal(module, snap, chit)
    if refusal:
        raise Refused(refusal)


def not_entered_words(module: Module) -> str:
    """What does not count as on the map beside the units marked withdrawn: those of an
    RG bought at its printed value since the last scenario, not yet entered, citing the
    rule (``PurchaseRecordColumns.printed_price``; Sicily 3.6175)."""
    columns = module.purchase_record
    printed = columns.printed_price if columns is not None else None
    if printed is None:
        return " (a unit marked withdrawn is off the map)"
    return (
        " (a unit marked withdrawn is off the map; one of an RG bought at its printed value "
        f"since the last scenario has not entered yet: {printed.implies}, {printed.rule})"
    )


def declare_refusal(module: Module, snap: Snapshot) -> Refused | None:
    """Whether the side may (re)state if it has on-map retained units now."""
    if snap.position.ended:
        return Refused("The campaign has ended; nothing more can be done.", status=409)
    if current_step(module, snap).kind != "initiative":
        return Refused("Declare this at the initiative step.", status=409)
    if snap.chits_locked:
        return Refused(
            "A chit is already locked: the declaration can no longer change.", status=409
        )
    return None


def declares_units(module: Module, snap: Snapshot) -> bool:
    """Whether the side's declaration decides an opponent's chit (and may still
    change)."""
    ini = module.initiative
    if ini is None or snap.chits_locked:
        return False
    return any(r.side != snap.side for r in ini.restrictions)


# --------------------------------------------------------------------------- SAN, forgoing points


def san_may_be_secret(
    module: Module, side: str, *, purchases_hidden: bool, bought_since: bool
) -> bool:
    """Whether ``side``'s SAN may differ from the one both sides last read, as the
    public facts show it: an RG of its chart raises the SAN when bought (``grants.san``:
    Sicily's M1 Sniper, "SAN Increase +1"), the campaign keeps purchases secret past
    their step (``purchases_hidden``: Sicily 3.617 "the RG(s) purchased may all be kept
    secret"), and a purchase step has passed since the SAN was last read by both
    (``bought_since``: an Idle date since the last scenario, whose result entered it;
    the SAN is announced again only as the next scenario commences, ``san.announced``:
    3.623 "Each side announces its current SAN").  Whether the side did buy one is its
    secret: this reads only that it could have."""
    rule = module.san
    if rule is None or rule.announced is None or not (purchases_hidden and bought_since):
        return False
    chart = module.chart(side)
    return chart is not None and any(group.grants.get("san") for group in chart.groups)


def no_san_roll(module: Module, snap: Snapshot) -> str:
    """Why the side makes no SAN roll ("" when it must: its SAN is at least the
    module's ``roll_from``)."""
    return san_roll_reason(module, snap.me.san)


def san_table_reason(module: Module, table: Table, san: int | None) -> str:
    """Why the side may not roll on ``table`` with its SAN ("" : it may, or the table
    is not the SAN roll's): Sicily 3.6122 "If a side has a SAN ≥ 4, a SAN adjustment dr
    must be made": none below (its step waits for the side's Done where the SAN may
    have changed in secret, ``san_may_be_secret``, and the page offers no roll)."""
    rule = module.san
    if rule is None or rule.table != table.id or rule.roll_from is None:
        return ""
    if (san or 0) < rule.roll_from:
        return f"your SAN is {san or 0}, below {rule.roll_from} ({rule.rule})"
    return ""


def san_roll_reason(module: Module, san: int | None) -> str:
    rule = module.san
    if rule is None or rule.roll_from is None or rule.table is None:
        return f"the SAN is adjusted by the server ({rule.rule if rule else 'no SAN rule'})"
    if (san or 0) < rule.roll_from:
        return f"SAN {san or 0} is below {rule.roll_from}: no SAN roll ({rule.rule})"
    return ""


def forgo_rule(module: Module, snap: Snapshot) -> Forgo | None:
    """The forgo the side may make at this step (3.616 EXC), if any."""
    return forgo_of(module, snap.variant, snap.side, snap.position.date_index)


def forgo_of(module: Module, variant: str, side: str, date_index: int) -> Forgo | None:
    date = module.dates[date_index]
    return next(
        (
            f
            for f in module.currency.forgo
            if f.side == side and f.date == date.id and variant in f.variants
        ),
        None,
    )


def forgo_not_offered(module: Module, variant: str, side: str, date_index: int) -> str:
    """Why ``side`` may not forgo points on this date of this CG, in the words of the
    rule that offers the forgo to someone else ("" when it is offered to ``side`` here,
    or when the module offers no forgo at all): 3.616 EXC names one side, one date and
    one CG."""
    if not module.currency.forgo or forgo_of(module, variant, side, date_index):
        return ""
    code = module.currency.code
    offers = []
    for f in module.currency.forgo:
        cgs = " or ".join(module.variant(v).name for v in f.variants)
        date = next((d.label for d in module.dates if d.id == f.date), f.date)
        offers.append(
            f"only the {module.side(f.side).name} may forgo {code}, on the {date} date "
            f"of {cgs} ({f.rule})"
        )
    return f"The {module.side(side).name} may not forgo {code} here: " + "; ".join(offers) + "."


def forgo_most(snap: Snapshot, allotted: int | None) -> int:
    """The most the side may forgo: the points allotted to it on this date (3.616 EXC:
    "all or a portion of the allotted CPP"), never those it carried over; at most what
    it has (``allotted`` None: not known, what it has)."""
    points = snap.me.points or 0
    return points if allotted is None else max(0, min(points, allotted))


def check_forgo(module: Module, snap: Snapshot, amount: int, allotted: int | None) -> Forgo:
    rule = forgo_rule(module, snap)
    if rule is None:
        raise Refused("There are no points to forgo here.", status=409)
    most = forgo_most(snap, allotted)
    if not 0 <= amount <= most:
        raise Refused(
            f"Forgo between 0 and {most} {module.currency.code} (the {module.currency.code} "
            f"allotted to you on this date; {rule.rule})."
        )
    return rule


def forgo_taken(module: Module, rule: Forgo, date_index: int, amount: int, points: int) -> int:
    """What the other side loses when ``amount`` is forgone: as much, off its base for
    the date (3.616 EXC: "subtracted from the Axis CPP base"), never more than that
    base nor than it has."""
    base = (module.dates[date_index].base_points or {}).get(rule.from_side)
    return min(amount, points, base if base is not None else amount)


# --------------------------------------------------------------------------- finishing


def finish_refusal(module: Module, snap: Snapshot, step: Step) -> str:
    """Why "Done" cannot meaningfully be pressed at ``step`` yet ("" when it can): what
    the step spends or buys from is still missing from the rules text — the points the
    CG gives at its start, or the side's RG chart.  The side may still go on without it
    (``Go on without it``), knowingly; a plain Done never leaves such a step unseen."""
    actions = kind_of(step.kind).actions
    missing: list[str] = []
    start = module.variant(snap.variant).start
    if step.start and Action.BUY in actions and "points" in start.missing:
        missing.append(f"the {module.currency.code} the CG gives each side at its start")
    if (
        step.start
        and Action.FORTIFY in actions
        and "fortification_points" in start.missing
        and module.fortifications is not None
    ):
        missing.append(f"the {module.fortifications.currency} the CG gives at its start")
    if Action.BUY in actions and chart_missing(module, snap.side):
        missing.append(f"your RG chart ({module.side(snap.side).name})")
    if not missing:
        return _required_tables_missing(module, snap, step)
    rule = f" ({start.rule})" if step.start else ""
    return (
        f"Nothing can be bought at {step.id} yet: {text.left_out(' and '.join(missing))}"
        f"{rule}. Supply it on the start sheet and have your opponent accept it, or go on "
        "without it and buy nothing here."
    )


def _required_tables_missing(module: Module, snap: Snapshot, step: Step) -> str:
    """A roll the rules make compulsory for the side at ``step`` (``required``; one per
    unit where the side holds such a unit) on a table the rules text lacks: nothing can
    be rolled yet (APD 3.5: "The German player now secretly makes three Reinforcement
    drs"; PHD C5.19: "For each Wounded Leader a dr is made")."""
    if step.acts not in ("both", "in_order", snap.side):
        return ""
    owes = {tid for tid, _ in snap.holdings.owed}
    lacking = [
        module.table(t)
        for t in step.tables
        if compulsory(module.table(t))
        and module.table(t).missing
        # one rolled for units: where the side holds one it is owed for (PHD C5.19)
        and (module.table(t).for_units is None or t in owes)
        and not table_date_reasons(module, module.table(t), snap.side, snap.position.date_index)
    ]
    if not lacking:
        return ""
    names = ", ".join(f"the {t.title} ({t.rule})" for t in lacking)
    many = len(lacking) > 1
    if len(lacking) < len(step.tables):
        # The step's other tables are the rules' (Sicily 3.614: its repairs are rolled,
        # 3.61422's Captured Equipment table is cut from the seed): name the one lacking.
        return (
            f"{text.left_out(names, first=True)}: nothing can be rolled on "
            f"{'them' if many else 'it'} yet. Supply {'them' if many else 'it'} "
            "and have your opponent accept, or go on without "
            f"{'them' if many else 'it'}, rolling none here."
        )
    return (
        f"Nothing can be rolled at {step.id} yet: {text.left_out(names)}. Supply "
        f"{'them' if many else 'it'} and have your opponent accept, or go on "
        "without and roll nothing here."
    )


def finish_warnings(
    module: Module, snap: Snapshot, step: Step, *, rolled_tables: Set[str] = frozenset()
) -> list[str]:
    """What the side gives up by pressing Done at ``step`` now, with the figures, for
    its confirmation: points the rules forfeit when the step ends (3.617 EXC, unspent
    FPP), a purchase step left with nothing bought, an optional roll the side makes
    once and has not made (``rolled_tables``: the tables it has rolled on in this
    pass; a compulsory one is refused instead, ``owed_refusal``)."""
    actions = kind_of(step.kind).actions
    me = snap.me
    warnings: list[str] = []
    code = module.currency.code
    if Action.BUY in actions and me.points:
        lost = lost_after_purchase(module, snap.position.date_index, me.points) or _at_the_end(
            module, snap, me.points
        )
        if lost:
            warnings.append(f"{lost}.")
        bought_here = [
            b
            for b in snap.holdings.bought
            if b.date_index == snap.position.date_index and not b.initial
        ]
        if not bought_here:
            keep = "" if lost else f"; your {me.points} {code} stay unspent"
            warnings.append(f"You have bought no RG at {step.id}{keep}.")
    forts = module.fortifications
    if Action.FORTIFY in actions and forts and forts.forfeit_unspent and me.fortification_points:
        warnings.append(
            f"{me.fortification_points} unspent {forts.currency} will be forfeit ({forts.rule})."
        )
    once = [module.table(t) for t in step.tables if t not in rolled_tables]
    once = [t for t in once if t.once == "side" and not t.required and not t.missing]
    if once and not nothing_to_do(module, snap, step):
        warnings += [f"You have not rolled on the {t.title} ({t.rule})." for t in once]
    return warnings


def overspent(module: Module, buy_step: Step, given_at: str, short: int, cancellable: bool) -> str:
    """Where an amended scenario result gave the side ``short`` points fewer than its
    RGs of this date already cost (the replenishment of step ``given_at`` computed
    again, its points on hand left at 0), that in a sentence for its purchase page and
    its Done: the purchase rule lets it buy only as many as it has points for (APD 3.4
    "as many of each group as he has Purchase Points available"), so it cancels RGs for
    as much, the refunds paying the shortfall first; RGs whose secret rolls are made
    cannot be cancelled (dice stand) and stand.  "" where nothing is short."""
    if short <= 0:
        return ""
    code = module.currency.code
    said = (
        f"The amended result gives you {short} {code} fewer than your RGs of this date "
        f"cost ({given_at} computed again; {buy_step.id}: only as many as you have "
        f"{code} for)"
    )
    if cancellable:
        return (
            f"{said}: cancel RGs for at least {short} {code} before Done; their refunds "
            f"pay the {short} {code} first."
        )
    return (
        f"{said}: none can be cancelled now (their secret rolls are made: dice stand), so "
        "they stand as bought."
    )


def _at_the_end(module: Module, snap: Snapshot, points: int) -> str:
    """Points left unspent at the CG's last date have no later use: its scenario is the
    CG's last (APD 3.4 "Unused Purchase Points may be retained for future use": none
    follows the Afternoon), or "".  The one sentence that says so, beside the Done that
    leaves them (and in its confirmation)."""
    last = machine.last_scenario_words(module, snap.variant, snap.position.date_index)
    if not last:
        return ""
    code = module.currency.code
    kept = module.currency.carry_over
    why = (
        f"; unused {code} are retained only for a future purchase ({kept.rule})"
        if kept.retained and kept.rule
        else ""
    )
    return (
        f"Your {points} unspent {code} cannot be used later and are lost with the CG's "
        f"end: {last}{why}"
    )


def rolls_owed(module: Module, snap: Snapshot, step: Step) -> list[str]:
    """The compulsory rolls (``Table.required``) the side still owes at ``step`` in
    this pass, each in words with its rule ("the Wounded Leader Table for 9-2 leader
    (3.610)"); none where the step has nothing for the side to do (a SAN below the
    roll's threshold)."""
    owed = [
        (module.table(t), [what for tid, what in snap.holdings.owed if tid == t])
        for t in step.tables
    ]
    owed = [(t, whats) for t, whats in owed if compulsory(t) and not t.missing and whats]
    # A roll owed for some units only (``required_for``) names each with its rules
    # ("2-2-8 crew (3.606; 3.6051)"): ``owed_what`` wrote them.
    said = [
        f"the {t.title}{' for ' + ', '.join(whats) if t.once == 'unit' or t.per_group else ''}"
        f"{'' if t.required_for and not t.required else f' ({t.rule})'}"
        for t, whats in owed
    ]
    if Action.RECON in kind_of(step.kind).actions and module.recon is not None:
        # A Recon RG bought on this date was paid for its dr (3.620, footnote r).
        said += [
            f"the Recon dr of your {b.group_id} bought on this date ({module.recon.rule})"
            for b in recon_due(module, snap)
        ]
    if not said or nothing_to_do(module, snap, step):
        return []
    return said


def held_cap_refusal(module: Module, snap: Snapshot) -> str:
    """Why Done waits: the side holds more of some units than the rules let it keep
    (``Module.held_caps``; Sicily 3.60742 EXC: "No more than three leaders, nine
    squad-equivalents of MMC, and one non-captured support weapon may be retained in
    this fashion; any excess units, owners choice, are removed from play").  The side
    chooses which go and removes them from its retained forces ("" : none over)."""
    over = [
        (cap, excess)
        for cap in module.held_caps
        if (excess := held_excess(cap, snap.holdings.capped)) > 0
    ]
    if not over:
        return ""
    said = "; ".join(
        f"no more than {cap.max} {cap.label} ({cap.rule}): remove {_figure(excess)}"
        for cap, excess in over
    )
    return (
        f"You hold too many units retained this way — {said}. Choose which leave "
        "play (no CVP to your opponent) and remove them from your retained forces first."
    )


def owed_refusal(module: Module, snap: Snapshot, step: Step) -> str:
    """Why Done waits at ``step``: the compulsory rolls not made yet ("" : none)."""
    owed = rolls_owed(module, snap, step)
    if not owed:
        return ""
    these = "these rolls" if len(owed) > 1 else "this roll"
    return f"Roll first: {'; '.join(owed)}. The rules make {these} compulsory."


# What finishing a step did that a take-back cannot undo (``StepKind.on_side_done``).
_FINAL_ON_DONE = {
    Hook.FORFEIT_FORTIFICATION_POINTS: "finishing it forfeits the unspent fortification points",
    Hook.ROLL_REMAINING: "finishing it makes the rolls still owed, and dice stand",
    Hook.SETTLE_EXCHANGE: "finishing it removed or kept the units the step exchanges",
}


def take_back_refusal(
    module: Module, snap: Snapshot, step: Step, *, opponent_acted: bool, by_done: bool = True
) -> str:
    """Why the side may not take back its Done at ``step`` ("" : it may): it has not
    pressed Done there (``by_done``: its mark was made by its Done, not by the server
    passing the step, a result or a chit), finishing it did something final, or the
    opponent has acted since (a Done the opponent may have acted on stands)."""
    where = f"{step.id} {step.title}"
    kind = kind_of(step.kind)
    if snap.side not in snap.done or not kind.finishable or not by_done:
        return f"You have not pressed Done at {where}: there is no Done to take back."
    final = [_FINAL_ON_DONE[h] for h in kind.on_side_done if h in _FINAL_ON_DONE]
    if final:
        return f"Your Done at {where} cannot be taken back: {'; '.join(final)}."
    if opponent_acted:
        return f"Your opponent has acted since you finished {where}: your Done stands."
    return ""


def amendment_refusal(module: Module, snap: Snapshot, has_result: bool, read_by: str = "") -> str:
    """Why the scenario result of this pass may not be amended now ("" : it may, by a
    proposal the opponent accepts): none confirmed yet, or a roll has read it
    (``read_by``, in words: a DRM counted from its CVP, PHD C5.23; the dice stand as
    they were rolled).  A step whose rolls would read it but where none was made reads
    nothing.  After a step that computed from it (replenishment, the scenario's
    winner), an accepted amendment computes that again (``campaign.services.recompute``)."""
    if snap.position.ended:
        return "The campaign has ended; its results stand."
    start = machine.results_index(module)
    if not has_result or snap.position.step_index <= start:
        return "No confirmed scenario result of this pass to amend (dispute one being entered)."
    if read_by:
        return f"The scenario result was read by {read_by}: it stands as it was read."
    return ""


def same_item(a: str, b: str) -> bool:
    """Whether two rolls name the same item ("PSK at 12H3", "psk  in 12h3", "PSK at
    H3"): the same words, "in" and "at" alike, and the same hexes, a hex read as one
    whose board the other names (``same_hex``: "H3" is 12H3, "31H3" is not)."""

    def read(text: str) -> tuple[list[str], list[str]]:
        text = " ".join(text.split()).upper()
        words = [w for w in HEX_ID.sub(" # ", text).split() if w not in ("IN", "AT")]
        return words, hexes_in(text)

    (words_a, hexes_a), (words_b, hexes_b) = read(a), read(b)
    return (
        words_a == words_b
        and len(hexes_a) == len(hexes_b)
        and all(same_hex(x, y) for x, y in zip(hexes_a, hexes_b, strict=True))
    )


def item_roll_refusal(table: Table, item: str, rolled_items: Sequence[str]) -> str:
    """Why a roll on a table rolled once per item may not be made for ``item`` (""
    : it may): no item named, or that item already rolled for in this pass."""
    if table.once != "item":
        return ""
    if not item:
        return (
            f"Say what this {table.title} roll is for (e.g. “PSK at 12H3”): one roll per "
            f"item in this pass ({table.rule})."
        )
    done = next((done for done in rolled_items if same_item(item, done)), None)
    if done is None:
        return ""
    if " ".join(done.split()).casefold() != " ".join(item.split()).casefold():
        return (
            f"{item} reads as {done} (the same item and hex), which has had its "
            f"{table.title} roll in this pass: one roll per item ({table.rule}); if it "
            "is another, name its hex with its board."
        )
    return f"{item} has had its {table.title} roll in this pass ({table.rule})."


def cleared_first_refusal(
    table: Table,
    item: str,
    rolled: Sequence[tuple[str, int, int]],
    recorded: Sequence[str] = (),
    *,
    gone: bool = False,
    before: Sequence[tuple[str, int, int]] = (),
) -> str:
    """Why a roll on ``table`` may not be made for ``item`` ("" : it may): an item the
    table clears first (``Table.cleared_first``; PHD C5.28's A-P mines) was rolled for at
    the hex ``item`` names in this pass (``rolled``: each roll's item, Final and
    Original roll, in order) and its last roll did not clear it; or none was rolled
    for there and the side's own such fortifications are recorded at that hex
    (``recorded``: their Locations as typed, C5.35), unless the player says they are
    gone (``gone``: cleared in play) or an earlier pass's roll there (``before``)
    cleared them or was for another item (made once they were cleared or gone)."""
    first = table.cleared_first
    if first is None or not item or clears_first(first, item):
        return ""
    if not hexes_in(item):
        return ""
    last: dict[str, tuple[str, int, int]] = {}
    for done, final, original in rolled:
        if clears_first(first, done) and hexes_met(item, done):
            last[" ".join(done.split()).casefold()] = (done, final, original)
    for done, final, original in last.values():
        row = table.result_row(final, original)
        # An Original result (an OriginalRoll) has no range: it clears nothing here.
        if getattr(row, "range", None) != first.clears:
            return (
                f"Your roll for {done} gave {row.result}, so they are not cleared: "
                f"{first.says} ({first.rule})."
            )
    there = [at for at in recorded if first.recorded and hexes_met(item, at)]
    if (
        last
        or gone
        or not there
        or any(
            hexes_met(item, done)
            and (
                not clears_first(first, done)
                or getattr(table.result_row(final, original), "range", None) == first.clears
            )
            for done, final, original in before
        )
    ):
        return ""
    hexes = ", ".join(sorted(set(hexes_met(item, there[0]))))
    return (
        f"Your {first.recorded_label} bought for {there[0]} lie in {hexes}: "
        f"{first.says} ({first.rule}). Roll for them first (e.g. "
        f"\u201c{first.recorded_label} in {hexes}\u201d); if they are gone from the map "
        f"(cleared in play), tick \u201c{MINES_GONE}\u201d."
    )


# The words of the box a player ticks where the fortifications he recorded at a hex are
# no longer there (``ClearedFirst.recorded``).
MINES_GONE = "Those recorded there are gone (cleared in play)"


def clears_first(first: ClearedFirst, item: str) -> bool:
    """Whether ``item`` names what ``first`` clears first (its words, none of the
    words that exempt it)."""
    return names_any(item, first.named) and not names_any(item, first.unless_named)


def unit_item(unit: str, what: str) -> str:
    """A roll's item where it is made once per item of a unit: "75L PaK 40: APCR"."""
    return f"{unit}: {' '.join(what.split())}"


def unit_item_refusal(table: Table, unit: str, what: str, rolled_items: Sequence[str]) -> str:
    """Why a roll on a table rolled once per item of a unit (Sicily 3.61424: "for each
    type of special ammunition which is depleted ... for that weapon") may not be made
    for ``unit``'s ``what`` ("": it may): nothing named, or that item of that unit
    already rolled for in this pass (``rolled_items``: the unit's rolls on it)."""
    if not what.strip():
        return (
            f"Say what the {table.title} roll for {unit} is for: one roll for each in "
            f"this pass ({table.rule})."
        )
    item = unit_item(unit, what)
    if any(same_item(item, done) for done in rolled_items):
        return f"{item} has had its {table.title} roll in this pass ({table.rule})."
    return ""


def instead_words(table: Table) -> str:
    """What a side may do instead of rolling on ``table``, as the player reads it."""
    assert table.instead is not None
    return f"{table.instead.label} ({table.instead.rule})"


def instead_units(table: Table) -> NewUnits:
    """The unit a side receives instead of rolling on ``table`` (PHD C5.24a: a 7-0)."""
    assert table.instead is not None
    return NewUnits(table.instead.unit, table.instead.kind)


def instead_refusal(
    table: Table,
    *,
    leaders: int,
    squads: int,
    half_squads: int,
    rolled: bool,
    taken: bool,
    designable: int | None = None,
) -> str:
    """Why a side may not take what a table offers instead of its roll ("" : it may):
    it has rolled on it, or taken it, in this pass; or it has more than one leader per
    ``squads_per_leader`` squad-equivalents (PHD C5.24a)."""
    instead = table.instead
    if instead is None:
        return f"The {table.title} offers nothing instead of its roll."
    if rolled:
        return f"You have made your {table.title} roll in this pass: not both ({instead.rule})."
    if taken:
        return f"You have done so in this pass ({instead.rule})."
    if instead.from_mmc and squads + half_squads == 0:
        return f"You hold no MMC to create the {instead.unit} from ({instead.rule})."
    if instead.from_mmc and instead.mmc_not_named and designable == 0:
        return (
            f"You hold no MMC that is not a {' or '.join(instead.mmc_not_named)} to create "
            f"the {instead.unit} from ({instead.rule})."
        )
    per = instead.squads_per_leader
    equivalents = Fraction(squads) + Fraction(half_squads, 2)
    if per is not None and leaders * per > equivalents:
        return (
            f"Not with {text.count(leaders, 'leader')} for {_figure(equivalents)} "
            f"squad-equivalents: no more than one leader per {per} ({instead.rule})."
        )
    return ""


def harden_refusal(
    table: Table, *, allowed: int | None, used: int, unit: UnitState | None, hardened: bool
) -> str:
    """Why the side may not Battle Harden one more MMC after its roll on ``table`` (""
    : it may): it has not rolled yet, its result allows no more (``allowed``, ``used``
    in this pass), ``unit`` is not one of its MMC, or it has Battle Hardened once in
    this pass already (PHD C5.23: "No unit may Battle Harden more than once during the
    ConPh")."""
    if allowed is None:
        return (
            f"Roll on the {table.title} first: its result says how many MMC may Battle "
            f"Harden ({table.rule})."
        )
    if used >= allowed:
        return (
            f"Your {table.title} roll lets {allowed} MMC Battle Harden"
            + (f", and you have Battle Hardened {used}" if used else "")
            + f" ({table.rule})."
        )
    if unit is None:
        return ""
    if unit.kind not in MMC_KINDS or "captured" in unit.marked:
        return f"{unit.name} is not one of your MMC (squads, half-squads) ({table.rule})."
    if hardened:
        return (
            f"{unit.name} has Battle Hardened once in this ConPh: no unit may Battle Harden "
            f"more than once ({table.rule})."
        )
    return ""


def weather_words(module: Module, step: Step, date_index: int) -> str:
    """What a step that names the weather shows of the date being set up ("": none
    given): its EC, weather and wind (PHD C5.30: "The EC, Weather, and Wind for each TM
    Scenario are listed in ConPh C5.30"), citing the step's rule."""
    if step.names_weather is None or not 0 <= date_index < len(module.dates):
        return ""
    date = module.dates[date_index]
    weather = date.weather or ("Night" if date.night else "")
    if not weather:
        return ""
    return f"{date.label}: {weather} ({step.names_weather})."


def reduce_refusal(
    table: Table,
    *,
    allowed: int,
    used: int,
    unit: tuple[UnitState, Sequence[str]] | None,
    held: Sequence[tuple[UnitState, Sequence[str]]] = (),
    side: str = "",
) -> str:
    """Why ``side`` may not Casualty Reduce one more MMC after its rolls on ``table``
    in this pass ("": it may): no original roll of it gave one (``allowed``), as many
    as it gave are reduced (``used``), ``unit`` (with its RG's footnotes) is not one of
    its MMC, or it is not of the first class of MMC the side ``held`` has one of (PHD
    C5.28 note 2: "Casualty Reduction for one MMC (Engineer if possible, otherwise
    owner's choice of Elite MMC, or next highest class 1st, 2nd, etc.)").  A unit whose
    class none of them reads (its line names no counter figures the module gives) is
    refused only where a class known otherwise than by figures is held (an Engineer,
    an Elite MMC): below those its class is its owner's word."""
    originals, first = reduction(table)
    said = " or ".join(str(n) for n in originals)
    if not allowed:
        return (
            f"Only an original {said} on the {table.title} gives a Casualty Reduction, and "
            f"you have rolled none in this pass ({table.rule})."
        )
    if used >= allowed:
        return (
            f"Your original {said} on the {table.title} gave {allowed} MMC Casualty "
            f"Reduction, and you have reduced {used} ({table.rule})."
        )
    if unit is None:
        return ""
    state, footnotes = unit
    if not own_mmc(state):
        return f"{state.name} is not one of your MMC (squads, half-squads) ({table.rule})."
    known = any(mmc_class(cls, state, footnotes, side) for cls in first)
    for cls in first:
        of_it = [u.name for u, f in held if own_mmc(u) and mmc_class(cls, u, f, side)]
        if not of_it:
            continue
        if mmc_class(cls, state, footnotes, side):
            return ""
        if not known and not (cls.footnotes or cls.statuses):
            return ""
        source = f"; {cls.source}" if cls.source and cls.figures.get(side) else ""
        return (
            f"{state.name} is not {cls.label}: while you hold {cls.label} "
            f"({', '.join(sorted(set(of_it)))}), the Casualty Reduction falls on one "
            f"({table.rule}{source})."
        )
    return ""


def reduction_order(table: Table, side: str) -> str:
    """The order the Casualty Reduction of ``table``'s original roll falls on the
    classes of ``side``'s MMC, as the players read it ("" : no order), each class read
    from counter figures named with them and their source (PHD C5.28 note 2)."""
    _, first = reduction(table)
    said = [w for w in (class_words(cls, side) for cls in first) if w]
    if not said:
        return ""
    source = next((c.source for c in first if c.figures.get(side)), None)
    return (
        "It falls on "
        + ", else ".join(said)
        + f", else your choice ({table.rule}{'; ' + source if source else ''})."
    )


def reduction_owed_refusal(
    table: Table,
    *,
    allowed: int,
    used: int,
    items: Sequence[str],
    held: Sequence[tuple[UnitState, Sequence[str]]],
) -> str:
    """Why Done waits for the side to name the MMC its rolls on ``table`` Casualty
    Reduce ("" : it does not): fewer named (``used``) than its rolls for ``items`` gave
    (``allowed``), while it ``held`` an MMC (not captured) to name (PHD C5.28 note 2:
    "an original dr of 6 results in Casualty Reduction for one MMC")."""
    if used >= allowed or not any(own_mmc(u) for u, _ in held):
        return ""
    originals, _ = reduction(table)
    said = " or ".join(str(n) for n in originals)
    return (
        f"Name first the MMC your original {said} on the {table.title} "
        f"({'; '.join(items)}) Casualty Reduces: {allowed - used} of {allowed} still to "
        f"name ({table.rule})."
    )


def table_date_reasons(module: Module, table: Table, side: str, date_index: int) -> list[str]:
    """Why ``side`` may not roll on ``table`` on this date: its date windows, and who
    may roll on it when (``Table.offer_when``: Sicily 3.61426, the British at Night)."""
    date = module.dates[date_index]
    ctx = RollContext(
        side=side,
        nationalities=tuple(module.side(side).nationalities),
        night=date.night,
        initial_scenario=date.initial,
    )
    reasons = [
        reason
        for window in table.date_windows
        if holds(window.applies_to, ctx)
        for reason in outside(module, window, date_index)
    ]
    if not holds(table.offer_when, ctx):
        reasons.append(f"{offer_words(module, table)} ({table.rule})")
    return reasons


def attacker_first_reason(
    module: Module,
    step: Step,
    side: str,
    attacker: str,
    done: frozenset[str] | set[str],
    then: str = "you roll once it is done",
) -> str:
    """Why ``side`` may not roll yet (or, with ``then``, press Done yet) at a step the
    Attacker goes first at (PHD C5.14: "In turn, Attacker first"): the Attacker of the
    scenario just played (C5.3) is not done ("": it may; no Attacker known, nothing is
    held back)."""
    if not step.attacker_first or not attacker or side == attacker or attacker in done:
        return ""
    if step.setup_order:
        # Sicily 3.6222: the side setting up first completes its set-up first.
        return (
            f"the {module.side(attacker).name} set up first ({step.setup_order}) and have not "
            f"finished {step.id} {step.title}: {then.replace('it is', 'they are')}"
        )
    return (
        f"the Attacker ({module.side(attacker).name}, {step.names_attacker}) goes first "
        f"at {step.id}: {then}"
    )


def eliminated_by_roll(table: Table) -> str:
    """The rule by which a roll on ``table`` eliminates the RG it is rolled for
    (``PerGroup.then_eliminated``; Sicily British chart footnote i); "" : it does not."""
    cap = table.per_group
    return cap.then_eliminated or "" if cap is not None else ""


def others_first_reason(
    module: Module, step: Step, table: Table, side: str, done: frozenset[str] | set[str]
) -> str:
    """Why ``side`` may not roll on ``table`` yet: it is rolled once every other side
    has finished the step (``Table.others_done_first``; Sicily British chart footnote
    i: a Bombardment "after all on-map setup is completed"), and one has not ("": it
    may)."""
    if table.others_done_first is None:
        return ""
    waiting = [s.name for s in module.sides if s.id != side and s.id not in done]
    if not waiting:
        return ""
    return (
        f"the {' and '.join(waiting)} have not finished {step.id} {step.title}: the "
        f"{table.title} is rolled once they have ({table.others_done_first})"
    )


def capped_group(module: Module, table: Table, side: str) -> ReinforcementGroup | None:
    """The RG of ``side``'s chart a table rolled once per RG held is rolled for whose
    uses per scenario are capped (``ReinforcementGroup.uses_per_scenario``; Sicily
    British chart footnote i's Bombardment), if any."""
    cap, chart = table.per_group, module.chart(side)
    if cap is None or chart is None:
        return None
    for group in chart.groups:
        if group.uses_per_scenario is not None and holds(
            cap.applies_to, group_context(module, side, group)
        ):
            return group
    return None


def uses_refusal(module: Module, table: Table, side: str, used: int, allowed: int) -> str:
    """Why one more roll on ``table`` is refused: each uses one of the RGs it is rolled
    for, and the scenario has used as many as it may (Sicily British chart footnote i:
    "The maximum number of Bombardments useable per CG scenario is equal to the number
    of new CG Dates since the last CG-Scenario End"); "" : it may."""
    group = capped_group(module, table, side)
    if group is None or group.uses_per_scenario is None or used < allowed:
        return ""
    return (
        f"No more {group.type} RGs ({group.id}) in this scenario: at most "
        f"{text.count(allowed, 'new CG Date')} since the last CG-scenario end, so at most "
        f"{allowed}, and you have used {used} ({group.uses_per_scenario.rule})."
    )


def offer_words(module: Module, table: Table) -> str:
    """Who rolls on a table and when, in words: "only the British roll on it, and only
    on a Night CG Date"."""
    cond = table.offer_when
    assert cond is not None
    who = " or ".join(
        [module.side(s).name for s in cond.sides or []] + list(cond.nationalities or [])
    )
    times = []
    if cond.night is not None:
        times.append("on a Night CG Date" if cond.night else "on a day CG Date")
    if cond.initial_scenario is not None:
        times.append("before the Initial Scenario" if cond.initial_scenario else "after it")
    when = " and ".join(times)
    if who and when:
        return f"only the {who} roll on it, and only {when}"
    return f"only the {who} roll on it" if who else f"it is rolled on only {when}"


def at_initial(module: Module, snap: Snapshot) -> bool:
    """Whether the side buys for the Initial Scenario (the CG date is its date): PHD
    I2's German RGs set up on board at no extra cost then."""
    return module.dates[snap.position.date_index].initial


def repair_cap_weapon(table: Table, item: str) -> str:
    """The weapon of ``table.repair_cap`` that a roll's ``item`` names ("FT in 23K4": FT),
    "" when none (PHD C5.26b: a Baz or Psk is not capped)."""
    cap = table.repair_cap
    return next((n for n in cap.names if names_any(item, [n])), "") if cap else ""


def repair_cap_figures(
    cap: RepairCap, weapon: str, units: Iterable[tuple[UnitState, Sequence[str]]]
) -> tuple[int, Fraction]:
    """What a ``repair_cap`` compares, from a side's retained ``units`` (each with the
    chart footnotes of its RG): how many SW named ``weapon`` it retains, and its
    squad-equivalents (a half-squad half) of RGs marked with the cap's footnotes, none
    marked as the cap excludes; a captured unit counts for neither (PHD C5.26b)."""
    held, equivalents = 0, Fraction(0)
    for unit, footnotes in units:
        if "captured" in unit.marked:
            continue
        if unit.kind == "sw":
            held += unit.count if names_any(unit.name, [weapon]) else 0
        elif capped_mmc(cap, unit, footnotes):
            equivalents += Fraction(unit.count, 1 if unit.kind == "squad" else 2)
    return held, equivalents


def capped_mmc(
    cap: RepairCap, unit: UnitState, footnotes: Sequence[str], *, counted: bool = True
) -> bool:
    """Whether ``unit`` (its RG marked ``footnotes``) is one of the MMC a ``repair_cap``
    counts, and so one that may possess a weapon it caps (PHD C5.26b: "(non-isolated)
    Assault Engineer squad-equivalents"; "An Assault Engineer MMC must possess any
    repaired FT/DC").  ``counted`` False: one of those MMC whatever the markers the cap
    does not count (an Isolated Assault Engineer is still one, and may possess it)."""
    return (
        unit.kind in MMC_KINDS
        and "captured" not in unit.marked
        and bool(set(cap.footnotes) & set(footnotes))
        and (not counted or unit.marked.isdisjoint(cap.not_markers))
    )


def capped_possessor_refusal(
    cap: RepairCap, weapon: str, possessor: UnitState, footnotes: Sequence[str]
) -> str:
    """Why ``possessor`` (its RG marked ``footnotes``) may not be named as possessing a
    repaired ``weapon`` the cap names ("": it may): PHD C5.26b "An Assault Engineer MMC
    must possess any repaired FT/DC"."""
    if not any(names_any(weapon, [n]) for n in cap.names):
        return ""
    if capped_mmc(cap, possessor, footnotes, counted=False):
        return ""
    what = cap.label.replace("squad-equivalents", "MMC").replace("(non-isolated) ", "")
    return (
        f"{possessor.name} cannot possess the repaired {weapon}: only one of your {what} "
        f"may possess a repaired {' or '.join(cap.names)} ({cap.rule})."
    )


def repair_cap_refusal(table: Table, weapon: str, held: int, equivalents: Fraction) -> str:
    """Why a roll to repair ``weapon`` could only end in its elimination ("": it may
    be made): the side already retains ``held`` of them, as many as its
    ``equivalents`` squad-equivalents of the RGs the cap names allow (PHD C5.26b)."""
    cap = table.repair_cap
    if cap is None or not weapon or held < equivalents:
        return ""
    return (
        f"You retain {held} {weapon} and {_figure(equivalents)} {cap.label}: the total of "
        f"{weapon} after the repair may not exceed them, so a repaired {weapon} would be "
        f"eliminated as excess ({cap.rule})."
    )


def per_group_refusal(table: Table, rolled: int, held: int) -> str:
    """Why one more roll on a table rolled once per RG held (``Table.per_group``) is
    refused: the side has made as many in this pass as it holds such RGs (PHD C5.34:
    a DR for each OBA module requisitioned)."""
    cap = table.per_group
    if cap is None or rolled < held:
        return ""
    return (
        f"One {table.title} roll for each {cap.label}: you hold {text.count(held, cap.label)} "
        f"and have made {text.count(rolled, 'roll')} in this pass ({cap.rule})."
    )


def per_group_named(
    module: Module, table: Table, side: str, item: str
) -> ReinforcementGroup | None:
    """The RG of ``side``'s chart that the item of a roll on a table rolled once per RG
    (``Table.per_group``) names by its ID, its first word ("O2 81mm OBA"), if the
    table's ``applies_to`` names it (PHD C5.34: an OBA module)."""
    cap, chart = table.per_group, module.chart(side)
    first = item.split()[0].rstrip(":,.") if item.split() else ""
    if cap is None or chart is None or not first:
        return None
    for group in chart.groups:
        if group.id.casefold() == first.casefold() and holds(
            cap.applies_to, group_context(module, side, group)
        ):
            return group
    return None


def fired_tables(module: Module) -> list[Table]:
    """The tables rolled once per RG whose DRMs read whether an earlier module of that
    RG placed an FFE (PHD C5.34): where marking an RG ``fired`` means something."""
    return [t for t in module.tables if t.per_group is not None and reads_fired(t)]


def fired_refusal(module: Module, side: str, group: ReinforcementGroup | None) -> str:
    """Why ``side`` may not mark an RG eliminated for having placed an FFE (TM13): it
    is none of the RGs (OBA modules) a table reading that fact is rolled for."""
    for t in fired_tables(module):
        cap = t.per_group
        if (
            cap is not None
            and group is not None
            and holds(cap.applies_to, group_context(module, side, group))
        ):
            return ""
    labels = sorted({t.per_group.label for t in fired_tables(module) if t.per_group})
    what = " or ".join(labels) or "OBA module"
    name = f"{group.id} {group.type}" if group else "This RG"
    return f"Only an {what} places an FFE: {name} is not one."


def per_group_name_refusal(module: Module, table: Table, side: str, item: str) -> str:
    """Why a roll on a table whose DRMs read the RG rolled for (``drm.reads_fired``) is
    refused: its item does not begin with the ID of one of the side's RGs the table is
    rolled for (PHD C5.34: which OBA module, so that its FFE in the prior TM Scenario
    counts)."""
    cap = table.per_group
    if cap is None or not reads_fired(table) or per_group_named(module, table, side, item):
        return ""
    return (
        f"Name the {cap.label} the {table.title} roll is for by its RG ID first"
        f"{_group_ids(module, table, side)}: whether it placed an FFE in the prior TM "
        f"Scenario decides a DRM ({cap.rule})."
    )


def _group_ids(module: Module, table: Table, side: str) -> str:
    """The IDs of ``side``'s RGs a table rolled once per RG is rolled for, in brackets
    ("" : none on its chart)."""
    cap, chart = table.per_group, module.chart(side)
    ids = [
        g.id
        for g in (chart.groups if chart and cap else [])
        if cap and holds(cap.applies_to, group_context(module, side, g))
    ]
    return f" ({', '.join(ids)})" if ids else ""


def per_group_item_label(module: Module, table: Table, side: str) -> str:
    """What the roll form asks for where a roll names its RG (``per_group_name_refusal``):
    "Which OBA module: its RG ID first (O1, O2)"; "" : the form's usual words."""
    cap = table.per_group
    if cap is None or not reads_fired(table):
        return ""
    return f"Which {cap.label}: its RG ID first{_group_ids(module, table, side)}"


def group_roll_items(
    module: Module, table: Table, side: str, held: Sequence[tuple[str, str]]
) -> list[tuple[str, str]]:
    """The items a table rolled once per RG held (``Table.per_group``) is rolled for:
    each of ``side``'s held purchases (``held``: its reference and RG ID, in the order
    bought) whose RG the table's ``applies_to`` names, as (reference, "O2 81mm OBA
    Module"), a second of one RG "(2)" (PHD C5.34: "make a DR for each" OBA module)."""
    cap, chart = table.per_group, module.chart(side)
    if cap is None or chart is None:
        return []
    groups = {g.id: g for g in chart.groups}
    items: list[tuple[str, str]] = []
    seen: dict[str, int] = {}
    for ref, group_id in held:
        group = groups.get(group_id)
        if group is None or not holds(cap.applies_to, group_context(module, side, group)):
            continue
        seen[group_id] = seen.get(group_id, 0) + 1
        n = seen[group_id]
        items.append((ref, f"{group.id} {group.type}" + (f" ({n})" if n > 1 else "")))
    return items


def group_roll_left(
    items: Sequence[tuple[str, str]], rolled_items: Sequence[str]
) -> list[tuple[str, str]]:
    """The items of ``group_roll_items`` not rolled for in this pass."""
    return [
        (ref, label) for ref, label in items if not any(same_item(label, r) for r in rolled_items)
    ]


def group_roll_choice(
    table: Table, item: str, items: Sequence[tuple[str, str]], rolled_items: Sequence[str]
) -> tuple[str, str] | str:
    """The held RG (reference, label) a roll on a table rolled once per RG held is made
    for: the item chosen, or one named by its RG ID first ("O2 81mm OBA") and not rolled
    for yet; else why it may not be made, citing the rule (PHD C5.34: a DR "for each"
    OBA module requisitioned, none for a module the side does not hold)."""
    cap = table.per_group
    if cap is None:
        return ""
    for ref, label in items:
        if same_item(label, item):
            return ref, label
    first = item.split()[0].rstrip(":,.").casefold() if item.split() else ""
    for ref, label in group_roll_left(items, rolled_items):
        if label.split()[0].casefold() == first:
            return ref, label
    held = ", ".join(label for _, label in items)
    if not held:
        return (
            f"You hold no {cap.label}: there is nothing to roll the {table.title} for ({cap.rule})."
        )
    named = f"{item} is not" if item.strip() else "Choose"
    return (
        f"{named} one of the {cap.label}s you hold ({held}): one {table.title} roll for "
        f"each ({cap.rule})."
    )


def item_weapon(table: Table, side: str, item: str) -> str:
    """The weapon of ``side``'s ``Table.item_names`` that a roll's ``item`` names
    ("Bazooka at 12H3": Bazooka), "" when none (PHD C5.26b)."""
    return next((n for n in table.item_names.get(side, ()) if names_any(item, [n])), "")


def item_name_refusal(module: Module, table: Table, side: str, item: str) -> str:
    """Why a roll on ``table`` may not be made for ``item`` by ``side``: it names none
    of the weapons the table is rolled for on that side (``Table.item_names``; PHD
    C5.26b: "each Baz, Psk, FT, and DC of its nationality")."""
    names = table.item_names.get(side)
    if not names or not item or names_any(item, names):
        return ""
    rule = f" ({table.item_names_rule})" if table.item_names_rule else ""
    either = ", ".join(names[:-1]) + f" or {names[-1]}" if len(names) > 1 else names[0]
    return (
        f"The {module.side(side).name} {table.title} roll is for a {either} only: "
        f"name which in what the roll is for{rule}."
    )
