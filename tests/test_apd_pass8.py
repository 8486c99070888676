"""APD pass 8 (issue 44): the post-purchase rolls at the steps that name their tables.

1.2: "Both players (if applicable), American first, complete each step before moving
on to the next step."  3.6 makes the Leader DR; 3.7 the M4 Model DR, and with it the
Gyrostabilizer DRs of the tanks it gives (3.4 note 3: "per AFV", after note 2's M4
DR)."""

from __future__ import annotations

import pytest

from campaign.models import Purchase, Roll, Unit
from campaign.services.errors import ActionRefused
from tests import test_rule_mechanisms
from tests.test_apd_pass5 import done
from tests.test_rule_mechanisms import _M4_ARMOR_TYPE, _armor_group, apd_at, buy, rg_roll

pytestmark = [pytest.mark.django_db, pytest.mark.rules]

users = test_rule_mechanisms.users
fixed_dice = test_rule_mechanisms.fixed_dice


def _tables() -> list[str]:
    return list(Roll.objects.order_by("seq").values_list("table_id", flat=True))


def test_1_2_3_6_3_7_done_at_3_6_rolls_the_leader_only_and_3_7_the_m4_model_and_gyros(
    users, modules, fixed_dice
):
    """1.2, 3.6, 3.7, 3.4 note 3: the American's Done at 3.6 makes his M4 group's Leader
    DR only (no tanks yet); the M4 Model DR is owed at 3.7, and his Done there makes it
    and one Gyrostabilizer DR per tank it gave."""
    players, _ = apd_at(users, "3.4")
    _armor_group(players, [{"range": "1-6", "result": "M4", "effect": _M4_ARMOR_TYPE}])
    a1 = buy(players, "american", "A1")
    fixed_dice.append([2])
    rg_roll(players, "american", a1)
    players.until_step("3.6")
    fixed_dice.extend([[3, 3]])  # leader 8-1 (Armor column, 6)
    done(players, "american")
    assert _tables() == ["american_reinforcement", "leader"]
    line = Purchase.objects.get(pk=a1.pk)
    assert line.rolled_at is None
    assert not Unit.objects.filter(purchase=line, kind="vehicle").exists()
    players.until_step("3.7")
    fixed_dice.extend([[1, 1], [1, 1], [2, 2], [3, 3]])  # M4 Model DR 2, three gyros
    done(players, "american")
    assert _tables() == ["american_reinforcement", "leader", "m4_model", *["gyrostabilizer"] * 3]
    line = Purchase.objects.get(pk=a1.pk)
    assert line.rolled_at is not None
    assert sorted(
        (u.name.split(" (A1)")[0], u.count)
        for u in Unit.objects.filter(purchase=line, kind="vehicle")
    ) == [("M4A3(76)W", 2), ("M4A3E2(L)", 1)]
    leaders = Unit.objects.filter(purchase=line, kind="leader")
    assert [u.name.split(" (")[0] for u in leaders] == ["8-1 leader"]


def test_3_6_the_m4_model_dr_is_not_made_at_3_6_a_second_click_is_refused(
    users, modules, fixed_dice
):
    """3.7 "make a secret DR on the following M4 Model Table" belongs to 3.7 (1.2): after
    the Leader DR at 3.6 the group's line has no roll left there, and says where."""
    players, _ = apd_at(users, "3.4")
    _armor_group(players, [{"range": "1-6", "result": "M4", "effect": _M4_ARMOR_TYPE}])
    a1 = buy(players, "american", "A1")
    fixed_dice.append([2])
    rg_roll(players, "american", a1)
    players.until_step("3.6")
    fixed_dice.extend([[3, 3]])
    rg_roll(players, "american", a1)
    with pytest.raises(ActionRefused, match=r"its rolls are made at 3.7 U.S. Medium Tank"):
        rg_roll(players, "american", a1)
    assert _tables() == ["american_reinforcement", "leader"]


def test_3_4_note_3_a_group_of_another_type_rolls_its_gyros_with_its_leader_at_3_6(
    users, modules, fixed_dice
):
    """3.4 notes 1 and 3, 3.7: a group whose armor type is not M4 has no M4 Model DR
    (3.7: "each M4 Armor Reinforcement Group"); its tanks are known from 3.4, so its
    Gyrostabilizer DRs follow its Leader DR at 3.6 and it is complete there."""
    players, _ = apd_at(users, "3.4")
    stuarts = {"do": "units", "unit": "M5A1", "count": 3, "kind": "vehicle"}
    _armor_group(players, [{"range": "1-6", "result": "M5A1", "effect": stuarts}])
    a1 = buy(players, "american", "A1")
    fixed_dice.append([2])
    rg_roll(players, "american", a1)
    players.until_step("3.6")
    fixed_dice.extend([[3, 3], [1, 1], [2, 2], [3, 3]])
    rg_roll(players, "american", a1)
    assert _tables() == ["american_reinforcement", "leader", *["gyrostabilizer"] * 3]
    assert Purchase.objects.get(pk=a1.pk).rolled_at is not None


def test_1_2_3_6_done_after_the_leader_click_rolls_and_logs_nothing_again(
    users, modules, fixed_dice
):
    """1.2, 3.6: the American clicks his M4 group's Leader DR, then Done: Done rolls
    nothing more for it at 3.6 and writes no second log line of its rolls."""
    from campaign.models import Event

    players, _ = apd_at(users, "3.4")
    _armor_group(players, [{"range": "1-6", "result": "M4", "effect": _M4_ARMOR_TYPE}])
    a1 = buy(players, "american", "A1")
    fixed_dice.append([2])
    rg_roll(players, "american", a1)
    players.until_step("3.6")
    fixed_dice.extend([[3, 3]])
    rg_roll(players, "american", a1)
    logged = Event.objects.filter(campaign_id=players.campaign_id).count()
    line = Purchase.objects.get(pk=a1.pk)
    done(players, "american")
    assert _tables() == ["american_reinforcement", "leader"]
    assert Purchase.objects.get(pk=a1.pk).details == line.details
    rolls_logged = Event.objects.filter(
        campaign_id=players.campaign_id, text__contains="Leader Table"
    ).count()
    assert rolls_logged == 1, logged
