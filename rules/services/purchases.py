"""Secret purchases: Reinforcement Groups, their secret rolls, fortifications and
recon.  Everything runs with the campaign row and the side's points row locked; the
database refuses negative points and counts above the module's maxima by itself."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from campaign.models import Event, FortificationBuy, Purchase, ReconBuy, Roll, Seat
from rules.drm import RollContext, applicable_drms, holds
from rules.purchase import Bought, cost_options, retained_tags, unavailable
from rules.schema import ReinforcementGroup
from rules.services import dice as dice_service
from rules.services.errors import ActionRefused
from rules.services.log import changed, record_event
from rules.services.sequence import Turn, expect_turn, roll_context, take_turn
from rules.services.units import units_from_purchase

MAX_FORTIFICATIONS_PER_BUY = 50


def _locked_seat(turn: Turn) -> Seat:
    seat = Seat.objects.select_for_update().get(pk=turn.seat.pk)
    turn.seat = seat
    return seat


def bought(campaign, side: str) -> list[Bought]:
    return [
        Bought(p.group_id, p.date_index)
        for p in Purchase.objects.filter(campaign=campaign, side=side, status="active")
    ]


def held_tags(turn: Turn) -> set[str]:
    """Tags of the RGs the side holds: its initial RGs and its active purchases."""
    chart = turn.module.chart(turn.side)
    if chart is None:
        return set()
    initial = turn.module.variant(turn.campaign.variant).initial_rgs.get(turn.side, [])
    return retained_tags(chart, [*initial, *(b.group_id for b in bought(turn.campaign, turn.side))])


def _group(turn: Turn, group_id: str) -> ReinforcementGroup:
    chart = turn.module.chart(turn.side)
    if chart is None or chart.missing:
        raise ActionRefused(
            f"The rules text lacks the {turn.side_name()} RG chart"
            f"{f' ({chart.rule})' if chart else ''}; the host must supply it in a module "
            "override before anything can be bought.",
            status=409,
        )
    group = next((g for g in chart.groups if g.id == group_id), None)
    if group is None:
        raise ActionRefused(f"There is no RG '{group_id[:16]}' on your chart.")
    return group


def _free(used: set[int], maximum: int | None) -> int:
    n = 1
    while n in used:
        n += 1
    return n if maximum is None or n <= maximum else maximum + 1


@transaction.atomic
def purchase_rg(
    *,
    campaign_id,
    user: AbstractBaseUser,
    group_id: str,
    cost_variant: str = "",
    at: str | None = None,
) -> Purchase:
    """Buy one RG, secretly, within every limit of the module."""
    turn = take_turn(campaign_id, user, at)
    expect_turn(turn, "purchase")
    seat = _locked_seat(turn)
    c, module = turn.campaign, turn.module
    group = _group(turn, group_id)
    reasons = unavailable(
        module,
        variant=c.variant,
        side=turn.side,
        group=group,
        date_index=c.date_index,
        bought=bought(c, turn.side),
        retained_tags=held_tags(turn),
    )
    if reasons:
        raise ActionRefused(
            f"{group.id} {group.type} cannot be bought: " + "; ".join(reasons) + "."
        )
    option = next(
        (o for o in cost_options(module, turn.side, group) if o.variant == cost_variant), None
    )
    if option is None:
        raise ActionRefused(f"{group.id} cannot be bought at that price.")
    code = module.currency.code
    if option.cost > seat.points:
        raise ActionRefused(
            f"Not enough {code}: {group.id} {group.type} costs {option.cost} ({option.label}); "
            f"you have {seat.points} left."
        )
    mine = Purchase.objects.filter(campaign=c, side=turn.side, group_id=group.id, status="active")
    cg_max = group.cg_max.get(c.variant)
    purchase = Purchase.objects.create(
        campaign=c,
        side=turn.side,
        cycle=c.cycle,
        date_index=c.date_index,
        group_id=group.id,
        group_type=group.type,
        cost_variant=option.variant,
        cost=option.cost,
        ordinal=_free(set(mine.values_list("ordinal", flat=True)), cg_max),
        cg_max=cg_max,
        date_ordinal=_free(
            set(mine.filter(date_index=c.date_index).values_list("date_ordinal", flat=True)),
            group.date_max,
        ),
        date_max=group.date_max,
        units=None if group.depletable else group.full,
    )
    seat.points -= option.cost
    seat.fortification_points += group.grants.get("fortification_points", 0)
    if group.grants.get("san"):
        seat.san = (seat.san or 0) + group.grants["san"]
    seat.save(update_fields=["points", "fortification_points", "san"])
    how = "" if not option.variant else f", {option.label}"
    record_event(
        c,
        kind="purchase",
        side=turn.side,
        step_id=turn.step.id,
        secret_side=turn.side,
        text=f"{turn.side_name()} bought {group.id} {group.type} for {option.cost} {code}"
        f"{how}; {seat.points} {code} left.",
        data={"purchase": purchase.pk},
    )
    changed(c)
    return purchase


def _own_purchase(turn: Turn, purchase_id) -> Purchase:
    try:
        pid = int(purchase_id)
    except (TypeError, ValueError):
        pid = None
    purchase = (
        Purchase.objects.select_for_update()
        .filter(pk=pid, campaign=turn.campaign, side=turn.side, status="active")
        .first()
        if pid
        else None
    )
    if purchase is None:
        raise ActionRefused("You have no such purchase.", status=404)
    return purchase


@transaction.atomic
def cancel_purchase(*, campaign_id, user: AbstractBaseUser, purchase_id, at: str | None = None):
    """Refund a purchase: only in the purchase step, before its secret rolls."""
    turn = take_turn(campaign_id, user, at)
    purchase = _own_purchase(turn, purchase_id)
    expect_turn(turn, "purchase")
    if purchase.cycle != turn.campaign.cycle:
        raise ActionRefused("Only this date's purchases can be cancelled.", status=409)
    if purchase.rolled_at is not None:
        raise ActionRefused(
            f"{purchase.group_id}'s secret rolls are made: it can no longer be cancelled.",
            status=409,
        )
    seat = _locked_seat(turn)
    group = _group(turn, purchase.group_id)
    fpp = group.grants.get("fortification_points", 0)
    if fpp > seat.fortification_points:
        raise ActionRefused(
            f"The {turn.module.fortifications.currency if turn.module.fortifications else ''} "
            f"this RG gave are already spent: spend fewer first.",
            status=409,
        )
    seat.points += purchase.cost
    seat.fortification_points -= fpp
    if group.grants.get("san"):
        seat.san = (seat.san or 0) - group.grants["san"]
    seat.save(update_fields=["points", "fortification_points", "san"])
    purchase.status = Purchase.Status.CANCELLED
    purchase.save(update_fields=["status"])
    code = turn.module.currency.code
    record_event(
        turn.campaign,
        kind="cancel",
        side=turn.side,
        step_id=turn.step.id,
        secret_side=turn.side,
        text=f"{turn.side_name()} cancelled {purchase.group_id}; {purchase.cost} {code} refunded.",
    )
    changed(turn.campaign)


@transaction.atomic
def roll_for_purchase(*, campaign_id, user: AbstractBaseUser, purchase_id, at: str | None = None):
    """Make an RG's secret rolls (strength, SW, leaders, ...) now."""
    turn = take_turn(campaign_id, user, at)
    purchase = _own_purchase(turn, purchase_id)
    expect_turn(turn, "purchase", "strength")
    if purchase.rolled_at is not None:
        raise ActionRefused(f"{purchase.group_id}'s rolls are already made.", status=409)
    make_rolls(turn, purchase)
    changed(turn.campaign)


def make_rolls(turn: Turn, purchase: Purchase) -> None:
    """The module's post-purchase rolls for this RG, in the module's order; a strength
    result (row effect full/depleted) decides the units and what later rolls apply."""
    module = turn.module
    group = _group(turn, purchase.group_id)
    strength = "" if group.depletable else "full"
    results = []
    for pp in module.post_purchase:
        ctx = _purchase_ctx(turn, group, strength)
        if not holds(pp.applies_to, ctx):
            continue
        table = module.table(pp.table)
        if table.missing:
            results.append(
                {"table": table.title, "result": f"table missing from the module ({pp.rule})"}
            )
            continue
        r = dice_service.roll(
            turn.campaign,
            side=turn.side,
            kind=table.dice,
            purpose=table.title,
            drms=applicable_drms(table, ctx),
            table=table,
            item=f"{group.id} {group.type}",
            step_id=turn.step.id,
            secret=True,
            column=pp.column,
        )
        row = table.lookup(r.final)
        if row.effect in ("full", "depleted"):
            strength = row.effect
        results.append({"table": table.title, "result": r.result, "roll": r.seq})
    purchase.strength = strength or "full"
    purchase.units = group.depleted if purchase.strength == "depleted" else group.full
    purchase.details = {
        "rolls": results,
        "sw": group.sw if purchase.strength == "full" else {},
    }
    purchase.rolled_at = timezone.now()
    purchase.save(update_fields=["strength", "units", "details", "rolled_at"])
    units_from_purchase(purchase)
    summary = "; ".join(f"{x['table']}: {x['result']}" for x in results) or "no rolls"
    record_event(
        turn.campaign,
        kind="rg-rolls",
        side=turn.side,
        step_id=turn.step.id,
        secret_side=turn.side,
        text=f"{turn.side_name()} {purchase.group_id} {purchase.group_type}: {summary}.",
        data={"purchase": purchase.pk},
    )


def _purchase_ctx(turn: Turn, group: ReinforcementGroup, strength: str) -> RollContext:
    base = roll_context(turn)
    return RollContext(
        side=base.side,
        nationalities=base.nationalities,
        night=base.night,
        initial_scenario=base.initial_scenario,
        chose_attack_previous=base.chose_attack_previous,
        inputs=base.inputs,
        group=group,
        strength=strength or None,
    )


def roll_remaining(turn: Turn) -> None:
    """Finishing the strength step rolls for every RG of the side still unrolled."""
    for purchase in Purchase.objects.filter(
        campaign=turn.campaign, side=turn.side, status="active", rolled_at__isnull=True
    ):
        make_rolls(turn, purchase)


# --------------------------------------------------------------------------- reveal


def reveal_purchases(campaign, *, date_index: int | None = None) -> int:
    """Reveal purchases (and their rolls and log lines) up to ``date_index``."""
    qs = Purchase.objects.filter(campaign=campaign, revealed_at__isnull=True, status="active")
    if date_index is not None:
        qs = qs.filter(date_index__lte=date_index)
    return _reveal(campaign, list(qs))


def _reveal(campaign, purchases: list[Purchase]) -> int:
    now = timezone.now()
    ids = [p.pk for p in purchases]
    Purchase.objects.filter(pk__in=ids).update(revealed_at=now)
    seqs = [r["roll"] for p in purchases for r in p.details.get("rolls", []) if "roll" in r]
    Roll.objects.filter(campaign=campaign, seq__in=seqs).update(revealed_at=now)
    Event.objects.filter(
        campaign=campaign, kind__in=["purchase", "rg-rolls"], data__purchase__in=ids
    ).update(revealed_at=now)
    return len(ids)


@transaction.atomic
def reveal_purchase(*, campaign_id, user: AbstractBaseUser, purchase_id) -> None:
    """The owner reveals one RG (e.g. when it enters the map)."""
    turn = take_turn(campaign_id, user, None)
    purchase = _own_purchase(turn, purchase_id)
    if purchase.revealed_at is not None:
        raise ActionRefused(f"{purchase.group_id} is already revealed.", status=409)
    _reveal(turn.campaign, [purchase])
    strength = f" ({purchase.strength}, {purchase.units} units)" if purchase.strength else ""
    record_event(
        turn.campaign,
        kind="reveal",
        side=turn.side,
        text=f"{turn.side_name()} reveals {purchase.group_id} {purchase.group_type}{strength}.",
    )
    changed(turn.campaign)


# --------------------------------------------------------------------------- fortifications, recon


@transaction.atomic
def buy_fortification(
    *,
    campaign_id,
    user: AbstractBaseUser,
    item_id: str,
    count: int = 1,
    location: str = "",
    at: str | None = None,
) -> FortificationBuy:
    turn = take_turn(campaign_id, user, at)
    expect_turn(turn, "fortify")
    forts = turn.module.fortifications
    assert forts is not None
    item = next((i for i in forts.items if i.id == item_id), None)
    if item is None:
        raise ActionRefused("There is no such fortification in this CG.")
    if not 1 <= count <= MAX_FORTIFICATIONS_PER_BUY:
        raise ActionRefused(f"Buy between 1 and {MAX_FORTIFICATIONS_PER_BUY} at a time.")
    if item.sides is not None and turn.side not in item.sides:
        raise ActionRefused(
            f"{turn.side_name()} cannot buy {item.label} ({item.rule or forts.rule})."
        )
    if item.requires_retained and not set(item.requires_retained) & held_tags(turn):
        raise ActionRefused(
            f"{item.label} needs a retained {', '.join(item.requires_retained)} unit "
            f"({item.rule or forts.rule})."
        )
    seat = _locked_seat(turn)
    c = turn.campaign
    capped = item.cap_sides is None or turn.side in item.cap_sides
    so_far = FortificationBuy.objects.filter(campaign=c, side=turn.side, item_id=item.id)
    for cap, qs, where in (
        (item.per_cg_max, so_far, "per CG"),
        (item.per_date_max, so_far.filter(date_index=c.date_index), "per CG date"),
    ):
        have = sum(qs.values_list("count", flat=True))
        if capped and cap is not None and have + count > cap:
            raise ActionRefused(
                f"No more than {cap} {item.label} {where} ({item.rule or forts.rule}); "
                f"{have} bought so far."
            )
    cost = item.cost * count
    if cost > seat.fortification_points:
        raise ActionRefused(
            f"Not enough {forts.currency}: {count} × {item.label} cost {cost}; you have "
            f"{seat.fortification_points}."
        )
    seat.fortification_points -= cost
    seat.save(update_fields=["fortification_points"])
    buy = FortificationBuy.objects.create(
        campaign=c,
        side=turn.side,
        date_index=c.date_index,
        item_id=item.id,
        count=count,
        cost=cost,
        location=location.strip()[:200],
    )
    record_event(
        c,
        kind="fortify",
        side=turn.side,
        step_id=turn.step.id,
        secret_side=turn.side,
        text=f"{turn.side_name()} bought {count} × {item.label} for {cost} {forts.currency}.",
    )
    changed(c)
    return buy


def forfeit_fortification_points(turn: Turn) -> None:
    forts = turn.module.fortifications
    seat = Seat.objects.select_for_update().get(pk=turn.seat.pk)
    if forts and forts.forfeit_unspent and seat.fortification_points:
        lost = seat.fortification_points
        seat.fortification_points = 0
        seat.save(update_fields=["fortification_points"])
        record_event(
            turn.campaign,
            kind="forfeit",
            side=turn.side,
            step_id=turn.step.id,
            secret_side=turn.side,
            text=f"{turn.side_name()} forfeits {lost} unspent {forts.currency} ({forts.rule}).",
        )


@transaction.atomic
def buy_recon(
    *, campaign_id, user: AbstractBaseUser, option: int, at: str | None = None
) -> ReconBuy:
    turn = take_turn(campaign_id, user, at)
    expect_turn(turn, "recon")
    recon = turn.module.recon
    assert recon is not None
    c = turn.campaign
    if recon.not_for_initial and turn.module.dates[c.date_index].initial:
        raise ActionRefused(f"No Recon before an Initial Scenario ({recon.rule}).")
    if not 0 <= option < len(recon.options):
        raise ActionRefused("Choose one of the Recon options.")
    choice = recon.options[option]
    if ReconBuy.objects.filter(campaign=c, side=turn.side, date_index=c.date_index).exists():
        raise ActionRefused(f"Recon is bought once per CG date ({recon.rule}).", status=409)
    seat = _locked_seat(turn)
    code = turn.module.currency.code
    if choice.cost > seat.points:
        raise ActionRefused(
            f"Not enough {code}: Recon costs {choice.cost}; you have {seat.points}."
        )
    seat.points -= choice.cost
    seat.save(update_fields=["points"])
    from rules.drm import AppliedDrm

    drms = (
        [AppliedDrm("paid", f"paid {choice.cost} {code}", choice.drm, "auto")] if choice.drm else []
    )
    r = dice_service.roll(
        c,
        side=turn.side,
        kind=recon.dice,
        purpose=f"Recon ({recon.rule})",
        drms=drms,
        step_id=turn.step.id,
        secret=True,
    )
    buy = ReconBuy.objects.create(
        campaign=c,
        side=turn.side,
        date_index=c.date_index,
        cost=choice.cost,
        locations=r.final,
        roll_seq=r.seq,
    )
    record_event(
        c,
        kind="recon",
        side=turn.side,
        step_id=turn.step.id,
        secret_side=turn.side,
        text=f"{turn.side_name()} bought Recon for {choice.cost} {code}: "
        f"{dice_service.describe(r)} → {r.final} Locations.",
    )
    changed(c)
    return buy


@transaction.atomic
def record_entry_area(
    *, campaign_id, user: AbstractBaseUser, purchase_id, entry_area: str, notes: str = ""
) -> None:
    """Write the entry/set-up area and notes on one's own RG Purchase Record line."""
    turn = take_turn(campaign_id, user, None)
    purchase = _own_purchase(turn, purchase_id)
    purchase.entry_area = entry_area.strip()[:120]
    purchase.notes = notes.strip()[:500]
    purchase.save(update_fields=["entry_area", "notes"])
    changed(turn.campaign)
