"""Sicily (seed 001), RePh 3.601-3.614, the twelfth pass of the sentence audit (issue
44): the left items of passes 10 and 11 and sentences no earlier pass doc quotes, each
tried through the services as two players meet them (docs/rules-audit/pass-12-sica12.md)."""

from __future__ import annotations

import pytest

from campaign.models import Event, Roll
from campaign.services.errors import ActionRefused
from tests import test_rule_mechanisms as mechanisms
from tests.purchase_helpers import campaign_at
from tests.test_rule_mechanisms import add, roll, unit_names

users = mechanisms.users
fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


def _said(players) -> str:
    return Event.objects.filter(campaign_id=players.campaign_id, kind="roll").last().text


def _drms(r: Roll) -> dict[str, tuple[int, str]]:
    return {d["label"]: (d["value"], d["how"]) for d in r.drms}


# --------------------------------------------------------------------------- Part 1


def test_3_6141d_plus_1_if_german_is_computed_for_a_stug_added_by_hand(users, modules, fixed_dice):
    """3.6141d Stun Recovery "+1 if German": a StuG IIIG the Axis added by hand (its OB,
    no RG bought) is the counter of the chart's German V1 (no italian tag), so the +1
    applies by itself, as for a StuG of V1; ticking it besides is refused."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.614")
    stug = add(players, "axis", "StuG IIIG", "vehicle", status="stunned")
    with pytest.raises(ActionRefused):
        roll(players, "axis", "stun_recovery", stug, ticked=["german_no_rg"])
    assert not Roll.objects.filter(table_id="stun_recovery").exists()
    fixed_dice.append([1])
    r = roll(players, "axis", "stun_recovery", stug)
    assert _drms(r) == {"if German": (1, "auto")}, r.drms
    assert r.final == 2
    assert unit_names(players, "axis") == [("StuG IIIG", "vehicle", "ok", 1)]


def test_3_6141d_a_vehicle_no_chart_row_names_is_still_ticked_and_never_british(
    users, modules, fixed_dice
):
    """3.6141d: a hand-added Axis vehicle whose counter no Axis RG row names (an Italian
    or German vehicle of the OB, "Semovente 75/18") has no nationality on the record:
    the Axis player ticks "+1 if German" for it; the British never have it, even for a
    hand-added StuG IIIG (a captured one is the enemy's, 3.6071)."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.614")
    sem = add(players, "axis", "Semovente 75/18", "vehicle", status="stunned")
    fixed_dice.append([1])
    r = roll(players, "axis", "stun_recovery", sem, ticked=["german_no_rg"])
    assert _drms(r) == {"if German (a vehicle not of an RG)": (1, "ticked")}, r.drms
    stug = add(players, "british", "StuG IIIG", "vehicle", status="stunned", markers=["captured"])
    fixed_dice.append([1])
    r = roll(players, "british", "stun_recovery", stug)
    assert r.drms == [] and r.final == 1


def test_3_606_row_11_a_leader_is_replaced_then_casualty_reduced(users, modules, fixed_dice):
    """3.606 Infantry "11 Escapes; Replaced, then Casualty Reduced": an Isolated 8-1
    whose Escape DR is 11 is Replaced by an 8-0 (A19.13), and the 8-0 is then Casualty
    Reduced: wounded.  (Before, the 8-1 was only wounded, not Replaced.)"""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.606")
    leader = add(players, "axis", "8-1 leader", "leader", status="isolated")
    fixed_dice.append([4, 6])  # 10 +2 Isolated -1 Night = 11
    assert roll(players, "axis", "escape", leader).final == 11
    assert unit_names(players, "axis") == [("8-0 leader", "leader", "wounded", 1)]
    assert "replaced by a 8-0 leader" in _said(players), _said(players)


def test_3_606_row_11_a_squad_is_marked_to_be_replaced_and_reduced(users, modules, fixed_dice):
    """3.606 row 11 "Replaced, then Casualty Reduced" for an MMC: a 4-6-7 is marked to
    be Replaced by its next lower quality counter (A19.13; the seed prints none) and
    Casualty Reduced (to a HS); a 2-4-7 HS, Replaced then Casualty Reduced, is
    Eliminated."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.606")
    squad = add(players, "axis", "4-6-7", "squad", status="isolated")
    fixed_dice.append([4, 5])  # 9 +1 (a squad) +2 Isolated -1 Night = 11
    assert roll(players, "axis", "escape", squad).final == 11
    assert unit_names(players, "axis") == [("4-6-7", "squad", "reduced, replace_due", 1)]
    said = _said(players)
    assert "to be Replaced by its next lower quality counter (A19.13)" in said, said
    assert "casualty reduced" in said, said
    hs = add(players, "axis", "2-4-7", "half_squad", status="isolated")
    fixed_dice.append([5, 5])  # 10 +2 Isolated -1 Night = 11
    assert roll(players, "axis", "escape", hs).final == 11
    assert ("2-4-7", "half_squad") not in {n[:2] for n in unit_names(players, "axis")}
