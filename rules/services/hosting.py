"""Hosting a campaign: create it, invite the opponent, join a side."""

from __future__ import annotations

import secrets

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils import timezone

from campaign.models import Campaign, Invitation, ModuleRecord, RevealPolicy, Seat
from rules import dice, machine
from rules.registry import parse_module
from rules.services.errors import ActionRefused, NotFound
from rules.services.log import changed, record_event


@transaction.atomic
def create_campaign(
    *,
    host: AbstractBaseUser,
    module_id: str,
    variant_id: str,
    side: str,
    name: str,
    reveal_policy: str,
) -> Campaign:
    """Create a campaign at its Initial Scenario with the host seated on ``side``."""
    record = ModuleRecord.objects.filter(id=module_id).first()
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
    name = name.strip()
    if not name:
        raise ActionRefused("Give the campaign a name.")
    seed, seed_hash = dice.new_seed()
    campaign = Campaign.objects.create(
        name=name[:120],
        module=record,
        module_data=record.data,
        module_checksum=record.checksum,
        variant=variant.id,
        host=host,
        reveal_policy=reveal_policy,
        date_index=machine.date_index(module, variant.start_date),
        step_index=0,
        in_play=True,
        dice_seed=seed,
        dice_seed_hash=seed_hash,
    )
    for s in module.sides:
        Seat.objects.create(
            campaign=campaign,
            side=s.id,
            user=host if s.id == side else None,
            points=variant.initial_points.get(s.id, 0),
            fortification_points=variant.initial_fortification_points.get(s.id, 0),
        )
    record_event(
        campaign,
        kind="created",
        side=side,
        text=(
            f"{host.get_username()} hosts {campaign.name}: {module.title}, {variant.name}, "
            f"playing {module.side(side).name}. The Initial Scenario is in play. "
            f"Dice seed SHA-256: {seed_hash}."
        ),
    )
    _open_invitation(campaign, machine.opponent(module, side))
    return campaign


def _open_invitation(campaign: Campaign, side: str) -> Invitation:
    return Invitation.objects.create(campaign=campaign, side=side, token=secrets.token_urlsafe(24))


def _hosted(campaign_id, host: AbstractBaseUser) -> Campaign:
    campaign = Campaign.objects.select_for_update().filter(pk=campaign_id).first()
    if campaign is None or not campaign.seats.filter(user=host).exists():
        raise NotFound()
    if campaign.host_id != host.pk:
        raise ActionRefused("Only the host manages the invitation.", status=403)
    return campaign


def _free_side(campaign: Campaign) -> str:
    seat = campaign.seats.filter(user__isnull=True).first()
    if seat is None:
        raise ActionRefused("Both sides are taken: there is no one left to invite.", status=409)
    return seat.side


@transaction.atomic
def regenerate_invitation(*, campaign_id, host: AbstractBaseUser) -> Invitation:
    """Revoke the open link (if any) and make a new one."""
    campaign = _hosted(campaign_id, host)
    side = _free_side(campaign)
    campaign.invitations.filter(revoked_at__isnull=True, used_at__isnull=True).update(
        revoked_at=timezone.now()
    )
    return _open_invitation(campaign, side)


@transaction.atomic
def revoke_invitation(*, campaign_id, host: AbstractBaseUser) -> None:
    campaign = _hosted(campaign_id, host)
    revoked = campaign.invitations.filter(revoked_at__isnull=True, used_at__isnull=True).update(
        revoked_at=timezone.now()
    )
    if not revoked:
        raise ActionRefused("There is no open invitation to revoke.", status=409)


@transaction.atomic
def join_campaign(*, token: str, user: AbstractBaseUser) -> Campaign:
    """Seat ``user`` on the invitation's side.  The link works once."""
    invitation = Invitation.objects.select_for_update().filter(token=token).first()
    if invitation is None:
        raise ActionRefused("This invitation link is not valid.", status=404)
    if invitation.revoked_at is not None:
        raise ActionRefused(
            "This invitation was withdrawn by the host. Ask them for a new link.", status=410
        )
    if invitation.used_at is not None:
        if invitation.used_by_id == user.pk:
            return invitation.campaign
        raise ActionRefused("This invitation has already been used.", status=410)
    campaign = Campaign.objects.select_for_update().get(pk=invitation.campaign_id)
    if campaign.seats.filter(user=user).exists():
        raise ActionRefused("You already play a side in this campaign.", status=409)
    seat = campaign.seats.select_for_update().get(side=invitation.side)
    if seat.user_id is not None:
        raise ActionRefused("That side is already taken.", status=409)
    seat.user = user
    try:
        with transaction.atomic():
            seat.save(update_fields=["user"])
    except IntegrityError:
        raise ActionRefused("You already play a side in this campaign.", status=409) from None
    invitation.used_at = timezone.now()
    invitation.used_by = user
    invitation.save(update_fields=["used_at", "used_by"])
    module = parse_module(campaign.module_checksum, campaign.module_data)
    record_event(
        campaign,
        kind="joined",
        side=seat.side,
        text=f"{user.get_username()} joins as {module.side(seat.side).name}.",
    )
    changed(campaign)
    return campaign
