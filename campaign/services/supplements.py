"""Supplying what the rules documents lack, in the app: one player proposes a datum (a
table, an RG chart, the CG's start), the other accepts or refuses it; accepted, it
changes the campaign's module data — the game of both sides — and is logged.  An
accepted datum can be amended the same way."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from django.db import transaction
from django.utils import timezone

from campaign.changes import DatumAccepted, DatumProposed, DatumRefused, DatumWithdrawn
from campaign.models import EventKind, Supplement, new_ref
from campaign.services.errors import ActionRefused
from campaign.services.start import give_start, log_start
from campaign.services.text import given_reason
from campaign.services.turns import Turn, User, take_turn
from campaign.services.waiting import update_waiting
from campaign.services.writes import commit
from rules import supply
from rules.registry import parse_module
from rules.supply import SupplyProblems


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
    proposal = _open(turn, path, reading)
    turn.record(
        EventKind.SUPPLY,
        text=f"{turn.side_name()} proposes the {it.label} ({it.rule}); "
        f"{turn.side_name(_other(turn))} is to accept or refuse it.",
        data={"path": path},
    )
    # tells the other player
    commit(turn.campaign.pk, DatumProposed(), saving=update_waiting(turn))
    return proposal


@transaction.atomic
def propose_start_sheet(
    *,
    campaign_id: object,
    user: User,
    forms: Mapping[str, Mapping[str, str]],
    cells: Mapping[str, str] | None = None,
) -> str:
    """Propose several data the rules lack at once, as one package (the start sheet):
    each is checked as one datum is, together with the others, every problem named by
    its datum and cell; nothing is proposed unless all are valid.  The opponent
    accepts or refuses the package at once (or datum by datum).  Returns its ref.
    ``cells``: the sheet's cells as the player filled them in, kept with his seat
    (``Seat.start_sheet_kept``): a sheet refused or withdrawn comes back filled in,
    in any browser (the form's own cells by default)."""
    turn = take_turn(campaign_id, user, None)
    if not forms:
        raise ActionRefused("Nothing was proposed: fill in at least one datum of the start sheet.")
    problems: dict[str, str] = {}
    data: Mapping[str, Any] = turn.campaign.module_data
    readings: list[tuple[supply.Suppliable, supply.Reading]] = []
    # A datum may rest on another of the same sheet (C4.2's OB names RGs of the charts
    # supplied beside it): each pass checks what is left on the data the earlier ones
    # make, until a pass adds none; they are created, and accepted, in that order.
    pending = dict(forms)
    while pending:
        problems = {}
        passed = len(readings)
        for path, form in list(pending.items()):
            it = _item(turn, path)
            try:
                reading = supply.read_form(turn.module, it, form)
                following = supply.patched(data, path, reading.value)
                supply.check(following, path, reading.rows)
            except SupplyProblems as bad:
                for cell, message in bad.cells.items():
                    problems[f"{path}|{cell}"] = f"{it.label}: {message}"
                continue
            data = following
            readings.append((it, reading))
            del pending[path]
        if len(readings) == passed:
            break
    if problems:
        raise SupplyProblems(
            problems,
            f"Nothing was proposed: {len(problems)} problem{'s' if len(problems) > 1 else ''} "
            f"in the start sheet. {next(iter(problems.values()))}",
        )
    package = new_ref()
    for it, reading in readings:
        _open(turn, it.path, reading, package)
    labels = ", ".join(it.label for it, _ in readings)
    turn.record(
        EventKind.SUPPLY,
        text=f"{turn.side_name()} proposes a start sheet of {len(readings)} "
        f"{'datum' if len(readings) == 1 else 'data'} ({labels}); "
        f"{turn.side_name(_other(turn))} is to accept or refuse it.",
        data={"package": package},
    )
    if cells is None:
        cells = {f"{path}|{k}": v for path, form in forms.items() for k, v in form.items()}
    turn.seat.start_sheet_kept = dict(cells)
    # tells the other player
    saving = [*update_waiting(turn), (turn.seat, "start_sheet_kept")]
    commit(turn.campaign.pk, DatumProposed(), saving=saving)
    return package


def _open(turn: Turn, path: str, reading: supply.Reading, package: str = "") -> Supplement:
    """The proposal of one datum; the proposer's own open one on it is withdrawn, the
    opponent's must be answered first."""
    open_one = Supplement.objects.filter(
        campaign=turn.campaign, path=path, status=Supplement.Status.PROPOSED
    ).first()
    if open_one is not None:
        if open_one.proposed_by != turn.side:
            raise ActionRefused(
                f"{turn.side_name(open_one.proposed_by)} has proposed the "
                f"{_item(turn, path).label} already: accept or refuse that proposal first.",
                status=409,
            )
        open_one.status = Supplement.Status.WITHDRAWN
        open_one.decided_at = timezone.now()
        open_one.save(update_fields=["status", "decided_at"])
    return Supplement.objects.create(
        campaign=turn.campaign,
        path=path,
        value=reading.value,
        rows=reading.rows,
        proposed_by=turn.side,
        package=package,
    )


def _other(turn: Turn) -> str:
    return next(s for s in turn.seats if s != turn.side)


def _proposal(turn: Turn, ref: object) -> Supplement:
    proposal = Supplement.objects.filter(
        campaign=turn.campaign, ref=str(ref)[:16], status=Supplement.Status.PROPOSED
    ).first()
    if proposal is None:
        raise ActionRefused("There is no such open proposal.", status=404)
    return proposal


def _package(turn: Turn, ref: object) -> list[Supplement]:
    proposals = list(
        Supplement.objects.filter(
            campaign=turn.campaign, package=str(ref)[:16], status=Supplement.Status.PROPOSED
        ).exclude(package="")
    )
    if not proposals:
        raise ActionRefused("There is no such open start sheet.", status=404)
    return proposals


def _apply(turn: Turn, proposal: Supplement) -> supply.Suppliable:
    """The accepted datum joins the campaign's module data; returns what it was."""
    it = _item(turn, proposal.path)
    c = turn.campaign
    data = supply.patched(c.module_data, proposal.path, proposal.value)
    module = supply.check(data, proposal.path, proposal.rows)
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
    ).exclude(pk=proposal.pk).update(status=Supplement.Status.SUPERSEDED)
    return it


def _accept(turn: Turn, proposals: list[Supplement]) -> list[supply.Suppliable]:
    """Accept proposals of the opponent's, in order; each side then gets what the start
    now gives, while still before the Initial Scenario's end."""
    if proposals[0].proposed_by == turn.side:
        raise ActionRefused("Your opponent accepts what you propose, not you.", status=409)
    c = turn.campaign
    before = turn.module.variant(c.variant).start
    items = [_apply(turn, p) for p in proposals]
    if any(p.path.startswith("variants.") for p in proposals) and c.cycle == 0:
        log_start(c, turn.module, give_start(c, turn.module, turn.seats.values(), before=before))
    return items


@transaction.atomic
def accept_supplement(*, campaign_id: object, user: User, ref: object) -> None:
    """The opponent of the proposer accepts: the datum joins the campaign's rules."""
    turn = take_turn(campaign_id, user, None)
    proposal = _proposal(turn, ref)
    (it,) = _accept(turn, [proposal])
    turn.record(
        EventKind.SUPPLY,
        text=f"{turn.side_name()} accepts the {it.label} that "
        f"{turn.side_name(proposal.proposed_by)} proposed ({it.rule}): it is part of this "
        "campaign's rules now.",
        data={"path": proposal.path},
    )
    # tells the other player
    commit(turn.campaign.pk, DatumAccepted(), saving=update_waiting(turn))


@transaction.atomic
def accept_start_sheet(*, campaign_id: object, user: User, package: object) -> None:
    """The opponent accepts every datum of a start sheet still open, at once."""
    turn = take_turn(campaign_id, user, None)
    proposals = _package(turn, package)
    items = _accept(turn, proposals)
    turn.record(
        EventKind.SUPPLY,
        text=f"{turn.side_name()} accepts the start sheet "
        f"{turn.side_name(proposals[0].proposed_by)} proposed: "
        + "; ".join(f"{it.label} ({it.rule})" for it in items)
        + ". They are part of this campaign's rules now.",
        data={"package": proposals[0].package},
    )
    # tells the other player
    commit(turn.campaign.pk, DatumAccepted(), saving=update_waiting(turn))


@transaction.atomic
def refuse_start_sheet(*, campaign_id: object, user: User, package: object, reason: str) -> None:
    """The opponent refuses a whole start sheet (saying why): nothing changes."""
    turn = take_turn(campaign_id, user, None)
    proposals = _package(turn, package)
    _refuse(turn, proposals, reason, "start sheet", {"package": proposals[0].package})


@transaction.atomic
def withdraw_start_sheet(*, campaign_id: object, user: User, package: object) -> None:
    turn = take_turn(campaign_id, user, None)
    proposals = _package(turn, package)
    _withdraw(turn, proposals, "start sheet", {"package": proposals[0].package})


def _refuse(
    turn: Turn, proposals: list[Supplement], reason: str, what: str, data: dict[str, str]
) -> None:
    """The opponent of the proposer refuses, saying why: logged, nothing changes."""
    by = proposals[0].proposed_by
    if by == turn.side:
        raise ActionRefused(
            "Your opponent refuses what you propose; you may withdraw it.", status=409
        )
    reason = _reason(reason)
    _close(proposals, Supplement.Status.REFUSED, reason)
    turn.record(
        EventKind.SUPPLY,
        text=f"{turn.side_name()} refuses the {what} {turn.side_name(by)} proposed: “{reason}”.",
        # The reason is said in the players' thread too (issue 46).
        data={**data, "refused": what, "reason": reason},
    )
    # tells the other player
    commit(turn.campaign.pk, DatumRefused(), saving=update_waiting(turn))


def _withdraw(turn: Turn, proposals: list[Supplement], what: str, data: dict[str, str]) -> None:
    """The proposer withdraws: logged, nothing changes."""
    if proposals[0].proposed_by != turn.side:
        raise ActionRefused("Only its proposer withdraws a proposal.", status=409)
    _close(proposals, Supplement.Status.WITHDRAWN)
    turn.record(
        EventKind.SUPPLY,
        text=f"{turn.side_name()} withdraws its proposed {what}.",
        data=data,
    )
    # tells the other player
    commit(turn.campaign.pk, DatumWithdrawn(), saving=update_waiting(turn))


def _reason(reason: str) -> str:
    return given_reason(
        reason, what="The reason", missing="Say what is wrong with it, so it can be put right."
    )


def _close(proposals: list[Supplement], status: str, reason: str = "") -> None:
    for p in proposals:
        p.status = status
        p.reason = reason
        p.decided_at = timezone.now()
        p.save(update_fields=["status", "reason", "decided_at"])


@transaction.atomic
def refuse_supplement(*, campaign_id: object, user: User, ref: object, reason: str) -> None:
    """The opponent refuses (saying why): nothing changes."""
    turn = take_turn(campaign_id, user, None)
    proposal = _proposal(turn, ref)
    it = _item(turn, proposal.path)
    _refuse(turn, [proposal], reason, it.label, {"path": proposal.path})


@transaction.atomic
def withdraw_supplement(*, campaign_id: object, user: User, ref: object) -> None:
    turn = take_turn(campaign_id, user, None)
    proposal = _proposal(turn, ref)
    it = _item(turn, proposal.path)
    _withdraw(turn, [proposal], it.label, {"path": proposal.path})


def superseded(turn: Turn, path: str) -> Supplement | None:
    """The value of ``path`` accepted before the one in force (None: none was)."""
    return (
        Supplement.objects.filter(
            campaign=turn.campaign, path=path, status=Supplement.Status.SUPERSEDED
        )
        .order_by("-decided_at", "-id")
        .first()
    )


@transaction.atomic
def propose_supplement_takeback(*, campaign_id: object, user: User, path: str) -> Supplement:
    """The side that supplied the datum in force takes it back (issue 46: "a supplied
    value ... afterwards by a takeback request that the opponent accepts"): the value
    accepted before it is proposed again, and comes back once the opponent accepts, as
    any proposal does.  A datum supplied once has nothing before it (the rules lack
    it): it is amended with other figures instead."""
    turn = take_turn(campaign_id, user, None)
    path = str(path)[:120]
    it = _item(turn, path)
    current = Supplement.objects.filter(
        campaign=turn.campaign, path=path, status=Supplement.Status.ACCEPTED
    ).first()
    if current is None:
        raise ActionRefused(f"Nobody has supplied the {it.label}: there is nothing to take back.")
    if current.proposed_by != turn.side:
        raise ActionRefused(
            f"{turn.side_name(current.proposed_by)} supplied the {it.label} in force: propose "
            "other figures if it is wrong.",
            status=409,
        )
    before = superseded(turn, path)
    if before is None:
        raise ActionRefused(
            f"The {it.label} was supplied once, where the rules lack it: there is no earlier "
            "value to go back to. Propose the figures it should have instead.",
            status=409,
        )
    proposal = _open(turn, path, supply.Reading(before.value, list(before.rows)))
    turn.record(
        EventKind.SUPPLY,
        text=f"{turn.side_name()} asks to take back the {it.label} it supplied ({it.rule}): "
        f"the one accepted before comes back if {turn.side_name(_other(turn))} accepts.",
        data={"path": path},
    )
    commit(turn.campaign.pk, DatumProposed(), saving=update_waiting(turn))
    return proposal
