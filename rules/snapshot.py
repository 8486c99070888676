"""A campaign as the engine sees it: plain data, no database.

The write side and the seat views load a ``Snapshot`` for one side through the
visibility gate, so it holds that side's own records and only public facts about the
opponent; every "may this side do X now, and why not" in ``rules.availability`` is a
function of a module and a snapshot.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rules.effects import UnitState


@dataclass(frozen=True)
class Position:
    """Where a campaign is: its CG date, the step of its sequence and the pass."""

    date_index: int
    step_index: int
    cycle: int
    ended: bool = False
    in_play: bool = False


@dataclass(frozen=True)
class SideState:
    """A side's public state, plus its points when it is the snapshot's own side."""

    side: str
    joined: bool
    attack_chits_used: int = 0
    no_on_map_units: bool = False  # the side's open declaration (e.g. 3.6212*)
    # The side's retained forces, as the snapshot's side may see them, list no unit
    # (computed from the roster, never typed: e.g. 3.6212*); False when not read.
    lists_no_unit: bool = False
    points: int | None = None  # None: the opponent's, secret
    fortification_points: int | None = None
    san: int | None = None


@dataclass(frozen=True)
class Bought:
    """One RG the side holds: bought, or given in the Initial-Scenario OB (``initial``:
    counted only by limits on what is held at a time, 3.6179)."""

    group_id: str
    date_index: int
    initial: bool = False
    state: str = "held"  # "held" (in the OB), "eliminated", "withdrawn", "used"
    ref: str = ""  # the purchase's reference
    variant: str = ""  # the cost variant it was bought at


@dataclass(frozen=True)
class FortificationBought:
    item_id: str
    date_index: int
    count: int
    tier: str = ""  # the price's label it was bought at ("Squad", "AFV")
    cost: int = 0  # the points spent on them
    location: str = ""  # where its owner placed it, as written


@dataclass(frozen=True)
class Holdings:
    """The snapshot side's own records (its secrets; never the opponent's)."""

    bought: tuple[Bought, ...] = ()
    fortifications: tuple[FortificationBought, ...] = ()
    recon_dates: frozenset[int] = frozenset()
    recon_rolled: frozenset[str] = frozenset()  # refs of Recon RGs whose dr is made
    unrolled: tuple[str, ...] = ()  # RG IDs bought whose secret rolls are not made yet
    # The side's retained squads and half-squads/crews (what a HIP cap counts).
    squads: int = 0
    half_squads: int = 0
    # Of those, the ones of RGs bought at a cost variant: (variant, date index,
    # squads, half-squads) — what a HIP cap may leave out (PHD C5.35 note 3: Reserve).
    bought_as: tuple[tuple[str, int, int, int], ...] = ()
    # The RGs (IDs) of which a squad or half-squad/crew is still retained: Sicily 3.619
    # footnote d, AT mines "only ... when >= 1 airborne MMC is currently retained".
    mmc_groups: tuple[str, ...] = ()
    # The compulsory rolls (``Table.required``) the side has still to make in this
    # pass: (table id, what for: a unit's line, or "" for a roll once per side).
    owed: tuple[tuple[str, str], ...] = ()
    # The exchange steps of this pass, from the current one, at which the side holds a
    # unit the step takes (a Hero at Sicily 3.611), and the steps whose reminders name
    # one of its units (``Step.reminds``: Sicily 3.605's Guns): finishing ahead stops
    # there.
    exchanges: frozenset[str] = frozenset()
    # The side's totals of the result figures a chart's ``result_cap`` reads, over the
    # scenarios played (PHD C5.31 RG footnote z: its Gun/vehicle crews eliminated).
    result_totals: tuple[tuple[str, int], ...] = ()
    # The side's retained units a cap of the module counts (``Module.held_caps``,
    # Sicily 3.60742 EXC), read only where the module has such caps.
    capped: tuple[UnitState, ...] = ()
    # The side's own Setup Area list (Sicily 3.605, ``Seat.setup_areas``), read only where
    # a price needs one (``CostVariant.needs_setup_area``, Sicily 3.6175); None: never
    # listed, or not read.
    setup_areas: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Snapshot:
    variant: str
    position: Position
    done: frozenset[str]  # sides that have done the current step in this pass
    sides: Mapping[str, SideState]
    side: str  # whose holdings these are
    holdings: Holdings = field(default_factory=Holdings)
    chits_locked: int = 0  # how many chits are locked in this pass (public: "has chosen")

    @property
    def me(self) -> SideState:
        return self.sides[self.side]
