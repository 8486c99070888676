"""The HTTP edge: parse a request, call one service, render from a seat view.  No rule
is computed here.  Pages are in ``pages``, player actions in ``actions`` (one
decorator, named parsers), sign-up in ``accounts``."""

from campaign.views.accounts import home, signup
from campaign.views.actions import act, invitation_new, invitation_revoke, unit
from campaign.views.pages import (
    campaign_page,
    create,
    dashboard,
    dice,
    export,
    join,
    roster,
    state_json,
)
from campaign.views.supply import supply

__all__ = [
    "act",
    "campaign_page",
    "create",
    "dashboard",
    "dice",
    "export",
    "home",
    "invitation_new",
    "invitation_revoke",
    "join",
    "roster",
    "signup",
    "state_json",
    "supply",
    "unit",
]
