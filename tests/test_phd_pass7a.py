"""Issue 44, seventh pass on Purple Heart Draw, part A (C2-C5.24): the sixth pass's
"Left" items of this scope and a new sample of sentences tried through the services as
a player would (``docs/rules-audit/pass-7-phd-a.md``)."""

from __future__ import annotations

import pytest

from campaign.models import Roll, Unit
from campaign.seat_views.campaign_page import campaign_view
from campaign.selectors import done_sides, module_of
from campaign.services import purchases, steps
from campaign.services.errors import ActionRefused
from tests import test_rule_mechanisms as mechanisms
from tests.test_phd_conph import phd_after
from tests.test_rule_mechanisms import (
    add,
    exchange,
    phd_with_chart,
    result_values,
    roll,
    start,
    unit_names,
)

users = mechanisms.users
fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


def done(players, side):
    steps.finish_step(campaign_id=players.campaign_id, user=players.users[side])


def drms_of(r: Roll) -> list[tuple[str, int, str]]:
    return sorted((d["label"].split(" ", 2)[2], d["value"], d["how"]) for d in r.drms)


# --------------------------------------------------------------------------- C5.13/C5.14


def test_c5_13_c5_14_one_redeployment_dr_per_retained_unit_and_its_result_applied(
    users, modules, fixed_dice
):
    """C5.13: "Any unit attempting to redeploy must make a DR on the suitable table ...
    and immediately applying the results"; C5.13a "No unit may redeploy more than once
    per ConPh"; the C5.14 table's two columns.  A squad's DR 11 "Redeploys, Reduced"
    marks it Casualty Reduced; another's 14 "Eliminated" removes it; a vehicle reads the
    Mobile Vehicle column (11: "Remains in hex", no change); a second DR for the same
    unit is refused, and so is one for an Immobilized vehicle (not a Mobile Vehicle)."""
    players, _ = phd_after(users, "C5.14")
    reduced = add(players, "us", "6-6-7 A", "squad")
    lost = add(players, "us", "6-6-7 B", "squad")
    tank = add(players, "us", "M4A1 Sherman", "vehicle")
    stuck = add(players, "us", "M4 Sherman (bogged)", "vehicle", status="immobilized")
    fixed_dice.extend([[5, 6], [6, 6], [5, 6]])
    r = roll(players, "us", "redeployment", reduced)
    assert (r.final, r.result) == (11, "Infantry: Redeploys, Reduced")
    r = roll(players, "us", "redeployment", lost, ticked=["enemy_feba"])
    assert (r.final, r.result) == (14, "Infantry: Eliminated")
    r = roll(players, "us", "redeployment", tank)
    assert (r.final, r.result) == (11, "Mobile Vehicle: Remains in hex")
    assert unit_names(players, "us") == [
        ("6-6-7 A", "squad", "reduced", 1),
        ("M4 Sherman (bogged)", "vehicle", "immobilized", 1),
        ("M4A1 Sherman", "vehicle", "ok", 1),
    ]
    with pytest.raises(ActionRefused):
        roll(players, "us", "redeployment", Unit.objects.get(pk=reduced.pk))
    with pytest.raises(ActionRefused, match="not immobilized"):
        roll(players, "us", "redeployment", stuck)
    assert Roll.objects.filter(campaign_id=players.campaign_id, side="us").count() == 3


def test_c5_14_isolated_and_stun_drms_follow_from_the_markers_infantry_drms_not_for_vehicles(
    users, modules, fixed_dice
):
    """C5.14 Redeployment DRM "+1 Unit is Isolated" and "+1 Unit marked with Stun
    counter": computed from the unit's markers (C5.6 keeps Stun counters; an Isolated
    unit is marked so by its owner), never claimed for a unit not so marked.  "+1
    Infantry unit is on Wire", "+1 per HS equivalent > one squad" and "+1 per PP > IPC"
    are Infantry's: refused for a vehicle's DR."""
    players, _ = phd_after(users, "C5.14")
    cut_off = add(players, "us", "6-6-7", "squad", markers=("isolated", "stunned"))
    free = add(players, "us", "7-4-7", "squad")
    tank = add(players, "us", "M4A1 Sherman", "vehicle", markers=("stunned",))
    fixed_dice.extend([[3, 3], [3, 3], [3, 3]])
    r = roll(players, "us", "redeployment", cut_off)
    assert (
        drms_of(r) == [("is Isolated", 1, "auto"), ("marked with Stun counter", 1, "auto")]
        and r.final == 8
    )
    with pytest.raises(ActionRefused):
        roll(players, "us", "redeployment", free, ticked=["isolated"])
    with pytest.raises(ActionRefused):
        roll(players, "us", "redeployment", free, ticked=["stun"])
    for wrong in ({"ticked": ["wire"]}, {"typed": {"extra_hs": 1}}, {"typed": {"portage": 1}}):
        with pytest.raises(ActionRefused):
            roll(players, "us", "redeployment", tank, **wrong)
    r = roll(players, "us", "redeployment", tank, ticked=["enemy_feba"])
    assert drms_of(r) == [
        ("is in enemy FEBA", 2, "ticked"),
        ("marked with Stun counter", 1, "auto"),
    ]
    r = roll(players, "us", "redeployment", free, ticked=["wire"])
    assert drms_of(r) == [("unit is on Wire [EXC: behind friendly FEBA]", 1, "ticked")]


def test_c5_13_exc_redeployment_is_never_owed_done_without_a_dr(users, modules):
    """C5.13 EXC: "Non-Gun crew infantry in Friendly FEBA may redeploy without a DR"
    (and C5.14 v: "may be secretly moved"): the Redeployment DR is never compulsory:
    the Attacker, then the Defender, press Done without one."""
    players, _ = phd_after(users, "C5.14")
    add(players, "us", "6-6-7", "squad")
    add(players, "german", "5-4-8", "squad")
    done(players, "us")
    done(players, "german")
    assert players.step.id != "C5.14"


# --------------------------------------------------------------------------- sample


def test_c5_6_kept_markers_survive_the_conph_steps(users, modules):
    """C5.6 "DO NOT REMOVE ... Immobilized, Bog, Stun, Malfunction, Disabled ...": the
    markers Refit keeps on the retained forces are still there after the Marker Removal
    step and the steps that follow, up to the Redeployment."""
    players, _ = phd_after(users, "C5.6")
    add(players, "us", "M4A1 Sherman", "vehicle", status="immobilized")
    add(players, "us", "6-6-7", "squad", markers=("stunned",))
    add(players, "german", "MG42", "sw", status="malfunctioned")
    before = unit_names(players, "us") + unit_names(players, "german")
    players.until_step("C5.14")
    assert unit_names(players, "us") + unit_names(players, "german") == before


def test_c5_15_unpossessed_sw_and_guns_are_eliminated_possessed_ones_stay(users, modules):
    """C5.15: "any SW/Guns that are not possessed following all Redeployment is
    complete are eliminated from play": at the end of the step, not before."""
    players, _ = phd_after(users, "C5.15")
    add(players, "german", "MG42", "sw", status="unpossessed")
    add(players, "german", "7.5cm PaK 40", "gun", status="unpossessed")
    add(players, "german", "Psk", "sw")
    assert len(unit_names(players, "german")) == 3
    players.until_step("C5.16")
    assert unit_names(players, "german") == [("Psk", "sw", "ok", 1)]


def test_c5_19_only_a_wounded_leader_is_rolled_for(users, modules, fixed_dice):
    """C5.19: "For each Wounded Leader a dr is made": not for an unwounded leader, nor
    for a squad."""
    players, module = start("purple-heart-draw", "tm", users, "us")
    mechanisms.supply_leader_evacuation(players, "Retained Wounded", "none")
    players.results(**result_values(module))
    players.until_step("C5.19")
    fine = add(players, "us", "8-1 leader", "leader")
    squad = add(players, "us", "6-6-7", "squad")
    for unit in (fine, squad):
        with pytest.raises(ActionRefused, match="wounded"):
            roll(players, "us", "leader_evacuation", unit)
    assert not Roll.objects.filter(campaign_id=players.campaign_id).exists()


def test_c5_22_a_hero_never_combines_with_a_leader(users, modules):
    """C5.22: a Hero is "combined" with "any (non-crew) MMC": a leader (an SMC) is
    refused, with the rule."""
    players, _ = phd_after(users, "C5.22")
    hero = add(players, "us", "1-4-9 Hero", "hero")
    leader = add(players, "us", "8-1 leader", "leader")
    with pytest.raises(ActionRefused, match="C5.22"):
        exchange(players, "us", hero, leader)
    assert ("8-1 leader", "leader", "ok", 1) in unit_names(players, "us")


def test_c5_23_cvp_drm_is_rounded_down(users, modules, fixed_dice):
    """C5.23: "-1 per 10 CVP (FRD) amassed by friendly side in this scenario": the US
    amassed 19 CVP (the German's losses): -1, not -2; the German amassed 10: -1."""
    players, _ = phd_after(users, "C5.23", cvp_lost_german=19, cvp_lost_us=10)
    add(players, "german", "4-6-7", "squad")  # an MMC each DR may Battle Harden
    add(players, "us", "6-6-7", "squad")
    fixed_dice.extend([[3, 3], [3, 3]])
    assert [d["value"] for d in roll(players, "us", "battlefield_promotion").drms] == [-1]
    assert [d["value"] for d in roll(players, "german", "battlefield_promotion").drms] == [-1]


def test_c5_24_the_selected_leader_wounded_the_next_lower_non_wounded_hardens(
    users, modules, fixed_dice
):
    """C5.24 footnote *: "the player must Battle Harden the next lower quality
    non-wounded leader": a DR 4 selects a 9-1; the German's 9-1 is wounded, so his 8-1
    Battle Hardens (to a 9-1) and the wounded one is untouched."""
    players, _ = phd_after(users, "C5.24")
    add(players, "german", "9-1 leader", "leader", status="wounded")
    add(players, "german", "8-1 leader", "leader")
    fixed_dice.append([2, 2])
    assert roll(players, "german", "leader_promotion").result == "9-1"
    assert unit_names(players, "german") == [
        ("9-1 leader", "leader", "ok", 1),
        ("9-1 leader", "leader", "wounded", 1),
    ]


def test_c5_24_an_armour_leader_is_not_an_infantry_leader(users, modules, fixed_dice):
    """C5.24: "a secret DR to Battle Harden one Retained Non-Wounded Infantry Leader":
    a DR 3 selects a 9-2; the German's only 9-2 is an Armour Leader, so the next lower
    Infantry leader, his 8-1, Battle Hardens; the Armour Leader does not."""
    players, _ = phd_after(users, "C5.24")
    add(players, "german", "9-2 Armour Leader", "leader")
    add(players, "german", "8-1 leader", "leader")
    fixed_dice.append([1, 2])
    assert roll(players, "german", "leader_promotion").result == "9-2"
    assert unit_names(players, "german") == [
        ("9-1 leader", "leader", "ok", 1),
        ("9-2 Armour Leader", "leader", "ok", 1),
    ]


def test_c5_24_once_per_side_and_the_roll_or_the_promotion_not_both(users, modules, fixed_dice):
    """C5.24: "Each side has the option to make a secret DR ... OR promote a leader out
    of the Ranks (C5.24a)": one DR per side, secret; after it no promotion out of the
    Ranks; the option is not compulsory (Done without it)."""
    players, _ = phd_after(users, "C5.24")
    add(players, "german", "4-6-8", "squad", number=4)
    # A leader the DR may Battle Harden: with none it is refused (C5.24, pass 17).
    add(players, "german", "8-0 leader", "leader")
    fixed_dice.append([3, 4])
    r = roll(players, "german", "leader_promotion")
    assert r.secret
    with pytest.raises(ActionRefused):
        roll(players, "german", "leader_promotion")
    with pytest.raises(ActionRefused):
        steps.take_instead_of_roll(
            campaign_id=players.campaign_id,
            user=players.users["german"],
            table_id="leader_promotion",
        )
    done(players, "us")  # the US takes neither: its Done is not refused
    assert not Roll.objects.filter(
        campaign_id=players.campaign_id, side="us", table_id="leader_promotion"
    ).exists()


@pytest.mark.parametrize(
    ("leaders", "squads", "half_squads", "allowed"),
    [(2, 8, 0, True), (3, 8, 0, False), (2, 7, 2, True), (2, 7, 1, False)],
)
def test_c5_24a_one_leader_per_four_squad_equivalents(
    users, modules, leaders, squads, half_squads, allowed
):
    """C5.24a: "Provided that a side does not have > one leader per four
    squad-equivalents of its currently retained units": 2 leaders and 8 squads (one
    per four) may promote; 3 and 8 may not; a HS is half a squad-equivalent (7 squads
    and 2 HS are 8)."""
    players, _ = phd_after(users, "C5.24")
    add(players, "us", "8-0 leader", "leader", number=leaders)
    add(players, "us", "6-6-7", "squad", number=squads)
    if half_squads:
        add(players, "us", "3-3-7", "half_squad", number=half_squads)

    def promote():
        from tests.test_rule_mechanisms import an_mmc

        return steps.take_instead_of_roll(
            campaign_id=players.campaign_id,
            user=players.users["us"],
            table_id="leader_promotion",
            mmc_id=an_mmc(players, "us"),
        )

    if allowed:
        assert promote().name == "7-0 leader"
    else:
        with pytest.raises(ActionRefused, match="C5.24a"):
            promote()


def test_tm20_a_gyrostabilizer_dr_is_for_a_vehicle_only(users, modules, fixed_dice):
    """TM20: "a secret dr, to determine if an eligible Sherman tank has a functioning
    Gyrostabilizer": not for a squad."""
    players, module = start("purple-heart-draw", "tm", users, "us")
    players.results(**result_values(module))
    squad = add(players, "us", "6-6-7", "squad")
    players.until_step("C5.37")
    players.chits(german="idle", us="attack")
    players.until_step("TM20")
    with pytest.raises(ActionRefused, match="vehicle"):
        roll(players, "us", "gyrostabilizer", squad)


def test_c5_14_the_defender_finishes_only_after_the_attacker(users, modules, client):
    """C5.14 "In turn, Attacker first" (the sixth pass's Left item): the Defender (the
    German after the US Attack of the Initial TM Scenario, C4.2/C5.3) cannot press Done
    before the Attacker: refused with the rule, nothing marked done, and his page offers
    no Done but says why; once the US is done, the German finishes."""
    players, _ = phd_after(users, "C5.14")
    with pytest.raises(ActionRefused, match=r"Attacker .American, C5.3. goes first") as refused:
        done(players, "german")
    assert refused.value.status == 409
    assert done_sides(players.campaign) == frozenset()
    client.force_login(players.users["german"])
    page = client.get(f"/campaigns/{players.campaign_id}/").content.decode()
    assert "you finish once it is done" in page and "Done with C5.14" not in page
    assert "Go on without it" not in page
    done(players, "us")
    done(players, "german")
    assert players.step.id != "C5.14"


def test_tm13_exc_a_60mm_mortar_oba_module_receives_a_radio_only(users, modules):
    """TM13: "The player may add a Radio or fieldphone to his On-Map OB when an OBA module
    is requisitioned as a RG [EXC: 60mm Mortar OBA will receive a Radio only]": the US
    RG the players give the group kind 60mm (with or without oba) joins with a
    Radio, never a "Radio or Fieldphone"; an 81mm module still brings either."""
    us, _ = users  # the host, on the US side
    players, c = phd_with_chart(
        users,
        [
            {"id": "O1", "type": "81mm OBA Module", "units": "OBA", "cost": "4", "tags": "oba"},
            {
                "id": "O2",
                "type": "60mm Company MTR OBA",
                "units": "OBA",
                "cost": "2",
                "tags": "oba, 60mm",
            },
        ],
        side="us",
    )
    purchases.purchase_rg(campaign_id=c.pk, user=us, group_id="O1")
    purchases.purchase_rg(campaign_id=c.pk, user=us, group_id="O2")
    players.until_step("I-C5.35")
    assert unit_names(players, "us", kind="sw") == [
        ("Radio (O2)", "sw", "ok", 1),
        ("Radio or Fieldphone (O1)", "sw", "ok", 1),
    ]


def test_c2_0_in_reserve_only_a_g_hw_and_i_rgs(users, modules):
    """C2.0 "In Reserve: Any side's "A", "G", "HW", or "I" RGs ... may be set up In
    Reserve" (C5.31b): a V RG (vehicles) bought In Reserve is refused with the rule,
    nothing spent; an I and a G RG may be."""
    german, _ = users
    players, c = phd_with_chart(
        users,
        [
            {"id": "I9", "type": "Gren Pl", "units": "4-6-8", "unit_kind": "squad", "cost": "4"},
            {"id": "G7", "type": "75mm PaK 40", "units": "PaK 40", "unit_kind": "gun", "cost": "3"},
            {"id": "V1", "type": "StuG IIIG", "units": "StuG", "unit_kind": "vehicle", "cost": "6"},
        ],
    )
    with pytest.raises(ActionRefused, match="C5.31b"):
        purchases.purchase_rg(campaign_id=c.pk, user=german, group_id="V1", cost_variant="reserve")
    assert not c.purchases.exists()
    for rg in ("I9", "G7"):
        bought = purchases.purchase_rg(
            campaign_id=c.pk, user=german, group_id=rg, cost_variant="reserve"
        )
        assert bought.cost_variant == "reserve"


def test_c5_13a_once_per_conph_the_same_unit_redeploys_again_at_the_next(users, modules):
    """C5.13a "No unit may redeploy more than once per ConPh": once per ConPh, not once
    per TM: the squad that redeployed after the Initial TM Scenario makes its DR again
    at the next ConPh's Redeployment."""
    players, module = phd_after(users, "C5.14")
    squad = add(players, "us", "6-6-7", "squad")
    roll(players, "us", "redeployment", squad)
    players.until_step("C5.37")
    players.chits(german="idle", us="attack")
    players.until("results")
    players.results(**result_values(module))
    players.until_step("C5.14")
    again = roll(players, "us", "redeployment", Unit.objects.get(pk=squad.pk))
    assert again.unit_ref == squad.ref and again.cycle > 0


def test_c5_23_a_crew_is_an_mmc_and_may_battle_harden(users, modules, fixed_dice):
    """C5.23: "the number of MMC that may be Battle-Hardened": unlike C5.22's and
    C5.24a's "(non-crew) MMC", a crew (recorded as a half-squad line naming Crew) may be
    chosen."""
    players, _ = phd_after(users, "C5.23")
    crew = add(players, "german", "2-2-8 Crew", "half_squad")
    fixed_dice.append([1, 1])
    assert roll(players, "german", "battlefield_promotion").result == "3 MMC may Battle Harden"
    steps.harden_mmc(
        campaign_id=players.campaign_id,
        user=players.users["german"],
        table_id="battlefield_promotion",
        unit_id=crew.ref,
    )
    assert unit_names(players, "german") == [("2-2-8 Crew", "half_squad", "battle_hardened", 1)]


def test_c5_22_a_hero_combines_with_a_half_squad(users, modules):
    """C5.22: "combined with any (non-crew) MMC": a HS is an MMC: it Battle Hardens and
    the Hero leaves."""
    players, _ = phd_after(users, "C5.22")
    hero = add(players, "german", "1-4-9 Hero", "hero")
    hs = add(players, "german", "2-4-8", "half_squad")
    exchange(players, "german", hero, hs)
    assert unit_names(players, "german") == [("2-4-8", "half_squad", "battle_hardened", 1)]


def test_c5_14_what_the_player_sees_one_dr_per_unit_and_the_drms_that_apply_by_themselves(
    users, modules, client
):
    """C5.13/C5.14 on the US page: the Redeployment Table is rolled for one of his units
    (a choice of his own units, not a free text), the Isolated and Stun DRMs say they
    apply by themselves, the others are ticked; no module word."""
    players, _ = phd_after(users, "C5.14")
    squad = add(players, "us", "6-6-7", "squad")
    client.force_login(players.users["us"])
    page = client.get(f"/campaigns/{players.campaign_id}/").content.decode()
    assert 'id="unit-redeployment"' in page and squad.ref in page
    assert 'id="item-redeployment"' not in page
    assert "once each in this pass; its result is written to the unit" in page
    assert "+1 +1" not in page, page[
        page.find("Unit is Isolated") - 200 : page.find("Unit is Isolated") + 50
    ]
    assert "Unit is Isolated — applied by itself when it holds" in page
    assert "Unit marked with Stun counter — applied by itself when it holds" in page
    assert 'id="tick-redeployment-enemy_feba"' in page
    for word in ("for_units", "column_for_kind", "unit_markers", "offer_when"):
        assert word not in page
    isolated = add(players, "us", "7-4-7", "squad", markers=("isolated",))
    roll(players, "us", "redeployment", isolated)
    page = client.get(f"/campaigns/{players.campaign_id}/").content.decode()
    i = page.find("+1 +1")
    assert i < 0, page[i - 300 : i + 100]
    assert ", +1 Unit is Isolated" in page


def test_a_drm_named_with_its_value_is_printed_with_it_once():
    """What the player reads: a DRM the rules print with its value ("+1 Unit is
    Isolated", "-1 Adjacent to friendly Front Line Hex") is shown after its value once;
    a typed value other than the printed one keeps the printed words."""
    from campaign.templatetags.refit import after_value_filter

    assert after_value_filter("+1 Unit is Isolated", 1) == "Unit is Isolated"
    assert after_value_filter("-1 Unit under Labor counter", -1) == "Unit under Labor counter"
    assert after_value_filter("+1 per PP beyond the IPC", 2) == "at +1 per PP beyond the IPC"
    assert after_value_filter("If lone, unwounded SMC", -1) == "If lone, unwounded SMC"


def test_c5_14_no_finishing_ahead_through_the_redeployment(users, modules):
    """C5.14 "In turn, Attacker first": the Defender may not get past the Redeployment
    by finishing the map steps before it at once ("Done with C5.2 to ..."): a run
    finished ahead stops before C5.14, for either side, and a Done through it is
    refused."""
    players, _ = phd_after(users, "C5.2")
    order = [s.id for s in module_of(players.campaign).steps]
    for side in ("german", "us"):
        lasts = [
            last for last, *_ in campaign_view(players.users[side], players.campaign_id).panel.ahead
        ]
        assert lasts, side
        assert all(order.index(last) < order.index("C5.14") for last in lasts), (side, lasts)
    with pytest.raises(ActionRefused, match="cannot be finished together"):
        steps.finish_step(
            campaign_id=players.campaign_id, user=players.users["german"], through="C5.15"
        )
