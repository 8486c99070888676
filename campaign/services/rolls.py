"""The campaign quantities a roll's DRMs count, read for the acting side."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from campaign.models import (
    Campaign,
    InitiativeChit,
    InitiativeOutcome,
    Purchase,
    ScenarioResult,
    Unit,
)
from campaign.services.turns import Turn
from campaign.services.units import possessor_refusal
from rules import availability
from rules.drm import RollContext, holds
from rules.effects import UnitState, names_any
from rules.purchase import group_context
from rules.schema import CVP_LOST, VP, Condition, RepairCap


def held_with_footnotes(
    turn: Turn, side: str, kinds: list[str]
) -> list[tuple[UnitState, list[str]]]:
    """The side's retained lines of ``kinds``, each as the rules read it, with the chart
    footnotes of the RG it came with (none: a line of no RG, added by hand): the one
    read behind a DRM's held squads and a repair cap's figures."""
    rows = Unit.objects.filter(campaign=turn.campaign, side=side, kind__in=kinds).values_list(
        "kind", "name", "markers", "purchase__group_id", "count"
    )
    out = []
    for kind, name, markers, group_id, n in rows:
        group = turn.module.group(side, group_id) if group_id else None
        state = UnitState(name, kind, tuple(markers or ()), count=n)
        out.append((state, list(group.footnotes) if group else []))
    return out


def possessor_footnotes(turn: Turn, unit: Unit) -> frozenset[str]:
    """The chart footnotes of the RG of the unit possessing ``unit`` (none: nobody
    possesses it, or its possessor came with no RG): who may use it qualified
    (``Condition.not_qualified_possessor``, PHD MSR8's Assault Engineers, RG footnote
    e).  A possessor is of the unit's side, never across a secret."""
    if unit.possessor_id is None:
        return frozenset()
    group_id = (
        Unit.objects.filter(pk=unit.possessor_id)
        .values_list("purchase__group_id", flat=True)
        .first()
    )
    group = turn.module.group(unit.side, group_id) if group_id else None
    return frozenset(group.footnotes) if group else frozenset()


def squads_by_footnote(turn: Turn, side: str) -> dict[str, int]:
    """The side's retained squads, not captured, counted by each chart footnote of the
    RG they came with (``Condition.held_squads``, PHD C5.28's Pionerie/Engineer squads:
    RG footnote e); a squad of no RG (added by hand) is of none."""
    counts: dict[str, int] = {}
    for state, footnotes in held_with_footnotes(turn, side, ["squad"]):
        if "captured" in state.marked:
            continue
        for footnote in set(footnotes):
            counts[footnote] = counts.get(footnote, 0) + state.count
    return counts


def held_groups(turn: Turn, side: str, applies_to: Condition) -> int:
    """How many RGs ``side`` holds in its OB (bought or OB-given, not cancelled, not
    eliminated, withdrawn or used up) that ``applies_to`` names (``Table.per_group``)."""
    ids = Purchase.objects.filter(
        campaign=turn.campaign,
        side=side,
        status=Purchase.Status.ACTIVE,
        state=Purchase.State.HELD,
    ).values_list("group_id", flat=True)
    n = 0
    for group_id in ids:
        group = turn.module.group(side, group_id)
        if group is not None and holds(applies_to, group_context(turn.module, side, group)):
            n += 1
    return n


def secret_module(turn: Turn, side: str, group_id: str, ref: str = "") -> Purchase | None:
    """``side``'s held, still-secret purchase of RG ``group_id``, locked: a roll made for
    it (PHD C5.34 "make a DR for each" OBA module requisitioned) is its secret, kept
    and revealed with it, not even its making shown (``visibility.RG_ROLLS``)."""
    return (
        Purchase.objects.select_for_update()
        .filter(
            campaign=turn.campaign,
            side=side,
            group_id=group_id,
            status=Purchase.Status.ACTIVE,
            state=Purchase.State.HELD,
            revealed_at__isnull=True,
            **({"ref": ref} if ref else {}),
        )
        .order_by("-pk")
        .first()
    )


def fired_in_pass(turn: Turn, side: str, group_id: str) -> bool:
    """Whether ``side`` marked a module of RG ``group_id`` eliminated for having placed
    an FFE (TM13) in this pass, i.e. in the scenario just played: PHD C5.34 "+1 If
    module placed a FFE counter in prior TM Scenario" (``Condition.fired_prior``)."""
    return Purchase.objects.filter(
        campaign=turn.campaign,
        side=side,
        group_id=group_id,
        state=Purchase.State.FIRED,
        details__fired_cycle=turn.campaign.cycle,
    ).exists()


def cap_possessor(turn: Turn, weapon: Unit, cap: RepairCap) -> Unit | None:
    """The MMC that possesses a weapon ``cap`` counts when it rejoins the retained
    forces (PHD C5.26b "An Assault Engineer MMC must possess any repaired FT/DC"): of
    the side's lines the cap counts (``availability.capped_mmc``) that may possess it
    without telling a secret (``units.possessor_refusal``), the first holding fewest
    such weapons; None if none may (its owner names one on the retained forces)."""
    side = Unit.objects.select_related("purchase").filter(campaign=turn.campaign, side=weapon.side)
    lines = [u for u in side.order_by("pk") if u.kind in ("squad", "half_squad")]
    # One holding fewest of the weapons the cap counts first (a second FT goes to an
    # engineer holding none, not to the first one again).
    holding = Counter(
        u.possessor_id
        for u in side.filter(kind="sw", possessor__isnull=False)
        if any(names_any(u.name, [n]) for n in cap.names)
    )
    chosen = None
    for line in lines:
        group = turn.module.group(line.side, line.purchase.group_id) if line.purchase else None
        footnotes = list(group.footnotes) if group else []
        if not availability.capped_mmc(cap, line.state, footnotes):
            continue
        if possessor_refusal(weapon, line):
            continue
        if chosen is None or holding[line.pk] < holding[chosen.pk]:
            chosen = line
    return chosen


def repair_cap_counts(turn: Turn, side: str, cap: RepairCap, weapon: str) -> tuple[int, Fraction]:
    """What a table's ``repair_cap`` compares for ``side`` (``availability.
    repair_cap_figures`` over its retained SW and MMC, each with its RG's footnotes)."""
    units = held_with_footnotes(turn, side, ["sw", "squad", "half_squad"])
    return availability.repair_cap_figures(cap, weapon, units)


def confirmed_results(campaign: Campaign) -> list[ScenarioResult]:
    return list(
        ScenarioResult.objects.filter(campaign=campaign, confirmed_at__isnull=False).order_by(
            "cycle"
        )
    )


@dataclass(frozen=True)
class Played:
    """The confirmed results, in order, and whether a scenario counted but not played
    (PHD's Lull) came after the last of them: what ``campaign_inputs`` reads of the
    scenarios played, read once where several sides' inputs are computed together."""

    results: list[ScenarioResult]
    lull_after_last: bool


def played_so_far(turn: Turn) -> Played:
    results = confirmed_results(turn.campaign)
    return Played(results, bool(results) and lull_since(turn, results[-1]))


def campaign_inputs(turn: Turn, side: str, played: Played | None = None) -> dict[str, int]:
    """The campaign quantities DRMs and mechanisms count (schema.CampaignInput);
    ``played``: the scenarios played, if read already."""
    played = played or played_so_far(turn)
    results = played.results

    def value(r: ScenarioResult, field: str, of: str = side) -> int:
        v = r.data.get(field, {}).get(of, 0)
        return v if isinstance(v, int) and not isinstance(v, bool) else 0

    seat = turn.seats[side]
    prior = results[-1] if results else None
    counted = prior is not None and not played.lull_after_last
    others = [s.id for s in turn.module.sides if s.id != side]
    return {
        "cvp_lost_prior_scenario": value(prior, CVP_LOST) if prior and counted else 0,
        "cvp_amassed_prior_scenario": sum(value(prior, CVP_LOST, o) for o in others)
        if prior and counted
        else 0,
        "cvp_lost_cg": sum(value(r, CVP_LOST) for r in results),
        "vp_total": sum(value(r, VP) for r in results),
        "san": seat.san or 0,
        "stack_hs": 0,  # no unit rolled for (a roll for units counts its stack's)
        "stack_leadership": 0,  # no leader making the roll
    }


def lull_since(turn: Turn, played: ScenarioResult) -> bool:
    """Whether a scenario in which nothing was played, but which the rules count as one
    (``counts_as_scenario``: PHD's Lull), came after ``played``: the "previous
    scenario" is then that one, and no CVP were lost in it."""
    ini = turn.module.initiative
    lulls = [r.id for r in ini.results if r.counts_as_scenario] if ini else []
    return (
        bool(lulls)
        and InitiativeOutcome.objects.filter(
            campaign=turn.campaign, date_index__gt=played.date_index, result__in=lulls
        ).exists()
    )


def roll_context(
    turn: Turn, side: str | None = None, played: Played | None = None, **extra: Any
) -> RollContext:
    """What a roll's DRMs read for ``side`` (the acting side by default); ``played``:
    the scenarios played, if read already."""
    side = side or turn.side
    c = turn.campaign
    date = turn.module.dates[c.date_index]
    last_chit = (
        InitiativeChit.objects.filter(campaign=c, side=side, revealed_at__isnull=False)
        .order_by("-cycle")
        .first()
    )
    return RollContext(
        side=side,
        nationalities=tuple(turn.module.side(side).nationalities),
        night=date.night,
        initial_scenario=date.initial,
        chose_attack_previous=bool(last_chit and last_chit.chit == "attack"),
        inputs=campaign_inputs(turn, side, played),
        **extra,
    )
