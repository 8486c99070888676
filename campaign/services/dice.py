"""Rolling dice on the server: every roll is recorded with who, why, the faces, each
DRM and the result, and can be recomputed from the campaign's seed."""

from __future__ import annotations

from collections.abc import Sequence

from campaign.models import Campaign, Roll
from rules import dice
from rules.drm import AppliedDrm
from rules.schema import Table


def roll(
    campaign: Campaign,
    *,
    side: str,
    kind: str,
    purpose: str,
    drms: Sequence[AppliedDrm] = (),
    table: Table | None = None,
    item: str = "",
    step_id: str = "",
    secret: bool = False,
    column: str | None = None,
) -> Roll:
    """Roll a dr or DR for ``side`` on a campaign whose row the caller holds locked.
    The roll's number is the campaign's count of rolls (saved with the campaign's
    position by the caller's ``save_position``, or here at once)."""
    campaign.rolls_made += 1
    Campaign.objects.filter(pk=campaign.pk).update(rolls_made=campaign.rolls_made)
    faces = dice.faces(campaign.dice_seed, campaign.rolls_made, kind)
    final = sum(faces) + sum(d.value for d in drms)
    return Roll.objects.create(
        campaign=campaign,
        seq=campaign.rolls_made,
        side=side,
        date_index=campaign.date_index,
        step_id=step_id,
        table_id=table.id if table else "",
        purpose=purpose,
        item=item,
        dice=kind,
        faces=faces,
        drms=[{"label": d.label, "value": d.value, "how": d.how} for d in drms],
        final=final,
        result=table_result(table, final, column),
        secret=secret,
    )


def table_result(table: Table | None, final: int, column: str | None = None) -> str:
    if table is None or table.missing:
        return ""
    row = table.lookup(final)
    if column and row.results:
        return f"{column}: {row.results[column]}"
    return row.result or "; ".join(f"{k}: {v}" for k, v in (row.results or {}).items())


def describe(r: Roll) -> str:
    """'DR 3+5 = 8, +1 if Isolated → 9: Retained wounded'."""
    text = f"{r.dice} {'+'.join(map(str, r.faces))}"
    if len(r.faces) > 1:
        text += f" = {sum(r.faces)}"
    for d in r.drms:
        text += f", {d['value']:+d} {d['label']}"
    if r.drms:
        text += f" → {r.final}"
    if r.result:
        text += f": {r.result}"
    return text


def verify(campaign: Campaign, seed: str | None = None) -> list[str]:
    """Recompute every roll from the seed; the mismatches, in words."""
    seed = seed or campaign.dice_seed
    problems = []
    if dice.seed_hash(seed) != campaign.dice_seed_hash:
        problems.append("the seed does not match the published SHA-256")
    for r in Roll.objects.filter(campaign=campaign).order_by("seq"):
        expected = dice.faces(seed, r.seq, r.dice)
        if list(r.faces) != expected:
            problems.append(f"roll {r.seq} ({r.purpose}): stored {r.faces}, seed gives {expected}")
        elif r.final != sum(r.faces) + sum(d["value"] for d in r.drms):
            problems.append(f"roll {r.seq} ({r.purpose}): final {r.final} is not dice + DRMs")
    return problems
