"""The HTTP edge: parse a request, call one service, render from a seat view.  No rule
is computed here.  Pages are in ``pages``, player actions in ``actions`` (one
decorator, named parsers), sign-up in ``accounts``."""

from campaign.views.accounts import home, notification_settings, signup
from campaign.views.actions import (
    act,
    invitation_new,
    invitation_revoke,
    message,
    messages_seen,
    nudge,
    unit,
)
from campaign.views.modules import modules
from campaign.views.pages import (
    campaign_page,
    create,
    dashboard,
    dice,
    digest,
    export,
    join,
    roster,
    sheet,
    sheet_json,
    sheet_txt,
    state_json,
)
from campaign.views.supply import start_sheet, supply

__all__ = [
    "act",
    "campaign_page",
    "create",
    "dashboard",
    "dice",
    "digest",
    "export",
    "modules",
    "home",
    "invitation_new",
    "invitation_revoke",
    "join",
    "message",
    "messages_seen",
    "nudge",
    "notification_settings",
    "roster",
    "sheet",
    "sheet_json",
    "sheet_txt",
    "signup",
    "state_json",
    "start_sheet",
    "supply",
    "unit",
]
