"""Issue 6: the computations against hand-worked examples from the rules."""

import pytest

from campaign.models import Event, Roll
from campaign.selectors import module_of
from campaign.services import supplements
from rules.errors import Refused
from tests.walk import host_game, players_of

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


def start(module_id, variant, make_user, host_side):
    alice, bob = make_user("alice"), make_user("bob")
    c = host_game(module_id, variant, alice, bob, side=host_side)
    return players_of(c, alice, bob), module_of(c)


def values(module, **cvp):
    out = {}
    for f in module.result_fields:
        for s in module.sides:
            out[f"{f.id}.{s.id}"] = (
                cvp.get(s.id, 0) if f.id == "cvp_lost" else (False if f.kind == "bool" else 2)
            )
    return out


def points(players, side):
    return players.campaign.seats.get(side=side).points


def test_3_616_cpp_is_base_plus_loss_points_dr(modules, make_user):
    """3.6161 July 14 PM base: Axis 29, British 12.  3.6162: the Axis lost 20 CVP, ≥ 2×
    and ≥ 8 more than the British 5, so the Axis adds a dr; the British do not."""
    players, module = start("sicily", "i", make_user, "axis")
    players.results(**values(module, axis=20, british=5))
    players.until("purchase")  # 3.616 is the server's: it passes for both by itself
    assert players.step.id == "3.617"
    assert Event.objects.filter(step_id="3.616", text__contains="passes 3.616").count() == 2
    dr = Roll.objects.get(purpose__startswith="CPP loss points")
    assert dr.side == "axis" and dr.dice == "dr" and dr.secret
    assert points(players, "axis") == 29 + dr.final
    assert points(players, "british") == 12
    text = Event.objects.get(kind="replenish", side="british").text
    assert "no loss points: lost 5 CVP vs 20" in text


def test_3_6162_loss_points_need_both_twice_and_eight_more(modules, make_user):
    """14 vs 7 CVP is twice but only 7 more: no dr (3.6162)."""
    players, module = start("sicily", "i", make_user, "axis")
    players.results(**values(module, axis=14, british=7))
    players.until("purchase")
    assert not Roll.objects.filter(purpose__startswith="CPP loss points").exists()
    assert points(players, "axis") == 29


def test_3_617_cpp_left_after_14_pm_are_lost(modules, make_user):
    """3.617 EXC: "Any CPP remaining after this step on the 14 PM date are lost": they
    go as the 14 PM purchase step ends (not a date later); July 14 N then gives only
    its base (Axis 42, British 4)."""
    players, module = start("sicily", "i", make_user, "axis")
    players.results(**values(module))
    players.until("purchase")
    assert module.dates[players.campaign.date_index].id == "jul14pm"
    assert points(players, "axis") == 29
    players.finish()
    assert players.step.kind != "purchase"
    assert points(players, "axis") == 0 and points(players, "british") == 0
    lost = Event.objects.get(kind="forfeit", side="axis", step_id="3.617")
    assert "29 unspent CPP lost after the purchase step of July 14 PM (3.617" in lost.text
    players.until("initiative")
    players.chits(axis="idle", british="idle")
    players.until("purchase")
    assert module.dates[players.campaign.date_index].id == "jul14n"
    assert points(players, "axis") == 42 and points(players, "british") == 4


def test_c4_2_initial_tp_come_from_the_ob_without_a_roll(modules, make_user):
    """C5.29 EXC / I5: no TP roll for the Initial Scenario; the OB gives 20 TP + 60 DSP
    (German) and 30 TP (US), SAN and ELR (C4.2); the start's steps come first, and
    unspent DSP are lost at its C5.35 (nothing carries them past the Initial Scenario)."""
    alice, bob = make_user("alice"), make_user("bob")
    c = host_game("purple-heart-draw", "tm", alice, bob, side="us", through_start=False)
    players, module = players_of(c, alice, bob), module_of(c)
    assert module.dates[c.date_index].initial and not c.in_play
    assert players.step.id == "I-C5.12"  # control before the Initial TM Scenario
    players.until_step("I-C5.31")
    german, us = c.seats.get(side="german"), c.seats.get(side="us")
    assert (german.points, german.fortification_points, us.points) == (20, 60, 30)
    assert (german.san, german.elr, us.san, us.elr) == (3, 3, 2, 4)
    while players.step.start:
        players.finish()
    c = players.campaign
    assert c.in_play and players.step.id == "C5.1"
    assert points(players, "german") == 20 and points(players, "us") == 30
    assert c.seats.get(side="german").fortification_points == 0  # C5.35: unspent DSP lost
    assert not Roll.objects.exists()
    assert "German sets up first. American moves first." in Event.objects.get(kind="scenario").text


def test_c5_29_tp_replenishment_dr_with_its_drms(modules, make_user):
    """C5.29: a DR on the TP table, −1 per 10 CVP (FRD) lost in the previous scenario;
    the US reads the US column.  25 CVP lost → −2.  Rules: C1.2, C5.1, C5.20."""
    players, module = start("purple-heart-draw", "tm", make_user, "us")
    players.results(**values(module, us=25, german=9))
    players.until("purchase")
    table = module.table("tp_replenishment")
    us_roll = Roll.objects.get(side="us", table_id="tp_replenishment")
    german_roll = Roll.objects.get(side="german", table_id="tp_replenishment")
    assert us_roll.drms == [{"label": us_roll.drms[0]["label"], "value": -2, "how": "auto"}]
    assert german_roll.drms == []  # 9 CVP: FRD(9/10) = 0
    assert us_roll.final == sum(us_roll.faces) - 2
    gained_us = int(table.lookup(us_roll.final).results["US"].lstrip("+"))
    gained_german = int(table.lookup(german_roll.final).results["German"].lstrip("+"))
    assert points(players, "us") == 30 + gained_us
    assert points(players, "german") == 20 + gained_german


def test_c5_29_attack_in_the_previous_scenario_adds_one(modules, make_user):
    players, module = start("purple-heart-draw", "tm", make_user, "us")
    players.results(**values(module))
    players.until("initiative")
    players.chits(us="attack", german="idle")
    players.until("results")
    players.results(**values(module))
    players.until("purchase")
    roll = Roll.objects.filter(side="us", table_id="tp_replenishment").last()
    assert [d["value"] for d in roll.drms] == [1]
    german = Roll.objects.filter(side="german", table_id="tp_replenishment").last()
    assert german.drms == []


def test_c5_29_after_a_lull_the_previous_scenario_cost_no_cvp(modules, make_user):
    """C2.0: "Lull: A TM Scenario in which neither side has requisitioned an attack
    option"; C5.29: "-1 per 10 CVP (FRD) suffered ... in the previous TM Scenario".
    After a Lull the previous TM Scenario is the Lull, in which nothing was lost: the
    25 CVP of the scenario played before it count no more."""
    players, module = start("purple-heart-draw", "tm", make_user, "us")
    players.results(**values(module, us=25, german=9))
    players.until("initiative")  # 0930: its TP roll counts the 25 CVP (-2)
    assert [d["value"] for d in Roll.objects.get(side="us", table_id="tp_replenishment").drms] == [
        -2
    ]
    players.chits(us="idle", german="idle")  # a Lull: the 0930 scenario is not played
    players.until("initiative")
    after_lull = Roll.objects.filter(side="us", table_id="tp_replenishment").last()
    assert module.dates[players.campaign.date_index].id == "t1230"
    assert after_lull.drms == []


def pd_result(vp, cvp_american, cvp_german=5, buildings=False):
    return {
        "vp.american": vp,
        "cvp_lost.american": cvp_american,
        "cvp_lost.german": cvp_german,
        "cgv_buildings.american": buildings,
        "cgv_scenario.american": buildings,
    }


def test_2_92_worked_example_gives_33_purchase_points(modules, make_user):
    """2.91-2.92 EX: 55 required − 63 scored = −8; + 41 CVP suffered = 33."""
    players, module = start("pleasant-diversion", "cg", make_user, "american")
    players.results(**pd_result(vp=63, cvp_american=41))
    players.until("purchase")
    assert points(players, "american") == 33
    text = Event.objects.get(kind="replenish", side="american").text
    assert "55 required − 63 amassed = -8" in text and "-8 + 41 CVP suffered = 33" in text
    assert points(players, "german") == 0


def supply_midday_vp(players, vp: int) -> None:
    """The VP required to win the Midday scenario are not in the rules text: the German
    supplies them, the American accepts."""
    proposal = supplements.propose_supplement(
        campaign_id=players.campaign_id,
        user=players.users["german"],
        path="dates.dec6midday.vp_required",
        form={"value": str(vp)},
    )
    supplements.accept_supplement(
        campaign_id=players.campaign_id, user=players.users["american"], ref=proposal.ref
    )


def test_3_4_unused_purchase_points_are_retained(modules, make_user):
    players, module = start("pleasant-diversion", "cg", make_user, "american")
    players.results(**pd_result(vp=63, cvp_american=41))
    players.until("results")  # 4.0 (commence) passes by itself into the next scenario
    supply_midday_vp(players, 70)
    players.results(**pd_result(vp=10, cvp_american=4))
    players.until("purchase")
    # 2.91: 70 required − 73 amassed = −3; 2.92: −3 + 45 CVP suffered in the CG = 42,
    # added to the 33 retained (3.4) from the Morning.
    assert points(players, "american") == 33 + 42
    text = Event.objects.filter(kind="replenish", side="american").last().text
    assert "70 required − 73 amassed = -3" in text and "-3 + 45 CVP suffered = 42" in text


def test_2_91_the_midday_points_wait_for_the_vp_it_required(modules, make_user):
    """The Midday scenario's VP required are missing from the rules text: its 2.92
    cannot be computed, so the step that leads into it is refused with a sentence and
    nothing changes — no silent 0; once supplied and accepted, it goes on."""
    players, module = start("pleasant-diversion", "cg", make_user, "american")
    players.results(**pd_result(vp=63, cvp_american=41))
    players.until("results")
    players.results(**pd_result(vp=10, cvp_american=4))
    with pytest.raises(Refused, match="VP required to win the December 6 Midday") as refused:
        players.until("purchase")
    assert refused.value.status == 409
    assert points(players, "american") == 33
    assert Event.objects.filter(kind="replenish", side="american").count() == 1  # the Morning's
    supply_midday_vp(players, 70)
    players.until("purchase")
    assert points(players, "american") == 33 + 42


def test_pleasant_diversion_walks_to_its_end_and_names_the_winner(modules, make_user):
    """CG VC: the American wins at once with ≥ 150 VP, provided the Germans have not
    amassed ≥ 105 CVP."""
    players, module = start("pleasant-diversion", "cg", make_user, "american")
    players.results(**pd_result(vp=63, cvp_american=41))
    players.until("results")
    assert module.dates[players.campaign.date_index].id == "dec6midday"
    players.results(**pd_result(vp=90, cvp_american=20))
    # The CG VC read the result once the Clean-Up's losses are in it, at 2.9 (2.: "CVP
    # are recorded normally throughout this phase").
    assert players.campaign.ended_at is None
    players.until_step("2.9")
    c = players.campaign
    assert c.ended_at is not None
    assert "American wins the CG" in c.outcome


def test_pleasant_diversion_german_wins_after_the_last_date(modules, make_user):
    players, module = start("pleasant-diversion", "cg", make_user, "american")
    supply_midday_vp(players, 110)
    for vp in (20, 20):
        players.results(**pd_result(vp=vp, cvp_american=60))
        players.until("results")
    players.results(**pd_result(vp=20, cvp_american=60))
    c = players.campaign
    assert c.ended_at is not None and "German wins" in c.outcome


def test_cg_vc_the_log_says_when_105_cvp_rule_out_an_american_cg_win(modules, make_user):
    """CG VC: "Provided the Germans have not amassed >= 105 CVP": once the American has
    lost 105 CVP, both players are told the American can no longer win the CG."""
    players, module = start("pleasant-diversion", "cg", make_user, "american")
    players.results(**pd_result(vp=63, cvp_american=110))
    players.until("results")  # through 2.9, which reads the result with the Clean-Up's
    said = [e.text for e in Event.objects.filter(campaign_id=players.campaign_id)]
    assert any("American can no longer win the CG by its victory conditions" in t for t in said)
