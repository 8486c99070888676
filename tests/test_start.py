"""Issue 15: every CG variant starts where its CG starts, before its Initial Scenario."""

from __future__ import annotations

import copy
import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from pydantic import ValidationError

from campaign.models import (
    Campaign,
    Event,
    InitiativeChit,
    InitiativeOutcome,
    ModuleRecord,
    Purchase,
    Roll,
    Seat,
    Supplement,
    Unit,
)
from campaign.seat_views.supplements import supply_form
from campaign.selectors import module_of
from campaign.services import purchases, supplements
from campaign.services.backup import export_campaign, import_campaign
from rules import machine
from rules.errors import Refused
from rules.schema import Module
from rules.supply import SupplyProblems
from tests.walk import host_game, players_of

pytestmark = pytest.mark.django_db


def _points(c) -> dict[str, int]:
    return dict(Seat.objects.filter(campaign=c).values_list("side", "points"))


@pytest.mark.parametrize(
    "variant,initial,first_refit",
    [("i", "jul14am", "jul14pm"), ("ii", "jul14n", "jul15am"), ("iii", "jul14am", "jul14pm")],
)
@pytest.mark.rules  # the embedded run leaves it out (make test-embedded)
def test_3_51_to_3_53_each_sicily_cg_starts_before_its_initial_scenario(
    modules, make_user, variant, initial, first_refit
):
    """3.51-3.53 (not in the seed): each CG opens at its Initial Scenario's date with the
    start steps of 3.617-3.619 (purchases with the initial CPP, their secret rolls,
    fortifications), never Recon (3.620) nor a chit (3.6211) before an Initial Scenario;
    the CPP left carry into the first Refit Phase with the new date's base (3.616)."""
    axis, british = make_user("axis_p"), make_user("brit_p")
    c = host_game("sicily", variant, axis, british, side="axis", through_start=False)
    players, module = players_of(c, axis, british), module_of(c)
    assert players.step.id == "I-3.617" and not c.in_play
    assert module.dates[c.date_index].id == initial == module.variant(variant).start_date
    start_kinds = [s.kind for s in module.steps if s.start]
    assert start_kinds == ["purchase", "strength", "fortify"]  # no recon, no initiative
    assert _points(c) == {"axis": 0, "british": 0}  # nothing until the CPP are supplied
    proposal = supplements.propose_supplement(
        campaign_id=c.pk,
        user=british,
        path=f"variants.{variant}.start.points",
        form={"value.axis": "39", "value.british": "17"},
    )
    supplements.accept_supplement(campaign_id=c.pk, user=axis, ref=proposal.ref)
    bought = purchases.purchase_rg(campaign_id=c.pk, user=axis, group_id="M1")
    assert _points(c) == {"axis": 39 - bought.cost, "british": 17}
    while players.step.start:
        players.finish()
    c = players.campaign
    assert c.in_play and module.dates[c.date_index].id == initial
    assert not InitiativeChit.objects.filter(campaign=c).exists()
    assert Purchase.objects.get(campaign=c).date_index == c.date_index
    players.results(
        **{
            f"{f.id}.{s.id}": (False if f.kind == "bool" else (0 if f.id == "cvp_lost" else 2))
            for f in module.result_fields
            for s in module.sides
        }
    )
    players.until("purchase")
    c = players.campaign
    date = module.dates[c.date_index]
    assert date.id == first_refit
    base = date.base_points or {}
    assert _points(c) == {
        "axis": 39 - bought.cost + base["axis"],
        "british": 17 + base["british"],
    }


# --------------------------------------------------------------------------- issue 15 acceptance
#
# For each system and each CG variant: the start-phase state against the rules (points
# per side, the OB on the RG Purchase Record with its strength rolls recorded and not
# counted toward the limits, SAN/ELR, no Recon, no chit, no Lull), then the first
# between-scenario phase: the initial points spent, carried or lost as the rules say.


def _supply(players, side: str, path: str, form: dict[str, str]) -> None:
    """``side`` proposes the datum the rules lack; its opponent accepts it."""
    proposal = supplements.propose_supplement(
        campaign_id=players.campaign_id, user=players.users[side], path=path, form=form
    )
    other = next(s for s in players.users if s != side)
    supplements.accept_supplement(
        campaign_id=players.campaign_id, user=players.users[other], ref=proposal.ref
    )


def _seats(c) -> dict[str, Seat]:
    return {s.side: s for s in Seat.objects.filter(campaign=c)}


def _buy(players, side: str, group_id: str):
    return purchases.purchase_rg(
        campaign_id=players.campaign_id, user=players.users[side], group_id=group_id
    )


def _ob_lines(c, side: str) -> list[Purchase]:
    return list(Purchase.objects.filter(campaign=c, side=side, initial=True))


def _rolled_on(line: Purchase, table_id: str) -> list[Roll]:
    """The secret rolls a Purchase Record line made on ``table_id``."""
    seqs = [r["roll"] for r in line.details.get("rolls", []) if "roll" in r]
    return list(Roll.objects.filter(campaign_id=line.campaign_id, seq__in=seqs, table_id=table_id))


def _no_recon_nor_chit_before_the_initial_scenario(players, module) -> None:
    """The start has no Recon and no initiative step; once the Initial Scenario is in
    play no chit was locked, none counts as an Attack chit, and no Initiative result
    (Idle date, Lull) was drawn: the CG fixes the Initial Scenario."""
    assert not {s.kind for s in module.steps if s.start} & {"recon", "initiative"}
    c = players.campaign
    assert c.in_play and players.step.kind == "results"
    assert not InitiativeChit.objects.filter(campaign=c).exists()
    assert not InitiativeOutcome.objects.filter(campaign=c).exists()
    assert {s.attack_chits_used for s in _seats(c).values()} == {0}
    if machine.has_start(module):
        text = Event.objects.get(campaign=c, kind="scenario").text
        assert text.startswith(f"The Initial Scenario ({module.dates[c.date_index].label})")


def _results(module, **given) -> dict[str, object]:
    """Every result field, ``given`` ("cvp_lost.axis": 5) or a neutral value."""
    out: dict[str, object] = {}
    for f in module.result_fields:
        for s in module.sides:
            key = f"{f.id}.{s.id}"
            out[key] = given.get(
                key, False if f.kind == "bool" else (0 if f.id == "cvp_lost" else 2)
            )
    return out


@pytest.mark.parametrize(
    "variant,initial,first_refit,ob,limited,lost_after_3617",
    [
        # Axis I5 Alert Infantry Coy: Date Max 2, CG I Max 2; British I2 Airborne Pltn.
        ("i", "jul14am", "jul14pm", {"axis": "I5", "british": "I2"}, ("I5", 2), True),
        # Axis V1 StuG Pltn: Date Max 1, CG II Max 2; British I3 Lgt Inf Assault Pltn.
        ("ii", "jul14n", "jul15am", {"axis": "V1", "british": "I3"}, ("V1", 1), False),
        # Axis I5: Date Max 2, CG III Max 2; British I2.
        ("iii", "jul14am", "jul14pm", {"axis": "I5", "british": "I2"}, ("I5", 2), True),
    ],
)
@pytest.mark.rules  # the embedded run leaves it out (make test-embedded)
def test_3_51_to_3_53_start_state_and_the_first_refit_phase(
    modules, make_user, variant, initial, first_refit, ob, limited, lost_after_3617
):
    """Sicily CG I-III.  3.51-3.53 are not in the seed, so the players supply the
    initial CPP/FPP, the OB, SAN, ELR and the Attack-chit limits.  The OB's RGs get a
    line each on the RG Purchase Record that does not count toward the limits (3.6179):
    the Axis still buys its OB RG up to the chart's maxima (3.6176-.6177).  Each I/V/G RG
    of the OB gets one secret RG Strength DR at the start's 3.618 (3.6181).  FPP unspent
    at 3.619 are forfeit; no Recon before an Initial Scenario (3.620); no chit is
    chosen for it and none counts as an Attack chit (3.6211).  In the first Refit Phase
    the CPP left are carried and the new date's CPP Base # is added (3.616, 3.6161; no
    3.6162 dr with equal CVP); those left after 3.617 on July 14 PM are lost (3.617
    EXC)."""
    axis, british = make_user("axis_p"), make_user("brit_p")
    c = host_game("sicily", variant, axis, british, side="axis", through_start=False)
    players, module = players_of(c, axis, british), module_of(c)
    assert players.step.id == "I-3.617" and module.dates[c.date_index].id == initial
    start = f"variants.{variant}"
    _supply(
        players, "british", f"{start}.start.points", {"value.axis": "40", "value.british": "20"}
    )
    _supply(
        players,
        "axis",
        f"{start}.start.fortification_points",
        {"value.axis": "6", "value.british": "3"},
    )
    _supply(players, "axis", f"{start}.start.san", {"value.axis": "3", "value.british": "2"})
    _supply(players, "british", f"{start}.start.elr", {"value.axis": "4", "value.british": "3"})
    _supply(players, "axis", f"{start}.attack_chits", {"value.axis": "3", "value.british": "2"})
    _supply(
        players,
        "british",
        f"{start}.start.ob",
        {"rgs.axis": ob["axis"], "rgs.british": ob["british"]},
    )
    c = players.campaign
    seats = _seats(c)
    assert {s: (x.points, x.fortification_points) for s, x in seats.items()} == {
        "axis": (40, 6),
        "british": (20, 3),
    }
    assert {s: (x.san, x.elr) for s, x in seats.items()} == {"axis": (3, 4), "british": (2, 3)}
    for side, gid in ob.items():
        [line] = _ob_lines(c, side)
        assert (line.group_id, line.cost, line.date_index) == (gid, 0, c.date_index)
        assert line.rolled_at is None and not Roll.objects.filter(campaign=c).exists()
    gid, limit = limited
    group = next(g for g in module.chart("axis").groups if g.id == gid)
    assert limit == min(group.date_max or limit, group.cg_max[variant])
    bought = [_buy(players, "axis", gid) for _ in range(limit)]
    with pytest.raises(Refused, match="maximum is reached"):
        _buy(players, "axis", gid)
    spent = sum(p.cost for p in bought)
    assert spent == limit * group.cost and _points(players.campaign)["axis"] == 40 - spent
    players.finish()  # I-3.617
    assert players.step.id == "I-3.618"
    players.finish()  # I-3.618: the secret rolls of the OB and of the purchases
    c = players.campaign
    for side in ob:
        [line] = _ob_lines(c, side)
        assert line.rolled_at is not None and line.strength in ("full", "depleted")
        [roll] = _rolled_on(line, "rg_strength")
        assert roll.secret and roll.side == side and roll.step_id == "I-3.618"
    assert all(_rolled_on(Purchase.objects.get(pk=p.pk), "rg_strength") for p in bought)
    players.finish()  # I-3.619: unspent FPP are forfeit
    _no_recon_nor_chit_before_the_initial_scenario(players, module)
    c = players.campaign
    assert module.dates[c.date_index].id == initial
    assert {s: x.fortification_points for s, x in _seats(c).items()} == {"axis": 0, "british": 0}
    players.results(**_results(module))
    players.until("purchase")
    c = players.campaign
    assert players.step.id == "3.617" and module.dates[c.date_index].id == first_refit
    base = module.dates[c.date_index].base_points or {}
    assert _points(c) == {"axis": 40 - spent + base["axis"], "british": 20 + base["british"]}
    assert {s.attack_chits_used for s in _seats(c).values()} == {0}
    players.finish()  # 3.617 ends
    expected = {"axis": 0, "british": 0} if lost_after_3617 else _points(c)
    assert _points(players.campaign) == expected


@pytest.mark.rules  # the embedded run leaves it out (make test-embedded)
def test_c4_2_start_state_and_the_first_conph(modules, make_user):
    """Purple Heart Draw TM.  C4.2 gives German 20 TP and 60 DSP, US 30 TP, SAN and ELR;
    its OB names the RGs (Gren Pl x 2, Rifle Pl x 2) whose IDs are on the lost charts
    (C5.31): the OB is supplied from its printed text once the charts are.  OB-given RGs
    never count against Scen Max / TM Max (C5.31), and each OB-given I RG with footnote l
    gets its secret Leader Table DR (C5.33).  Unspent DSP are lost (C5.35).  No Recon
    before the Initial TM Scenario (C5.36c), no chit: C4.2 fixes a US Attack, never a
    Lull (C2.0).  No TP roll for it (C5.29 EXC, I5); after it the TP rolled are added to
    the TP left (C5.29)."""
    us, german = make_user("us_p"), make_user("german_p")
    c = host_game("purple-heart-draw", "tm", us, german, side="us", through_start=False)
    players, module = players_of(c, us, german), module_of(c)
    assert players.step.id == "I-C5.12"  # control before the Initial TM Scenario
    players.until_step("I-C5.31")
    seats = _seats(c)
    assert {s: (x.points, x.fortification_points) for s, x in seats.items()} == {
        "german": (20, 60),
        "us": (30, 0),
    }
    assert {s: (x.san, x.elr) for s, x in seats.items()} == {"german": (3, 3), "us": (2, 4)}
    path = "variants.tm.start.ob"
    printed = module.variant("tm").start.ob
    form = {f.name: f.value for f in supply_form(c, module, path).fields}
    assert form == {
        **{f"text.{s}": printed[s].text for s in ("german", "us")},
        **{f"{k}.{s}": "" for k in ("rgs", "units") for s in ("german", "us")},
    }
    ob_form = {**form, "rgs.german": "I1, I1", "rgs.us": "I1, I1"}  # x 2 each (C4.2)
    with pytest.raises(SupplyProblems, match="no RG 'I1'"):  # the charts come first
        supplements.propose_supplement(campaign_id=c.pk, user=us, path=path, form=ob_form)
    chart = {
        "row-0-id": "I1",
        "row-0-full": "3",
        "row-0-depleted": "2",
        "row-0-cost": "8",
        "row-0-date_max": "2",
        "row-0-cg_max-tm": "2",
        "row-0-footnotes": "l",
    }
    _supply(
        players,
        "us",
        "rg_charts.us",
        {**chart, "row-0-type": "Rifle Pl", "row-0-units": "3 x 6-6-6"},
    )
    _supply(
        players,
        "german",
        "rg_charts.german",
        {**chart, "row-0-type": "Gren Pl", "row-0-units": "3 x 4-6-7"},
    )
    leader_rows = {
        "row-0-range": "≤6",
        "row-0-result": "No leader",
        "row-0-effect": "none",
        "row-1-range": "≥7",
        "row-1-result": "8-1",
        "row-1-effect": "none",
    }
    _supply(players, "german", "tables.leader_table", leader_rows)
    _supply(players, "german", path, ob_form)
    c = players.campaign
    assert module_of(c).variant("tm").start.ob["us"].text == printed["us"].text
    for side in ("german", "us"):
        lines = _ob_lines(c, side)
        assert [(p.group_id, p.cost, p.date_index) for p in lines] == [("I1", 0, c.date_index)] * 2
    bought = [_buy(players, "us", "I1") for _ in range(2)]  # Scen Max 2, TM Max 2
    with pytest.raises(Refused, match="the TM Max is reached"):
        _buy(players, "us", "I1")
    assert _points(players.campaign) == {"german": 20, "us": 30 - 2 * 8}
    assert not Roll.objects.filter(campaign=c).exists()
    players.finish()  # I-C5.31
    assert players.step.id == "I-C5.33"
    players.finish()  # I-C5.33: the Leader Table DRs
    c = players.campaign
    for side in ("german", "us"):
        for line in _ob_lines(c, side):
            assert line.rolled_at is not None
            [roll] = _rolled_on(line, "leader_table")
            assert roll.secret and roll.side == side and roll.step_id == "I-C5.33"
    assert all(_rolled_on(Purchase.objects.get(pk=p.pk), "leader_table") for p in bought)
    assert players.step.id == "I-C5.34"
    players.finish()  # I-C5.34: the OBA DRs (no OBA module requisitioned)
    players.finish()  # I-C5.35: the German's 60 DSP, unspent, are lost
    if players.step.id == "I-TM20":  # the US Gyrostabilizer drs (none: no Sherman)
        players.finish()
    _no_recon_nor_chit_before_the_initial_scenario(players, module)
    c = players.campaign
    assert players.step.id == "C5.1"
    assert {s: x.fortification_points for s, x in _seats(c).items()} == {"german": 0, "us": 0}
    assert "German sets up first. American moves first." in (
        Event.objects.get(campaign=c, kind="scenario").text
    )
    assert not Roll.objects.filter(campaign=c, table_id="tp_replenishment").exists()
    players.results(**_results(module, **{"san.german": 3}))
    players.until("purchase")
    c = players.campaign
    assert players.step.id == "C5.31" and module.dates[c.date_index].id == "t0930"
    table = module.table("tp_replenishment")
    gained = {}
    for side, column in (("german", "German"), ("us", "US")):
        roll = Roll.objects.get(campaign=c, side=side, table_id="tp_replenishment")
        assert roll.drms == []  # no CVP lost, no Attack chit chosen before (C5.29)
        gained[side] = int(table.lookup(roll.final).results[column])
    assert _points(c) == {"german": 20 + gained["german"], "us": 14 + gained["us"]}
    assert {s: x.fortification_points for s, x in _seats(c).items()} == {"german": 0, "us": 0}


def _apd_with_chart(make_user):
    """A Pleasant Diversion hosted by the American, with his Reinforcement Table
    supplied (3.4: not in the seed) and accepted."""
    american, german = make_user("us_p"), make_user("german_p")
    c = host_game("pleasant-diversion", "cg", american, german, side="american")
    players = players_of(c, american, german)
    _supply(
        players,
        "american",
        "rg_charts.american",
        {
            "row-0-id": "A1",
            "row-0-type": "Armored Infantry Platoon",
            "row-0-units": "4 x 6-6-6",
            "row-0-cost": "10",
            "row-0-date_max": "2",
            "row-0-tags": "armored_infantry",
        },
    )
    return players


@pytest.mark.rules  # the embedded run leaves it out (make test-embedded)
def test_1_2_start_state_and_the_first_clean_up(modules, make_user):
    """A Pleasant Diversion.  1.2: the CG begins by playing SG1 as the Morning Scenario;
    nothing of the between-scenario sequence comes before it (no purchase, no roll, no
    Recon; the system has no chits), and no Purchase Points are given (the American
    receives his first in 2.92, the German none, 3.5).  SG1 is not in the seed: the
    players supply its OB, SAN and ELR; an RG of the OB is on the record and does not
    count toward the scenario maximum of 3.4.  After SG1: PP = VP required − VP scored
    + CVP suffered (2.91-2.92 EX: 55 − 63 + 41 = 33); nothing is carried from the start."""
    players = _apd_with_chart(make_user)
    c, module = players.campaign, module_of(players.campaign)
    assert not machine.has_start(module) and players.step.id == "1.2"
    assert _points(c) == {"american": 0, "german": 0}
    _supply(
        players,
        "german",
        "variants.cg.start.ob",
        {
            "rgs.american": "A1",
            "units.american": "8-1 leader",
            "text.american": "SG1 American OB",
            "units.german": "6 x 4-6-7\n9-1 leader",
        },
    )
    _supply(
        players, "american", "variants.cg.start.san", {"value.american": "3", "value.german": "4"}
    )
    _supply(
        players, "german", "variants.cg.start.elr", {"value.american": "4", "value.german": "3"}
    )
    c = players.campaign
    assert {s: (x.points, x.san, x.elr) for s, x in _seats(c).items()} == {
        "american": (0, 3, 4),
        "german": (0, 4, 3),
    }
    [line] = _ob_lines(c, "american")
    assert (line.group_id, line.cost, line.date_index) == ("A1", 0, c.date_index)
    assert not _ob_lines(c, "german")
    # Each OB line joins as the units it lists (ASL notation read: squads, leaders).
    assert sorted(Unit.objects.filter(campaign=c).values_list("side", "name", "kind", "count")) == [
        ("american", "8-1 leader", "leader", 1),
        ("german", "4-6-7", "squad", 6),
        ("german", "9-1 leader", "leader", 1),
    ]
    _no_recon_nor_chit_before_the_initial_scenario(players, module)
    assert not Roll.objects.filter(campaign=c).exists()
    players.results(
        **_results(
            module,
            **{"vp.american": 63, "cvp_lost.american": 41, "cvp_lost.german": 5, "san.german": 3},
        )
    )
    players.until("purchase")
    c = players.campaign
    assert players.step.id == "3.4" and module.dates[c.date_index].id == "dec6midday"
    assert _points(c) == {"american": 55 - 63 + 41, "german": 0}
    bought = [_buy(players, "american", "A1") for _ in range(2)]  # its scenario maximum
    with pytest.raises(Refused, match="maximum is reached"):
        _buy(players, "american", "A1")
    assert Purchase.objects.filter(campaign=c, group_id="A1").count() == 3  # OB line + 2
    assert _points(players.campaign)["american"] == 33 - sum(p.cost for p in bought)


def test_an_amended_ob_takes_off_what_it_no_longer_lists(modules, make_user):
    """An OB supplied, accepted, then amended before the Initial Scenario ends: the RG
    the amendment drops leaves the RG Purchase Record (its line cancelled, not deleted:
    the record of what happened stays), a dropped unit leaves the retained forces, a
    new one joins them; what both OBs list is untouched."""
    players = _apd_with_chart(make_user)
    path = "variants.cg.start.ob"
    _supply(
        players,
        "german",
        path,
        {
            "rgs.american": "A1",
            "units.american": "Lt Hayes 8-1",
            "units.german": "6 x 4-6-7\n9-1 leader",
        },
    )
    c = players.campaign
    [line] = _ob_lines(c, "american")
    kept = Unit.objects.get(campaign=c, side="german", name="4-6-7")
    _supply(
        players,
        "american",
        path,
        {"rgs.american": "", "units.american": "Sgt Ruiz 7-0", "units.german": "6 x 4-6-7"},
    )
    c = players.campaign
    line.refresh_from_db()
    assert line.status == Purchase.Status.CANCELLED
    assert sorted(Unit.objects.filter(campaign=c).values_list("side", "name")) == [
        ("american", "Sgt Ruiz 7-0"),
        ("german", "4-6-7"),
    ]
    assert Unit.objects.get(campaign=c, side="german").pk == kept.pk
    client = Client()
    client.force_login(players.users["american"])
    roster = client.get(reverse("roster", args=[c.pk])).content.decode()
    assert "Sgt Ruiz 7-0" in roster and "Lt Hayes 8-1" not in roster
    # A1 as a word (a random CSRF token after the record may hold the letters "A1").
    record = roster.split("RG Purchase Record", 1)[-1]
    assert not re.search(r"(?<![A-Za-z0-9])A1(?![A-Za-z0-9])", record), record


def test_a_refused_start_datum_changes_nothing_and_an_accepted_one_is_logged(modules, make_user):
    """The opponent refuses the proposed SAN and OB: seats, record and retained forces
    stay as they were.  Accepted, the start's points are given and the log says what
    each side received for the Initial Scenario, with its rule."""
    axis, british = make_user("axis_p"), make_user("brit_p")
    c = host_game("sicily", "i", axis, british, side="axis", through_start=False)
    players = players_of(c, axis, british)
    before = {s: (x.points, x.fortification_points, x.san, x.elr) for s, x in _seats(c).items()}
    for path, form in (
        ("variants.i.start.san", {"value.axis": "3", "value.british": "2"}),
        ("variants.i.start.ob", {"rgs.axis": "I5", "rgs.british": "I2"}),
        ("variants.i.start.points", {"value.axis": "40", "value.british": "20"}),
    ):
        proposal = supplements.propose_supplement(
            campaign_id=c.pk, user=british, path=path, form=form
        )
        supplements.refuse_supplement(
            campaign_id=c.pk, user=axis, ref=proposal.ref, reason="not what the CG says"
        )
    c = players.campaign
    assert {
        s: (x.points, x.fortification_points, x.san, x.elr) for s, x in _seats(c).items()
    } == before
    assert not Purchase.objects.filter(campaign=c).exists()
    assert not Unit.objects.filter(campaign=c).exists()
    assert not Event.objects.filter(campaign=c, text__startswith="For the Initial").exists()
    _supply(
        players, "british", "variants.i.start.points", {"value.axis": "40", "value.british": "20"}
    )
    start_rule = module_of(players.campaign).variant("i").start.rule
    [given] = Event.objects.filter(campaign=c, text__startswith="For the Initial")
    assert given.text == (
        f"For the Initial Scenario ({start_rule}): Axis: 40 CPP; British: 20 CPP."
    )


def test_an_ob_declared_missing_may_keep_only_its_printed_text(modules):
    """The schema: an OB declared missing may keep the text the rules print (the supply
    form starts from it), but no RG and no unit."""
    data = ModuleRecord.objects.get(id="purple-heart-draw").data
    assert Module.model_validate(data).variant("tm").start.missing == ["ob"]
    for key, value in (("rgs", ["I1"]), ("units", ["8-1 leader"])):
        given = copy.deepcopy(data)
        given["variants"][0]["start"]["ob"]["us"][key] = value
        with pytest.raises(ValidationError, match="'ob' is declared missing but is given"):
            Module.model_validate(given)


def test_a_start_supplied_in_the_app_survives_a_backup_round_trip(modules, make_user):
    """Backup and restore carry what the players supplied for the start — the accepted
    chart and OB, a refused and a pending proposal — with what the OB gave (its Purchase
    Record line and units), into an empty database, byte for byte."""
    players = _apd_with_chart(make_user)
    _supply(
        players,
        "german",
        "variants.cg.start.ob",
        {"rgs.american": "A1", "units.american": "Lt Hayes 8-1", "units.german": "6 x 4-6-7"},
    )
    c = players.campaign
    refused = supplements.propose_supplement(
        campaign_id=c.pk,
        user=players.users["american"],
        path="variants.cg.start.san",
        form={"value.american": "5", "value.german": "1"},
    )
    supplements.refuse_supplement(
        campaign_id=c.pk, user=players.users["german"], ref=refused.ref, reason="too high"
    )
    supplements.propose_supplement(
        campaign_id=c.pk,
        user=players.users["german"],
        path="variants.cg.start.elr",
        form={"value.american": "4", "value.german": "3"},
    )
    data = export_campaign(campaign_id=c.pk)
    Campaign.objects.all().delete()
    ModuleRecord.objects.all().delete()
    get_user_model().objects.all().delete()
    restored = import_campaign(data=data)
    assert sorted(Supplement.objects.filter(campaign=restored).values_list("path", "status")) == [
        ("rg_charts.american", "accepted"),
        ("variants.cg.start.elr", "proposed"),
        ("variants.cg.start.ob", "accepted"),
        ("variants.cg.start.san", "refused"),
    ]
    [line] = _ob_lines(restored, "american")
    assert (line.group_id, line.cost, line.status) == ("A1", 0, Purchase.Status.ACTIVE)
    assert sorted(Unit.objects.filter(campaign=restored).values_list("side", "name")) == [
        ("american", "Lt Hayes 8-1"),
        ("german", "4-6-7"),
    ]
    assert module_of(restored).variant("cg").start.ob["american"].rgs == ["A1"]
    assert export_campaign(campaign_id=restored.pk) == data
