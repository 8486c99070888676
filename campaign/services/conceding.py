"""A side concedes the CG: its opponent wins, the CG ends for both (PHD C2.0: "TM End
... if one side concedes the Tactical Mission"; any CG may be conceded)."""

from __future__ import annotations

from django.db import transaction

from campaign.changes import CampaignConceded
from campaign.services.errors import ActionRefused
from campaign.services.flow import end_campaign
from campaign.services.turns import User, take_turn
from campaign.services.writes import commit
from rules import machine


@transaction.atomic
def concede_campaign(*, campaign_id: object, user: User, confirmed: bool) -> None:
    """End the CG with the opponent the winner.  Asked twice (``confirmed``): it can
    not be taken back."""
    turn = take_turn(campaign_id, user, None)
    if not confirmed:
        raise ActionRefused(
            "To concede, confirm it: the CG ends for both of you and your opponent wins; "
            "it cannot be taken back. Nothing was changed."
        )
    module = turn.module
    opponent = machine.opponent(module, turn.side)
    end_campaign(
        turn,
        f"{turn.side_name()} concedes the CG: {module.side(opponent).name} wins.",
    )
    # tells the other player
    commit(turn.campaign.pk, CampaignConceded())
