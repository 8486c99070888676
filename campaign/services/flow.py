"""The phase machine's server side: moving a campaign through its steps and running
the operations (``rules.kinds.Hook``) a step kind asks for.

``advance`` completes every step whose sides have all acted and enters the next;
each ``Hook`` is implemented once here, for every kind that names it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from django.utils import timezone

from campaign.models import (
    AddedLater,
    Campaign,
    Event,
    EventKind,
    FortificationBuy,
    InitiativeChit,
    InitiativeOutcome,
    Purchase,
    ReconBuy,
    RevealPolicy,
    Roll,
    ScenarioResult,
    Seat,
)
from campaign.selectors import pass_result, san_may_be_secret
from campaign.services import dice as dice_service
from campaign.services import fortification_areas, purchase_records, units, writes
from campaign.services.events import record_event
from campaign.services.rolls import (
    Played,
    campaign_inputs,
    confirmed_results,
    played_so_far,
    roll_context,
)
from campaign.services.start import start_summary
from campaign.services.turns import Turn, mark_done
from campaign.visibility import POINTS, POINTS_LOST, POINTS_NONE
from rules import availability, machine, replenish, victory
from rules.drm import AppliedDrm
from rules.effects import clamp_san, san_announcement
from rules.kinds import Hook, Pass, kind_of
from rules.schema import CVP_LOST, SAN, VP, InitiativeResult, RollForSide, Table, parse_range
from rules.text import left_out

# --------------------------------------------------------------------------- moving on


def advance(turn: Turn) -> None:
    """Move on while the current step is finished: complete it, enter the next.  A
    side with nothing to do at a step, as the public facts show it, passes it by
    itself, with a log line."""
    c, module = turn.campaign, turn.module
    while c.ended_at is None:
        step = module.steps[c.step_index]
        pass_sides_with_nothing_to_do(turn)
        if machine.sides_to_act(module, step, turn.done):
            break
        kind = kind_of(step.kind)
        for hook in machine.complete_hooks(module, step):
            HOOKS[hook](turn)
        if c.ended_at is not None:
            break
        following = c.step_index + 1
        if kind.ends_scenario:
            goto(turn, following)
        elif step.start and not module.steps[following].start:
            begin_scenario(turn, initial=True)  # the start is over
        elif following >= len(module.steps):
            begin_scenario(turn)
        else:
            goto(turn, following)
    save_position(c)


def begin_scenario(turn: Turn, *, initial: bool = False) -> None:
    """The next CG scenario is in play: the campaign waits at its results step."""
    c, module = turn.campaign, turn.module
    step_id = turn.step.id
    before = "" if initial else _before_play(turn)
    turn.begin_pass()
    c.in_play = True
    c.step_index = machine.results_index(module)
    date = module.dates[c.date_index].label
    if initial:
        text = f"The Initial Scenario ({date}) is in play. " + " ".join(start_summary(module, c))
    else:
        text = f"The {date} scenario is in play." + before
    record_event(
        c,
        kind=EventKind.SCENARIO,
        step_id=step_id,
        text=text.strip() + " Enter its result when it is over.",
    )


def _before_play(turn: Turn) -> str:
    """What the step that puts the scenario in play asks of the players, where that
    step passes by itself (APD 4.0: "Players now begin the next CG scenario by first
    determining Concealment for onboard units and then placing Snipers"): its panel was
    never theirs, so the log line says it, with who moves first where the previous
    scenario's winner does (APD 2.9; 4.0).  Public: the module's text and a confirmed
    result."""
    step, module = turn.step, turn.module
    if Pass.ALWAYS not in kind_of(step.kind).passes or not step.summary:
        return ""
    text = f" {step.id} {step.title}: {step.summary.rstrip('.')}."
    if module.scenario_winner is not None and module.initiative is None:
        last = (
            ScenarioResult.objects.filter(campaign=turn.campaign, confirmed_at__isnull=False)
            .exclude(winner="")
            .order_by("-cycle")
            .first()
        )
        if last is not None:
            text += f" {module.side(last.winner).name} moves first ({module.scenario_winner.rule})."
    return text


def pass_sides_with_nothing_to_do(turn: Turn) -> None:
    """Pass the step for each side that has nothing to do there, as the public facts
    show it (``availability.passes_by_itself``): never from a side's secrets, which
    the pass would tell its opponent."""
    c, module, step = turn.campaign, turn.module, turn.step
    if not kind_of(step.kind).passes:
        return
    while True:
        passed = False
        for side in machine.sides_to_act(module, step, turn.done):
            seat = turn.seats.get(side) or Seat.objects.get(campaign=c, side=side)
            reason = availability.passes_by_itself(
                module,
                c.variant,
                side,
                step,
                c.date_index,
                seat.san,
                san_secret=Pass.NO_SAN_ROLL in kind_of(step.kind).passes
                and san_may_be_secret(module, c, side),
            )
            if not reason:
                continue
            side_done(turn.as_side(side))
            mark_done(turn, side=side)
            record_event(
                turn.campaign,
                kind=EventKind.STEP_DONE,
                side=side,
                step_id=step.id,
                text=f"{module.side(side).name} passes {step.id} {step.title}: {reason}.",
                data={"passed": True},  # the server's, not the side's own act
            )
            passed = True
        if not passed:
            return


def lapse_amendment(turn: Turn) -> None:
    """The step reading the scenario result is entered: an amendment still awaiting
    its answer lapses (the result is read as agreed), and the log says so."""
    c = turn.campaign
    open_one = pass_result(c)
    if open_one is None or open_one.amendment is None:
        return
    who = turn.module.side(open_one.amendment_by).name
    open_one.amendment, open_one.amendment_by, open_one.amendment_reason = None, "", ""
    open_one.save(update_fields=["amendment", "amendment_by", "amendment_reason"])
    step = turn.step
    record_event(
        c,
        kind=EventKind.AMENDMENT,
        step_id=step.id,
        text=f"{who}'s amendment of the result lapses unanswered: {step.id} {step.title} "
        "reads the result as agreed.",
    )


def side_done(turn: Turn) -> None:
    """What finishing the current step does for the finishing side."""
    for hook in turn.kind.on_side_done:
        HOOKS[hook](turn)


def goto(turn: Turn, index: int, *, new_pass: bool = False) -> None:
    c = turn.campaign
    if new_pass:
        turn.begin_pass()
    c.step_index = index
    hooks = enter_hooks(turn)
    if index == machine.result_reader(turn.module):
        lapse_amendment(turn)
        # The result is final now: the CG victory conditions read it (APD 2.: "CVP are
        # recorded normally throughout this phase", the Clean-Up's losses included).
        if victory_deferred(turn) and check_cg_victory(turn):
            return
    for hook in hooks:
        HOOKS[hook](turn)


def victory_deferred(turn: Turn) -> bool:
    """The CG victory conditions wait for the step that reads the scenario result (the
    result may be amended, by consent, until then), except after the last date."""
    c, module = turn.campaign, turn.module
    last = machine.last_date_index(module, c.variant)
    return c.date_index < last and machine.result_reader(module) is not None


def enter_hooks(turn: Turn) -> tuple[Hook, ...]:
    return machine.enter_hooks(turn.step)


def save_position(c: Campaign) -> None:
    writes.update(
        Campaign.objects.filter(pk=c.pk),
        date_index=c.date_index,
        step_index=c.step_index,
        cycle=c.cycle,
        in_play=c.in_play,
        ended_at=c.ended_at,
        outcome=c.outcome,
        updated_at=timezone.now(),
    )


# --------------------------------------------------------------------------- hooks


def new_date(turn: Turn) -> None:
    c, module = turn.campaign, turn.module
    last = machine.last_date_index(module, c.variant)
    if c.date_index >= last:
        end_campaign(
            turn,
            f"The CG ends: {module.dates[c.date_index].label} was its last date."
            + final_winner(turn),
        )
        return
    c.date_index += 1
    record_event(
        c,
        kind=EventKind.DATE,
        step_id=turn.step.id,
        text=f"New CG date: {module.dates[c.date_index].label}.",
    )


def save_seat(seat: Seat, name: str) -> None:
    """Write a field the transaction set on a locked seat: with the step's other
    writes, inside ``writes.deferring`` (a Done's completion: one statement with the log
    line that says it), at once elsewhere (as ``save(update_fields=...)``)."""
    writes.update(Seat.objects.filter(pk=seat.pk), **{name: getattr(seat, name)})


def replenish_all(turn: Turn) -> None:
    # The scenarios played, read once for both sides: a side's replenishment writes
    # its roll, points and log line, none of which the other's reads.
    played = played_so_far(turn)
    for seat in turn.seats.values():
        replenish_side(turn, seat, played)


def replenishment(
    turn: Turn,
    side: str,
    *,
    date_index: int,
    points: int,
    roll: replenish.Roller,
    played: Played | None = None,
) -> replenish.Outcome:
    """``side``'s replenishment at ``date_index`` from ``points`` on hand, its rolls made
    by ``roll`` (rolled now, or read again when an amended result recomputes it);
    ``played``: the scenarios played, if read already (one read for every side)."""
    played = played or played_so_far(turn)
    results = played.results

    def each(field: str, of: str) -> list[int]:
        values = [r.data.get(field, {}).get(of, 0) for r in results]
        return [v if isinstance(v, int) and not isinstance(v, bool) else 0 for v in values]

    return replenish.replenish(
        turn.module,
        side=side,
        date_index=date_index,
        played_date_index=results[-1].date_index if results else None,
        points=points,
        inputs={s: campaign_inputs(turn, s, played) for s in turn.seats},
        context=roll_context(turn, side, played),
        roll=roll,
        # The CG totals' sources (APD 2.91, 2.92): each scenario's figures.
        scenarios={
            s: {"vp_total": each(VP, s), "cvp_lost_cg": each(CVP_LOST, s)} for s in turn.seats
        },
    )


def replenish_side(turn: Turn, seat: Seat, played: Played | None = None) -> None:
    c, module = turn.campaign, turn.module
    step_id = turn.step.id

    def roll(
        kind: str, purpose: str, table: Table | None = None, drms: tuple[AppliedDrm, ...] = ()
    ) -> Roll:
        return dice_service.roll(
            c,
            side=seat.side,
            kind=kind,
            purpose=purpose,
            table=table,
            drms=drms,
            step_id=step_id,
            secret=True,
        )

    outcome = replenishment(
        turn, seat.side, date_index=c.date_index, points=seat.points, roll=roll, played=played
    )
    seat.points = outcome.points
    save_seat(seat, "points")
    name = module.side(seat.side).name
    record_event(
        c,
        kind=EventKind.REPLENISH,
        side=seat.side,
        step_id=step_id,
        text=f"{name} {module.currency.code}: " + " · ".join(outcome.lines),
        # A side the rules give no points (APD 3.5): the opponent reads that rule.
        secret=POINTS.kept(seat.side, side=name, code=module.currency.code)
        if replenish.receives(module, seat.side)
        else POINTS_NONE.kept(
            seat.side, side=name, code=module.currency.code, rule=module.currency.replenishment.rule
        ),
        data={"lines": outcome.lines, "start": outcome.start, "repl": outcome.gained},
    )


def reveal_at_step_end(turn: Turn) -> None:
    c = turn.campaign
    if c.reveal_policy != RevealPolicy.STEP_END:
        return
    sides = purchase_records.reveal_purchases(c, date_index=c.date_index)
    if sides:
        # Whose: a step of one side's purchases reveals that side's (APD 3.4, 3.6).
        whose = " and ".join(s.name for s in turn.module.sides if s.id in sides)
        record_event(
            c,
            kind=EventKind.REVEAL,
            step_id=turn.step.id,
            text=f"{whose} purchases of {turn.module.dates[c.date_index].label} are revealed.",
        )


def scenario_over(turn: Turn) -> None:
    """Both agreed the result: reveal by policy, record SANs, check the CG victory
    conditions, end the CG after its last date."""
    c, module = turn.campaign, turn.module
    # What secret DRs gave the RGs revealed before the scenario: their units have played.
    purchase_records.reveal_held(c)
    # The units a secret roll's effect changed (PHD C5.23, C5.24) have played as they are.
    units.release_held(c)
    if c.reveal_policy == RevealPolicy.SCENARIO_END and purchase_records.reveal_purchases(
        c, whole=True
    ):
        record_event(
            c,
            kind=EventKind.REVEAL,
            step_id=turn.step.id,
            text="Purchases are revealed: the scenario has ended.",
        )
    c.in_play = False
    result = ScenarioResult.objects.get(campaign=c, cycle=c.cycle)
    record_sans(turn, result.data)
    if not victory_deferred(turn) and check_cg_victory(turn):
        return
    last = machine.last_date_index(module, c.variant)
    if c.date_index >= last:
        text = f"The CG ends after its last date, {module.dates[c.date_index].label}."
        end_campaign(turn, text + final_winner(turn))


def final_winner(turn: Turn) -> str:
    """Who wins as the CG ends, in a sentence: a check read at the end that holds
    (``at_end``), else the module's default winner, else the players decide."""
    module = turn.module
    results = [r.data for r in confirmed_results(turn.campaign)]
    check = victory.cg_winner(module, results, ending=True)
    if check is not None:
        return f" {module.side(check.winner).name} wins the CG ({check.rule}): {check.text}"
    if module.default_winner:
        # Each condition's figures that fell short (APD CG VC: "123 < 150").
        why = victory.unmet(module, results, ending=True)
        return (
            f" {module.side(module.default_winner).name} wins: no CG victory condition "
            f"was met{f': {why}' if why else ''}."
        )
    if module.victory:
        return f" Decide the winner by the CG victory conditions: {module.victory}"
    return " The module has no CG victory conditions: decide the winner by the rules."


def record_sans(turn: Turn, data: Mapping[str, Any]) -> None:
    """Each side's SAN as the scenario's result gives it (where the module asks it)."""
    for side, san in data.get(SAN, {}).items():
        seat = turn.seats[side]
        if seat.san != san:
            seat.san = san
            save_seat(seat, "san")


def check_cg_victory(turn: Turn) -> bool:
    """End the CG if a CG victory condition is met by the confirmed results."""
    winner = victory_check(turn)
    if winner:
        end_campaign(turn, winner)
    else:
        out_of_the_running(turn)
    return bool(winner)


def out_of_the_running(turn: Turn) -> None:
    """Say once in the log when a side can no longer win the CG by its victory
    conditions (APD: the Germans have amassed 105 CVP)."""
    module = turn.module
    results = [r.data for r in confirmed_results(turn.campaign)]
    for side in victory.sides_out_of_the_running(module, results):
        checks = [c for c in module.victory_checks if c.winner == side]
        rules = "; ".join(dict.fromkeys(c.rule for c in checks))
        record_event(
            turn.campaign,
            kind=EventKind.SCENARIO,
            step_id=turn.step.id,
            text=f"{module.side(side).name} can no longer win the CG by its victory "
            f"conditions ({rules}): a condition they depend on will never hold again.",
        )


def victory_check(turn: Turn) -> str | None:
    module = turn.module
    check = victory.cg_winner(module, [r.data for r in confirmed_results(turn.campaign)])
    if check is None:
        return None
    return f"{module.side(check.winner).name} wins the CG ({check.rule}): {check.text}"


def record_winner(turn: Turn) -> None:
    """Who won the scenario just played, and so moves first in the next (APD 2.9, 4.0)."""
    c, module = turn.campaign, turn.module
    rule = module.scenario_winner
    results = confirmed_results(c)
    if rule is None or not results:
        return
    last = results[-1]
    played = module.dates[last.date_index]
    win = victory.scenario_winner(module, [r.data for r in results], played.vp_required)
    if win is None:
        text = (
            f"The winner of the {played.label} scenario cannot be decided: "
            f"{left_out('the VP it required', rule.rule)}; supply them and have "
            "your opponent accept them, then the winner is recorded here."
        )
    else:
        last.winner = win.side
        last.save(update_fields=["winner"])
        name = module.side(win.side).name
        why = f": {win.because}" if win.because else ""
        text = (
            f"{name} wins the {played.label} scenario{why} ({rule.rule}). {name} moves first "
            "in the next scenario."
        )
    record_event(c, kind=EventKind.WINNER, step_id=turn.step.id, text=text)


def lose_unspent(turn: Turn) -> None:
    """Points left when the purchase step ends on a named date are lost (3.617 EXC)."""
    c, module = turn.campaign, turn.module
    for seat in turn.seats.values():
        reason = replenish.lost_after_purchase(module, c.date_index, seat.points)
        if not reason:
            continue
        lost = seat.points
        seat.points = 0
        save_seat(seat, "points")
        name = module.side(seat.side).name
        record_event(
            c,
            kind=EventKind.FORFEIT,
            side=seat.side,
            step_id=turn.step.id,
            secret=POINTS_LOST.kept(
                seat.side,
                side=name,
                code=module.currency.code,
                rule=module.currency.carry_over.rule,
            ),
            data={"points_lost": lost},  # the roster's "left" reads it
            text=f"{name}: {reason}.",
        )


def adjust_san(turn: Turn) -> None:
    """Each SAN brought within the module's bounds (Sicily 3.6122: below 2 rises to 2;
    PHD C5.25: between 2 and 4)."""
    c, module = turn.campaign, turn.module
    rule = module.san
    if rule is None:
        return
    for seat in turn.seats.values():
        if seat.san is None:
            continue
        new = clamp_san(seat.san, rule.minimum, rule.maximum)
        if new == seat.san:
            continue
        old, seat.san = seat.san, new
        save_seat(seat, "san")
        how = "raised" if new > old else "lowered"
        record_event(
            c,
            kind=EventKind.SAN,
            side=seat.side,
            step_id=turn.step.id,
            text=f"{module.side(seat.side).name} SAN {old} is {how} to {new} ({rule.rule}).",
        )


def end_campaign(turn: Turn, outcome: str) -> None:
    """The CG is over: every secret is revealed and the dice seed disclosed."""
    c = turn.campaign
    now = timezone.now()
    c.ended_at = now
    c.outcome = outcome
    Event.objects.filter(campaign=c, revealed_at__isnull=True).exclude(secret_side="").update(
        revealed_at=now
    )
    Roll.objects.filter(campaign=c, secret=True, revealed_at__isnull=True).update(revealed_at=now)
    InitiativeChit.objects.filter(campaign=c, revealed_at__isnull=True).update(revealed_at=now)
    for model in (Purchase, FortificationBuy, ReconBuy, AddedLater):
        model.objects.filter(campaign=c, revealed_at__isnull=True).update(revealed_at=now)
    Purchase.objects.filter(campaign=c, outcome_held=True).update(outcome_held=False)
    for held in Purchase.objects.filter(campaign=c, details__hex_held=True):
        purchase_records.release_hex(held)
        held.save(update_fields=["details"])
    units.release_held(c, now)
    record_event(
        c, kind=EventKind.END, text=f"{outcome} The dice seed is disclosed: {c.dice_seed}."
    )
    save_position(c)


# --------------------------------------------------------------------------- initiative follow-ups


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
    side = rule.rows[-1]["side"]
    for row in rule.rows:
        lo, hi = parse_range(row["range"])
        if (lo is None or r.final >= lo) and (hi is None or r.final <= hi):
            side = row["side"]
            break
    record_event(
        turn.campaign,
        kind=EventKind.ROLL,
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


def announce_san(turn: Turn) -> None:
    """At scenario commencement, where the module says so: each side's current SAN,
    told to both (Sicily 3.623: "Each side announces its current SAN")."""
    text = san_announcement(turn.module, {s: seat.san for s, seat in turn.seats.items()})
    if text:
        record_event(turn.campaign, kind=EventKind.SAN, step_id=turn.step.id, text=text)


HOOKS: dict[Hook, Callable[[Turn], None]] = {
    Hook.NEW_DATE: new_date,
    Hook.REPLENISH: replenish_all,
    Hook.DECIDE_MOVES_FIRST: decide_moves_first,
    Hook.ROLL_REMAINING: purchase_records.roll_remaining,
    Hook.FORFEIT_FORTIFICATION_POINTS: purchase_records.forfeit_fortification_points,
    Hook.REVEAL_PURCHASES: reveal_at_step_end,
    Hook.SCENARIO_OVER: scenario_over,
    Hook.LOSE_UNSPENT: lose_unspent,
    Hook.ADJUST_SAN: adjust_san,
    Hook.RECORD_WINNER: record_winner,
    Hook.SETTLE_EXCHANGE: units.settle_exchange,
    Hook.SETTLE_UNITS: units.settle_units,
    Hook.ANNOUNCE_SAN: announce_san,
    Hook.ROLL_WHILE_BUYING: purchase_records.roll_while_buying,
    Hook.REVEAL_HIDDEN_FORTIFICATIONS: fortification_areas.reveal_hidden,
}
assert set(HOOKS) == set(Hook), "every Hook has its one implementation"
