"""Supplying what the rules documents lack, in the app: one player proposes a datum (a
table, an RG chart, the CG's start), the other accepts or refuses it; accepted, it
changes the campaign's module data — the game of both sides — and is logged.  An
accepted datum can be amended the same way."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping

from django.db import transaction
from django.utils import timezone

from campaign.models import EventKind, Supplement
from campaign.services import push
from campaign.services.errors import ActionRefused
from campaign.services.start import give_start, log_start
from campaign.services.turns import Turn, User, take_turn
from campaign.services.waiting import update_waiting
from rules import supply
from rules.registry import parse_module


def supplied_paths(turn: Turn) -> set[str]:
    return set(
        Supplement.objects.filter(
            campaign=turn.campaign, status=Supplement.Status.ACCEPTED
        ).values_list("path", flat=True)
    )


def _item(turn: Turn, path: str) -> supply.Suppliable:
    return supply.item(turn.module, turn.campaign.variant, path, supplied_paths(turn))


@transaction.atomic
def propose_supplement(
    *, campaign_id: object, user: User, path: str, form: Mapping[str, str]
) -> Supplement:
    """Propose a datum the rules lack; it is checked as a module's data are (each bad
    cell named) and waits for the opponent's acceptance."""
    turn = take_turn(campaign_id, user, None)
    it = _item(turn, path)
    reading = supply.read_form(turn.module, it, form)
    supply.check(supply.patched(turn.campaign.module_data, path, reading.value), path, reading.rows)
    open_one = Supplement.objects.filter(
        campaign=turn.campaign, path=path, status=Supplement.Status.PROPOSED
    ).first()
    if open_one is not None:
        if open_one.proposed_by != turn.side:
            raise ActionRefused(
                f"{turn.side_name(open_one.proposed_by)} has proposed this already: accept "
                "or refuse that proposal first.",
                status=409,
            )
        open_one.status = Supplement.Status.WITHDRAWN
        open_one.decided_at = timezone.now()
        open_one.save(update_fields=["status", "decided_at"])
    proposal = Supplement.objects.create(
        campaign=turn.campaign,
        path=path,
        value=reading.value,
        rows=reading.rows,
        proposed_by=turn.side,
    )
    turn.record(
        EventKind.SUPPLY,
        text=f"{turn.side_name()} proposes the {it.label} ({it.rule}); "
        f"{turn.side_name(_other(turn))} is to accept or refuse it.",
        data={"path": path},
    )
    # tells the other player
    push.changed(turn.campaign.pk, saving=update_waiting(turn))
    return proposal


def _other(turn: Turn) -> str:
    return next(s for s in turn.seats if s != turn.side)


def _proposal(turn: Turn, ref: object) -> Supplement:
    proposal = Supplement.objects.filter(
        campaign=turn.campaign, ref=str(ref)[:16], status=Supplement.Status.PROPOSED
    ).first()
    if proposal is None:
        raise ActionRefused("There is no such open proposal.", status=404)
    return proposal


@transaction.atomic
def accept_supplement(*, campaign_id: object, user: User, ref: object) -> None:
    """The opponent of the proposer accepts: the datum joins the campaign's rules."""
    turn = take_turn(campaign_id, user, None)
    proposal = _proposal(turn, ref)
    if proposal.proposed_by == turn.side:
        raise ActionRefused("Your opponent accepts what you propose, not you.", status=409)
    it = _item(turn, proposal.path)
    c = turn.campaign
    data = supply.patched(c.module_data, proposal.path, proposal.value)
    module = supply.check(data, proposal.path, proposal.rows)
    before = turn.module.variant(c.variant).start
    c.module_data = data
    c.module_checksum = hashlib.sha256(
        json.dumps(data, sort_keys=True, ensure_ascii=False).encode()
    ).hexdigest()
    c.save(update_fields=["module_data", "module_checksum"])
    parse_module(c.module_checksum, data)
    turn.module = module
    proposal.status = Supplement.Status.ACCEPTED
    proposal.decided_at = timezone.now()
    proposal.save(update_fields=["status", "decided_at"])
    Supplement.objects.filter(
        campaign=c, path=proposal.path, status=Supplement.Status.ACCEPTED
    ).exclude(pk=proposal.pk).update(status=Supplement.Status.WITHDRAWN)
    turn.record(
        EventKind.SUPPLY,
        text=f"{turn.side_name()} accepts the {it.label} that "
        f"{turn.side_name(proposal.proposed_by)} proposed ({it.rule}): it is part of this "
        "campaign's rules now.",
        data={"path": proposal.path},
    )
    if proposal.path.startswith("variants.") and c.cycle == 0:
        # Still before the Initial Scenario's end: each side gets what the start now gives.
        log_start(c, module, give_start(c, module, turn.seats.values(), before=before))
    # tells the other player
    push.changed(c.pk, saving=update_waiting(turn))


@transaction.atomic
def refuse_supplement(*, campaign_id: object, user: User, ref: object, reason: str) -> None:
    """The opponent refuses (saying why): nothing changes."""
    turn = take_turn(campaign_id, user, None)
    proposal = _proposal(turn, ref)
    if proposal.proposed_by == turn.side:
        raise ActionRefused(
            "Your opponent refuses what you propose; you may withdraw it.", status=409
        )
    reason = reason.strip()[:500]
    if not reason:
        raise ActionRefused("Say what is wrong with it, so it can be put right.")
    it = _item(turn, proposal.path)
    proposal.status = Supplement.Status.REFUSED
    proposal.reason = reason
    proposal.decided_at = timezone.now()
    proposal.save(update_fields=["status", "reason", "decided_at"])
    turn.record(
        EventKind.SUPPLY,
        text=f"{turn.side_name()} refuses the {it.label} "
        f"{turn.side_name(proposal.proposed_by)} proposed: “{reason}”.",
        data={"path": proposal.path},
    )
    # tells the other player
    push.changed(turn.campaign.pk, saving=update_waiting(turn))


@transaction.atomic
def withdraw_supplement(*, campaign_id: object, user: User, ref: object) -> None:
    turn = take_turn(campaign_id, user, None)
    proposal = _proposal(turn, ref)
    if proposal.proposed_by != turn.side:
        raise ActionRefused("Only its proposer withdraws a proposal.", status=409)
    proposal.status = Supplement.Status.WITHDRAWN
    proposal.decided_at = timezone.now()
    proposal.save(update_fields=["status", "decided_at"])
    it = _item(turn, proposal.path)
    turn.record(
        EventKind.SUPPLY,
        text=f"{turn.side_name()} withdraws its proposed {it.label}.",
        data={"path": proposal.path},
    )
    # tells the other player
    push.changed(turn.campaign.pk, saving=update_waiting(turn))
