"""Player actions: one decorator for all of them, and one declaration per action.

``player_action`` signs the player in, refuses a non-POST, turns a refusal into its
4xx sentence, and answers.  A page with its socket open (``X-Refit-Live``) gets its
new fragments through the socket, like every other page, in the order of the
campaign's changes; the answer only clears the message area.  A page without a live
socket gets the parts the services said they changed, rendered for its seat.  A
plain form post is redirected.

Each action is declared once (``DECLARED``): its name (``Act``), its typed input (a
frozen dataclass whose fields say which form field each reads and how:
``campaign.views.inputs``) and the one service it calls with that input.  No action
parses its form by hand; the service checks the seat, the turn and the stale form
(``at``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from functools import wraps
from typing import Any
from uuid import UUID

from django.http import HttpResponse, HttpResponseNotAllowed
from django.shortcuts import redirect
from django.urls import reverse

from campaign.changes import Change
from campaign.live_pages import LivePage, page_named
from campaign.services import (
    captures,
    conceding,
    corrections,
    fortification_areas,
    hosting,
    initiative,
    messages,
    purchases,
    steps,
    submissions,
    supplements,
    takebacks,
    units,
)
from campaign.services.errors import ActionRefused
from campaign.views import inputs
from campaign.views.http import HtmxHttpRequest, refusal
from campaign.views.pages import page_origin
from rules.errors import Refused
from rules.kinds import Action

LIVE_HEADER = "X-Refit-Live"  # "1": the page's campaign socket is open
PAGE_HEADER = "X-Refit-Page"
ONCE_HEADER = "X-Refit-Once"  # the page's token: the same form posted again is one action
SIGNED_OUT = "You are signed out. Sign in again; nothing was changed."


class Act(StrEnum):
    """Every action a player posts: the engine's (``rules.kinds.Action``, what a step
    allows) and the app's own (take-backs, corrections, supplied data, units...)."""

    FINISH = Action.FINISH
    ROLL = Action.ROLL
    RESULT = Action.RESULT
    CONFIRM = Action.CONFIRM
    DISPUTE = Action.DISPUTE
    CHIT = Action.CHIT
    DECLARE = Action.DECLARE
    BUY = Action.BUY
    CANCEL = Action.CANCEL
    RG_ROLL = Action.RG_ROLL
    FORTIFY = Action.FORTIFY
    RECON = Action.RECON
    FORGO = Action.FORGO
    EXCHANGE = Action.EXCHANGE
    TAKE_BACK = "take-back"
    TAKE_BACK_ASK = "take-back-ask"
    TAKE_BACK_ANSWER = "take-back-answer"
    TAKE_BACK_RESULT = "take-back-result"
    TAKE_BACK_FORTIFICATION = "take-back-fortification"
    TAKE_BACK_CHIT = "take-back-chit"
    CORRECT = "correct"
    CORRECT_ANSWER = "correct-answer"
    INSTEAD = "instead"
    HARDEN = "harden"
    REDUCE = "reduce-mmc"
    AMEND = "amend"
    AMEND_ANSWER = "amend-answer"
    RG_STATE = "rg-state"
    REVEAL_RG = "reveal-rg"
    ENTRY_AREA = "entry-area"
    SUPPLY_ACCEPT = "supply-accept"
    SUPPLY_REFUSE = "supply-refuse"
    SUPPLY_WITHDRAW = "supply-withdraw"
    SUPPLY_TAKEBACK = "supply-takeback"
    SHEET_ACCEPT = "sheet-accept"
    SHEET_REFUSE = "sheet-refuse"
    SHEET_WITHDRAW = "sheet-withdraw"
    CONCEDE = "concede"
    UNIT_ADD = "unit-add"
    UNIT_SAVE = "unit-save"
    UNIT_WEAPON_ADD = "unit-weapon-add"
    UNIT_WEAPON_SAVE = "unit-weapon-save"
    UNIT_WEAPON_EXCHANGE = "unit-weapon-exchange"
    UNIT_WEAPON_REMOVE = "unit-weapon-remove"
    UNIT_REMANN = "unit-remann"
    UNIT_ABANDON = "unit-abandon"
    UNIT_REMOVE = "unit-remove"
    UNIT_PUT_BACK = "unit-put-back"
    UNIT_REVEAL = "unit-reveal"
    SETUP_AREAS = "setup-areas"
    # Sicily 3.6071: the enemy's Equipment in one's Setup Area Captured or Eliminated.
    AREA_CAPTURE = "area-capture"
    AREA_ELIMINATE = "area-eliminate"
    AREA_GIVE_BACK = "area-give-back"
    # Sicily 3.6073: where a hidden Fortification lies, stated by its owner at 3.605.
    FORTIFICATION_AREA = "fortification-area"
    ADD_LATER = "add-later"
    CANCEL_ADDED_LATER = "cancel-added-later"
    # Posted to URLs of their own, not to ``act/<action>/``.
    INVITATION_NEW = "invitation-new"
    INVITATION_REVOKE = "invitation-revoke"
    NUDGE = "nudge"
    MESSAGE = "message"
    MESSAGES_SEEN = "messages-seen"


@dataclass(frozen=True)
class Declared:
    """One action: its name, its typed input and its service.  ``at``: the service
    takes the form's position token (a step's form, refused once the campaign has
    moved on); ``player``: the keyword the service names the acting user by;
    ``own_url``: posted to a URL of its own, not to ``act/<action>/``."""

    name: Act
    input: type[Any]
    service: Callable[..., object]
    at: bool = True
    player: str = "user"
    own_url: bool = False

    def perform(self, request: HtmxHttpRequest, campaign_id: UUID) -> object:
        given = inputs.read(self.input, request.POST)
        if self.at:
            given["at"] = request.POST.get("at")
        return self.service(campaign_id=campaign_id, **{self.player: request.user}, **given)


# What a post says of the page rather than of the action (the page's drawn parts, which
# a push may change between two clicks of one form; the CSRF token): the page's own
# token stands for it in the key.
PAGE_FIELDS = frozenset({"csrfmiddlewaretoken", "page"})


def _fields(request: HtmxHttpRequest) -> list[tuple[str, str]]:
    """The form's fields, in order, as the submission's key reads them."""
    return [
        (name, value)
        for name, values in request.POST.lists()
        if name not in PAGE_FIELDS
        for value in values
    ]


# --------------------------------------------------------------------------- the decorator


def player_action(run: Callable[..., object]) -> Callable[..., HttpResponse]:
    @wraps(run)
    def view(request: HtmxHttpRequest, campaign_id: UUID, **kwargs: Any) -> HttpResponse:
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        if not request.user.is_authenticated:
            if request.htmx:
                return refusal(request, Refused(SIGNED_OUT, status=403))
            return redirect(f"{reverse('login')}?next={reverse('campaign', args=[campaign_id])}")
        token = request.headers.get(ONCE_HEADER, "")
        key = submissions.submission_key(token, request.path, _fields(request)) if token else None
        try:
            changes, _ = submissions.act_once(
                campaign_id=campaign_id,
                user_id=request.user.pk,
                key=key,
                run=lambda: run(request, campaign_id, **kwargs),
            )
        except Refused as exc:
            return refusal(request, exc)
        page = page_named(request.headers.get(PAGE_HEADER) or request.POST.get("page"))
        if not request.htmx:
            return redirect(page.name, campaign_id=campaign_id)
        if request.headers.get(LIVE_HEADER) == "1":
            changes = []  # the page's socket brings them
        return HttpResponse(_fragments(request, campaign_id, page, changes))

    return view


def _fragments(
    request: HtmxHttpRequest, campaign_id: UUID, page: LivePage, changes: list[Change]
) -> str:
    """The parts of the acting page the action's changes touch (the page registry
    says which), for the acting seat, each once; the flash area is cleared of any
    earlier refusal."""
    html = '<div id="flash" hx-swap-oob="true"></div>'
    if not page.touched(changes):
        return html
    view = page.seat_view(request.user, campaign_id)
    fragments = page.render(
        view, changes, user=request.user, origin=page_origin(request), request=request
    )
    return html + "".join(h for _, h in fragments)


# --------------------------------------------------------------------------- the views


def _declared(name: str, *, own_url: bool = False) -> Declared:
    declared = (OWN_URL if own_url else ACTIONS).get(name)
    if declared is None:
        raise ActionRefused("There is no such action.", status=404)
    return declared


@player_action
def act(request: HtmxHttpRequest, campaign_id: UUID, action: str) -> None:
    """A player's action on the campaign: its declaration read, its service called."""
    _declared(action).perform(request, campaign_id)


@player_action
def unit(request: HtmxHttpRequest, campaign_id: UUID) -> None:
    """Add, edit or remove one of the player's own retained units (``do``: which)."""
    declared = ACTIONS.get(f"unit-{inputs.read(_Unit, request.POST)['do']}")
    if declared is None:
        raise ActionRefused("Add, save, remove, put back or reveal a unit, or one of its weapons.")
    declared.perform(request, campaign_id)


def _own_view(name: Act) -> Callable[..., HttpResponse]:
    @player_action
    def view(request: HtmxHttpRequest, campaign_id: UUID) -> None:
        _declared(name, own_url=True).perform(request, campaign_id)

    view.__name__ = view.__qualname__ = name.replace("-", "_")
    return view


# --------------------------------------------------------------------------- the inputs
# One frozen dataclass per action that reads its form: each field is the service's
# keyword, declared with the form field it reads (``campaign.views.inputs``).


@dataclass(frozen=True)
class _Nothing:
    """An action whose form says nothing but what it is (and its ``at``)."""


@dataclass(frozen=True)
class _Unit:
    do: str = inputs.text("do")


@dataclass(frozen=True)
class Finish:
    through: str = inputs.text("through")
    without_data: bool = inputs.flag("without", "data")


@dataclass(frozen=True)
class Decision:
    decision: str = inputs.text("decision")


@dataclass(frozen=True)
class Correct:
    unit_id: str = inputs.text("unit")
    reason: str = inputs.text("reason")
    name: str = inputs.text("name")
    kind: str = inputs.text("kind", "other")
    markers: list[str] = inputs.many("markers")
    gone: bool = inputs.flag("gone", "1")


@dataclass(frozen=True)
class CorrectAnswer:
    ref: str = inputs.text("correction")
    decision: str = inputs.text("decision")
    reason: str = inputs.text("reason")


@dataclass(frozen=True)
class Roll:
    table_id: str = inputs.text("table")
    item: str = inputs.text("item")
    ticked: list[str] = inputs.many("tick")
    typed: dict[str, int] = inputs.numbers("typed.", "A typed DRM (e.g. -2)", skip_blank=True)
    unit_id: str | None = inputs.optional("unit", blank=False)
    stack: list[str] = inputs.many("stack")
    recorded_gone: bool = inputs.flag("gone", "yes")


@dataclass(frozen=True)
class Table:
    table_id: str = inputs.text("table")


@dataclass(frozen=True)
class Instead:
    table_id: str = inputs.text("table")
    mmc_id: str = inputs.text("mmc")


@dataclass(frozen=True)
class Harden:
    """One MMC named after a roll on a table (Battle Hardened, C5.23; Casualty Reduced,
    C5.28 note 2)."""

    table_id: str = inputs.text("table")
    unit_id: str = inputs.text("unit")


@dataclass(frozen=True)
class Exchange:
    give_id: str = inputs.text("give")
    mark_id: str = inputs.text("mark")
    recombine: str = inputs.text("recombine")  # the step's HS recombining (Sicily 3.6111)
    forms: str = inputs.text("forms")  # the squad two half-squad lines form (PHD C5.21)


@dataclass(frozen=True)
class Result:
    values: dict[str, str] = inputs.whole_form()


@dataclass(frozen=True)
class Reason:
    reason: str = inputs.text("reason")


@dataclass(frozen=True)
class Amend:
    values: dict[str, str] = inputs.whole_form()
    reason: str = inputs.text("reason")


@dataclass(frozen=True)
class AmendAnswer:
    accept: bool = inputs.choice(
        "decision",
        {"accept": True, "refuse": False, "withdraw": False},
        "Accept, refuse or withdraw the amendment.",
    )


@dataclass(frozen=True)
class Chit:
    chit: str = inputs.text("chit")


@dataclass(frozen=True)
class Declare:
    has_units: bool = inputs.flag("has_units", "yes")


@dataclass(frozen=True)
class Buy:
    group_id: str = inputs.text("group")
    cost_variant: str = inputs.text("variant")
    recorded_hex: str = inputs.text("hex")


@dataclass(frozen=True)
class OnePurchase:
    purchase_id: str | None = inputs.optional("purchase")


@dataclass(frozen=True)
class AddLater:
    purchase_id: str | None = inputs.optional("purchase")
    item: str = inputs.text("item")
    affirmed: bool = inputs.flag("affirmed", "yes")


@dataclass(frozen=True)
class AddedLaterCancel:
    purchase_id: str | None = inputs.optional("purchase")
    item: str = inputs.text("item")


@dataclass(frozen=True)
class RgRoll:
    purchase_id: str | None = inputs.optional("purchase")
    ticked: dict[str, list[str]] = inputs.pairs("claim")
    entering: str = inputs.text("entering")


@dataclass(frozen=True)
class Fortify:
    item_id: str = inputs.text("item")
    count: int = inputs.number("count", "How many", "1")
    tier: int = inputs.number("tier", "Price", "0")
    figures: dict[str, int] = inputs.numbers("figure.", "Each figure")
    location: str = inputs.text("location")


@dataclass(frozen=True)
class Recon:
    option: int = inputs.number("option", "Recon option", "0")
    purchase_id: str | None = inputs.optional("purchase", blank=False)


@dataclass(frozen=True)
class Forgo:
    amount: int = inputs.number("amount", "Points to forgo", "0")


@dataclass(frozen=True)
class RgState:
    purchase_id: str | None = inputs.optional("purchase")
    state: str = inputs.text("state")


@dataclass(frozen=True)
class EntryArea:
    purchase_id: str | None = inputs.optional("purchase")
    entry_area: str = inputs.text("entry_area")
    notes: str = inputs.text("notes")
    objective_hex: str = inputs.text("objective_hex")
    recorded_hex: str = inputs.text("recorded_hex")


@dataclass(frozen=True)
class Supplement:
    ref: str = inputs.text("supplement")


@dataclass(frozen=True)
class SupplementRefusal:
    ref: str = inputs.text("supplement")
    reason: str = inputs.text("reason")


@dataclass(frozen=True)
class SupplementPath:
    path: str = inputs.text("path")


@dataclass(frozen=True)
class Package:
    package: str = inputs.text("package")


@dataclass(frozen=True)
class PackageRefusal:
    package: str = inputs.text("package")
    reason: str = inputs.text("reason")


@dataclass(frozen=True)
class Concede:
    confirmed: bool = inputs.flag("confirm", "concede")


@dataclass(frozen=True)
class UnitAdd:
    name: str = inputs.text("name")
    location: str = inputs.text("location")
    kind: str = inputs.text("kind", "other")
    number: str = inputs.text("count", "1")
    markers: list[str] = inputs.many("markers")


@dataclass(frozen=True)
class UnitSave:
    unit_id: str | None = inputs.optional("unit")
    name: str = inputs.text("name")
    location: str = inputs.text("location")
    kind: str | None = inputs.optional("kind")
    number: str | None = inputs.optional("count")
    markers: list[str] | None = inputs.many("markers", shown="markers-shown")
    possessor: str | None = inputs.optional("possessor")


@dataclass(frozen=True)
class SetupAreaIds:
    areas: str = inputs.text("areas")


@dataclass(frozen=True)
class FortificationArea:
    fortification_id: str = inputs.text("fortification")
    area: str = inputs.text("area")
    count: int = inputs.number("count", "How many of them", "0")


@dataclass(frozen=True)
class OneUnit:
    unit_id: str | None = inputs.optional("unit")


@dataclass(frozen=True)
class UnitRemove:
    unit_id: str | None = inputs.optional("unit")
    # Eliminated at this step (its CVP count, PHD C5.1) or, the default, a correction.
    eliminated: bool = inputs.flag("loss", "eliminated")


@dataclass(frozen=True)
class WeaponAdd:
    unit_id: str | None = inputs.optional("unit")
    kind: str = inputs.text("weapon_kind")
    name: str = inputs.text("weapon_name")
    markers: list[str] = inputs.many("weapon_markers")


@dataclass(frozen=True)
class WeaponSave:
    unit_id: str | None = inputs.optional("unit")
    weapon_id: str | None = inputs.optional("weapon")
    name: str = inputs.text("weapon_name")
    markers: list[str] = inputs.many("weapon_markers")


@dataclass(frozen=True)
class WeaponExchange:
    unit_id: str | None = inputs.optional("unit")
    weapon_id: str | None = inputs.optional("weapon")
    give_id: str | None = inputs.optional("give")


@dataclass(frozen=True)
class Remann:
    unit_id: str | None = inputs.optional("unit")
    by_id: str | None = inputs.optional("by")


@dataclass(frozen=True)
class OneWeapon:
    unit_id: str | None = inputs.optional("unit")
    weapon_id: str | None = inputs.optional("weapon")


@dataclass(frozen=True)
class Message:
    text: str = inputs.text("text")


# --------------------------------------------------------------------------- the actions

DECLARED: dict[Act, Declared] = {
    d.name: d
    for d in (
        Declared(Act.FINISH, Finish, steps.finish_step),
        Declared(Act.TAKE_BACK, _Nothing, steps.take_back_done),
        Declared(Act.TAKE_BACK_ASK, _Nothing, takebacks.ask_takeback),
        Declared(Act.TAKE_BACK_ANSWER, Decision, takebacks.answer_takeback),
        Declared(Act.TAKE_BACK_RESULT, _Nothing, takebacks.take_back_result),
        Declared(Act.TAKE_BACK_FORTIFICATION, _Nothing, takebacks.take_back_fortification),
        Declared(Act.CORRECT, Correct, corrections.propose_roll_correction),
        Declared(Act.CORRECT_ANSWER, CorrectAnswer, corrections.answer_roll_correction),
        Declared(Act.ROLL, Roll, steps.roll_on_table),
        Declared(Act.INSTEAD, Instead, steps.take_instead_of_roll),
        Declared(Act.HARDEN, Harden, steps.harden_mmc),
        Declared(Act.REDUCE, Harden, steps.reduce_mmc),
        Declared(Act.EXCHANGE, Exchange, units.exchange_unit),
        Declared(Act.RESULT, Result, steps.enter_scenario_result),
        Declared(Act.CONFIRM, _Nothing, steps.confirm_scenario_result),
        Declared(Act.DISPUTE, Reason, steps.dispute_scenario_result),
        Declared(Act.AMEND, Amend, steps.propose_result_amendment),
        Declared(Act.AMEND_ANSWER, AmendAnswer, steps.answer_result_amendment),
        Declared(Act.CHIT, Chit, initiative.lock_initiative),
        Declared(Act.TAKE_BACK_CHIT, _Nothing, initiative.take_back_chit),
        Declared(Act.DECLARE, Declare, initiative.declare_on_map_units),
        Declared(Act.BUY, Buy, purchases.purchase_rg),
        Declared(Act.CANCEL, OnePurchase, purchases.cancel_purchase),
        Declared(Act.RG_ROLL, RgRoll, purchases.roll_for_purchase),
        Declared(Act.ADD_LATER, AddLater, purchases.buy_added_later),
        Declared(Act.CANCEL_ADDED_LATER, AddedLaterCancel, purchases.cancel_added_later),
        Declared(Act.FORTIFY, Fortify, purchases.buy_fortification),
        Declared(Act.RECON, Recon, purchases.buy_recon),
        Declared(Act.FORGO, Forgo, steps.forgo_points),
        Declared(Act.RG_STATE, RgState, purchases.change_rg_state, at=False),
        Declared(Act.REVEAL_RG, OnePurchase, purchases.reveal_purchase, at=False),
        Declared(Act.ENTRY_AREA, EntryArea, purchases.record_entry_area, at=False),
        Declared(Act.SUPPLY_ACCEPT, Supplement, supplements.accept_supplement, at=False),
        Declared(Act.SUPPLY_REFUSE, SupplementRefusal, supplements.refuse_supplement, at=False),
        Declared(Act.SUPPLY_WITHDRAW, Supplement, supplements.withdraw_supplement, at=False),
        Declared(
            Act.SUPPLY_TAKEBACK,
            SupplementPath,
            supplements.propose_supplement_takeback,
            at=False,
        ),
        Declared(Act.SHEET_ACCEPT, Package, supplements.accept_start_sheet, at=False),
        Declared(Act.SHEET_REFUSE, PackageRefusal, supplements.refuse_start_sheet, at=False),
        Declared(Act.SHEET_WITHDRAW, Package, supplements.withdraw_start_sheet, at=False),
        Declared(Act.CONCEDE, Concede, conceding.concede_campaign, at=False),
        Declared(Act.UNIT_ADD, UnitAdd, units.add_unit, at=False),
        Declared(Act.UNIT_SAVE, UnitSave, units.update_unit, at=False),
        Declared(Act.UNIT_WEAPON_ADD, WeaponAdd, units.add_weapon, at=False),
        Declared(Act.UNIT_WEAPON_SAVE, WeaponSave, units.update_weapon, at=False),
        Declared(Act.UNIT_WEAPON_EXCHANGE, WeaponExchange, units.exchange_weapon, at=False),
        Declared(Act.UNIT_WEAPON_REMOVE, OneWeapon, units.remove_weapon, at=False),
        Declared(Act.UNIT_REMANN, Remann, units.remann_vehicle, at=False),
        Declared(Act.UNIT_ABANDON, OneUnit, units.abandon_vehicle, at=False),
        Declared(Act.UNIT_REMOVE, UnitRemove, units.remove_unit, at=False),
        Declared(Act.UNIT_PUT_BACK, OneUnit, units.put_back_unit, at=False),
        Declared(Act.UNIT_REVEAL, OneUnit, units.reveal_unit, at=False),
        Declared(Act.SETUP_AREAS, SetupAreaIds, units.record_setup_areas),
        Declared(Act.AREA_CAPTURE, OneUnit, captures.choose_capture),
        Declared(Act.AREA_ELIMINATE, OneUnit, captures.choose_elimination),
        Declared(Act.AREA_GIVE_BACK, OneUnit, captures.give_back),
        Declared(Act.FORTIFICATION_AREA, FortificationArea, fortification_areas.state_area),
        Declared(
            Act.INVITATION_NEW,
            _Nothing,
            hosting.regenerate_invitation,
            at=False,
            player="host",
            own_url=True,
        ),
        Declared(
            Act.INVITATION_REVOKE,
            _Nothing,
            hosting.revoke_invitation,
            at=False,
            player="host",
            own_url=True,
        ),
        Declared(Act.NUDGE, _Nothing, messages.nudge_opponent, at=False, own_url=True),
        Declared(Act.MESSAGE, Message, messages.send_message, at=False, own_url=True),
        Declared(Act.MESSAGES_SEEN, _Nothing, messages.mark_messages_seen, at=False, own_url=True),
    )
}
# The actions posted to ``act/<action>/`` (the units form's too, by its ``do``).
ACTIONS: dict[str, Declared] = {str(n): d for n, d in DECLARED.items() if not d.own_url}
OWN_URL: dict[str, Declared] = {str(n): d for n, d in DECLARED.items() if d.own_url}

invitation_new = _own_view(Act.INVITATION_NEW)
invitation_revoke = _own_view(Act.INVITATION_REVOKE)
nudge = _own_view(Act.NUDGE)
message = _own_view(Act.MESSAGE)
messages_seen = _own_view(Act.MESSAGES_SEEN)
