"""The current step's panel for one seat: what the step shows the viewer and what the
viewer may do there.  Each ``Show`` of ``rules.kinds`` is built by one function here,
for every kind that names it; availability comes from ``rules.availability``, the same
functions that refuse the actions."""

from __future__ import annotations

import hashlib
import pickle
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any

from campaign.memo import Memo
from campaign.models import (
    Campaign,
    Event,
    EventKind,
    FortificationBuy,
    InitiativeChit,
    Purchase,
    ReconBuy,
    Roll,
    ScenarioResult,
    Unit,
)
from campaign.seat_views.common import PurchaseLine, RollView, roll_view
from campaign.seat_views.corrections import CorrectableRoll, CorrectionView, correctable_rolls
from campaign.selectors import (
    bought_of,
    done_by_own_click,
    held_purchases,
    holdings,
    last_scenario_date,
    lists_no_unit,
    new_dates_since_scenario,
    opponent_acted_since_done,
    own_setup_areas,
    pass_result,
    recorded_first,
    replenished_on_date,
    result_read_by,
    result_totals,
    rolled_items,
    roster_decides_chit,
    scenario_attacker,
    sent_to,
    step_attacker,
    waived_roll,
    with_rosters_read,
)
from campaign.services.captures import capture_at, choices_words, taken_here, to_choose
from campaign.services.fortification_areas import (
    IN_NONE,
    ON_MAP,
    fortification_words,
    stated_words,
    to_state,
)
from campaign.services.rolls import roll_context
from campaign.services.steps import mmc_hardening, mmc_reduction, reducing_rolls
from campaign.services.takebacks import done_request
from campaign.services.turns import Turn
from campaign.services.units import (
    describe_filter,
    designable_lines,
    designable_mmc,
    hardenable_leaders,
    label,
    marked_once,
    placement_owed_by,
    placement_reminders,
    recombine_bar,
    recombine_bar_words,
    roll_ref,
    settle_preview,
    state_of,
    strength_counts,
    took_instead,
    unplaced,
)
from rules import availability, machine
from rules.availability import owed_for
from rules.drm import (
    RollContext,
    offered,
    offered_for_some_unit,
    reads_location_leadership,
    scaled_value,
)
from rules.effects import (
    MMC_KINDS,
    LeaderAt,
    UnitState,
    enemy_area_words,
    hardens_leader,
    hardens_mmc,
    in_enemy_area,
    in_location_of,
    in_pairs,
    location_leadership,
    matches,
    no_leader_to_harden,
    reduction,
    reminded,
    setup_areas_at,
    targets,
)
from rules.kinds import Action, Show, kind_of
from rules.purchase import (
    implies_of,
    price_column,
    price_obliges,
    purchase_counts,
    reminded_rgs,
)
from rules.schema import (
    AreaCapture,
    Module,
    SetupAreas,
    Table,
    TableResult,
    UnitExchange,
    UnitFilter,
)
from rules.snapshot import Bought, Holdings, Snapshot
from rules.text import count, with_state
from rules.victory import asked_fields, describe_changes, result_owners

if TYPE_CHECKING:
    from campaign.seat_views.campaign_page import CampaignView


@dataclass(frozen=True)
class DrmView:
    id: str
    label: str
    value: int
    how: str  # "tick", "auto", "typed", "count" (a count the DRM is computed from)
    # One computed from a campaign figure, as it stands for the viewer, with its source
    # ("-2 now: 22 CVP German lost in the scenario just played (its result)": PHD C5.20
    # "Record CVP from the previous scenario for DRM"); "" where not computed so.
    now: str = ""


@dataclass(frozen=True)
class TableView:
    id: str
    title: str
    rule: str
    dice: str
    missing: bool
    columns: list[str]
    rows: list[tuple[str, list[str]]]  # (range, results per column)
    drms: list[DrmView]
    footnotes: list[str]
    for_units: str = ""  # the units it is rolled for, in words ("" : for an item)
    once: str = ""  # "unit" / "side": one roll each in a pass
    choices: tuple[tuple[str, str], ...] = ()  # the viewer's units it may be rolled for
    no_roll: str = ""  # why none may
    closed: str = ""  # why the viewer may not roll on it on this date (its date windows)
    instead: str = ""  # what the viewer may do instead of rolling (PHD C5.24a), in words
    no_instead: str = ""  # why not now
    # The viewer's MMC it may designate to create it from (PHD C5.24a), with their
    # Locations; empty where the table creates it from none.
    instead_choices: tuple[tuple[str, str], ...] = ()
    # What the viewer's roll lets it Battle Harden (PHD C5.23), in words; its MMC that
    # may; why none may now.
    harden: str = ""
    harden_choices: tuple[tuple[str, str], ...] = ()
    no_harden: str = ""
    # What the viewer's original roll makes it Casualty Reduce (PHD C5.28 note 2), in
    # words; its MMC it may fall on; why none may now.
    reduce: str = ""
    reduce_choices: tuple[tuple[str, str], ...] = ()
    no_reduce: str = ""
    # What the roll's item names, where it names its RG (PHD C5.34: which OBA module).
    item_label: str = ""
    # The box a player ticks where the fortifications he recorded at the hex named are
    # gone (``availability.MINES_GONE``; "" : none recorded, no box).
    gone: str = ""
    # A stack's one roll (Sicily 3.606, 3.613): the rule, and the viewer's units that
    # may join the unit named.
    stack_rule: str = ""
    stack_choices: tuple[tuple[str, str], ...] = ()
    # Where a unit its result eliminates is a loss of the scenario just played (PHD C5.1).
    losses_count: str = ""
    # The viewer's held RGs a roll once per RG is still owed for (PHD C5.34: its OBA
    # modules not rolled for in this pass), chosen, not typed; why none may be now.
    item_choices: tuple[tuple[str, str], ...] = ()
    no_item: str = ""


@dataclass(frozen=True)
class FieldView:
    key: str  # form field name: "<field>.<side>"
    label: str
    kind: str
    value: Any  # the entered value, once entered


@dataclass(frozen=True)
class ChitView:
    side: str
    chit: str | None  # None: chosen but not yet revealed to the viewer
    chosen: bool


@dataclass(frozen=True)
class ChartRow:
    """A row of the RG chart: plain, hashable data (the chart renders each distinct
    row once: ``campaign.fragments.chart_rows``)."""

    id: str
    type: str
    strength: str  # "12/9"
    units: str
    # One cell per column of ``StepPanel.price_columns``: (variant, label, cost) or
    # None where the variant does not apply to this RG.
    prices: tuple[tuple[str, str, int] | None, ...]
    left_date: str  # how many may still be bought this date ("—": no limit)
    left_cg: str
    reasons: tuple[str, ...]  # why it cannot be bought now (empty: it can)
    footnotes: tuple[str, ...]  # the letters of its chart notes (``StepPanel.chart_notes``)
    # The words of the hex its purchase records ("Pre-Registered hex", Sicily British
    # chart footnote i): the row asks for it beside its price.
    records_hex: str = ""


@dataclass(frozen=True)
class FortRow:
    id: str
    label: str
    prices: list[tuple[int, str, int]]  # (tier index, label, cost); one "" tier if untiered
    cost_text: str  # "3/2/1"
    cap: str
    reasons: list[str]
    figures: list[tuple[str, str, int, int]] = field(default_factory=list)  # a price's sum


@dataclass(frozen=True)
class ExchangeView:
    """An exchange step for the viewer (APD 3.2): the units it gives up, those it may
    mark for each, and what Done does with the units left."""

    gives: tuple[tuple[str, str], ...]  # (ref, line) of each unit it may give up
    marks: tuple[tuple[str, str], ...]  # (ref, line) of each unit it may mark
    gives_words: str  # "Heroes"
    marks_words: str  # "squads or half-squads"
    status: str  # "battle hardened"
    rule: str
    on_done: str  # what Done does with the units of ``gives`` still held
    # What Done gives up where a unit of ``gives`` could still be exchanged (an MMC is
    # there to mark): one sentence per such unit, for Done's warnings and confirmation.
    given_up: tuple[str, ...] = ()
    recombine: bool = False  # two lines of one name recombine (PHD C5.21)
    # The viewer's squad lines' names, offered for the squad two half-squad lines form
    # (PHD C5.21); empty where it holds no half-squad line that could recombine.
    squads: tuple[str, ...] = ()
    name_squad: bool = False  # the viewer holds such lines: the form asks for the squad
    # Why each HS that would pair is not offered (PHD C5.21 EXC: it possesses a MMG).
    barred: tuple[str, ...] = ()


@dataclass(frozen=True)
class AmendView:
    """The confirmed result of this pass, while it may be amended by consent."""

    fields: list[FieldView]  # the figures agreed, as the form's starting values
    proposed_by: str = ""  # the side name of an open proposal's author
    mine: bool = False  # the viewer proposed it
    changes: str = ""
    reason: str = ""
    cvp_na: str = ""  # the rule by which this phase's eliminations count no CVP (APD 3 Note)


@dataclass
class StepPanel:
    """What the current step shows the viewer and what the viewer may do there."""

    at: str  # the position token a form carries
    can_act: bool
    fields: list[FieldView] = field(default_factory=list)
    entered_by: str | None = None  # side name that entered the result
    tables: list[TableView] = field(default_factory=list)
    rolls: list[RollView] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)  # the viewer's computation
    chits: list[ChitView] = field(default_factory=list)
    my_chit: str | None = None
    opponent_chosen: bool = False  # locking now reveals both chits at once
    attack_allowed: bool = True
    attack_refusal: str = ""
    # Where picking no chit is Idle (PHD C2.0): what the side's Done without a chit
    # does, said by the Done button ("" : Done is no part of the step).
    idle_done: str = ""
    chart: list[ChartRow] = field(default_factory=list)
    chart_missing: str = ""
    purchases: list[PurchaseLine] = field(default_factory=list)
    forts: list[FortRow] = field(default_factory=list)
    fort_footnotes: list[str] = field(default_factory=list)  # the rules' footnotes
    chart_title: str = ""
    chart_notes: list[tuple[str, str]] = field(default_factory=list)  # (letter, text)
    # The chart's price columns: the printed cost, then each cost variant that applies
    # to one of its RGs (variant id, label), so a row's choices sit side by side.
    price_columns: list[tuple[str, str]] = field(default_factory=list)
    price_legend: list[str] = field(default_factory=list)  # each price column, in full
    # The prices the side's answer in the last result refuses, each with why (3.6175).
    price_withheld: list[str] = field(default_factory=list)
    fort_buys: list[str] = field(default_factory=list)
    recon_options: list[tuple[int, int, int]] = field(default_factory=list)  # (index, cost, drm)
    recon_due: list[tuple[str, str, int]] = field(default_factory=list)  # (ref, RG, drm)
    recon: str = ""
    recon_refusal: str = ""
    recon_total: str = ""  # Locations adding up over Idle dates (3.620)
    entries: list[str] = field(default_factory=list)  # "A1 Armor Group: along ..." (3.8)
    # The viewer's units the step's rules name (``Step.reminds``): (the rule's words,
    # its rule, the units' lines with their markers), e.g. 3.6222 EXC's Immobile vehicles.
    reminders: list[tuple[str, str, tuple[str, ...]]] = field(default_factory=list)
    forgo: tuple[int, str, str] | None = None  # (most, whose points drop, rule)
    exchange: ExchangeView | None = None
    # The sides' Setup Areas where this step lists them (Sicily 3.605).
    setup_areas: SetupAreasView | None = None
    # The opponent's Equipment in the viewer's Setup Areas, his to Capture or Eliminate
    # (Sicily 3.6071).
    area_captures: AreaCapturesView | None = None
    # The step's HS recombining beside its exchange (Sicily 3.6111).
    recombining: ExchangeView | None = None
    declares_units: bool = False  # the viewer's on-map units decide the opponent's chit
    no_on_map_units: bool = False
    # The viewer's retained forces list no unit the opponent may see: that decides the
    # opponent's chit by itself (Sicily 3.6212*), as this sentence says.
    roster_empty: str = ""
    # Finishing several steps at once: (last step id, its title, what it means).
    ahead: list[tuple[str, str, str, str]] = field(default_factory=list)
    weather: str = ""  # the date's EC, weather and wind (PHD C5.30), in words
    # Why Done cannot meaningfully be pressed yet (the step's data missing), and what
    # Done gives up (asked in its confirmation, with the figures).
    finish_refusal: str = ""
    # What waits for the opponent who has not joined yet, and what the viewer may do
    # alone meanwhile (``availability.unjoined_reason``): no Done, roll or going on.
    unjoined: str = ""
    rolls_owed: bool = False  # the refusal is a compulsory roll: no going on without it
    finish_warnings: list[str] = field(default_factory=list)
    # What completing the step does to the viewer's retained units by its ``settles``
    # (APD 2.1 "All Prisoners are then removed from play"), one sentence per unit.
    at_done: list[str] = field(default_factory=list)
    # A replacement to place with one of the side's MMC (APD 3.1 footnote *): its
    # reference, its name and the MMC Locations offered.
    placing: list[tuple[str, str, list[str]]] = field(default_factory=list)
    take_back: bool = False  # the viewer may withdraw its Done (the opponent has not acted)
    # The opponent has acted on the viewer's Done: it may be taken back by consent only.
    take_back_ask: bool = False
    takeback_mine: bool = False  # the viewer's request to take back its Done is open
    takeback_asked_by: str = ""  # the opponent asks to take back its Done here
    result_take_back: bool = False  # the viewer entered the result, still unconfirmed
    fort_take_back: bool = False  # the viewer may take back its last fortification
    amend: AmendView | None = None  # the result, while it may be amended by consent
    # A roll's write-back to the roster corrected by consent (services.corrections):
    # the viewer's rolls for its units at this step, and the proposals open here.
    correctable: list[CorrectableRoll] = field(default_factory=list)
    corrections: list[CorrectionView] = field(default_factory=list)
    disputed: tuple[str, str] | None = None  # who disputed the last result entered, and why
    attacker: str = ""  # the Attacker of the scenario just played, in a sentence (C5.3)
    # The side that alone acts at this step, when it is not the viewer (APD 3.5 "The
    # German player now secretly makes three Reinforcement drs"): its tables are not his.
    only_side: str = ""
    # What going on without the step's missing data means ("You buy nothing at 3.4.").
    without: str = ""

    @property
    def without_confirm(self) -> str:
        """ "Go on without it"'s confirmation (the step's data missing): what the side
        gives up, with the figures (its points left unused), or what it does not do."""
        return " ".join(["Go on without it?", *(self.finish_warnings or [self.without])])

    @property
    def finish_confirm(self) -> str:
        """The Done button's confirmation ("" : none needed)."""
        if not self.finish_warnings:
            return ""
        return " ".join([*self.finish_warnings, "Finish the step anyway?"])


def build_panel(view: CampaignView) -> StepPanel:
    step = view.step_def
    # At a step the Attacker goes first at (PHD C5.14), the campaign waits for him alone
    # (``waiting_for``), but the Defender's panel still shows why he may not roll yet.
    may_act = view.waiting_for
    if step.attacker_first:
        may_act = machine.sides_to_act(view.module, step, view.done)
    panel = StepPanel(
        at=view.at,
        can_act=view.viewer in may_act,
    )
    if step.acts not in ("both", "in_order") and step.acts != view.viewer:
        panel.only_side = view.module.side(step.acts).name
    for show in kind_of(step.kind).shows:
        BUILDERS[show](view, panel)
    kind = kind_of(step.kind)
    if panel.can_act and kind.finishable:
        _finishing(view, panel)
    elif kind.finishable and view.viewer in view.done and not view.ended:
        c = view.campaign
        refusal = availability.take_back_refusal(
            view.module,
            view.snapshot(),
            step,
            opponent_acted=False,
            by_done=done_by_own_click(c, view.viewer),
        )
        if not refusal:
            panel.takeback_mine = takeback_asked(view, view.viewer)
            acted = opponent_acted_since_done(c, view.viewer)
            panel.take_back = not acted
            panel.take_back_ask = acted and not panel.takeback_mine
    panel.takeback_asked_by = view.takeback_asked_by
    if panel.can_act and Action.FORTIFY in kind.actions:
        panel.fort_take_back = bool(panel.fort_buys)
    if panel.can_act and availability.finishes_ahead(view.module, step):
        panel.ahead = _ahead(view)
    panel.amend = view.amend
    if step.names_attacker:
        panel.attacker = attacker_words(view.campaign, view.module, step.names_attacker)
    panel.weather = availability.weather_words(view.module, step, view.campaign.date_index)
    if step.reminds and not view.ended:
        _reminders(view, panel)
    areas = setup_areas_at(view.module, step.id)
    if areas is not None and not view.ended:
        panel.setup_areas = _setup_areas(view, areas)
    capture = capture_at(view.module, step.id)
    if capture is not None and not view.ended:
        panel.area_captures = _area_captures(view, capture)
    return panel


@dataclass(frozen=True)
class AreaCapturesView:
    """The opponent's Equipment and vehicles entered in one of the viewer's Setup Areas,
    whose fate he chooses (Sicily 3.6056 chart, 3.6071), and his choices made at this
    step that he may take back."""

    rule: str
    offered: tuple[tuple[str, str], ...]
    taken: tuple[tuple[str, str], ...]


def _area_captures(view: CampaignView, capture: AreaCapture) -> AreaCapturesView:
    offered = choices_words(view.module, to_choose(view.campaign, view.module, view.viewer))
    taken = tuple(
        (
            str(d["taken"]["ref"]),
            f"{d['taken']['name']} ({'Eliminated' if d.get('eliminated') else 'Captured'})",
        )
        for d in taken_here(view.campaign, view.viewer)
    )
    return AreaCapturesView(rule=capture.rule, offered=tuple(offered), taken=taken)


@dataclass(frozen=True)
class SetupAreasView:
    """Each side's Setup Area IDs (Sicily 3.605), public, and the viewer's units entered
    in one its opponent lists, with what the rules say of them (the 3.6056 chart)."""

    word: str
    rule: str
    mine: str
    their_side: str
    theirs: str
    says: str  # the rules' words with their rule ("... (3.6056 chart)")
    enemy: tuple[str, ...]
    # The viewer's own Fortifications whose place he states in secret (3.6073): (its
    # reference, its words, what he stated in this pass or "", its counters: several
    # may be stated apart), the choices of the form (value, words) and the rule; none
    # where the module records no hidden ones.
    forts: tuple[tuple[str, str, str, int], ...] = ()
    fort_choices: tuple[tuple[str, str], ...] = ()
    fort_rule: str = ""


def _setup_areas(view: CampaignView, areas: SetupAreas) -> SetupAreasView:
    other = next((s for s in view.seats if s.side != view.viewer), None)
    theirs = list(other.setup_areas or ()) if other is not None else []
    says = enemy_area_words(areas)
    enemy: tuple[str, ...] = ()
    if theirs and says:
        own = Unit.objects.visible_to(view.viewer).filter(campaign=view.campaign, side=view.viewer)
        enemy = tuple(
            with_state(label(u), ", ".join(u.state_words) + place_words(view.module, u))
            for u in own
            if in_enemy_area(u.location, theirs)
        )
    hid = areas.hidden_fortifications
    forts: tuple[tuple[str, str, str, int], ...] = ()
    choices: tuple[tuple[str, str], ...] = ()
    if hid is not None:
        cycle = view.campaign.cycle
        forts = tuple(
            (
                b.ref,
                fortification_words(view.module, b),
                stated_words(view.module, b, cycle),
                b.count,
            )
            for b in to_state(view.campaign, view.module, view.viewer)
        )
        their_side = view.module.side(other.side).name if other is not None else ""
        choices = (
            (ON_MAP, "on the map (not hidden)"),
            *((a, f"hidden in your {areas.label} {a}") for a in view.seat.setup_areas or ()),
            *((a, f"hidden in the {their_side} {areas.label} {a}") for a in theirs),
            (IN_NONE, f"hidden in no {areas.label}"),
        )
    return SetupAreasView(
        word=areas.label,
        rule=areas.rule,
        mine=", ".join(view.seat.setup_areas or ()),
        their_side=view.module.side(other.side).name if other is not None else "",
        theirs=", ".join(theirs),
        says=says,
        enemy=enemy,
        forts=forts,
        fort_choices=choices,
        fort_rule=hid.rule if hid is not None else "",
    )


def place_words(module: Module, unit: Unit) -> str:
    """Where ``unit`` is, after its state: the Setup Area it is Retained in where the
    module records that (``Module.setup_areas``, Sicily 3.605: "; in Setup Area A"),
    else its Location ("; at 21C5"); "" where none is entered."""
    if not unit.location:
        return ""
    areas = module.setup_areas
    return f"; in {areas.label} {unit.location}" if areas else f"; at {unit.location}"


def _reminders(view: CampaignView, panel: StepPanel) -> None:
    """The viewer's own retained units the step's rules name (``Step.reminds``), each
    with its markers and where it is: Sicily 3.6222 EXC "each Immobile vehicle must
    remain in its current Location and VCA (3.6071)"."""
    own = (
        Unit.objects.visible_to(view.viewer)
        .filter(campaign=view.campaign, side=view.viewer)
        .select_related("purchase")
    )
    units = [
        (
            with_state(label(u), ", ".join(u.state_words) + place_words(view.module, u)),
            # Its RG, where it came with one (PHD TM10 names each RG's units), and
            # whether that RG was requisitioned for the date being set up (C5.39).
            replace(
                state_of(u),
                group=u.purchase.group_id if u.purchase else "",
                bought_now=u.purchase is not None
                and u.purchase.date_index == view.campaign.date_index,
            ),
        )
        for u in own
    ]
    reminders = view.step_def.reminds
    held = [
        (
            f"{p.group_id} {p.group_type} ({view.module.dates[p.date_index].label})",
            p.group_id,
            p.cost_variant or "",
        )
        for p in sorted(view.purchases, key=lambda p: (p.date_index, p.pk))
        if p.side == view.viewer and p.state == Purchase.State.HELD
    ]
    found = {
        id(r): named
        for r, named in [
            *reminded(reminders, units),
            *reminded_rgs(view.module, reminders, view.viewer, held),
        ]
    }
    panel.reminders = [(r.says, r.rule, tuple(found[id(r)])) for r in reminders if id(r) in found]


def attacker_words(campaign: Campaign, module: Module, rule: str) -> str:
    """The Attacker of the TM Scenario just played, the side that moved first in it (PHD
    C5.3): the latest initiative's, else the start's; public ("" : none known)."""
    side, played = scenario_attacker(campaign, module)
    if not side:
        return ""
    name = module.side(side).name
    return f"Attacker ({rule}): {name}, the side that moved first in the {played} scenario."


def takeback_asked(view: CampaignView, side: str) -> bool:
    """Whether ``side`` has an open request to take back its Done at the current step
    (public: the request is logged for both)."""
    seat = next(s for s in view.seats if s.side == side)
    return seat.takeback_asked == done_request(view.at)


def takeback_asked_by(view: CampaignView) -> str:
    """The opponent's side name where it asks to take back its Done at the current step
    ("" : it does not; public: the request is logged for both).  What the step's panel
    shows and the header's "your answer is awaited" names, read from the seats alone."""
    other = next((s.side for s in view.seats if s.side != view.viewer), "")
    if other and other in view.done and takeback_asked(view, other):
        return view.module.side(other).name
    return ""


def amend_view(view: CampaignView) -> AmendView | None:
    """The result of this pass and its open amendment, between its confirmation and the
    step that reads it (public: both players agreed the result)."""
    module = view.module
    read_by = result_read_by(view.campaign, module)
    if availability.amendment_refusal(module, view.snapshot(), True, read_by):
        return None  # outside the window: nothing read
    result = pass_result(view.campaign)
    if result is None:
        return None
    names = {s.id: s.name for s in module.sides}
    fields = result_field_views(module, result.data, result.date_index)
    cvp_na = machine.cvp_na_rule(module, view.campaign.step_index)
    if result.amendment is None:
        return AmendView(fields, cvp_na=cvp_na)
    return AmendView(
        fields,
        proposed_by=names[result.amendment_by],
        mine=result.amendment_by == view.viewer,
        changes=describe_changes(module, result.data, result.amendment),
        reason=result.amendment_reason,
        cvp_na=cvp_na,
    )


def _own_snapshot(view: CampaignView) -> Snapshot:
    """The viewer's snapshot with its own purchases (what finishing reads)."""
    own = [p for p in view.purchases if p.side == view.viewer]
    return view.snapshot(
        Holdings(
            bought=tuple(bought_of(p) for p in own),
            unrolled=tuple(p.group_id for p in own if p.rolled_at is None),
            owed=view.owed_rolls,
            exchanges=view.exchanges_held,
        )
    )


def _finishing(view: CampaignView, panel: StepPanel) -> None:
    """What Done at this step lacks or gives up, for the viewer."""
    c, step = view.campaign, view.step_def
    actions = kind_of(step.kind).actions
    if Action.RECON in actions:  # a Recon RG's dr may be owed: purchases and recon read
        snap = view.snapshot(holdings(c, view.viewer, purchases=True, recon=True))
    elif actions & {Action.BUY, Action.FORTIFY}:
        snap = _own_snapshot(view)
    else:
        snap = view.snapshot(Holdings(owed=view.owed_rolls if step.tables else ()))
    panel.without = (
        f"You buy nothing at {step.id}."
        if Action.BUY in actions
        else f"You roll nothing on the missing table at {step.id}."
    )
    panel.finish_refusal = availability.owed_refusal(
        view.module, snap, step
    ) or availability.finish_refusal(view.module, snap, step)
    panel.rolls_owed = bool(availability.rolls_owed(view.module, snap, step))
    panel.unjoined = availability.unjoined_reason(view.module, snap, step)
    if step.attacker_first and not panel.finish_refusal:
        # PHD C5.14 "In turn, Attacker first": no Done (nor going on) before the Attacker's.
        attacker = step_attacker(c, view.module, step)
        first = availability.attacker_first_reason(
            view.module, step, view.viewer, attacker, set(view.done), "you finish once it is done"
        )
        if first:
            panel.finish_refusal = f"Not yet: {first}."
            panel.rolls_owed = True  # nothing to go on without: the Attacker is awaited
    once = [t for t in step.tables if view.module.table(t).once == "side"]
    rolled: set[str] = set()
    if once:
        rolled = set(
            Roll.objects.visible_to(view.viewer)
            .filter(campaign=c, cycle=c.cycle, side=view.viewer, table_id__in=once)
            .values_list("table_id", flat=True)
        )
        # What a side took instead of the roll stands for it (PHD C5.24a).
        rolled |= {
            t for t in once if view.module.table(t).instead and took_instead(c, view.viewer, t)
        }
    panel.finish_warnings = availability.finish_warnings(
        view.module, snap, step, rolled_tables=rolled
    )
    panel.at_done = settle_preview(view.module, c, step, view.viewer)
    if panel.exchange is not None:  # APD 3.2: a Hero left while an MMC could harden
        panel.finish_warnings += panel.exchange.given_up
    if Action.ROLL in actions:  # a 7-0 an Evacuated leader's dr placed (APD 3.1 *)
        found = unplaced(view.module, c, view.viewer)
        panel.finish_warnings += placement_reminders(found)
        panel.placing = [(p.placed.ref, p.placed.name, places) for p, places in found if p.placed]
        owed = placement_owed_by(view.module, c, view.viewer)
        if owed and not panel.finish_refusal:  # Done is refused until then (3.1 *)
            panel.finish_refusal, panel.rolls_owed = owed, True


def _ahead(view: CampaignView) -> list[tuple[str, str, str, str]]:
    """The ways to finish several steps at once: through the last map step before a
    purchase, and through the whole run (buying nothing on the way); each with the
    words of its button's brackets and of its confirmation.  A run its first step's
    rules allow (``Step.finished_with``: Sicily 3.622 with 3.6223) says what it means
    in their words ("declare no Recon Location")."""
    run = availability.finish_ahead(view.module, _own_snapshot(view))
    options = []
    buys = [i for i, s in enumerate(run) if availability.declines_to_buy(s)]
    if buys and buys[0] >= 2:
        last = next(s for s in reversed(run[: buys[0]]) if kind_of(s.kind).finish_ahead)
        if last is not run[0]:
            options.append((last.id, last.title, "no rolls", "You make no rolls in them."))
    words = availability.finished_with_words(run[0]) if run else None
    if run and words:
        options.append((run[-1].id, run[-1].title, *words))
    elif run:
        meaning = "no rolls, no purchases" if buys else "no rolls"
        options.append((run[-1].id, run[-1].title, meaning, f"You make {meaning} in them."))
    return options


def _result_fields(view: CampaignView, panel: StepPanel) -> None:
    """The result's fields: as entered (to confirm), or to enter — prefilled with the
    figures last disputed in this pass, whose reason the panel says."""
    c, module = view.campaign, view.module
    names = {s.id: s.name for s in module.sides}
    entered = ScenarioResult.objects.filter(campaign=c, cycle=c.cycle).first()
    shown = entered.data if entered else {}
    if entered is None:
        # The figures of the result last disputed or taken back in this pass come back
        # in the form that enters it again.
        last = (
            Event.objects.readable_by(view.viewer)
            .filter(
                campaign=c,
                kind__in=(EventKind.RESULT_DISPUTED, EventKind.TAKEBACK),
                data__cycle=c.cycle,
            )
            .order_by("-id")
            .first()
        )
        if last is not None and last.kind == EventKind.RESULT_DISPUTED:
            shown = last.data.get("disputed") or {}
            panel.disputed = (names.get(last.side, last.side), str(last.data.get("reason", "")))
        elif last is not None:
            shown = last.data.get("taken_back") or {}
    panel.fields = result_field_views(module, shown, c.date_index)
    panel.entered_by = names[entered.entered_by] if entered else None
    panel.result_take_back = (
        entered is not None and entered.confirmed_at is None and entered.entered_by == view.viewer
    )


def result_field_views(
    module: Module, data: Mapping[str, Mapping[str, Any]], date_index: int
) -> list[FieldView]:
    """A scenario result's fields (those the scenario of the CG date at ``date_index``
    asks), each for the side it is entered for, holding ``data``'s values (the entry
    form, the confirmation, the amendment)."""
    names = {s.id: s.name for s in module.sides}
    return [
        FieldView(
            f"{f.id}.{owner}",
            # one value for the scenario (not a side's): its label alone
            f"{f.label} — {names[owner]}" if f.per_side or f.side else f.label,
            f.kind,
            data.get(f.id, {}).get(owner),
        )
        for f in asked_fields(module, date_index)
        for owner in result_owners(module, f)
    ]


def table_view(table: Table, ctx: RollContext) -> TableView:
    """A step's table as the side of ``ctx`` rolls on it: the DRMs it may claim."""
    columns = table.columns or ["Result"]
    # A result the Original roll gives, whatever the DRMs, first (3.606 footnote 1).
    given: list[tuple[str, TableResult]] = [(f"Original {o.roll}", o) for o in table.original]
    rows = [
        (label, [r.results[c] for c in columns] if r.results else [r.result or ""])
        for label, r in [*given, *((r.range, r) for r in table.rows)]
    ]
    drms = []
    for d in table.drms:
        if not (offered_for_some_unit(d, ctx) if table.for_units else offered(d, ctx)):
            continue
        if d.counted:
            how = "count"
        elif d.variable:
            how = "typed"
        elif d.when is not None or d.of is not None:
            how = "auto"
        else:
            how = "tick"
        # One computed from a figure (``of``: "+/- Leadership", "+ (current SAN - 4)")
        # is read by its words alone: its ``value`` is a multiplier, not the DRM.
        drms.append(DrmView(d.id, d.label, 0 if d.of is not None else d.value, how))
    return TableView(
        table.id,
        table.title,
        table.rule,
        table.dice,
        table.missing,
        columns,
        rows,
        drms,
        [f"[{k}] {v}" for k, v in table.footnotes.items()],  # as the results mark them
        describe_filter(table.for_units) if table.for_units else "",
        table.once or "",
        losses_count=table.losses_count or "",
    )


def _tables(view: CampaignView, panel: StepPanel) -> None:
    module, date_index = view.module, view.campaign.date_index
    date = module.dates[date_index]
    ctx = RollContext(
        side=view.viewer,
        nationalities=tuple(module.side(view.viewer).nationalities),
        night=date.night,
        initial_scenario=date.initial,
    )
    panel.tables = []
    for t in view.step_def.tables:
        table = module.table(t)
        closed = availability.table_date_reasons(module, table, view.viewer, date_index)
        low = availability.san_table_reason(module, table, view.seat.san)
        closed += [low] if low else []
        if view.step_def.attacker_first:
            attacker = step_attacker(view.campaign, module, view.step_def)
            first = availability.attacker_first_reason(
                module, view.step_def, view.viewer, attacker, set(view.done)
            )
            closed += [first] if first else []
        if table.once == "side" and rolled_items(view.campaign, view.viewer, table.id):
            # its one roll in this pass is made (APD 3.5's Rows A-C): no form to refuse
            closed += [f"you have made your roll on it in this pass ({table.rule})"]
        # Waiting for the others to finish is a reason only for a side that may roll on
        # it (the Axis are not told to wait for the British Bombardment, footnote i).
        first = (
            ""
            if closed
            else availability.others_first_reason(
                module, view.step_def, table, view.viewer, set(view.done)
            )
        )
        if first and table.per_group is not None:
            # Nothing to wait for where the viewer holds no RG it is rolled for (British
            # chart footnote i: "To resolve each bombardment": no B1, no roll to come).
            items = availability.group_roll_items(
                module, table, view.viewer, held_purchases(view.campaign, view.viewer)
            )
            first = (_none_held(table) if not items else "") or first
        closed += [first] if first else []
        if not closed:  # PHD C5.23: no MMC to Battle Harden
            waived = waived_roll(view.campaign, view.viewer, table)
            closed += [waived] if waived else []
        if not closed and hardens_leader(table):  # PHD C5.24: no leader to Battle Harden
            leaders = hardenable_leaders(view.campaign, module, view.viewer, view.step_def, table)
            pointless = no_leader_to_harden(table, [u.state for u in leaders])
            closed += [pointless] if pointless else []
        if not closed and availability.capped_group(module, table, view.viewer) is not None:
            used = len(rolled_items(view.campaign, view.viewer, table.id))
            spent = availability.uses_refusal(
                module, table, view.viewer, used, new_dates_since_scenario(module, view.campaign)
            )
            closed += [spent.rstrip(".")] if spent else []
        tv = _figures_now(view, table, table_view(table, ctx))
        if recorded_first(view.campaign, view.viewer, table):
            # PHD C5.28: his own A-P mines recorded at a hex bar its other items; he
            # says so where they are gone (cleared in play).
            tv = replace(tv, gone=availability.MINES_GONE)
        item_label = availability.per_group_item_label(module, table, view.viewer)
        tv = replace(tv, item_label=item_label) if item_label else tv
        # Which RGs it is still to be rolled for, only where it may be rolled now (the
        # page says why not first: the RGs held are not read for nothing).
        if table.per_group is not None and not closed:
            tv = _group_items(view, table, tv)
        panel.tables.append(replace(tv, closed="; ".join(closed)) if closed else tv)
    _instead(view, panel)
    _hardening(view, panel)
    _reduction(view, panel)


def _figures_now(view: CampaignView, table: Table, tv: TableView) -> TableView:
    """Each DRM of ``table`` computed from a campaign figure (``Drm.of``: the CVP of
    the scenario just played, the CVP of the CG, the SAN), as it stands now for the
    viewer, with the figure and its source (PHD C5.20 "Record CVP from the previous
    scenario for DRM for TP Replenishment, and Bravery and Battlefield Promotion"): the
    roll computes the same."""
    figured = [d for d in table.drms if d.of in _FIGURE_SOURCES and not d.counted]
    if not figured:
        return tv
    seats = {s.side: s for s in view.seats}
    turn = Turn(view.campaign, view.module, seats[view.viewer], seats)
    ctx = roll_context(turn, view.viewer)
    others = [s.name for s in view.module.sides if s.id != view.viewer]
    now = {}
    for d in figured:
        assert d.of is not None
        figure = ctx.inputs.get(d.of, 0)
        source = _FIGURE_SOURCES[d.of].format(n=figure, other=" and ".join(others))
        value = scaled_value(d, ctx)
        now[d.id] = f"{value:+d}" if value else "0"
        now[d.id] += f" now: {source}"
    return replace(tv, drms=[replace(v, now=now.get(v.id, "")) for v in tv.drms])


# The campaign figures a DRM is computed from, with where the figure comes from.
_FIGURE_SOURCES: dict[str, str] = {
    "cvp_lost_prior_scenario": "{n} CVP you lost in the scenario just played (its result)",
    "cvp_amassed_prior_scenario": "{n} CVP {other} lost in the scenario just played (its result)",
    "cvp_lost_cg": "{n} CVP you lost in the CG so far (the scenario results)",
    "vp_total": "{n} VP you amassed in the CG so far (the scenario results)",
    "san": "your SAN is {n}",
}


def _group_items(view: CampaignView, table: Table, tv: TableView) -> TableView:
    """A table rolled once per RG held (PHD C5.34: a DR for each OBA module): the
    viewer's held RGs it is still to be rolled for, or why there is none."""
    cap = table.per_group
    items = availability.group_roll_items(
        view.module, table, view.viewer, held_purchases(view.campaign, view.viewer)
    )
    # An RG its roll eliminates (Sicily footnote i) is no longer held once rolled for.
    rolled = (
        []
        if availability.eliminated_by_roll(table)
        else rolled_items(view.campaign, view.viewer, table.id)
    )
    left = availability.group_roll_left(items, rolled)
    if left:
        label = f"Which {cap.label}" if cap else tv.item_label
        return replace(tv, item_choices=tuple((x, x) for _, x in left), item_label=label)
    what = cap.label if cap else "RG"
    why = (
        f"Each {what} you hold has had its {table.title} roll in this pass ({table.rule})."
        if items
        else _none_held(table) + "."
    )
    return replace(tv, no_item=why)


def _none_held(table: Table) -> str:
    """Why a table rolled once per RG held has nothing to roll for: none is held."""
    what = table.per_group.label if table.per_group else "RG"
    return f"You hold no {what}: there is nothing to roll for ({table.rule})"


def _hardening(view: CampaignView, panel: StepPanel) -> None:
    """For each table whose result lets a side Battle Harden MMC (PHD C5.23): what the
    viewer's roll allows, its MMC that may still Battle Harden, or why none may now."""
    c, module = view.campaign, view.module
    for n, tv in enumerate(panel.tables):
        table = module.table(tv.id)
        if not hardens_mmc(table):
            continue
        allowed, used, hardened = mmc_hardening(c, view.viewer, table)
        why = availability.harden_refusal(
            table, allowed=allowed, used=used, unit=None, hardened=False
        )
        own = Unit.objects.visible_to(view.viewer).filter(campaign=c, side=view.viewer)
        choices = tuple(
            (u.ref, u.label)
            for u in own
            if u.ref not in hardened
            and not availability.harden_refusal(
                table, allowed=1, used=0, unit=u.state, hardened=False
            )
        )
        words = (
            f"Your roll lets {allowed} MMC Battle Harden (A15.3); {allowed - used} left."
            if allowed
            else ""
        )
        if not why and not choices:
            why = f"You hold no MMC that may Battle Harden ({table.rule})."
        panel.tables[n] = replace(tv, harden=words, harden_choices=choices, no_harden=why)


def _reduction(view: CampaignView, panel: StepPanel) -> None:
    """For each table whose original roll Casualty Reduces MMC (PHD C5.28 note 2), once
    the viewer has rolled one in this pass: what it says, the viewer's MMC it may fall
    on (the first class of them held), or why none may now."""
    c, module = view.campaign, view.module
    for n, tv in enumerate(panel.tables):
        table = module.table(tv.id)
        originals, _ = reduction(table)
        if not originals:
            continue
        allowed, used = mmc_reduction(c, view.viewer, table)
        if not allowed:
            continue
        own = [
            u
            for u in Unit.objects.visible_to(view.viewer)
            .filter(campaign=c, side=view.viewer, kind__in=MMC_KINDS)
            .select_related("purchase")
        ]
        held = [(u.state, _footnotes(module, u)) for u in own]
        why = availability.reduce_refusal(table, allowed=allowed, used=used, unit=None)
        choices = tuple(
            (u.ref, u.label)
            for u, h in zip(own, held, strict=True)
            if not availability.reduce_refusal(
                table, allowed=1, used=0, unit=h, held=held, side=view.viewer
            )
        )
        said = " or ".join(str(r) for r in originals)
        row = next(o for o in table.original if o.roll == originals[0])
        items = "; ".join(item for item, _ in reducing_rolls(c, view.viewer, table))
        words = (
            f"Your original {said} on the {table.title} ({items}): “{row.result}” "
            f"({table.rule}). {allowed - used} of {allowed} to name."
        )
        if not why and not choices:
            why = f"You hold no MMC to suffer the Casualty Reduction ({table.rule})."
        elif not why:
            order = availability.reduction_order(table, view.viewer)
            words += (
                f" {order} Done waits until you name it."
                if order
                else (" Done waits until you name it.")
            )
        panel.tables[n] = replace(tv, reduce=words, reduce_choices=choices, no_reduce=why)


def _footnotes(module: Module, unit: Unit) -> list[str]:
    """The chart footnotes of the RG ``unit`` came with (none: a line of no RG)."""
    group = module.group(unit.side, unit.purchase.group_id) if unit.purchase else None
    return list(group.footnotes) if group else []


def _instead(view: CampaignView, panel: StepPanel) -> None:
    """For each table that offers something instead of its roll: what, and why the
    viewer may not take it now."""
    c, module = view.campaign, view.module
    for n, tv in enumerate(panel.tables):
        table = module.table(tv.id)
        if table.instead is None:
            continue
        leaders, squads, half_squads = strength_counts(c, view.viewer)
        rolls = Roll.objects.visible_to(view.viewer).filter(
            campaign=c, cycle=c.cycle, side=view.viewer, table_id=tv.id
        )
        why = availability.instead_refusal(
            table,
            leaders=leaders,
            squads=squads,
            half_squads=half_squads,
            rolled=rolls.exists(),
            taken=took_instead(c, view.viewer, tv.id),
            designable=designable_mmc(c, view.viewer, table.instead.mmc_not_named),
        )
        choices: tuple[tuple[str, str], ...] = ()
        if table.instead.from_mmc and not why:
            lines = designable_lines(c, view.viewer, table.instead)
            choices = tuple(
                (u.ref, f"{label(u)}" + (f" in {u.location}" if u.location else "")) for u in lines
            )
            if not lines:
                why = (
                    f"Each of your MMC it could be created from has a leader in its location "
                    f"({table.instead.rule})."
                )
        panel.tables[n] = replace(
            tv, instead=availability.instead_words(table), no_instead=why, instead_choices=choices
        )


def _rolls(view: CampaignView, panel: StepPanel) -> None:
    c = view.campaign
    rolls = Roll.objects.visible_to(view.viewer).filter(
        campaign=c, date_index=c.date_index, step_id=view.step_def.id
    )
    panel.rolls = [roll_view(r, ended=False) for r in rolls.order_by("seq")]
    if not view.ended:
        panel.correctable = correctable_rolls(
            c, view.module, view.viewer, view.step_def.id, view.corrections_open
        )
        panel.corrections = view.corrections


def _units(view: CampaignView, panel: StepPanel) -> None:
    """For each table rolled for units: the viewer's units of its kinds and statuses
    that have not had their one roll on it in this pass."""
    c, module = view.campaign, view.module
    tables = {t: module.table(t) for t in view.step_def.tables}
    if not any(t.for_units for t in tables.values()):
        return
    own = list(Unit.objects.visible_to(view.viewer).filter(campaign=c, side=view.viewer))
    # A unit rolled for, or one of a stack that made the roll with it (``Table.stack``).
    rolled = {
        (table_id, ref)
        for table_id, unit_ref, stack, _, _ in view.rolls_of_pass()
        if unit_ref
        for ref in (unit_ref, *stack.split())
    }
    # A SW or Gun is where its possessor is (his Isolated marker is its own).
    holders: dict[int | None, UnitState] = {u.pk: u.state for u in own}
    for n, tv in enumerate(panel.tables):
        t = tables[tv.id]
        if t.for_units is None:
            continue
        # A unit, or each weapon of a vehicle's record the table is rolled for.
        eligible = [
            (roll_ref(u, ref), _target_words(u, ref))
            for u in own
            for ref, _ in targets(
                t.for_units, in_location_of(state_of(u), holders.get(u.possessor_id))
            )
        ]
        fresh = [e for e in eligible if not (t.once == "unit" and (t.id, e[0]) in rolled)]
        sent = sent_to(c, module, t.id, view.viewer, view.rolls_of_pass) if t.after else None
        if sent is not None:  # only the units an earlier roll sends here (3.613 †)
            eligible = [e for e in eligible if e[0] in sent]
            fresh = [e for e in fresh if e[0] in sent]
        if reads_location_leadership(t):  # APD 2.5: the leader's DRM the roll reads
            fresh = [(ref, _led(t, ref, words, own, rolled)) for ref, words in fresh]
        choices = tuple(fresh)
        why = ""
        if not fresh:
            why = (
                f"Each of your {tv.for_units} has had its roll ({t.rule})."
                if eligible
                else f"You have no {tv.for_units} to roll for."
            )
        stacked = tuple(
            (roll_ref(u), _target_words(u, ""))
            for u in own
            if t.stack and u.kind in t.stack.kinds and (t.id, roll_ref(u)) not in rolled
            for ref, _ in targets(t.for_units, state_of(u))
            if not ref
        )
        panel.tables[n] = replace(
            tv,
            choices=choices,
            no_roll=why,
            stack_rule=t.stack.rule if t.stack and stacked else "",
            stack_choices=stacked,
        )


def _led(t: Table, ref: str, words: str, own: list[Unit], rolled: set[tuple[str, str]]) -> str:
    """A unit's choice with the leadership DRM its roll on ``t`` reads from the retained
    forces (APD 2.5, A10.7), or that it is typed: "4-6-7 (Encircled): leadership -1,
    8-1 leader at 20A1"."""
    unit = next((u for u in own if u.ref == ref), None)
    if unit is None:
        return words
    led = location_leadership(
        unit.kind,
        unit.location,
        [
            LeaderAt(
                label(u),
                u.name,
                u.location,
                frozenset(state_of(u).marked),
                owed_for(t, state_of(u)) and (t.id, u.ref) not in rolled,
            )
            for u in own
            if u.kind == "leader" and u.pk != unit.pk
        ],
    )
    if led.first:
        return f"{words}: after the {led.first}, who takes his own roll first (A10.7)"
    if led.owed:
        return f"{words}: leadership to type, {led.source}"
    if led.value is None:
        return f"{words}: leadership typed ({led.source})"
    return (
        f"{words}: leadership {led.value:+d}, {led.source}"
        if led.value
        else f"{words}: {led.source}"
    )


def _target_words(unit: Unit, weapon_ref: str) -> str:
    """A unit, or its weapon, as a roll's choice reads it: "4-6-7 (in good order)",
    "StuG IIIG: MA (malfunctioned)"."""
    weapon = unit.state.weapon(weapon_ref) if weapon_ref else None
    if weapon is None:
        return with_state(label(unit), ", ".join(unit.state_words))
    marks = ", ".join(Unit.Status(m).label for m in weapon.markers) or "in good order"
    return with_state(f"{label(unit)}: {weapon.name}", marks)


def _arithmetic(view: CampaignView, panel: StepPanel) -> None:
    c = view.campaign
    mine = (
        Event.objects.readable_by(view.viewer)
        .filter(campaign=c, kind=EventKind.REPLENISH, side=view.viewer)
        .order_by("-id")
        .first()
    )
    if mine and mine.date_index == c.date_index:
        panel.lines = list(mine.data.get("lines", []))


@dataclass(frozen=True)
class ChartFigures:
    """What the RG chart shows of one side's holdings: its price columns, their legend
    and its rows (plain data, computed by the engine from the module and a snapshot)."""

    columns: tuple[tuple[str, str], ...]
    legend: tuple[str, ...]
    rows: tuple[ChartRow, ...]


# The chart's figures per everything they are computed from: the module (its
# checksum) and the side's snapshot (its position, its seats' public state and its own
# points, and what it holds), as a digest.  The snapshot is the side's own (``side``
# is in it, and its points are its own: the opponent's are None), so an entry is
# never another seat's.  A purchase and its cancelling, a log line, a roll or the
# other side done leave the snapshot as one met before, and the engine is not asked
# again (``availability.chart_offers``: each RG's prices and limits).  The chart's
# limits count the side's lines by RG, date, price and state, never by a line's
# reference: the key leaves the references out, so an RG bought again after its
# cancelling (another reference, the same holdings) is the entry met before.
CHART_FIGURES: Memo[ChartFigures] = Memo(size=128)
_CHART_READS = tuple(f.name for f in fields(Bought) if f.name != "ref")  # a line but its ref


def chart_figures(module: Module, checksum: str, snap: Snapshot) -> ChartFigures:
    """The side's RG chart from ``snap`` (``module.chart(snap.side)`` exists), once per
    distinct input (``CHART_FIGURES``)."""
    lines = tuple(tuple(getattr(b, name) for name in _CHART_READS) for b in snap.holdings.bought)
    read = (replace(snap, holdings=replace(snap.holdings, bought=())), lines)
    key = (checksum, snap.side, hashlib.blake2b(pickle.dumps(read, protocol=5)).digest())
    known = CHART_FIGURES.get(key)
    if known is None:
        known = _chart_figures(module, snap)
        CHART_FIGURES.put(key, known)
    return known


def _chart_figures(module: Module, snap: Snapshot) -> ChartFigures:
    date_index = snap.position.date_index
    bought = snap.holdings.bought
    offers = [
        (g, [(o.variant, o.label, o.cost) for o in opts], reasons)
        for g, opts, reasons in availability.chart_offers(module, snap)
    ]
    used = {variant for _, prices, _ in offers for variant, _, _ in prices}
    columns = [("", "printed")] if "" in used else []
    columns += [(cv.id, price_column(cv)) for cv in module.cost_variants if cv.id in used]
    legend = [
        f"{price_column(cv)}: {cv.label}"
        + (f" — {implies_of(cv, snap.side)}" if implies_of(cv, snap.side) else "")
        for cv in module.cost_variants
        if cv.id in used
    ]
    rows = []
    for g, prices, reasons in offers:
        by_variant = {price[0]: price for price in prices}
        n = purchase_counts(g, variant=snap.variant, date_index=date_index, bought=bought)
        rows.append(
            ChartRow(
                g.id,
                g.type,
                g.strength_text
                or (f"{g.full}/{g.depleted}" if g.depleted is not None else str(g.full or "")),
                g.units,
                tuple(by_variant.get(variant) for variant, _ in columns),
                "—" if n.date_left is None else str(n.date_left),
                "—" if n.cg_left is None else str(n.cg_left),
                tuple(reasons),
                tuple(g.footnotes),
                g.records_hex.label if g.records_hex else "",
            )
        )
    return ChartFigures(tuple(columns), tuple(legend), tuple(rows))


def _chart(view: CampaignView, panel: StepPanel) -> None:
    module, side = view.module, view.viewer
    missing = availability.chart_missing(module, side)
    if missing:
        panel.chart_missing = missing
        return
    chart = module.chart(side)
    assert chart is not None
    panel.chart_title = f"{chart.title} ({chart.rule})"
    panel.chart_notes = list(chart.footnotes.items())
    own = [p for p in view.purchases if p.side == side]
    snap = view.snapshot(
        Holdings(
            bought=tuple(bought_of(p) for p in own),
            result_totals=result_totals(view.campaign, side),
            setup_areas=own_setup_areas(view.campaign, side),
        )
    )
    figures = chart_figures(module, view.campaign.module_checksum, snap)
    panel.price_columns = list(figures.columns)
    panel.price_legend = list(figures.legend)
    panel.chart = list(figures.rows)
    panel.price_withheld = availability.withheld_prices(module, snap)


def _my_purchases(view: CampaignView, panel: StepPanel) -> None:
    panel.purchases = [line for line in view.record if line.mine]


def _fortifications(view: CampaignView, panel: StepPanel) -> None:
    module, c, side = view.module, view.campaign, view.viewer
    forts = module.fortifications
    if forts is None:
        return
    snap = view.snapshot(holdings(c, side, fortifications=True))
    panel.fort_footnotes = [f"{k}: {v}" for k, v in forts.footnotes.items()]
    for i in forts.items:
        if i.sides is not None and side not in i.sides:
            continue
        caps = [f"≤ {cap} {where}" for cap, where in availability.fortification_caps(i, side)]
        if i.levels is not None:
            level = availability.fortification_level(i, snap)
            now = i.levels.names[level] if level >= 0 else "none"
            caps.append(f"your Level now: {now} ({i.levels.rule})")
        hip = availability.hip_cap(view.module, i, snap)
        if hip is not None and i.hip is not None:
            caps.append(
                f"≤ {hip} HIP ({i.hip.fraction} {i.hip.rounding} of your "
                f"{i.hip.of.replace('_', '-')}, {i.hip.rule})"
            )
        caps += [
            f"≤ {cap.max} {forts.currency} on {cap.label} per CG date ({cap.rule})"
            for cap in forts.spend_caps
            if i.id in cap.items
        ]
        prices = [(n, t.label, t.cost) for n, t in enumerate(i.tiers)] or [(0, "", i.price(0))]
        cost_text = "/".join(str(cost) for _, _, cost in prices)
        if i.figures:
            cost_text = " + ".join(f.label for f in i.figures) + " (as printed on the counter)"
        elif not i.priced:
            cost_text = "not in the rules text"
        panel.forts.append(
            FortRow(
                i.id,
                i.label,
                prices,
                cost_text,
                ", ".join(caps),
                availability.fortification_reasons(module, snap, i),
                [(f.id, f.label, f.min, f.max) for f in i.figures],
            )
        )
    labels = {i.id: i.label for i in forts.items}
    panel.fort_buys = [
        f"{b.count} × {labels.get(b.item_id, b.item_id)}"
        + (f" ({b.tier})" if b.tier else "")
        + f" ({b.cost} {forts.currency})"
        + (f" at {b.location}" if b.location else "")
        for b in FortificationBuy.objects.visible_to(side).filter(
            campaign=c, side=side, date_index=c.date_index
        )
    ]


def _recon(view: CampaignView, panel: StepPanel) -> None:
    module, c, side = view.module, view.campaign, view.viewer
    recon = module.recon
    if recon is None:
        return
    mine = list(ReconBuy.objects.visible_to(side).filter(campaign=c, side=side))
    today = [r for r in mine if r.date_index == c.date_index]
    panel.recon = "; ".join(f"Recon dr: {count(r.locations, 'Location')}" for r in today)
    snap = view.snapshot(holdings(c, side, recon=True))
    if recon.group is None:
        panel.recon_options = [(i, o.cost, o.drm) for i, o in enumerate(recon.options)]
    else:
        panel.recon_due = [
            (b.ref, b.group_id, availability.recon_drm(module, b.variant))
            for b in availability.recon_due(module, snap)
        ]
    reasons = availability.recon_reasons(module, snap, 0)
    panel.recon_refusal = "; ".join(reasons) if not panel.recon_due else ""
    _recon_total(view, panel, mine)


def _recon_total(view: CampaignView, panel: StepPanel, mine: list[ReconBuy] | None = None) -> None:
    """The viewer's own Recon Locations for the coming scenario, adding up over Idle
    dates since the last scenario (Sicily 3.620), read where it rolls for them and where
    it declares them at set-up (3.6223); its secret, read through the gate."""
    module, c, side = view.module, view.campaign, view.viewer
    recon = module.recon
    if recon is None or not recon.cumulative_over_idle:
        return
    if mine is None:
        mine = list(ReconBuy.objects.visible_to(side).filter(campaign=c, side=side))
    since = last_scenario_date(c)
    total = sum(r.locations for r in mine if since is None or r.date_index > since)
    if total:
        panel.recon_total = (
            f"Recon Locations for your next scenario, adding up over Idle dates: {total} "
            f"({recon.rule})."
        )


def _entries(view: CampaignView, panel: StepPanel) -> None:
    """Where each of the viewer's own RGs in its OB enters or sets up: each held line
    bought since the last CG scenario, with what its price obliges in its purchase
    line's words (Sicily 3.6175: in Reserve, for Standard On-Map Setup, at its printed
    value it enters during the scenario; chart footnotes g/f), and the entry area its RG
    Purchase Record holds (APD 3.8 "All reinforcements enter on/after Turn 1 along the
    owning side's Friendly Board Edge"; the owner corrects it on the CG Roster): its
    own held lines among the active purchases the page read through the gate
    (``view.purchases``), in date order.  Where the side's chart says when every RG
    enters (``RGChart.entry``: APD 3.8 "on/after Turn 1", the scenario its Setup Phase
    prepares), only this Setup Phase's RGs enter: an earlier date's have entered."""
    module = view.module
    chart = module.chart(view.viewer)
    now_only = chart is not None and chart.entry is not None
    since = last_scenario_date(view.campaign)
    said = []
    for p in sorted(
        (p for p in view.purchases if p.side == view.viewer and p.state == Purchase.State.HELD),
        key=lambda p: (p.date_index, p.pk),
    ):
        if now_only and p.date_index != view.campaign.date_index:
            continue
        new = not p.initial and (since is None or p.date_index > since)
        obliges = (
            price_obliges(module, p.side, module.group(p.side, p.group_id), p.cost_variant or "")
            if new
            else ""
        )
        where = entry_words(module, p) if p.entry_area else ""
        words = "; ".join(w for w in (obliges, where) if w)
        if words:
            said.append(f"{p.group_id} {p.group_type}: {words}")
    panel.entries = said


def entry_words(module: Module, p: Purchase) -> str:
    """Where RG ``p`` enters, as its record holds it, with the leaders its rolls gave it
    where the chart says how they enter (``ChartEntry.leaders``, APD 3.6 "Each Leader
    must enter with a unit of his Group"): "along ... (3.8); its 9-2 leader enters with
    a unit of his Group (3.6)"."""
    chart = module.chart(p.side)
    said = chart.entry.leaders if chart is not None and chart.entry is not None else None
    leaders = (p.details or {}).get("leaders") or []
    if said is None or not leaders:
        return p.entry_area
    return f"{p.entry_area}; its {' and '.join(leaders)} {said.says} ({said.rule})"


def _forgo(view: CampaignView, panel: StepPanel) -> None:
    module = view.module
    rule = availability.forgo_rule(module, view.snapshot())
    if rule is not None and panel.can_act:
        allotted = replenished_on_date(view.campaign, view.viewer)
        most = availability.forgo_most(view.snapshot(), allotted)
        panel.forgo = (most, module.side(rule.from_side).name, rule.rule)


def _exchange(view: CampaignView, panel: StepPanel) -> None:
    ex = view.step_def.exchange
    if ex is None:
        return
    own = list(
        Unit.objects.visible_to(view.viewer).filter(campaign=view.campaign, side=view.viewer)
    )

    def lines(flt: UnitFilter) -> tuple[tuple[str, str], ...]:
        return tuple(
            (u.ref, with_state(label(u), ", ".join(u.state_words) + area(u)))
            for u in own
            if matches(flt, state_of(u))
        )

    # Each unit's Setup Area beside it (3.6111, 3.6112 "within the same Setup/"), so a
    # player picks two of one Setup Area; a free Location is not shown here.
    def area(u: Unit) -> str:
        return place_words(view.module, u) if view.module.setup_areas else ""

    gives, marks = lines(ex.gives), lines(ex.marks)
    also = view.step_def.recombining  # Sicily 3.6111 beside 3.6112's Heroes
    panel.recombining = _recombining(also, own, view.module) if also is not None else None
    if ex.recombine:  # PHD C5.21
        panel.exchange = _recombining(ex, own, view.module)
        return
    on_done = (
        f"Done: each of your {describe_filter(ex.gives)} left leaves your forces"
        if marks or ex.kept_status is None
        else f"Done: having no {describe_filter(ex.marks)} to mark, each of your "
        f"{describe_filter(ex.gives)} stays, {Unit.Status(ex.kept_status).label}"
    )
    # A unit marked so earlier in this pass is not offered again (C5.23 via C5.22).
    once = marked_once(view.campaign, view.viewer, ex)
    offered = tuple(m for m in marks if m[0] not in {g[0] for g in gives} | once)
    panel.exchange = ExchangeView(
        gives=gives,
        marks=offered,
        gives_words=describe_filter(ex.gives),
        marks_words=describe_filter(ex.marks),
        status=Unit.Status(ex.status).label,
        rule=ex.rule,
        on_done=f"{on_done} ({ex.rule}).",
        given_up=_given_up(ex, own, gives, offered, Unit.Status(ex.status).label),
    )


def _given_up(
    ex: UnitExchange,
    own: list[Unit],
    gives: tuple[tuple[str, str], ...],
    offered: tuple[tuple[str, str], ...],
    status: str,
) -> tuple[str, ...]:
    """What Done gives up for each unit of ``gives`` still held while units are
    ``offered`` to mark for it (APD 3.2 "for each such eliminated Hero the owning player
    may Battle Harden ... any one MMC"): it leaves without the exchange, and the SW it
    possesses is left unpossessed (3.2 "Transferred to the Battle Hardened MMC": there
    is none).  None where nothing is offered (3.2 EXC: the Hero stays)."""
    marks = {ref for ref, _ in offered}
    names = [u.name for u in own if u.ref in marks]
    if not names:
        return ()
    which = f"the {names[0]}" if len(names) == 1 else f"one of {', '.join(names)}"
    refs = {ref for ref, _ in gives}
    said = []
    for unit in (u for u in own if u.ref in refs):
        held = " and ".join(label(u) for u in own if u.possessor_id == unit.pk)
        sw = f"; the {held} the {unit.name} possesses is then left unpossessed" if held else ""
        said.append(
            f"Your {unit.name} leaves your forces without {which} marked {status} for it, "
            f"which you may still do ({ex.rule}){sw}."
        )
    return tuple(said)


def _recombining(ex: UnitExchange, own: list[Unit], module: Module) -> ExchangeView:
    """Two HS of one line that may recombine (PHD C5.21, Sicily 3.6111): the lines of
    one name held twice, each of the two either; and, where the step says so, two
    half-squad lines forming the squad their owner names (``half_squads``)."""
    by_pk = {u.pk: u for u in own}
    kept: dict[str, list[str]] = {}
    held: dict[str, list[Unit]] = {}
    for u in own:
        if u.possessor_id in by_pk:
            kept.setdefault(by_pk[u.possessor_id].ref, []).append(u.name)
            held.setdefault(by_pk[u.possessor_id].ref, []).append(u)
    # A HS its EXC bars (possessing a MMG/HMG/Lt. MTR/Gun, C5.21 EXC) is not offered (the
    # refusal stays for a forged post); the page says why beside the form.
    bars = {ref: bar for ref, units in held.items() if (bar := recombine_bar(ex, units))}
    free = [u for u in own if u.ref not in bars]
    states = [replace(state_of(u), count=u.count) for u in free]
    all_states = [replace(state_of(u), count=u.count) for u in own]

    def paired(flt: UnitFilter | None, words: str) -> tuple[tuple[str, str], ...]:
        if flt is None:
            return ()
        return tuple(
            (
                u.ref,
                f"{u.name} HS{words}"
                + (f", possessing {', '.join(kept[u.ref])}" if u.ref in kept else "")
                + (
                    f" (in {module.setup_areas.label} {u.location})"
                    if module.setup_areas and u.location
                    else ""
                ),
            )
            for u, pair in zip(free, in_pairs(flt, states), strict=True)
            if pair
        )

    def would_pair(flt: UnitFilter | None) -> set[str]:
        if flt is None:
            return set()
        return {u.ref for u, pair in zip(own, in_pairs(flt, all_states), strict=True) if pair}

    pairing = would_pair(ex.gives) | would_pair(ex.half_squads) if bars else set()
    barred = tuple(
        recombine_bar_words(ex, u, bars[u.ref]) for u in own if u.ref in bars and u.ref in pairing
    )
    halved = paired(ex.half_squads, " (a half-squad line: name the squad two form)")
    gives = paired(ex.gives, "") + halved
    return ExchangeView(
        gives=gives,
        marks=gives,
        gives_words=(
            "HS (squads Casualty Reduced, or half-squad lines) that could recombine: two "
            "of one line"
            if ex.half_squads
            else "HS (squads Casualty Reduced) that could recombine: two of one squad's line"
        ),
        squads=tuple(sorted({u.name for u in own if u.kind == "squad"})) if halved else (),
        name_squad=bool(halved),
        marks_words=describe_filter(ex.marks),
        status=Unit.Status(ex.status).label,
        rule=ex.rule,
        on_done=(
            f"Done: the HS you have not recombined stay as they are: whether two must "
            f"(where they stand) is the map's ({ex.rule})."
        ),
        recombine=True,
        barred=barred,
    )


def _chits(view: CampaignView, panel: StepPanel) -> None:
    module, c, side = view.module, view.campaign, view.viewer
    chits = {
        ch.side: ch
        for ch in InitiativeChit.objects.visible_to(side).filter(campaign=c, cycle=c.cycle)
    }
    chosen = set(view.done)
    panel.chits = [
        ChitView(
            s.name,
            chits[s.id].get_chit_display() if s.id in chits else None,
            s.id in chosen,
        )
        for s in module.sides
    ]
    mine = chits.get(side)
    panel.my_chit = mine.get_chit_display() if mine else None
    panel.opponent_chosen = bool(chosen - {side})
    snap = view.snapshot(chits=len(chosen))
    if mine is None:  # the Attack button is offered: the opponent's roster may forbid it
        snap = with_rosters_read(module, c, snap)
    refusal = availability.chit_refusal(module, snap, "attack")
    panel.attack_allowed = not refusal
    panel.attack_refusal = refusal
    ini = module.initiative
    if (
        mine is None
        and ini is not None
        and availability.chit_by_default(module, module.steps[c.step_index])
    ):
        panel.idle_done = (
            "A side that picks no Attack chit is Idle: your Done locks Idle for you "
            f"({ini.idle_by_default})."
        )
    panel.declares_units = availability.declares_units(module, snap)
    panel.no_on_map_units = view.seat.no_on_map_units
    rule = roster_decides_chit(module, side) if panel.declares_units else ""
    opponent = machine.opponent(module, side)
    if rule and lists_no_unit(module, c, side, seen_by=opponent):
        name = module.side(opponent).name
        panel.roster_empty = (
            f"Your retained forces list no unit on the map the {name} side can see: it "
            f"cannot choose Attack ({rule}){availability.not_entered_words(module)}. "
            "Add the units you hold on the map to your retained forces, or reveal an RG "
            "whose units are on the map."
        )


BUILDERS: dict[Show, Callable[[CampaignView, StepPanel], None]] = {
    Show.RESULT_FIELDS: _result_fields,
    Show.TABLES: _tables,
    Show.ROLLS: _rolls,
    Show.UNITS: _units,
    Show.ARITHMETIC: _arithmetic,
    Show.CHART: _chart,
    Show.MY_PURCHASES: _my_purchases,
    Show.FORTIFICATIONS: _fortifications,
    Show.RECON: _recon,
    Show.RECON_TOTAL: _recon_total,
    Show.ENTRIES: _entries,
    Show.CHITS: _chits,
    Show.FORGO: _forgo,
    Show.EXCHANGE: _exchange,
}
assert set(BUILDERS) == set(Show), "every Show has its one builder"
