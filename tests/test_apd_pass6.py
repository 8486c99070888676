"""Issue 44, pass 6, A Pleasant Diversion (seed 002): what pass 5 left (3.2 EXC
"Fanatic status is NA"), and the ledger's enforced, offered and computed claims tried
again in play, where pass 5 had not tried them — twice, at the wrong step, for the
wrong side, for another kind of unit.  Each test cites the sentence it tries
(rules/ledger/sentences/pleasant-diversion.yaml); docs/rules-audit/pass-6-apd.md lists
what was found."""

from __future__ import annotations

import pytest

from campaign.models import Event, Purchase, Seat
from campaign.services.errors import ActionRefused
from tests import test_rule_mechanisms
from tests.purchase_helpers import add_vehicle
from tests.test_apd_pass5 import done
from tests.test_rule_mechanisms import (
    _M4_ARMOR_TYPE,
    _armor_group,
    add,
    apd_at,
    buy,
    exchange,
    rg_roll,
    roll,
    supply_german,
    unit_names,
)

pytestmark = [pytest.mark.django_db, pytest.mark.rules]

users = test_rule_mechanisms.users
fixed_dice = test_rule_mechanisms.fixed_dice


# --------------------------------------------------------------------------- 3.2 EXC


def test_3_2_exc_fanatic_is_na_an_elite_mmc_is_not_battle_hardened(users, modules):
    """3.2: "the owning player may Battle Harden [EXC: Fanatic status is NA] any one
    MMC": an Elite MMC would become Fanatic (A15.3), so a Hero cannot harden it; a Line
    squad beside it can."""
    players, _ = apd_at(users, "3.2")
    hero = add(players, "american", "1-4-9 Hero", "hero")
    elite = add(players, "american", "6-6-7", "squad", markers=["elite"])
    line = add(players, "american", "6-6-6", "squad")
    with pytest.raises(
        ActionRefused, match=r"6-6-7 is not one of your squads or half-squads \(not captured or "
    ):
        exchange(players, "american", hero, elite)
    assert unit_names(players, "american", kind="squad") == [
        ("6-6-6", "squad", "ok", 1),
        ("6-6-7", "squad", "elite", 1),
    ]
    exchange(players, "american", hero, line)
    assert ("6-6-6", "squad", "battle_hardened", 1) in unit_names(players, "american")
    # A class is an MMC's: a vehicle's weapon is never marked Elite.
    with pytest.raises(ActionRefused, match="Choose the weapon's markers among those listed"):
        add_vehicle(players, "american", "M4A3(75)W", ("ma", ["elite"]))


def test_3_2_exc_with_only_elite_mmc_the_hero_remains_onboard_unwounded(users, modules):
    """3.2: "[EXC: Fanatic status is NA] ... [EXC: If unable to Battle Harden any MMC,
    the Hero remains onboard unwounded instead]": a side whose only MMC are Elite is
    unable to Battle Harden any, so its wounded Hero stays, unwounded, at Done."""
    players, _ = apd_at(users, "3.2")
    add(players, "american", "1-4-9 Hero", "hero", "wounded")
    add(players, "american", "7-4-7", "squad", number=2, markers=["elite"])
    done(players, "american")
    assert unit_names(players, "american") == [
        ("1-4-9 Hero", "hero", "ok", 1),
        ("7-4-7", "squad", "elite", 2),
    ]
    said = Event.objects.filter(kind="unit").order_by("-id").first().text
    assert "1-4-9 Hero stays, now in good order: no squads or half-squads (not captured" in said


# ------------------------------------------------------------- 3.4 note 4, 3.5 notes 3-4


def test_3_5_notes_3_4_the_players_chart_marks_its_groups_he_smoke_or_he_only(
    users, modules, client
):
    """3.5 notes "3. HE/Smoke." and "4. HE (only).", 3.4 note "4. HE/SMOKE.": notes of
    the (lost) reinforcement tables, each attached to the groups the table marks with
    it.  The module keeps their words as the charts' footnotes, so the players' chart
    marks a group with "3" or "4" (refused before: the chart knew no such note), and
    the American's purchase chart shows the note with his group."""
    from campaign.selectors import module_of
    from tests.test_rule_mechanisms import GERMAN_CHART, supply

    players, module = apd_at(users, "3.4")
    assert module.chart("german").footnotes == {"3": "HE/Smoke.", "4": "HE (only)."}
    assert module.chart("american").footnotes == {"4": "HE/SMOKE."}
    supply(players, "rg_charts.german", GERMAN_CHART | {"row-1-footnotes": "3"})
    german = module_of(players.campaign).chart("german")
    assert [g.footnotes for g in german.groups] == [[], ["3"]]
    rows = [{"range": "1-6", "result": "M4", "effect": _M4_ARMOR_TYPE}]
    _armor_group(players, rows, footnotes=["4"])
    client.force_login(players.users["american"])
    shown = client.get(f"/campaigns/{players.campaign_id}/").content.decode()
    assert 'aria-label="chart notes 4">4</a>' in shown
    assert "Chart notes" in shown and "4: HE/SMOKE." in shown


# --------------------------------------------------------------------------- across dates


def _midday(players, vp_required: int, vp: int, cvp: int):
    """The Morning's sequence walked to its end; the Midday scenario's result entered
    (the American's ``vp`` and ``cvp``), its required VP supplied."""
    from tests.test_computations import pd_result, supply_midday_vp

    supply_midday_vp(players, vp_required)
    players.until("results")
    players.results(**pd_result(vp=vp, cvp_american=cvp))


def test_2_9_the_midday_winner_reads_the_cg_vp_total_not_the_scenarios(users, modules):
    """2.9: "The American player totals his amassed VP from all CG scenarios played. If
    the VP total is ≥ the required CG scenario total ... the American is the winner of
    the current scenario": 40 VP in the Morning (55 required: the German wins it), 35
    in the Midday (70 required): the CG total 75 wins the Midday, which 35 alone would
    not; the winner moves first (4.0)."""
    from tests.test_computations import pd_result
    from tests.test_rule_mechanisms import start

    players, _ = start("pleasant-diversion", "cg", users, "american")
    players.results(**pd_result(vp=40, cvp_american=10))
    players.until("purchase")
    assert players.campaign.results.get().winner == "german"
    _midday(players, 70, vp=35, cvp=5)
    players.until("purchase")
    winners = list(players.campaign.results.order_by("id").values_list("winner", flat=True))
    assert winners == ["german", "american"]
    assert Event.objects.filter(kind="winner").order_by("-id").first().text == (
        "American wins the December 6 Midday scenario: VP scored by the American in the "
        "scenario (CG total) 75 ≥ 70 (2.9; 4.0). American moves first in the next scenario."
    )


def test_2_92_negative_purchase_points_are_ignored_the_retained_ones_kept(users, modules):
    """2.92: "Negative Purchase Points are ignored"; 3.4: "Unused Purchase Points may be
    retained for future use": the Morning's 33 PP, unspent, are kept; the Midday's
    Purchase Points are negative (70 required − 123 VP + 46 CVP = −7) and ignored, so
    the American still holds 33 at the Midday's 3.4 (not 26)."""
    from tests.test_computations import pd_result
    from tests.test_rule_mechanisms import start

    players, _ = start("pleasant-diversion", "cg", users, "american")
    players.results(**pd_result(vp=63, cvp_american=41))
    players.until_step("3.4")
    assert Seat.objects.get(campaign_id=players.campaign_id, side="american").points == 33
    _midday(players, 70, vp=60, cvp=5)
    players.until_step("3.4")
    assert players.campaign.date_index == 2  # the Afternoon's reinforcements
    assert Seat.objects.get(campaign_id=players.campaign_id, side="american").points == 33


def test_3_4_the_scenario_maximum_is_per_scenario_not_per_cg(users, modules, fixed_dice):
    """3.4: "the scenario maximum allowed for each group may not be exceeded": A1's
    maximum of 1 is reached in the Morning's purchase, and counts afresh for the next
    scenario: the Midday's 3.4 sells A1 again (and once only)."""
    players, _ = apd_at(users, "3.4")
    rows = [{"range": "1-6", "result": "M5A1", "effect": {"do": "none"}}]
    _armor_group(players, rows, date_max=1)
    buy(players, "american", "A1")
    with pytest.raises(ActionRefused):
        buy(players, "american", "A1")
    _midday(players, 70, vp=10, cvp=4)
    players.until_step("3.4")
    assert Seat.objects.get(campaign_id=players.campaign_id, side="american").points >= 10
    buy(players, "american", "A1")
    with pytest.raises(ActionRefused):
        buy(players, "american", "A1")
    assert Purchase.objects.filter(campaign_id=players.campaign_id, group_id="A1").count() == 2


def test_3_5_the_german_makes_his_three_drs_again_for_each_scenario(users, modules, fixed_dice):
    """3.5: "The German player now secretly makes three Reinforcement drs (one each on
    Rows A-C) to determine his reinforcements for the next scenario": once each per
    Setup Phase, so again at the Midday's 3.5 (and still once each there)."""
    players, _ = apd_at(users, "3.4")
    supply_german(players)
    players.until_step("3.5")
    fixed_dice.extend([[1], [1], [1]])
    for row in ("a", "b", "c"):
        roll(players, "german", f"german_reinforcement_row_{row}", item=f"Row {row.upper()}")
    _midday(players, 70, vp=10, cvp=4)
    players.until_step("3.5")
    fixed_dice.extend([[1], [1], [1]])
    for row in ("a", "b", "c"):
        roll(players, "german", f"german_reinforcement_row_{row}", item=f"Row {row.upper()}")
    with pytest.raises(ActionRefused):
        roll(players, "german", "german_reinforcement_row_a", item="Row A")
    given = Purchase.objects.filter(campaign_id=players.campaign_id, side="german")
    assert sorted(given.values_list("group_id", flat=True)) == ["RA1", "RA1", "RB1", "RB1"]


def test_3_4_notes_1_3_an_armor_group_of_another_type_rolls_its_leader_and_a_gyro_per_tank(
    users, modules, fixed_dice
):
    """3.4 notes 1-3 and 3.6: an Armor Group whose armor-type dr gives Stuarts (3 ×
    M5A1, not an M4 group) still rolls its Leader DR on the American Armor column (3.6)
    and one Gyrostabilizer DR per AFV it received (note 3: the three M5A1), but no M4
    Model DR (note 2, 3.7: M4 groups only)."""
    from campaign.models import Roll

    players, _ = apd_at(users, "3.4")
    stuarts = {"do": "units", "unit": "M5A1", "count": 3, "kind": "vehicle"}
    _armor_group(players, [{"range": "1-6", "result": "M5A1", "effect": stuarts}], full=1)
    a1 = buy(players, "american", "A1")
    fixed_dice.extend([[4]])
    rg_roll(players, "american", a1)
    players.until_step("3.6")
    fixed_dice.extend([[3, 3], [2, 2], [3, 3], [4, 4]])  # leader, 3 gyros
    rg_roll(players, "american", a1)
    tables = list(Roll.objects.order_by("seq").values_list("table_id", flat=True))
    assert tables == [
        "american_reinforcement",
        "leader",
        "gyrostabilizer",
        "gyrostabilizer",
        "gyrostabilizer",
    ], tables
    assert unit_names(players, "american", kind="vehicle") == [("M5A1 (A1)", "vehicle", "ok", 3)]
