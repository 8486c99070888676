"""The campaign log: every service appends what it did, in words."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from campaign.changes import LogLine
from campaign.models import Campaign, Event, EventKind
from campaign.services import writes
from campaign.visibility import Kept


def record_event(
    campaign: Campaign,
    *,
    kind: EventKind,
    text: str,
    side: str = "",
    step_id: str = "",
    secret: Kept | None = None,
    secret_side: str = "",
    public_text: str = "",
    data: dict[str, Any] | None = None,
    revealed_at: datetime | None = None,
) -> Event:
    """Append to the log of a campaign whose row the caller holds locked.  With
    ``secret_side`` the text is that side's secret until revealed; the opponent reads
    ``public_text`` (or nothing, when it is empty).  The event is also kept on the
    campaign object (``recorded``) for the notices of this transaction.  Inside
    ``writes.deferring()`` the insert waits for the block's one statement (the event's
    ``pk`` stays unset); ``revealed_at``: a secret revealed as it is recorded.

    ``secret``: a change one side keeps secret, as its kind declares
    (``visibility.SECRETS``): its side and public line (``secret_side`` and
    ``public_text``, the older spelling, are derived from it)."""
    if secret is not None:
        secret_side, public_text = secret.side, secret.public_text
        if secret.held:  # revealed with the unit whose former state it changes behind
            data = {**(data or {}), "held": secret.held}
    event = Event(
        campaign=campaign,
        kind=kind,
        side=side,
        date_index=campaign.date_index,
        step_id=step_id,
        text=text,
        public_text=public_text,
        secret_side=secret_side,
        data=data or {},
        revealed_at=revealed_at,
    )
    writes.insert(event)
    recorded(campaign).append(event)
    return event


def recorded(campaign: Campaign) -> list[Event]:
    """The events recorded on this campaign object: every write holds the one locked
    object of its transaction, so these are the events of the transaction so far
    (``campaign.services.notifications`` tells the opponent the public ones)."""
    events: list[Event] = campaign.__dict__.setdefault("_recorded_events", [])
    return events


def logged(campaign: Campaign) -> tuple[LogLine, ...]:
    """The log lines this transaction recorded on ``campaign`` (``recorded``) since the
    last change that said its own, oldest first, as a change carries them
    (``Change.logged``): what the acting page's answer adds to the log it showed
    instead of reading it again.  Each line is said by one change only."""
    lines = recorded(campaign)
    said = campaign.__dict__.get("_logged_lines", 0)
    campaign.__dict__["_logged_lines"] = len(lines)
    return tuple(LogLine.from_event(event) for event in lines[said:])
