"""Takebacks: a side withdraws its last action until the opponent has acted on it, and
afterwards by a request the opponent accepts or refuses.

What a side may take back by itself: its Done (``steps.take_back_done``), a purchase
(``purchases.cancel_purchase``), its initiative chit until the opponent locks his
(``initiative.take_back_chit``), a datum it supplied (``supplements.withdraw_*``),
and here its last fortification at the fortification step and the scenario result it
entered, while the opponent has not confirmed it.  A Done the opponent has acted on is
taken back by a request (``ask_takeback``) that the opponent answers
(``answer_takeback``); a result the opponent confirmed is amended by consent
(``steps.propose_result_amendment``).  What the rules make final stays final: dice
rolled and revealed chits, points forfeit when a step ends.

Every takeback is logged for both players in words that say what it undid, except a
secret one (a fortification not yet revealed), which only its side reads: the
opponent's pages, log and answers are exactly as if it had never been bought.
"""

from __future__ import annotations

from django.db import transaction

from campaign.changes import PurchaseCancelled, ResultTakenBack, TakebackAnswered, TakebackAsked
from campaign.models import EventKind, FortificationBuy, ScenarioResult, StepMark
from campaign.selectors import done_by_own_click, position_token
from campaign.services.errors import ActionRefused
from campaign.services.turns import Turn, User, expect_turn, take_turn
from campaign.services.waiting import update_waiting
from campaign.services.writes import commit
from campaign.visibility import FORTIFICATION
from rules import availability, machine
from rules.kinds import Action, kind_of


def done_request(at: str) -> str:
    """A seat's open request to take back its Done at the position ``at`` (a request
    made at an earlier step or pass has lapsed: it names another position)."""
    return f"done@{at}"


def _asked_here(turn: Turn, side: str) -> bool:
    """Whether ``side`` has an open request to take back its Done at the current step."""
    return turn.seats[side].takeback_asked == done_request(position_token(turn.campaign))


def _withdraw_done(turn: Turn, side: str) -> None:
    """``side`` is no longer done with the current step (nor the steps it finished
    with it): the step waits for it again."""
    c = turn.campaign
    StepMark.objects.filter(
        campaign=c, cycle=c.cycle, side=side, step_index__gte=c.step_index
    ).delete()
    turn.forget_done()


@transaction.atomic
def ask_takeback(*, campaign_id: object, user: User, at: str | None = None) -> None:
    """Ask the opponent to let the side take back its Done at the current step, which
    the opponent has acted on since (so the side may not take it back by itself)."""
    turn = take_turn(campaign_id, user, at)
    c, step, seat = turn.campaign, turn.step, turn.seat
    where = f"{step.id} {step.title}"
    refusal = availability.take_back_refusal(
        turn.module,
        turn.snapshot(),
        step,
        opponent_acted=False,
        by_done=done_by_own_click(c, turn.side),
    )
    if refusal:
        raise ActionRefused(refusal, status=409)
    if _asked_here(turn, turn.side):
        raise ActionRefused(
            f"You have asked to take back your Done at {where}: your opponent is to answer.",
            status=409,
        )
    other = machine.opponent(turn.module, turn.side)
    seat.takeback_asked = done_request(position_token(c))
    turn.record(
        EventKind.TAKEBACK,
        text=f"{turn.side_name()} asks to take back its Done at {where}; "
        f"{turn.side_name(other)} is to accept or refuse.",
    )
    commit(c.pk, TakebackAsked(), saving=[(seat, "takeback_asked")])


@transaction.atomic
def answer_takeback(
    *, campaign_id: object, user: User, decision: str, at: str | None = None
) -> None:
    """The opponent accepts the request (the asking side's Done is withdrawn: the step
    waits for it again) or refuses it (the Done stands); the asking side may withdraw
    its request."""
    if decision not in ("accept", "refuse", "withdraw"):
        raise ActionRefused("Accept, refuse or withdraw the takeback request.")
    turn = take_turn(campaign_id, user, at)
    c, step = turn.campaign, turn.step
    where = f"{step.id} {step.title}"
    other = machine.opponent(turn.module, turn.side)
    asker = turn.side if decision == "withdraw" else other
    if not _asked_here(turn, asker):
        raise ActionRefused(
            "You have no takeback request open."
            if decision == "withdraw"
            else "Your opponent has no takeback request open.",
            status=409,
        )
    seat = turn.seats[asker]
    seat.takeback_asked = ""
    writes = [(seat, "takeback_asked")]
    if decision == "accept":
        if asker not in turn.done:
            raise ActionRefused(f"Your opponent is not done with {where}.", status=409)
        _withdraw_done(turn, asker)
        turn.record(
            EventKind.TAKEBACK,
            text=f"{turn.side_name()} accepts: {turn.side_name(asker)} takes back its Done "
            f"at {where}; the step waits for it again.",
        )
        writes += update_waiting(turn)
    elif decision == "refuse":
        turn.record(
            EventKind.TAKEBACK,
            text=f"{turn.side_name()} refuses {turn.side_name(asker)}'s takeback: its Done at "
            f"{where} stands.",
        )
    else:
        turn.record(
            EventKind.TAKEBACK,
            text=f"{turn.side_name()} withdraws its request to take back its Done at {where}.",
        )
    commit(c.pk, TakebackAnswered(), saving=writes)


@transaction.atomic
def take_back_result(*, campaign_id: object, user: User, at: str | None = None) -> None:
    """The side that entered the scenario result withdraws it before the opponent has
    confirmed or disputed it: the step waits for a result again."""
    turn = take_turn(campaign_id, user, at)
    c = turn.campaign
    if Action.RESULT not in kind_of(turn.step.kind).actions:
        raise ActionRefused("No scenario result is entered at this step.", status=409)
    result = ScenarioResult.objects.filter(campaign=c, cycle=c.cycle).first()
    if result is None or result.confirmed_at is not None:
        raise ActionRefused("There is no entered result to take back.", status=409)
    if result.entered_by != turn.side:
        raise ActionRefused(
            "Your opponent entered this result: confirm it, or dispute it with the reason.",
            status=409,
        )
    StepMark.objects.filter(campaign=c, cycle=c.cycle, step_index=c.step_index).delete()
    result.delete()
    turn.forget_done()
    turn.record(
        EventKind.TAKEBACK,
        text=f"{turn.side_name()} takes back the scenario result it entered; "
        "it is to be entered again.",
        data={"cycle": c.cycle, "taken_back": result.data},
    )
    commit(c.pk, ResultTakenBack(), saving=update_waiting(turn))


@transaction.atomic
def take_back_fortification(*, campaign_id: object, user: User, at: str | None = None) -> None:
    """The side withdraws the last fortification it bought at this fortification step
    (not yet revealed): its points come back.  A secret of the side: its log line is
    its own, and the opponent hears of nothing."""
    turn = take_turn(campaign_id, user, at)
    expect_turn(turn, Action.FORTIFY)
    c, seat = turn.campaign, turn.seat
    forts = turn.module.fortifications
    last = (
        FortificationBuy.objects.select_for_update()
        .filter(campaign=c, side=turn.side, date_index=c.date_index, revealed_at__isnull=True)
        .order_by("-id")
        .first()
    )
    if last is None or forts is None:
        raise ActionRefused("You have bought no fortification here to take back.", status=409)
    item = next((i for i in forts.items if i.id == last.item_id), None)
    label = item.label if item else last.item_id
    seat.fortification_points += last.cost
    last.delete()
    kept = FORTIFICATION.kept(turn.side)
    turn.record(
        EventKind.TAKEBACK,
        secret=kept,
        text=f"{turn.side_name()} takes back its {last.count} × {label}"
        + (f" ({last.tier})" if last.tier else "")
        + f"; {last.cost} {forts.currency} refunded.",
    )
    commit(c.pk, PurchaseCancelled(kept=kept), saving=[(seat, "fortification_points")])
