"""Secret initiative chits (3.621 / C5.x): each side locks Attack or Idle; when the
second locks, the same transaction reveals both, cross-indexes the module's matrix
and moves the campaign on — or loops it to a new date on Idle/Lull."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from campaign.models import Event, InitiativeChit, InitiativeOutcome
from rules import machine
from rules.schema import InitiativeResult, RollForSide, parse_range
from rules.services import dice as dice_service
from rules.services.errors import ActionRefused
from rules.services.log import changed, record_event
from rules.services.sequence import (
    Turn,
    advance,
    expect_turn,
    goto,
    mark_done,
    save_position,
    take_turn,
)

CHITS = {"attack": "Attack", "idle": "Idle"}


@transaction.atomic
def lock_initiative(
    *, campaign_id, user: AbstractBaseUser, chit: str, at: str | None = None
) -> None:
    """Lock this side's chit.  It cannot be changed; the opponent learns only that it
    was chosen, until both are revealed at once."""
    turn = take_turn(campaign_id, user, at)
    expect_turn(turn, "initiative")
    if chit not in CHITS:
        raise ActionRefused("Choose Attack or Idle.")
    refuse_forbidden_chit(turn, chit)
    c = turn.campaign
    InitiativeChit.objects.create(
        campaign=c, cycle=c.cycle, date_index=c.date_index, side=turn.side, chit=chit
    )
    mark_done(turn)
    name = turn.side_name()
    record_event(
        c,
        kind="chit",
        side=turn.side,
        step_id=turn.step.id,
        text=f"{name} locked its initiative chit: {CHITS[chit]}.",
        secret_side=turn.side,
        public_text=f"{name} has chosen its initiative chit.",
    )
    if InitiativeChit.objects.filter(campaign=c, cycle=c.cycle).count() == len(turn.module.sides):
        reveal(turn)
    changed(c)


def chit_refusal(campaign, module, side: str, chit: str) -> str:
    """Why ``side`` may not lock ``chit`` now (an attack-chit limit, or a restriction
    such as 3.6212*), as a sentence with its rule; "" when it may."""
    ini = module.initiative
    assert ini is not None
    seats = {s.side: s for s in campaign.seats.all()}
    limit = (module.variant(campaign.variant).attack_chits or {}).get(side)
    if chit == "attack" and limit is not None and seats[side].attack_chits_used >= limit:
        return (
            f"{module.side(side).name} has used all {limit} Attack chits this CG allows "
            f"({ini.rule}); choose Idle."
        )
    opponent = seats[machine.opponent(module, side)]
    for r in ini.restrictions:
        if (
            r.side == side
            and r.chit == chit
            and (
                r.forbidden_when == "opponent_has_no_on_map_retained_units"
                and opponent.no_on_map_units
            )
        ):
            return f"{r.text} ({r.rule})"
    return ""


def refuse_forbidden_chit(turn: Turn, chit: str) -> None:
    refusal = chit_refusal(turn.campaign, turn.module, turn.side, chit)
    if refusal:
        raise ActionRefused(refusal)


def reveal(turn: Turn) -> None:
    """Reveal both chits, find the matrix result and its follow-ups, move on."""
    c, module = turn.campaign, turn.module
    ini = module.initiative
    assert ini is not None
    now = timezone.now()
    chits = {ch.side: ch.chit for ch in InitiativeChit.objects.filter(campaign=c, cycle=c.cycle)}
    InitiativeChit.objects.filter(campaign=c, cycle=c.cycle).update(revealed_at=now)
    Event.objects.filter(campaign=c, kind="chit", date_index=c.date_index, revealed_at=None).update(
        revealed_at=now
    )
    cell = next(cell for cell in ini.matrix if cell.chits == chits)
    result = matrix_result(turn, cell.result)
    for side, chit in chits.items():
        if chit == "attack":
            c.seats.filter(side=side).update(attack_chits_used=F("attack_chits_used") + 1)
    sets_up = decide_side(turn, result.sets_up_first, "sets up first")
    if result.moves_first == "sets_up_second":
        moves = machine.opponent(module, sets_up) if sets_up else ""
    elif isinstance(result.moves_first, str):
        moves = result.moves_first
    else:
        moves = ""  # a roll after setup (decide_moves_first), or not given
    chosen = ", ".join(f"{s.name} {CHITS[chits[s.id]]}" for s in module.sides)
    text = f"Initiative revealed: {chosen} → {result.label}."
    if sets_up:
        text += f" {module.side(sets_up).name} sets up first."
    if moves:
        text += f" {module.side(moves).name} moves first."
    elif isinstance(result.moves_first, RollForSide):
        text += f" Who moves first is rolled after setup ({result.moves_first.rule})."
    if result.text:
        text += f" {result.text}"
    InitiativeOutcome.objects.create(
        campaign=c,
        cycle=c.cycle,
        date_index=c.date_index,
        result=cell.result,
        label=result.label,
        scenario=result.scenario,
        attackers=result.attackers,
        sets_up_first=sets_up,
        moves_first=moves,
        text=text,
    )
    record_event(c, kind="initiative", step_id=turn.step.id, text=text, data={"chits": chits})
    if result.scenario:
        advance(turn)
        return
    target = result.loops_to or module.flow.idle_loop_from
    if target is None:
        advance(turn)
        return
    record_event(
        c,
        kind="idle",
        step_id=turn.step.id,
        text=f"No scenario on {module.dates[c.date_index].label}: steps from {target} repeat "
        "for the next CG date.",
    )
    goto(turn, machine.step_index(module, target), new_pass=True)
    save_position(c)
    advance(turn)


def matrix_result(turn: Turn, result_id: str) -> InitiativeResult:
    """A matrix result as it applies on the current date (its Night form at night)."""
    assert turn.module.initiative is not None
    result = next(r for r in turn.module.initiative.results if r.id == result_id)
    if turn.module.dates[turn.campaign.date_index].night and result.night is not None:
        return result.night
    return result


def decide_side(turn: Turn, rule: str | RollForSide | None, what: str) -> str:
    """A side fixed by the matrix, or decided by a public follow-up roll."""
    if rule is None or rule == "sets_up_second":
        return ""
    if isinstance(rule, str):
        return rule
    r = dice_service.roll(
        turn.campaign,
        side=rule.roller,
        kind=rule.dice,
        purpose=f"who {what} ({rule.rule})",
        step_id=turn.step.id,
    )
    for row in rule.rows:
        lo, hi = parse_range(row["range"])
        if (lo is None or r.final >= lo) and (hi is None or r.final <= hi):
            side = row["side"]
            break
    else:  # pragma: no cover - the module validator checks the rows' sides, not coverage
        side = rule.rows[-1]["side"]
    record_event(
        turn.campaign,
        kind="roll",
        side=rule.roller,
        step_id=turn.step.id,
        text=f"{turn.module.side(rule.roller).name} rolled who {what}: "
        f"{dice_service.describe(r)} → {turn.module.side(side).name} ({rule.rule}).",
    )
    return side


def decide_moves_first(turn: Turn) -> None:
    """At scenario commencement: roll who moves first where the matrix left it to a dr."""
    c, module = turn.campaign, turn.module
    outcome = InitiativeOutcome.objects.filter(campaign=c, date_index=c.date_index).last()
    if outcome is None or outcome.moves_first or not outcome.scenario or module.initiative is None:
        return
    result = matrix_result(turn, outcome.result)
    if isinstance(result.moves_first, RollForSide):
        outcome.moves_first = decide_side(turn, result.moves_first, "moves first")
        outcome.save(update_fields=["moves_first"])


@transaction.atomic
def declare_on_map_units(
    *, campaign_id, user: AbstractBaseUser, has_units: bool, at: str | None = None
) -> None:
    """A side states openly whether it has on-map retained units; the opponent's
    Attack chit may depend on it (e.g. 3.6212*)."""
    turn = take_turn(campaign_id, user, at)
    if turn.step.kind != "initiative":
        raise ActionRefused("Declare this at the initiative step.", status=409)
    if InitiativeChit.objects.filter(campaign=turn.campaign, cycle=turn.campaign.cycle).exists():
        raise ActionRefused(
            "A chit is already locked: the declaration can no longer change.", status=409
        )
    turn.seat.no_on_map_units = not has_units
    turn.seat.save(update_fields=["no_on_map_units"])
    record_event(
        turn.campaign,
        kind="declare",
        side=turn.side,
        step_id=turn.step.id,
        text=f"{turn.side_name()} declares it has {'' if has_units else 'no '}on-map "
        "retained units.",
    )
    changed(turn.campaign)
