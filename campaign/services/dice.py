"""Rolling dice on the server: every roll is recorded with who, why, the faces, each
DRM and the result, and can be recomputed from the campaign's seed."""

from __future__ import annotations

from collections.abc import Sequence

from campaign.models import Campaign, Roll
from rules import dice
from rules.drm import AppliedDrm, after_value
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
    unit_ref: str = "",
    stack: str = "",
    reads_result: bool = False,
) -> Roll:
    """Roll a dr or DR for ``side`` on a campaign whose row the caller holds locked.
    The roll's number is the campaign's count of rolls; its dice are the next draw of
    its stream (open rolls, or the side's secret rolls), so an open roll's dice never
    depend on how many secret rolls were made.  Both counts are saved here at once, and
    with them (``reads_result``: its DRMs read the pass's scenario result, PHD C5.23) the
    first such roll of the pass (``Campaign.result_read``)."""
    stream = dice.stream_of(side, secret=secret)
    draws = dict(campaign.draws or {})
    draws[stream] = draws.get(stream, 0) + 1
    campaign.rolls_made += 1
    campaign.draws = draws
    saved: dict[str, object] = {"rolls_made": campaign.rolls_made, "draws": draws}
    if reads_result and (campaign.result_read or {}).get("cycle") != campaign.cycle:
        campaign.result_read = {
            "cycle": campaign.cycle,
            "side": side,
            "step": step_id,
            "table": table.id if table else "",
        }
        saved["result_read"] = campaign.result_read
    Campaign.objects.filter(pk=campaign.pk).update(**saved)
    faces = dice.faces(campaign.dice_seed, draws[stream], kind, stream)
    final = sum(faces) + sum(d.value for d in drms)
    return Roll.objects.create(
        campaign=campaign,
        seq=campaign.rolls_made,
        stream=stream,
        draw=draws[stream],
        side=side,
        date_index=campaign.date_index,
        step_id=step_id,
        cycle=campaign.cycle,
        unit_ref=unit_ref,
        stack=stack,
        table_id=table.id if table else "",
        purpose=purpose,
        item=item,
        dice=kind,
        faces=faces,
        drms=[{"label": d.label, "value": d.value, "how": d.how} for d in drms],
        final=final,
        result=table_result(table, final, column, original=sum(faces), faces=faces),
        secret=secret,
    )


def table_result(
    table: Table | None,
    final: int,
    column: str | None = None,
    *,
    original: int | None = None,
    faces: Sequence[int] = (),
) -> str:
    """A roll's result in the table's words: its Original roll's where the table gives
    one (3.606 footnote 1), else its Final roll's row; a DR read die by die
    (``Table.apart``: C1.31's error DR) says what each die gives."""
    if table is None or table.missing:
        return ""
    if table.apart is not None and len(faces) == 2:
        return dice.read_apart(table.apart, faces)
    row = table.result_row(final, original)
    if column and row.results:
        return f"{column}: {row.results[column]}"
    return row.result or "; ".join(f"{k}: {v}" for k, v in (row.results or {}).items())


def describe(r: Roll) -> str:
    """'DR 3+5 = 8, +1 if Isolated → 9: Retained wounded'."""
    text = f"{r.dice} {'+'.join(map(str, r.faces))}"
    if len(r.faces) > 1:
        text += f" = {sum(r.faces)}"
    for d in r.drms:
        text += f", {d['value']:+d} {after_value(d['label'], d['value'])}"
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
        expected = (
            dice.faces(seed, r.draw, r.dice, r.stream)
            if r.stream and r.draw
            else dice.faces(seed, r.seq, r.dice)
        )
        if list(r.faces) != expected:
            problems.append(f"roll {r.seq} ({r.purpose}): stored {r.faces}, seed gives {expected}")
        elif r.final != sum(r.faces) + sum(d["value"] for d in r.drms):
            problems.append(f"roll {r.seq} ({r.purpose}): final {r.final} is not dice + DRMs")
    return problems
