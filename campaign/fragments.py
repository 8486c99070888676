"""The campaign page's fragments, rendered for one seat from its seat view.  The page,
htmx responses and websocket pushes all use this, so every channel shows the same."""

from __future__ import annotations

from django.template.loader import render_to_string

from campaign.seat_view import SeatView

CAMPAIGN_FRAGMENTS = [
    "campaign/_header.html",
    "campaign/_step.html",
    "campaign/_sides.html",
    "campaign/_invitation.html",
    "campaign/_record.html",
    "campaign/_log.html",
]


ROSTER_FRAGMENTS = [
    "campaign/_roster.html",
    "campaign/_roster_record.html",
    "campaign/_forces.html",
    "campaign/_charts.html",
]


def roster_fragments(roster, *, user, request=None) -> list[tuple[str, str]]:
    context = {"roster": roster, "oob": True, "user": user}
    return [(t, render_to_string(t, context, request=request)) for t in ROSTER_FRAGMENTS]


def fragment_list(view: SeatView, *, user, origin: str, request=None) -> list[tuple[str, str]]:
    """(template, html) for every fragment, each marked for an out-of-band swap."""
    context = {"view": view, "oob": True, "origin": origin, "user": user}
    return [(t, render_to_string(t, context, request=request)) for t in CAMPAIGN_FRAGMENTS]


def render_fragments(view: SeatView, *, user, origin: str, request=None) -> str:
    return "".join(
        html for _, html in fragment_list(view, user=user, origin=origin, request=request)
    )
