"""Issue 44, "Reachability": every datum of a module is read by some path of play
(``rules.unread.unread_data``): a table a step or a purchase rolls, a DRM whose
condition can hold for a side that rolls its table, a row its dice reach, a purchase
roll that selects an RG, a chart row some date lets a side buy, a group kind a
condition reads.  What no path reads is an error of transcription, unless it is
documentation; the three modules and the authored fixture list none but the ones
allowed below, each with its reason.  And ``validatemodule`` names every final a
roll can give that no row covers (class 7)."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml
from django.core.management import CommandError, call_command

from rules.loader import MODULE_DIR, load_file, validate_data
from rules.reach import uncovered_results
from rules.unread import unread_data

pytestmark = pytest.mark.rules

AUTHORED = Path(__file__).parent / "fixtures" / "authored" / "modules" / "hill-621.yaml"
SKIRMISH = Path(__file__).parent / "fixtures" / "modules" / "skirmish.yaml"

# Data of the modules other helpers own, which no path of play reads: named here with
# the reason, for their owners to fold (this test does not edit their files).
ALLOWED = {
    "sicily": {
        "tables.dual_attack_setup": (
            "3.6213a: shown at step 3.621; the roll itself is "
            "initiative.results.dual_attack.sets_up_first (the same rows, a RollForSide)"
        ),
        "tables.moves_first": (
            "3.623: shown at step 3.623; the roll itself is "
            "initiative.results.dual_attack.moves_first (the same rows)"
        ),
        "rg_charts.british.groups.G2": (
            "chart prints CG Date Max 'NA': never purchasable, kept as the printed chart "
            "row (presumably an Initial-Scenario OB's, which the seed lacks)"
        ),
    },
    "purple-heart-draw": {},
    "pleasant-diversion": {},
    "hill-621": {
        "tables.booby_traps": (
            "the fixture's declared-missing table (test_authored_module checks the "
            "missing list): documentation of the format, rolled by no step"
        ),
    },
}


def _module(name: str):
    path = AUTHORED if name == "hill-621" else MODULE_DIR / f"{name}.yaml"
    return load_file(path, overrides=False)


@pytest.mark.parametrize("name", sorted(ALLOWED))
def test_no_module_datum_is_left_that_no_path_of_play_reads(name):
    """Issue 44: a module field that no mechanism reads must not exist.  APD: every
    table (3.1 Recovery, 3.3 Repair rows, 3.4-3.7 purchase rolls), the 3.6 note a DRM
    (German groups), the M4 Model roll (an armor-type dr gives m4) are read."""
    found = {u.path: u.why for u in unread_data(_module(name))}
    assert set(found) == set(ALLOWED[name]), found


def _skirmish() -> dict:
    return yaml.safe_load(SKIRMISH.read_text())


def _unread(data: dict) -> dict[str, str]:
    module, errors = validate_data(data, "t.yaml")
    assert module is not None, errors
    return {u.path: u.why for u in unread_data(module)}


def test_a_table_no_step_rolls_is_named():
    """The fixture's 'replenish' table is rolled by no step, no purchase roll."""
    assert "no step rolls it" in _unread(_skirmish())["tables.replenish"]


def test_a_drm_for_a_side_that_never_rolls_the_table_is_named():
    """Class 6: a DRM whose condition names a side the table is never rolled for (APD
    3.6 note a is the German's: on a table only the American rolls, it is dead)."""
    data = _skirmish()
    wounded = next(t for t in data["tables"] if t["id"] == "wounded")
    step = next(s for s in data["steps"] if s["id"] == "T3.2")
    step["acts"] = "blue"
    wounded["drms"].append(
        {"id": "reds", "label": "Red only", "value": -1, "when": {"sides": ["red"]}}
    )
    found = _unread(data)
    assert "tables.wounded.drms.reds" in found
    assert "tables.wounded.drms.isolated" not in found  # ticked: any roller may claim it


def test_a_drm_for_a_unit_kind_the_table_is_never_rolled_for_is_named():
    """Class 6, "a unit kind the DRM excludes": the fixture's Wounded Leaders table is
    rolled for leaders only (APD 3.1's Recovery likewise): a DRM for vehicles on it
    is dead, and so is one on the RG Strength table, rolled for no unit."""
    data = _skirmish()
    wounded = next(t for t in data["tables"] if t["id"] == "wounded")
    strength = next(t for t in data["tables"] if t["id"] == "strength")
    tank = {"id": "tank", "label": "Tank", "value": 1, "when": {"unit_kinds": ["vehicle"]}}
    wounded["drms"].append(tank)
    strength["drms"].append(dict(tank))
    found = _unread(data)
    assert found["tables.wounded.drms.tank"] == "it needs a unit kind the table is never rolled for"
    assert "tables.strength.drms.tank" in found


def test_a_drm_for_a_tag_no_rg_of_the_side_has_is_named():
    data = _skirmish()
    strength = next(t for t in data["tables"] if t["id"] == "strength")
    strength["drms"].append(
        {"id": "paras", "label": "Para RG", "value": -1, "when": {"tags": ["para"]}}
    )
    assert "tables.strength.drms.paras" in _unread(data)


def test_a_purchase_roll_that_selects_no_rg_and_a_rg_never_purchasable_are_named():
    data = _skirmish()
    data["post_purchase"].append(
        {"table": "strength", "applies_to": {"tags": ["para"]}, "rule": "T3.7"}
    )
    data["rg_charts"][0]["groups"][1]["date_max"] = 0
    data["rg_charts"][0]["restrictions"].append(
        {
            "kind": "date_window",
            "applies_to": {"groups": ["M1"]},
            "not_before": "d2am",
            "not_after": "d1am",
            "rule": "T3.6",
        }
    )
    found = _unread(data)
    assert "post_purchase[1] (strength)" in found
    assert found["rg_charts.red.groups.G1"] == "its maximum per CG date is 0"
    assert "holds on no CG date" in found["rg_charts.red.groups.M1"]


def test_a_row_no_roll_reaches_is_named():
    data = _skirmish()
    wounded = next(t for t in data["tables"] if t["id"] == "wounded")
    wounded["rows"] = [
        {"range": "≤6", "result": "Recovers", "effect": {"do": "status", "status": "ok"}},
        {"range": "7-11", "result": "Stays", "effect": {"do": "none"}},
        {"range": "≥12", "result": "Evacuated", "effect": {"do": "eliminate"}},
    ]
    wounded["drms"] = []
    assert "tables.wounded.rows[≥12]" in _unread(data)


def test_a_final_no_row_covers_is_named_by_validatemodule(tmp_path, capsys):
    """Class 7, "every result no row covers": a dr table printed 1..6 with closed ends
    and a +2 DRM gives finals 7 and 8 that no row prints; ``validatemodule`` refuses
    the module and names them (the app would read the nearest row, an inference)."""
    data = _skirmish()
    wounded = next(t for t in data["tables"] if t["id"] == "wounded")
    wounded["rows"] = [
        {"range": "1-2", "result": "Recovers", "effect": {"do": "status", "status": "ok"}},
        {"range": "3-4", "result": "Stays wounded", "effect": {"do": "none"}},
        {"range": "5-6", "result": "Evacuated", "effect": {"do": "eliminate"}},
    ]
    wounded["drms"] = [{"id": "isolated", "label": "if Isolated", "value": 2}]
    module, _ = validate_data(copy.deepcopy(data), "t.yaml")
    assert module is not None
    (gap, *_) = uncovered_results(module)
    assert (gap.table, gap.finals) == ("wounded", (7, 8))
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(data, allow_unicode=True))
    with pytest.raises(CommandError, match="no row covers"):
        call_command("validatemodule", str(bad), "--no-overrides")
    assert "wounded: a final 7..8" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["sicily", "purple-heart-draw", "pleasant-diversion"])
def test_no_final_of_the_three_modules_falls_outside_their_rows(name):
    """APD 3.1/3.3/3.6/3.7: every final a roll can give falls on a printed row."""
    assert uncovered_results(_module(name)) == []
