"""The campaign log and the live broadcast after each change."""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction
from django.db.models import Max

from campaign.models import Campaign, Event

logger = logging.getLogger(__name__)


def campaign_group(campaign_id) -> str:
    return f"campaign-{campaign_id}"


def record_event(
    campaign: Campaign,
    *,
    kind: str,
    text: str,
    side: str = "",
    step_id: str = "",
    secret_side: str = "",
    public_text: str = "",
    data: dict[str, Any] | None = None,
) -> Event:
    """Append to the log of a campaign whose row the caller holds locked."""
    last = campaign.events.aggregate(m=Max("seq"))["m"] or 0
    return Event.objects.create(
        campaign=campaign,
        seq=last + 1,
        kind=kind,
        side=side,
        date_index=campaign.date_index,
        step_id=step_id,
        text=text,
        public_text=public_text,
        secret_side=secret_side,
        data=data or {},
    )


def changed(campaign: Campaign) -> None:
    """Tell both seats, once the transaction commits, to re-render what each may see."""
    transaction.on_commit(lambda: broadcast(campaign.pk))


def broadcast(campaign_id) -> None:
    """Tell every seat of the campaign to re-render.  A lost push loses no state: pages
    show the truth on reload and sockets resync on reconnect."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        _send(campaign_id)
    else:  # called from a thread that runs an event loop: send from another thread
        threading.Thread(target=_send, args=(campaign_id,), daemon=True).start()


def _send(campaign_id) -> None:
    try:
        async_to_sync(get_channel_layer().group_send)(
            campaign_group(campaign_id), {"type": "campaign.changed"}
        )
    except Exception:  # noqa: BLE001
        logger.exception("broadcast failed for %s", campaign_id)
