"""Purple Heart Draw, twenty-fifth pass (issue 44): where two rules meet.  Each test
plays, through both seats' pages (tests/page_play.py), two sentences of seed 000 that
apply to one unit, purchase, roll or figure: two DRMs on one roll, a cap counting
items bought at two dates with a take-back between, a correction of the result a later
step reads.  The hand reading is in each docstring (docs/rules-audit/pass-25-phd25.md).
"""

from __future__ import annotations

import pytest

from campaign.models import Roll, Unit
from tests.page_play import Seat, text_of
from tests.test_phd16_pass16 import plain
from tests.test_phda19_pass19 import log_texts, seats
from tests.test_rule_mechanisms import fixed_dice, users

pytestmark = [pytest.mark.django_db, pytest.mark.rules]
__all__ = ["fixed_dice", "users"]

REDEPLOY = "Roll DR: Redeployment Table"


def forged_ticks(seat: Seat, words: str, ticks: list[str], **typed: str):
    """Press ``words`` with several boxes of its form ticked at once (page_play's press
    sends one value per field): the answer's status and words, the page read again."""
    form = seat.form_of(words)
    data: dict[str, list[str]] = {}
    for name, value in form.fields:
        data.setdefault(name, []).append(value)
    data.update({name: [value] for name, value in typed.items()})
    data["tick"] = ticks
    answer = seat.client.post(form.action, data, HTTP_HX_REQUEST="true")
    seat.open()
    return answer.status_code, text_of(answer.content.decode())


def test_c5_14_enemy_feba_and_no_mans_land_never_both_on_one_redeployment_dr(
    users, modules, fixed_dice
):
    """Two DRMs of C5.14's Redeployment Table on one DR.

    * "+2 Unit is in enemy FEBA" and "+1 Unit is in No-Man's Land" cannot both apply:
      C5.14 "Each side's units can end a scenario in any one of the following
      situations: i) Behind the enemy's FEBA ... iv) In No-Man's Land"; C2.0 FEBA "any
      friendly controlled hexes ... and all hexes of all friendly TAC [EXC: No Man's
      Land]"; No-Man's Land "A non-Tactical Location".  A hex of the enemy's FEBA is
      never No-Man's Land, so "All DRM are cumulative" adds DRMs that apply, never
      these two together.  Both ticked (two boxes of one form, as a player can tick
      them) is refused citing C5.14, nothing rolled, the squad unchanged.
    * "+2 Unit is in enemy FEBA" with "+1 Unit is Isolated" (the squad's Isolated
      marker, C2.0 "Isolated Location: Any location from which a player cannot draw a
      line of enterable hexes to his friendly FEBA free of any enemy TAC": a unit
      behind the enemy's FEBA may well be Isolated): cumulative, +3.  DR 4+5 = 9 + 3 =
      12: "Remains in hex, Reduced", and i) "if they fail to redeploy (i.e.; any result
      that stipulates that the unit remains in hex), they are eliminated": the 6-6-7
      leaves the US's retained forces (its Original DR 9 alone would have redeployed).
    """
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add

    players, _ = phd_after(users, "C5.14")
    both = add(players, "us", "6-6-7", "squad", location="E1")
    isolated = add(players, "us", "6-6-7", "squad", location="E2", markers=("isolated",))
    us = seats(players)["us"]
    us.open()
    ticks = us.form_of(REDEPLOY).choices.get("tick", [])
    assert {"enemy_feba", "no_mans_land"} <= set(ticks), ticks
    status, said = forged_ticks(us, REDEPLOY, ["enemy_feba", "no_mans_land"], unit=both.ref)
    assert 400 <= status < 500, (status, said[:400])
    words = said
    assert "C5.14" in words and "No-Man" in words and "enemy FEBA" in words, words[:400]
    plain(words)
    assert not Roll.objects.filter(campaign_id=players.campaign_id, table_id="redeployment")
    assert Unit.objects.get(pk=both.pk).markers == []

    fixed_dice.append([4, 5])
    rolled = us.press(REDEPLOY, unit=isolated.ref, tick="enemy_feba")
    assert rolled.status == 200, rolled.text[:400]
    (roll,) = Roll.objects.filter(campaign_id=players.campaign_id, table_id="redeployment")
    assert sorted(d["value"] for d in roll.drms) == [1, 2], roll.drms
    assert roll.final == 12, roll.final
    assert not Unit.objects.filter(pk=isolated.pk).exists()
    line = [t for t in log_texts(players) if "Redeployment Table for 6-6-7: DR 4+5" in t][-1]
    assert "C5.14 i" in line, line
    plain(line)
