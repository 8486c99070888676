"""Issue 44, fifth pass on Purple Heart Draw: the ledger's "not yet" sentences made
true in play, and the sentences the verification sample found wrong, each tested
through the services (``docs/rules-audit/pass-5-phd.md``)."""

from __future__ import annotations

import pytest

from campaign.models import Roll, Unit
from campaign.seat_views.campaign_page import campaign_view
from campaign.selectors import module_of
from campaign.services import purchases, steps
from campaign.services.errors import ActionRefused
from rules.supply import SupplyProblems
from tests import test_rule_mechanisms as mechanisms
from tests.purchase_helpers import campaign_at
from tests.test_rule_mechanisms import add, phd_with_chart, result_values, roll, supply_chart

users = mechanisms.users

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


def at_step(users, step_id, date="t0930"):
    return campaign_at("purple-heart-draw", "tm", date, users, step=step_id)


def closed_reason(players, side, table="redeployment") -> str:
    view = campaign_view(players.users[side], players.campaign_id)
    (t,) = [t for t in view.panel.tables if t.id == table]
    return t.closed


def test_c5_14_attacker_first_the_defender_rolls_once_the_attacker_is_done(users, modules):
    """C5.14: "Redeployment of Isolated/Non-Isolated Units: In turn, Attacker first":
    the Attacker is the side that moved first in the scenario just played (C5.3; the
    Initial TM Scenario's is the US, C4.2).  The German's Redeployment roll is refused,
    with the reason on his panel, until the US is done; the US rolls at once."""
    players, _ = at_step(users, "C5.14")
    ge = add(players, "german", "4-6-8", "squad")
    us = add(players, "us", "6-6-7", "squad")
    assert "Attacker (American, C5.3) goes first" in closed_reason(players, "german")
    assert closed_reason(players, "us") == ""
    with pytest.raises(ActionRefused, match="Attacker .American, C5.3. goes first") as refused:
        roll(players, "german", "redeployment", ge)
    assert refused.value.status == 409
    assert not Roll.objects.filter(campaign_id=players.campaign_id, side="german").exists()
    roll(players, "us", "redeployment", us)
    with pytest.raises(ActionRefused, match="goes first"):
        roll(players, "german", "redeployment", ge)
    steps.finish_step(campaign_id=players.campaign_id, user=players.users["us"])
    assert closed_reason(players, "german") == ""
    assert roll(players, "german", "redeployment", ge).side == "german"


def test_c5_14_after_a_german_attack_the_german_redeploys_first(users, modules):
    """C5.3/C5.14: after a German Attack (C5.37b: the German moves first) the German is
    the Attacker at the next ConPh's Redeployment: the US waits for him."""
    players, module = at_step(users, "C5.37")
    players.chits(german="attack", us="idle")
    players.until("results")
    players.results(**result_values(module))
    players.until_step("C5.14")
    ge = add(players, "german", "4-6-8", "squad")
    us = add(players, "us", "6-6-7", "squad")
    with pytest.raises(ActionRefused, match="Attacker .German, C5.3. goes first"):
        roll(players, "us", "redeployment", us)
    roll(players, "german", "redeployment", ge)


def test_c5_31_footnote_w_the_sw_allotment_is_supplied_with_the_chart_and_joins_the_rg(
    users, modules
):
    """C5.31 RG footnote w: "SW allotment as per following table" — the table is lost:
    the players give each RG's SW on the chart they supply (its SW column), and an RG
    bought joins the retained forces with them; a cell that names no SW is refused with
    a sentence, nothing supplied."""
    german, _ = users
    pl = {"id": "I9", "type": "Gren Pl", "units": "4-4-7", "unit_kind": "squad", "full": "3"}
    players, c = phd_with_chart(users, [pl | {"cost": "4", "footnotes": "w", "sw": "LMG 1, Psk 1"}])
    with pytest.raises(SupplyProblems, match="Row 1 SW: name each SW"):
        supply_chart(players, "us", [pl | {"id": "I1", "cost": "4", "sw": "LMG 0"}])
    c.refresh_from_db()
    assert module_of(c).chart("german").groups[0].sw == {"LMG": 1, "Psk": 1}
    bought = purchases.purchase_rg(
        campaign_id=c.pk, user=german, group_id="I9", cost_variant="onmap"
    )
    players.until_step("I-C5.34")  # past the Leader Table step, where RGs are completed
    names = sorted(
        Unit.objects.filter(campaign=c, side="german", purchase=bought).values_list("name", "kind")
    )
    assert ("LMG (I9)", "sw") in names and ("Psk (I9)", "sw") in names, names


CREW = {"id": "R1", "type": "Replacement Crew", "units": "2-2-8", "unit_kind": "crew"}


def test_c5_31_footnote_z_replacement_crews_only_for_crews_eliminated_in_play(users, modules):
    """C5.31 RG footnote z: "Replacement Crews are only requisitioned for Gun/Vehicle
    crews that were eliminated during play": each side enters the Gun/vehicle crews it
    lost with the TM Scenario's result (C5.1, amended for the ConPh's losses); an RG
    marked z is refused before the Initial Scenario (none lost yet), with the reason on
    the chart, and afterwards as many are sold as crews were lost, over the TM."""
    german, _ = users
    players, c = phd_with_chart(users, [CREW | {"cost": "2", "footnotes": "z"}])
    reason = "only one for each of Gun/vehicle crews eliminated (incl. ConPh losses): 0 so far"
    (row,) = campaign_view(german, c.pk).panel.chart
    assert any(reason in r for r in row.reasons), row.reasons
    with pytest.raises(ActionRefused, match=r"0 so far, 0 bought \(C5.31 RG footnote z\)"):
        purchases.purchase_rg(campaign_id=c.pk, user=german, group_id="R1", cost_variant="onmap")
    players.until("results")
    players.results(**result_values(module_of(c), crews_lost_german=1, crews_lost_us=3))
    players.until_step("C5.31")
    bought = purchases.purchase_rg(
        campaign_id=c.pk, user=german, group_id="R1", cost_variant="onmap"
    )
    assert bought.group_id == "R1"
    with pytest.raises(ActionRefused, match=r"1 so far, 1 bought \(C5.31 RG footnote z\)"):
        purchases.purchase_rg(campaign_id=c.pk, user=german, group_id="R1", cost_variant="onmap")
