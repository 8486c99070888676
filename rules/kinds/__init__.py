"""Step kinds: what each kind of between-scenario step is, declared in one place.

A module's step names its kind (``kind: purchase``).  The kind says which player
actions the step allows, whether a side completes it with "Done", what its panel
shows, which template draws that panel, and which server operations (``Hook``) run
when the step is entered, when a side finishes it and when every side has.  Who acts
(both at once, in a fixed order, one side) is the module step's ``acts``.

Adding a kind is one module in this package (it calls ``register``), one template
under ``templates/campaign/steps/`` and its tests; ``campaign`` implements each
``Hook`` and each ``Show`` once, for every kind that names it.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from enum import StrEnum


class Action(StrEnum):
    """What a player may post at a step (the URL's ``act/<action>/``)."""

    FINISH = "finish"
    ROLL = "roll"
    RESULT = "result"
    CONFIRM = "confirm"
    DISPUTE = "dispute"
    CHIT = "chit"
    DECLARE = "declare"
    BUY = "buy"
    CANCEL = "cancel"
    RG_ROLL = "rg-roll"
    FORTIFY = "fortify"
    RECON = "recon"
    FORGO = "forgo"  # give up part of one's replenishment (3.616 EXC)
    EXCHANGE = "exchange"  # give up a unit to mark another (APD 3.2 Battle Hardening)


class Hook(StrEnum):
    """A server operation a kind asks for; ``campaign.services`` implements each once."""

    NEW_DATE = "new_date"  # advance the CG date (or end the CG after its last)
    REPLENISH = "replenish"  # each side's points, by the currency's mechanism
    DECIDE_MOVES_FIRST = "decide_moves_first"  # a follow-up roll left by the matrix
    ROLL_REMAINING = "roll_remaining"  # a finishing side's unrolled RGs are rolled
    FORFEIT_FORTIFICATION_POINTS = "forfeit_fortification_points"
    REVEAL_PURCHASES = "reveal_purchases"  # when the reveal policy says "step end"
    SCENARIO_OVER = "scenario_over"  # SANs, CG victory, the last date
    LOSE_UNSPENT = "lose_unspent"  # points left after the purchase step on a named date
    ADJUST_SAN = "adjust_san"  # SANs raised / lowered to the module's bounds
    RECORD_WINNER = "record_winner"  # who won the scenario played, who moves first
    SETTLE_EXCHANGE = "settle_exchange"  # the units an exchange step still holds leave
    SETTLE_UNITS = "settle_units"  # a step's ``settles``: what becomes of the units it names
    ANNOUNCE_SAN = "announce_san"  # each side's current SAN told to both (Sicily 3.623)
    # A finishing side's RGs bought at a purchase step that rolls while buying make the
    # rolls it lists still owed (APD 3.4's armor-type dr; 1.2: each step complete first).
    ROLL_WHILE_BUYING = "roll_while_buying"
    # Each side's still-hidden Fortifications in a Setup Area the other lists are placed
    # on-map (Sicily 3.6073: ``SetupAreas.hidden_fortifications``).
    REVEAL_HIDDEN_FORTIFICATIONS = "reveal_hidden_fortifications"


# The ``on_side_done`` hooks a kind finished ahead may still carry: the run of steps
# finished ahead (``availability.finish_ahead``) never goes on into a step where they
# act, so they run at that step's own Done (a purchase step that rolls while buying,
# APD 3.4: ``availability.rolls_now``).
AHEAD_GUARDED: frozenset[Hook] = frozenset({Hook.ROLL_WHILE_BUYING})


class Pass(StrEnum):
    """When a side has nothing to do at a step, so the step passes for it by itself
    (with a log line).  Each is decided once, on public facts only, in
    ``rules.availability.passes_by_itself``: both seats see a pass, so it may not depend
    on the side's secret points, FPP or records."""

    ALWAYS = "always"  # the server does the step; players only read it
    NOTHING_TO_DECIDE = "nothing_to_decide"  # the server's step, unless the side may forgo
    NO_SAN_ROLL = "no_san_roll"  # the side's SAN is below the module's roll_from
    NOTHING_TO_ROLL = "nothing_to_roll"  # no RG of the side awaits its secret rolls
    NO_FORTIFICATION_POINTS = "no_fortification_points"
    NO_RECON = "no_recon"  # Recon may not or cannot be bought now
    NOTHING_TO_BUY = "nothing_to_buy"  # no RG of the chart can be bought now
    # The side holds no unit the exchange step takes (its own records: finishing ahead
    # only, never a pass by itself).
    NOTHING_TO_EXCHANGE = "nothing_to_exchange"


class Show(StrEnum):
    """A part of a step's panel; each is built once, for every kind that shows it."""

    RESULT_FIELDS = "result_fields"
    TABLES = "tables"  # the step's dice tables with their DRMs, and a roller
    ROLLS = "rolls"  # rolls made in this step that the viewer may see
    UNITS = "units"  # the viewer's retained units, to roll for one of them
    ARITHMETIC = "arithmetic"  # the viewer's replenishment lines
    CHART = "chart"  # the viewer's RG chart with availability
    MY_PURCHASES = "my_purchases"
    FORTIFICATIONS = "fortifications"
    RECON = "recon"
    # The viewer's Recon Locations for the coming scenario, where they are declared at
    # set-up (Sicily 3.6223; adding up over Idle dates, 3.620).
    RECON_TOTAL = "recon_total"
    # Where each of the viewer's RGs in its OB enters or sets up, as its RG Purchase
    # Record holds it (APD 3.8: "All reinforcements enter on/after Turn 1 along the
    # owning side's Friendly Board Edge").
    ENTRIES = "entries"
    CHITS = "chits"
    FORGO = "forgo"  # a side's choice to forgo part of its replenishment
    EXCHANGE = "exchange"  # the viewer's units to give up, and those it may mark for them


@dataclass(frozen=True)
class StepKind:
    name: str
    summary: str
    template: str  # under templates/campaign/steps/
    actions: frozenset[Action] = frozenset()
    finishable: bool = True  # a side completes its part with "Done"
    shows: tuple[Show, ...] = ()
    on_enter: tuple[Hook, ...] = ()
    on_side_done: tuple[Hook, ...] = ()
    on_complete: tuple[Hook, ...] = ()
    needs: str | None = None  # the module section the kind cannot work without
    ends_scenario: bool = False  # completing it closes the scenario in play
    passes: tuple[Pass, ...] = ()  # when it passes by itself for a side
    # A side may finish it ahead, with the steps after it ("Done with 3.613 to 3.620"):
    # map work, optional rolls, or declining to buy; never a step whose finishing runs
    # a server operation for the side (``on_side_done``), but those of AHEAD_GUARDED.
    finish_ahead: bool = False

    @property
    def all_actions(self) -> frozenset[Action]:
        return self.actions | ({Action.FINISH} if self.finishable else frozenset())


KINDS: dict[str, StepKind] = {}


def register(kind: StepKind) -> StepKind:
    if kind.name in KINDS:
        raise ValueError(f"step kind '{kind.name}' is registered twice")
    KINDS[kind.name] = kind
    return kind


def kind_of(name: str) -> StepKind:
    return KINDS[name]


for _info in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_info.name}")
