"""Sicily (seed 001), the fifth pass of the sentence audit (issue 44): discrepancies
found by trying the ledger's claims through the services as a player would, each with
the test that failed before its fix (docs/rules-audit/pass-5-sicily.md)."""

from __future__ import annotations

import pytest

from campaign.models import Roll
from campaign.services.errors import ActionRefused
from tests import test_rule_mechanisms as mechanisms
from tests.purchase_helpers import add_vehicle, campaign_at
from tests.test_rule_mechanisms import add, buy, roll

users = mechanisms.users
fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


NIGHT = "If current CG Date is Night (NA to vehicles)"


def drms_of(r: Roll) -> dict[str, tuple[int, str]]:
    """A roll's DRMs as recorded: label -> (value, how it came: auto / ticked)."""
    return {d["label"]: (d["value"], d["how"]) for d in r.drms}


def test_3_606_escape_drms_that_follow_from_the_record_apply_by_themselves(
    users, modules, fixed_dice
):
    """3.606's Escape DRMs the retained forces already say: "-1 If current CG Date is
    Night*" (NA to vehicles), "+2 If Isolated", "+1 If stunned", "+1 If a Captured
    vehicle", "+1 If unarmed or Wounded" (its Wounded half) apply by themselves, and a
    tick of them is refused; "-1 If lone, unwounded SMC" is not offered for a wounded
    leader, and one +1 only for "unarmed or Wounded".  (Before this pass each was a tick
    the player could forget, or claim for a unit not so marked.)"""
    players, module = campaign_at("sicily", "i", "jul15am", users, step="3.606")
    assert module.dates[players.campaign.date_index].night
    squad = add(players, "axis", "4-6-8", "squad", markers=["isolated"])
    tank, _ = add_vehicle(players, "axis", "PzIVG", status="stunned", markers=["captured"])
    leader = add(players, "axis", "8-1 leader", "leader", "wounded")
    with pytest.raises(ActionRefused, match=r"'If Isolated' applies by itself"):
        roll(players, "axis", "escape", squad, ticked=["isolated"])
    with pytest.raises(ActionRefused, match=r"'If lone, unwounded SMC' does not apply"):
        roll(players, "axis", "escape", leader, ticked=["lone_smc"])
    with pytest.raises(ActionRefused, match=r"do not both apply"):
        roll(players, "axis", "escape", leader, ticked=["unarmed_wounded"])
    assert not Roll.objects.filter(table_id="escape").exists()
    fixed_dice.extend([[3, 3], [3, 3], [3, 3]])
    assert drms_of(roll(players, "axis", "escape", squad)) == {
        NIGHT: (-1, "auto"),
        "If Isolated": (2, "auto"),
        "+1 per HS-equivalent > one HS using the same Escape DR (NA to vehicles)": (1, "auto"),
    }
    assert drms_of(roll(players, "axis", "escape", tank)) == {
        "If a Captured vehicle": (1, "auto"),
        "If stunned": (1, "auto"),
    }
    assert drms_of(roll(players, "axis", "escape", leader)) == {
        NIGHT: (-1, "auto"),
        "If Wounded": (1, "auto"),
    }


def test_3_606_lone_smc_is_offered_for_an_unwounded_leader(users, modules, fixed_dice):
    """3.606 "-1 If lone, unwounded SMC": an unwounded leader may claim it (lone is the
    map's), on a day date without the Night -1."""
    players, module = campaign_at("sicily", "i", "jul15pm", users, step="3.606")
    assert not module.dates[players.campaign.date_index].night
    leader = add(players, "axis", "9-1 leader", "leader")
    fixed_dice.extend([[3, 3]])
    r = roll(players, "axis", "escape", leader, ticked=["lone_smc"])
    assert drms_of(r) == {"If lone, unwounded SMC": (-1, "ticked")}


def test_3_61426_a_stunned_isolated_british_tank_escapes_with_plus_1_by_itself(
    users, modules, fixed_dice
):
    """3.61426 (the Escape DR of mobile Isolated British tanks at Night, with 3.606's
    DRMs): "+1 If stunned" applies by itself to a tank marked stunned, and is not
    ticked; the unstunned tank gets only its "+2 If Isolated"."""
    players, module = campaign_at("sicily", "i", "jul15n", users, step="3.614")
    assert module.dates[players.campaign.date_index].night
    stunned = add(players, "british", "Sherman III(a)", "vehicle", "isolated", markers=["stunned"])
    sherman = add(players, "british", "Sherman III(a) #2", "vehicle", "isolated")
    with pytest.raises(ActionRefused, match=r"'If stunned' applies by itself"):
        roll(players, "british", "tank_escape", sherman, ticked=["stunned"])
    fixed_dice.extend([[3, 3], [3, 3]])
    assert drms_of(roll(players, "british", "tank_escape", stunned)) == {
        "If stunned": (1, "auto"),
        "If Isolated": (2, "auto"),
    }
    assert drms_of(roll(players, "british", "tank_escape", sherman)) == {"If Isolated": (2, "auto")}


def test_british_footnote_i_bombardments_useable_are_the_new_cg_dates_since_the_last_scenario(
    users, modules
):
    """3.617 British chart footnote i: "The maximum number of Bombardments useable per
    CG scenario is equal to the number of new CG Dates since the last CG-Scenario End
    (e.g. if one Idle Date occurred between scenarios, no > two Bombardments may be
    conducted for the current scenario)": after the July 14 N scenario the British
    sheet says one for July 15 AM; after an Idle July 15 AM, two for July 15 PM.  The
    Axis sheet (no Bombardment on its chart) says nothing of it."""
    from campaign.seat_views.sheet import scenario_sheet

    players, _ = campaign_at("sicily", "i", "jul15am", users)
    c = players.campaign
    said = [line for line in scenario_sheet(c, "british").in_effect if "Bombardment" in line]
    assert said == [
        "At most 1 Bombardment RG (B1) may be used in this scenario: the new CG Dates "
        "since the last CG-scenario end (3.617 British chart footnote i)."
    ]
    assert not [line for line in scenario_sheet(c, "axis").in_effect if "Bombardment" in line]
    players.until("initiative")
    players.chits(axis="idle", british="idle")
    players.until("purchase")
    c = players.campaign
    assert c.date_index == 4  # July 15 PM
    said = [line for line in scenario_sheet(c, "british").in_effect if "Bombardment" in line]
    assert said and said[0].startswith("At most 2 Bombardment RGs (B1)")


def test_3_6175_a_price_not_for_the_rg_is_refused_with_its_words_and_rule(users, modules):
    """3.6175: "If an Axis "I" or "G" type RG is purchased for 20% less (FRD) ... The Axis
    or British player may purchase "I" type RGs for Standard On-Map Setup by spending
    20% more (FRU)"; Axis footnote g "Available for on-map setup on CG Date of purchase
    at no extra cost"; British footnote e (Creeping Barrage, British OBA only).  Asked
    at a price not for it, the RG is refused in words naming the price and its rule
    (before: "cannot be bought at that price"), and nothing is bought."""
    from campaign.models import Purchase

    players, _ = campaign_at("sicily", "i", "jul14n", users)
    for side, group, variant, said in (
        ("axis", "V1", "reserve", r"'Axis I/G RG in Reserve .*' is not for this RG \(3\.6175\)"),
        ("british", "I1", "reserve", r"'Axis I/G RG in Reserve .*' is not for this RG \(3\.6175\)"),
        ("axis", "G1", "on_map", r"sets up on-map on the date of purchase at no extra cost"),
        ("axis", "O1", "creeping", r"is not for this RG \(3\.617 British chart footnote e\)"),
    ):
        with pytest.raises(ActionRefused, match=said):
            buy(players, side, group, variant)
    assert not Purchase.objects.filter(campaign_id=players.campaign_id).exists()
