"""Issue 44, sixth pass on Purple Heart Draw: the fifth pass's "Left" items and a new
sample of sentences tried through the services as a player would
(``docs/rules-audit/pass-6-phd.md``)."""

from __future__ import annotations

import pytest

from campaign.models import Event, EventKind, InitiativeOutcome, Roll, Seat, Unit
from campaign.seat_views.campaign_page import campaign_view
from campaign.selectors import module_of
from campaign.services import purchases, steps, units
from campaign.services.errors import ActionRefused
from tests import test_rule_mechanisms as mechanisms
from tests.purchase_helpers import campaign_at
from tests.test_rule_mechanisms import (
    add,
    phd_with_chart,
    result_values,
    roll,
    start,
    unit_names,
)
from tests.walk import host_game, players_of

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
    (table,) = german_view.panel.tables  # still says why he may not roll yet
    assert "Attacker (American, C5.3) goes first" in table.closed
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


# --------------------------------------------------------------------------- sample
# The sixth pass's verification sample: sentences no earlier pass tried, driven through
# the services as a player would (wrong side, wrong date, twice, another price).


def start_of_tm(users, step_id):
    a, b = users
    c = host_game("purple-heart-draw", "tm", a, b, side="german", through_start=False)
    players = players_of(c, a, b)
    players.until_step(step_id)
    return players


def test_c5_35_notes_1_3_the_fortification_prices_by_tier_and_c5_36c_no_recon_initially(
    users, modules
):
    """C5.35 Fortification Table with the German's 60 DSP of the Initial OB (C4.2):
    Foxhole 3/2/1 DSP by squad capacity (note 1), HIP 5/3/2/2/1 for AFV/Squad/HS/Crew/SMC
    (note 3), Trench and Roadblock 5; each price is taken from the DSP, and a price past
    the DSP left is refused.  C5.36c: no Recon for the Initial TM Scenario."""
    players = start_of_tm(users, "I-C5.35")
    german = players.users["german"]

    def buy(item, tier=0, count=1):
        return purchases.buy_fortification(
            campaign_id=players.campaign_id, user=german, item_id=item, tier=tier, count=count
        )

    assert mechanisms.seat(players, "german").fortification_points == 60
    assert [buy("foxhole", t).cost for t in (0, 1, 2)] == [3, 2, 1]
    assert [buy("hip", t).cost for t in (0, 4)] == [5, 1]
    assert buy("trench").cost == 5 and buy("roadblock").cost == 5
    assert mechanisms.seat(players, "german").fortification_points == 60 - 6 - 6 - 10
    with pytest.raises(ActionRefused):
        buy("trench", count=8)
    assert mechanisms.seat(players, "german").fortification_points == 38
    with pytest.raises(ActionRefused):
        purchases.buy_recon(campaign_id=players.campaign_id, user=german)


def test_c5_37c_dual_attack_drs_and_c5_3_the_attacker_is_who_moved_first(
    users, modules, fixed_dice
):
    """C5.37: a chit once locked is not picked again.  C5.37c Dual Attack: a dr of 3
    ("< 3" read as 3 or less) has the German set up first; after set up a dr of 4 ("> 4"
    read as 4 or more) has the US move first.  C5.3: the US, who moved first, is then the
    Attacker at C5.14, which waits for him (C5.14 "In turn, Attacker first")."""
    players, module = at_step(users, "C5.37")
    players.chits(german="attack")
    with pytest.raises(ActionRefused):
        players.chits(german="idle")
    fixed_dice.extend([[3], [4]])
    players.chits(us="attack")
    outcome = InitiativeOutcome.objects.get(campaign_id=players.campaign_id, scenario=True)
    assert (outcome.result, outcome.sets_up_first) == ("dual_attack", "german")
    players.until("results")
    outcome.refresh_from_db()
    assert outcome.moves_first == "us"
    players.results(**result_values(module))
    players.until_step("C5.14")
    assert waited_for(players) == {"us": True, "german": False}
    with pytest.raises(ActionRefused, match=r"Attacker .American, C5.3. goes first"):
        roll(players, "german", "redeployment", add(players, "german", "4-6-8", "squad"))


def test_c5_29_the_tp_replenished_are_added_to_those_left(users, modules):
    """C5.29: "Each player now determines the number of TP they will receive, which is
    to be added to any TP remaining from the previous TM Scenario": 7 TP left and the
    TP Replenishment Table's TP make the side's new total (the German's own record)."""
    players, _ = at_step(users, "C5.28")
    Seat.objects.filter(campaign_id=players.campaign_id, side="german").update(points=7)
    players.until_step("C5.31")  # C5.29 replenishes on entering and goes on
    event = Event.objects.get(
        campaign_id=players.campaign_id, kind=EventKind.REPLENISH, side="german"
    )
    assert event.data["start"] == 7 and event.data["repl"] >= 15
    assert mechanisms.seat(players, "german").points == 7 + event.data["repl"]


def test_c5_26a_c_only_a_possessed_weapon_is_rolled_for(users, modules):
    """C5.26a: a dr "for each malfunctioned, non-captured Retained weapon that is
    possessed by a unit"; C5.26c: "for each functioning, captured, and possessed
    weapon": a weapon no unit possesses is refused both rolls (C5.15 eliminates it)."""
    players, module = start("purple-heart-draw", "tm", users, "us")
    players.results(**result_values(module))
    players.until_step("C5.26")
    broken = add(players, "german", "MMG", "sw", "malfunctioned", markers=("unpossessed",))
    taken = add(players, "german", "BAR", "sw", "captured", markers=("unpossessed",))
    with pytest.raises(ActionRefused, match=r"not captured or unpossessed"):
        roll(players, "german", "weapon_repair", broken)
    with pytest.raises(ActionRefused, match=r"unpossessed"):
        roll(players, "german", "captured_equipment", taken)
    assert (
        not Roll.objects.filter(campaign_id=players.campaign_id)
        .exclude(table_id="")
        .filter(table_id__in=["weapon_repair", "captured_equipment"])
        .exists()
    )


PIONIER = {"id": "I8", "type": "Pionier Pl", "units": "4-4-7", "unit_kind": "squad"}


def with_pioneers(users, squads: int, step_id: str):
    """The German (users[0]) bought a Pionier platoon of ``squads`` squads marked with RG
    footnote e (Assault Engineers) for the Initial TM Scenario; the campaign is at
    ``step_id`` of the ConPh after it."""
    players, c = phd_with_chart(
        users, [PIONIER | {"cost": "4", "full": str(squads), "footnotes": "e"}]
    )
    Seat.objects.filter(campaign=c, side="german").update(points=40)
    purchases.purchase_rg(campaign_id=c.pk, user=users[0], group_id="I8", cost_variant="onmap")
    players.until("results")
    players.results(**result_values(module_of(c)))
    players.until_step(step_id)
    return players, c


def test_c5_28_the_engineers_drm_needs_three_pionerie_squads_held(users, modules, fixed_dice):
    """C5.28 "-1 Friendly side currently contains >= 3 Pionerie/Engineer squads, and at
    least one HS is < 6 hexes from the fortification": the squads are those of RGs
    marked e (Assault Engineers).  With two retained, the tick is refused with the
    rule, nothing rolled; with a third, it is accepted (the HS's distance is the
    map's)."""
    players, c = with_pioneers(users, 2, "C5.28")
    assert unit_names(players, "german", kind="squad")[0][3] == 2, unit_names(players, "german")
    with pytest.raises(ActionRefused, match=r"Pionerie/Engineer squads.*does not apply.*C5.28"):
        roll(players, "german", "fortification_clearance", item="Wire in K5", ticked=["engineers"])
    assert not Roll.objects.filter(campaign=c, table_id="fortification_clearance").exists()
    third = Unit.objects.get(campaign=c, side="german", kind="squad")
    Unit.objects.filter(pk=third.pk).update(count=3)
    fixed_dice.extend([[4]])
    r = roll(players, "german", "fortification_clearance", item="Wire in K5", ticked=["engineers"])
    assert r.final == 3 and r.result.startswith("Eliminated")


def test_c5_26b_ft_dc_repaired_never_exceed_the_assault_engineer_squad_equivalents(users, modules):
    """C5.26b: "The total number of FT/DC (each) after the repair phase may not exceed
    the total number of (non-isolated) Assault Engineer squad-equivalents currently
    available. Excess repaired FT/DC are eliminated instead": with one Pionier squad and
    one Isolated Pionier HS (RG footnote e) and one FT retained, a roll for another FT
    could only eliminate it and is refused, nothing rolled; a DC (counted apart) and a
    Psk (not capped) are rolled for."""
    players, c = with_pioneers(users, 1, "C5.26")
    squad = Unit.objects.get(campaign=c, side="german", kind="squad")
    Unit.objects.create(
        campaign=c,
        side="german",
        name="2-3-8 HS (I8)",
        kind="half_squad",
        purchase=squad.purchase,
        markers=["isolated"],
    )
    add(players, "german", "FT", "sw")
    with pytest.raises(
        ActionRefused,
        match=r"retain 1 FT and 1 \(non-isolated\) Assault "
        r"Engineer squad-equivalents.*\(C5.26b\)",
    ) as refused:
        roll(players, "german", "baz_psk_ft_dc_repair", item="FT of the 4-4-7 in 23K4")
    assert refused.value.status == 409
    assert not Roll.objects.filter(campaign=c, table_id="baz_psk_ft_dc_repair").exists()
    roll(players, "german", "baz_psk_ft_dc_repair", item="DC in 23K4")
    roll(players, "german", "baz_psk_ft_dc_repair", item="Psk in 23K5")
    Unit.objects.filter(campaign=c, kind="half_squad").update(markers=[])
    roll(players, "german", "baz_psk_ft_dc_repair", item="FT of the 4-4-7 in 23K4")


def test_c5_24a_no_7_0_from_a_crew(users, modules):
    """C5.24a: "it may automatically create one 7-0 leader from any designated (non-crew)
    MMC": a side whose only MMC is a crew (its half-squad line says so) has none to
    create him from; with a half-squad that is no crew it may."""
    players, _ = at_step(users, "C5.24")

    def promote():
        from tests.test_rule_mechanisms import an_mmc

        return steps.take_instead_of_roll(
            campaign_id=players.campaign_id,
            user=players.users["us"],
            table_id="leader_promotion",
            mmc_id=an_mmc(players, "us"),  # C5.24a "from any designated (non-crew) MMC"
        )

    add(players, "us", "2-2-8 Crew (G3)", "half_squad")
    with pytest.raises(ActionRefused, match=r"no MMC that is not a crew .*\(C5.24a\)"):
        promote()
    assert not Unit.objects.filter(campaign_id=players.campaign_id, kind="leader").exists()
    add(players, "us", "3-3-7", "half_squad")
    assert promote().name == "7-0 leader"
