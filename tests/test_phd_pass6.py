"""Issue 44, sixth pass on Purple Heart Draw: the fifth pass's "Left" items and a new
sample of sentences tried through the services as a player would
(``docs/rules-audit/pass-6-phd.md``)."""

from __future__ import annotations

import pytest

from campaign.models import Seat
from campaign.seat_views.campaign_page import campaign_view
from campaign.services import steps, units
from campaign.services.errors import ActionRefused
from tests import test_rule_mechanisms as mechanisms
from tests.purchase_helpers import campaign_at
from tests.test_rule_mechanisms import add, result_values, roll, start, unit_names

users = mechanisms.users
fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


def at_step(users, step_id, date="t0930"):
    return campaign_at("purple-heart-draw", "tm", date, users, step=step_id)


def waited_for(players) -> dict[str, bool]:
    return {
        s.side: s.waiting_since is not None
        for s in Seat.objects.filter(campaign_id=players.campaign_id)
    }


def test_c5_14_only_the_attacker_is_told_it_is_his_move(users, modules):
    """C5.14 "In turn, Attacker first": while the Attacker (the US after the Initial
    TM Scenario, C4.2/C5.3) has not finished its Redeployment, the campaign waits for
    it alone: the Defender's seat is not "your move" (no notice, no title badge, its
    page says it waits for the American); once the Attacker is done, it is the
    German's move."""
    players, _ = at_step(users, "C5.14")
    assert waited_for(players) == {"us": True, "german": False}
    german_view = campaign_view(players.users["german"], players.campaign_id)
    us_view = campaign_view(players.users["us"], players.campaign_id)
    assert german_view.waiting_for == ["us"] and german_view.status == "opponent"
    assert us_view.status != "opponent"
    steps.finish_step(campaign_id=players.campaign_id, user=players.users["us"])
    assert waited_for(players) == {"us": False, "german": True}
    german_view = campaign_view(players.users["german"], players.campaign_id)
    assert german_view.waiting_for == ["german"] and german_view.status != "opponent"


def test_c5_26a_ammunition_shortage_drm_follows_from_the_isolated_marker(
    users, modules, fixed_dice
):
    """C5.26a "+1 If suffering from Ammunition shortage": Units that end the Redeployment
    Isolated suffer Ammunition Shortage (C5.13a; C5.17 Isolated HIP units too), and
    C5.26 comes after it: the app computes both +1s from the Isolated marker of the
    weapon rolled for, and neither is claimed for one not Isolated."""
    players, module = start("purple-heart-draw", "tm", users, "us")
    players.results(**result_values(module))
    players.until_step("C5.26")
    cut_off = add(players, "german", "MMG", "sw", "malfunctioned", markers=("isolated",))
    at_home = add(players, "german", "LMG", "sw", "malfunctioned")
    fixed_dice.extend([[1], [1]])
    r = roll(players, "german", "weapon_repair", cut_off)
    assert sorted((d["label"][:30], d["value"]) for d in r.drms) == [
        ("+1 If Isolated", 1),
        ("+1 If suffering from Ammunitio", 1),
    ], r.drms
    assert r.final == 3 and r.result == "Eliminated"
    with pytest.raises(ActionRefused):
        roll(players, "german", "weapon_repair", at_home, ticked=["ammo_shortage"])
    r = roll(players, "german", "weapon_repair", at_home)
    assert r.drms == [] and r.result == "Repaired"


def test_c5_22_a_hero_combines_with_a_non_crew_mmc_only(users, modules):
    """C5.22: "Each friendly on-map Hero ... is removed from play by being 'combined'
    with any (non-crew) MMC": a crew (a half-squad line that says it is a crew, as RG
    footnote c's "2-2-8 Crew" joins) is refused with the rule's words, nothing changed;
    a half-squad that is no crew Battle Hardens."""
    players, _ = at_step(users, "C5.22")
    hero = add(players, "us", "1-4-9 Hero", "hero")
    crew = add(players, "us", "2-2-8 Crew (G3)", "half_squad")
    half = add(players, "us", "3-3-7", "half_squad")
    with pytest.raises(ActionRefused, match=r"not a crew\) \(C5.22\)") as refused:
        units.exchange_unit(
            campaign_id=players.campaign_id,
            user=players.users["us"],
            give_id=hero.ref,
            mark_id=crew.ref,
        )
    assert refused.value.status == 400
    assert unit_names(players, "us") == [
        ("1-4-9 Hero", "hero", "ok", 1),
        ("2-2-8 Crew (G3)", "half_squad", "ok", 1),
        ("3-3-7", "half_squad", "ok", 1),
    ]
    units.exchange_unit(
        campaign_id=players.campaign_id,
        user=players.users["us"],
        give_id=hero.ref,
        mark_id=half.ref,
    )
    assert ("3-3-7", "half_squad", "battle_hardened", 1) in unit_names(players, "us")
