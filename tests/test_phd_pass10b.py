"""Purple Heart Draw, tenth pass, part B (issue 44): C4 and C5.26-C5.41 with the RG
chart's notes, driven through the services as a player would, each test citing its
rule (docs/rules-audit/pass-10-phd-b.md)."""

from __future__ import annotations

import pytest

from campaign.models import Event, Purchase, Roll
from campaign.seat_views.campaign_page import campaign_view
from campaign.selectors import module_of
from campaign.services import purchases
from campaign.services.errors import ActionRefused
from tests.test_phd_conph import done
from tests.test_phd_conph_late import OBA, OBA_P
from tests.test_phd_pass9a import GREN
from tests.test_rule_mechanisms import (
    fixed_dice,
    phd_with_chart,
    result_values,
    roll,
    users,
)

pytestmark = [pytest.mark.django_db, pytest.mark.rules]
__all__ = ["fixed_dice", "users"]


def oba_table(user, c):
    view = campaign_view(user, c.pk)
    assert view.panel is not None
    return next(t for t in view.panel.tables if t.id == "oba")


def test_c5_34_a_dr_for_each_oba_module_held_is_compulsory_and_chosen_among_them(
    users, modules, fixed_dice
):
    """C5.34 "To determine the Ammunition of each OBA Module requisitioned, make a DR
    for each" (pass 9's Left: Done passed without it).  The German holds O1 and O2
    (bought at I-C5.31): his Done at I-C5.34 is refused, naming both modules and the
    rule, until each has its DR; the US, who holds none, finishes at once.  The roll
    form offers his held modules by RG ID (a choice, not typed text); a module he does
    not hold, an infantry RG, or one rolled already is refused, citing C5.34, and
    nothing is rolled."""
    players, c = phd_with_chart(users, [OBA_P, OBA, GREN])
    german = players.users["german"]
    purchases.purchase_rg(campaign_id=c.pk, user=german, group_id="O2")
    purchases.purchase_rg(campaign_id=c.pk, user=german, group_id="I9", cost_variant="onmap")
    players.until_step("I-C5.34")
    done(players, "us")  # holds no OBA module: nothing owed
    with pytest.raises(
        ActionRefused,
        match=r"Roll first: the Offboard Artillery Table for O2 81mm OBA Module \(C5\.34\)",
    ):
        done(players, "german")
    table = oba_table(german, c)
    assert table.item_choices == (("O2 81mm OBA Module", "O2 81mm OBA Module"),)
    assert table.item_label == "Which OBA module"
    before = Roll.objects.filter(campaign=c).count()
    for forged in ("O1 105mm OBA Module", "I9 Gren Pl", "81mm OBA", ""):
        with pytest.raises(
            ActionRefused, match=r"OBA modules you hold \(O2 81mm OBA Module\).*\(C5\.34\)"
        ):
            roll(players, "german", "oba", item=forged)
    assert Roll.objects.filter(campaign=c).count() == before
    fixed_dice.append([3, 4])
    r = roll(players, "german", "oba", item="O2 81mm OBA Module")
    assert (r.item, r.final, r.result) == ("O2 81mm OBA Module", 7, "German: Normal")
    with pytest.raises(ActionRefused, match=r"has had its Offboard Artillery Table roll"):
        roll(players, "german", "oba", item="O2 81mm OBA Module")
    table = oba_table(german, c)
    assert not table.item_choices
    assert table.no_item == (
        "Each OBA module you hold has had its Offboard Artillery Table roll in this pass (C5.34)."
    )
    done(players, "german")


def test_c5_34_two_modules_of_one_rg_each_owe_their_dr(users, modules, fixed_dice):
    """C5.34 "make a DR for each": two O2 modules held (requisitioned twice), two DRs,
    each on its own module's line; a side holding none is told so where it would roll
    (the US: "You hold no OBA module"), and its roll is refused."""
    players, c = phd_with_chart(users, [OBA])
    german = players.users["german"]
    purchases.purchase_rg(campaign_id=c.pk, user=german, group_id="O2")
    purchases.purchase_rg(campaign_id=c.pk, user=german, group_id="O2")
    players.until_step("I-C5.34")
    with pytest.raises(ActionRefused, match=r"O2 81mm OBA Module, O2 81mm OBA Module \(2\)"):
        done(players, "german")
    with pytest.raises(ActionRefused, match=r"You hold no OBA module.*\(C5\.34\)"):
        roll(players, "us", "oba", item="O2 81mm OBA Module")
    assert oba_table(players.users["us"], c).no_item == (
        "You hold no OBA module: there is nothing to roll for (C5.34)."
    )
    roll(players, "german", "oba", item="O2 81mm OBA Module")
    # A second roll "O2 ..." is the second module's (named by its RG ID).
    r = roll(players, "german", "oba", item="O2 81mm OBA")
    assert r.item == "O2 81mm OBA Module (2)"
    done(players, "german")


def test_c5_34_the_compulsory_dr_of_a_secret_module_shows_the_opponent_nothing(
    users, modules, fixed_dice
):
    """C5.31 "secretly use TP to requisition reinforcements"; C5.34 "make a DR for
    each": the DR Done waits for is the secret module's own, kept on its RG Purchase
    Record line: the US sees no roll, no log line and no refusal of the German's (his
    log and rolls read through the gate are the same before and after the German's
    refused Done, his DR and his Done)."""
    from campaign.models import Campaign

    players, c = phd_with_chart(users, [OBA])
    Campaign.objects.filter(pk=c.pk).update(reveal_policy="scenario_end")
    german = players.users["german"]
    players.until("results")
    players.results(**result_values(module_of(c)))
    players.until_step("C5.31")
    o2 = purchases.purchase_rg(campaign_id=c.pk, user=german, group_id="O2")
    players.until_step("C5.34")
    seen = list(Event.objects.visible_to("us").filter(campaign=c).values_list("shown", flat=True))
    rolls = Roll.objects.visible_to("us").filter(campaign=c).count()
    with pytest.raises(ActionRefused, match="Roll first"):
        done(players, "german")
    roll(players, "german", "oba", item="O2 81mm OBA Module")
    after = list(Event.objects.visible_to("us").filter(campaign=c).values_list("shown", flat=True))
    assert after == seen
    assert Roll.objects.visible_to("us").filter(campaign=c).count() == rolls
    o2 = Purchase.objects.get(pk=o2.pk)
    assert [x["table"] for x in o2.details["rolls"]] == ["Offboard Artillery Table"]


def seat_of(players, side):
    from campaign.models import Seat

    return Seat.objects.get(campaign_id=players.campaign_id, side=side)


def test_c5_35_the_start_dsp_fortifications_and_what_done_forfeits(users, modules):
    """C5.29 EXC "No roll is made for the Initial TM Scenario" (no TP DR at I-C5.29);
    C5.36c "Is not the Initial TM Scenario" (no Recon step before it); C5.35 note 1
    "DSP for 3, 2, and 1- squad capacity" (a 2-squad Foxhole: 2 DSP); note 4 "Add the
    Capacity, the CA DRM, and the NCA DRM together" (Pillbox 2+1+2: 5 DSP); note G
    (Booby Traps, German only) at 30 DSP; "Any unspent DSP are lost": the German's Done
    names the DSP it forfeits before the click, and after it he holds none."""
    players, c = phd_with_chart(users, [OBA])
    german = players.users["german"]
    module = module_of(c)
    assert not any(s.start and s.kind == "recon" for s in module.steps)  # C5.36c
    players.until_step("I-C5.35")
    assert not Roll.objects.filter(campaign=c, table_id="tp_replenishment").exists()
    assert seat_of(players, "german").fortification_points == 60
    purchases.buy_fortification(
        campaign_id=c.pk, user=german, item_id="foxhole", tier=1, location="K5"
    )
    assert seat_of(players, "german").fortification_points == 58
    purchases.buy_fortification(
        campaign_id=c.pk,
        user=german,
        item_id="pillbox",
        figures={"capacity": 2, "ca_drm": 1, "nca_drm": 2},
        location="L6",
    )
    assert seat_of(players, "german").fortification_points == 53
    with pytest.raises(ActionRefused, match=r"American cannot buy Booby Traps \(C5\.35 note G\)"):
        purchases.buy_fortification(
            campaign_id=c.pk, user=players.users["us"], item_id="booby_traps", location="M7"
        )
    purchases.buy_fortification(campaign_id=c.pk, user=german, item_id="booby_traps")
    assert seat_of(players, "german").fortification_points == 23
    view = campaign_view(german, c.pk)
    assert view.panel is not None
    assert "23 unspent DSP will be forfeit (C5.35)." in view.panel.finish_warnings
    done(players, "german")
    assert not seat_of(players, "german").fortification_points


def test_c5_29_after_the_initial_tm_scenario_no_attack_chit_was_selected(users, modules):
    """C5.29 "+1 If the friendly side selected 'Attack' Chit in the previous scenario"
    read after the Initial TM Scenario (pass 9's Left (c)): C4.2 assigns the US the
    attack there ("US Attack: German sets up first"; the glossary's Attack Option:
    "attacker is assigned [in the] initial scenario"), no chit is selected, so neither
    side's 0930 TP DR has the +1.  "-1 per 10 CVP (FRD) suffered": the US lost 19 CVP,
    -1.  "to be added to any TP remaining from the previous TM Scenario": each side's
    TP after the DR are what it kept plus the table's figure."""
    players, c = phd_with_chart(users, [OBA])
    players.until("results")
    kept = {s: seat_of(players, s).points for s in ("german", "us")}
    players.results(**result_values(module_of(c), cvp_lost_us=19))
    players.until("purchase")
    module = module_of(c)
    assert module.dates[players.campaign.date_index].id == "t0930"
    rolls = {
        r.side: r
        for r in Roll.objects.filter(
            campaign=c, table_id="tp_replenishment", cycle=players.campaign.cycle
        )
    }
    assert sorted(rolls) == ["german", "us"]
    assert [(d["value"], d["how"]) for d in rolls["us"].drms] == [(-1, "auto")]
    assert rolls["german"].drms == []
    table = module.table("tp_replenishment")
    for side, r in rolls.items():
        row = table.result_row(r.final)
        gained = int(row.results[table.column_for_side[side]].lstrip("+"))
        assert seat_of(players, side).points == kept[side] + gained, (side, r.final)


def test_c5_26a_c5_27_an_isolated_immobilized_afv_with_a_malfunctioned_mg(
    users, modules, fixed_dice
):
    """C5.26a WEAPON REPAIR TABLE "-2 If Vehicular-mounted", "+1 If Isolated", "+1 If
    suffering from Ammunition shortage" (all by themselves for an isolated Sherman's
    malfunctioned BMG): dr 3 -2 +1 +1 = 3, "≥3 Eliminated", which for a vehicular MG is
    Disabled (the vehicle stays, C5.27b "even if disabled in C5.26").  C5.27a
    IMMOBILIZATION REPAIR TABLE "+1 If Isolated" by itself: dr 1 +1 = 2, "≤2 Becomes
    Mobile" (the Immobilized marker removed, Isolated kept).  C5.27c "Each
    non-captured, non-isolated weapon": the isolated Sherman may not roll for special
    ammunition; a Gun that is not isolated may, once."""
    from tests.purchase_helpers import add_vehicle
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add

    players, _ = phd_after(users, "C5.26")
    tank, (bmg,) = add_vehicle(
        players, "us", "M4A1", ("mg", ["malfunctioned"], "BMG"), markers=["isolated", "immobilized"]
    )
    gun = add(players, "us", "57L AT Gun", "gun")
    fixed_dice.append([3])
    r = roll(players, "us", "weapon_repair", tank, weapon=bmg)
    assert sorted((d["value"], d["how"]) for d in r.drms) == [
        (-2, "auto"),
        (1, "auto"),
        (1, "auto"),
    ]
    assert (r.final, r.result) == (3, "Eliminated")
    tank.refresh_from_db()
    assert [w["markers"] for w in tank.weapons] == [["disabled"]]
    players.until_step("C5.27")
    fixed_dice.append([1])
    r = roll(players, "us", "immobilization_repair", tank)
    assert [(d["value"], d["how"]) for d in r.drms] == [(1, "auto")]
    assert (r.final, r.result) == (2, "Becomes Mobile")
    tank.refresh_from_db()
    assert tank.markers == ["isolated"]
    with pytest.raises(ActionRefused):
        roll(players, "us", "special_ammunition", tank)
    roll(players, "us", "special_ammunition", gun)
    with pytest.raises(ActionRefused):
        roll(players, "us", "special_ammunition", gun)


def test_c5_36_a_recon_with_one_additional_tp_and_c5_37_attack_or_idle(users, modules, fixed_dice):
    """C5.36 "The Reconnaissance dr is modified by +5 if the side has spent 1
    additional TP": the US pays 2 TP, dr 2 +5 = 7 locations, and "The TP cost ... plus
    any additional TP ... is now deducted" (5 → 3); a second Recon dr in the pass is
    refused, nothing spent.  C5.37 "to either 'Attack' or stand 'Idle'": no other chit
    may be locked; German Attack, US Idle gives C5.37b "US sets up first; German moves
    first"."""
    from campaign.models import InitiativeOutcome
    from tests.purchase_helpers import campaign_at

    players, _ = campaign_at("purple-heart-draw", "tm", "t0930", users, kind="recon", points=5)
    us = players.users["us"]
    fixed_dice.append([2])
    r = purchases.buy_recon(campaign_id=players.campaign_id, user=us, option=1)
    assert (r.cost, r.locations) == (2, 7)
    assert seat_of(players, "us").points == 3
    with pytest.raises(ActionRefused, match=r"Recon is bought once per CG date \(C5\.36\)"):
        purchases.buy_recon(campaign_id=players.campaign_id, user=us, option=0)
    assert seat_of(players, "us").points == 3
    players.until("initiative")
    with pytest.raises(ActionRefused, match=r"Choose Attack or Idle \(C5\.37\)\."):
        players.chits(german="dual")
    players.chits(german="attack", us="idle")
    outcome = InitiativeOutcome.objects.get(campaign_id=players.campaign_id, scenario=True)
    assert (outcome.result, outcome.sets_up_first, outcome.moves_first) == (
        "german_attack",
        "us",
        "german",
    )


@pytest.mark.parametrize(
    ("table_id", "side", "lowest", "highest"),
    [
        # C5.34: DR 2-12, -1 (Attack chit) and +1 (FFE): German "≤3 Plentiful" to
        # "≥12 Scarce" and the US's "≥12 Scarce" are reached.
        ("oba", "german", 1, 13),
        ("oba", "us", 1, 13),
    ],
)
def test_c5_34_every_row_of_the_oba_tables_is_reachable(table_id, side, lowest, highest):
    """Issue 44 class 7 on C5.34's GERMAN and US OFFBOARD ARTILLERY TABLEs: the Final DR
    a module can roll, with the table's DRMs, spans every printed row; the module
    reports no unreachable row of its C5.26-C5.41 tables."""
    from rules.loader import MODULE_DIR, load_file
    from rules.reach import reach, unreachable_rows

    module = load_file(MODULE_DIR / "purple-heart-draw.yaml", overrides=False)
    table = module.table(table_id)
    assert reach(module, table, side) == (lowest, highest)
    late = {
        "weapon_repair",
        "baz_psk_ft_dc_repair",
        "captured_equipment",
        "immobilization_repair",
        "special_ammunition",
        "fortification_clearance",
        "tp_replenishment",
        "oba",
    }
    assert not [u for u in unreachable_rows(module) if u.table in late]
