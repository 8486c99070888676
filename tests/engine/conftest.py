"""Engine tests: ``rules`` over plain data, no database, no Django."""

from __future__ import annotations

from pathlib import Path

import pytest

from rules.loader import MODULE_DIR, load_file
from rules.schema import Module
from rules.snapshot import Holdings, Position, SideState, Snapshot

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "modules"


@pytest.fixture(autouse=True)
def _no_database(request: pytest.FixtureRequest) -> None:
    assert not {"db", "transactional_db"} & set(request.fixturenames), (
        "engine tests use no database"
    )


@pytest.fixture(scope="session")
def sicily() -> Module:
    return load_file(MODULE_DIR / "sicily.yaml", overrides=False)


@pytest.fixture(scope="session")
def phd() -> Module:
    return load_file(MODULE_DIR / "purple-heart-draw.yaml", overrides=False)


@pytest.fixture(scope="session")
def apd() -> Module:
    return load_file(MODULE_DIR / "pleasant-diversion.yaml", overrides=False)


def at(
    module: Module,
    *,
    side: str,
    date: str | None = None,
    step: str | None = None,
    variant: str | None = None,
    done: tuple[str, ...] = (),
    points: int = 100,
    fortification_points: int = 0,
    holdings: Holdings | None = None,
    opponent: SideState | None = None,
    chits: int = 0,
) -> Snapshot:
    """A snapshot of ``side`` at a named step and date, in one line."""
    variant_id = variant or module.variants[0].id
    date_index = next(i for i, d in enumerate(module.dates) if d.id == (date or module.dates[0].id))
    step_index = next(i for i, s in enumerate(module.steps) if s.id == (step or module.steps[0].id))
    sides = {
        s.id: SideState(side=s.id, joined=True)
        if s.id != side
        else SideState(
            side=s.id, joined=True, points=points, fortification_points=fortification_points
        )
        for s in module.sides
    }
    if opponent is not None:
        sides[opponent.side] = opponent
    return Snapshot(
        variant=variant_id,
        position=Position(date_index=date_index, step_index=step_index, cycle=1),
        done=frozenset(done),
        sides=sides,
        side=side,
        holdings=holdings or Holdings(),
        chits_locked=chits,
    )
