"""Walking both players through the module's steps in rule order: finishing a step,
rolling on a step's tables, entering and confirming a scenario's result.

Each public function is one thing a player does.  It runs in one transaction with the
campaign row locked, refuses anything out of turn with a sentence, records what it did
in the log, and tells both seats what changed once it commits.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from django.db import transaction
from django.utils import timezone

from campaign.changes import (
    AmendmentAnswered,
    AmendmentProposed,
    DoneTakenBack,
    PointsForgone,
    PurchaseChanged,
    ResultConfirmed,
    ResultDisputed,
    ResultEntered,
    RollMade,
    StepFinished,
)
from campaign.models import (
    Campaign,
    EventKind,
    Purchase,
    Roll,
    ScenarioResult,
    StepMark,
    Unit,
)
from campaign.selectors import (
    done_by_own_click,
    held_purchases,
    holdings,
    marked_in_pass,
    new_dates_since_scenario,
    opponent_acted_since_done,
    overspent,
    pass_result,
    recorded_first,
    replenished_on_date,
    replenishment_record,
    result_read_by,
    san_may_be_secret,
    sent_to,
    step_attacker,
    waived_roll,
)
from campaign.selectors import rolled_items as selectors_rolled_items
from campaign.services import dice as dice_service
from campaign.services import losses, purchases, recompute, stacks, units
from campaign.services.captures import capture_owed
from campaign.services.errors import ActionRefused
from campaign.services.flow import (
    advance,
    check_cg_victory,
    record_sans,
    side_done,
    victory_deferred,
)
from campaign.services.fortification_areas import statement_owed
from campaign.services.purchase_records import release_hex, roll_entry
from campaign.services.rolls import (
    cap_possessor,
    fired_in_pass,
    held_groups,
    held_with_footnotes,
    possessor_footnotes,
    repair_cap_counts,
    roll_context,
    secret_module,
    squads_by_footnote,
)
from campaign.services.text import (
    DISPUTE_REASON_LIMIT,
    RESULT_TEXT_LIMIT,
    clean_text,
    max_length,
    whole_number,
)
from campaign.services.turns import Turn, User, expect_turn, mark_done, take_turn
from campaign.services.waiting import update_waiting
from campaign.services.writes import SeatField, commit, deferring
from campaign.visibility import RG_ROLLS, SAN_ROLL, SECRET_ROLL
from rules import availability, machine
from rules.drm import (
    DrmRefused,
    RollContext,
    applicable_drms,
    morale_is_read,
    reads_fired,
    reads_held_squads,
    reads_location_leadership,
    reads_possessor,
    reads_setup_area,
    reads_unit_morale,
    reads_unit_rg,
    unit_morale,
)
from rules.effects import (
    MMC_KINDS,
    WEAPON_CARRIERS,
    UnitOutcome,
    WeaponState,
    armed,
    casualty_reduced,
    crew_escapes,
    crew_marker,
    falls_on_one,
    for_drms,
    granted_group,
    hardens_leader,
    hardens_mmc,
    inherent_crew,
    mmc_to_harden,
    mmc_to_reduce,
    no_leader_to_harden,
    not_sent_refusal,
    on_unit,
    on_weapon,
    reduction,
    result_effects,
    roll_column,
    san_after,
    targets,
    units_given,
)
from rules.kinds import Action
from rules.schema import SAN, Effect, InsteadOfRoll, Module, OriginalRoll, Table
from rules.text import left_out
from rules.victory import asked_fields, describe_changes, result_owners


class Hardening(NamedTuple):
    """What a side's roll lets it Battle Harden in this pass (PHD C5.23)."""

    allowed: int | None  # MMC its result allows (None: not rolled yet)
    used: int  # MMC it has Battle Hardened by that result
    hardened: set[str]  # every unit Battle Hardened in this pass (refs)


def overspent_refusal(turn: Turn) -> str:
    """At a purchase step, where an amended result gave the side fewer points than its
    RGs of this date cost and one of them may still be cancelled, why its Done waits
    (``availability.overspent``); "" otherwise.  Read only where its points are 0 (a
    shortfall leaves them so)."""
    if Action.BUY not in turn.kind.actions or turn.seat.points:
        return ""
    made, short, cancellable = overspent(turn.campaign, turn.side)
    if made is None or not short or not cancellable:
        return ""
    return availability.overspent(turn.module, turn.step, made.step_id, short, cancellable)


@transaction.atomic
def finish_step(
    *,
    campaign_id: object,
    user: User,
    at: str | None = None,
    through: str = "",
    without_data: bool = False,
) -> None:
    """The player has done their part of the current step — or, with ``through``, of
    the current step and the following map steps up to the one numbered ``through``
    (they have nothing to do on the map and no roll to make there).  A step whose
    purchases lack their data (the start's points, the side's RG chart) is finished
    only knowingly: ``without_data``, the player's "Go on without it"."""
    turn = take_turn(campaign_id, user, at)
    # A side that picks no chit is Idle (PHD C2.0): its Done locks Idle for it.
    chit = availability.chit_by_default(turn.module, turn.step)
    if chit is not None and not through:
        from campaign.services.initiative import lock_initiative

        rule = turn.module.initiative.idle_by_default if turn.module.initiative else ""
        lock_initiative(campaign_id=campaign_id, user=user, chit=chit, at=at, by_default=rule or "")
        return
    # Finishing ahead, or a Recon step (a Recon RG's dr owed), reads purchases and recon.
    reads = bool(through) or Action.RECON in turn.kind.actions
    held = holdings(turn.campaign, turn.side, purchases=reads, recon=reads, owed=True)
    snap = turn.snapshot(held)
    expect_turn(turn, Action.FINISH, snap)
    step = turn.step
    if step.attacker_first:
        # PHD C5.14 "In turn, Attacker first": the Defender redeploys (and so finishes)
        # after the Attacker, never before.
        # Sicily 3.6222 (``setup_order``): the side setting up first, likewise.
        attacker = step_attacker(turn.campaign, turn.module, step)
        first = availability.attacker_first_reason(
            turn.module, step, turn.side, attacker, turn.done, "you finish once it is done"
        )
        if first:
            raise ActionRefused(f"Not yet: {first}.", status=409)
    owed = (
        availability.owed_refusal(turn.module, snap, step)
        or availability.held_cap_refusal(turn.module, snap)
        or reduction_owed(turn)
        or capture_owed(turn)
        or statement_owed(turn)
    )
    if owed:
        raise ActionRefused(owed, status=409)
    short = overspent_refusal(turn)
    if short:
        raise ActionRefused(short, status=409)
    lacking = availability.finish_refusal(turn.module, snap, step)
    if lacking and not without_data:
        raise ActionRefused(lacking, status=409)
    ahead = []
    if through:
        run = availability.finish_ahead(turn.module, snap)
        ids = [s.id for s in run]
        if through not in ids[1:]:
            raise ActionRefused(
                f"{step.id} cannot be finished together with step {through[:20]}.", status=409
            )
        ahead = run[1 : ids.index(through) + 1]
    hex_owed = (
        purchases.hex_owed(turn, [step, *ahead])
        or units.placement_owed(turn)
        or (statement_owed(turn, ahead) if ahead else "")
    )
    if hex_owed:
        raise ActionRefused(hex_owed, status=409)
    # The writes go together (``writes.deferring``): the mark, the log line, the
    # position, the notices and the seats in one statement on PostgreSQL, unless what
    # completing the step does reads in between (each read sends what is pending).
    with deferring():
        side_done(turn)
        mark_done(turn, StepMark.BY_DONE)
        for later in ahead:
            mark_done(turn, StepMark.BY_DONE, step_index=turn.module.steps.index(later))
        last = f" to {ahead[-1].id} {ahead[-1].title}" if ahead else ""
        knowingly = " without the data it lacks, buying nothing there" if lacking else ""
        turn.record(
            EventKind.STEP_DONE,
            text=f"{turn.side_name()} finished {step.id} {step.title}{last}{knowingly}.",
        )
        advance(turn)
        commit(turn.campaign.pk, StepFinished(), saving=update_waiting(turn))


@transaction.atomic
def take_back_done(*, campaign_id: object, user: User, at: str | None = None) -> None:
    """The player withdraws its Done at the current step (and at the steps it finished
    with it), until the opponent has acted on it: the step waits for it again.  What
    finishing did that is final (points forfeit, dice rolled) is never taken back."""
    turn = take_turn(campaign_id, user, at)
    c, step = turn.campaign, turn.step
    snap = turn.snapshot()
    refusal = availability.take_back_refusal(
        turn.module,
        snap,
        step,
        opponent_acted=opponent_acted_since_done(c, turn.side),
        by_done=done_by_own_click(c, turn.side),
    )
    if refusal:
        raise ActionRefused(refusal, status=409)
    StepMark.objects.filter(
        campaign=c, cycle=c.cycle, side=turn.side, step_index__gte=c.step_index
    ).delete()
    turn.forget_done()
    turn.record(
        EventKind.TAKEBACK,
        text=f"{turn.side_name()} takes back its Done at {step.id} {step.title}; "
        "the step waits for it again.",
    )
    commit(c.pk, DoneTakenBack(), saving=update_waiting(turn))


@transaction.atomic
def roll_on_table(
    *,
    campaign_id: object,
    user: User,
    table_id: str,
    item: str = "",
    ticked: Sequence[str] = (),
    typed: Mapping[str, int] | None = None,
    unit_id: object = None,
    at: str | None = None,
    stack: Sequence[object] = (),
    recorded_gone: bool = False,
) -> Roll:
    """Roll on one of the current step's tables — for one of the side's retained
    units where the table is rolled for units, else for the item named — with the
    DRMs that apply by themselves plus those the player ticked or typed; the result's
    effects are applied (``rules.effects``).  Where the table lets units roll together
    (``Table.stack``: PHD C5.13, Sicily 3.606/3.613), ``stack`` names the units making
    the roll with ``unit_id`` (``campaign.services.stacks``)."""
    item = clean_text(item, what="What the roll is for", limit=max_length(Roll, "item"))
    turn = take_turn(campaign_id, user, at)
    expect_turn(turn, Action.ROLL)
    step, c = turn.step, turn.campaign
    if table_id not in step.tables:
        known = next((t for t in turn.module.tables if t.id == table_id), None)
        if known is not None:  # a table of another step: named in the rules' words
            raise ActionRefused(
                f"The {known.title} ({known.rule}) is not rolled at {step.id} {step.title}."
            )
        raise ActionRefused(f"{step.id} {step.title} has no table '{table_id[:64]}'.")
    table = turn.module.table(table_id)
    if table.missing:
        raise ActionRefused(
            f"{left_out(f'the {table.title}', table.rule, first=True)}: supply it "
            "and have your opponent accept it before anyone rolls on it.",
            status=409,
        )
    closed = availability.table_date_reasons(turn.module, table, turn.side, c.date_index)
    low = availability.san_table_reason(turn.module, table, turn.seat.san)
    closed += [low] if low else []
    if closed:
        raise ActionRefused(
            f"You may not roll on the {table.title} now: {'; '.join(closed)}.", status=409
        )
    if table.after_scenario and pass_result(c) is None:
        raise ActionRefused(
            f"No scenario was played in this pass: nothing is rolled on the {table.title} "
            f"({table.rule}).",
            status=409,
        )
    if step.attacker_first:
        attacker = step_attacker(c, turn.module, step)
        first = availability.attacker_first_reason(
            turn.module, step, turn.side, attacker, turn.done
        )
        if first:
            raise ActionRefused(f"Not yet: {first}.", status=409)
    first = availability.others_first_reason(turn.module, step, table, turn.side, turn.done)
    if first:
        raise ActionRefused(f"Not yet: {first}.", status=409)
    unit, weapon = rolled_for(turn, table, unit_id)
    # A stack's one roll (Sicily 3.606, 3.613): the units that join the unit named.
    joined = stacks.members(turn, table, unit, weapon, stack)
    if unit is not None and table.once == "item":
        item = unit_item(turn, table, unit, item)
    if table.instead is not None and units.took_instead(c, turn.side, table.id):
        raise ActionRefused(
            f"You have chosen instead: {availability.instead_words(table)}.", status=409
        )
    if (
        table.once == "side"
        and Roll.objects.filter(
            campaign=c, cycle=c.cycle, table_id=table.id, side=turn.side
        ).exists()
    ):
        raise ActionRefused(
            f"You have made your {table.title} roll in this pass ({table.rule}).", status=409
        )
    # A DR that could Battle Harden no leader (PHD C5.24) or no MMC (C5.23).
    pointless = waived_roll(c, turn.side, table)
    if not pointless and hardens_leader(table):
        leaders = units.hardenable_leaders(c, turn.module, turn.side, step, table)
        pointless = no_leader_to_harden(table, [u.state for u in leaders])
    if pointless:
        raise ActionRefused(
            f"You may not roll on the {table.title}: {pointless}. Nothing was rolled.",
            status=409,
        )
    group_ref = ""
    if table.per_group is not None and unit is None:
        # PHD C5.34: a DR for each OBA module held, chosen among them (not typed).
        chosen = availability.group_roll_choice(
            table,
            item,
            availability.group_roll_items(
                turn.module, table, turn.side, held_purchases(c, turn.side)
            ),
            # An RG its roll eliminates is no longer held: those held are still to roll.
            selectors_rolled_items(c, turn.side, table.id)
            if not availability.eliminated_by_roll(table)
            else [],
        )
        if isinstance(chosen, str):
            raise ActionRefused(chosen, status=409)
        group_ref, item = chosen
    if table.once == "item" and table.for_units is None:
        earlier = list(
            Roll.objects.filter(
                campaign=c, cycle=c.cycle, table_id=table.id, side=turn.side
            ).order_by("seq")
        )
        refusal = (
            availability.item_roll_refusal(table, item, [r.item for r in earlier])
            or availability.item_name_refusal(turn.module, table, turn.side, item)
            or availability.cleared_first_refusal(
                table,
                item,
                [(r.item, r.final, sum(r.faces)) for r in earlier],
                recorded_first(c, turn.side, table),
                gone=recorded_gone,
                before=[
                    (r.item, r.final, sum(r.faces))
                    for r in Roll.objects.filter(
                        campaign=c, cycle__lt=c.cycle, table_id=table.id, side=turn.side
                    )
                ]
                if table.cleared_first is not None and table.cleared_first.recorded
                else [],
            )
        )
        if refusal:
            raise ActionRefused(refusal, status=409)
    if table.per_group is not None:
        used = Roll.objects.filter(
            campaign=c, cycle=c.cycle, table_id=table.id, side=turn.side
        ).count()
        refusal = availability.uses_refusal(
            turn.module, table, turn.side, used, new_dates_since_scenario(turn.module, c)
        )
        if refusal:
            raise ActionRefused(refusal, status=409)
    if table.per_group is not None and not availability.eliminated_by_roll(table):
        # A roll that eliminates its RG (Sicily footnote i) leaves it no longer held:
        # the choice among those held above is the cap.
        refusal = availability.per_group_refusal(
            table,
            Roll.objects.filter(
                campaign=c, cycle=c.cycle, table_id=table.id, side=turn.side
            ).count(),
            held_groups(turn, turn.side, table.per_group.applies_to),
        )
        if refusal:
            raise ActionRefused(refusal, status=409)
        refusal = availability.per_group_name_refusal(turn.module, table, turn.side, item)
        if refusal:
            raise ActionRefused(refusal)
    weapon_capped = availability.repair_cap_weapon(table, item)
    if table.repair_cap is not None and weapon_capped:
        held, equivalents = repair_cap_counts(turn, turn.side, table.repair_cap, weapon_capped)
        refusal = availability.repair_cap_refusal(table, weapon_capped, held, equivalents)
        if refusal:
            raise ActionRefused(refusal, status=409)
    group = None
    if unit is not None and unit.purchase is not None:
        group = turn.module.group(turn.side, unit.purchase.group_id)
    elif unit is not None and reads_unit_rg(table) and not unit.has("captured"):
        # Added by hand: the RG whose chart row names its counter (3.6141d's StuG IIIG).
        group = turn.module.group_naming(turn.side, unit.name)
    elif unit is None and table.per_group is not None:
        group = availability.per_group_named(turn.module, table, turn.side, item)
    try:
        located = None if unit is None else units.located_state(unit)
        state = None if located is None else armed(located, weapon) if weapon else located
        context = roll_context(
            turn,
            group=group,
            unit_kind=unit.kind if unit else None,
            # A stack is in one location: the markers of any of its units count.
            unit_markers=frozenset().union(*(units.state_of(u).marked for u in joined))
            | (state.marked if state else frozenset()),
            squads_by_footnote=squads_by_footnote(turn, turn.side)
            if reads_held_squads(table)
            else None,
            fired_prior=group is not None
            and reads_fired(table)
            and fired_in_pass(turn, turn.side, group.id),
            item=item,
            unit_name=unit.name if unit is not None and weapon is None else None,
            possessor_footnotes=possessor_footnotes(turn, unit)
            if unit is not None and weapon is None and reads_possessor(table)
            else frozenset(),
        )
        if unit is not None and reads_setup_area(table):  # Sicily 3.606, from 3.605's lists
            standing, source = units.in_enemy_setup_area(turn, unit)
            context = dataclasses.replace(
                context,
                in_enemy_setup_area=standing,
                read_from={**context.read_from, "in_enemy_setup_area": source},
            )
        if unit is not None and weapon is None:  # what the units making it count
            inputs = stacks.inputs(table, [unit, *joined])
            context = dataclasses.replace(context, inputs={**context.inputs, **inputs})
        if reads_unit_morale(table):
            context = with_unit_morale(turn.module, table, context, unit, typed)
        if unit is not None and weapon is None and reads_location_leadership(table):
            led = stacks.location_leadership(turn, table, unit)
            drm = next(d for d in table.drms if d.read == "location_leadership")
            rule = drm.rule or table.rule
            if led.first:  # A10.7: the leader checks first; his result decides
                raise ActionRefused(
                    f"The {led.first} takes his own {table.title} first ({rule}; A10.7): "
                    f"roll his, then {units.label(unit)}'s, which he leads only if he "
                    "stays.",
                    status=409,
                )
            if led.owed and drm.id not in (typed or {}):  # never taken as 0
                raise ActionRefused(
                    f"Type '{drm.label}' for {units.label(unit)}: {led.source} "
                    f"({rule}); the roll is not made without it."
                )
            if led.value is not None:  # read from the record (APD 2.5, A10.7)
                context = dataclasses.replace(
                    context,
                    inputs={**context.inputs, "location_leadership": led.value},
                    read_from={**context.read_from, "location_leadership": led.source},
                )
        drms = applicable_drms(table, context, ticked=ticked, typed=typed)
    except DrmRefused as exc:
        raise ActionRefused(str(exc)) from None
    if unit is not None and table.once != "item":
        item = units.label(unit) + (f" {weapon.name}" if weapon else "")
    # A unit of a still-secret RG is its side's secret, and so is a roll made for it
    # (nothing of it reaches the opponent, not even that it was made), until the RG is
    # revealed with its rolls.
    # So is a roll for an RG named (a still-secret OBA module, PHD C5.34).
    module_secret = (
        secret_module(turn, turn.side, group.id, ref=group_ref)
        if unit is None and group is not None and table.per_group is not None
        else None
    )
    # So is a roll for a unit whose former state is held (its later changes are kept
    # behind it until released: ``units.kept_secret``).
    hidden = (
        unit is not None and (units.is_secret(unit) or bool(unit.held))
    ) or module_secret is not None
    hidden = hidden or any(units.is_secret(u) for u in joined)
    # A SAN roll of a side whose SAN may have changed in secret (a Sniper bought since
    # the last scenario, purchases not revealed): nothing of it reaches the opponent
    # until the SAN is announced (Sicily 3.617, 3.623; ``visibility.SAN_ROLL``).
    san_kept = (
        turn.module.san is not None
        and table.id == turn.module.san.table
        and san_may_be_secret(turn.module, c, turn.side)
    )
    if joined:
        item += f" with {', '.join(units.label(u) for u in joined)}"
    column = roll_column(table, turn.side, unit.kind if unit else None)
    r = dice_service.roll(
        c,
        side=turn.side,
        kind=table.dice,
        purpose=table.title,
        drms=drms,
        table=table,
        item=item,
        step_id=step.id,
        secret=table.secret or hidden or san_kept,
        column=column,
        unit_ref=units.roll_ref(unit, weapon.ref if weapon else "") if unit else "",
        stack=stacks.stack_refs(joined),
        reads_result=machine.table_reads_result(table),
    )
    purchase_id = (
        unit.purchase_id
        if hidden and unit is not None
        else module_secret.pk
        if module_secret is not None
        else None
    )
    if module_secret is not None:  # on the RG's line, revealed with it
        module_secret.details = {
            **module_secret.details,
            "rolls": [
                *module_secret.details.get("rolls", []),
                roll_entry(table.title, r),
            ],
        }
        module_secret.save(update_fields=["details"])
    # An effect that holds only where a DRM applied (PHD C5.14 i: in the enemy FEBA), or
    # only for the Attacker of the scenario just played (C5.14 ii: his units in an
    # Isolated TAC fail as per i), read where a result has one.
    found = result_effects(table, r.final, column, sum(r.faces))
    by_attacker = any(e.if_attacker for e in found) and turn.side == step_attacker(
        c, turn.module, turn.step
    )
    effects = for_drms(found, [d.id for d in drms], by_attacker)
    count = unit.count if unit is not None else 0
    made_by = [unit, *joined] if unit is not None and weapon is None else []
    # The kind of the line rolled for, which a correction of a line the roll took away
    # starts from (``seat_views.corrections``).
    rolled_kind = unit.kind if unit is not None and weapon is None else ""
    placing: dict[str, object] | None = None
    rejoined: list[str] = []  # the weapons it brings back (PHD C5.26b: repaired)
    if joined and unit is not None:
        consequence = _on_stack(turn, table, r, effects, [unit, *joined], secret=hidden)
    else:
        consequence = apply_effects(
            turn, table, effects, unit, weapon, item=item, rejoined=rejoined
        )
        if unit is not None and unit.to_place is not None:
            # Its replacement is placed by its owner with a friendly MMC (APD 3.1
            # footnote *): the record Done and the retained forces read.
            marks = [k for k in table.footnotes or {} if r.result.endswith(k)]
            placing = {
                **unit.to_place,
                "cycle": c.cycle,
                "result": r.result.removesuffix(marks[0]) if marks else r.result,
                "rule": f"{table.rule} footnote {marks[0]}" if marks else table.rule,
            }
        # A leader Replaced in place (3.606 row 9) is settled as the unit rolled for.
        unit = (unit.replaced_by if unit else None) or unit
    # A line of several that gave up the unit rolled for to a line of its own (its
    # result written there) is no longer that unit: nothing of it is settled after.
    if table.after_roll and not joined and (unit is None or unit.count == count):
        # A weapon's roll settles the vehicle carrying it, as its result left it (Sicily
        # 3.6142 footnote *: "if MA, the AFV is immediately Recalled (3.6141c applies)").
        carrier = Unit.objects.get(pk=unit.pk) if weapon is not None and unit is not None else unit
        after = units.settle_rolled(table.after_roll, carrier)
        consequence = "; ".join(w for w in (consequence, after) if w)
    writes: list[SeatField] = []
    # Each unit the result eliminated (not Replaced in place) is a loss of the scenario
    # just played where the table says so (PHD C5.1).  What it was (its Location, its
    # count, its RG) and the CVP it added are kept with the roll's log line: a correction
    # that says it should not be gone puts it back so, and takes its CVP off.
    gone_lines: dict[str, dict[str, Any]] = {}
    for gone in made_by:
        if gone.replaced_by is not None or (
            gone.pk is not None
            and (not table.losses_count or Unit.objects.filter(pk=gone.pk).exists())
        ):
            continue
        gone_lines[gone.ref] = {
            "location": gone.location,
            "markers": list(gone.markers or ()),
            "count": gone.count,
            "weapons": list(gone.weapons or ()),
            "purchase": gone.purchase_id,
            **(gone.replaced_elsewhere or {}),
        }
        if table.losses_count:
            carried, more = losses.carry_loss(turn, table.losses_count, gone, hidden)
            writes += more
            consequence = "; ".join(w for w in (consequence, carried) if w)
            cvp = losses.carried_cvp(turn, table.losses_count, gone, hidden) if carried else 0
            gone_lines[gone.ref]["cvp"] = cvp
    # An RG whose last line the roll took away is eliminated (PHD TM11).
    purchases.retire_emptied(turn, [u for u in made_by if u.pk is None])
    spent = availability.eliminated_by_roll(table)
    used_up = (
        Purchase.objects.get(campaign=c, side=turn.side, ref=group_ref)
        if spent and group_ref
        else None
    )
    if used_up is not None and group is not None and group.records_hex and used_up.recorded_hex:
        # The hex it was recorded with (footnote i's Pre-Registered hex) the result reads.
        item += f", {group.records_hex.label} {used_up.recorded_hex}"
    what = f"{table.title}{f' for {item}' if item else ''}"
    # A roll for a unit of a secret RG is that unit's secret (nothing of it shows); a
    # secret table's roll shows that it was made (``visibility.SECRET_ROLL``).
    kept = (
        units.kept_secret(unit)
        if hidden and unit is not None
        else RG_ROLLS.kept(turn.side)
        if module_secret is not None
        else SAN_ROLL.kept(turn.side)
        if san_kept
        else SECRET_ROLL.kept(
            turn.side, secret=table.secret, side=turn.side_name(), table=table.title
        )
    )
    turn.record(
        EventKind.ROLL,
        text=f"{turn.side_name()} rolled on the {what}: {dice_service.describe(r)}."
        + (f" {consequence}." if consequence else ""),
        secret=kept,
        data={
            "roll": r.seq,
            **({"purchase": purchase_id} if purchase_id else {}),
            **({"to_place": placing} if placing else {}),
            **({"rejoined": rejoined} if rejoined else {}),
            **({"unit_kind": rolled_kind} if rolled_kind else {}),
            **({"gone": gone_lines} if gone_lines else {}),
        },
    )
    if used_up is not None and spent:
        # The roll places the AR counter in its hex: no longer secret (footnote i).
        release_hex(used_up)
        # British chart footnote i: "that Bombardment RG is Eliminated".
        purchases.set_state(turn, used_up, Purchase.State.ELIMINATED, rule=spent)
    commit(c.pk, PurchaseChanged(kept=kept) if used_up else RollMade(kept=kept), saving=writes)
    return r


def _on_stack(
    turn: Turn, table: Table, r: Roll, effects: list[Effect], stack: list[Unit], *, secret: bool
) -> str:
    """A stack's one roll, written on its units: a row its ``random`` lists on the one
    Random Selection picks (3.606 footnote 3), any other on each; then each unit still
    retained is settled by ``after_roll`` (3.6061: all of them escaped)."""
    assert table.stack is not None
    words = []
    on = stack
    if falls_on_one(table, r.final, sum(r.faces)):
        picked, said = stacks.random_selection(turn, table, stack, secret=secret)
        if isinstance(table.result_row(r.final, sum(r.faces)), OriginalRoll):
            said += f": {units.label(picked)} has the Heat of Battle (A15), on the map"
        words.append(said)
        on = [picked]
    settled = []
    for u in stack:
        if u in on:
            words.append(apply_effects(turn, table, effects, u))
            u = u.replaced_by or u
        settled.append(u)
    for u in settled:
        if u.pk is not None:
            words.append(units.settle_rolled(table.after_roll, u))
    return "; ".join(w for w in words if w)


def with_unit_morale(
    module: Module,
    table: Table,
    context: RollContext,
    unit: Unit | None,
    typed: Mapping[str, int] | None = None,
) -> RollContext:
    """``context`` with the Morale of the unit rolled for, which a DRM of ``table``
    counts (APD 2.5's 1TC: "Each Encircled unit must take a 1TC"; Sicily 3.6041), read
    from the counter its line names, a vehicle's from its Inherent crew's counter
    (``Module.inherent_crews``, Sicily 3.6041 EXC); a line that names none is refused
    in words, unless the Morale is only read for a count the player may type instead
    (``Drm.read``): then typed, the roll not made without it (PHD C5.8: a Hero recorded
    as "Hero" names no counter, its Morale is asked for once, never refused for good)."""
    morale = None
    if unit is not None and unit.kind in WEAPON_CARRIERS:  # its Inherent crew's (3.6041 EXC)
        crew = inherent_crew(module.inherent_crews, unit.state)
        morale = unit_morale(crew.unit, crew.kind) if crew and crew.unit else None
    elif unit is not None:
        morale = unit_morale(unit.name, unit.kind, unit.markers)
    if morale is None and morale_is_read(table):  # typed instead
        untyped = [d for d in table.drms if d.read == "unit_morale" and d.id not in (typed or {})]
        if untyped:
            what = units.label(unit) if unit is not None else "this roll"
            raise DrmRefused(
                f"Enter '{untyped[0].label}' for {what}: its line names no counter to read "
                f"it from ({untyped[0].rule or table.rule}); the roll is not made without it."
            )
        return context
    if morale is None:
        what = units.label(unit) if unit is not None else "this roll"
        raise DrmRefused(
            f"The {table.title} ({table.rule}) is taken against the unit's Morale, read "
            f"from its counter (e.g. “4-6-7”, “8-1 leader”): {what} names none. Correct "
            "its line on your retained forces first."
        )
    return dataclasses.replace(context, inputs={**context.inputs, "unit_morale": morale})


@transaction.atomic
def take_instead_of_roll(
    *, campaign_id: object, user: User, table_id: str, mmc_id: str = "", at: str | None = None
) -> Unit:
    """Take what a table of the step offers instead of its roll (PHD C5.24a: a 7-0
    leader promoted out of the Ranks), within its limit, once in a pass and never
    beside the roll; created from the MMC ``mmc_id`` designates where the table says
    so, in its Location."""
    turn = take_turn(campaign_id, user, at)
    expect_turn(turn, Action.ROLL)
    step, c = turn.step, turn.campaign
    table = turn.module.table(table_id) if table_id in step.tables else None
    if table is None or table.instead is None:
        raise ActionRefused(f"{step.id} {step.title} offers nothing instead of a roll.")
    leaders, squads, half_squads = units.strength_counts(c, turn.side)
    refusal = availability.instead_refusal(
        table,
        leaders=leaders,
        squads=squads,
        half_squads=half_squads,
        rolled=Roll.objects.filter(
            campaign=c, cycle=c.cycle, table_id=table.id, side=turn.side
        ).exists(),
        taken=units.took_instead(c, turn.side, table.id),
        designable=units.designable_mmc(c, turn.side, table.instead.mmc_not_named),
    )
    if refusal:
        raise ActionRefused(refusal, status=409)
    new = availability.instead_units(table)
    source = _designated(turn, table.instead, mmc_id, new.name)
    unit = Unit.objects.create(
        campaign=c,
        side=turn.side,
        name=new.name,
        kind=new.kind,
        count=new.count,
        location=source.location if source is not None else "",
    )
    made = (
        f", created from the {source.name}" + (f" in {source.location}" if source.location else "")
        if source is not None
        else ""
    )
    turn.record(
        EventKind.UNIT,
        text=f"{turn.side_name()}: {availability.instead_words(table)}; a {new.name} joins "
        f"the retained forces{made}.",
        data={"instead": table.id, "cycle": c.cycle},
    )
    commit(c.pk, RollMade())
    return unit


def _designated(turn: Turn, instead: InsteadOfRoll, mmc_id: str, new: str) -> Unit | None:
    """The MMC the side designates to create ``new`` from (PHD C5.24a "from any
    designated (non-crew) MMC, provided there is no leader in that location"); None
    where the table creates it from none."""
    if not instead.from_mmc:
        return None
    rule = instead.rule
    if not mmc_id:
        raise ActionRefused(
            f"Designate the MMC the {new} is created from ({rule}). Nothing was changed."
        )
    mmc = units.own_unit(turn, mmc_id)
    if mmc in units.designable_lines(turn.campaign, turn.side, instead):
        return mmc
    anywhere = instead.model_copy(update={"no_leader_in_location": False})
    if mmc in units.designable_lines(turn.campaign, turn.side, anywhere):
        raise ActionRefused(
            f"A leader of yours is in {mmc.location} with {units.label(mmc)}: the {new} is "
            f"created only from an MMC with no leader in its location ({rule}). Nothing "
            "was changed.",
            status=409,
        )
    raise ActionRefused(
        f"{units.label(mmc)} is not one of your MMC the {new} may be created from (not "
        f"captured, not a {' or '.join(instead.mmc_not_named) or 'SMC'}) ({rule}). Nothing "
        "was changed.",
        status=409,
    )


def mmc_hardening(campaign: Campaign, side: str, table: Table) -> Hardening:
    """What ``side``'s roll on ``table`` in this pass lets it Battle Harden (PHD C5.23):
    how many MMC (None: not rolled yet), how many it has, and every unit Battle
    Hardened in this pass (C5.22's Heroes included)."""
    r = (
        Roll.objects.visible_to(side)
        .filter(campaign=campaign, cycle=campaign.cycle, table_id=table.id, side=side)
        .order_by("seq")
        .first()
    )
    allowed = None
    if r is not None:
        column = table.column_for_side.get(side)
        allowed = mmc_to_harden(result_effects(table, r.final, column, sum(r.faces)))
    marked = marked_in_pass(campaign, side, "battle_hardened")
    return Hardening(allowed, sum(1 for _, t in marked if t == table.id), {u for u, _ in marked})


@transaction.atomic
def harden_mmc(
    *, campaign_id: object, user: User, table_id: str, unit_id: object, at: str | None = None
) -> Unit:
    """After its roll on a table whose result gives MMC to Battle Harden (PHD C5.23:
    "the number of MMC that may be Battle-Hardened (A15.3)"), the side marks one of its
    MMC Battle Hardened, up to that number; none twice in the ConPh."""
    turn = take_turn(campaign_id, user, at)
    expect_turn(turn, Action.ROLL)
    step, c = turn.step, turn.campaign
    table = turn.module.table(table_id) if table_id in step.tables else None
    if table is None or not hardens_mmc(table):
        raise ActionRefused(f"{step.id} {step.title} Battle Hardens no MMC.")
    unit = units.own_unit(turn, unit_id)
    allowed, used, hardened = mmc_hardening(c, turn.side, table)
    refusal = availability.harden_refusal(
        table, allowed=allowed, used=used, unit=unit.state, hardened=unit.ref in hardened
    )
    if refusal:
        raise ActionRefused(refusal, status=409)
    # The roll is secret (C5.23): the opponent reads the MMC as it was until released.
    one = units.held_one(unit, secret=table.secret)
    words = units.apply_outcome(one, UnitOutcome(status="battle_hardened"))
    secret = units.kept_secret(one)
    turn.record(
        EventKind.UNIT,
        secret=secret,
        text=f"{turn.side_name()}: {words} ({table.title}, {table.rule}).",
        data=units.marked_data(turn, one, "battle_hardened", table.id),
    )
    commit(c.pk, RollMade(kept=secret))
    return one


def mmc_reduction(campaign: Campaign, side: str, table: Table) -> tuple[int, int]:
    """What ``side``'s rolls on ``table`` in this pass make it Casualty Reduce (PHD C5.28
    note 2: one MMC for each original 6): how many MMC, and how many it has reduced."""
    allowed = sum(n for _, n in reducing_rolls(campaign, side, table))
    marked = marked_in_pass(campaign, side, "reduced")
    return allowed, sum(1 for _, t in marked if t == table.id)


def reducing_rolls(campaign: Campaign, side: str, table: Table) -> list[tuple[str, int]]:
    """``side``'s rolls on ``table`` in this pass whose result Casualty Reduces its MMC
    (PHD C5.28 note 2: an original 6 vs mines), each as its item and how many MMC."""
    column = table.column_for_side.get(side)
    rolls = Roll.objects.visible_to(side).filter(
        campaign=campaign, cycle=campaign.cycle, table_id=table.id, side=side
    )
    found = [
        (r.item, mmc_to_reduce(result_effects(table, r.final, column, sum(r.faces)), r.item))
        for r in rolls.order_by("seq")
    ]
    return [(item, n) for item, n in found if n]


def reduction_owed(turn: Turn) -> str:
    """Why the side's Done waits at this step ("" : it does not): a roll's Casualty
    Reduction it has not named (PHD C5.28 note 2: "an original dr of 6 results in
    Casualty Reduction for one MMC"), while it holds an MMC it may fall on."""
    for table in map(turn.module.table, turn.step.tables):
        if not reduction(table)[0]:
            continue
        allowed, used = mmc_reduction(turn.campaign, turn.side, table)
        if used >= allowed:
            continue
        held = held_with_footnotes(turn, turn.side, list(MMC_KINDS))
        refusal = availability.reduction_owed_refusal(
            table,
            allowed=allowed,
            used=used,
            items=[item for item, _ in reducing_rolls(turn.campaign, turn.side, table)],
            held=held,
        )
        if refusal:
            return refusal
    return ""


@transaction.atomic
def reduce_mmc(
    *, campaign_id: object, user: User, table_id: str, unit_id: object, at: str | None = None
) -> Unit:
    """After its roll on a table whose original roll Casualty Reduces one of the side's
    MMC (PHD C5.28 note 2: "vs a Known Minefield, an original dr of 6 results in
    Casualty Reduction for one MMC (Engineer if possible, otherwise owner's choice of
    Elite MMC ...)"), its owner names the MMC: one per such roll, of the first class
    of MMC the side holds; a squad is reduced to a HS, a HS eliminated (A7.302)."""
    turn = take_turn(campaign_id, user, at)
    expect_turn(turn, Action.ROLL)
    step, c = turn.step, turn.campaign
    table = turn.module.table(table_id) if table_id in step.tables else None
    if table is None or not reduction(table)[0]:
        raise ActionRefused(f"{step.id} {step.title} Casualty Reduces no MMC.")
    unit = units.own_unit(turn, unit_id)
    allowed, used = mmc_reduction(c, turn.side, table)
    held = held_with_footnotes(turn, turn.side, list(MMC_KINDS))
    group = turn.module.group(turn.side, unit.purchase.group_id) if unit.purchase else None
    refusal = availability.reduce_refusal(
        table,
        allowed=allowed,
        used=used,
        unit=(units.state_of(unit), list(group.footnotes) if group else []),
        held=held,
        side=turn.side,
    )
    if refusal:
        raise ActionRefused(refusal, status=409)
    one = units.held_one(unit, secret=table.secret)
    ref, hidden = one.ref, units.is_secret(one)
    words = units.apply_outcome(one, casualty_reduced(units.state_of(one)))
    secret = units.kept_secret(one) if one.pk else None
    writes: list[SeatField] = []
    if one.pk is None or not Unit.objects.filter(pk=one.pk).exists():
        # Eliminated: a loss of the scenario just played (C5.1).
        carried, writes = losses.carry_loss(turn, table.losses_count, one, hidden)
        words = "; ".join(w for w in (words, carried) if w)
    turn.record(
        EventKind.UNIT,
        secret=secret,
        text=f"{turn.side_name()}, Casualty Reduction ({table.title}, {table.rule}): {words}.",
        data={**units.marked_data(turn, one, "reduced", table.id), "marked": ref},
    )
    commit(c.pk, RollMade(kept=secret), saving=writes)
    return one


def rolled_for(turn: Turn, table: Table, unit_id: object) -> tuple[Unit | None, WeaponState | None]:
    """The retained unit a roll on ``table`` is for, and the weapon of its record where
    the table is rolled for a vehicle's weapons ("<unit>.<weapon>": Sicily 3.6142 "a
    separate dr ... for each malfunctioned ... Weapon"): required, and of the kinds and
    statuses the table names, where it is rolled for units; refused if it has had its
    one roll on the table in this pass.  A line of several identical units gives up the
    one rolled for, as a line of its own."""
    unit_ref, _, weapon_ref = (unit_id if isinstance(unit_id, str) else "").partition(".")
    unit = units.unit_for_roll(turn, unit_ref or None)
    flt = table.for_units
    if flt is None:
        if unit is not None:
            raise ActionRefused(f"The {table.title} is not rolled for a unit: say what it is for.")
        return None, None
    wanted = units.describe_filter(flt)
    if unit is None:
        raise ActionRefused(f"Choose which of your {wanted} the {table.title} roll is for.")
    found = dict(targets(flt, units.located_state(unit)))
    weapon = unit.state.weapon(weapon_ref) if weapon_ref else None
    what = units.label(unit) + (f" {weapon.name}" if weapon else "")
    if weapon_ref and weapon is None:
        raise ActionRefused(f"{units.label(unit)} carries no such weapon.", status=404)
    if weapon_ref not in found:
        if not weapon_ref and any(found):
            raise ActionRefused(
                f"The {table.title} is rolled for a vehicle's weapon: choose which of "
                f"{units.label(unit)}'s weapons the roll is for ({table.rule})."
            )
        raise ActionRefused(
            f"{what} is not one of your {wanted}: the {table.title} is not rolled for it "
            f"({table.rule})."
        )
    sent = sent_to(turn.campaign, turn.module, table.id, turn.side)
    if sent is not None and table.after is not None and unit.ref not in sent:
        earlier = turn.module.table(table.after.table)
        raise ActionRefused(not_sent_refusal(table, earlier, what), status=409)
    if table.once == "unit" and stacks.rolled_in_pass(
        turn, table, units.roll_ref(unit, weapon_ref)
    ):
        raise ActionRefused(
            f"{what} has made its one {table.title} roll in this pass "
            f"({table.once_rule or table.rule}).",
            status=409,
        )
    return units.split_one(unit), weapon


def unit_item(turn: Turn, table: Table, unit: Unit, what: str) -> str:
    """What a roll made once per item *of a unit* is for (Sicily 3.61424: a dr "for each
    type of special ammunition which is depleted ... for that weapon"): the unit and the
    item the player names, refused unnamed or already rolled for that unit in this
    pass."""
    rolled = Roll.objects.filter(
        campaign=turn.campaign,
        cycle=turn.campaign.cycle,
        table_id=table.id,
        unit_ref=units.roll_ref(unit),
    ).values_list("item", flat=True)
    refusal = availability.unit_item_refusal(table, units.label(unit), what, list(rolled))
    if refusal:
        raise ActionRefused(refusal, status=409)
    return availability.unit_item(units.label(unit), what)


def apply_effects(
    turn: Turn,
    table: Table,
    effects: list[Effect],
    unit: Unit | None,
    weapon: WeaponState | None = None,
    *,
    item: str = "",
    rejoined: list[str] | None = None,
) -> str:
    """Apply a result's effects to the unit (or its weapon) rolled for and to the side;
    in words.  ``item``: what an item roll was for (its weapon may rejoin: its line's
    reference is added to ``rejoined``, which the roll's log line keeps)."""
    words = []
    rolled_for = (table.for_units.statuses if table.for_units else None) or ()
    if unit is not None and weapon is not None:
        done = on_weapon(effects, units.state_of(unit), weapon)
        words.append(units.apply_weapon_outcome(unit, weapon, done, rolled_for))
    elif unit is not None:
        state = units.state_of(unit)
        outcome = on_unit(effects, state, units.ladder(turn.module), turn.module.tables, turn.side)
        words.append(units.apply_outcome(unit, outcome, rolled_for))
        if crew_escapes(effects, state):
            marker = crew_marker(effects, state)
            words.append(units.crew_escapes(turn, table.rule, unit, state, marker=marker))
    words.append(units.battle_harden(turn, effects, table.leaders_not_named, table))
    seat = turn.seat
    if any(e.do == "san" for e in effects):
        before = seat.san or 0
        seat.san = san_after(effects, before)
        seat.save(update_fields=["san"])
        words.append(f"{turn.side_name()} SAN {before} → {seat.san}")
    for new in units_given(effects):
        Unit.objects.create(
            campaign=turn.campaign, side=turn.side, name=new.name, kind=new.kind, count=new.count
        )
        words.append(f"{new.count} × {new.name} join the retained forces")
    for effect in effects:
        if effect.do == "rejoin" and unit is None and effect.kind is not None:
            # PHD C5.26b: the Baz/Psk/FT/DC removed from play and Repaired is back.
            name = availability.item_weapon(table, turn.side, item) or item
            back = Unit.objects.create(
                campaign=turn.campaign, side=turn.side, name=name, kind=effect.kind
            )
            said = f"{name} rejoins the retained forces"
            if rejoined is not None:
                rejoined.append(back.ref)
            cap = table.repair_cap
            if cap is not None and availability.repair_cap_weapon(table, name):
                # C5.26b: an Assault Engineer MMC possesses each repaired FT/DC.
                holder = cap_possessor(turn, back, cap)
                if holder is not None:
                    back.possessor = holder
                    back.save(update_fields=["possessor"])
                    said += f", possessed by {units.label(holder)} ({cap.rule})"
            words.append(said)
    gid = granted_group(effects)
    if gid:
        p = purchases.receive_group(turn, gid, f"{table.title}, {table.rule}", table.gives_type)
        words.append(f"{turn.side_name()} receives {p.group_id} {p.group_type}")
    return "; ".join(w for w in words if w)


@transaction.atomic
def enter_scenario_result(
    *, campaign_id: object, user: User, values: Mapping[str, Any], at: str | None = None
) -> ScenarioResult:
    """One player enters the finished scenario's outcome; the other confirms it."""
    turn = take_turn(campaign_id, user, at)
    expect_turn(turn, Action.RESULT)
    c = turn.campaign
    if ScenarioResult.objects.filter(campaign=c, cycle=c.cycle).exists():
        raise ActionRefused(
            "The result is already entered: confirm it, or dispute it to enter it anew.",
            status=409,
        )
    data = clean_result(turn.module, values, c.date_index)
    result = ScenarioResult.objects.create(
        campaign=c, cycle=c.cycle, date_index=c.date_index, data=data, entered_by=turn.side
    )
    mark_done(turn)
    turn.record(
        EventKind.RESULT_ENTERED,
        text=f"{turn.side_name()} entered the scenario result: "
        f"{describe_result(turn.module, data)}.",
    )
    commit(c.pk, ResultEntered(), saving=update_waiting(turn))
    return result


def _entered(turn: Turn, action: Action) -> ScenarioResult:
    expect_turn(turn, action)
    c = turn.campaign
    result = ScenarioResult.objects.filter(campaign=c, cycle=c.cycle).first()
    if result is None:
        raise ActionRefused("No result has been entered yet: enter it first.", status=409)
    return result


@transaction.atomic
def confirm_scenario_result(*, campaign_id: object, user: User, at: str | None = None) -> None:
    turn = take_turn(campaign_id, user, at)
    result = _entered(turn, Action.CONFIRM)
    result.confirmed_at = timezone.now()
    result.save(update_fields=["confirmed_at"])
    mark_done(turn)
    turn.record(
        EventKind.RESULT_CONFIRMED,
        text=f"{turn.side_name()} confirmed the scenario result.",
    )
    advance(turn)
    commit(turn.campaign.pk, ResultConfirmed(), saving=update_waiting(turn))


@transaction.atomic
def dispute_scenario_result(
    *, campaign_id: object, user: User, reason: str, at: str | None = None
) -> None:
    """Reject the entered result: it is withdrawn and either player enters it anew."""
    turn = take_turn(campaign_id, user, at)
    reason = clean_text(reason, what="The reason", limit=DISPUTE_REASON_LIMIT)
    result = _entered(turn, Action.DISPUTE)
    if not reason:
        raise ActionRefused("Say what is wrong with the result, so it can be put right.")
    c = turn.campaign
    StepMark.objects.filter(campaign=c, cycle=c.cycle, step_index=c.step_index).delete()
    disputed = result.data
    result.delete()
    turn.record(
        EventKind.RESULT_DISPUTED,
        text=f"{turn.side_name()} disputed the scenario result: “{reason}”. "
        "It must be entered again.",
        # The figures disputed, for the form that enters it again (public, as entered).
        data={"cycle": c.cycle, "disputed": disputed, "reason": reason},
    )
    turn.forget_done()
    # The reason is said in the players' thread too.
    commit(c.pk, ResultDisputed(), saving=update_waiting(turn))


# --------------------------------------------------------------------------- amendments


def _amendable(turn: Turn) -> ScenarioResult:
    """The pass's confirmed result, while it may still be amended (before a step reads
    it), locked with the campaign."""
    result = pass_result(turn.campaign)
    refusal = availability.amendment_refusal(
        turn.module,
        turn.snapshot(),
        result is not None,
        result_read_by(turn.campaign, turn.module),
    )
    if refusal:
        raise ActionRefused(refusal, status=409)
    assert result is not None
    return result


@transaction.atomic
def propose_result_amendment(
    *,
    campaign_id: object,
    user: User,
    values: Mapping[str, Any],
    reason: str,
    at: str | None = None,
) -> None:
    """Propose new figures for the confirmed scenario result (losses of the Clean-Up or
    ConPh, a figure entered wrong) with the reason; the opponent accepts or refuses.
    Possible until a step reads the result."""
    turn = take_turn(campaign_id, user, at)
    reason = clean_text(reason, what="The reason", limit=DISPUTE_REASON_LIMIT)
    result = _amendable(turn)
    if result.amendment is not None:
        # One open proposal at a time, never changed under the opponent's answer.
        raise ActionRefused(
            "Your amendment awaits your opponent's answer: withdraw it first to change it."
            if result.amendment_by == turn.side
            else f"{turn.side_name(result.amendment_by)} has proposed an amendment: accept "
            "or refuse it first.",
            status=409,
        )
    if not reason:
        raise ActionRefused(
            "Say why the result changes (e.g. the CVP lost in the Clean-Up), so your "
            "opponent can check it."
        )
    data = clean_result(turn.module, values, result.date_index)
    changes = describe_changes(turn.module, result.data, data)
    if not changes:
        raise ActionRefused("These are the figures already agreed: change one to amend them.")
    adjusted = machine.san_reader(turn.module)
    if (
        data.get(SAN) != result.data.get(SAN)
        and adjusted is not None
        and turn.campaign.step_index >= adjusted
    ):
        step = turn.module.steps[adjusted]
        raise ActionRefused(
            f"The SANs were adjusted at {step.id} {step.title}: they stand as adjusted. "
            "Amend the other figures only.",
            status=409,
        )
    # Figures the replenishment already made cannot take (its dice stand) are refused
    # here, where the proposer clicked, not left for the opponent's acceptance to refuse.
    recompute.amendment_refusal(turn, result, data)
    result.amendment, result.amendment_by, result.amendment_reason = data, turn.side, reason
    result.save(update_fields=["amendment", "amendment_by", "amendment_reason"])
    other = machine.opponent(turn.module, turn.side)
    turn.record(
        EventKind.AMENDMENT,
        text=f"{turn.side_name()} proposes to amend the scenario result: {changes} "
        f"(“{reason}”); {turn.side_name(other)} is to accept or refuse it.",
    )
    commit(turn.campaign.pk, AmendmentProposed(), saving=update_waiting(turn))


@transaction.atomic
def answer_result_amendment(
    *, campaign_id: object, user: User, accept: bool, at: str | None = None
) -> None:
    """The opponent accepts the proposed figures (they replace the result, and what the
    result decides is decided again: SANs, the CG victory conditions) or refuses them;
    the proposer may withdraw them."""
    turn = take_turn(campaign_id, user, at)
    result = _amendable(turn)
    if result.amendment is None:
        raise ActionRefused("No amendment of the result is proposed.", status=409)
    mine = result.amendment_by == turn.side
    if accept and mine:
        raise ActionRefused(
            "Your opponent accepts or refuses your amendment; you may withdraw it.", status=409
        )
    changes = describe_changes(turn.module, result.data, result.amendment)
    new = result.amendment
    result.amendment, result.amendment_by, result.amendment_reason = None, "", ""
    if accept:
        old = result.data
        result.data = new
        result.save(update_fields=["data", "amendment", "amendment_by", "amendment_reason"])
        turn.record(
            EventKind.AMENDMENT,
            text=f"{turn.side_name()} accepts the amendment: {changes}. The result is amended.",
        )
        # Only the SANs the amendment changed: the others stand as they may have been
        # adjusted since.
        before = old.get(SAN, {})
        record_sans(turn, {SAN: {s: v for s, v in new.get(SAN, {}).items() if before.get(s) != v}})
        # What a step has computed from the result already is computed again.
        writes = recompute.recompute_consequences(turn, result)
        units.resettle_after_amendment(turn, old, new)
        if not victory_deferred(turn) or recompute.hooks_run(turn):
            check_cg_victory(turn)
    else:
        writes = []
        result.save(update_fields=["amendment", "amendment_by", "amendment_reason"])
        what = "withdraws its" if mine else "refuses the"
        turn.record(
            EventKind.AMENDMENT,
            text=f"{turn.side_name()} {what} amendment of the result; the agreed figures stand.",
        )
    commit(turn.campaign.pk, AmendmentAnswered(), saving=[*writes, *update_waiting(turn)])


# --------------------------------------------------------------------------- results


def clean_result(
    module: Module, values: Mapping[str, Any], date_index: int
) -> dict[str, dict[str, Any]]:
    """Validate the entered outcome against the result fields the scenario of the CG
    date at ``date_index`` asks (a field it does not ask is not recorded)."""
    data: dict[str, dict[str, Any]] = {}
    for f in asked_fields(module, date_index):
        data[f.id] = {}
        for side in result_owners(module, f):
            key = f"{f.id}.{side}"
            raw = values.get(key)
            label = f"{f.label} ({module.side(side).name})"
            if f.kind == "bool":
                data[f.id][side] = raw in (True, "on", "true", "1", "yes")
            elif f.kind == "text":
                data[f.id][side] = clean_text(raw or "", what=label, limit=RESULT_TEXT_LIMIT)
            else:
                number = whole_number(raw, what=label)
                if not 0 <= number <= 9999:
                    raise ActionRefused(f"{label}: must be between 0 and 9999.")
                data[f.id][side] = number
    return data


def describe_result(module: Module, data: Mapping[str, Mapping[str, Any]]) -> str:
    parts = []
    for f in module.result_fields:
        for side, value in data.get(f.id, {}).items():
            shown = ("yes" if value else "no") if f.kind == "bool" else value
            parts.append(f"{f.label} {module.side(side).name} {shown}")
    return "; ".join(parts) or "no figures"


@transaction.atomic
def forgo_points(*, campaign_id: object, user: User, amount: int, at: str | None = None) -> None:
    """Forgo part of one's replenishment; the opponent's base loses as much (3.616
    EXC), and the side has done the step."""
    turn = take_turn(campaign_id, user, at)
    snap = turn.snapshot()
    module = turn.module
    offered = availability.forgo_not_offered(
        module, turn.campaign.variant, turn.side, turn.campaign.date_index
    )
    if offered:
        raise ActionRefused(offered, status=409)
    expect_turn(turn, Action.FORGO, snap)
    allotted = replenished_on_date(turn.campaign, turn.side)
    rule = availability.check_forgo(module, snap, amount, allotted)
    seat, other = turn.seat, turn.seats[rule.from_side]
    seat.points -= amount
    seat.save(update_fields=["points"])
    taken = availability.forgo_taken(module, rule, turn.campaign.date_index, amount, other.points)
    other.points -= taken
    other.save(update_fields=["points"])
    # The date's replenishment records say what each side gave up (the CG Roster's
    # "Repl" column, and so 3.617's "Left", read what it keeps): the forgone CPP off the
    # forgoer's, as many off the other side's base ("subtracted from the Axis CPP
    # base").  Kept apart from "repl", which a replenishment computed again from an
    # amended result replaces (``recompute``): the forgone CPP stay forgone.
    for side, less in ((turn.side, amount), (other.side, taken)):
        made = replenishment_record(turn.campaign, side)
        if made is not None and less and isinstance(made.data, dict):
            made.data = {**made.data, "forgone": int(made.data.get("forgone", 0)) + less}
            made.save(update_fields=["data"])
    code = module.currency.code
    turn.record(
        EventKind.FORGO,
        text=f"{turn.side_name()} forgoes {amount} {code}; the {module.side(other.side).name} "
        f"{code} are reduced by {taken} ({rule.rule}).",
    )
    mark_done(turn)
    advance(turn)
    commit(turn.campaign.pk, PointsForgone())
