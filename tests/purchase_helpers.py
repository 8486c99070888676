"""Put a two-player campaign at a named step on a chosen date, in one line:

players, module = campaign_at("sicily", "i", "jul14pm", users, step="3.619")
players, module = campaign_at("sicily", "i", "jul14n", users, kind="initiative")
"""

from __future__ import annotations

from campaign.models import Campaign, Seat
from campaign.selectors import module_of
from rules import machine
from tests.walk import host_game, players_of


def campaign_at(
    module_id,
    variant,
    date_id,
    users,
    *,
    kind="purchase",
    step=None,
    points=200,
    policy="step_end",
):
    """Both players walk from the scenario result to the first step of ``kind`` (or
    the step with rule number ``step``) on ``date_id``; each side then holds
    ``points``."""
    alice, bob = users
    c = host_game(module_id, variant, alice, bob, policy=policy, name="buy")
    module = module_of(c)
    # Start the walk on the date before, so the date step arrives at ``date_id``.
    Campaign.objects.filter(pk=c.pk).update(date_index=machine.date_index(module, date_id) - 1)
    players = players_of(c, alice, bob)
    sides = [x.id for x in module.sides]
    values = {
        f"{f.id}.{s}": (False if f.kind == "bool" else 0)
        for f in module.result_fields
        for s in sides
    }
    players.results(**values)
    if step is None:
        players.until(kind)
    else:
        players.until_step(step)
    set_points(Campaign.objects.get(pk=c.pk), points)
    return players, module


def set_points(campaign, points):
    """Both sides hold ``points``, and the date's replenishment record (what the CG
    Roster's row reads: Start + Repl = Total, less Spent = Left, Sicily 3.617) starts
    from what makes ``points`` its total, so the row agrees with the points set; where
    ``points`` is below what the date gave, the record is left as the walk made it."""
    from campaign.models import Event, EventKind

    Seat.objects.filter(campaign=campaign).update(points=points)
    made = Event.objects.filter(
        campaign=campaign, kind=EventKind.REPLENISH, date_index=campaign.date_index
    )
    for event in made:
        data = dict(event.data or {})
        repl = data.get("repl")
        if isinstance(repl, int) and points >= repl:
            event.data = {**data, "start": points - repl}
            event.save(update_fields=["data"])


def roster_of(campaign, side):
    """``side``'s roster view as its page reads it: through its seat, at the seat's
    revision (``campaign``: a campaign or its id)."""
    from campaign.seat_views.roster import roster_view

    pk = getattr(campaign, "pk", campaign)
    return roster_view(Seat.objects.select_related("campaign").get(campaign_id=pk, side=side))


def make_rolls(players, side, purchase, ticked=None):
    """``side`` makes an RG's secret rolls where the rules make them: at the strength
    step after the purchase step (Sicily 3.6181, PHD C5.33), the walk going there
    first if the campaign is still buying; returns the purchase as rolled."""
    from campaign.services import purchases

    step = players.step
    if step.kind == "purchase" and not step.rolls_while_buying:
        players.until("strength")
    purchases.roll_for_purchase(
        campaign_id=players.campaign_id,
        user=players.users[side],
        purchase_id=purchase.ref,
        ticked=ticked,
    )
    purchase.refresh_from_db()
    return purchase


def add_unit(players, side, name, kind, status="ok", number=1, markers=(), **more):
    """``side`` adds ``number`` × ``name`` to its retained forces, marked ``status``
    (one marker, "ok" none) and ``markers`` (``more``: its location...)."""
    from campaign.services import units

    line = dict(name=name, kind=kind, number=number, markers=[status, *markers])
    line |= more
    return units.add_unit(campaign_id=players.campaign_id, user=players.users[side], **line)


def add_vehicle(players, side, name, *weapons, status="ok", markers=(), **more):
    """``side`` adds a vehicle to its retained forces with the weapons of its record,
    each ``(kind, markers)`` or ``(kind, markers, name)`` ("ma", ["malfunctioned"]);
    returns the vehicle and its weapons' references, in order."""
    from campaign.services import units

    vehicle = add_unit(players, side, name, "vehicle", status, 1, markers, **more)
    for kind, marks, *named in weapons:
        vehicle = units.add_weapon(
            campaign_id=players.campaign_id,
            user=players.users[side],
            unit_id=vehicle.ref,
            kind=kind,
            name=named[0] if named else "",
            markers=list(marks),
        )
    return vehicle, [w["ref"] for w in vehicle.weapons]


def with_sicily_ob(users, ob_form, side="british"):
    """A CG I of Sicily hosted on ``side`` whose Initial-Scenario OB the British propose
    (``ob_form``, as the supply form reads it: {"rgs.axis": "I5", "rgs.british": "I2"})
    and the Axis accepts; the players at the first step, not yet walked."""
    from campaign.services import supplements

    a, b = users
    c = host_game("sicily", "i", a, b, side=side, through_start=False)
    players = players_of(c, a, b)
    proposal = supplements.propose_supplement(
        campaign_id=c.pk, user=players.users["british"], path="variants.i.start.ob", form=ob_form
    )
    supplements.accept_supplement(campaign_id=c.pk, user=players.users["axis"], ref=proposal.ref)
    return c, players


def keep_retained_units(players):
    """Each side whose on-map retained units decide the opponent's chit (Sicily
    3.6212*) lists a squad on its retained forces, as after any scenario it played."""
    from campaign.selectors import module_of

    module = module_of(players.campaign)
    for r in module.initiative.restrictions if module.initiative else []:
        if not r.from_roster:
            continue
        other = next(s.id for s in module.sides if s.id != r.side)
        add_unit(players, other, "4-5-8", "squad")
