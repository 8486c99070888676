"""Issue 44, pass 10, A Pleasant Diversion (seed 002): pass 9's "Left" items (3 Note
and the amendment's help, 2.5's 1TC per Encircled unit, the armor-type dr after a Done
at 3.4, the 3.1 footnote with no MMC), then sentences of 2.x-4.0 no pass had tried in
play.  Each test cites its rule; docs/rules-audit/pass-10-apd.md lists what was tried."""

from __future__ import annotations

import pytest

from campaign.models import Event, Purchase, Roll
from campaign.services import purchases, steps
from campaign.services.errors import ActionRefused
from tests import test_rule_mechanisms
from tests.test_apd_pass5 import done
from tests.test_rule_mechanisms import (
    _M4_ARMOR_TYPE,
    _armor_group,
    add,
    apd_at,
    buy,
    rg_roll,
    roll,
    unit_names,
)

pytestmark = [pytest.mark.django_db, pytest.mark.rules]

users = test_rule_mechanisms.users
fixed_dice = test_rule_mechanisms.fixed_dice


# --------------------------------------------------------------------------- 3.4


def test_3_4_an_armor_type_dr_made_by_done_is_never_made_again_by_a_take_back(
    users, modules, fixed_dice
):
    """3.4: "For each Armor Group purchased, make a dr to determine armor type" — once.
    The American's Done at 3.4 makes the dr (pass 9); 3.4 is his alone, so the Done
    moves the CG on to 3.5 and there is no Done at 3.4 to take back (refused in words);
    the group whose dr is made can no longer be cancelled and rebought (a re-roll by
    refund), and its dr is not made again: the dice stand."""
    players, _ = apd_at(users, "3.4")
    _armor_group(players, [{"range": "1-6", "result": "M4", "effect": _M4_ARMOR_TYPE}], full=3)
    a1 = buy(players, "american", "A1")
    fixed_dice.extend([[4]])
    done(players, "american")
    assert players.step.id == "3.5"
    with pytest.raises(ActionRefused, match="no Done to take back"):
        steps.take_back_done(campaign_id=players.campaign_id, user=players.users["american"])
    assert Purchase.objects.get(pk=a1.pk).status == Purchase.Status.ACTIVE
    assert list(Roll.objects.values_list("table_id", "final")) == [("american_reinforcement", 4)]


def test_3_4_an_armor_type_dr_made_by_a_click_stands_the_group_is_not_refunded(
    users, modules, fixed_dice
):
    """3.4: the armor-type dr made at 3.4 by the group's roll button stands: the group
    can no longer be cancelled (refund and rebuy would roll again), nor rolled again."""
    players, _ = apd_at(users, "3.4")
    _armor_group(players, [{"range": "1-6", "result": "M4", "effect": _M4_ARMOR_TYPE}], full=3)
    a1 = buy(players, "american", "A1")
    fixed_dice.extend([[2]])
    rg_roll(players, "american", a1)
    with pytest.raises(ActionRefused, match="can no longer be cancelled"):
        purchases.cancel_purchase(
            campaign_id=players.campaign_id, user=players.users["american"], purchase_id=a1.ref
        )
    with pytest.raises(ActionRefused):
        rg_roll(players, "american", a1)
    assert Purchase.objects.get(pk=a1.pk).status == Purchase.Status.ACTIVE
    assert list(Roll.objects.values_list("table_id", "final")) == [("american_reinforcement", 2)]


# --------------------------------------------------------------------------- 2 Note, 3 Note


@pytest.mark.parametrize(("step", "says_na"), [("2.5", False), ("3.1", True), ("3.3", True)])
def test_2_note_3_note_the_amendment_says_whether_this_phases_losses_count_cvp(
    users, modules, client, step, says_na
):
    """2 Note: "CVP are recorded normally throughout this phase" (the Clean-Up): the
    amendment of the result invites the CVP lost in melee or encirclement.  3 Note:
    "CVP are NA for units/weapons eliminated in this phase" (the Setup Phase): there
    it says so, citing 3 Note, and invites only a figure entered wrong."""
    players, _ = apd_at(users, step)
    client.force_login(players.users["german"])
    page = client.get(f"/campaigns/{players.campaign_id}/").content.decode()
    assert "Amend the scenario result" in page
    na = "CVP are NA for units/weapons eliminated in this phase (3 Note)"
    assert (na in page) is says_na
    assert ("the CVP lost in melee or encirclement" in page) is not says_na


# --------------------------------------------------------------------------- 2.5


def test_2_5_each_encircled_unit_takes_its_1tc_and_one_that_fails_is_eliminated(
    users, modules, fixed_dice
):
    """2.5: "Each Encircled unit must take a 1TC (leadership applies normally). Failing
    the 1TC results in the unit's immediate Elimination ... All Encircled markers are
    then removed."  The app holds the Encircled marker and reads the Morale from the
    counter: Done waits for each Encircled unit's 1TC; DR 7 +1 -1 (leadership) against
    the 4-6-7's Morale 7 passes; DR 7 +1 against the 2-4-7's 7 fails and the half-squad
    is eliminated; the German 8-1's DR 8 +1 against 8 fails; a second 1TC for the same
    unit and one for the Encircled PzIV (2.5 EXC: its PRC are the map's) are refused;
    the survivor's Encircled marker leaves with 2.5."""
    players, _ = apd_at(users, "2.5")
    squad = add(players, "american", "4-6-7", "squad", "encircled")
    hs = add(players, "american", "2-4-7", "half_squad", "encircled")
    add(players, "american", "4-6-7", "squad")  # not Encircled: no 1TC
    leader = add(players, "german", "8-1 leader", "leader", "encircled")
    tank = add(players, "german", "PzIVH", "vehicle", markers=["encircled", "immobilized"])
    with pytest.raises(ActionRefused, match=r"Roll first: .*Encirclement 1TC"):
        done(players, "american")
    fixed_dice.extend([[3, 4], [4, 3], [6, 2]])
    r = roll(players, "american", "encirclement_1tc", squad, typed={"leadership": -1})
    assert r.result.startswith("Passed"), r.result
    with pytest.raises(ActionRefused, match=r"\(2.5\)|already|once"):
        roll(players, "american", "encirclement_1tc", squad)
    r = roll(players, "american", "encirclement_1tc", hs)
    assert r.result.startswith("Failed"), r.result
    done(players, "american")
    with pytest.raises(ActionRefused):
        roll(players, "german", "encirclement_1tc", tank)
    r = roll(players, "german", "encirclement_1tc", leader)
    assert r.result.startswith("Failed"), r.result
    done(players, "german")
    assert players.step.id == "2.6"
    assert unit_names(players, "american") == [
        ("4-6-7", "squad", "ok", 1),
        ("4-6-7", "squad", "ok", 1),
    ]
    assert unit_names(players, "german") == [("PzIVH", "vehicle", "immobilized", 1)]
    texts = list(Event.objects.filter(kind="roll").values_list("text", flat=True))
    assert any("Morale" in t and "1TC" in t for t in texts), texts


def test_2_5_a_1tc_for_a_line_that_names_no_morale_is_refused_in_words(users, modules):
    """2.5's 1TC reads the Morale from the counter: an Encircled squad recorded by a name
    without its figures is refused with a sentence (nothing rolled), not a 500."""
    players, _ = apd_at(users, "2.5")
    squad = add(players, "american", "Rifle squad", "squad", "encircled")
    with pytest.raises(ActionRefused, match=r"Morale.*names none"):
        roll(players, "american", "encirclement_1tc", squad)
    assert not Roll.objects.exists()
