"""Purple Heart Draw, sixteenth pass (issue 44): pass 15's Left items (C5.13a's
Ammunition shortage marked by the app, a late RG footnote u dr's SW, RG footnote a and
In Reserve, C5.28 note 2) and C1-C5 sentences tried in play as a player would (the other
side, another unit kind, twice, skipped), each test citing its rule
(docs/rules-audit/pass-16-phd16.md)."""

from __future__ import annotations

import pytest

from campaign.models import Unit
from campaign.services import steps
from tests.test_player_words import FORBIDDEN
from tests.test_rule_mechanisms import fixed_dice, users

pytestmark = [pytest.mark.django_db, pytest.mark.rules]
__all__ = ["fixed_dice", "users"]


def plain(sentence: str) -> None:
    """What the player reads has no module or transcription words."""
    assert not FORBIDDEN.search(sentence), sentence


def done(players, side):
    steps.finish_step(campaign_id=players.campaign_id, user=players.users[side])


def marks(unit: Unit) -> set[str]:
    unit.refresh_from_db()
    return set(unit.markers)


def test_c5_13a_units_ending_redeployment_isolated_suffer_ammunition_shortage(users, modules):
    """C5.13a "Units that end this Redeployment phase Isolated (only), suffer from
    Ammunition shortage for the next TM Scenario" (pass 15's Left item): when C5.14
    (Redeployment) is done, each unit its owner marked Isolated is marked Low Ammo
    (Ammunition Shortage, A19.131) by the app, a squad as a Sherman, either side's; a
    unit not Isolated is not.  The marker's words fit infantry (no "(vehicle)")."""
    from rules.schema import UNIT_STATUS_WORDS
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add

    players, _ = phd_after(users, "C5.14")
    cut_off = add(players, "us", "6-6-7 A", "squad", markers=("isolated",))
    free = add(players, "us", "6-6-7 B", "squad")
    tank = add(players, "german", "PzKpfw IVH", "vehicle", markers=("isolated",))
    done(players, "us")
    done(players, "german")
    assert players.step.id != "C5.14"
    # Before: no Low Ammo marker (the players were to read Isolation as the shortage).
    assert marks(cut_off) == {"isolated", "low_ammo"}
    assert marks(tank) == {"isolated", "low_ammo"}
    assert marks(free) == set()
    words = UNIT_STATUS_WORDS["low_ammo"]
    assert "vehicle" not in words and "Ammunition Shortage" in words
    plain(words)


def test_c5_13a_the_shortage_lasts_the_next_tm_scenario_only(users, modules):
    """C5.13a "... for the next TM Scenario": the Low Ammo marker given at C5.14 stays
    through C5.27d while the unit is still Isolated (so it plays the next TM Scenario
    short of ammunition); a unit whose owner took its Isolated marker off before C5.27
    is done (it redeployed out) loses it there (C5.27d)."""
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add

    players, _ = phd_after(users, "C5.14")
    stays = add(players, "us", "6-6-7 A", "squad", markers=("isolated",))
    leaves = add(players, "us", "6-6-7 B", "squad", markers=("isolated",))
    done(players, "us")
    done(players, "german")
    assert "low_ammo" in marks(leaves)
    Unit.objects.filter(pk=leaves.pk).update(markers=["low_ammo"])
    players.until_step("C5.27")
    done(players, "german")
    done(players, "us")
    assert marks(stays) == {"isolated", "low_ammo"}
    assert marks(leaves) == set()


GRENS_U = {
    "id": "A4",
    "type": "Gren Pl",
    "units": "4-4-7",
    "unit_kind": "squad",
    "full": "2",
    "cost": "5",
    "footnotes": "u, w",
    "sw": "LMG 1",
}


def test_rg_footnote_w_a_late_type_dr_hands_the_sw_to_the_units_it_gives(
    users, modules, fixed_dice
):
    """C5.31 RG footnote w "SW allotment as per following table" with footnote u
    "Determine RG type as per following table" (pass 15's Left item): an RG marked u
    and w joins before its type table is supplied, its LMG possessed by its chart
    squads; the late type dr's squads replace those, and the LMG follows them (possessed
    by the units the dr gives, as after an in-time dr), not left with no possessor."""
    from campaign.services import purchases
    from tests.purchase_helpers import make_rolls
    from tests.test_phd15_pass15 import buy
    from tests.test_rule_mechanisms import phd_with_chart, row_table, supply

    players, c = phd_with_chart(users, [GRENS_U])
    a4 = make_rolls(players, "german", buy(players, "german", "A4", "onmap"))
    (lmg,) = Unit.objects.filter(purchase=a4, kind="sw")
    assert lmg.possessor is not None and lmg.possessor.name.startswith("4-4-7")
    supply(
        players,
        "tables.rg_type",
        row_table(
            [
                ("1-3", "Gren", "units: 2 x 4-4-7 (squad)"),
                ("4-6", "Fallschirm", "units: 2 x 5-4-8 (squad)"),
            ]
        ),
    )
    fixed_dice.append([5])
    purchases.roll_for_purchase(campaign_id=c.pk, user=players.users["german"], purchase_id=a4.ref)
    lmg.refresh_from_db()
    # Before: the LMG stayed, its possessor gone with the chart's squads (none).
    assert lmg.possessor is not None
    assert (lmg.possessor.name, lmg.possessor.kind) == ("5-4-8 (A4)", "squad")
    assert sorted(u.name for u in Unit.objects.filter(purchase=a4)) == ["5-4-8 (A4)", "LMG (A4)"]


def test_rg_footnote_a_does_not_deny_in_reserve_to_an_rg_not_marked_a(users, modules):
    """C5.31 RG footnote a "Available for on map set up the TM Scenario of purchase" and
    C5.31b "A unit requisitioned 'In Reserve' may set up on-map during the TM Scenario
    for which it was requisitioned" (pass 15's Left item).  Reading: C5.32 names three
    set-ups, "On-Map set up; In Reserve set up; or enter as Reinforcements", and the
    footnote speaks of the first ("on map set up"), so an I RG the chart does not mark a
    is refused On-Map but bought In Reserve (and may set up Cloaked on the map in its TM
    Scenario of purchase, C5.31b); the price list and the bought line say In Reserve."""
    from campaign.models import Purchase
    from campaign.services.errors import ActionRefused
    from tests.test_phd15_pass15 import US_CHART, buy, price_list
    from tests.test_rule_mechanisms import phd_with_chart

    players, c = phd_with_chart(users, US_CHART, side="us")
    offered = dict(price_list(players, "us", "I2"))
    assert "reserve" in offered and "onmap" not in offered and "onmap_near" not in offered
    with pytest.raises(ActionRefused, match=r"footnote a"):
        buy(players, "us", "I2", "onmap_near")
    p = buy(players, "us", "I2", "reserve")
    assert Purchase.objects.get(pk=p.pk).cost_variant == "reserve"
    # The RG marked a is offered all three.
    assert {"onmap", "reserve", "reinforcement"} <= set(dict(price_list(players, "us", "I1")))


def test_c5_13a_then_c5_26a_an_isolated_squads_lmg_has_each_plus_one_once(
    users, modules, fixed_dice
):
    """C5.13a then C5.26a Weapon Repair Table "+1 If suffering from Ammunition shortage"
    and "+1 If Isolated", tried with infantry (pass 15 tried a Sherman): a squad marked
    Isolated at C5.14 is marked Low Ammo, the malfunctioned LMG it possesses with it
    (C2.0: a SW is in its possessor's Location); at C5.26 the LMG's dr has each +1 once
    (the markers of the weapon and its possessor read together, not counted twice);
    the LMG of a squad not Isolated has neither."""
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add, roll

    players, _ = phd_after(users, "C5.14")
    cut_off = add(players, "us", "6-6-7 A", "squad", markers=("isolated",))
    lmg = add(players, "us", "BAR A", "sw", "malfunctioned", possessor=cut_off.ref)
    free = add(players, "us", "6-6-7 B", "squad")
    lmg2 = add(players, "us", "BAR B", "sw", "malfunctioned", possessor=free.ref)
    done(players, "us")
    done(players, "german")
    assert "low_ammo" in marks(cut_off)
    players.until_step("C5.26")
    fixed_dice.append([3])
    r = roll(players, "us", "weapon_repair", lmg)
    assert sorted(d["label"][:14] for d in r.drms) == ["+1 If Isolated", "+1 If sufferin"]
    assert r.final == 5
    fixed_dice.append([3])
    assert roll(players, "us", "weapon_repair", lmg2).drms == []


def test_c5_26b_an_assault_engineer_mmc_possesses_each_repaired_ft(users, modules, fixed_dice):
    """C5.26b "An Assault Engineer MMC must possess any repaired FT/DC" (the ledger had
    it as the map's; the app holds who possesses each SW and which MMC are Assault
    Engineers, RG footnote e): a FT Repaired (dr 2) rejoins the retained forces
    possessed by the German's non-isolated Pionier squad, not by his Isolated Pionier HS
    nor by a squad of no engineer RG; the roll's result says who.  A repaired Psk (not
    an FT/DC) rejoins with no possessor named, as before."""
    from campaign.models import Event, Roll
    from tests.test_phd_pass6 import with_pioneers
    from tests.test_rule_mechanisms import add, roll

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
    add(players, "german", "4-4-7", "squad")
    fixed_dice.append([2])
    r = roll(players, "german", "baz_psk_ft_dc_repair", item="FT in 23K4")
    (ft,) = Unit.objects.filter(campaign=c, side="german", kind="sw", name="FT")
    # Before: the FT rejoined with no possessor.
    assert ft.possessor_id == squad.pk
    said = Roll.objects.get(pk=r.pk).result
    logged = " ".join(Event.objects.filter(campaign=c).values_list("text", flat=True))
    assert f"FT rejoins the retained forces, possessed by {squad.name} (C5.26b)" in logged, (
        said,
        logged[-600:],
    )
    plain(logged[-300:])
    fixed_dice.append([1])
    roll(players, "german", "baz_psk_ft_dc_repair", item="Psk in 23K5")
    (psk,) = Unit.objects.filter(campaign=c, side="german", kind="sw", name="Psk")
    assert psk.possessor_id is None


def test_c5_19_dr_2_replaces_a_wounded_leader_and_retains_a_wounded_6_plus_1(
    users, modules, fixed_dice
):
    """C5.19 Leader Evacuation Table row 2 "Retained Unwounded & Replaced (A19.13)*" and
    its "* EXC: A wounded 6+1 is retained Unwounded", tried on the US side (the named
    tests roll a German dr 1): a wounded 8-1 on a dr 2 is Replaced by an 8-0, unwounded;
    a wounded 6+1 on a dr 2 stays a 6+1, unwounded; a dr 6 evacuates a wounded 7-0."""
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add, roll, supply_leader_evacuation

    players, _ = phd_after(users, "C5.19")
    c = players.campaign
    supply_leader_evacuation(players, "Retained Wounded", "none")
    eight = add(players, "us", "8-1 leader", "leader", "wounded")
    six = add(players, "us", "6+1 leader", "leader", "wounded")
    seven = add(players, "us", "7-0 leader", "leader", "wounded")
    fixed_dice.extend([[2], [2], [6]])
    roll(players, "us", "leader_evacuation", eight)
    roll(players, "us", "leader_evacuation", six)
    roll(players, "us", "leader_evacuation", seven)
    lines = sorted(
        (u.name, tuple(u.markers))
        for u in Unit.objects.filter(campaign=c, side="us", kind="leader")
    )
    assert lines == [("6+1 leader", ()), ("8-0 leader", ())], lines
    del eight, six, seven


def test_c5_29_the_cvp_drm_rounds_down_and_the_german_attack_chit_gives_plus_one(users, modules):
    """C5.29 "-1 per 10 CVP (FRD) suffered by the friendly side in the previous TM
    Scenario" and "+1 If the friendly side selected 'Attack' Chit in the previous
    scenario", tried on the other side and at the edge (the named test: the US with 29
    CVP): after a German Attack at 0930 in which the German lost 19 CVP (FRD: -1, not
    -2) and the US 10 (exactly -1), the German's 1230 TP DR has +1 and -1, the US's -1."""
    from campaign.models import Roll
    from tests.purchase_helpers import campaign_at
    from tests.test_rule_mechanisms import result_values

    players, module = campaign_at("purple-heart-draw", "tm", "t0930", users, kind="initiative")
    players.chits(german="attack", us="idle")
    players.until("results")
    players.results(**result_values(module, cvp_lost_us=10, cvp_lost_german=19))
    players.until("purchase")
    rolls = {
        r.side: sorted(d["value"] for d in r.drms)
        for r in Roll.objects.filter(
            campaign_id=players.campaign_id,
            table_id="tp_replenishment",
            cycle=players.campaign.cycle,
        )
    }
    assert rolls == {"us": [-1], "german": [-1, 1]}


def test_c5_25_a_san_of_2_or_4_stays_as_it_is_with_no_word(users, modules):
    """C5.25 "a SAN of < 2 has its SAN adjusted to '2'"; "Any side with a SAN that is > 4
    has it reduced to '4'", tried at the edge (the named test: 6 and 1): a German SAN of
    2 and a US SAN of 4 are kept, and the log says no adjustment."""
    from campaign.models import Event, Seat
    from tests.test_phd_conph import phd_after

    players, _ = phd_after(users, "C5.31", san_german=2, san_us=4)
    c = players.campaign
    assert dict(Seat.objects.filter(campaign=c).values_list("side", "san")) == {
        "german": 2,
        "us": 4,
    }
    said = list(Event.objects.filter(campaign=c, kind="san").values_list("text", flat=True))
    assert not any("(C5.25)" in t for t in said), said


def test_c5_26b_a_second_repaired_ft_goes_to_an_engineer_holding_none(users, modules, fixed_dice):
    """C5.26b "An Assault Engineer MMC must possess any repaired FT/DC", twice: with two
    Pionier lines, the first FT repaired goes to the first, the second FT to the other
    (the one holding no FT/DC yet), not both to one squad."""
    from tests.test_phd_pass6 import with_pioneers
    from tests.test_rule_mechanisms import roll

    players, c = with_pioneers(users, 1, "C5.26")
    first = Unit.objects.get(campaign=c, side="german", kind="squad")
    other = Unit.objects.create(
        campaign=c, side="german", name="8-3-8 (I8)", kind="squad", purchase=first.purchase
    )
    fixed_dice.extend([[1], [1]])
    roll(players, "german", "baz_psk_ft_dc_repair", item="FT in 23K4")
    roll(players, "german", "baz_psk_ft_dc_repair", item="DC in 23K4")
    holders = sorted(
        Unit.objects.filter(campaign=c, side="german", kind="sw").values_list(
            "name", "possessor_id"
        )
    )
    # Before this change both went to the first line.
    assert holders == [("DC", other.pk), ("FT", first.pk)], holders


def test_c5_13a_twice_and_after_a_done_taken_back(users, modules):
    """C5.13a, twice and after an undo: the US presses Done at C5.14, takes it back,
    marks a second squad Isolated and presses Done again; once the German is done, each
    Isolated squad is marked Low Ammo once (one log line each), and a squad already
    marked Low Ammo gets no second line."""
    from campaign.models import Event
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add, edit

    players, _ = phd_after(users, "C5.14")
    a = add(players, "us", "6-6-7 A", "squad", markers=("isolated",))
    b = add(players, "us", "6-6-7 B", "squad")
    already = add(players, "us", "6-6-7 C", "squad", markers=("isolated", "low_ammo"))
    done(players, "us")
    steps.take_back_done(campaign_id=players.campaign_id, user=players.users["us"])
    edit(players, "us", b, "isolated")
    done(players, "us")
    done(players, "german")
    assert marks(a) == marks(b) == marks(already) == {"isolated", "low_ammo"}
    said = [
        t
        for t in Event.objects.filter(campaign_id=players.campaign_id).values_list(
            "text", flat=True
        )
        if "(C5.13a)" in t
    ]
    assert len(said) == 2 and all("Low Ammo" in t for t in said), said
    for t in said:
        plain(t)


def test_c5_24_a_heroic_10_3_and_a_wounded_heroic_us_leader(users, modules):
    """C5.24 "Each Heroic leader has its Hero counter removed and is then Battle
    Hardened (A15.3)", tried on the US side and at the top of the ladder (the named
    test: a German 8-1): a heroic 10-3 loses the Hero and stays a 10-3 (none higher); a
    heroic, wounded 7-0 becomes an 8-0, still wounded; a 9-1 not heroic is unchanged."""
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add, unit_names

    players, _ = phd_after(users, "C5.24")
    add(players, "us", "10-3 leader", "leader", status="heroic")
    add(players, "us", "7-0 leader", "leader", "wounded", markers=("heroic",))
    add(players, "us", "9-1 leader", "leader")
    done(players, "us")
    done(players, "german")
    assert unit_names(players, "us", kind="leader") == [
        ("10-3 leader", "leader", "ok", 1),
        ("8-0 leader", "leader", "wounded", 1),
        ("9-1 leader", "leader", "ok", 1),
    ]


def test_c5_15_a_sw_of_an_isolated_squad_stays_an_unpossessed_us_gun_goes(users, modules):
    """C5.15 "any SW/Guns that are not possessed following all Redeployment is complete
    are eliminated from play", tried on the US side and with possession recorded (the
    named test: the German's, by the "not possessed" marker alone): a US 57mm AT Gun
    marked not possessed leaves the retained forces when C5.15 is done; a BAR possessed
    by an Isolated squad (C5.13a: it is in its possessor's Location) stays."""
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add, unit_names

    players, _ = phd_after(users, "C5.15")
    squad = add(players, "us", "6-6-7", "squad", markers=("isolated",))
    add(players, "us", "BAR", "sw", possessor=squad.ref)
    add(players, "us", "57mm AT Gun", "gun", status="unpossessed")
    players.until_step("C5.16")
    assert [n for n, *_ in unit_names(players, "us")] == ["6-6-7", "BAR"]


def test_c5_14_the_defenders_isolated_squad_and_the_attackers_stunned_tank(
    users, modules, fixed_dice
):
    """C5.14 Redeployment DRM "+1 Unit is Isolated", "+1 Unit marked with Stun counter"
    and "+1 Infantry unit is on Wire", tried on the Defender's side after the Attacker's
    Done (the named tests: the US's units): the German squad marked Isolated has +1 by
    itself; the US Sherman marked stunned has +1 by itself, and a tick of the Wire DRM
    for it is refused (Infantry only), nothing rolled; the German's DR before the US's
    Done is refused ("In turn, Attacker first")."""
    from campaign.models import Roll
    from campaign.services.errors import ActionRefused
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add, roll

    players, _ = phd_after(users, "C5.14")
    tank = add(players, "us", "M4A1 Sherman", "vehicle", markers=("stunned",))
    squad = add(players, "german", "4-4-7", "squad", markers=("isolated",))
    with pytest.raises(ActionRefused) as refused:
        roll(players, "us", "redeployment", tank, ticked=["wire"])
    plain(str(refused.value))
    assert (
        not Roll.objects.filter(campaign_id=players.campaign_id)
        .filter(table_id="redeployment")
        .exists()
    )
    fixed_dice.append([3, 3])
    r = roll(players, "us", "redeployment", tank)
    assert [d["label"][:13] for d in r.drms] == ["+1 Unit marke"], r.drms
    # "In turn, Attacker first": the Defender's DR waits for the Attacker's Done.
    with pytest.raises(ActionRefused) as refused:
        roll(players, "german", "redeployment", squad)
    plain(str(refused.value))
    done(players, "us")
    fixed_dice.append([3, 3])
    r = roll(players, "german", "redeployment", squad)
    assert [d["label"][:15] for d in r.drms] == ["+1 Unit is Isol"], r.drms
