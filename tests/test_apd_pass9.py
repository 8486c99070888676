"""Issue 44, pass 9, A Pleasant Diversion (seed 002): 3.8-4.0 sampled in play (pass 8
left them), then sentences of 1.x-3.7 no pass had tried — cumulative figures across
CG dates, one-side-only rules, the rows each table's dice reach, what a step removes
or keeps by itself.  Each test cites the sentence it tries
(rules/ledger/sentences/pleasant-diversion.yaml); docs/rules-audit/pass-9-apd.md lists
each sentence tried and what was found."""

from __future__ import annotations

import html

import pytest

from campaign.models import Event, ScenarioResult, Unit
from tests import test_rule_mechanisms
from tests.purchase_helpers import add_vehicle
from tests.test_apd_pass5 import done
from tests.test_computations import pd_result, supply_midday_vp
from tests.test_rule_mechanisms import add, apd_at, roll, start, unit_names

pytestmark = [pytest.mark.django_db, pytest.mark.rules]

users = test_rule_mechanisms.users
fixed_dice = test_rule_mechanisms.fixed_dice


def _shown(client, players, side) -> str:
    client.force_login(players.users[side])
    return html.unescape(client.get(f"/campaigns/{players.campaign_id}/").content.decode())


# --------------------------------------------------------------------------- CG VC


@pytest.mark.parametrize(("midday_cvp", "won"), [(44, True), (45, False)])
def test_cg_vc_the_105_cvp_are_amassed_over_the_cg_at_the_midday_end(
    users, modules, midday_cvp, won
):
    """CG VC: "Provided the Germans have not amassed ≥ 105 CVP, the Americans win if
    their VP total is ≥ 150 at any CG-Scenario end": the Morning's 100 VP and 60 CVP,
    the Midday's 50 VP: the VP total 150 wins at the Midday's end while the CVP amassed
    over both scenarios are 104, not with 105."""
    players, _ = start("pleasant-diversion", "cg", users, "american")
    supply_midday_vp(players, 120)
    players.results(**pd_result(vp=100, cvp_american=60))
    players.until("results")
    assert players.campaign.ended_at is None
    players.results(**pd_result(vp=50, cvp_american=midday_cvp))
    if won:
        players.until_step("2.9")
    else:
        players.until("results")  # the Afternoon's: the CG went on
    c = players.campaign
    assert (c.ended_at is not None) is won
    if won:
        assert "American wins the CG" in c.outcome


# --------------------------------------------------------------------------- 3.3


def test_3_3_a_vehicular_mg_repair_6_eliminates_the_mg_not_the_vehicle(users, modules, fixed_dice):
    """3.3 Repair Table "Repair vehicular MG 1-2 | 3-5 | 6": a 6 eliminates the MG; the
    vehicle stays (its MA is not the MG), and the 3 Note adds no CVP."""
    players, _ = apd_at(users, "3.3")
    tank, (ma, mg) = add_vehicle(
        players, "american", "M4A3(75)W", ("ma", []), ("mg", ["malfunctioned"], "BMG")
    )
    fixed_dice.append([6])
    r = roll(players, "american", "repair_vehicular_mg", tank, weapon=mg)
    assert r.result.startswith("Eliminated")
    tank.refresh_from_db()
    assert unit_names(players, "american") == [("M4A3(75)W", "vehicle", "ok", 1)]
    assert [w["kind"] for w in tank.weapons if "disabled" not in w["markers"]] == ["ma"]
    assert (
        ScenarioResult.objects.get(campaign_id=players.campaign_id).data["cvp_lost"]["american"]
        == 41
    )


# --------------------------------------------------------------------------- 2.5


def test_2_5_all_encircled_markers_are_removed_when_the_step_is_completed(users, modules):
    """2.5 ENCIRCLEMENT: "Each Encircled unit must take a 1TC ... All Encircled markers
    are then removed": the retained forces hold the Encircled marker (A7.7); after the
    1TC on the map (a unit failing it the owner strikes off), each side's Encircled
    markers leave at 2.5's completion, both sides' — the unit's other markers stay."""
    players, _ = apd_at(users, "2.5")
    squad = add(players, "american", "6-6-6", "squad", "encircled")
    tank = add(players, "german", "PzIVH", "vehicle", markers=["encircled", "immobilized"])
    assert Unit.objects.get(pk=squad.pk).markers == ["encircled"]
    done(players, "american")
    done(players, "german")
    assert players.step.id == "2.6"
    assert unit_names(players, "american") == [("6-6-6", "squad", "ok", 1)]
    assert Unit.objects.get(pk=tank.pk).markers == ["immobilized"]
    texts = list(Event.objects.filter(kind="unit").values_list("text", flat=True))
    assert any("6-6-6 is now in good order" in t and "(2.5)" in t for t in texts), texts
