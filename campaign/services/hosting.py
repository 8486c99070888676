"""Hosting a campaign: create it, invite the opponent, join a side."""

from __future__ import annotations

import secrets

from django.db import IntegrityError, transaction
from django.utils import timezone

from campaign.changes import InvitationChanged, SeatJoined
from campaign.models import Campaign, EventKind, Invitation, RevealPolicy, Seat
from campaign.selectors import as_uuid, campaign_seats, module_of, visible_modules
from campaign.services.errors import ActionRefused, NotFound
from campaign.services.events import record_event
from campaign.services.start import give_start, log_start
from campaign.services.text import clean_text, max_length
from campaign.services.turns import Turn, User, signed_in
from campaign.services.waiting import update_waiting
from campaign.services.writes import commit
from rules import dice, machine
from rules.registry import parse_module


@transaction.atomic
def create_campaign(
    *,
    host: User,
    module_id: str,
    variant_id: str,
    side: str,
    name: str,
    reveal_policy: str,
) -> Campaign:
    """Create a campaign where its CG starts (the steps before the Initial Scenario, if
    the rules have any, else the Initial Scenario itself) with the host on ``side``."""
    player = signed_in(host)
    record = visible_modules(player).filter(id=module_id).first()
    if record is None:
        raise ActionRefused(f"There is no CG module '{module_id}'.")
    module = parse_module(record.checksum, record.data)
    try:
        variant = module.variant(variant_id)
    except KeyError:
        raise ActionRefused(f"{module.title} has no CG variant '{variant_id}'.") from None
    if side not in {s.id for s in module.sides}:
        raise ActionRefused(f"{module.title} has no side '{side}'.")
    if reveal_policy not in RevealPolicy.values:
        raise ActionRefused("Choose when purchases are revealed.")
    name = clean_text(name, what="Campaign name", limit=max_length(Campaign, "name"))
    if not name:
        raise ActionRefused("Give the campaign a name.")
    seed, seed_hash = dice.new_seed()
    campaign = Campaign.objects.create(
        name=name,
        module=record,
        module_data=record.data,
        module_checksum=record.checksum,
        variant=variant.id,
        host=player,
        reveal_policy=reveal_policy,
        date_index=machine.date_index(module, variant.start_date),
        step_index=0,
        in_play=not machine.has_start(module),
        dice_seed=seed,
        dice_seed_hash=seed_hash,
    )
    seats = [
        Seat.objects.create(campaign=campaign, side=s.id, user=player if s.id == side else None)
        for s in module.sides
    ]
    where = (
        f"It starts with the steps before the Initial Scenario ({module.steps[0].id})."
        if machine.has_start(module)
        else "The Initial Scenario is in play."
    )
    record_event(
        campaign,
        kind=EventKind.CREATED,
        side=side,
        text=(
            f"{player.get_username()} hosts {campaign.name}: {module.title}, {variant.name}, "
            f"playing {module.side(side).name}. {where} Dice seed SHA-256: {seed_hash}."
        ),
    )
    log_start(campaign, module, give_start(campaign, module, seats))
    _open_invitation(campaign, machine.opponent(module, side))
    host_seat = next(s for s in seats if s.side == side)
    turn = Turn(campaign, module, host_seat, {s.side: s for s in seats})
    turn.no_marks_yet()
    for seat, name in update_waiting(turn):  # no page shows the campaign yet: no push
        seat.save(update_fields=[name])
    return campaign


def _open_invitation(campaign: Campaign, side: str) -> Invitation:
    return Invitation.objects.create(campaign=campaign, side=side, token=secrets.token_urlsafe(24))


def _hosted(campaign_id: object, host: User) -> tuple[Campaign, list[Seat]]:
    """The host's campaign and its seats, locked (as every write locks them)."""
    signed_in(host)
    pk = as_uuid(campaign_id)
    seats = campaign_seats(pk, lock=True) if pk else []
    if not any(s.user_id == host.pk for s in seats):
        raise NotFound()
    campaign = seats[0].campaign
    if campaign.host_id != host.pk:
        raise ActionRefused("Only the host manages the invitation.", status=403)
    return campaign, seats


def _free_side(seats: list[Seat]) -> str:
    seat = next((s for s in seats if s.user_id is None), None)
    if seat is None:
        raise ActionRefused("Both sides are taken: there is no one left to invite.", status=409)
    return seat.side


@transaction.atomic
def regenerate_invitation(*, campaign_id: object, host: User) -> Invitation:
    """Revoke the open link (if any) and make a new one."""
    campaign, seats = _hosted(campaign_id, host)
    side = _free_side(seats)
    campaign.invitations.filter(revoked_at__isnull=True, used_at__isnull=True).update(
        revoked_at=timezone.now()
    )
    commit(campaign.pk, InvitationChanged())
    return _open_invitation(campaign, side)


@transaction.atomic
def revoke_invitation(*, campaign_id: object, host: User) -> None:
    campaign, _ = _hosted(campaign_id, host)
    revoked = campaign.invitations.filter(revoked_at__isnull=True, used_at__isnull=True).update(
        revoked_at=timezone.now()
    )
    if not revoked:
        raise ActionRefused("There is no open invitation to revoke.", status=409)
    commit(campaign.pk, InvitationChanged())


@transaction.atomic
def join_campaign(*, token: str, user: User) -> Campaign:
    """Seat ``user`` on the invitation's side.  The link works once."""
    player = signed_in(user)
    found = Invitation.objects.filter(token=token).first()
    if found is None:
        raise ActionRefused("This invitation link is not valid.", status=404)
    # Lock as every write does (seats and campaign first), then read the link afresh.
    seats = campaign_seats(found.campaign_id, lock=True)
    invitation = Invitation.objects.select_for_update().get(pk=found.pk)
    if invitation.revoked_at is not None:
        raise ActionRefused(
            "This invitation was withdrawn by the host. Ask them for a new link.", status=410
        )
    if invitation.used_at is not None:
        if invitation.used_by_id == player.pk:
            return invitation.campaign
        raise ActionRefused("This invitation has already been used.", status=410)
    campaign = seats[0].campaign
    if any(s.user_id == player.pk for s in seats):
        raise ActionRefused("You already play a side in this campaign.", status=409)
    seat = next(s for s in seats if s.side == invitation.side)
    if seat.user_id is not None:
        raise ActionRefused("That side is already taken.", status=409)
    seat.user = player
    try:
        with transaction.atomic():
            seat.save(update_fields=["user"])
    except IntegrityError:
        raise ActionRefused("You already play a side in this campaign.", status=409) from None
    invitation.used_at = timezone.now()
    invitation.used_by = player
    invitation.save(update_fields=["used_at", "used_by"])
    module = module_of(campaign)
    record_event(
        campaign,
        kind=EventKind.JOINED,
        side=seat.side,
        text=f"{player.get_username()} joins as {module.side(seat.side).name}.",
    )
    turn = Turn(campaign, module, seat, {s.side: s for s in seats})
    # tells the host who joined
    commit(campaign.pk, SeatJoined(), saving=update_waiting(turn))
    return campaign
