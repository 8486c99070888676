"""What happens to RG Purchase Record lines besides buying: their secret rolls, the
forfeit of unspent fortification points, and their reveal.  Used by the purchase
actions and by the step hooks (``campaign.services.flow``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime

from django.db.models import QuerySet
from django.db.models.functions import Left
from django.utils import timezone

from campaign.models import REF_LENGTH, AddedLater, Campaign, Event, EventKind, Purchase, Roll, Unit
from campaign.selectors import module_of
from campaign.services import dice as dice_service
from campaign.services.errors import ActionRefused
from campaign.services.rolls import roll_context
from campaign.services.turns import Turn
from campaign.services.units import units_from_purchase, units_given_later, units_replaced
from campaign.visibility import FORTIFICATION, RG_ROLLS
from rules import availability
from rules.drm import DrmRefused, RollContext, after_value, applicable_drms, holds
from rules.effects import GroupOutcome, NewUnits, on_group, result_effects
from rules.purchase import depleted_lacking, missing_at, owed_tables
from rules.schema import Module, PostPurchaseRoll, ReinforcementGroup
from rules.text import left_out


def make_rolls(
    turn: Turn, purchase: Purchase, ticked: Mapping[str, Sequence[str]] | None = None
) -> None:
    """The module's post-purchase rolls for this RG, in the module's order, each as
    many times as it says (per RG, per unit, per SW); each result's effects give the
    RG its strength, leaders and units.  ``ticked``: the DRMs the player claims, by
    table (those the rules leave to him)."""
    module = turn.module
    group = availability.find_group(module, turn.side, purchase.group_id)
    # The rolls made at this step (APD 3.4: the armor-type dr while buying), and those
    # an earlier step made, whose results the RG keeps (``stage``).
    now = availability.rolls_now(turn.step)
    later = availability.rolls_later(module, turn.step)
    stage = purchase.details.get("stage", {})
    done = set(stage.get("tables", []))
    made, waits = set(done), False
    # The group kinds it already is: the table that gave it said so (APD 3.6).
    outcome = GroupOutcome(
        strength=None if group.depletable else "full",
        types=list(purchase.details.get("types", [])),
        units=[NewUnits(**u) for u in stage.get("units", [])],
        leaders=list(stage.get("leaders", [])),
    )
    results: list[dict[str, object]] = list(purchase.details.get("rolls", [])) if done else []
    base = roll_context(turn, group=group, cost_variant=purchase.cost_variant or "")
    for pp in module.post_purchase:
        if pp.table in done or (now is not None and pp.table not in now):
            continue  # made at an earlier step, or at a later one
        # What the RG's earlier rolls made it: its strength, the group kinds they gave
        # (APD 3.7 rolls for the groups 3.4's armor-type dr made M4 groups).
        ctx = replace(base, strength=outcome.strength, rolled_types=frozenset(outcome.types))
        if not holds(pp.applies_to, ctx):
            continue
        if pp.table in later:  # its step comes later, and the rolls after it with it
            waits = True
            break
        made.add(pp.table)
        table = module.table(pp.table)
        count = rolls_for(pp, group, outcome.strength, outcome.units)
        if not count:  # none of its units is rolled for (APD 3.5 note 2: no PzIV)
            continue
        if table.missing:
            results.append(
                {
                    "table": table.title,
                    "result": f"not rolled: {left_out('this table', pp.rule)}",
                    # kept: made once the players supply the table (``make_owed_rolls``)
                    "owed": pp.table,
                }
            )
            continue
        results += _roll_on(turn, pp, group, ctx, count, ticked, outcome)
    if waits and made == done:
        return  # nothing to roll at this step (its Leader DR made by a click before Done)
    if now is not None or waits:  # the rest wait for a later step: keep what these gave
        _keep_stage(turn, purchase, outcome, results, made | (now or set()))
        return
    purchase.strength = outcome.strength or "full"
    # The units its rolls gave replace the chart's (APD 3.7: "the tanks received by that
    # Group"), so its #units counts them.
    given = sum(u.count for u in outcome.units)
    purchase.units = given or units_at(group, purchase.strength)
    # A Depleted figure the rules text lacks: said on the line, no units (never the
    # Full figure silently; Sicily I2, I8, British I5 "2;2/c").
    lacking_figure = (
        depleted_lacking(module, purchase.side, group) if purchase.strength == "depleted" else ""
    )
    if lacking_figure and not given:
        purchase.units = None
        results.append({"table": "Depleted", "result": lacking_figure})
    purchase.details = {
        # What the purchase recorded stays (British chart footnote j's hex and its date).
        **{k: v for k, v in purchase.details.items() if k in LINE_KEYS},
        "rolls": results,
        "sw": group.sw if purchase.strength == "full" else {},
        "leaders": outcome.leaders,
    }
    purchase.rolled_at = timezone.now()
    purchase.save(update_fields=["strength", "units", "details", "rolled_at"])
    units_from_purchase(module, purchase, group, outcome)
    # Which of its chart row's units a Depleted RG lacks, by type, in its log line.
    lacks = missing_at(group, purchase.units) if purchase.strength == "depleted" else []
    lacking: list[dict[str, object]] = [
        {"table": "Depleted", "result": "lacks " + ", ".join(f"{k} × {t}" for t, k in lacks)}
    ]
    _log_rolls(turn, purchase, results + (lacking if lacks else []))


def owed_rolls(module: Module, purchase: Purchase) -> tuple[list[str], list[str]]:
    """The rolls an RG still owes for a table lost when its rolls were made (C5.33)."""
    return owed_tables(module, purchase.details.get("rolls", []))


def owed_refusal(module: Module, purchase: Purchase) -> str:
    """Why an RG whose rolls are made may not roll again: "" where it owes a roll whose
    table has been supplied since; else the table it waits for, or "already made"."""
    supplied, lacking = owed_rolls(module, purchase)
    if supplied:
        return ""
    if lacking:
        rules = {pp.table: pp.rule for pp in module.post_purchase}
        names = ", ".join(module.table(t).title for t in lacking)
        cited = "; ".join(dict.fromkeys(rules.get(t) or module.table(t).rule for t in lacking))
        return (
            f"{left_out(f'the {names}', cited, first=True)}: {purchase.group_id}'s DR on it "
            "waits until you supply it and your opponent accepts it; then make the DR here."
        )
    made = availability.rolls_rules(module, purchase.details.get("rolls", []))
    return f"{purchase.group_id}'s rolls are already made{f' ({made})' if made else ''}."


def make_owed_rolls(
    turn: Turn, purchase: Purchase, ticked: Mapping[str, Sequence[str]] | None = None
) -> None:
    """An RG's rolls kept because their table was lost when its other rolls were made,
    made now that the players have supplied it (PHD C5.33: "make one secret DR" for
    each RG marked l, whenever the Leader Table comes): each replaces its "not rolled"
    line; the leaders and units it gives join the RG and the retained forces.  Each is
    secret, as the RG's other rolls made at a strength step are."""
    module = turn.module
    supplied, _ = owed_rolls(module, purchase)
    group = availability.find_group(module, turn.side, purchase.group_id)
    base = roll_context(turn, group=group, cost_variant=purchase.cost_variant or "")
    base = replace(
        base, strength=purchase.strength, rolled_types=frozenset(purchase.details.get("types", []))
    )
    outcome = GroupOutcome(strength=purchase.strength)
    results: list[dict[str, object]] = []
    made: list[dict[str, object]] = []
    for entry in purchase.details.get("rolls", []):
        if entry.get("owed") not in supplied:
            results.append(entry)
            continue
        pp = next(x for x in module.post_purchase if x.table == entry["owed"])
        lines = _roll_on(
            turn, pp, group, base, rolls_for(pp, group, purchase.strength) or 1, ticked, outcome
        )
        made += lines
        results += lines
    purchase.details = {
        **purchase.details,
        "rolls": results,
        "leaders": list(purchase.details.get("leaders", [])) + outcome.leaders,
        "types": list(purchase.details.get("types", [])) + outcome.types,
    }
    purchase.save(update_fields=["details"])
    if outcome.units:  # RG footnote u: the type dr's units replace the chart's
        units_replaced(module, purchase, group, outcome)
        outcome = replace(outcome, units=[])
    units_given_later(purchase, outcome)
    _log_rolls(turn, purchase, made)


def _roll_on(
    turn: Turn,
    pp: PostPurchaseRoll,
    group: ReinforcementGroup,
    ctx: RollContext,
    count: int,
    ticked: Mapping[str, Sequence[str]] | None,
    outcome: GroupOutcome,
) -> list[dict[str, object]]:
    """``count`` secret rolls of the RG on ``pp``'s table; what they give joins
    ``outcome``; their lines for the RG Purchase Record."""
    table = turn.module.table(pp.table)
    lines: list[dict[str, object]] = []
    for n in range(count):
        ctx = replace(ctx, roll_number=n + 1)
        try:
            drms = applicable_drms(table, ctx, ticked=(ticked or {}).get(table.id, ()))
        except DrmRefused as exc:
            raise ActionRefused(str(exc)) from None
        r = dice_service.roll(
            turn.campaign,
            side=turn.side,
            kind=table.dice,
            purpose=table.title,
            drms=drms,
            table=table,
            item=f"{group.id} {group.type}",
            step_id=turn.step.id,
            secret=True,
            column=pp.column,
        )
        on_group(result_effects(table, r.final, pp.column, sum(r.faces)), outcome)
        lines.append(roll_entry(table.title, r))
    return lines


def _keep_stage(
    turn: Turn,
    purchase: Purchase,
    outcome: GroupOutcome,
    results: list[dict[str, object]],
    tables: set[str],
) -> None:
    """An RG's rolls made at a purchase step, kept on its line with what they gave it
    until the strength step makes the rest (APD 3.4's armor-type dr)."""
    purchase.details = {
        **purchase.details,
        "rolls": results,
        "types": outcome.types,
        "stage": {
            "tables": sorted(tables),
            "units": [{"name": u.name, "kind": u.kind, "count": u.count} for u in outcome.units],
            "leaders": outcome.leaders,
        },
    }
    purchase.save(update_fields=["details"])
    _log_rolls(turn, purchase, results)


def _log_rolls(turn: Turn, purchase: Purchase, results: list[dict[str, object]]) -> None:
    """The RG's rolls, in its owner's log (secret)."""
    summary = "; ".join(f"{x['table']}: {x['result']}" for x in results) or "no rolls"
    turn.record(
        EventKind.RG_ROLLS,
        secret=RG_ROLLS.kept(turn.side),
        text=f"{turn.side_name()} {purchase.group_id} {purchase.group_type}: {summary}.",
        data={"purchase": purchase.pk},
    )


def units_at(group: ReinforcementGroup, strength: str | None) -> int | None:
    """How many units an RG has at ``strength``: where the chart prints no Depleted
    count, a depleted RG keeps its Full count and each unit's own roll decides it
    (Sicily chart footnote m: "If depleted make a Secret dr for each Carrier")."""
    if strength == "depleted" and group.depleted is not None:
        return group.depleted
    return group.full


def rolls_for(
    pp: PostPurchaseRoll,
    group: ReinforcementGroup,
    strength: str | None,
    given: Sequence[NewUnits] = (),
) -> int:
    """How many rolls an RG makes on ``pp``'s table: ``count`` for the RG, or one per
    unit (those an earlier roll of the RG gave, e.g. the AFVs of APD 3.4's M4 Model
    roll; else the chart's, at its strength) or per SW of its allotment."""
    if pp.per == "unit":

        def named(name: str) -> bool:
            return not pp.unit_names or name.startswith(tuple(pp.unit_names))

        if given:
            return sum(u.count for u in given if named(u.name))
        return (units_at(group, strength) or 0) if named(group.units) else 0
    if pp.per == "sw":
        return sum(group.sw.values())
    return pp.count


def roll_entry(title: str, r: Roll) -> dict[str, object]:
    """A roll as an RG's line of the RG Purchase Record keeps it (``details["rolls"]``),
    revealed with the RG (``reveal``)."""
    return {"table": title, "result": r.result, "roll": r.seq, "dice": dice_text(r)}


def dice_text(r: Roll) -> str:
    """A roll's dice and DRMs as the player reads them beside its result: "DR 3+4,
    -1 Airborne → 6"."""
    drms = "".join(f", {d['value']:+d} {after_value(d['label'], d['value'])}" for d in r.drms)
    return f"{r.dice} {'+'.join(str(f) for f in r.faces)}{drms} → {r.final}"


def roll_remaining(turn: Turn) -> None:
    """Finishing the strength step rolls for every RG of the side still unrolled, and
    makes the rolls kept for a table the players have supplied since (C5.33)."""
    for purchase in Purchase.objects.filter(
        campaign=turn.campaign, side=turn.side, status=Purchase.Status.ACTIVE
    ):
        if purchase.rolled_at is None:
            make_rolls(turn, purchase)
        elif owed_rolls(turn.module, purchase)[0]:
            make_owed_rolls(turn, purchase)


def roll_while_buying(turn: Turn) -> None:
    """Finishing a purchase step that rolls while buying and lists its tables makes the
    rolls it lists that the side's RGs still owe there (APD 3.4: "For each Armor Group
    purchased, make a dr to determine armor type"; 1.2: "complete each step before
    moving on to the next step"); their later rolls wait for their steps."""
    step = turn.step
    if availability.rolls_now(step) is None:
        return
    for purchase in Purchase.objects.filter(
        campaign=turn.campaign,
        side=turn.side,
        cycle=turn.campaign.cycle,
        status=Purchase.Status.ACTIVE,
        rolled_at__isnull=True,
    ):
        made = purchase.details.get("stage", {}).get("tables", [])
        if not availability.rolls_left_now(
            turn.module, step, purchase.side, purchase.group_id, purchase.cost_variant or "", made
        ):
            make_rolls(turn, purchase)


def forfeit_fortification_points(turn: Turn) -> None:
    forts = turn.module.fortifications
    seat = turn.seat
    if forts and forts.forfeit_unspent and seat.fortification_points:
        lost = seat.fortification_points
        seat.fortification_points = 0
        seat.save(update_fields=["fortification_points"])
        turn.record(
            EventKind.FORFEIT,
            secret=FORTIFICATION.kept(turn.side),
            text=f"{turn.side_name()} forfeits {lost} unspent {forts.currency} ({forts.rule}).",
        )


def reveal_purchases(
    campaign: Campaign, *, date_index: int | None = None, whole: bool = False
) -> set[str]:
    """Reveal purchases (and their rolls and log lines) up to ``date_index``: by the
    campaign's policy before the scenario, what a secret table's DR gave an RG stays
    held (``reveal``); ``whole``: the scenario has ended, nothing is held.  The sides
    whose purchases were revealed (none: nothing was secret)."""
    qs = Purchase.objects.filter(
        campaign=campaign, revealed_at__isnull=True, status=Purchase.Status.ACTIVE
    )
    added = AddedLater.objects.filter(campaign=campaign, revealed_at__isnull=True)
    if date_index is not None:
        qs = qs.filter(date_index__lte=date_index)
        added = added.filter(date_index__lte=date_index)
    # what was bought later for an RG revealed before (PHD RG footnote p), with them
    lines = list(qs)
    reveal(campaign, lines, whole=whole)
    return {p.side for p in lines} | reveal_added(campaign, added, timezone.now())


def reveal_added(campaign: Campaign, added: QuerySet[AddedLater], now: datetime) -> set[str]:
    """Reveal items bought later for an RG (``AddedLater``) and their log lines; the
    sides whose items they were."""
    rows = list(added.values_list("pk", "side"))
    ids = [pk for pk, _ in rows]
    AddedLater.objects.filter(pk__in=ids).update(revealed_at=now)
    Event.objects.filter(campaign=campaign, data__added_later__in=ids).update(revealed_at=now)
    return {side for _, side in rows}


def holding_secret_drs(module: Module, purchases: Sequence[Purchase]) -> list[int]:
    """The RGs (their pks) that roll, or have rolled, on a table the rules call secret
    (APD 3.6 "make one secret DR"; Sicily 3.6181 "one Secret DR"): what those DRs give
    them is held apart from their lines (``visibility.PURCHASE.holds``).  One query for
    the rolls of them all."""
    seqs = {p.pk: [r["roll"] for r in p.details.get("rolls", []) if "roll" in r] for p in purchases}
    wanted = [seq for each in seqs.values() for seq in each]
    rolled = dict(
        Roll.objects.filter(campaign_id=purchases[0].campaign_id, seq__in=wanted).values_list(
            "seq", "table_id"
        )
        if wanted
        else ()
    )
    secret = {t.id for t in module.tables if t.secret}
    held = []
    for p in purchases:
        tables = set(
            availability.rolls_to_make(module, p.side, p.group_id, p.cost_variant or "")
        ) | {rolled[seq] for seq in seqs[p.pk] if seq in rolled}
        if tables & secret:
            held.append(p.pk)
    return held


# The CG Date (index) on which a line's recorded hex was last recorded (``details``):
# British chart footnote j asks the Offboard Observer's hex again on each date.
HEX_DATE = "hex_date"
# Set while the hex a line recorded is its owner's secret, whatever reveals the line
# (``details``; British chart footnote i: "he records a secret Pre-Registered hex";
# footnote j: "Secretly record the hex"): ``visibility.PURCHASE.apart``.  The roll that
# uses it (3.622) and the CG's end release it (``release_hex``).
HEX_HELD = "hex_held"
# What a line's purchase wrote in ``details``, which its strength DRs keep.
LINE_KEYS = (HEX_DATE, HEX_HELD)


def release_hex(purchase: Purchase) -> None:
    """The roll that uses ``purchase``'s recorded hex has made it public, or the CG is
    over (the caller saves ``details``)."""
    purchase.details.pop(HEX_HELD, None)


# The log lines of an RG's line itself (bought, its entry area or hex recorded, its
# state), revealed with the line though what its secret DRs gave it is held.
LINE_EVENTS = (EventKind.PURCHASE, EventKind.RG_STATE)


def reveal(campaign: Campaign, purchases: Iterable[Purchase], *, whole: bool = True) -> int:
    """Reveal RGs' lines and, unless held (``whole`` False: a reveal by the campaign's
    policy before the scenario, of an RG with secret DRs), what their rolls gave them."""
    now = timezone.now()
    purchases = list(purchases)
    module = module_of(campaign)
    held = holding_secret_drs(module, purchases) if purchases and not whole else []
    Purchase.objects.filter(pk__in=[p.pk for p in purchases]).update(revealed_at=now)
    Purchase.objects.filter(pk__in=held).update(outcome_held=True)
    Event.objects.filter(campaign=campaign, data__purchase__in=held, kind__in=LINE_EVENTS).update(
        revealed_at=now
    )
    reveal_outcomes(campaign, [p for p in purchases if p.pk not in held], now)
    return len(purchases)


def reveal_outcomes(
    campaign: Campaign, purchases: Iterable[Purchase], now: datetime | None = None
) -> int:
    """Reveal what RGs' rolls gave them (their rolls, units, the rolls since made for
    those units, their log lines and the items bought later for them)."""
    now = now or timezone.now()
    purchases = list(purchases)
    ids = [p.pk for p in purchases]
    Purchase.objects.filter(pk__in=ids).update(outcome_held=False)
    seqs = [r["roll"] for p in purchases for r in p.details.get("rolls", []) if "roll" in r]
    Roll.objects.filter(campaign=campaign, seq__in=seqs).update(revealed_at=now)
    # The rolls made since for the RG's units (or their weapons: "<unit>.<weapon>"),
    # secret while the RG was.
    refs = Unit.objects.filter(campaign=campaign, purchase_id__in=ids).values_list("ref")
    Roll.objects.annotate(of_unit=Left("unit_ref", REF_LENGTH)).filter(
        campaign=campaign, of_unit__in=refs, revealed_at__isnull=True
    ).update(revealed_at=now)
    Event.objects.filter(campaign=campaign, data__purchase__in=ids).update(revealed_at=now)
    reveal_added(
        campaign, AddedLater.objects.filter(purchase_id__in=ids, revealed_at__isnull=True), now
    )
    return len(ids)


def reveal_held(campaign: Campaign) -> int:
    """The scenario has ended: what secret DRs gave the RGs revealed before it (by the
    campaign's policy) is revealed too (``visibility.PURCHASE.holds``)."""
    held = Purchase.objects.filter(campaign=campaign, outcome_held=True)
    return reveal_outcomes(campaign, list(held))
