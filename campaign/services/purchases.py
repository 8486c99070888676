"""Secret purchases: Reinforcement Groups, their secret rolls, fortifications and
recon.  Everything runs with the campaign row and the acting side's seat (its points)
locked; the database refuses negative points and counts above the module's maxima by
itself.  What may be bought, and why not, is the engine's (``rules.availability``):
the purchase page shows the same sentences."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from django.db import transaction
from django.db.models import CharField

from campaign.changes import (
    EntryAreaRecorded,
    PurchaseAdded,
    PurchaseCancelled,
    PurchaseChanged,
    PurchaseRevealed,
)
from campaign.models import AddedLater, EventKind, FortificationBuy, Purchase, ReconBuy, Seat, Unit
from campaign.prepared import CAMPAIGN, SIDE, Param, PreparedRead
from campaign.selectors import (
    active_purchases,
    bought_of,
    holdings,
    overspent,
    own_setup_areas,
    pass_result,
    result_totals,
)
from campaign.services import dice as dice_service
from campaign.services import units
from campaign.services.errors import ActionRefused
from campaign.services.events import logged
from campaign.services.purchase_records import (
    HEX_DATE,
    HEX_HELD,
    make_owed_rolls,
    make_rolls,
    owed_refusal,
    reveal,
    reveal_outcomes,
)
from campaign.services.text import clean_text, max_length
from campaign.services.turns import Turn, User, expect_turn, take_turn
from campaign.services.waiting import update_waiting
from campaign.services.writes import SeatField, commit
from campaign.visibility import ADDED_LATER, FORTIFICATION, PURCHASE, RECON, Kept
from rules import availability
from rules.drm import AppliedDrm
from rules.kinds import Action
from rules.purchase import (
    Addition,
    add_later_reasons,
    hex_due,
    hex_refusal,
    hexes_due_before,
    leaving_with,
    ob_line_refusal,
    outlived,
    own_line_leaves,
    recorded_hex_refusal,
    records_objective,
    roll_variants,
)
from rules.schema import FortificationItem, Module, ReinforcementGroup, Step
from rules.snapshot import Holdings, Snapshot
from rules.text import count


def kept_secret(turn: Turn, purchase: Purchase) -> Kept | None:
    """A change to ``purchase`` while it is the acting side's secret (its log line and
    the audience of the change: no other seat hears of it), else
    None."""
    return PURCHASE.kept(turn.side, secret=purchase.revealed_at is None)


def _spent(seat: Seat) -> list[SeatField]:
    """What buying or cancelling an RG sets on the buyer's seat (its points, and what
    the RG grants), for the commit to save."""
    return [(seat, name) for name in ("points", "fortification_points", "san")]


def _free(used: set[int], maximum: int | None) -> int:
    n = 1
    while n in used:
        n += 1
    return n if maximum is None or n <= maximum else maximum + 1


def _new_line(
    turn: Turn,
    group: ReinforcementGroup,
    same: Iterable[tuple[int, int, int]],
    *,
    cost: int = 0,
    cost_variant: str = "",
    cg_max: int | None = None,
    date_max: int | None = None,
    notes: str = "",
    types: Sequence[str] = (),
) -> Purchase:
    """A new line of the acting side's RG Purchase Record for ``group``, numbered
    after ``same``: (ordinal, date index, ordinal on that date) of the side's active
    lines of that RG.  The database's constraints hold the numbers within the limits."""
    c = turn.campaign
    same = list(same)
    return Purchase.objects.create(
        campaign=c,
        side=turn.side,
        cycle=c.cycle,
        date_index=c.date_index,
        group_id=group.id,
        group_type=group.type,
        cost_variant=cost_variant,
        cost=cost,
        ordinal=_free({o for o, _, _ in same}, cg_max),
        cg_max=cg_max,
        date_ordinal=_free({d for _, i, d in same if i == c.date_index}, date_max),
        date_max=date_max,
        units=None if group.depletable else group.full,
        notes=notes,
        details={"types": list(types)} if types else {},
        entry_area=chart_entry(turn.module, turn.side),
    )


def chart_entry(module: Module, side: str) -> str:
    """Where every RG of ``side``'s chart enters, where the rules say it for all of them
    (APD 3.8), with the rule: a new line's entry area; "" where they do not."""
    chart = module.chart(side)
    entry = chart.entry if chart is not None else None
    return f"{entry.area} ({entry.rule})" if entry is not None else ""


# The acting side's purchase that an action names, locked (compiled once:
# ``campaign.prepared``).
_OWN_ACTIVE = PreparedRead(
    lambda: (
        Purchase.objects.select_for_update()
        .filter(
            ref=Param("ref", CharField()),
            campaign_id=CAMPAIGN,
            side=SIDE,
            status=Purchase.Status.ACTIVE,
        )
        .order_by("pk")[:1]
    )
)


@transaction.atomic
def purchase_rg(
    *,
    campaign_id: object,
    user: User,
    group_id: str,
    cost_variant: str = "",
    at: str | None = None,
    recorded_hex: str = "",
) -> Purchase:
    """Buy one RG, secretly, within every limit of the module, with the hex its
    purchase records where its RG records one (``recorded_hex``; Sicily British chart
    footnote i's Pre-Registered hex)."""
    turn = take_turn(campaign_id, user, at)
    c, module, seat = turn.campaign, turn.module, turn.seat
    held = active_purchases(c, turn.side)
    snap = turn.snapshot(
        Holdings(
            bought=tuple(bought_of(p) for p in held),
            result_totals=result_totals(c, turn.side),
            setup_areas=own_setup_areas(c, turn.side, cost_variant),
        )
    )
    mine = [p for p in held if not p.initial]  # the OB's RGs do not count (3.6179)
    expect_turn(turn, Action.BUY, snap)
    group, option = availability.check_purchase(module, snap, group_id, cost_variant)
    where = clean_text(recorded_hex, what="Hex", limit=max_length(Purchase, "recorded_hex")).upper()
    no_hex = recorded_hex_refusal(group, where)
    if no_hex:
        raise ActionRefused(f"{group.id} {group.type} cannot be bought: {no_hex}.")
    purchase = _new_line(
        turn,
        group,
        [(p.ordinal, p.date_index, p.date_ordinal) for p in mine if p.group_id == group.id],
        cost=option.cost,
        cost_variant=option.variant,
        cg_max=group.cg_max.get(c.variant),
        date_max=group.date_max,
    )
    if where and group.records_hex is not None:
        purchase.recorded_hex = where
        purchase.details = {**purchase.details, HEX_DATE: c.date_index, HEX_HELD: True}
        purchase.save(update_fields=["recorded_hex", "details"])
    seat.points -= option.cost
    seat.fortification_points += group.grants.get("fortification_points", 0)
    if group.grants.get("san"):
        seat.san = (seat.san or 0) + group.grants["san"]
    code = module.currency.code
    how = "" if not option.variant else f", {option.label}"
    kept = PURCHASE.kept(turn.side)
    turn.record(
        EventKind.PURCHASE,
        secret=kept,
        # The points left are not on the line: a reveal of the line by the campaign's
        # policy reveals the RG, not them (3.617: "The CPP expended, those remaining, and
        # the RG(s) purchased may all be kept secret"); the seat shows its owner them.
        text=f"{turn.side_name()} bought {group.id} {group.type} for {option.cost} {code}{how}.",
        data={"purchase": purchase.pk},
    )
    if where and group.records_hex is not None:
        _log_hex(turn, purchase, f"{group.records_hex.label} {where} ({group.records_hex.rule})")
    added = PurchaseAdded(kept=kept, logged=logged(c), purchases=(purchase,))
    commit(c.pk, added, saving=_spent(seat))
    return purchase


def _log_hex(turn: Turn, purchase: Purchase, words: str) -> None:
    """The hex a line records, logged apart from the line: its owner's secret even once
    the line is revealed (a reveal reveals the line's log lines, ``data["purchase"]``);
    the roll that uses it names it to both sides (3.622)."""
    turn.record(
        EventKind.PURCHASE,
        secret=PURCHASE.kept(turn.side),
        text=f"{turn.side_name()} records {purchase.group_id} {purchase.group_type}'s {words}.",
        data={"hex_of": purchase.pk},
    )


def hex_owed(turn: Turn, steps: Sequence[Step]) -> str:
    """Why the acting side may not finish ``steps`` yet ("" when it may): a held RG
    whose hex is recorded again on each CG Date before one of them has none recorded on
    this date (British chart footnote j: "Secretly record the hex prior to German
    setup")."""
    module, c = turn.module, turn.campaign
    if not hexes_due_before(module, turn.side, (s.id for s in steps)):
        return ""
    for p in Purchase.objects.filter(
        campaign=c, side=turn.side, status=Purchase.Status.ACTIVE, state=Purchase.State.HELD
    ).order_by("id"):
        group = module.group(p.side, p.group_id)
        for step in steps:
            label = hex_due(group, step.id)
            if label and p.details.get(HEX_DATE) != c.date_index and group is not None:
                assert group.records_hex is not None
                date = module.dates[c.date_index].label
                return (
                    f"Record the {label} of {p.group_id} {p.group_type} for {date} on its "
                    f"RG Purchase Record line before finishing {step.id} {step.title} "
                    f"({group.records_hex.rule})."
                )
    return ""


def own_purchase(turn: Turn, purchase_id: object) -> Purchase:
    """The acting side's active purchase named by ``purchase_id``: its reference
    (``Purchase.ref``, what pages name), never its primary key."""
    ref = purchase_id if isinstance(purchase_id, str) and purchase_id else None
    found = _OWN_ACTIVE(ref=ref, campaign=turn.campaign.pk, side=turn.side) if ref else []
    if not found:
        raise ActionRefused("You have no such purchase.", status=404)
    return found[0]


@transaction.atomic
def cancel_purchase(
    *, campaign_id: object, user: User, purchase_id: object, at: str | None = None
) -> None:
    """Refund a purchase: only in the purchase step, before its secret rolls."""
    turn = take_turn(campaign_id, user, at)
    purchase = own_purchase(turn, purchase_id)
    expect_turn(turn, Action.CANCEL)
    if purchase.initial:
        raise ActionRefused(ob_line_refusal(turn.module, purchase.group_id), status=409)
    if purchase.cycle != turn.campaign.cycle:
        raise ActionRefused("Only this date's purchases can be cancelled.", status=409)
    if purchase.rolled_at is not None or purchase.details.get("rolls"):
        raise ActionRefused(
            f"{purchase.group_id}'s secret rolls are made: it can no longer be cancelled.",
            status=409,
        )
    seat = turn.seat
    group = availability.find_group(turn.module, turn.side, purchase.group_id)
    fpp = group.grants.get("fortification_points", 0)
    if fpp > seat.fortification_points:
        forts = turn.module.fortifications
        raise ActionRefused(
            f"The {forts.currency if forts else 'points'} this RG gave are already spent: "
            "spend fewer first.",
            status=409,
        )
    # An amended result that gave fewer points than this date's RGs cost left the rest
    # owed (``selectors.overspent``): the refund pays it first.
    paid = 0
    if seat.points == 0:
        made, short, _ = overspent(turn.campaign, turn.side)
        if made is not None and short:
            paid = min(short, purchase.cost)
            made.data = {**made.data, "short": short - paid}
            made.save(update_fields=["data"])
    seat.points += purchase.cost - paid
    seat.fortification_points -= fpp
    if group.grants.get("san"):
        seat.san = (seat.san or 0) - group.grants["san"]
    purchase.status = Purchase.Status.CANCELLED
    purchase.save(update_fields=["status"])
    code = turn.module.currency.code
    owed = (
        f", {paid} of them paying what the amended result left short ({turn.step.id})"
        if paid
        else ""
    )
    turn.record(
        EventKind.CANCEL,
        secret=kept_secret(turn, purchase),
        text=f"{turn.side_name()} cancelled {purchase.group_id}; {purchase.cost} {code} "
        f"refunded{owed}.",
    )
    cancelled = PurchaseCancelled(
        kept=kept_secret(turn, purchase), logged=logged(turn.campaign), purchases=(purchase,)
    )
    commit(turn.campaign.pk, cancelled, saving=_spent(seat))


@transaction.atomic
def roll_for_purchase(
    *,
    campaign_id: object,
    user: User,
    purchase_id: object,
    ticked: Mapping[str, Sequence[str]] | None = None,
    at: str | None = None,
    entering: str = "",
) -> None:
    """Make an RG's secret rolls (strength, SW, leaders, ...) now, with the DRMs the
    player claims (``ticked``, by table).  An RG of the Initial-Scenario OB may first
    be taken at a price that changes its rolls (``entering``: by paradrop)."""
    turn = take_turn(campaign_id, user, at)
    purchase = own_purchase(turn, purchase_id)
    expect_turn(turn, Action.RG_ROLL)
    refusal = availability.rg_roll_refusal(turn.module, turn.step)
    if refusal:
        raise ActionRefused(refusal, status=409)
    if purchase.rolled_at is not None:
        # A roll kept because its table was lost when the RG's rolls were made (C5.33)
        owed = owed_refusal(turn.module, purchase)
        if owed:
            raise ActionRefused(owed, status=409)
        make_owed_rolls(turn, purchase, ticked)
        commit(turn.campaign.pk, PurchaseChanged(kept=kept_secret(turn, purchase)))
        return
    stage = purchase.details.get("stage", {}).get("tables", [])
    why = availability.rolls_left_now(
        turn.module, turn.step, turn.side, purchase.group_id, purchase.cost_variant, stage
    )
    if why:
        raise ActionRefused(why, status=409)
    if entering:
        group = availability.find_group(turn.module, turn.side, purchase.group_id)
        options = {o.variant: o for o in roll_variants(turn.module, turn.side, group)}
        if not purchase.initial or entering not in options:
            raise ActionRefused(
                f"{purchase.group_id} cannot enter that way: only an RG of the "
                "Initial-Scenario OB picks how it enters before its rolls.",
            )
        purchase.cost_variant = entering
        purchase.save(update_fields=["cost_variant"])
    make_rolls(turn, purchase, ticked)
    commit(turn.campaign.pk, PurchaseChanged(kept=kept_secret(turn, purchase)))


@transaction.atomic
def buy_added_later(
    *,
    campaign_id: object,
    user: User,
    purchase_id: object,
    item: str,
    affirmed: bool = False,
    at: str | None = None,
) -> AddedLater:
    """Buy, secretly, a further item for an RG bought earlier and still held
    (``Module.add_later``; PHD RG footnote p: a further Pre-Registered hex, 2 TP, for
    an OBA module unused in the TM Scenario, at most two per module).  What the app
    cannot know (the module unused) the player affirms."""
    turn = take_turn(campaign_id, user, at)
    c, module, seat = turn.campaign, turn.module, turn.seat
    purchase = own_purchase(turn, purchase_id)
    expect_turn(turn, Action.BUY)
    extra = next((a for a in module.add_later if a.id == item), None)
    if extra is None:
        raise ActionRefused("There is no such thing to add to an RG.")
    group = availability.find_group(module, turn.side, purchase.group_id)
    line = Addition(
        group=group,
        cost_variant=purchase.cost_variant,
        date_index=purchase.date_index,
        held=purchase.state == Purchase.State.HELD,
        added=AddedLater.objects.filter(purchase=purchase, item=extra.id).count(),
    )
    reasons = add_later_reasons(module, turn.side, extra, line, c.date_index)
    lacking = availability.budget_reason(module, seat.points, extra.cost)
    if lacking:
        reasons.append(lacking)
    if reasons:
        raise ActionRefused(
            f"{extra.label} cannot be bought: " + "; ".join(reasons) + ".", status=409
        )
    rule = f" ({extra.rule})" if extra.rule else ""
    if not affirmed:
        raise ActionRefused(f"Only if: {extra.affirms}{rule}. Tick it to buy.", status=409)
    added = AddedLater.objects.create(
        campaign=c,
        purchase=purchase,
        side=turn.side,
        item=extra.id,
        cycle=c.cycle,
        date_index=c.date_index,
        cost=extra.cost,
    )
    seat.points -= extra.cost
    kept = ADDED_LATER.kept(turn.side)
    turn.record(
        EventKind.PURCHASE,
        secret=kept,
        text=f"{turn.side_name()} bought for {purchase.group_id} {purchase.group_type}: "
        f"{extra.label}{rule}.",
        data={"added_later": added.pk},
    )
    commit(c.pk, PurchaseAdded(kept=kept), saving=_spent(seat))
    return added


@transaction.atomic
def cancel_added_later(
    *,
    campaign_id: object,
    user: User,
    purchase_id: object,
    item: str,
    at: str | None = None,
) -> None:
    """Cancel the last item bought later for an RG at this purchase step (PHD RG
    footnote p's further Pre-Registered hex), as any purchase of the step is cancelled:
    its points come back and the RG's count of such items with them.  As secret as its
    purchase: the log line is the side's own."""
    turn = take_turn(campaign_id, user, at)
    c, module, seat = turn.campaign, turn.module, turn.seat
    purchase = own_purchase(turn, purchase_id)
    expect_turn(turn, Action.CANCEL)
    last = (
        AddedLater.objects.select_for_update()
        .filter(purchase=purchase, item=item, cycle=c.cycle, revealed_at__isnull=True)
        .order_by("-id")
        .first()
    )
    if last is None:
        raise ActionRefused(
            f"Nothing was bought for {purchase.group_id} {purchase.group_type} at this step "
            "to cancel.",
            status=409,
        )
    extra = next((a for a in module.add_later if a.id == last.item), None)
    label = extra.label if extra else last.item
    seat.points += last.cost
    last.delete()
    kept = ADDED_LATER.kept(turn.side)
    turn.record(
        EventKind.CANCEL,
        secret=kept,
        text=f"{turn.side_name()} cancelled for {purchase.group_id} {purchase.group_type}: "
        f"{label}; {last.cost} {module.currency.code} refunded.",
    )
    commit(c.pk, PurchaseCancelled(kept=kept), saving=_spent(seat))


@transaction.atomic
def reveal_purchase(*, campaign_id: object, user: User, purchase_id: object) -> None:
    """The owner reveals one RG (e.g. when it enters the map): its line, or, where the
    campaign's policy revealed the line and held what its secret DRs gave it
    (``visibility.PURCHASE.held``: APD 3.6/3.7, Sicily 3.6181, PHD C5.33), that."""
    turn = take_turn(campaign_id, user, None)
    purchase = own_purchase(turn, purchase_id)
    held = purchase.revealed_at is not None and purchase.outcome_held
    if purchase.revealed_at is not None and not held:
        raise ActionRefused(f"{purchase.group_id} is already revealed.", status=409)
    if held:
        reveal_outcomes(turn.campaign, [purchase])
    else:
        reveal(turn.campaign, [purchase])
    strength = (
        f" ({purchase.strength}, {count(purchase.units, 'unit')})" if purchase.strength else ""
    )
    what = (
        f"what the secret DRs of {purchase.group_id} {purchase.group_type} gave it"
        if held
        else f"{purchase.group_id} {purchase.group_type}"
    )
    turn.record(EventKind.REVEAL, text=f"{turn.side_name()} reveals {what}{strength}.")
    # tells the opponent what was revealed
    commit(turn.campaign.pk, PurchaseRevealed(), saving=update_waiting(turn))


@transaction.atomic
def record_entry_area(
    *,
    campaign_id: object,
    user: User,
    purchase_id: object,
    entry_area: str,
    notes: str = "",
    objective_hex: str = "",
    recorded_hex: str = "",
) -> None:
    """Write the entry/set-up area, the Objective Hex where its RG has one (Sicily
    3.6179: "each Coy size RG") and notes on one's own RG Purchase Record line; and,
    where its RG records its hex again on each date (``recorded_hex``; British chart
    footnote j, the Offboard Observer's hex), this date's hex (blank: kept as it was)."""
    turn = take_turn(campaign_id, user, None)
    purchase = own_purchase(turn, purchase_id)
    purchase.entry_area = clean_text(
        entry_area, what="Entry area", limit=max_length(Purchase, "entry_area")
    )
    objective_hex = clean_text(
        objective_hex, what="Objective hex", limit=max_length(Purchase, "objective_hex")
    )
    group = turn.module.group(turn.side, purchase.group_id)
    if objective_hex and not records_objective(turn.module, turn.side, group):
        rule = turn.module.purchase_record.rule if turn.module.purchase_record else None
        raise ActionRefused(
            f"{purchase.group_id} {purchase.group_type} records no Objective Hex"
            + (f" ({rule})." if rule else ".")
        )
    purchase.objective_hex = objective_hex
    purchase.notes = clean_text(notes, what="Notes", limit=max_length(Purchase, "notes"))
    where = clean_text(recorded_hex, what="Hex", limit=max_length(Purchase, "recorded_hex"))
    asked = group.records_hex if group is not None else None
    if where and (asked is None or asked.each_date_before is None):
        raise ActionRefused(f"{purchase.group_id} {purchase.group_type} records no such hex.")
    malformed = hex_refusal(group, where) if group is not None else None
    if malformed:
        raise ActionRefused(malformed[0].upper() + malformed[1:] + ".")
    if where:
        assert asked is not None
        purchase.recorded_hex = where.upper()
        purchase.details = {**purchase.details, HEX_DATE: turn.campaign.date_index, HEX_HELD: True}
        _log_hex(
            turn,
            purchase,
            f"{asked.label} for {turn.module.dates[turn.campaign.date_index].label}: "
            f"{purchase.recorded_hex} ({asked.rule})",
        )
    purchase.save(update_fields=["entry_area", "objective_hex", "notes", "recorded_hex", "details"])
    commit(turn.campaign.pk, EntryAreaRecorded(kept=kept_secret(turn, purchase)))


# --------------------------------------------------------------------------- fortifications, recon


@transaction.atomic
def buy_fortification(
    *,
    campaign_id: object,
    user: User,
    item_id: str,
    count: int = 1,
    tier: int = 0,
    figures: Mapping[str, int] | None = None,
    location: str = "",
    at: str | None = None,
) -> FortificationBuy:
    """Buy fortifications secretly: at a printed price, one of its tiers, or the price
    the figures of the counter add up to (``figures``, PHD C5.35 note 4)."""
    turn = take_turn(campaign_id, user, at)
    location = clean_text(location, what="Where", limit=max_length(FortificationBuy, "location"))
    c = turn.campaign
    snap = turn.snapshot(holdings(c, turn.side, fortifications=True))
    expect_turn(turn, Action.FORTIFY, snap)
    item = availability.check_fortification(
        turn.module, snap, item_id, count, tier, figures, location=location
    )
    forts = turn.module.fortifications
    assert forts is not None
    cost = item.price(tier, figures) * count
    tier_label = item.tiers[tier].label if item.tiers else ""
    if item.figures:
        tier_label = availability.figures_text(item, figures or {})
    seat = turn.seat
    seat.fortification_points -= cost
    seat.save(update_fields=["fortification_points"])
    buy = FortificationBuy.objects.create(
        campaign=c,
        side=turn.side,
        date_index=c.date_index,
        item_id=item.id,
        tier=tier_label,
        count=count,
        cost=cost,
        location=location,
    )
    kept = FORTIFICATION.kept(turn.side)
    turn.record(
        EventKind.FORTIFY,
        secret=kept,
        text=f"{turn.side_name()} bought {count} × {item.label}"
        + (f" ({tier_label})" if tier_label else "")
        + f" for {cost} {forts.currency}"
        + _placed_text(turn, snap, item, location)
        + ".",
    )
    commit(c.pk, PurchaseAdded(kept=kept))
    return buy


def _placed_text(turn: Turn, snap: Snapshot, item: FortificationItem, location: str) -> str:
    """What a fortification placed in place of another says of it (3.619 footnote e)."""
    placed = item.in_place_of
    if placed is None:
        return ""
    module = turn.module
    forts = module.fortifications
    assert forts is not None
    other = next((i.label for i in forts.items if i.id == placed.item), placed.item)
    rule = item.rule or forts.rule
    here = location.strip()
    old = availability.replaced_here(module, snap, item, here)
    if old is None:
        return f" in {here}, where a {other} stood on the previous CG Date; it is removed ({rule})"
    return (
        f" in {here}; the {other} placed there on {module.dates[old.date_index].label} is "
        f"removed ({rule})"
    )


@transaction.atomic
def buy_recon(
    *,
    campaign_id: object,
    user: User,
    option: int = 0,
    purchase_id: object = None,
    at: str | None = None,
) -> ReconBuy:
    """Recon at the recon step: bought there (an option's price, PHD C5.36), or the dr
    of a Recon RG bought at the purchase step (``purchase_id``; Sicily 3.620)."""
    turn = take_turn(campaign_id, user, at)
    c, module = turn.campaign, turn.module
    recon = module.recon
    snap = turn.snapshot(holdings(c, turn.side, recon=True))
    expect_turn(turn, Action.RECON, snap)
    code = module.currency.code
    purchase = None
    if recon is not None and recon.group is not None:
        due = availability.check_recon_group(module, snap, str(purchase_id or ""))
        purchase = own_purchase(turn, due.ref)
        cost, drm = 0, availability.recon_drm(module, due.variant)
        label = f"{purchase.group_id} bought for {purchase.cost} {code}"
    else:
        availability.check_recon(module, snap, option)
        assert recon is not None
        choice = recon.options[option]
        cost, drm = choice.cost, choice.drm
        label = f"paid {cost} {code}"
        seat = turn.seat
        seat.points -= cost
        seat.save(update_fields=["points"])
    drms = [AppliedDrm("paid", label, drm, "auto")] if drm else []
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
        cost=cost,
        locations=r.final,
        roll_seq=r.seq,
        purchase=purchase,
    )
    what = (
        f"made the Recon dr of {purchase.group_id}"
        if purchase
        else f"bought Recon for {cost} {code}"
    )
    kept = RECON.kept(turn.side)
    turn.record(
        EventKind.RECON,
        secret=kept,
        text=f"{turn.side_name()} {what}: {dice_service.describe(r)}"
        + (" " if r.drms else f" → {r.final} ")
        + ("Location." if r.final == 1 else "Locations."),
    )
    commit(c.pk, PurchaseAdded(kept=kept))
    return buy


# --------------------------------------------------------------------------- RG lifecycle


@transaction.atomic
def change_rg_state(
    *, campaign_id: object, user: User, purchase_id: object, state: str
) -> Purchase:
    """Mark one's RG in the OB, eliminated, withdrawn or used up: limits on what a side
    holds at a time count only those in the OB (e.g. 3.617 footnote e, one O4)."""
    turn = take_turn(campaign_id, user, None)
    purchase = own_purchase(turn, purchase_id)
    if state not in Purchase.State.values:
        raise ActionRefused(
            "Choose where the RG is now: in the OB, eliminated, withdrawn or used up."
        )
    if state == purchase.state:
        raise ActionRefused(
            f"{purchase.group_id} is already {purchase.get_state_display()}.", status=409
        )
    if state == Purchase.State.FIRED:
        refusal = availability.fired_refusal(
            turn.module, turn.side, turn.module.group(turn.side, purchase.group_id)
        )
        if refusal:
            raise ActionRefused(refusal)
        if pass_result(turn.campaign) is None:
            raise ActionRefused(
                "No TM Scenario has been played in this pass: no module has placed an FFE "
                "in the just-played TM Scenario yet (TM13).",
                status=409,
            )
        purchase.details = {**purchase.details, "fired_cycle": turn.campaign.cycle}
    set_state(turn, purchase, state)
    commit(turn.campaign.pk, PurchaseChanged(kept=kept_secret(turn, purchase)))
    return purchase


def set_state(turn: Turn, purchase: Purchase, state: str, rule: str = "", why: str = "") -> None:
    """Mark ``purchase`` in the OB, eliminated, withdrawn or used up, logged as its
    secret while it is one; the units it brought that leave with it leave the retained
    forces, and an RG held only with it is withdrawn.  ``rule``: the rule that marked it
    by itself (Sicily British chart footnote i: a Bombardment RG once resolved), with
    ``why`` in words (PHD TM11: its last line left)."""
    purchase.state = state
    purchase.save(update_fields=["state", "details"])
    rg, now = f"{purchase.group_id} {purchase.group_type}", purchase.get_state_display()
    text = (
        f"{turn.side_name()}'s {rg} is {now}{f': {why}' if why else ''} ({rule})."
        if rule
        else f"{turn.side_name()} marks {rg} {now}."
    )
    turn.record(
        EventKind.RG_STATE,
        secret=kept_secret(turn, purchase),
        text=text,
        data={"purchase": purchase.pk},
    )
    group = turn.module.group(turn.side, purchase.group_id)
    leaving = leaving_with(turn.module, turn.side, group, state)
    gone = units.remove_brought(turn, purchase, leaving)
    if group is not None and own_line_leaves(turn.module, group, state):
        # British chart footnote i: the Bombardment RG Eliminated, its line goes with it.
        own = units.remove_own_line(turn, purchase, group)
        gone = ", ".join(x for x in (own, gone) if x)
    if gone:
        cited = {b.rule for b in leaving if b.rule} | ({rule} if rule else set())
        rules = "; ".join(sorted(cited))
        turn.record(
            EventKind.UNIT,
            secret=kept_secret(turn, purchase),
            text=f"{turn.side_name()}'s {gone} leaves the retained forces: "
            f"{purchase.group_id} {purchase.group_type} is {purchase.get_state_display()}"
            + (f" ({rules})." if rules else "."),
            data={"purchase": purchase.pk},
        )
    _retire_outlived(turn, purchase)


# ``Purchase.details`` flag: the app marked the RG Eliminated for its last line leaving
# (TM11), so a line put back revives it (an owner's own mark is never undone so).
EMPTIED = "emptied"


def retire_emptied(turn: Turn, removed: Iterable[Unit]) -> None:
    """PHD TM11 (``Module.emptied_groups``): each RG held whose last line has just left
    its side's retained forces (``removed``: the lines gone, each still naming its RG)
    is marked Eliminated by the app, logged with the rule, as its owner's mark would be
    (its secret while the RG is one).  A line that only serves its RG (a ``ComesWith``
    that leaves with it: TM13's Radio) neither eliminates it by leaving nor keeps it."""
    emptied = turn.module.emptied_groups
    if emptied is None:
        return
    seen: set[int] = set()
    for unit in removed:
        pid = unit.purchase_id
        if pid is None or pid in seen:
            continue
        seen.add(pid)
        purchase = Purchase.objects.filter(
            pk=pid,
            campaign=turn.campaign,
            status=Purchase.Status.ACTIVE,
            state=Purchase.State.HELD,
        ).first()
        if purchase is None or (purchase.revealed_at is not None and purchase.outcome_held):
            # Its line is public, its units still held secret (``visibility.UNIT``): its
            # state would tell the opponent they are gone.  Its owner marks it.
            continue
        serving = _serving_lines(turn, purchase)
        if unit.name in serving:
            continue
        kept = Unit.objects.filter(campaign=turn.campaign, side=purchase.side, purchase=purchase)
        if kept.exclude(name__in=serving).exists():
            continue
        purchase.details = {**purchase.details, EMPTIED: True}
        set_state(
            turn.as_side(purchase.side),
            purchase,
            Purchase.State.ELIMINATED,
            rule=emptied.rule,
            why="its last unit has left the retained forces",
        )


def revive_emptied(turn: Turn, unit: Unit) -> None:
    """A line put back on the retained forces (a take-back of its removal) whose RG the
    app had marked Eliminated for it (``retire_emptied``): the RG is back in the OB."""
    emptied = turn.module.emptied_groups
    if emptied is None or unit.purchase_id is None:
        return
    purchase = Purchase.objects.filter(
        pk=unit.purchase_id, campaign=turn.campaign, state=Purchase.State.ELIMINATED
    ).first()
    if purchase is None or not purchase.details.get(EMPTIED):
        return
    purchase.details = {k: v for k, v in purchase.details.items() if k != EMPTIED}
    purchase.state = Purchase.State.HELD
    purchase.save(update_fields=["state", "details"])
    side = turn.as_side(purchase.side)
    side.record(
        EventKind.RG_STATE,
        secret=kept_secret(side, purchase),
        text=f"{side.side_name()}'s {purchase.group_id} {purchase.group_type} is back in the "
        f"OB: {units.label(unit)} is back in its retained forces ({emptied.rule}).",
        data={"purchase": purchase.pk},
    )


def _serving_lines(turn: Turn, purchase: Purchase) -> set[str]:
    """The names of the lines that only serve ``purchase``'s RG (they leave with it)."""
    group = turn.module.group(purchase.side, purchase.group_id)
    if group is None:
        return set()
    return {
        units.brought_name(c.unit, purchase.group_id)
        for c in leaving_with(turn.module, purchase.side, group, Purchase.State.ELIMINATED)
    }


def _retire_outlived(turn: Turn, cause: Purchase) -> None:
    """An RG held only while the side holds others leaves with the last of them (an
    Offboard Observer with the last OBA module it serves): withdrawn, and logged."""
    own = list(
        Purchase.objects.filter(
            campaign=turn.campaign, side=turn.side, status=Purchase.Status.ACTIVE
        )
    )
    gone = {b.ref for b in outlived(turn.module, turn.side, [bought_of(p) for p in own])}
    for p in own:
        if p.ref not in gone:
            continue
        p.state = Purchase.State.WITHDRAWN
        p.save(update_fields=["state"])
        turn.record(
            EventKind.RG_STATE,
            secret=PURCHASE.kept(
                turn.side, secret=p.revealed_at is None or cause.revealed_at is None
            ),
            text=f"{turn.side_name()}'s {p.group_id} {p.group_type} leaves with "
            f"{cause.group_id} {cause.group_type}: it is retained only while the RG it "
            "serves is.",
            data={"purchase": p.pk},
        )


def receive_group(turn: Turn, group_id: str, why: str, gives_type: str | None = None) -> Purchase:
    """An RG a table result gives the side at no cost (APD 3.5: the German's Rows
    A-C): a line of its RG Purchase Record, secret like a purchase, whose own rolls
    (leaders, ...) follow at the strength step; of the group kind ``gives_type`` (the
    table's: APD 3.6, a group of Row A is an infantry group), which those rolls read."""
    group = availability.find_group(turn.module, turn.side, group_id)
    same = Purchase.objects.filter(
        campaign=turn.campaign, side=turn.side, group_id=group.id, status=Purchase.Status.ACTIVE
    ).values_list("ordinal", "date_index", "date_ordinal")
    purchase = _new_line(
        turn,
        group,
        same,
        notes=why[: max_length(Purchase, "notes")],
        types=[gives_type] if gives_type else (),
    )
    turn.record(
        EventKind.PURCHASE,
        secret=PURCHASE.kept(turn.side),
        text=f"{turn.side_name()} receives {group.id} {group.type} ({why}).",
        data={"purchase": purchase.pk},
    )
    return purchase
