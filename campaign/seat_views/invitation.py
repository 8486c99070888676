"""What an invitation link tells its holder: the campaign's public face only."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from campaign.models import Invitation
from campaign.selectors import module_of
from campaign.services.errors import ActionRefused


@dataclass(frozen=True)
class InvitationView:
    token: str
    campaign: str
    host: str
    module: str
    variant: str
    side: str


def invitation_view(token: str, user: Any) -> InvitationView:
    inv = (
        Invitation.objects.select_related("campaign", "campaign__host").filter(token=token).first()
    )
    if inv is None:
        raise ActionRefused("This invitation link is not valid.", status=404)
    if not inv.is_open and inv.used_by_id != user.pk:
        reason = "withdrawn by the host" if inv.revoked_at else "already used"
        raise ActionRefused(
            f"This invitation was {reason}. Ask the host for a new link.", status=410
        )
    module = module_of(inv.campaign)
    return InvitationView(
        token=inv.token,
        campaign=inv.campaign.name,
        host=inv.campaign.host.get_username(),
        module=module.title,
        variant=module.variant_words(inv.campaign.variant),
        side=module.side(inv.side).name,
    )
