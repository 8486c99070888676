"""Data the rules documents lack, supplied by the players: what can be supplied, the
form each datum takes, reading a filled-in form, and patching the module with it.

Pure functions over a module's data (a dict, as stored with a campaign): the write
side proposes, validates (with the same schema as a module file) and applies.  A
problem is reported per cell of the form that caused it.
"""

from __future__ import annotations

import copy
import csv
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, get_args

from pydantic import ValidationError

from rules import effects
from rules.errors import Refused
from rules.schema import Condition, CostVariant, Module, StartField, UnitKind

BLANK_ROWS = 4  # empty rows offered below a table's or a chart's rows
MAX_ROWS = 60
# What a supplied datum may hold (the form says so): an OB or a list of special rules
# is a few dozen lines, a weather line a sentence.
MAX_LINES = 100
MAX_LINE = 300  # characters in one line (a unit, a rule, a cell)
MAX_TEXT = 2000  # characters of a free text (the OB as printed, the weather)
# The end of the path of an RG's Depleted figure that its chart does not print
# (``rg_charts.<side>.groups.<id>.depleted``; Sicily I2, I8: "2;2/c").
DEPLETED = ".depleted"


class FormKind(StrEnum):
    SIDE_NUMBERS = "side_numbers"  # a whole number per side
    SIDE = "side"  # one of the sides
    TEXT = "text"
    LINES = "lines"  # one entry per line
    OB = "ob"  # per side: RG IDs, units, the OB as printed
    NUMBER = "number"
    TABLE = "table"  # rows of a dice table
    CHART = "chart"  # the groups of an RG chart


START_FORMS: dict[str, tuple[FormKind, str]] = {
    "points": (FormKind.SIDE_NUMBERS, "Initial {currency} per side"),
    "fortification_points": (FormKind.SIDE_NUMBERS, "Initial {fortification} per side"),
    "ob": (FormKind.OB, "Initial-Scenario OB per side"),
    "san": (FormKind.SIDE_NUMBERS, "Initial SAN per side"),
    "elr": (FormKind.SIDE_NUMBERS, "ELR per side"),
    "sets_up_first": (FormKind.SIDE, "Who sets up first in the Initial Scenario"),
    "moves_first": (FormKind.SIDE, "Who moves first in the Initial Scenario"),
    "misr": (FormKind.LINES, "Initial Scenario special rules (one per line)"),
    "weather": (FormKind.TEXT, "Initial Scenario EC and weather"),
    "attack_chits": (FormKind.SIDE_NUMBERS, "Attack chits each side may choose in the CG"),
    "balance": (
        FormKind.LINES,
        "CG Balance provisions (one per line), for the player who takes the side you both "
        "wished (A26.4)",
    ),
}

# The words a player types for a unit kind in a supplied chart: ASL's, each kind's code
# accepted too (a chart supplied before these words).
UNIT_KIND_WORDS: dict[str, str] = {
    "squad": "squad",
    "squads": "squad",
    "mmc": "squad",
    "half-squad": "half_squad",
    "half squad": "half_squad",
    "hs": "half_squad",
    "crew": "half_squad",
    "half_squad": "half_squad",
    "leader": "leader",
    "smc": "leader",
    "hero": "hero",
    "vehicle": "vehicle",
    "afv": "vehicle",
    "gun": "gun",
    "sw": "sw",
    "support weapon": "sw",
    "other": "other",
}
UNIT_KIND_HELP = "squad, half-squad (or crew), leader, Hero, vehicle, Gun, SW, other"
# A kind as the form shows it back (its word, not its code).
UNIT_KIND_WORD: dict[str, str] = {k: k for k in get_args(UnitKind)} | {"half_squad": "half-squad"}


@dataclass(frozen=True)
class Suppliable:
    path: str
    label: str
    rule: str
    kind: FormKind
    missing: bool  # still lacking (else: supplied, and may be amended)


class SupplyProblems(Refused):
    """A filled-in form that does not make valid module data: a sentence per cell."""

    def __init__(self, cells: Mapping[str, str], summary: str = ""):
        self.cells = dict(cells)
        first = next(iter(self.cells.values()), "")
        super().__init__(summary or f"The data is not valid: {first}", status=400)


def suppliable(module: Module, variant_id: str, supplied: set[str]) -> list[Suppliable]:
    """What the players of a campaign on ``variant_id`` may supply: the variant's
    missing start fields, the module's missing data that names a ``supply`` path, and
    what they have supplied already (to amend it)."""
    variant = module.variant(variant_id)
    items: list[Suppliable] = []
    currency = module.currency.code
    fortification = module.fortifications.currency if module.fortifications else "FPP"
    # The Attack-chit maxima are the variant's, not its start's: one item, at its path.
    start_paths = {
        f"variants.{variant.id}.{'' if f == 'attack_chits' else 'start.'}{f}": f
        for f in START_FORMS
    }
    for path, name in start_paths.items():
        if name in variant.start.missing or path in supplied:
            kind, label = START_FORMS[name]
            items.append(
                Suppliable(
                    path,
                    label.format(currency=currency, fortification=fortification),
                    variant.start.rules.get(name, variant.start.rule),  # type: ignore[call-overload]
                    kind,
                    name in variant.start.missing,
                )
            )
    for m in module.missing:
        if m.supply is None:
            continue
        kind = FormKind.TABLE if m.supply.startswith("tables.") else FormKind.CHART
        # A number: a date's, a fortification's, a unit kind's CVP, an RG's Depleted
        # figure the chart lacks.
        if m.supply.startswith(("dates.", "fortifications.", "cvp_per_kind.")) or (
            m.supply.endswith(DEPLETED)
        ):
            kind = FormKind.NUMBER
        still = _still_missing(module, m.supply)
        if still or m.supply in supplied or m.amendable:
            items.append(Suppliable(m.supply, m.what, m.rule, kind, still))
    return items


def _still_missing(module: Module, path: str) -> bool:
    if path.endswith(DEPLETED):
        return number_at(module, path) is None
    kind, key, *rest = path.split(".")
    if kind == "tables":
        return module.table(key).missing
    if kind == "rg_charts":
        chart = module.chart(key)
        return bool(chart and chart.missing)
    if kind == "fortifications":
        assert module.fortifications is not None
        return not next(i for i in module.fortifications.items if i.id == rest[0]).priced
    return number_at(module, path) is None


def number_at(module: Module, path: str) -> int | None:
    """The number a NUMBER datum holds now (None: not given)."""
    kind, key, *rest = path.split(".")
    if kind == "fortifications":
        assert module.fortifications is not None
        return next(i for i in module.fortifications.items if i.id == rest[0]).cost
    if kind == "cvp_per_kind":  # a unit kind's CVP (PHD C1.2)
        return module.cvp_per_kind.get(key)  # type: ignore[call-overload]
    if kind == "rg_charts":  # rg_charts.<side>.groups.<id>.depleted
        group = module.group(key, rest[1])
        return group.depleted if group is not None else None
    return module.date(key).vp_required


def item(module: Module, variant_id: str, path: str, supplied: set[str]) -> Suppliable:
    found = next((i for i in suppliable(module, variant_id, supplied) if i.path == path), None)
    if found is None:
        raise Refused("There is no such datum to supply for this campaign.", status=404)
    return found


# --------------------------------------------------------------------------- reading a form


def _int(raw: str, cell: str, problems: dict[str, str], *, low: int = 0) -> int | None:
    text = raw.strip()
    if not text:
        return None
    try:
        value = int(text)
    except ValueError:
        problems[cell] = f"{cell}: enter a whole number (not “{text[:20]}”)."
        return None
    if not low <= value <= 9999:
        problems[cell] = f"{cell}: must be between {low} and 9999."
        return None
    return value


def _capped(text: str, cell: str, problems: dict[str, str]) -> None:
    if len(text) > MAX_TEXT:
        problems[cell] = f"{cell}: at most {MAX_TEXT} characters (this is {len(text)})."


def _cells_capped(form: Mapping[str, str], problems: dict[str, str]) -> None:
    for key, value in form.items():
        parts = key.split("-", 2)
        if len(parts) == 3 and is_row_number(parts[1]) and len(value) > MAX_LINE:
            cell = f"Row {int(parts[1]) + 1} {parts[2]}"
            problems[cell] = f"{cell}: at most {MAX_LINE} characters."


def _lines_capped(lines: list[str], cell: str, problems: dict[str, str]) -> None:
    if len(lines) > MAX_LINES:
        problems[cell] = f"{cell}: at most {MAX_LINES} lines (this has {len(lines)})."
    elif any(len(line) > MAX_LINE for line in lines):
        problems[cell] = f"{cell}: at most {MAX_LINE} characters a line."


@dataclass(frozen=True)
class Reading:
    """What a filled-in form gives: the datum, and for a table or a chart the form's
    row number of each row of it (the empty rows of the form are left out)."""

    value: Any
    rows: list[int] = field(default_factory=list)


def read_form(module: Module, it: Suppliable, form: Mapping[str, str]) -> Reading:
    """The datum a filled-in form gives, or ``SupplyProblems`` naming each bad cell."""
    problems: dict[str, str] = {}
    numbers: list[int] = []
    sides = [s for s in module.sides]
    value: Any
    if it.kind is FormKind.SIDE_NUMBERS:
        value = {}
        for s in sides:
            n = _int(form.get(f"value.{s.id}", ""), f"{s.name}", problems)
            if n is None and f"{s.name}" not in problems:
                problems[s.name] = f"{s.name}: enter a whole number."
            elif n is not None:
                value[s.id] = n
    elif it.kind is FormKind.SIDE:
        value = form.get("value", "")
        if value not in {s.id for s in sides}:
            problems["Side"] = "Side: choose one of the sides."
    elif it.kind is FormKind.TEXT:
        value = form.get("value", "").strip()
        if not value:
            problems["Text"] = "Text: write it as the rules give it."
        _capped(value, "Text", problems)
    elif it.kind is FormKind.LINES:
        value = [line.strip() for line in form.get("value", "").splitlines() if line.strip()]
        if not value:
            problems["Lines"] = "Lines: write at least one."
        _lines_capped(value, "Lines", problems)
    elif it.kind is FormKind.NUMBER:
        value = _int(form.get("value", ""), "Value", problems)
        if value is None and "Value" not in problems:
            problems["Value"] = "Value: enter a whole number."
    elif it.kind is FormKind.OB:
        value = {}
        for s in sides:
            rgs = [x.strip() for x in form.get(f"rgs.{s.id}", "").split(",") if x.strip()]
            units = [x.strip() for x in form.get(f"units.{s.id}", "").splitlines() if x.strip()]
            text = form.get(f"text.{s.id}", "").strip()
            _lines_capped(rgs, f"{s.name}: RG IDs", problems)
            _lines_capped(units, f"{s.name}: units", problems)
            _capped(text, f"{s.name}: the OB as printed", problems)
            if rgs or units or text:
                value[s.id] = {"rgs": rgs, "units": units, **({"text": text} if text else {})}
    elif it.kind is FormKind.TABLE:
        _cells_capped(form, problems)
        value = _table_rows(module, it.path, form, problems, numbers)
    else:
        _cells_capped(form, problems)
        value = _chart_groups(module, form, problems, numbers)
    if problems:
        raise SupplyProblems(problems)
    return Reading(value, numbers)


def is_row_number(text: str) -> bool:
    """A grid's row number as the form names it ("row-3-..."): a few ASCII digits (a
    forged name with other digits, "²", or thousands of them, names no row)."""
    return 0 < len(text) <= 3 and text.isascii() and text.isdecimal()


def _rows(form: Mapping[str, str]) -> list[int]:
    numbers = set()
    for key in form:
        if key.startswith("row-"):
            head = key.split("-", 2)[1]
            if is_row_number(head) and int(head) < MAX_ROWS:
                numbers.add(int(head))
    return sorted(numbers)


def table_columns(module: Module, path: str) -> list[str]:
    return list(module.table(path.split(".", 1)[1]).columns or [])


def _table_rows(
    module: Module,
    path: str,
    form: Mapping[str, str],
    problems: dict[str, str],
    numbers: list[int],
) -> list[dict[str, Any]]:
    columns = table_columns(module, path)
    per_unit = module.table(path.split(".")[1]).for_units is not None
    rows = []
    for n in _rows(form):
        cell = f"Row {n + 1}"
        rng = form.get(f"row-{n}-range", "").strip()
        results = {c: form.get(f"row-{n}-col-{k}", "").strip() for k, c in enumerate(columns)}
        result = form.get(f"row-{n}-result", "").strip()
        effect = form.get(f"row-{n}-effect", "").strip()
        if not rng and not result and not any(results.values()):
            continue  # an empty row
        row: dict[str, Any] = {"range": rng}
        if columns:
            row["results"] = results
        else:
            row["result"] = result
            if not result:
                problems[f"{cell} result"] = f"{cell}, result: write what the roll gives."
        if effect:
            try:
                row["effect"] = effects.parse_short(effect)
            except ValueError as exc:
                problems[f"{cell} effect"] = f"{cell}, effect: {exc}."
        elif per_unit:
            problems[f"{cell} effect"] = (
                f"{cell}, effect: this table is rolled for a unit; name what the result "
                "does to it (e.g. 'eliminate', 'status: ok', or 'none')."
            )
        rows.append(row)
        numbers.append(n)
    if not rows:
        problems["Rows"] = "Rows: fill in at least one row (a range and its result)."
    return rows


def _chart_groups(
    module: Module, form: Mapping[str, str], problems: dict[str, str], numbers: list[int]
) -> list[dict[str, Any]]:
    groups = []
    for n in _rows(form):
        cell = f"Row {n + 1}"
        gid = form.get(f"row-{n}-id", "").strip()
        gtype = form.get(f"row-{n}-type", "").strip()
        if not gid and not gtype:
            continue
        group: dict[str, Any] = {
            "id": gid,
            "type": gtype,
            "units": form.get(f"row-{n}-units", "").strip() or gtype,
        }
        for name in ("full", "depleted", "cost", "date_max"):
            value = _int(form.get(f"row-{n}-{name}", ""), f"{cell} {name}", problems)
            if value is not None:
                group[name] = value
        if "cost" not in group and f"{cell} cost" not in problems:
            problems[f"{cell} cost"] = f"{cell} cost: every RG has a cost."
        for variant in module.variants:
            value = _int(form.get(f"row-{n}-cg_max-{variant.id}", ""), f"{cell} CG max", problems)
            if value is not None:
                group.setdefault("cg_max", {})[variant.id] = value
        # The RG's cost at each other price the chart prints (PHD C5.32: its cost for
        # On-Map set-up, In Reserve, as Reinforcements); blank: the variant's own rule.
        for cv in priced_on_chart(module):
            value = _int(form.get(f"row-{n}-cost-{cv.id}", ""), f"{cell} cost", problems)
            if value is not None:
                group.setdefault("costs", {})[cv.id] = value
        # The fortification points an RG gives (PHD C5.35: "first expends TP to
        # requisition DSP"): an RG of the chart that buys them.
        gives = _int(form.get(f"row-{n}-grants", ""), f"{cell} gives", problems)
        if gives:
            group["grants"] = {"fortification_points": gives}
        word = " ".join(form.get(f"row-{n}-unit_kind", "").split()).lower()
        kind = UNIT_KIND_WORDS.get(word)
        if kind is not None:
            group["unit_kind"] = kind
        elif word:
            problems[f"{cell} unit kind"] = (
                f"{cell} unit kind: one of {UNIT_KIND_HELP} (or empty for an RG without "
                "units, such as OBA)."
            )
        for name in ("tags", "footnotes"):
            items = [t.strip() for t in form.get(f"row-{n}-{name}", "").split(",") if t.strip()]
            if items:
                group[name] = items
        if form.get(f"row-{n}-depletable"):
            group["depletable"] = True
        # Its SW allotment (PHD C5.31 RG footnote w, whose table is lost): "LMG 1, Psk 1".
        sw = sw_allotment(form.get(f"row-{n}-sw", ""), f"{cell} SW", problems)
        if sw:
            group["sw"] = sw
        groups.append(group)
        numbers.append(n)
    if not groups:
        problems["Rows"] = "Rows: fill in at least one RG (its ID, type and cost)."
    return groups


def sw_allotment(raw: str, cell: str, problems: dict[str, str]) -> dict[str, int]:
    """An RG's SW as typed in its chart row, "LMG 1, Psk 1" (or "2 LMG"; a name alone
    is one), as the chart keeps them ({"LMG": 1, "Psk": 1})."""
    sw: dict[str, int] = {}
    for item in (i.strip() for i in raw.split(",")):
        if not item:
            continue
        words = item.split()
        number = next((w for w in (words[-1], words[0]) if w.isdigit()), None)
        name = " ".join(w for w in words if w is not number) if number else item
        count = int(number) if number else 1
        if not name or not 1 <= count <= 99:
            problems[cell] = (
                f"{cell}: name each SW with how many the RG receives, e.g. “LMG 1, Psk 1” "
                f"(not “{item[:20]}”)."
            )
            return {}
        sw[name] = sw.get(name, 0) + count
    return sw


# ---------------------------------------------------------------- a grid's columns, and pasted rows


@dataclass(frozen=True)
class GridColumn:
    key: str  # the form cell of row n is ``row-{n}-{key}``
    header: str  # as the grid's header shows it
    label: str  # as a cell's label reads it ("Row 3 cost")
    input: str = "text"  # "text", "number", "checkbox"


def grid_columns(module: Module, it: Suppliable) -> list[GridColumn]:
    """The columns of a table's or an RG chart's grid, in the order the form shows
    them and a pasted row gives them."""
    if it.kind is FormKind.TABLE:
        columns = table_columns(module, it.path)
        per_unit = module.table(it.path.split(".")[1]).for_units is not None
        results = [GridColumn(f"col-{k}", c, c) for k, c in enumerate(columns)] or [
            GridColumn("result", "Result", "result")
        ]
        effect = "Effect" if per_unit else "Effect (optional)"
        return [
            GridColumn("range", "Final roll", "final roll"),
            *results,
            GridColumn("effect", effect, "effect"),
        ]
    if it.kind is not FormKind.CHART:
        return []
    numbers = [("full", "Full"), ("depleted", "Depl"), ("cost", "Cost"), ("date_max", "Date max")]
    # One CG: its maximum is the CG's ("TM Max" in PHD's words); several: each CG's by name.
    maxima = [
        (f"cg_max-{v.id}", "Max in the CG" if len(module.variants) == 1 else f"Max in {v.name}")
        for v in module.variants
    ]
    grants = (
        [
            GridColumn(
                "grants",
                f"Gives {module.fortifications.currency}",
                f"{module.fortifications.currency} it gives",
                "number",
            )
        ]
        if module.fortifications is not None
        else []
    )
    prices = [(f"cost-{cv.id}", f"Cost {cv.short or cv.label}") for cv in priced_on_chart(module)]
    return [
        GridColumn("id", "ID", "ID"),
        GridColumn("type", "Group type", "group type"),
        GridColumn("units", "Units", "units"),
        GridColumn("unit_kind", "Unit kind", f"unit kind ({UNIT_KIND_HELP})"),
        *(GridColumn(key, header, header, "number") for key, header in [*numbers, *maxima]),
        *grants,
        GridColumn("tags", "Group kinds", "group kinds"),
        GridColumn("footnotes", "Footnotes", "footnote letters"),
        GridColumn("depletable", "Depletable", "depletable", "checkbox"),
        *(GridColumn(key, header, header, "number") for key, header in prices),
        GridColumn("sw", "SW", "SW it receives (e.g. LMG 1, Psk 1)"),
    ]


def tags_read(module: Module, side: str) -> list[str]:
    """The group kinds the rules of ``side``'s chart read (what comes with an RG, its
    restrictions): what the players give an RG for those rules to apply (PHD TM13:
    "oba" brings a Radio or Fieldphone)."""
    chart = module.chart(side)
    if chart is None:
        return []
    conditions: list[Condition | None] = [c.applies_to for c in chart.comes_with]
    for r in chart.restrictions:
        conditions += [getattr(r, "applies_to", None), getattr(r, "requires", None)]
    return sorted({t for c in conditions if c is not None for t in c.tags or ()})


TICKED = {"x", "yes", "y", "1", "true", "on", "✓", "✔"}


def read_pasted(module: Module, it: Suppliable, text: str) -> dict[str, str]:
    """The grid cells that rows pasted as text give (tab-separated, as a spreadsheet
    copies them, or comma-separated, as a CSV file holds them), one row per line in
    the grid's column order; a first line that repeats the grid's headers is skipped.
    A line with more cells than the grid has columns is named, nothing is read."""
    columns = grid_columns(module, it)
    lines = [line for line in text.splitlines() if line.strip()]
    if not columns or not lines:
        return {}
    delimiter = "\t" if any("\t" in line for line in lines) else ","
    rows = list(csv.reader(lines, delimiter=delimiter))
    headers = {c.header.lower(): c for c in columns}
    order = columns
    if rows and sum(cell.strip().lower() in headers for cell in rows[0]) * 2 >= len(rows[0]):
        # A first line of column names: each cell goes to the column it names (a column
        # it does not name stays empty; a name the grid lacks is left out).
        named = [headers.get(cell.strip().lower()) for cell in rows[0]]
        rows = [[v for v, c in zip(row, named, strict=False) if c] for row in rows[1:]]
        order = [c for c in named if c]
    problems: dict[str, str] = {}
    if len(rows) > MAX_ROWS:
        problems["Rows"] = f"Rows: at most {MAX_ROWS} rows (you pasted {len(rows)})."
    cells: dict[str, str] = {}
    for n, row in enumerate(rows[:MAX_ROWS]):
        while row and not row[-1].strip():
            row = row[:-1]
        if len(row) > len(order):
            problems[f"Line {n + 1}"] = (
                f"Pasted line {n + 1}: {len(row)} cells, but the grid has {len(order)} "
                f"columns ({', '.join(c.header for c in order)})."
            )
            continue
        for column, raw in zip(order, row, strict=False):
            value = raw.strip()
            if column.input == "checkbox":
                value = "on" if value.lower() in TICKED else ""
            cells[f"row-{n}-{column.key}"] = value
    if problems:
        raise SupplyProblems(problems)
    return cells


# --------------------------------------------------------------------------- patching the module


def patched(data: Mapping[str, Any], path: str, value: Any) -> dict[str, Any]:
    """A copy of module ``data`` with the datum at ``path`` set to ``value``."""
    out = copy.deepcopy(dict(data))
    parts = path.split(".")
    if parts[0] == "variants":
        variant = next(v for v in out["variants"] if v["id"] == parts[1])
        start = variant.setdefault("start", {})
        name: str = parts[-1]
        if name == "attack_chits":
            variant["attack_chits"] = value
        else:
            start[name] = value
        missing: list[StartField] = start.get("missing", [])
        start["missing"] = [m for m in missing if m != name]
    elif parts[0] == "tables":
        table = next(t for t in out["tables"] if t["id"] == parts[1])
        table["rows"] = value
        table["missing"] = False
    elif parts[0] == "rg_charts" and path.endswith(DEPLETED):
        chart = next(c for c in out["rg_charts"] if c["side"] == parts[1])
        group = next(g for g in chart["groups"] if g["id"] == parts[3])
        group["depleted"] = value
    elif parts[0] == "rg_charts":
        chart = next(c for c in out["rg_charts"] if c["side"] == parts[1])
        chart["groups"] = value
        chart["missing"] = False
    elif parts[0] == "fortifications":
        fortification = next(i for i in out["fortifications"]["items"] if i["id"] == parts[2])
        fortification["cost"] = value
    elif parts[0] == "cvp_per_kind":
        out["cvp_per_kind"] = {**out.get("cvp_per_kind", {}), parts[1]: value}
    else:
        date = next(d for d in out["dates"] if d["id"] == parts[1])
        date[parts[2]] = value
    return out


def check(data: Mapping[str, Any], path: str, rows: list[int] | None = None) -> Module:
    """The module the patched data makes, or the schema's problems, each placed on the
    form's cell where it can be (``tables[3].rows[2].range`` → the form's row of the
    table's third row, "range")."""
    try:
        return Module.model_validate(data)
    except ValidationError as exc:
        cells: dict[str, str] = {}
        for err in exc.errors():
            message = str(err["msg"]).removeprefix("Value error, ")
            loc = [str(x) for x in err["loc"]]
            cell = _cell(loc, path, rows or [])
            cells.setdefault(cell, f"{cell}: {message}" if cell != "Data" else message)
        raise SupplyProblems(cells) from None


def _cell(loc: list[str], path: str, rows: list[int]) -> str:
    kind = path.split(".", 1)[0]
    for marker in ("rows", "groups"):
        if marker in loc:
            i = loc.index(marker)
            if i + 1 < len(loc) and loc[i + 1].isdigit():
                k = int(loc[i + 1])
                n = rows[k] if k < len(rows) else k
                rest = " ".join(loc[i + 2 :])
                return f"Row {n + 1}" + (f" {rest}" if rest else "")
    return "Data" if kind != "variants" else "Value"


def priced_on_chart(module: Module) -> list[CostVariant]:
    """The prices a supplied RG chart gives a column of its own: not a surcharge's
    (``CostVariant.adds``: PHD RG footnote p, the printed cost plus 2 TP per
    Pre-Registered hex), which follows from the printed cost."""
    return [cv for cv in module.cost_variants if not cv.adds]
