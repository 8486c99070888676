"""Compulsory rolls (``Table.required``): Done waits for them, finishing ahead stops
before them (issue 44, roll discipline; issue 46, nothing skipped by accident)."""

from __future__ import annotations

import pytest

from rules import availability
from rules.snapshot import Holdings
from tests.engine.conftest import at

pytestmark = pytest.mark.rules


def step_of(module, step_id):
    return next(s for s in module.steps if s.id == step_id)


def test_3_610_done_waits_for_each_wounded_leaders_dr(sicily):
    """3.610: "Each side makes a dr on the following table for each currently wounded
    Retained Leader" — Done is refused, naming the leader, until it is made."""
    owed = Holdings(owed=(("wounded_leaders", "9-1 leader"),))
    snap = at(sicily, side="axis", date="jul15am", step="3.610", holdings=owed)
    said = availability.owed_refusal(sicily, snap, step_of(sicily, "3.610"))
    assert said == (
        "Roll first: the Wounded Leaders for 9-1 leader (3.610). "
        "The rules make this roll compulsory."
    )
    done = at(sicily, side="axis", date="jul15am", step="3.610")
    assert availability.owed_refusal(sicily, done, step_of(sicily, "3.610")) == ""


def test_3_6122_san_dr_is_owed_only_from_the_threshold(sicily):
    """3.6122: "If a side has a SAN >= 4, a SAN adjustment dr must be made"; below it
    the step has nothing for the side, so nothing is owed."""
    from dataclasses import replace

    owed = Holdings(owed=(("san_adjustment", ""),))
    snap = at(sicily, side="axis", date="jul15am", step="3.6122", holdings=owed)
    step = step_of(sicily, "3.6122")
    at_four = replace(snap, sides={**snap.sides, "axis": replace(snap.me, san=4)})
    assert availability.rolls_owed(sicily, at_four, step) == ["the SAN Adjustment (3.6122)"]
    at_three = replace(snap, sides={**snap.sides, "axis": replace(snap.me, san=3)})
    assert availability.rolls_owed(sicily, at_three, step) == []


def test_finishing_ahead_stops_before_a_step_that_owes_a_roll(sicily):
    """3.6142: "Each side now makes a separate dr ... for each malfunctioned ...
    Retained Weapon": the "Done with 3.606 to ..." run ends before 3.614 (a run
    from 3.601 ends at 3.605, whose completion may make an Escape DR owed)."""
    free = availability.finish_ahead(sicily, at(sicily, side="axis", date="jul15am", step="3.606"))
    owes = availability.finish_ahead(
        sicily,
        at(
            sicily,
            side="axis",
            date="jul15am",
            step="3.606",
            holdings=Holdings(owed=(("weapon_repair", "MMG"),)),
        ),
    )
    assert "3.614" in [s.id for s in free]
    assert "3.614" not in [s.id for s in owes]
    assert [s.id for s in owes] == [s.id for s in free][: len(owes)]


def test_apd_3_1_recovery_is_compulsory_3_3_repair_is_not(apd):
    """APD 3.1 "The owning player rolls ... to determine each wounded leader's fate"
    (compulsory); 3.3 "Players may now roll on the Repair Table" (optional)."""
    assert apd.table("recovery").required
    assert not any(apd.table(t).required for t in ("repair_ma_gun", "repair_sw"))


def test_a_missing_table_owes_nothing_until_supplied(phd):
    """C5.19's Leader Evacuation Table is lost in the rules text: no roll can be made
    on it, so none is owed (the page says the table must be supplied)."""
    snap = at(
        phd,
        side="us",
        step="C5.19",
        holdings=Holdings(owed=(("leader_evacuation", "9-1 leader"),)),
    )
    assert phd.table("leader_evacuation").missing
    assert availability.rolls_owed(phd, snap, step_of(phd, "C5.19")) == []


def test_finishing_ahead_stops_before_an_exchange_with_a_unit_to_give(sicily):
    """Sicily 3.6112: a side holding a Hero decides at 3.611 which MMC he Battle
    Hardens, so its "Done with 3.606 to ..." run ends before 3.611; a side with none
    finishes 3.611 with the others."""

    def run(exchanges: frozenset[str]) -> list[str]:
        held = Holdings(exchanges=exchanges)
        snap = at(sicily, side="axis", date="jul15am", step="3.606", holdings=held)
        return [s.id for s in availability.finish_ahead(sicily, snap)]

    assert "3.611" in run(frozenset())
    assert run(frozenset({"3.611"}))[-1] == "3.610"
