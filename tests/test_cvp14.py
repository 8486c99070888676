"""Losses where they happen (issue 44, class 8): a unit its owner removes from his
retained forces at a step of the between-scenario sequence says whether it was
eliminated there (its CVP count for the scenario just played, as the rules of that
step say) or is a correction (nothing counts); a correction can be put back.

PHD C1.2 / C5.1 ("All ConPh losses count for the previous scenario for all
purposes"), APD 2 Note ("CVP are recorded normally throughout this phase") and 3 Note
("CVP are NA for units/weapons eliminated in this phase"); Sicily's RePh says no such
thing (``docs/rules-audit/pass-12-cvp14.md``)."""

from __future__ import annotations

import pytest

from campaign.models import Event, Purchase, ScenarioResult, Seat, Unit
from campaign.selectors import module_of
from campaign.services import purchases, supplements, units
from campaign.services.errors import ActionRefused
from tests import test_rule_mechanisms
from tests.test_apd12_pass12 import apd
from tests.test_apd_pass5 import points
from tests.test_phd_conph import phd_after
from tests.test_phd_pass9a import STUG
from tests.test_rule_mechanisms import add, phd_with_chart, result_values, unit_names

pytestmark = [pytest.mark.django_db, pytest.mark.rules]

users = test_rule_mechanisms.users
fixed_dice = test_rule_mechanisms.fixed_dice


def lost(players) -> dict:
    return ScenarioResult.objects.filter(campaign_id=players.campaign_id).last().data["cvp_lost"]


def supply_value(players, path, value, by):
    """``by`` proposes ``path`` = ``value``; the opponent accepts (A26.2 CVP per kind)."""
    other = next(s for s in players.users if s != by)
    proposal = supplements.propose_supplement(
        campaign_id=players.campaign_id, user=players.users[by], path=path, form={"value": value}
    )
    supplements.accept_supplement(
        campaign_id=players.campaign_id, user=players.users[other], ref=proposal.ref
    )


def remove(players, side, unit, **kw):
    return units.remove_unit(
        campaign_id=players.campaign_id, user=players.users[side], unit_id=unit.ref, **kw
    )


def last_unit_line(players) -> Event:
    return Event.objects.filter(campaign_id=players.campaign_id, kind="unit").last()


def test_c5_1_a_unit_removed_as_eliminated_at_c5_8_counts_its_cvp_a_correction_none(users, modules):
    """C5.8 (a unit eliminated in the ConPh that its owner removes by hand: since pass
    20 an Encircled unit's 1TC is a DR the app owes it, test_phda20_pass20.py); C5.1
    "All ConPh losses count for the previous scenario for all purposes"; C1.2 (A26.2
    CVP, supplied per kind).  The US removes a squad saying it was eliminated: its 2
    CVP join the US's CVP lost (5 → 7) on a line both sides read.  A squad removed as
    a correction (the default) counts nothing, and the line says so."""
    players, _ = phd_after(users, "C5.8", cvp_lost_us=5, cvp_lost_german=3)
    supply_value(players, "cvp_per_kind.squad", "2", by="us")
    failed = add(players, "us", "6-6-7 A", "squad")
    slip = add(players, "us", "6-6-7 B", "squad")
    remove(players, "us", failed, eliminated=True)
    assert lost(players) == {"us": 7, "german": 3}
    line = last_unit_line(players)
    assert line.secret_side == ""
    assert "eliminated at C5.8" in line.text and "CVP lost 5 → 7 (C5.1)" in line.text
    remove(players, "us", slip)
    assert lost(players) == {"us": 7, "german": 3}
    line = last_unit_line(players)
    assert "a correction, not a loss: no CVP count" in line.text
    assert unit_names(players, "us") == []


def test_c1_2_a_kind_whose_cvp_are_not_supplied_is_not_counted_and_the_log_says_so(users, modules):
    """C1.2 / C5.16 (an Immobilized vehicle too far from friendly units is eliminated,
    the map's to judge): a vehicle removed as eliminated before a vehicle's CVP are
    supplied counts nothing — never a silent 0: the line says they are not counted and
    the result is to be amended with them.  A line of two squads counts twice a squad's
    CVP (A26.2 is per unit)."""
    players, _ = phd_after(users, "C5.16", cvp_lost_us=5, cvp_lost_german=3)
    tank = add(players, "us", "M4A1 Sherman", "vehicle", markers=("immobilized",))
    remove(players, "us", tank, eliminated=True)
    assert lost(players)["us"] == 5
    assert "CVP are not counted" in last_unit_line(players).text
    supply_value(players, "cvp_per_kind.squad", "2", by="german")
    pair = add(players, "german", "4-6-7", "squad", number=2)
    remove(players, "german", pair, eliminated=True)
    assert lost(players) == {"us": 5, "german": 7}


def test_2_note_apd_a_unit_removed_as_eliminated_at_2_8_counts_and_2_92_reads_it(users, modules):
    """APD 2 Note "CVP are recorded normally throughout this phase" (2.8: Infantry in a
    Blaze is eliminated, the map's to judge); 2.92 adds "the total of his CVP suffered in
    the CG thus far".  A squad removed as eliminated at 2.8: 41 → 43 CVP, 35 PP at 3.4
    (not 33)."""
    players, module = apd(users, "2.8")
    supply_value(players, "cvp_per_kind.squad", "2", by="american")
    burnt = add(players, "american", "4-6-7", "squad")
    remove(players, "american", burnt, eliminated=True)
    assert lost(players)["american"] == 43
    assert "(2 Note)" in last_unit_line(players).text
    players.until_step("3.4")
    assert points(players, "american") == 35


def test_2_7_apd_a_vehicles_cvp_can_be_supplied(users, modules):
    """APD 2.7 (a Shocked/UK AFV that fails recuperation is eliminated) in the Clean-Up
    Phase, whose CVP count (2 Note): a vehicle's CVP (A26.2) are the players' to supply
    as a squad's are."""
    players, module = apd(users, "2.7")
    assert "cvp_per_kind.vehicle" in [m.supply for m in module.missing]
    supply_value(players, "cvp_per_kind.vehicle", "5", by="american")
    tank = add(players, "american", "M4A3(75)W", "vehicle")
    remove(players, "american", tank, eliminated=True)
    assert lost(players)["american"] == 46


def test_3_note_apd_and_sicily_a_removal_where_no_cvp_count_is_not_called_a_loss(users, modules):
    """APD 3 Note "CVP are NA for units/weapons eliminated in this phase": at 3.3 a
    removal said to be an elimination is refused in words, nothing changes.  Sicily's
    RePh (3.601-3.623) has no rule that its losses count for the prior CG scenario
    (3.6162 reads "the CVP lost ... for the prior CG scenario (only)"): the same."""
    players, _ = apd(users, "3.3")
    squad = add(players, "american", "4-6-7", "squad")
    with pytest.raises(ActionRefused, match=r"CVP are NA.*\(3 Note\).*Nothing was changed"):
        remove(players, "american", squad, eliminated=True)
    assert unit_names(players, "american") != [] and lost(players)["american"] == 41
    remove(players, "american", squad)  # a removal there is no loss, as before
    assert unit_names(players, "american") == []

    players, module = test_rule_mechanisms.start("sicily", "i", users, "british")
    players.results(**result_values(module))
    players.until_step("3.608")
    squad = add(players, "british", "4-5-7", "squad")
    with pytest.raises(ActionRefused, match=r"count no CVP.*Nothing was changed"):
        remove(players, "british", squad, eliminated=True)


def test_c5_1_a_unit_removed_by_mistake_is_put_back_as_it_was(users, modules):
    """A correction is undone: the unit removed by mistake is put back on its side's
    retained forces as it was (name, kind, count, markers, location, weapons), on a
    line both read; once put back, it cannot be put back twice.  An elimination is not
    put back this way (its CVP are in the result): it is refused in words."""
    players, _ = phd_after(users, "C5.8", cvp_lost_us=5, cvp_lost_german=3)
    tank = add(players, "us", "M4A1 Sherman", "vehicle", markers=("immobilized",))
    units.add_weapon(
        campaign_id=players.campaign_id,
        user=players.users["us"],
        unit_id=tank.ref,
        kind="ma",
        name="MA",
        markers=["malfunctioned"],
    )
    tank.refresh_from_db()
    remove(players, "us", tank)
    assert unit_names(players, "us") == []
    back = units.put_back_unit(
        campaign_id=players.campaign_id, user=players.users["us"], unit_id=tank.ref
    )
    assert (back.ref, back.name, back.kind, back.markers, back.weapons) == (
        tank.ref,
        tank.name,
        tank.kind,
        tank.markers,
        tank.weapons,
    )
    assert "puts back M4A1 Sherman" in last_unit_line(players).text
    with pytest.raises(ActionRefused, match="already"):
        units.put_back_unit(
            campaign_id=players.campaign_id, user=players.users["us"], unit_id=tank.ref
        )
    supply_value(players, "cvp_per_kind.squad", "2", by="us")
    squad = add(players, "us", "6-6-7", "squad")
    remove(players, "us", squad, eliminated=True)
    with pytest.raises(ActionRefused, match=r"amend the result"):
        units.put_back_unit(
            campaign_id=players.campaign_id, user=players.users["us"], unit_id=squad.ref
        )
    with pytest.raises(ActionRefused, match="no such unit"):
        units.put_back_unit(
            campaign_id=players.campaign_id, user=players.users["german"], unit_id=tank.ref
        )


def test_c5_1_a_secret_units_elimination_tells_the_opponent_nothing(users, modules):
    """C5.1 with the visibility gate: a unit of the German's still-secret RG (an RG In
    Reserve that never entered, say) removed as eliminated at C5.8 adds nothing to the
    public result (its CVP in it would tell of the RG) and its line is the German's
    alone, saying its CVP join the result once its RG is revealed."""
    players, c = phd_with_chart(users, [STUG])
    stug = purchases.purchase_rg(
        campaign_id=c.pk, user=players.users["german"], group_id="V1", cost_variant="onmap"
    )
    unit = Unit.objects.create(
        campaign=c, side="german", name="StuG IIIG (V1)", kind="vehicle", purchase=stug
    )
    players.until("results")
    players.results(**result_values(module_of(c), cvp_lost_us=5, cvp_lost_german=3))
    players.until_step("C5.8")
    Purchase.objects.filter(pk=stug.pk).update(revealed_at=None)  # still secret
    unit.refresh_from_db()
    assert units.is_secret(unit)
    supply_value(players, "cvp_per_kind.vehicle", "5", by="german")
    remove(players, "german", unit, eliminated=True)
    assert lost(players) == {"us": 5, "german": 3}
    line = last_unit_line(players)
    assert line.secret_side == "german" and "once its RG is revealed" in line.text
    assert "StuG" not in line.public_text


def test_c5_20_c5_23_a_loss_after_the_cvp_are_read_is_refused_in_words(users, modules):
    """C5.20 "Reward all CVP for each side now ... Record CVP from the previous scenario
    for DRM for TP Replenishment, and Bravery and Battlefield Promotion": once C5.23's
    rolls have read them, the CVP stand (the dice stand), so at C5.26 a removal said to
    be an elimination is refused in words naming the DR that read them, and nothing
    changes; a correction is still possible, and the retained forces no longer offer
    the choice.  (Where no C5.23 DR was made, nothing read them: pass 26.)"""
    players, _ = phd_after(users, "C5.23", cvp_lost_us=5, cvp_lost_german=3)
    squad = add(players, "us", "6-6-7", "squad")  # an MMC: the US owes its C5.23 DR
    test_rule_mechanisms.roll(players, "us", "battlefield_promotion")
    players.until_step("C5.26")
    with pytest.raises(
        ActionRefused, match=r"read by the American's DR on the Battlefield.*stand.*Nothing"
    ):
        remove(players, "us", squad, eliminated=True)
    assert lost(players)["us"] == 5 and unit_names(players, "us") != []
    from campaign.seat_views.roster import roster_view

    seat = Seat.objects.select_related("campaign").get(campaign_id=players.campaign_id, side="us")
    assert roster_view(seat).losses_rule == ""
    remove(players, "us", squad)
    assert unit_names(players, "us") == []


def test_c5_1_the_pages_offer_the_choice_and_the_amendment_says_removals_count(
    users, modules, client
):
    """C5.1 on the pages: at C5.8 the US's retained forces ask why a unit leaves them, in
    ASL words (a correction, checked; or eliminated at C5.8, its CVP counting), and the
    amendment's help says the figures already hold the CVP of a unit removed as
    eliminated, so they are not added twice; the German's forces ask him nothing of the
    US's units."""
    import html
    import re

    players, _ = phd_after(users, "C5.8", cvp_lost_us=5, cvp_lost_german=3)
    squad = add(players, "us", "6-6-7 A", "squad")

    def text(side, path="") -> str:
        client.force_login(players.users[side])
        page = client.get(f"/campaigns/{players.campaign_id}/{path}").content.decode()
        return page, re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html.unescape(page)))

    raw, roster = text("us", "roster/")
    assert "Entered by mistake: a correction, nothing counts" in roster
    assert (
        "Eliminated at C5.8 Encircled Units: its CVP count for the scenario just played (C5.1)"
        in roster
    )
    assert re.search(rf'id="unit-loss-correction-{squad.ref}" checked', raw)
    _, campaign = text("us")
    assert "or that its owner removed from his retained forces as eliminated" in campaign
    raw, _ = text("german", "roster/")
    assert f"unit-loss-correction-{squad.ref}" not in raw
