"""Put a campaign at a purchase-phase step on a chosen date, with points to spend."""

from __future__ import annotations

from campaign.models import Campaign, Seat
from rules import machine
from rules.registry import module_of
from rules.services import hosting
from tests.walk import Players


def campaign_at(
    module_id, variant, date_id, users, *, kind="purchase", points=200, policy="step_end"
):
    alice, bob = users
    from campaign.models import ModuleRecord

    sides = [s["id"] for s in ModuleRecord.objects.get(id=module_id).data["sides"]]
    c = hosting.create_campaign(
        host=alice,
        module_id=module_id,
        variant_id=variant,
        side=sides[0],
        name="buy",
        reveal_policy=policy,
    )
    hosting.join_campaign(token=c.invitations.get().token, user=bob)
    module = module_of(c)
    # Start the walk on the date before, so the date step arrives at ``date_id``.
    Campaign.objects.filter(pk=c.pk).update(date_index=machine.date_index(module, date_id) - 1)
    players = Players(c, {sides[0]: alice, sides[1]: bob})
    values = {
        f"{f.id}.{s}": (False if f.kind == "bool" else 0)
        for f in module.result_fields
        for s in sides
    }
    players.results(**values)
    players.until(kind)
    Seat.objects.filter(campaign=c).update(points=points)
    return players, module
