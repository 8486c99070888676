"""Purple Heart Draw, eighth pass (issue 44): sentences of seed 000 driven through the
services as a player would, each test citing its rule."""

from __future__ import annotations

import pytest

from campaign.models import Roll
from campaign.services import purchases
from campaign.services.errors import ActionRefused
from tests.test_phd_conph_late import OBA, OBA_P
from tests.test_rule_mechanisms import (
    add,
    fixed_dice,
    phd_with_chart,
    result_values,
    roll,
    start,
    users,
)

__all__ = ["fixed_dice", "users"]


def test_c5_34_the_ffe_drm_at_the_initial_scenario_is_refused_with_its_reason(
    users, modules, fixed_dice
):
    """C5.34 "+1 If module placed a FFE counter in prior TM Scenario": at I-C5.34 the
    refusal says why, citing the rule, not the generic "does not apply to this roll";
    nothing is rolled.  (Pass 9: the +1 is computed from the RG marked as having placed
    an FFE, ``tests/test_phd_pass9a.py``, so a tick is refused as applying by itself;
    before the Initial TM Scenario no RG is so marked.)"""
    players, c = phd_with_chart(users, [OBA_P, OBA])
    purchases.purchase_rg(campaign_id=c.pk, user=players.users["german"], group_id="O2")
    players.until_step("I-C5.34")
    fixed_dice.append([3, 4])
    before = Roll.objects.filter(campaign=c).count()
    with pytest.raises(ActionRefused) as exc:
        roll(players, "german", "oba", item="O2 81mm OBA", ticked=["ffe_prior"])
    said = str(exc.value)
    assert "applies by itself" in said
    assert "(C5.34)" in said
    assert "to this roll" not in said
    assert Roll.objects.filter(campaign=c).count() == before


def test_c5_14_redeploys_replaced_the_squad_quality_ladder_is_declared_missing():
    """C5.14 Redeployment Table, Infantry DR 10 "Redeploys, Replaced": the seed gives no
    ladder of squad qualities (A19.13 is ASL's), so the module declares it missing
    rather than leaving the result silently unapplied (pass 15: the squad is marked to
    be Replaced, its owner renaming the line; a leader follows the leader ladder)."""
    from rules.loader import MODULE_DIR, load_file

    m = load_file(MODULE_DIR / "purple-heart-draw.yaml", overrides=False)
    assert any("Replaced" in x.what and x.rule == "C5.14" for x in m.missing)
    row = m.table("redeployment").result_row(10)
    assert row.results["Infantry"] == "Redeploys, Replaced"


def test_tm20_a_gyrostabilizer_dr_only_for_a_sherman(users, modules, fixed_dice):
    """TM20 "The US player may make a secret dr, to determine if an eligible Sherman
    tank has a functioning Gyrostabilizer": an M10 GMC is no Sherman, so its dr is
    refused in words, citing the rule, and nothing is rolled; the Sherman rolls, and so
    does one whose line names only its M4-series model ("M4A3(75)W"), as players write
    them."""
    players, module = start("purple-heart-draw", "tm", users, "us")
    players.results(**result_values(module))
    sherman = add(players, "us", "M4A1 Sherman", "vehicle")
    m10 = add(players, "us", "M10 GMC", "vehicle")
    by_model = add(players, "us", "M4A3(75)W", "vehicle")
    players.until_step("C5.37")
    players.chits(german="idle", us="attack")
    players.until_step("TM20")
    before = Roll.objects.filter(campaign_id=players.campaign_id).count()
    with pytest.raises(ActionRefused, match=r"Sherman.*\(TM20\)"):
        roll(players, "us", "gyrostabilizer", m10)
    assert Roll.objects.filter(campaign_id=players.campaign_id).count() == before
    fixed_dice.extend([[2]])
    r = roll(players, "us", "gyrostabilizer", sherman)
    assert r.result == "Functioning Gyrostabilizer (D11.1)"
    fixed_dice.extend([[5]])
    r = roll(players, "us", "gyrostabilizer", by_model)
    assert r.result == "No functioning Gyrostabilizer"


def test_i5_no_tp_roll_before_the_initial_tm_scenario(users, modules, fixed_dice):
    """I5 "Neither side rolls for TP": at the Initial TM Scenario's steps a roll on the
    TP Replenishment Table is refused, in the table's title and rule (not its module id),
    and nothing is rolled."""
    players, c = phd_with_chart(users, [OBA_P, OBA])
    players.until_step("I-C5.34")
    fixed_dice.append([3, 4])
    with pytest.raises(ActionRefused, match=r"TP Replenishment.*\(C5\.29") as exc:
        roll(players, "german", "tp_replenishment")
    assert "tp_replenishment" not in str(exc.value)  # the player reads the table's title
    assert not Roll.objects.filter(campaign=c, table_id="tp_replenishment").exists()
