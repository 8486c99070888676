"""The fragments htmx swaps: one template per page part, rendered for one seat from
its seat view.  The page, htmx answers and websocket pushes all render through here,
so every channel shows the same."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.http import HttpRequest
from django.template.loader import render_to_string

from campaign.seat_views.campaign_page import CampaignView
from campaign.seat_views.roster import RosterView
from campaign.services.push import Part

CAMPAIGN_PARTS: dict[Part, str] = {
    Part.HEADER: "campaign/_header.html",
    Part.STEP: "campaign/_step.html",
    Part.SIDES: "campaign/_sides.html",
    Part.INVITATION: "campaign/_invitation.html",
    Part.RECORD: "campaign/_record.html",
    Part.SUPPLIES: "campaign/_supplies.html",
    Part.LOG: "campaign/_log.html",
}

ROSTER_PARTS: dict[Part, str] = {
    Part.ROSTER: "campaign/_roster.html",
    Part.ROSTER_RECORD: "campaign/_roster_record.html",
    Part.FORCES: "campaign/_forces.html",
    Part.CHARTS: "campaign/_charts.html",
}


def campaign_fragments(
    view: CampaignView,
    parts: Iterable[Part],
    *,
    user: Any,
    origin: str,
    request: HttpRequest | None = None,
) -> list[tuple[Part, str]]:
    """(part, html) for each campaign-page part asked for, each marked for an
    out-of-band swap."""
    context = {"view": view, "oob": True, "origin": origin, "user": user}
    return [
        (part, render_to_string(CAMPAIGN_PARTS[part], context, request=request))
        for part in CAMPAIGN_PARTS
        if part in set(parts)
    ]


def roster_fragments(
    roster: RosterView,
    parts: Iterable[Part],
    *,
    user: Any,
    request: HttpRequest | None = None,
) -> list[tuple[Part, str]]:
    context = {"roster": roster, "oob": True, "user": user}
    return [
        (part, render_to_string(ROSTER_PARTS[part], context, request=request))
        for part in ROSTER_PARTS
        if part in set(parts)
    ]
