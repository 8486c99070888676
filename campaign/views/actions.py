"""Player actions: one decorator for all of them, and one named parser per action.

``player_action`` signs the player in, refuses a non-POST, turns a refusal into its
4xx sentence, and answers.  A page with its socket open (``X-Refit-Live``) gets its
new fragments through the socket, like every other page, in the order of the
campaign's changes; the answer only clears the message area.  A page without a live
socket gets the parts the services said they changed, rendered for its seat.  A
plain form post is redirected.
Each parser reads its form fields and calls one service; the service checks the
seat, the turn and the stale form (``at``).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any
from uuid import UUID

from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed
from django.shortcuts import redirect
from django.urls import reverse

from campaign.fragments import CAMPAIGN_PARTS, ROSTER_PARTS, campaign_fragments, roster_fragments
from campaign.seat_views.campaign_page import campaign_view
from campaign.seat_views.common import member_seat
from campaign.seat_views.roster import roster_view
from campaign.services import (
    conceding,
    corrections,
    hosting,
    initiative,
    messages,
    purchases,
    push,
    steps,
    submissions,
    supplements,
    takebacks,
    units,
)
from campaign.services.errors import ActionRefused
from campaign.services.text import whole_number
from campaign.views.http import refusal
from campaign.views.pages import page_origin
from rules.errors import Refused
from rules.kinds import Action

Parser = Callable[[HttpRequest, UUID, "str | None"], object]
ACTIONS: dict[str, Parser] = {}

LIVE_HEADER = "X-Refit-Live"  # "1": the page's campaign socket is open
PAGE_HEADER = "X-Refit-Page"
ONCE_HEADER = "X-Refit-Once"  # the page's token: the same form posted again is one action
SIGNED_OUT = "You are signed out. Sign in again; nothing was changed."


def action(name: str) -> Callable[[Parser], Parser]:
    def register(parser: Parser) -> Parser:
        ACTIONS[name] = parser
        return parser

    return register


def _post(request: HttpRequest, name: str, default: str = "") -> str:
    value = request.POST.get(name, default)
    return value if isinstance(value, str) else default


def _int(raw: str, what: str) -> int:
    return whole_number(raw, what=what)


# What a post says of the page rather than of the action (the page's drawn parts, which
# a push may change between two clicks of one form; the CSRF token): the page's own
# token stands for it in the key.
PAGE_FIELDS = frozenset({"csrfmiddlewaretoken", "page"})


def _fields(request: HttpRequest) -> list[tuple[str, str]]:
    """The form's fields, in order, as the submission's key reads them."""
    return [
        (name, value)
        for name, values in request.POST.lists()
        if name not in PAGE_FIELDS
        for value in values
    ]


def _typed(request: HttpRequest) -> dict[str, int]:
    typed = {}
    for key, raw in request.POST.items():
        if key.startswith("typed.") and str(raw).strip():
            typed[key.removeprefix("typed.")] = whole_number(raw, what="A typed DRM (e.g. -2)")
    return typed


# --------------------------------------------------------------------------- the decorator


def player_action(run: Callable[..., object]) -> Callable[..., HttpResponse]:
    @wraps(run)
    def view(request: HttpRequest, campaign_id: UUID, **kwargs: Any) -> HttpResponse:
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        if not request.user.is_authenticated:
            if request.htmx:  # type: ignore[attr-defined]
                return refusal(request, Refused(SIGNED_OUT, status=403))
            return redirect(f"{reverse('login')}?next={reverse('campaign', args=[campaign_id])}")
        token = request.headers.get(ONCE_HEADER, "")
        key = submissions.submission_key(token, request.path, _fields(request)) if token else None
        try:
            parts, _ = submissions.act_once(
                campaign_id=campaign_id,
                user_id=request.user.pk,
                key=key,
                run=lambda: run(request, campaign_id, **kwargs),
            )
        except Refused as exc:
            return refusal(request, exc)
        page = request.headers.get(PAGE_HEADER) or request.POST.get("page")
        page = "roster" if page == "roster" else "campaign"
        if not request.htmx:  # type: ignore[attr-defined]
            return redirect(page, campaign_id=campaign_id)
        if request.headers.get(LIVE_HEADER) == "1":
            parts = set()  # the page's socket brings them
        return HttpResponse(_fragments(request, campaign_id, page, parts))

    return view


def _fragments(request: HttpRequest, campaign_id: UUID, page: str, parts: set[push.Part]) -> str:
    """The changed parts of the acting page, for the acting seat, each once; the flash
    area is cleared of any earlier refusal."""
    html = '<div id="flash" hx-swap-oob="true"></div>'
    if page == "roster":
        changed = [p for p in ROSTER_PARTS if p in parts]
        if changed:
            roster = roster_view(member_seat(request.user, campaign_id)[1])
            html += "".join(
                h for _, h in roster_fragments(roster, changed, user=request.user, request=request)
            )
        return html
    changed = [p for p in CAMPAIGN_PARTS if p in parts]
    if changed:
        view = campaign_view(request.user, campaign_id)
        html += "".join(
            h
            for _, h in campaign_fragments(
                view, changed, user=request.user, origin=page_origin(request), request=request
            )
        )
    return html


@player_action
def act(request: HttpRequest, campaign_id: UUID, action: str) -> None:
    """A player's action on the campaign: one parser, one service call."""
    parser = ACTIONS.get(action)
    if parser is None:
        raise ActionRefused("There is no such action.", status=404)
    parser(request, campaign_id, request.POST.get("at"))


@player_action
def unit(request: HttpRequest, campaign_id: UUID) -> None:
    """Add, edit or remove one of the player's own retained units."""
    parser = ACTIONS.get(f"unit-{_post(request, 'do')}")
    if parser is None:
        raise ActionRefused("Add, save or remove a unit or one of its weapons.")
    parser(request, campaign_id, None)


@player_action
def invitation_new(request: HttpRequest, campaign_id: UUID) -> None:
    hosting.regenerate_invitation(campaign_id=campaign_id, host=request.user)


@player_action
def invitation_revoke(request: HttpRequest, campaign_id: UUID) -> None:
    hosting.revoke_invitation(campaign_id=campaign_id, host=request.user)


@player_action
def nudge(request: HttpRequest, campaign_id: UUID) -> None:
    messages.nudge_opponent(campaign_id=campaign_id, user=request.user)


@player_action
def message(request: HttpRequest, campaign_id: UUID) -> None:
    messages.send_message(campaign_id=campaign_id, user=request.user, text=_post(request, "text"))


# --------------------------------------------------------------------------- the parsers


@action(Action.FINISH)
def finish(request: HttpRequest, campaign_id: UUID, at: str | None) -> object:
    return steps.finish_step(
        campaign_id=campaign_id,
        user=request.user,
        at=at,
        through=_post(request, "through"),
        without_data=_post(request, "without") == "data",
    )


@action("take-back")
def take_back(request: HttpRequest, campaign_id: UUID, at: str | None) -> object:
    return steps.take_back_done(campaign_id=campaign_id, user=request.user, at=at)


@action("take-back-ask")
def take_back_ask(request: HttpRequest, campaign_id: UUID, at: str | None) -> object:
    return takebacks.ask_takeback(campaign_id=campaign_id, user=request.user, at=at)


@action("take-back-answer")
def take_back_answer(request: HttpRequest, campaign_id: UUID, at: str | None) -> object:
    return takebacks.answer_takeback(
        campaign_id=campaign_id, user=request.user, at=at, decision=_post(request, "decision")
    )


@action("take-back-result")
def take_back_result(request: HttpRequest, campaign_id: UUID, at: str | None) -> object:
    return takebacks.take_back_result(campaign_id=campaign_id, user=request.user, at=at)


@action("take-back-fortification")
def take_back_fortification(request: HttpRequest, campaign_id: UUID, at: str | None) -> object:
    return takebacks.take_back_fortification(campaign_id=campaign_id, user=request.user, at=at)


@action("correct")
def correct(request: HttpRequest, campaign_id: UUID, at: str | None) -> object:
    return corrections.propose_roll_correction(
        campaign_id=campaign_id,
        user=request.user,
        at=at,
        unit_id=_post(request, "unit"),
        reason=_post(request, "reason"),
        name=_post(request, "name"),
        kind=_post(request, "kind", "other"),
        markers=request.POST.getlist("markers"),
        gone=_post(request, "gone") == "1",
    )


@action("correct-answer")
def correct_answer(request: HttpRequest, campaign_id: UUID, at: str | None) -> object:
    return corrections.answer_roll_correction(
        campaign_id=campaign_id,
        user=request.user,
        at=at,
        ref=_post(request, "correction"),
        decision=_post(request, "decision"),
        reason=_post(request, "reason"),
    )


@action(Action.ROLL)
def roll(request: HttpRequest, campaign_id: UUID, at: str | None) -> object:
    return steps.roll_on_table(
        campaign_id=campaign_id,
        user=request.user,
        at=at,
        table_id=_post(request, "table"),
        item=_post(request, "item"),
        ticked=request.POST.getlist("tick"),
        typed=_typed(request),
        unit_id=request.POST.get("unit") or None,
    )


@action("instead")
def instead(request: HttpRequest, campaign_id: UUID, at: str | None) -> object:
    return steps.take_instead_of_roll(
        campaign_id=campaign_id, user=request.user, at=at, table_id=_post(request, "table")
    )


@action("harden")
def harden(request: HttpRequest, campaign_id: UUID, at: str | None) -> object:
    return steps.harden_mmc(
        campaign_id=campaign_id,
        user=request.user,
        at=at,
        table_id=_post(request, "table"),
        unit_id=_post(request, "unit"),
    )


@action(Action.EXCHANGE)
def exchange(request: HttpRequest, campaign_id: UUID, at: str | None) -> object:
    return units.exchange_unit(
        campaign_id=campaign_id,
        user=request.user,
        at=at,
        give_id=_post(request, "give"),
        mark_id=_post(request, "mark"),
    )


@action(Action.RESULT)
def result(request: HttpRequest, campaign_id: UUID, at: str | None) -> object:
    return steps.enter_scenario_result(
        campaign_id=campaign_id, user=request.user, at=at, values=request.POST.dict()
    )


@action(Action.CONFIRM)
def confirm(request: HttpRequest, campaign_id: UUID, at: str | None) -> object:
    return steps.confirm_scenario_result(campaign_id=campaign_id, user=request.user, at=at)


@action(Action.DISPUTE)
def dispute(request: HttpRequest, campaign_id: UUID, at: str | None) -> object:
    return steps.dispute_scenario_result(
        campaign_id=campaign_id, user=request.user, at=at, reason=_post(request, "reason")
    )


@action("amend")
def amend(request: HttpRequest, campaign_id: UUID, at: str | None) -> object:
    values = request.POST.dict()
    return steps.propose_result_amendment(
        campaign_id=campaign_id,
        user=request.user,
        at=at,
        values=values,
        reason=values.get("reason", ""),
    )


@action("amend-answer")
def amend_answer(request: HttpRequest, campaign_id: UUID, at: str | None) -> object:
    decision = _post(request, "decision")
    if decision not in ("accept", "refuse", "withdraw"):
        raise ActionRefused("Accept, refuse or withdraw the amendment.")
    return steps.answer_result_amendment(
        campaign_id=campaign_id, user=request.user, at=at, accept=decision == "accept"
    )


@action(Action.CHIT)
def chit(request: HttpRequest, campaign_id: UUID, at: str | None) -> object:
    return initiative.lock_initiative(
        campaign_id=campaign_id, user=request.user, at=at, chit=_post(request, "chit")
    )


@action(Action.DECLARE)
def declare(request: HttpRequest, campaign_id: UUID, at: str | None) -> object:
    return initiative.declare_on_map_units(
        campaign_id=campaign_id,
        user=request.user,
        at=at,
        has_units=_post(request, "has_units") == "yes",
    )


@action(Action.BUY)
def buy(request: HttpRequest, campaign_id: UUID, at: str | None) -> object:
    return purchases.purchase_rg(
        campaign_id=campaign_id,
        user=request.user,
        at=at,
        group_id=_post(request, "group"),
        cost_variant=_post(request, "variant"),
    )


@action(Action.CANCEL)
def cancel(request: HttpRequest, campaign_id: UUID, at: str | None) -> object:
    return purchases.cancel_purchase(
        campaign_id=campaign_id, user=request.user, at=at, purchase_id=request.POST.get("purchase")
    )


@action(Action.RG_ROLL)
def rg_roll(request: HttpRequest, campaign_id: UUID, at: str | None) -> object:
    claimed: dict[str, list[str]] = {}
    for value in request.POST.getlist("claim"):
        table_id, _, drm_id = value.partition(":")
        claimed.setdefault(table_id, []).append(drm_id)
    return purchases.roll_for_purchase(
        campaign_id=campaign_id,
        user=request.user,
        at=at,
        purchase_id=request.POST.get("purchase"),
        ticked=claimed,
        entering=_post(request, "entering"),
    )


@action(Action.FORTIFY)
def fortify(request: HttpRequest, campaign_id: UUID, at: str | None) -> object:
    return purchases.buy_fortification(
        campaign_id=campaign_id,
        user=request.user,
        at=at,
        item_id=_post(request, "item"),
        count=_int(_post(request, "count", "1"), "How many"),
        tier=_int(_post(request, "tier", "0"), "Price"),
        figures={
            key.removeprefix("figure."): _int(str(value), "Each figure")
            for key, value in request.POST.items()
            if key.startswith("figure.")
        },
        location=_post(request, "location"),
    )


@action(Action.RECON)
def recon(request: HttpRequest, campaign_id: UUID, at: str | None) -> object:
    return purchases.buy_recon(
        campaign_id=campaign_id,
        user=request.user,
        at=at,
        option=_int(_post(request, "option", "0"), "Recon option"),
        purchase_id=request.POST.get("purchase") or None,
    )


@action(Action.FORGO)
def forgo(request: HttpRequest, campaign_id: UUID, at: str | None) -> object:
    return steps.forgo_points(
        campaign_id=campaign_id,
        user=request.user,
        at=at,
        amount=_int(_post(request, "amount", "0"), "Points to forgo"),
    )


@action("rg-state")
def rg_state(request: HttpRequest, campaign_id: UUID, at: str | None) -> object:
    return purchases.change_rg_state(
        campaign_id=campaign_id,
        user=request.user,
        purchase_id=request.POST.get("purchase"),
        state=_post(request, "state"),
    )


@action("reveal-rg")
def reveal_rg(request: HttpRequest, campaign_id: UUID, at: str | None) -> object:
    return purchases.reveal_purchase(
        campaign_id=campaign_id, user=request.user, purchase_id=request.POST.get("purchase")
    )


@action("entry-area")
def entry_area(request: HttpRequest, campaign_id: UUID, at: str | None) -> object:
    return purchases.record_entry_area(
        campaign_id=campaign_id,
        user=request.user,
        purchase_id=request.POST.get("purchase"),
        entry_area=_post(request, "entry_area"),
        notes=_post(request, "notes"),
        objective_hex=_post(request, "objective_hex"),
    )


@action("supply-accept")
def supply_accept(request: HttpRequest, campaign_id: UUID, at: str | None) -> object:
    return supplements.accept_supplement(
        campaign_id=campaign_id, user=request.user, ref=_post(request, "supplement")
    )


@action("supply-refuse")
def supply_refuse(request: HttpRequest, campaign_id: UUID, at: str | None) -> object:
    return supplements.refuse_supplement(
        campaign_id=campaign_id,
        user=request.user,
        ref=_post(request, "supplement"),
        reason=_post(request, "reason"),
    )


@action("supply-withdraw")
def supply_withdraw(request: HttpRequest, campaign_id: UUID, at: str | None) -> object:
    return supplements.withdraw_supplement(
        campaign_id=campaign_id, user=request.user, ref=_post(request, "supplement")
    )


@action("supply-takeback")
def supply_takeback(request: HttpRequest, campaign_id: UUID, at: str | None) -> object:
    return supplements.propose_supplement_takeback(
        campaign_id=campaign_id, user=request.user, path=_post(request, "path")
    )


@action("sheet-accept")
def sheet_accept(request: HttpRequest, campaign_id: UUID, at: str | None) -> object:
    return supplements.accept_start_sheet(
        campaign_id=campaign_id, user=request.user, package=_post(request, "package")
    )


@action("sheet-refuse")
def sheet_refuse(request: HttpRequest, campaign_id: UUID, at: str | None) -> object:
    return supplements.refuse_start_sheet(
        campaign_id=campaign_id,
        user=request.user,
        package=_post(request, "package"),
        reason=_post(request, "reason"),
    )


@action("sheet-withdraw")
def sheet_withdraw(request: HttpRequest, campaign_id: UUID, at: str | None) -> object:
    return supplements.withdraw_start_sheet(
        campaign_id=campaign_id, user=request.user, package=_post(request, "package")
    )


@action("concede")
def concede(request: HttpRequest, campaign_id: UUID, at: str | None) -> object:
    return conceding.concede_campaign(
        campaign_id=campaign_id,
        user=request.user,
        confirmed=_post(request, "confirm") == "concede",
    )


@action("unit-add")
def unit_add(request: HttpRequest, campaign_id: UUID, at: str | None) -> object:
    return units.add_unit(
        campaign_id=campaign_id,
        user=request.user,
        name=_post(request, "name"),
        location=_post(request, "location"),
        kind=_post(request, "kind", "other"),
        number=_post(request, "count", "1"),
        markers=request.POST.getlist("markers"),
    )


@action("unit-save")
def unit_save(request: HttpRequest, campaign_id: UUID, at: str | None) -> object:
    return units.update_unit(
        campaign_id=campaign_id,
        user=request.user,
        unit_id=request.POST.get("unit"),
        name=_post(request, "name"),
        location=_post(request, "location"),
        kind=request.POST.get("kind"),
        number=request.POST.get("count"),
        markers=request.POST.getlist("markers") if "markers-shown" in request.POST else None,
        possessor=request.POST.get("possessor"),
    )


@action("unit-weapon-add")
def unit_weapon_add(request: HttpRequest, campaign_id: UUID, at: str | None) -> object:
    return units.add_weapon(
        campaign_id=campaign_id,
        user=request.user,
        unit_id=request.POST.get("unit"),
        kind=_post(request, "weapon_kind"),
        name=_post(request, "weapon_name"),
        markers=request.POST.getlist("weapon_markers"),
    )


@action("unit-weapon-save")
def unit_weapon_save(request: HttpRequest, campaign_id: UUID, at: str | None) -> object:
    return units.update_weapon(
        campaign_id=campaign_id,
        user=request.user,
        unit_id=request.POST.get("unit"),
        weapon_id=request.POST.get("weapon"),
        name=_post(request, "weapon_name"),
        markers=request.POST.getlist("weapon_markers"),
    )


@action("unit-weapon-exchange")
def unit_weapon_exchange(request: HttpRequest, campaign_id: UUID, at: str | None) -> object:
    return units.exchange_weapon(
        campaign_id=campaign_id,
        user=request.user,
        unit_id=request.POST.get("unit"),
        weapon_id=request.POST.get("weapon"),
        give_id=request.POST.get("give"),
    )


@action("unit-weapon-remove")
def unit_weapon_remove(request: HttpRequest, campaign_id: UUID, at: str | None) -> object:
    return units.remove_weapon(
        campaign_id=campaign_id,
        user=request.user,
        unit_id=request.POST.get("unit"),
        weapon_id=request.POST.get("weapon"),
    )


@action("unit-remove")
def unit_remove(request: HttpRequest, campaign_id: UUID, at: str | None) -> object:
    return units.remove_unit(
        campaign_id=campaign_id, user=request.user, unit_id=request.POST.get("unit")
    )
