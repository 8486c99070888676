"""What an upgrade must keep: every campaign's backup (each row of it: both sides'
secrets, every roll and event, the roster, supplied data, notices) and each seat's
``state.json``, read the same way before and after the migrations.  Used by the
fixture's builder (``tests/build_upgrade_fixture.py``, run at the oldest supported
state) and by ``tests/test_upgrade.py`` (at head); it uses only what both have."""

from __future__ import annotations

import json
from typing import Any


def snapshot_all() -> dict[str, Any]:
    """Every campaign of this database: its backup and each seat's state.json."""
    from django.test import Client

    from campaign.models import Campaign, Seat
    from campaign.services.backup import export_campaign

    out: dict[str, Any] = {}
    for campaign in Campaign.objects.order_by("name", "pk"):
        seats: dict[str, Any] = {}
        for seat in Seat.objects.filter(campaign=campaign).select_related("user"):
            if seat.user is None:
                continue
            client = Client()
            client.force_login(seat.user)
            answer = client.get(f"/campaigns/{campaign.pk}/state.json")
            seats[seat.side] = {"status": answer.status_code, "state": answer.json()}
        backup = json.loads(export_campaign(campaign_id=campaign.pk))
        # Each row by its model and key: a row added since (a new record) is allowed,
        # a row lost is not.
        rows = {f"{o['model']}:{o.get('pk')}": o["fields"] for o in backup.pop("objects")}
        out[str(campaign.pk)] = {
            "name": campaign.name,
            "backup": {**backup, "rows": rows},
            "seats": seats,
        }
    return out


# What a seat may do next (an RG's rolls it may make now, the DRMs it may claim for
# them, the result it may propose to amend — through the whole pass since issue 46 —
# and why a chart's RG cannot be bought now, e.g. British G2's "NA" read as such since
# issue 44's eighth pass): offers that follow the rules of the version running, not
# data of the campaign.
OFFERS = ("can_", "claims", "amend", "reasons")


def losses(before: Any, after: Any, where: str = "") -> list[str]:
    """Where ``after`` lost or changed what ``before`` held: every key of a mapping
    kept with its value (new keys are allowed: fields added since), every list as
    long and kept item by item; a seat's offers (``OFFERS``) aside."""
    if isinstance(before, dict):
        if not isinstance(after, dict):
            return [f"{where}: was a mapping"]
        found: list[str] = []
        for key, value in before.items():
            if key.startswith(OFFERS):
                continue
            if key not in after:
                found.append(f"{where}.{key}: gone")
            else:
                found += losses(value, after[key], f"{where}.{key}")
        return found
    if isinstance(before, list):
        if not isinstance(after, list):
            return [f"{where}: a list became {after!r}"]
        if len(after) != len(before):
            return [f"{where}: {len(before)} items became {len(after)}"]
        pairs = enumerate(zip(before, after, strict=True))
        return [m for n, (b, a) in pairs for m in losses(b, a, f"{where}[{n}]")]
    return [] if before == after else [f"{where}: {before!r} became {after!r}"]
