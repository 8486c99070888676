"""Pass 12, secrecy (sec14): every roll the three modules' rules call secret,
re-audited after the secret-table fix (docs/rules-audit/pass-12-sec14.md).

- Sicily 3.6181 "the player must make one Secret DR on the RG Strength Table": its
  table was not marked secret in the module, so an RG revealed by the default policy
  at 3.617's end showed its strength, SW, leaders and units as they were rolled.
- The owner may show what his RG's secret DRs gave it before the scenario ends (the
  rules oblige him to keep it from no one but his opponent): "Reveal" answered
  "already revealed" once the policy had revealed the line.
"""

from __future__ import annotations

import pytest

from campaign.models import Event, Purchase, RevealPolicy, Roll, Unit
from campaign.services import purchases
from campaign.services.errors import ActionRefused
from tests import test_rule_mechanisms
from tests.purchase_helpers import campaign_at
from tests.test_rule_mechanisms import apd_at, buy, rg_roll
from tests.test_secret12 import _american_leader_and_m4, page_of

pytestmark = [pytest.mark.django_db, pytest.mark.rules]

users = test_rule_mechanisms.users
fixed_dice = test_rule_mechanisms.fixed_dice


def test_sicily_3_6181_the_secret_strength_dr_of_a_revealed_rg_is_not_the_axis(
    users, modules, client, fixed_dice
):
    """Sicily 3.6181 "the player must make one Secret DR on the RG Strength Table" (and
    3.6183's leader DR for the same RG): under the default policy the British V1's line
    is revealed when both sides finish 3.617, before the DR at 3.618; the Axis reads
    the line, not Full/Depleted, the leader or the tanks, nor the DRs."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, policy=RevealPolicy.STEP_END)
    v1 = buy(players, "british", "V1")
    players.until_step("3.618")
    v1.refresh_from_db()
    assert v1.revealed_at is not None  # the line is the Axis's to read
    fixed_dice.extend([[3, 3], [1, 1]])  # strength DR 6 - 1 = 5: Full; leader DR 2 + 2: 9-1
    rg_roll(players, "british", v1)
    mine = page_of(client, players, "british", "roster/")
    assert "9-1 armor leader" in mine and "Sherman III(a)" in mine
    for path in ("", "roster/", "sheet.txt"):
        theirs = page_of(client, players, "axis", path)
        assert "V1" in theirs, path
        assert "9-1" not in theirs and "armor leader" not in theirs, path
        assert "RG Strength:" not in theirs and "Full Strength" not in theirs, path
    seen = Unit.objects.visible_to("axis").filter(campaign_id=players.campaign_id)
    assert not seen.filter(side="british", purchase=v1).exists()
    rolls = Roll.objects.visible_to("axis").filter(campaign_id=players.campaign_id)
    assert not rolls.filter(table_id__in=["rg_strength", "leader_allotment"]).exists()


def test_apd_3_6_3_7_the_owner_reveals_what_his_secret_drs_gave_before_the_scenario(
    users, modules, client, fixed_dice
):
    """APD 3.6/3.7 under the default policy: the American's A1 line is revealed at
    3.4's end and its Leader and M4 Model DRs are held from the German.  The American
    may show them when he wishes (e.g. as the tanks enter, 3.8): his record line says
    the German sees the line but not what its secret DRs gave, with a button; once he
    reveals, the German reads the 10-2 and the M4A3E2(L) and the log says so.  A second
    reveal is refused in words."""
    players, _ = apd_at(users, "3.4")
    a1 = _american_leader_and_m4(players, fixed_dice)
    a1.refresh_from_db()
    assert a1.revealed_at is not None and a1.outcome_held
    mine = page_of(client, players, "american")
    assert "not what its secret DRs gave it" in mine
    assert "Reveal what it rolled" in mine
    assert "10-2" not in page_of(client, players, "german", "roster/")

    purchases.reveal_purchase(
        campaign_id=players.campaign_id, user=players.users["american"], purchase_id=a1.ref
    )
    assert not Purchase.objects.get(pk=a1.pk).outcome_held
    theirs = page_of(client, players, "german", "roster/")
    assert "10-2" in theirs and "M4A3E2" in theirs
    seen = Unit.objects.visible_to("german").filter(campaign_id=players.campaign_id)
    assert seen.filter(side="american", purchase=a1, name__contains="M4A3E2").exists()
    shown = " ".join(
        Event.objects.visible_to("german")
        .filter(campaign_id=players.campaign_id, kind="reveal")
        .values_list("shown", flat=True)
    )
    assert "reveals what the secret DRs of A1 Armor Group gave it" in shown, shown
    assert "Reveal what it rolled" not in page_of(client, players, "american")
    with pytest.raises(ActionRefused, match="already revealed"):
        purchases.reveal_purchase(
            campaign_id=players.campaign_id, user=players.users["american"], purchase_id=a1.ref
        )
