"""The scenario sheet of one seat: what it takes to the map (VASL or paper) for the
CG scenario about to be played — its RGs with strength, SW, leaders and entry areas,
its retained units, SAN/ELR, weather/EC, MISR and the initiative result — and what
each side has revealed.  Read only through the visibility gate: the opponent's
records appear only as far as they are revealed.  One dataclass; the page, the plain
text (``sheet_text``) and the JSON document are drawn from it."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from campaign.models import (
    Campaign,
    FortificationBuy,
    InitiativeChit,
    InitiativeOutcome,
    ReconBuy,
    Roll,
    ScenarioResult,
    Seat,
    Unit,
)
from campaign.seat_views.common import (
    PurchaseLine,
    decided_by,
    previous_winner_moves_first,
    record_lines,
    visible_purchases,
)
from campaign.selectors import last_scenario_date, module_of, new_dates_since_scenario
from campaign.services.start import setup_order
from rules import machine
from rules.schema import Module, Variant
from rules.text import count


@dataclass(frozen=True)
class SheetRG:
    """One RG of the RG Purchase Record, as the seat may see it."""

    date: str
    group_id: str
    group_type: str
    unit_types: str  # the chart's Unit Type(s), as printed
    strength: str  # "Full" / "Depleted" / "" (not rolled yet)
    units: int | None
    sw: str
    rolls: tuple[str, ...]  # leaders and other roll results
    entry_area: str
    notes: str
    initial: bool  # given in the Initial-Scenario OB
    revealed: bool


@dataclass(frozen=True)
class SheetUnit:
    name: str
    state: str  # its markers in words ("in good order")
    location: str


@dataclass(frozen=True)
class SheetForces:
    """One side's part of the sheet."""

    side: str  # the side's name
    player: str | None
    rgs: list[SheetRG]
    units: list[SheetUnit]
    fortifications: list[str]
    recon: list[str]


@dataclass(frozen=True)
class ScenarioSheet:
    campaign_id: str
    name: str
    module_title: str
    variant: str
    date: str
    scenario: str  # which scenario, and whether it is in play or about to be
    step: str
    side: str  # the viewer's side name
    san: int | None
    elr: int | None
    points: str  # the viewer's points left, in words
    weather: str
    misr: list[str]
    in_effect: list[str]  # what a past result keeps in effect for the rest of the CG
    initiative: list[str]
    mine: SheetForces
    # What the opponent has revealed: its RGs, fortifications and recon as far as
    # revealed, and its retained units not of a still-secret RG.
    opponent: SheetForces
    revealed_by_me: list[str]

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


def _strength(line: PurchaseLine) -> str:
    return {"F": "Full", "D": "Depleted"}.get(line.strength, "")


def scenario_sheet(campaign: Campaign, side: str) -> ScenarioSheet:
    """The sheet of ``side``'s seat, through the gate."""
    module = module_of(campaign)
    seats = {s.side: s for s in Seat.objects.filter(campaign=campaign).select_related("user")}
    opp = machine.opponent(module, side)
    variant = module.variant(campaign.variant)
    first = machine.date_index(module, variant.start_date)
    date = module.dates[campaign.date_index]
    initial = campaign.date_index == first  # the Initial Scenario's date

    purchases = visible_purchases(campaign, side)
    lines = dict(
        zip([p.pk for p in purchases], record_lines(campaign, module, side, purchases), strict=True)
    )
    units = list(Unit.objects.visible_to(side).filter(campaign=campaign).order_by("id"))
    forts = list(FortificationBuy.objects.visible_to(side).filter(campaign=campaign).order_by("id"))
    recons = list(ReconBuy.objects.visible_to(side).filter(campaign=campaign).order_by("id"))
    labels = {i.id: i.label for i in module.fortifications.items} if module.fortifications else {}
    forts_currency = module.fortifications.currency if module.fortifications else ""

    def forces(of: str) -> SheetForces:
        chart = module.chart(of)
        types = {g.id: g.units for g in chart.groups} if chart else {}
        seat = seats[of]
        return SheetForces(
            side=module.side(of).name,
            player=seat.user.get_username() if seat.user else None,
            rgs=[
                SheetRG(
                    date=line.date,
                    group_id=line.group_id,
                    group_type=line.group_type,
                    unit_types=types.get(line.group_id, ""),
                    strength=_strength(line),
                    units=line.units,
                    sw=line.sw,
                    rolls=line.rolls,
                    entry_area=line.entry_area,
                    notes=line.notes,
                    initial=p.initial,
                    revealed=line.revealed,
                )
                for p in purchases
                if p.side == of
                for line in [lines[p.pk]]
            ],
            units=[
                SheetUnit(u.label, ", ".join(u.state_words), u.location)
                for u in units
                if u.side == of
            ],
            fortifications=[
                f"{module.dates[b.date_index].label}: {b.count} × "
                f"{labels.get(b.item_id, b.item_id)}"
                + (f" at {b.location}" if b.location else "")
                + (f" ({b.cost} {forts_currency})" if of == side else "")
                for b in forts
                if b.side == of
            ],
            recon=[
                f"{module.dates[r.date_index].label}: Recon of {count(r.locations, 'Location')}"
                for r in recons
                if r.side == of
            ],
        )

    me = seats[side]
    code = module.currency.code
    points = f"{me.points} {code}"
    if module.fortifications:
        points += f", {me.fortification_points} {module.fortifications.currency}"
    revealed_by_me = [
        f"{p.group_id} {p.group_type} ({module.dates[p.date_index].label})"
        for p in purchases
        if p.side == side and p.revealed_at is not None and not p.initial
    ]
    revealed_by_me += [
        f"{labels.get(b.item_id, b.item_id)} × {b.count}"
        for b in forts
        if b.side == side and b.revealed_at is not None
    ]
    return ScenarioSheet(
        campaign_id=str(campaign.pk),
        name=campaign.name,
        module_title=module.title,
        variant=module.variant_words(variant.id),
        date=date.label,
        scenario=_scenario(campaign, module, initial),
        step=f"{module.steps[campaign.step_index].id} {module.steps[campaign.step_index].title}",
        side=module.side(side).name,
        san=me.san,
        elr=me.elr,
        points=points,
        weather=_weather(module, campaign, initial),
        misr=list(variant.start.misr) if initial else [],
        in_effect=_balance(variant)
        + _in_effect(campaign, module)
        + _uses_per_scenario(campaign, module, side),
        initiative=_initiative(campaign, module, side, initial),
        mine=forces(side),
        opponent=forces(opp),
        revealed_by_me=revealed_by_me,
    )


def _scenario(campaign: Campaign, module: Module, initial: bool) -> str:
    label = module.dates[campaign.date_index].label
    which = f"The Initial Scenario ({label})" if initial else f"The {label} scenario"
    if campaign.ended_at is not None:
        return f"The CG has ended; {_last_played(campaign, module, which)} was its last."
    if campaign.in_play:
        return f"{which} is in play."
    kind = module.steps[campaign.step_index].kind
    if kind in ("setup", "commence"):
        return f"{which} is being set up."
    return (
        f"Between scenarios: the next scenario is not set up yet; this is {label} as it stands now."
    )


def _last_played(campaign: Campaign, module: Module, which: str) -> str:
    """The CG's last scenario played, in words: the date of its last confirmed result,
    which is not the campaign's date where the CG ended after a new date began (APD CG
    VC "≥ 150 at any CG-Scenario end", met by the Midday's result amended in the
    Afternoon's Setup Phase); ``which`` (the campaign's date's) where it is."""
    last = last_scenario_date(campaign)
    if last is None or last == campaign.date_index:
        return f"{which[0].lower()}{which[1:]}"
    first = machine.date_index(module, module.variant(campaign.variant).start_date)
    label = module.dates[last].label
    return f"the Initial Scenario ({label})" if last == first else f"the {label} scenario"


def _balance(variant: Variant) -> list[str]:
    """The CG's Balance provisions, as the players supplied them (APD 1.1: cut from the
    rules text), on every scenario sheet of the CG: who plays with them is the players'
    agreement when both wished the same side (A26.4)."""
    start = variant.start
    rule = start.rules.get("balance", start.rule)
    return [f"CG Balance ({rule}), for the side it names (A26.4): {line}" for line in start.balance]


def _in_effect(campaign: Campaign, module: Module) -> list[str]:
    """What a confirmed result made true for the rest of the CG (``lasts_cg``), and
    since which scenario: results are public once both players confirmed them."""
    lasting = [f for f in module.result_fields if f.lasts_cg]
    if not lasting:
        return []
    results = ScenarioResult.objects.filter(campaign=campaign, confirmed_at__isnull=False)
    lines = []
    for f in lasting:
        first = next(
            (r for r in results.order_by("cycle") if any((r.data.get(f.id) or {}).values())),
            None,
        )
        if first is not None:
            since = module.dates[first.date_index].label
            rule = f" ({f.rule})" if f.rule else ""
            lines.append(f"{f.label}{rule}: since the {since} scenario, for the rest of the CG.")
    return lines


def _uses_per_scenario(campaign: Campaign, module: Module, side: str) -> list[str]:
    """How many of an RG of the side's chart its next (or current) CG scenario may use,
    where the chart caps it per scenario (``ReinforcementGroup.uses_per_scenario``;
    Sicily British footnote i: "The maximum number of Bombardments useable per CG
    scenario is equal to the number of new CG Dates since the last CG-Scenario End"):
    from the dates, public facts, whatever the side holds."""
    chart = module.chart(side)
    capped = [g for g in chart.groups if g.uses_per_scenario] if chart else []
    if not capped:
        return []
    dates = new_dates_since_scenario(module, campaign)
    return [
        f"At most {dates} {g.type} RG{'s' if dates != 1 else ''} ({g.id}) may be used in this "
        f"scenario: the new CG Dates since the last CG-scenario end ({g.uses_per_scenario.rule})."
        for g in capped
        if g.uses_per_scenario is not None
    ]


def _weather(module: Module, campaign: Campaign, initial: bool) -> str:
    date = module.dates[campaign.date_index]
    start = module.variant(campaign.variant).start
    if initial and start.weather:
        return start.weather
    if date.weather:
        return date.weather
    if date.night:
        return "Night (no weather given by the CG rules)"
    return "Not given by the CG rules: as the scenario rules say."


def _initiative(campaign: Campaign, module: Module, side: str, initial: bool) -> list[str]:
    if initial:
        return setup_order(module, campaign) or [
            "The Initial Scenario's set-up order is as its rules say."
        ]
    outcome = (
        InitiativeOutcome.objects.filter(campaign=campaign, date_index=campaign.date_index)
        .order_by("-cycle")
        .first()
    )
    if outcome is None:
        winner = previous_winner_moves_first(campaign, module)
        return [winner or "Initiative is not determined yet on this date."]
    chits = {
        ch.side: ch.get_chit_display()
        for ch in InitiativeChit.objects.visible_to(side).filter(
            campaign=campaign, cycle=outcome.cycle
        )
    }
    chosen = ", ".join(f"{s.name} {chits[s.id]}" for s in module.sides if s.id in chits)
    lines = [f"{chosen} → {outcome.label}." if chosen else f"{outcome.label}."]
    if outcome.attackers:
        attackers = ", ".join(module.side(a).name for a in outcome.attackers)
        lines.append(f"Attacker: {attackers}.")
    if outcome.sets_up_first:
        lines.append(f"{module.side(outcome.sets_up_first).name} sets up first.")
    if outcome.moves_first:
        lines.append(f"{module.side(outcome.moves_first).name} moves first.")
    elif outcome.scenario:
        lines.append("Who moves first is settled at scenario commencement.")
    said = decided_by(
        module,
        outcome,
        lambda: (
            Roll.objects.visible_to(side)
            .filter(
                campaign=campaign,
                date_index=outcome.date_index,
                cycle=outcome.cycle,
                purpose__startswith="who ",
            )
            .order_by("seq")
        ),
    )
    if said:
        lines.append("; ".join(said) + ".")
    return lines


def sheet_text(sheet: ScenarioSheet) -> str:
    """The sheet as plain text, to paste into VASL's chat or notes."""
    out = [
        f"{sheet.name} — {sheet.module_title}, {sheet.variant}",
        f"{sheet.date}: {sheet.scenario}",
        f"Scenario sheet of {sheet.side}"
        + (f" ({sheet.mine.player})" if sheet.mine.player else ""),
        "",
        f"SAN {_dash(sheet.san)} · ELR {_dash(sheet.elr)} · left: {sheet.points}",
        f"Weather/EC: {sheet.weather}",
    ]
    if sheet.misr:
        out += ["MISR:"] + [f"  {m}" for m in sheet.misr]
    out += [f"In effect: {line}" for line in sheet.in_effect]
    out += ["Initiative: " + " ".join(sheet.initiative), ""]
    out += _forces_text(f"{sheet.side} — your forces", sheet.mine, own=True)
    out += ["", "You have revealed: " + ("; ".join(sheet.revealed_by_me) or "nothing"), ""]
    out += _forces_text(f"{sheet.opponent.side} — as revealed to you", sheet.opponent, own=False)
    return "\n".join(out).rstrip() + "\n"


def _forces_text(title: str, forces: SheetForces, *, own: bool) -> list[str]:
    out = [title, "RGs:"]
    for rg in forces.rgs:
        head = f"  {rg.group_id} {rg.group_type}"
        if rg.unit_types:
            head += f" [{rg.unit_types}]"
        details = [rg.date + (" (OB)" if rg.initial else "")]
        if rg.strength:
            details.append(rg.strength)
        if rg.units is not None:
            details.append(f"{rg.units} units")
        if rg.sw:
            details.append(f"SW {rg.sw}")
        details += rg.rolls
        if rg.entry_area:
            details.append(f"entry/set-up: {rg.entry_area}")
        if rg.notes:
            details.append(f"notes: {rg.notes}")
        if own and rg.revealed and not rg.initial:
            details.append("revealed")
        out.append(head + " — " + "; ".join(details))
    if not forces.rgs:
        out.append("  none" if own else "  none revealed")
    out.append("Retained units:")
    out += [
        f"  {u.name} ({u.state})" + (f" at {u.location}" if u.location else "")
        for u in forces.units
    ] or ["  none"]
    if forces.fortifications:
        out += ["Fortifications:"] + [f"  {f}" for f in forces.fortifications]
    if forces.recon:
        out += ["Recon:"] + [f"  {r}" for r in forces.recon]
    return out


def _dash(value: int | None) -> str:
    return "—" if value is None else str(value)
