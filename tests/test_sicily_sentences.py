"""Sicily (seed 001) sentence by sentence: the sentences of the Refit Phase that the
sentence ledger (rules/ledger/sentences/sicily.yaml) calls enforced or computed and no
other test exercised under their own rule number, each through the services as two
players meet it; and the fifth pass's fix, 3.619 footnote d's "airborne MMC currently
retained" read from the retained forces."""

from __future__ import annotations

import pytest

from campaign.models import Event, InitiativeOutcome, Purchase, ScenarioResult, Seat, Unit
from campaign.seat_views.sheet import scenario_sheet
from campaign.services import initiative, purchases, steps, units
from campaign.services.errors import ActionRefused
from tests import test_rule_mechanisms as mechanisms
from tests.purchase_helpers import campaign_at, keep_retained_units, make_rolls, roster_of
from tests.test_rule_mechanisms import add, buy, roll

users = mechanisms.users
fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


def outcome_of(players):
    return InitiativeOutcome.objects.filter(campaign_id=players.campaign_id).latest("id")


def points(players, side):
    return Seat.objects.get(campaign_id=players.campaign_id, side=side).points


# --------------------------------------------------------------------- 3.619 footnote d


def test_3_619_footnote_d_at_mines_only_while_an_airborne_mmc_is_retained(users, modules):
    """3.619 footnote d: "May only be purchased by the British when >= 1 airborne MMC is
    currently retained."  An airborne RG (I2) bought and rolled brings its 6-4-8 squads:
    AT mines are sold.  Once those squads are gone (eliminated, the RG's line still on
    the record) no airborne MMC is retained: AT mines are refused with the rule, and
    nothing is bought.  (Before this pass the RG's line alone was enough.)"""
    players, _ = campaign_at("sicily", "i", "jul14pm", users)
    cid, brit = players.campaign_id, players.users["british"]
    i2 = buy(players, "british", "I2")
    make_rolls(players, "british", i2)
    squads = Unit.objects.filter(campaign_id=cid, side="british", purchase=i2, kind="squad")
    assert squads.exists()
    Seat.objects.filter(campaign_id=cid).update(fortification_points=20)
    players.until("fortify")
    purchases.buy_fortification(campaign_id=cid, user=brit, item_id="at_mines")
    for squad in squads:
        units.remove_unit(campaign_id=cid, user=brit, unit_id=squad.ref)
    before = Event.objects.count()
    with pytest.raises(ActionRefused, match=r"a squad or half-squad of it retained \(3\.619"):
        purchases.buy_fortification(campaign_id=cid, user=brit, item_id="at_mines")
    assert Event.objects.count() == before
    assert Seat.objects.get(campaign_id=cid, side="british").fortification_points == 17


# --------------------------------------------------------------------- 3.612, 3.6121


def test_3_6121_each_pass_of_3_612_starts_a_new_cg_date(users, modules):
    """3.6121: "Each passage of this RePh step represents the start of a new CG Date":
    passing 3.612 moves the campaign to the next date, and an Idle result (3.6212 note
    2) brings it back to 3.612, which starts the date after."""
    players, module = campaign_at("sicily", "i", "jul14pm", users, kind="initiative")
    c = players.campaign
    assert module.dates[c.date_index].id == "jul14pm"
    players.chits(axis="idle", british="idle")
    assert players.step.id > "3.612"  # passed 3.612 (the steps after it pass by themselves)
    assert module.dates[players.campaign.date_index].id == "jul14n"


# --------------------------------------------------------------------- 3.617, 3.618


def test_3_617_rgs_bought_secretly_and_the_cpp_spent_and_left(users, modules, login):
    """3.617 (and its repetition numbered 3.618): "Each player now secretly allots CPP
    ... All CPP expended are subtracted from the current CPP total.  The CPP expended,
    those remaining, and the RG(s) purchased may all be kept secret ... record its ID
    (and the CPP expended) in the 'RG Purchased' column ... write the total CPP
    expended in the 'spent' column ... the number of CPP remaining ... in the 'Left'
    column.  Any CPP remaining may be used to purchase further RG in any subsequent
    RePh": the Roster's line shows its owner the RGs, the CPP spent and left; the
    opponent sees none of it; the CPP left are there at the next date's 3.617."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=60)
    buy(players, "british", "V6")
    buy(players, "british", "V5")
    assert points(players, "british") == 60 - 5 - 4
    mine = roster_of(players.campaign, "british").lines[-1].sides[1]
    assert mine.rgs == ["V6 (5)", "V5 (4)"] and mine.spent == 9
    theirs = roster_of(players.campaign, "axis").lines[-1].sides[1]
    assert theirs.rgs == [] and theirs.spent is None and theirs.left is None
    html = login(players.users["axis"]).get(f"/campaigns/{players.campaign_id}/roster/")
    assert "AC Pltn" not in html.content.decode()
    steps.finish_step(campaign_id=players.campaign_id, user=players.users["british"])
    steps.finish_step(campaign_id=players.campaign_id, user=players.users["axis"])
    players.until("initiative")
    players.chits(axis="idle", british="idle")
    players.until("purchase")
    # 3.616 added the July 15 AM base (80) to the 51 CPP left (no CVP lost).
    assert points(players, "british") == 51 + 80


def test_3_617_chart_rows_printed_cost_date_and_cg_maximum(users, modules):
    """3.617 chart rows; 3.6175 "Lists the CPP cost of the RG (regardless of its
    later-determined Strength).  This is the number of CPP that must be subtracted";
    3.6176/3.6177 the CG Date Max and CG Max columns (their definitions are cut in the
    OCR): the British V5 AC Pltn I (4 CPP, Date Max 3, CG I Max 3) costs its printed 4
    CPP three times on July 14 Night, a fourth is refused by its Date Max; the Axis G4
    (10 CPP, Date Max 1, CG I Max 1) once in the CG, whatever its strength."""
    players, _ = campaign_at("sicily", "i", "jul14n", users)
    for _ in range(3):
        assert buy(players, "british", "V5").cost == 4
    assert points(players, "british") == 200 - 12
    with pytest.raises(ActionRefused, match=r"CG date maximum is reached \(3 of 3"):
        buy(players, "british", "V5")
    g4 = buy(players, "axis", "G4")
    assert g4.cost == 10
    make_rolls(players, "axis", g4)
    assert Purchase.objects.get(pk=g4.pk).cost == 10  # regardless of its Strength
    players.until("initiative")
    players.chits(axis="idle", british="idle")
    players.until("purchase")
    with pytest.raises(ActionRefused, match=r"CG maximum is reached \(1 of 1"):
        buy(players, "axis", "G4")


def test_3_617_british_footnote_s_and_d_several_unit_types_and_hs(users, modules, fixed_dice):
    """3.617 British chart footnote s: "If depleted 1 less of each squad type is
    received" (I1 "4-5-8;4-5-7;4-4-7 (4/3 each)"); footnote d: "Each MMG and HMG is
    accompanied by a 2-4-8 HS" (I5 MG Pltn)."""
    players, _ = campaign_at("sicily", "i", "jul14n", users)
    i1, i5 = buy(players, "british", "I1"), buy(players, "british", "I5")
    fixed_dice.extend([[6, 6], [3, 3], [2, 2]])  # I1 Depleted; its leader; I5 Full
    make_rolls(players, "british", i1)
    make_rolls(players, "british", i5)
    i1_units = dict(Unit.objects.filter(purchase=i1, kind="squad").values_list("name", "count"))
    assert sorted(i1_units.values()) == [3, 3, 3], i1_units
    hs = Unit.objects.filter(purchase=i5, kind="half_squad")
    assert sum(hs.values_list("count", flat=True)) == 4
    assert all("2-4-8" in n for n in hs.values_list("name", flat=True))


def test_3_6179_record_line_id_type_strength_units_and_counts(users, modules, fixed_dice):
    """3.6171 ID, 3.6172 Group Type, 3.6173 Full/Depl, 3.6179 the RG Purchase Record:
    "One line ... for each RG purchased in order to keep track of the number purchased
    thus far in the CG"; #P, #R ("subtracting the number in that RG's #P column from the
    number listed in the Maximum column"), Str ("F" or "D"), #Units."""
    players, _ = campaign_at("sicily", "i", "jul14n", users)
    first = buy(players, "british", "V6")
    fixed_dice.extend([[6, 6]])  # a DR of 12: Depleted (3.6181)
    make_rolls(players, "british", first)
    view = roster_of(players.campaign, "british")
    (line,) = [r for r in view.record if r.group_id == "V6"]
    assert (line.group_id, line.group_type) == ("V6", "AC Pltn II")
    assert (line.number_purchased, line.number_remaining) == (1, "0")
    assert line.strength == "D" and line.units == 2


# --------------------------------------------------------------------- 3.621-3.623


def test_3_621_each_side_selects_attack_or_idle_revealed_together(users, modules):
    """3.621: "Each side selects its Initiative for the current CG Date, either to
    'Attack' or stand 'Idle'"; anything else is refused.  3.6212: each chit is placed
    secretly and both "are then revealed simultaneously and cross-indexed": one locked
    chit reveals nothing; the second reveals both and gives the matrix result."""
    players, _ = campaign_at("sicily", "i", "jul14pm", users, kind="initiative")
    keep_retained_units(players)
    with pytest.raises(ActionRefused):
        initiative.lock_initiative(
            campaign_id=players.campaign_id, user=players.users["axis"], chit="assault"
        )
    players.chits(axis="attack")
    assert not InitiativeOutcome.objects.filter(campaign_id=players.campaign_id).exists()
    players.chits(british="idle")
    assert outcome_of(players).result == "axis_attack"


def test_3_6213b_night_dual_attack_both_sides_attack(users, modules):
    """3.6213b: "If both sides choose Attack for a Night CG Date, both are considered
    Scenario Attackers": on July 14 Night two Attack chits give the Night Dual Attack."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, kind="initiative")
    keep_retained_units(players)
    players.chits(axis="attack", british="attack")
    outcome = outcome_of(players)
    assert outcome.label == "Night Dual Attack"
    assert set(outcome.attackers) == {"axis", "british"}


def test_3_6214_no_scenario_is_won_or_lost(users, modules):
    """3.6214: "each individual CG Scenario does not have Victory Conditions ... Neither
    side 'wins' or 'loses' a CG scenario, only the CG itself": the result step asks for
    CVP and SAN (and the control answers of 3.60741-3.60742; 3.6175's British Setup
    Area is read from the 3.605 list), no VP, and the campaign
    names no scenario winner."""
    players, module = campaign_at("sicily", "i", "jul14pm", users)
    assert {f.id for f in module.result_fields} == {
        "cvp_lost",
        "san",
        "british_withdrawal",
        "british_control_north",
    }
    assert module.scenario_winner is None
    assert not any(s.effect == "record_winner" for s in module.steps)
    assert set(
        ScenarioResult.objects.filter(campaign_id=players.campaign_id).values_list(
            "winner", flat=True
        )
    ) == {""}


def test_3_623_each_side_announces_its_current_san_and_an_assault(users, modules):
    """3.623: "Each side announces its current SAN.  If this is an Assault scenario, the
    side setting up second always moves first": the scenario sheet gives each side its
    SAN; in a British Assault (3.6213d) the Axis sets up first and the British move
    first."""
    players, _ = campaign_at("sicily", "i", "jul14pm", users, kind="initiative")
    Seat.objects.filter(campaign_id=players.campaign_id, side="axis").update(san=3)
    players.chits(axis="idle", british="attack")
    sheet = scenario_sheet(players.campaign, "axis")
    assert sheet.san == 3
    said = " ".join(sheet.initiative)
    assert "Axis sets up first." in said and "British moves first." in said


# --------------------------------------------------------------------- Isolated drm


def test_3_610_3_6141b_3_6141d_isolated_drm_applies_by_itself(users, modules, fixed_dice):
    """3.610 "+1 if Isolated", 3.6141b "+1 if Isolated", 3.6141d "+1 if Isolated":
    a unit marked Isolated on the retained forces gets the +1 on each of these drs
    without a tick; one not Isolated does not."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.610")
    leader = add(players, "axis", "8-1 leader", "leader", "wounded", markers=["isolated"])
    fixed_dice.extend([[1]])
    r = roll(players, "axis", "wounded_leaders", leader)
    assert r.final == 2 and "if Isolated" in str(r.drms)
    players.until_step("3.614")
    stuck = add(players, "axis", "StuG IIIG", "vehicle", "immobilized", markers=["isolated"])
    stunned = add(players, "axis", "StuG IIIG", "vehicle", "stunned")
    fixed_dice.extend([[1], [1]])
    r = roll(players, "axis", "immobilization_repair", stuck)
    assert r.final == 2 and "if Isolated" in str(r.drms)
    r = roll(players, "axis", "stun_recovery", stunned)
    assert "if Isolated" not in str(r.drms)
