"""Where each side's hidden Fortifications lie, and those in the enemy's Setup Areas
placed on-map (Sicily 3.6073 "Each still-hidden Fortification within a Setup Area of
the purchaser's opponent is placed on-map.  Each such minefield is marked by placing a
Minefield counter to reveal its presence but not its strength").

Which Fortifications stand hidden, and where, is the map's: at the module's
``setup_areas.step`` (3.605) the owner states, in secret, for each of his Fortifications
not yet on the map, the Setup Area ID it lies in (either side's, or none), or that it
stands on the map; restated each pass, as the Setup Areas are, his Done waiting for
each (``statement_owed``).  On completing ``hidden_fortifications.step`` (3.607) each
one stated in a Setup Area the opponent lists is placed on-map (``reveal_hidden``):
its purchase revealed through the gate (``FortificationBuy.revealed_at``), a minefield
only by a public line naming the Setup Area, its purchase kept secret.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction
from django.utils import timezone

from campaign.changes import PurchaseChanged
from campaign.models import Campaign, EventKind, FortificationBuy
from campaign.selectors import enemy_setup_areas
from campaign.services.errors import ActionRefused
from campaign.services.events import record_event
from campaign.services.turns import Turn, User, take_turn
from campaign.services.writes import commit
from campaign.visibility import FORTIFICATION
from rules.effects import (
    fortification_area,
    fortification_areas_at,
    fortifications_revealed_at,
    still_hidden_in_enemy_area,
)
from rules.schema import HiddenFortifications, Module, Step

# What the owner may state instead of a Setup Area ID (the form's values).
ON_MAP = "on-map"
IN_NONE = "none"


def to_state(campaign: Campaign, module: Module, side: str) -> list[FortificationBuy]:
    """``side``'s own Fortifications whose Setup Area it states in this pass: of the
    module's Fortifications, not yet on the map (or stated so in this pass, which it
    may restate while the step lasts), oldest first."""
    areas = module.setup_areas
    hid = areas.hidden_fortifications if areas is not None else None
    if hid is None:
        return []
    own = FortificationBuy.objects.visible_to(side).filter(
        campaign=campaign, side=side, item_id__in=hid.items
    )
    return [b for b in own.order_by("id") if not b.on_map or b.area_cycle == campaign.cycle]


def fortification_words(module: Module, buy: FortificationBuy) -> str:
    """A Fortification in its owner's words: "1 × Foxhole (3S) of Jul 14 AM at 12F4"."""
    forts = module.fortifications
    labels = {i.id: i.label for i in forts.items} if forts else {}
    tier = f" ({buy.tier})" if buy.tier else ""
    where = f" at {buy.location}" if buy.location else ""
    date = module.dates[buy.date_index].label
    return f"{buy.count} × {labels.get(buy.item_id, buy.item_id)}{tier} of {date}{where}"


def stated_words(module: Module, buy: FortificationBuy, cycle: int) -> str:
    """What its owner stated of it in pass ``cycle`` ("" : nothing yet)."""
    if buy.area_cycle != cycle:
        return ""
    word = module.setup_areas.label if module.setup_areas else ""
    if buy.on_map:
        return "on the map"
    return f"hidden in {word} {buy.setup_area}" if buy.setup_area else f"hidden in no {word}"


@transaction.atomic
def state_area(
    *,
    campaign_id: object,
    user: User,
    fortification_id: str,
    area: str,
    count: int = 0,
    at: str | None = None,
) -> FortificationBuy:
    """The owner states, in secret, where one of his Fortifications lies (Sicily 3.605,
    3.6073): ``area`` is a Setup Area ID either side lists, ``IN_NONE`` (hidden in none:
    No-Man's Land or Uncontrolled Territory) or ``ON_MAP`` (it stands on the map).
    ``count``: of a line of several counters, how many lie there (0: all); those are
    split off as a line of their own (its share of the cost), the rest stated apart."""
    turn = take_turn(campaign_id, user, at)
    module, c = turn.module, turn.campaign
    hid = fortification_areas_at(module, turn.step.id)
    areas = module.setup_areas
    if hid is None or areas is None:
        at_step = areas.step if areas is not None else None
        where = f" at {at_step}" if at_step and areas and areas.hidden_fortifications else ""
        rule = areas.hidden_fortifications.rule if areas and areas.hidden_fortifications else ""
        raise ActionRefused(
            f"Where your Fortifications lie is stated{where}, not at {turn.step.id} "
            f"{turn.step.title}" + (f" ({rule})" if rule else "") + ". Nothing was changed.",
            status=409,
        )
    word = areas.label
    if turn.side in turn.done:
        raise ActionRefused(
            f"You have already done {turn.step.id} {turn.step.title}: where your "
            f"Fortifications lie stands as you stated it ({hid.rule}). Nothing was changed.",
            status=409,
        )
    # One refusal for a reference of no Fortification of the side's, the opponent's
    # included: his secret is not told by a different sentence.
    buy = next((b for b in to_state(c, module, turn.side) if b.ref == fortification_id), None)
    if buy is None:
        raise ActionRefused(
            f"You have no such Fortification to place in a {word} ({hid.rule}). "
            "Nothing was changed.",
            status=404,
        )
    mine = list(turn.seat.setup_areas or ())
    theirs = list(enemy_setup_areas(c, module, turn.side, turn.seats))
    choice = " ".join(str(area or "").split())
    if choice == ON_MAP:
        buy.on_map, buy.setup_area = True, ""
    elif choice == IN_NONE:
        buy.on_map, buy.setup_area = False, ""
    else:
        named = fortification_area(choice, mine, theirs)
        if named is None:
            listed = ", ".join((*mine, *theirs)) or "none yet"
            raise ActionRefused(
                f"{word} {choice[:40] or '(none given)'} is listed by neither side (listed: "
                f"{listed}): a hidden Fortification lies in a {word} one side lists, or in "
                f"none ({hid.rule}). Nothing was changed.",
                status=409,
            )
        buy.on_map, buy.setup_area = False, named
    if count < 0 or count > buy.count:
        raise ActionRefused(
            f"{fortification_words(module, buy)} is {buy.count} counter"
            f"{'s' if buy.count > 1 else ''}: state where 1 to {buy.count} of them lie "
            f"({hid.rule}). Nothing was changed.",
            status=409,
        )
    if 0 < count < buy.count:
        buy = _split(buy, count)
    buy.area_cycle = c.cycle
    buy.save(update_fields=["on_map", "setup_area", "area_cycle"])
    kept = FORTIFICATION.kept(turn.side)
    turn.record(
        EventKind.FORTIFY,
        secret=kept,
        text=f"{turn.side_name()}: {fortification_words(module, buy)} stands "
        f"{stated_words(module, buy, c.cycle)} ({hid.rule}).",
    )
    commit(c.pk, PurchaseChanged(kept=kept))
    return buy


def _split(buy: FortificationBuy, count: int) -> FortificationBuy:
    """``count`` of the line's counters as a line of their own, its share of the cost
    (the price is per counter, 3.619), with what is being stated of them; the line
    keeps the rest, as it was stated before."""
    share = buy.cost * count // buy.count
    rest = FortificationBuy.objects.get(pk=buy.pk)
    rest.count, rest.cost = buy.count - count, buy.cost - share
    rest.save(update_fields=["count", "cost"])
    return FortificationBuy.objects.create(
        campaign_id=buy.campaign_id,
        side=buy.side,
        date_index=buy.date_index,
        item_id=buy.item_id,
        tier=buy.tier,
        count=count,
        cost=share,
        location=buy.location,
        setup_area=buy.setup_area,
        on_map=buy.on_map,
    )


def statement_owed(turn: Turn, ahead: Sequence[Step] = ()) -> str:
    """Why the side may not be done with the step yet, nor with the steps ``ahead`` it
    would finish with it: a Fortification of his whose place it has not stated in this
    pass, at the step where it is stated ("" : none).  Finishing ahead through that
    step is refused, the statement made there first."""
    later = next((s for s in ahead if fortification_areas_at(turn.module, s.id)), None)
    step = later or turn.step
    hid = fortification_areas_at(turn.module, step.id)
    if hid is None:
        return ""
    left = [
        b
        for b in to_state(turn.campaign, turn.module, turn.side)
        if b.area_cycle != turn.campaign.cycle
    ]
    if not left:
        return ""
    word = turn.module.setup_areas.label if turn.module.setup_areas else ""
    names = "; ".join(fortification_words(turn.module, b) for b in left)
    first = (
        f"Not through {step.id} {step.title} at once: press Done at each step up to it, "
        "and there state first"
        if later
        else "State first"
    )
    return (
        f"{first} where each of your Fortifications lies: on the map, or hidden in a "
        f"{word} or in none ({hid.rule}: each still-hidden Fortification within a {word} "
        f"of its purchaser's opponent is placed on-map): {names}. Nothing was changed."
    )


def reveal_hidden(turn: Turn) -> None:
    """On completing the module's ``hidden_fortifications.step`` (Sicily 3.607): each
    side's still-hidden Fortification stated in this pass in a Setup Area its opponent
    lists is placed on-map (3.6073): its purchase revealed; a minefield by its presence
    alone (a public line), its purchase kept its owner's."""
    c, module = turn.campaign, turn.module
    hid = fortifications_revealed_at(module, turn.step.id)
    if hid is None:
        return
    now = timezone.now()
    for side in [s.id for s in module.sides]:
        theirs = enemy_setup_areas(c, module, side, turn.seats)
        if not theirs:
            continue
        for buy in FortificationBuy.objects.filter(campaign=c, side=side).order_by("id"):
            if not still_hidden_in_enemy_area(
                hid,
                buy.item_id,
                on_map=buy.on_map,
                setup_area=buy.setup_area,
                stated=buy.area_cycle == c.cycle,
                theirs=theirs,
            ):
                continue
            _place(turn, hid, buy, now)


def _place(turn: Turn, hid: HiddenFortifications, buy: FortificationBuy, now: object) -> None:
    c, module = turn.campaign, turn.module
    word = module.setup_areas.label if module.setup_areas else ""
    owner = module.side(buy.side).name
    other = next(s.name for s in module.sides if s.id != buy.side)
    where = f"the {other} {word} {buy.setup_area}"
    buy.on_map = True
    if buy.item_id in hid.minefields:
        buy.save(update_fields=["on_map"])
        text = (
            f"A {hid.minefield_counter} of the {owner} is placed in {where}: a minefield "
            f"lies there, its strength not revealed ({hid.rule})."
        )
    else:
        buy.revealed_at = now  # type: ignore[assignment]
        buy.save(update_fields=["on_map", "revealed_at"])
        text = (
            f"The {owner} still-hidden {fortification_words(module, buy)} in {where} is "
            f"placed on-map ({hid.rule})."
        )
    record_event(c, kind=EventKind.FORTIFY, step_id=turn.step.id, text=text)
