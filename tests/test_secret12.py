"""Issue 44, secrecy bar (branch secret12): a DR on a table the rules call secret, what
it gave and the units it gave stay the roller's secret though its RG was revealed
before it was made (APD 3.6 "make one secret DR", 3.7 "make a secret DR"; PHD C5.33
"one secret DR"; Sicily 3.6181 "one Secret DR"), until the scenario the RG was bought
for ends.  docs/rules-audit/pass-12-secret12.md."""

from __future__ import annotations

import html
import re

import pytest

from campaign.models import Campaign, Event, Purchase, RevealPolicy, Roll, Unit
from tests import test_rule_mechanisms
from tests.test_rule_mechanisms import (
    _M4_ARMOR_TYPE,
    _armor_group,
    apd_at,
    buy,
    result_values,
    rg_roll,
)

pytestmark = [pytest.mark.django_db, pytest.mark.rules]

users = test_rule_mechanisms.users
fixed_dice = test_rule_mechanisms.fixed_dice


# A campaign's id in its links: random hex that can hold "9-1" or "10-2" ("…afd9-1721…").
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def page_of(client, players, side, path="") -> str:
    """The page ``side`` is shown, its ids masked: a test reads it for leader ratings."""
    client.force_login(players.users[side])
    response = client.get(f"/campaigns/{players.campaign_id}/{path}")
    assert response.status_code == 200
    return _UUID.sub("<id>", html.unescape(response.content.decode()))


def _american_leader_and_m4(players, fixed_dice) -> Purchase:
    """APD 3.4-3.7: the American buys an M4 Armor group (armor-type dr 1: M4), then its
    Leader DR 2 (10-2, 3.6) and its M4 Model DR 2 (M4A3E2(L), 3.7)."""
    _armor_group(players, [{"range": "1-6", "result": "M4", "effect": _M4_ARMOR_TYPE}])
    a1 = buy(players, "american", "A1")
    fixed_dice.append([1])
    rg_roll(players, "american", a1)
    players.until_step("3.6")
    fixed_dice.append([1, 1])
    rg_roll(players, "american", a1)
    players.until_step("3.7")
    fixed_dice.extend([[1, 1], [1, 1], [1, 1], [1, 1]])
    rg_roll(players, "american", a1)
    return a1


@pytest.mark.parametrize("policy", [RevealPolicy.STEP_END, RevealPolicy.SCENARIO_END])
def test_apd_3_6_3_7_secret_drs_of_a_revealed_rg_are_not_the_germans(
    users, modules, client, fixed_dice, policy
):
    """APD 3.6 "make one secret DR ... to determine the type of leader received by that
    Group" and 3.7 "make a secret DR ... to determine the tanks received by that Group":
    under either reveal policy (the default one reveals the American's RG at 3.4's end,
    before these DRs), the German's campaign page, roster and the gate's reads show
    neither the 10-2 nor the M4A3E2(L), nor the DRs; the American's show both."""
    players, _ = apd_at(users, "3.4")
    Campaign.objects.filter(pk=players.campaign_id).update(reveal_policy=policy)
    a1 = _american_leader_and_m4(players, fixed_dice)
    a1.refresh_from_db()
    if policy == RevealPolicy.STEP_END:
        assert a1.revealed_at is not None  # the line itself is the German's to read
    for path in ("", "roster/"):
        theirs = page_of(client, players, "german", path)
        assert "10-2" not in theirs and "M4A3E2" not in theirs, path
    mine = page_of(client, players, "american")
    assert "10-2" in mine and "M4A3E2" in mine
    seen = Unit.objects.visible_to("german").filter(campaign_id=players.campaign_id)
    assert not seen.filter(side="american", purchase=a1).exists()
    rolls = Roll.objects.visible_to("german").filter(campaign_id=players.campaign_id)
    assert not rolls.filter(table_id__in=["leader", "m4_model", "gyrostabilizer"]).exists()
    shown = " ".join(
        Event.objects.visible_to("german")
        .filter(campaign_id=players.campaign_id)
        .values_list("shown", flat=True)
    )
    assert "10-2" not in shown and "M4A3E2" not in shown, shown


def test_apd_3_8_the_secret_drs_outcome_is_the_germans_once_the_scenario_has_ended(
    users, modules, client, fixed_dice
):
    """APD 3.8 "All reinforcements enter on/after Turn 1": the leader and tanks the
    secret DRs gave have entered by the scenario's end, so once it has ended (its
    result agreed) the German reads them on the American's revealed line; before, the
    line showed the group alone (default reveal policy)."""
    players, module = apd_at(users, "3.4")
    _american_leader_and_m4(players, fixed_dice)
    theirs = page_of(client, players, "german", "roster/")
    assert "A1" in theirs and "10-2" not in theirs
    players.until("results")
    players.results(**result_values(module))
    theirs = page_of(client, players, "german", "roster/")
    assert "10-2" in theirs and "M4A3E2" in theirs
    seen = Unit.objects.visible_to("german").filter(campaign_id=players.campaign_id)
    assert seen.filter(side="american", name__contains="M4A3E2").exists()
