"""The module format rejects malformed modules with a precise message (file, path,
problem), merges host overrides, and loads every module file; the commands report."""

import copy
import re
from pathlib import Path

import pytest
import yaml
from django.core.management import CommandError, call_command

from campaign.models import ModuleRecord
from rules.loader import (
    MODULE_DIR,
    ModuleInvalid,
    load_file,
    merge,
    module_files,
    safe_load,
    validate_data,
)
from rules.schema import parse_range

pytestmark = pytest.mark.rules

FIXTURE = Path(__file__).parent / "fixtures" / "modules" / "skirmish.yaml"
BASE = yaml.safe_load(FIXTURE.read_text())


def errors_for(mutate) -> list[str]:
    data = copy.deepcopy(BASE)
    mutate(data)
    module, errors = validate_data(data, "bad.yaml")
    assert module is None, "the malformed module was accepted"
    return [str(e) for e in errors]


def _table(data, table_id):
    return next(t for t in data["tables"] if t["id"] == table_id)


def _set(path, value):
    def mutate(data):
        node = data
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value

    return mutate


MALFORMED = {
    "unknown key": (
        _set(["recon", "colour"], "red"),
        "bad.yaml: recon.colour: Extra inputs are not permitted",
    ),
    "bad roll range": (
        lambda d: _table(d, "wounded")["rows"][1].update(range="3 to 4"),
        "'3 to 4' is not a roll range",
    ),
    "overlapping rows": (
        lambda d: _table(d, "wounded")["rows"][1].update(range="2-4"),
        "rows overlap: ≤2 and 2-4",
    ),
    "gap between rows": (
        lambda d: _table(d, "wounded")["rows"][1].update(range="4"),
        "rows leave a gap between 2 and 4",
    ),
    "row misses a column": (
        lambda d: _table(d, "replenish")["rows"][0]["results"].pop("Blue"),
        "results must name exactly the columns ['Red', 'Blue']",
    ),
    "step names an unknown table": (
        lambda d: d["steps"][2].update(tables=["wonded"]),
        "steps[2] (T3.2).tables: unknown table 'wonded'",
    ),
    "unknown side": (
        lambda d: d["variants"][0]["attack_chits"].update(green=3),
        "variants[0] (short).attack_chits: unknown side 'green'",
    ),
    "variant runs backwards": (
        lambda d: d["variants"][0].update(start_date="d2am", last_date="d1am"),
        "variants[0] (short): start_date comes after last_date",
    ),
    "restriction names an unknown RG": (
        lambda d: d["rg_charts"][0]["restrictions"][1]["applies_to"].update(groups=["G9"]),
        "rg_charts[0] (red).restrictions[1]: unknown RG 'G9'",
    ),
    "RG cg_max names an unknown variant": (
        lambda d: d["rg_charts"][0]["groups"][0]["cg_max"].update(long=3),
        "RG I1.cg_max: unknown variant 'long'",
    ),
    "footnote letter not defined": (
        lambda d: d["rg_charts"][0]["groups"][1].update(footnotes=["z"]),
        "RG G1: footnote 'z' is not in footnotes",
    ),
    "initiative matrix incomplete": (
        lambda d: d["initiative"]["matrix"].pop(),
        "initiative.matrix: needs exactly the four chit combinations",
    ),
    "date missing a base for a side": (
        lambda d: d["dates"][1]["base_points"].pop("blue"),
        "dates[1] (d1n): the base_table mechanism needs base_points for every side",
    ),
    "unknown replenishment mechanism": (
        lambda d: d["currency"]["replenishment"].update(mechanism="lottery"),
        "currency.replenishment: Input tag 'lottery' found using 'mechanism' does not match",
    ),
    "negative cost": (
        lambda d: d["rg_charts"][1]["groups"][0].update(cost=-7),
        "rg_charts[1].groups[0].cost: Input should be greater than or equal to 0",
    ),
    "DRM without a value": (
        lambda d: _table(d, "wounded")["drms"].append({"id": "x", "label": "nothing"}),
        "a DRM needs a non-zero value",
    ),
    "duplicate RG IDs": (
        lambda d: d["rg_charts"][1]["groups"].append(dict(d["rg_charts"][1]["groups"][0])),
        "RG IDs repeat: ['I1']",
    ),
    "idle loop to an unknown step": (
        lambda d: d["flow"].update(idle_loop_from="T9.9"),
        "flow.idle_loop_from: unknown step 'T9.9'",
    ),
}


@pytest.mark.parametrize("case", MALFORMED, ids=list(MALFORMED))
def test_malformed_module_is_rejected_with_a_precise_message(case):
    mutate, expected = MALFORMED[case]
    errors = errors_for(mutate)
    assert any(expected in e for e in errors), errors


def test_invalid_yaml_names_the_line(tmp_path):
    bad = tmp_path / "broken.yaml"
    bad.write_text("id: x\nsides: [\n  - a\n")
    with pytest.raises(ModuleInvalid) as exc:
        load_file(bad)
    assert re.search(r"broken\.yaml:\d+:\d+: not valid YAML", str(exc.value))


def test_a_key_given_twice_is_refused_with_its_line(tmp_path):
    """YAML keeps the last of two equal keys silently: a datum typed twice in a row
    of a chart ("tags: [a], tags: [b]") would lose one.  The loader refuses it."""
    bad = tmp_path / "twice.yaml"
    text = FIXTURE.read_text().replace("id: test-skirmish\n", "id: test-skirmish\nid: other\n", 1)
    bad.write_text(text)
    with pytest.raises(ModuleInvalid) as exc:
        load_file(bad)
    assert "twice.yaml:5:1: " in str(exc.value)
    assert "the key 'id' is given twice" in str(exc.value)


def test_module_files_are_read_through_libyaml_into_the_same_data():
    """Modules and ledgers are parsed by libyaml (five times faster than PyYAML's own
    parser on sicily.yaml) when PyYAML has it, as its wheels do; the data are the same
    as PyYAML's pure-Python safe loader gives, for every module and ledger file."""
    from rules import loader

    assert yaml.__with_libyaml__, "PyYAML without libyaml: the modules load slowly"
    assert loader._YAML_LOADER is yaml.CSafeLoader
    ledgers = sorted((MODULE_DIR.parent / "ledger").glob("*.yaml"))
    assert ledgers
    for path in [*module_files(), *ledgers, FIXTURE]:
        text = path.read_text(encoding="utf-8")
        assert safe_load(text) == yaml.safe_load(text), path.name


@pytest.mark.parametrize(
    "text,bounds",
    [
        ("≤2", (None, 2)),
        ("<=2", (None, 2)),
        ("3", (3, 3)),
        ("4-5", (4, 5)),
        ("≥12", (12, None)),
        ("12+", (12, None)),
        ("<1", (None, 0)),
        ("-1", (-1, -1)),
    ],
)
def test_roll_ranges_parse(text, bounds):
    assert parse_range(text) == bounds


def test_every_module_file_loads_with_every_table():
    files = module_files()
    for path in files:
        module = load_file(path)
        for table in module.tables:
            if not table.missing:
                low, high = (1, 6) if table.dice == "dr" else (2, 12)
                for roll in range(low, high + 1):
                    assert table.lookup(roll) is not None, (path.name, table.id, roll)


def test_the_fixture_module_written_from_scratch_loads():
    module = load_file(FIXTURE)
    assert module.id == "test-skirmish"
    assert module.table("wounded").lookup(9).result == "Evacuated"
    assert module.table("replenish").lookup(3).results == {"Red": "2", "Blue": "1"}


def test_override_file_corrects_a_table_without_python(tmp_path, monkeypatch):
    override = {
        "tables": [
            {
                "id": "wounded",
                "rows": [
                    {
                        "range": "≤3",
                        "result": "Recovers",
                        "effect": {"do": "status", "status": "ok"},
                    },
                    {"range": "≥4", "result": "Evacuated", "effect": {"do": "eliminate"}},
                ],
            },
            {"id": "replenish", "remove": True},
        ]
    }
    (tmp_path / FIXTURE.name).write_text(yaml.safe_dump(override))
    monkeypatch.setenv("REFIT_MODULE_OVERRIDES", str(tmp_path))
    module = load_file(FIXTURE)
    assert module.table("wounded").lookup(3).result == "Recovers"
    assert module.table("wounded").drms[0].id == "isolated"  # merged, not replaced
    assert [t.id for t in module.tables] == ["wounded", "strength"]


def test_merge_keyed_lists_item_by_item():
    base = {"a": [{"id": "x", "v": 1}, {"id": "y", "v": 2}], "b": 1}
    assert merge(base, {"a": [{"id": "y", "v": 3}, {"id": "z"}], "b": 2}) == {
        "a": [{"id": "x", "v": 1}, {"id": "y", "v": 3}, {"id": "z"}],
        "b": 2,
    }


def test_validatemodule_prints_each_error_with_file_and_path(tmp_path, capsys):
    data = copy.deepcopy(BASE)
    data["steps"][2]["tables"] = ["nope"]
    data["flow"]["idle_loop_from"] = "T9.9"
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(data, allow_unicode=True))
    with pytest.raises(CommandError, match="bad.yaml: 2 error"):
        call_command("validatemodule", str(bad), "--no-overrides")
    err = capsys.readouterr().err
    assert re.search(r"bad\.yaml:\d+:\d+: steps\[2\] \(T3\.2\)\.tables: unknown table 'nope'", err)
    assert re.search(r"bad\.yaml:\d+:\d+: flow\.idle_loop_from: unknown step 'T9\.9'", err)


def test_validatemodule_answers_like_a_compiler(tmp_path, capsys):
    """Issue 50: each problem with the file, the line and column of its YAML node, what
    was expected, and a suggestion where one is clear (a misspelt field, an effect word
    not in the vocabulary, an id the file does not give)."""
    lines = FIXTURE.read_text().splitlines()
    at = {
        name: next(n for n, ln in enumerate(lines) if needle in ln)
        for name, needle in (
            ("table", "tables: [wounded]}"),
            ("effect", "effect: {do: eliminate}}"),
            ("dice", "  - id: strength"),
        )
    }
    lines[at["table"]] = lines[at["table"]].replace("[wounded]", "[wounde]")
    lines[at["effect"]] = lines[at["effect"]].replace("do: eliminate", "do: eliminat")
    lines.insert(at["dice"] + 1, "    dise: 2d6")
    bad = tmp_path / "bad.yaml"
    bad.write_text("\n".join(lines) + "\n")
    with pytest.raises(CommandError):
        call_command("validatemodule", str(bad), "--no-overrides")
    err = capsys.readouterr().err
    effect_line = at["effect"] + 1 + (at["dice"] < at["effect"])
    assert re.search(
        rf"bad\.yaml:{effect_line}:\d+: tables\[\d\]\.rows\[\d\]\.effect\.do: Input should be "
        r"'none', 'eliminate'.*\(did you mean 'eliminate'\?\)",
        err,
    ), err
    assert re.search(
        rf"bad\.yaml:{at['dice'] + 2}:5: tables\[\d\]\.dise: Extra inputs are not permitted "
        r"\(did you mean 'dice'\?\)",
        err,
    ), err
    # Once the fields read, the model's checks: the unknown table, where it is named.
    lines[at["effect"]] = lines[at["effect"]].replace("do: eliminat", "do: eliminate")
    del lines[at["dice"] + 1]
    bad.write_text("\n".join(lines) + "\n")
    with pytest.raises(CommandError):
        call_command("validatemodule", str(bad), "--no-overrides")
    err = capsys.readouterr().err
    assert re.search(
        rf"bad\.yaml:{at['table'] + 1}:\d+: steps\[\d\] \(T3\.2\)\.tables: unknown table "
        r"'wounde' \(did you mean 'wounded'\?\)",
        err,
    ), err


def test_a_file_that_is_not_yaml_is_named_by_line_and_column(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("id: x\n  bad: [\n")
    with pytest.raises(CommandError):
        call_command("validatemodule", str(bad), "--no-overrides")
    assert "bad.yaml:2:6: not valid YAML" in capsys.readouterr().err


def test_validatemodule_accepts_a_good_module(capsys):
    call_command("validatemodule", str(FIXTURE))
    assert "skirmish.yaml: valid" in capsys.readouterr().out


@pytest.mark.django_db
def test_loadmodules_is_idempotent(tmp_path, capsys):
    (tmp_path / "skirmish.yaml").write_text(FIXTURE.read_text())
    call_command("loadmodules", "--dir", str(tmp_path))
    assert "test-skirmish: created" in capsys.readouterr().out
    call_command("loadmodules", "--dir", str(tmp_path))
    assert "test-skirmish: unchanged" in capsys.readouterr().out
    assert ModuleRecord.objects.get(id="test-skirmish").data["title"] == "Test Skirmish CG"


@pytest.mark.django_db
def test_loadmodules_refuses_an_invalid_module_and_loads_nothing(tmp_path):
    (tmp_path / "good.yaml").write_text(FIXTURE.read_text())
    (tmp_path / "zbad.yaml").write_text("id: Not A Slug\n")
    with pytest.raises(CommandError, match="nothing was loaded"):
        call_command("loadmodules", "--dir", str(tmp_path))
    assert not ModuleRecord.objects.exists()


def test_module_directory_is_the_one_in_rules():
    assert MODULE_DIR.name == "modules" and MODULE_DIR.parent.name == "rules"


@pytest.mark.parametrize("name", ["sicily", "purple-heart-draw", "pleasant-diversion"])
def test_every_row_of_the_three_modules_can_be_reached(name, capsys):
    """Issue 44, class 7: ``validatemodule`` reads each table's rows with its dice kind
    and its largest DRMs (those that can reach each side's rolls); no printed row of
    the three modules is out of reach (Sicily 3.6183 prints "dr" but its rows run to
    >= 12: read as a DR)."""
    from rules.loader import MODULE_DIR

    call_command("validatemodule", str(MODULE_DIR / f"{name}.yaml"))
    assert "valid" in capsys.readouterr().out


def test_validatemodule_refuses_a_row_no_roll_can_reach(tmp_path, capsys):
    """A table whose dice cannot reach a printed row (a dr table with a row for 12) is
    refused, the row named."""
    data = copy.deepcopy(BASE)
    table = next(t for t in data["tables"] if t["id"] == "strength")
    table["dice"] = "dr"
    table["drms"] = []
    table["rows"] = [
        {"range": "≤5", "result": "Full", "effect": {"do": "strength", "strength": "full"}},
        {
            "range": "6-11",
            "result": "Depleted",
            "effect": {"do": "strength", "strength": "depleted"},
        },
        {"range": "≥12", "result": "Lost", "effect": {"do": "none"}},
    ]
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(data, allow_unicode=True))
    with pytest.raises(CommandError, match="1 row"):
        call_command("validatemodule", str(bad), "--no-overrides")
    err = capsys.readouterr().err
    assert "strength: row ≥12 can never come up (a final 1..6" in err
    assert re.search(r"bad\.yaml:\d+:\d+: strength: row ≥12", err), err  # where it is


SICILY = yaml.safe_load((Path(__file__).parent.parent / "rules/modules/sicily.yaml").read_text())


@pytest.mark.parametrize("part", ["captures", "hidden_fortifications"])
def test_a_setup_area_step_before_the_lists_are_made_is_refused(part):
    """Sicily 3.6071 and 3.6073 act on the 3.605 lists: a module placing either at a step
    before them, or at no step, is refused with the part it names."""
    for step in ("3.601", "T9.9"):
        data = copy.deepcopy(SICILY)
        data["setup_areas"][part]["step"] = step
        module, errors = validate_data(data, "bad.yaml")
        assert module is None
        said = f"setup_areas.{part}.step: '{step}' is no step at or after setup_areas.step"
        assert any(said in str(e) for e in errors), errors
