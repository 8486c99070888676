"""Purple Heart Draw, twelfth pass (issue 44): the Left items of passes 10-11 and
sentences of C1-C5, the TM rules and the RG chart's footnotes that no earlier pass doc
quotes, driven through the services as a player would (the wrong side, twice, skipped,
a result that should follow by itself), each test citing its rule
(docs/rules-audit/pass-12-phd12.md)."""

from __future__ import annotations

import pytest

from campaign.models import Roll, Unit
from campaign.services import purchases
from campaign.services.errors import ActionRefused
from tests.test_phd_pass9a import GREN
from tests.test_player_words import FORBIDDEN
from tests.test_rule_mechanisms import (
    fixed_dice,
    phd_with_chart,
    row_table,
    supply,
    users,
)

pytestmark = [pytest.mark.django_db, pytest.mark.rules]
__all__ = ["fixed_dice", "users"]


def plain(sentence: str) -> None:
    """What the player reads has no module or transcription words."""
    assert not FORBIDDEN.search(sentence), sentence


LEADERS = [("2-7", "8-1", "leader: 8-1"), ("8-12", "8-0", "leader: 8-0")]


def _offered(c, side, gid) -> bool:
    """Whether ``side``'s RG Purchase Record offers ``gid``'s rolls (its roll button)."""
    from campaign.models import Campaign
    from campaign.seat_views.common import record_lines, visible_purchases
    from campaign.selectors import module_of

    c = Campaign.objects.get(pk=c.pk)
    lines = record_lines(c, module_of(c), side, visible_purchases(c, side))
    return any(line.can_roll for line in lines if line.group_id == gid and line.mine)


def _leader_rg(users):
    """A PHD TM at I-C5.31, the German's I9 (marked l) bought and taken to I-C5.33,
    its Leader Table DR made while the rules text still lacks the table."""
    from tests.purchase_helpers import make_rolls

    players, c = phd_with_chart(users, [{**GREN, "footnotes": "l"}])
    german = players.users["german"]
    i9 = purchases.purchase_rg(campaign_id=c.pk, user=german, group_id="I9", cost_variant="onmap")
    i9 = make_rolls(players, "german", i9)
    (line,) = i9.details["rolls"]
    assert line["result"] == "not rolled: the rules text lacks this table (C5.33)"
    return players, c, i9


def test_c5_33_a_leader_dr_made_before_the_table_is_supplied_is_kept(users, modules, fixed_dice):
    """C5.33 "For each requisitioned/OB given "I" or "A" type RG marked with an RG
    Footnote "l" make one secret DR on table below" (pass 11, Left): the DR of an RG
    whose rolls were made while the Leader Table was still lost is kept, not lost.
    Clicked again before the table is supplied, the player reads why (the table, supply
    it, C5.33), never "already made", and nothing is rolled; once the players supply
    the table, the same click makes that one DR (secret), its line reads the leader,
    and the RG's leader joins the retained forces; a third click is refused."""
    players, c, i9 = _leader_rg(users)
    german = players.users["german"]
    with pytest.raises(ActionRefused, match=r"Leader Table.*supply it.*C5\.33") as refused:
        purchases.roll_for_purchase(campaign_id=c.pk, user=german, purchase_id=i9.ref)
    plain(str(refused.value))
    assert "already made" not in str(refused.value)
    assert not Roll.objects.filter(campaign=c, table_id="leader_table").exists()
    assert not _offered(c, "german", "I9")
    supply(players, "tables.leader_table", row_table(LEADERS))
    assert _offered(c, "german", "I9")
    fixed_dice.append([3, 4])
    purchases.roll_for_purchase(campaign_id=c.pk, user=german, purchase_id=i9.ref)
    (r,) = Roll.objects.filter(campaign=c, table_id="leader_table")
    assert (r.final, r.result, r.secret, r.side) == (7, "8-1", True, "german")
    assert not Roll.objects.visible_to("us").filter(pk=r.pk).exists()
    i9.refresh_from_db()
    (line,) = i9.details["rolls"]
    assert line["result"] == "8-1" and line["roll"] == r.seq
    assert i9.details["leaders"] == ["8-1"]
    leader = Unit.objects.get(campaign=c, side="german", kind="leader", purchase=i9)
    assert leader.name.startswith("8-1")
    assert not _offered(c, "german", "I9")
    with pytest.raises(ActionRefused, match="already made"):
        purchases.roll_for_purchase(campaign_id=c.pk, user=german, purchase_id=i9.ref)
    assert Roll.objects.filter(campaign=c, table_id="leader_table").count() == 1


def test_c5_33_a_kept_leader_dr_is_made_by_done_once_the_table_is_supplied(
    users, modules, fixed_dice
):
    """C5.33 "make one secret DR" (a result that follows by itself): the Leader Table
    supplied after an RG's rolls were made without it, Done at the Leader Table's step
    makes the DR the RG still owes, as it makes every roll left there."""
    players, c, i9 = _leader_rg(users)
    supply(players, "tables.leader_table", row_table(LEADERS))
    fixed_dice.append([6, 6])
    players.finish_side("german")
    (r,) = Roll.objects.filter(campaign=c, table_id="leader_table")
    assert r.result == "8-0"
    i9.refresh_from_db()
    assert i9.details["leaders"] == ["8-0"]


def test_c5_13a_no_unit_may_overstack_during_redeployment(users, modules, fixed_dice):
    """C5.13a "No unit may overstack during Redeployment" (pass 10 A, Left): a stack the
    app holds is checked against a Location's stacking limit (three squads or their
    equivalent, ASL A5.1): four squads, or three squads and a HS, under one Redeployment
    DR are refused, in ASL words citing C5.13a, nothing rolled; three squads with two
    leaders (an SMC adds no HS-equivalent) redeploy together."""
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add, roll

    players, _ = phd_after(users, "C5.14")
    c = players.campaign
    squads = [add(players, "us", f"6-6-7 {x}", "squad") for x in "ABCD"]
    hs = add(players, "us", "3-3-7", "half_squad")
    leaders = [add(players, "us", q, "leader") for q in ("8-1", "7-0")]
    before = Roll.objects.filter(campaign=c).count()
    for extra in (squads[3], hs):
        with pytest.raises(ActionRefused, match=r"No unit may overstack.*C5\.13a") as refused:
            roll(
                players,
                "us",
                "redeployment",
                squads[0],
                stack=[u.ref for u in (*squads[1:3], extra)],
            )
        plain(str(refused.value))
    assert Roll.objects.filter(campaign=c).count() == before
    fixed_dice.extend([[3, 3], [1], [2], [3], [4], [5]])
    r = roll(
        players, "us", "redeployment", squads[0], stack=[u.ref for u in (*squads[1:3], *leaders)]
    )
    assert len(r.stack.split()) == 4
