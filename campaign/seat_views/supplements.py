"""What the rules documents lack and the players supply: the list on the campaign
page, and the form of one datum (public to both seats)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from campaign.models import Campaign, Supplement
from campaign.prepared import CAMPAIGN, PreparedRead
from rules import effects, supply
from rules.schema import Effect, Module


@dataclass(frozen=True)
class ProposalView:
    ref: str
    by: str  # side name
    mine: bool
    summary: list[str]
    package: str = ""  # the start sheet it came in


@dataclass(frozen=True)
class PackageView:
    """A start sheet still open: its data are answered at once (or one by one)."""

    ref: str
    by: str
    mine: bool
    labels: list[str]


@dataclass(frozen=True)
class SupplyView:
    path: str
    label: str
    rule: str
    missing: bool
    proposal: ProposalView | None
    supplied_by: str  # side name of the accepted supply ("" when none)
    refused: str  # the latest refusal, in words
    # The viewer supplied the value in force, and one was accepted before it: it may
    # ask to take its value back (services.supplements.propose_supplement_takeback).
    takeback: bool = False


def summary(module: Module, kind: supply.FormKind, value: Any) -> list[str]:
    """A datum in lines a player can check before accepting it."""
    names = {s.id: s.name for s in module.sides}
    if kind is supply.FormKind.SIDE_NUMBERS:
        return [f"{names.get(k, k)}: {v}" for k, v in value.items()]
    if kind is supply.FormKind.SIDE:
        return [names.get(value, value)]
    if kind is supply.FormKind.LINES:
        return list(value)
    if kind is supply.FormKind.OB:
        return [
            f"{names.get(side, side)}: "
            + "; ".join(
                [*(["RGs " + ", ".join(ob["rgs"])] if ob.get("rgs") else []), *ob.get("units", [])]
                + ([ob["text"]] if ob.get("text") else [])
            )
            for side, ob in value.items()
        ]
    if kind is supply.FormKind.TABLE:
        return [
            f"{row['range']}: "
            + (row.get("result") or "; ".join(f"{k}: {v}" for k, v in row["results"].items()))
            + (f" [{effects.short(Effect(**row['effect']))}]" if row.get("effect") else "")
            for row in value
        ]
    if kind is supply.FormKind.CHART:
        return [
            f"{g['id']} {g['type']} ({g['units']}), cost {g.get('cost')}"
            + (f", {g['full']}/{g.get('depleted', '-')}" if "full" in g else "")
            for g in value
        ]
    return [str(value)]


# Every campaign page reads them (compiled once: ``campaign.prepared``).
_SUPPLEMENTS = PreparedRead(lambda: Supplement.objects.filter(campaign_id=CAMPAIGN).order_by("id"))


def supply_views(campaign: Campaign, module: Module, viewer: str) -> list[SupplyView]:
    rows = _SUPPLEMENTS(campaign=campaign.pk)
    accepted = {r.path: r for r in rows if r.status == Supplement.Status.ACCEPTED}
    names = {s.id: s.name for s in module.sides}
    views = []
    for it in supply.suppliable(module, campaign.variant, set(accepted)):
        mine = [r for r in rows if r.path == it.path]
        open_one = next((r for r in mine if r.status == Supplement.Status.PROPOSED), None)
        refused = next((r for r in reversed(mine) if r.status == Supplement.Status.REFUSED), None)
        views.append(
            SupplyView(
                path=it.path,
                label=it.label,
                rule=it.rule,
                missing=it.missing,
                proposal=ProposalView(
                    open_one.ref,
                    names[open_one.proposed_by],
                    open_one.proposed_by == viewer,
                    summary(module, it.kind, open_one.value),
                    open_one.package,
                )
                if open_one
                else None,
                supplied_by=names[accepted[it.path].proposed_by] if it.path in accepted else "",
                refused=f"{names[refused.proposed_by]}'s proposal was refused: “{refused.reason}”"
                if refused and not open_one
                else "",
                takeback=open_one is None
                and it.path in accepted
                and accepted[it.path].proposed_by == viewer
                and any(r.status == Supplement.Status.SUPERSEDED for r in mine),
            )
        )
    return views


def package_views(supplies: list[SupplyView]) -> list[PackageView]:
    """The open start sheets, from the data's open proposals."""
    packages: dict[str, PackageView] = {}
    for s in supplies:
        p = s.proposal
        if p is None or not p.package:
            continue
        if p.package not in packages:
            packages[p.package] = PackageView(p.package, p.by, p.mine, [])
        packages[p.package].labels.append(s.label)
    return list(packages.values())


@dataclass(frozen=True)
class Cell:
    name: str  # the form field's name
    label: str
    value: str
    input: str = "text"  # "text", "number", "textarea", "checkbox", "side"
    limit: int = 0  # most characters the field takes (its maxlength), 0 for a number or a side
    cap: str = ""  # the cap said in words, under the field


LINES_CAP = f"At most {supply.MAX_LINES} lines of at most {supply.MAX_LINE} characters."
TEXT_CAP = f"At most {supply.MAX_TEXT} characters."


@dataclass
class SupplyForm:
    """The form of one datum: simple fields, or a grid (a table's rows, an RG chart's
    groups) with a header, and the problems of the last try, per cell."""

    item: supply.Suppliable
    sides: list[tuple[str, str]]
    fields: list[Cell] = field(default_factory=list)
    header: list[str] = field(default_factory=list)
    grid: list[list[Cell]] = field(default_factory=list)
    errors: dict[str, str] = field(default_factory=dict)
    help: str = ""  # how to fill the grid's less obvious cells
    prefix: str = ""  # before each cell's name (a datum of the start sheet)
    max_rows: int = supply.MAX_ROWS  # the caps the grid's help states
    max_cell: int = supply.MAX_LINE

    @property
    def paste_name(self) -> str:
        return f"{self.prefix}paste"


def _accepted(campaign: Campaign) -> set[str]:
    return set(
        Supplement.objects.filter(campaign=campaign, status=Supplement.Status.ACCEPTED).values_list(
            "path", flat=True
        )
    )


def supply_form(
    campaign: Campaign, module: Module, path: str, posted: dict[str, str] | None = None
) -> SupplyForm:
    it = supply.item(module, campaign.variant, path, _accepted(campaign))
    return _form(campaign, module, it, posted)


def start_sheet(
    campaign: Campaign, module: Module, viewer: str, posted: dict[str, str] | None = None
) -> list[SupplyForm]:
    """One form for every datum the rules lack that no opponent's proposal waits on:
    each datum's cells named ``<path>|<cell>``, prefilled with what the module knows."""
    rows = list(Supplement.objects.filter(campaign=campaign, status=Supplement.Status.PROPOSED))
    theirs = {r.path for r in rows if r.proposed_by != viewer}
    forms = []
    for it in supply.suppliable(module, campaign.variant, _accepted(campaign)):
        if not it.missing or it.path in theirs:
            continue
        values = None if posted is None else sheet_values(posted, it.path)
        forms.append(_form(campaign, module, it, values, prefix=f"{it.path}|"))
    return forms


def sheet_values(posted: dict[str, str], path: str) -> dict[str, str]:
    """The cells of one datum in a posted start sheet, without their prefix."""
    head = f"{path}|"
    return {k.removeprefix(head): v for k, v in posted.items() if k.startswith(head)}


def _form(
    campaign: Campaign,
    module: Module,
    it: supply.Suppliable,
    posted: dict[str, str] | None,
    prefix: str = "",
) -> SupplyForm:
    form = SupplyForm(item=it, sides=[(s.id, s.name) for s in module.sides], prefix=prefix)
    values = dict(posted) if posted is not None else prefilled(campaign, module, it)
    used = max(
        [
            int(k.split("-")[1])
            for k in values
            if k.startswith("row-") and supply.is_row_number(k.split("-")[1])
        ],
        default=-1,
    )
    rows = range(min(used + 1 + supply.BLANK_ROWS, supply.MAX_ROWS))

    def row_cell(n: int, key: str, label: str, kind: str = "text") -> Cell:
        name = f"row-{n}-{key}"
        return Cell(prefix + name, f"Row {n + 1} {label}", values.get(name, ""), kind)

    kind = it.kind
    sides = form.sides
    if kind is supply.FormKind.SIDE_NUMBERS:
        form.fields = [
            Cell(f"value.{s}", name, values.get(f"value.{s}", ""), "number") for s, name in sides
        ]
    elif kind is supply.FormKind.SIDE:
        form.fields = [Cell("value", "Side", values.get("value", ""), "side")]
    elif kind in (supply.FormKind.TEXT, supply.FormKind.NUMBER):
        if kind is supply.FormKind.NUMBER:
            form.fields = [Cell("value", it.label, values.get("value", ""), "number")]
        else:
            form.fields = [
                Cell(
                    "value", it.label, values.get("value", ""), limit=supply.MAX_TEXT, cap=TEXT_CAP
                )
            ]
    elif kind is supply.FormKind.LINES:
        form.fields = [Cell("value", it.label, values.get("value", ""), "textarea", cap=LINES_CAP)]
    elif kind is supply.FormKind.OB:
        for s, name in sides:
            form.fields += [
                Cell(
                    f"rgs.{s}",
                    f"{name}: RG IDs (comma-separated)",
                    values.get(f"rgs.{s}", ""),
                    limit=supply.MAX_TEXT,
                ),
                Cell(
                    f"units.{s}",
                    f"{name}: units, one line each (e.g. “2 x 4-6-7”, “8-1 leader”, "
                    "“3 x Sherman III(a) (vehicle)”)",
                    values.get(f"units.{s}", ""),
                    "textarea",
                    cap=LINES_CAP,
                ),
                Cell(
                    f"text.{s}",
                    f"{name}: the OB as printed",
                    values.get(f"text.{s}", ""),
                    "textarea",
                    limit=supply.MAX_TEXT,
                    cap=TEXT_CAP,
                ),
            ]
    elif kind in (supply.FormKind.TABLE, supply.FormKind.CHART):
        columns = supply.grid_columns(module, it)
        form.header = [c.header for c in columns]
        form.grid = [[row_cell(n, c.key, c.label, c.input) for c in columns] for n in rows]
        if kind is supply.FormKind.TABLE:
            form.help = (
                "Effect: what Refit does with the result (the Result column's words are "
                "for the players to read), one of: none · "
                "eliminate · status: ok / wounded / malfunctioned / recalled … · replace: "
                "7-0 leader · strength: full / depleted · leader: 8-1 leader · units: 2 x "
                "M4A3 (vehicle) · group: RA1 · san: -2 · side: axis · type: m4 (the group is "
                "now of that group kind, e.g. the armor type a dr decides)."
            )
        else:
            form.help = (
                "Unit kind: what the RG's units join the retained forces as "
                f"({supply.UNIT_KIND_HELP}; empty for none, e.g. OBA). Group kinds: what "
                "other rules call the RG, e.g. “coy, airborne” (the chart's coy limit reads "
                "“coy”). Footnotes: the chart's footnote letters for the RG, e.g. “l, m”."
            )
            read = supply.tags_read(module, it.path.split(".")[1])
            if read:
                form.help += f" The group kinds this chart's rules read: {', '.join(read)}."
            if module.fortifications is not None:
                currency = module.fortifications.currency
                form.help += (
                    f" Gives {currency}: the {currency} a side receives with the RG (an RG "
                    f"that buys {currency} for fortifications)."
                )
    form.fields = [replace(c, name=prefix + c.name) for c in form.fields]
    return form


def prefilled(campaign: Campaign, module: Module, it: supply.Suppliable) -> dict[str, str]:
    """What a datum's form shows before the player types: the datum as the campaign
    has it now (to amend it, or what the module knows of a missing one)."""
    values: dict[str, str] = {}
    parts = it.path.split(".")
    if parts[0] == "variants":
        variant = module.variant(campaign.variant)
        name = parts[-1]
        current: Any = (
            variant.attack_chits if name == "attack_chits" else getattr(variant.start, name)
        )
        if it.kind is supply.FormKind.SIDE_NUMBERS:
            values = {f"value.{k}": str(v) for k, v in (current or {}).items()}
        elif it.kind is supply.FormKind.LINES:
            values = {"value": "\n".join(current or [])}
        elif it.kind is supply.FormKind.OB:
            for side, ob in (current or {}).items():
                values[f"rgs.{side}"] = ", ".join(ob.rgs)
                values[f"units.{side}"] = "\n".join(ob.units)
                values[f"text.{side}"] = ob.text or ""
        elif current:
            values = {"value": str(current)}
    elif parts[0] == "tables":
        table = module.table(parts[1])
        for n, row in enumerate(table.rows):
            values[f"row-{n}-range"] = row.range
            values[f"row-{n}-result"] = row.result or ""
            for k, column in enumerate(table.columns or []):
                values[f"row-{n}-col-{k}"] = (row.results or {}).get(column, "")
            values[f"row-{n}-effect"] = effects.short(row.effect) if row.effect else ""
    elif parts[0] == "rg_charts":
        chart = module.chart(parts[1])
        for n, g in enumerate(chart.groups if chart else []):
            for name in ("id", "type", "units"):
                values[f"row-{n}-{name}"] = getattr(g, name)
            for name in ("full", "depleted", "cost", "date_max"):
                value = getattr(g, name)
                values[f"row-{n}-{name}"] = "" if value is None else str(value)
            for variant_id, value in g.cg_max.items():
                values[f"row-{n}-cg_max-{variant_id}"] = str(value)
            for variant_id, value in g.costs.items():
                values[f"row-{n}-cost-{variant_id}"] = str(value)
            gives = g.grants.get("fortification_points")
            values[f"row-{n}-grants"] = "" if gives is None else str(gives)
            values[f"row-{n}-tags"] = ", ".join(g.tags)
            values[f"row-{n}-footnotes"] = ", ".join(g.footnotes)
            values[f"row-{n}-unit_kind"] = supply.UNIT_KIND_WORD.get(g.unit_kind or "", "")
            values[f"row-{n}-depletable"] = "on" if g.depletable else ""
            values[f"row-{n}-sw"] = ", ".join(f"{name} {k}" for name, k in g.sw.items())
    else:
        number = supply.number_at(module, it.path)
        values = {"value": "" if number is None else str(number)}
    return values
