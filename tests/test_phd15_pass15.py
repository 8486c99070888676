"""Purple Heart Draw, fifteenth pass (issue 44): pass 12's Left items (RG footnote a,
C5.32's "Set up <2 hexes from enemy FEBA" row, a late dr on RG footnote u's type table)
and C1-C5 sentences no earlier pass doc quotes, driven through the services as a player
would (the wrong side, another RG, twice, skipped), each test citing its rule
(docs/rules-audit/pass-15-phd15.md)."""

from __future__ import annotations

import pytest

from campaign.models import Purchase, Roll, Unit
from campaign.services import purchases
from campaign.services.errors import ActionRefused
from tests.test_phd_pass9a import GREN
from tests.test_player_words import FORBIDDEN
from tests.test_rule_mechanisms import fixed_dice, phd_with_chart, users

pytestmark = [pytest.mark.django_db, pytest.mark.rules]
__all__ = ["fixed_dice", "users"]


def plain(sentence: str) -> None:
    """What the player reads has no module or transcription words."""
    assert not FORBIDDEN.search(sentence), sentence


def buy(players, side, gid, variant):
    return purchases.purchase_rg(
        campaign_id=players.campaign_id,
        user=players.users[side],
        group_id=gid,
        cost_variant=variant,
    )


def price_list(players, side, gid, *, initial=True):
    """The prices ``side``'s chart offers ``gid`` (set-up, TP), as its purchase page
    lists them."""
    from campaign.selectors import module_of
    from rules.purchase import cost_options

    module = module_of(players.campaign)
    group = module.group(side, gid)
    return [(o.variant, o.cost) for o in cost_options(module, side, group, initial=initial)]


def page_of(players, side) -> str:
    import html

    from django.test import Client

    client = Client()
    client.force_login(players.users[side])
    return html.unescape(client.get(f"/campaigns/{players.campaign_id}/").content.decode())


STUGS = {
    "id": "A3",
    "type": "StuG Pl",
    "units": "StuG IIIG",
    "unit_kind": "vehicle",
    "full": "2",
    "cost": "6",
    "footnotes": "u",
}


def test_rg_footnote_u_a_late_type_dr_replaces_the_chart_units(users, modules, fixed_dice):
    """C5.31 RG footnote u "Determine RG type as per following table" (pass 12 phd13's Left
    item): the table is lost, so an RG marked u that makes its rolls first joins with
    its chart row's units and its line says "not rolled".  Once the players supply a
    type table whose rows give units, the dr is made and what it gives REPLACES the
    chart's units, as an in-time dr does (its # counts them), not beside them."""
    from tests.purchase_helpers import make_rolls
    from tests.test_rule_mechanisms import row_table, supply

    players, c = phd_with_chart(users, [STUGS])
    german = players.users["german"]
    a3 = buy(players, "german", "A3", "onmap")
    a3 = make_rolls(players, "german", a3)
    assert a3.details["rolls"][0]["result"].startswith("not rolled")
    assert [(u.name, u.count) for u in Unit.objects.filter(purchase=a3)] == [
        ("StuG IIIG (A3 StuG Pl)", 2)
    ]
    supply(
        players,
        "tables.rg_type",
        row_table(
            [
                ("1-4", "StuG", "units: 3 x StuG IIIG (vehicle)"),
                ("5-6", "5cm Pak 38", "units: 1 x 5cm PaK 38 (gun)"),
            ]
        ),
    )
    fixed_dice.append([5])
    purchases.roll_for_purchase(campaign_id=c.pk, user=german, purchase_id=a3.ref)
    (r,) = Roll.objects.filter(campaign=c, table_id="rg_type")
    assert (r.result, r.secret) == ("5cm Pak 38", True)
    a3.refresh_from_db()
    # Before: the StuGs stayed beside the Pak (3 lines' worth: 2 StuG + 1 Pak).
    units = [(u.name, u.kind, u.count) for u in Unit.objects.filter(purchase=a3)]
    assert units == [("5cm PaK 38 (A3)", "gun", 1)]
    assert a3.units == 1
    # The dr is secret, made once: a further click is refused, nothing rolled.
    assert not Roll.objects.visible_to("us").filter(campaign=c, table_id="rg_type").exists()
    with pytest.raises(ActionRefused, match=r"already made \(C5\.31 RG footnote u\)") as refused:
        purchases.roll_for_purchase(campaign_id=c.pk, user=german, purchase_id=a3.ref)
    plain(str(refused.value))
    assert Roll.objects.filter(campaign=c, table_id="rg_type").count() == 1


def test_rg_footnote_u_an_in_time_type_dr_gives_the_rg_its_units(users, modules, fixed_dice):
    """RG footnote u, the same table supplied before the rolls: the dr's units are the
    RG's (the comparison for the late dr above)."""
    from tests.purchase_helpers import make_rolls
    from tests.test_rule_mechanisms import row_table, supply

    players, c = phd_with_chart(users, [STUGS])
    supply(
        players,
        "tables.rg_type",
        row_table([("1-4", "StuG", "units: 3 x StuG IIIG (vehicle)"), ("5-6", "Pak", "none")]),
    )
    a3 = buy(players, "german", "A3", "onmap")
    fixed_dice.append([2])
    a3 = make_rolls(players, "german", a3)
    units = [(u.name, u.kind, u.count) for u in Unit.objects.filter(purchase=a3)]
    assert units == [("StuG IIIG (A3)", "vehicle", 3)]
    assert a3.units == 3


RIFLES = {"id": "I1", "type": "Rifle Pl", "units": "6-6-7", "unit_kind": "squad", "full": "3"}
US_CHART = [
    {**RIFLES, "cost": "4", "footnotes": "a"},
    {**RIFLES, "id": "I2", "type": "Weapons Pl", "cost": "3"},
    {"id": "O1", "type": "81mm OBA Module", "units": "OBA", "cost": "5", "tags": "oba"},
]


def test_rg_footnote_a_only_an_rg_marked_a_sets_up_on_map_the_tm_scenario_of_purchase(
    users, modules
):
    """C5.31 RG footnote a "Available for on map set up the TM Scenario of purchase" (pass 12's
    Left item: what it implies for the RGs not marked a).  Where the side's chart marks
    RGs with a, an RG it does not mark is not available for On-Map set up in the TM
    Scenario of its purchase: it is offered In Reserve or as Reinforcements, and a
    request for On-Map is refused in ASL words citing the footnote, nothing spent.  The
    RG marked a is offered On-Map."""
    players, c = phd_with_chart(users, US_CHART, side="us")
    assert "onmap" in dict(price_list(players, "us", "I1"))
    # Before: I2 was offered On-Map like I1.
    assert "onmap" not in dict(price_list(players, "us", "I2"))
    assert {"reserve", "reinforcement"} <= set(dict(price_list(players, "us", "I2")))
    seat = c.seats.get(side="us")
    points = seat.points
    with pytest.raises(ActionRefused, match=r"footnote a") as refused:
        buy(players, "us", "I2", "onmap")
    plain(str(refused.value))
    assert "marked a" in str(refused.value)
    seat.refresh_from_db()
    assert seat.points == points and not Purchase.objects.filter(campaign=c).exists()
    buy(players, "us", "I2", "reinforcement")
    buy(players, "us", "I1", "onmap")


def test_rg_footnote_a_a_chart_that_marks_no_rg_a_leaves_on_map_to_all(users, modules):
    """RG footnote a, read against C5.31 ("RG's may ... be set up On-Map ... at the
    player's choice"): a supplied chart that marks no RG with a says nothing of which
    RGs may set up on map, so every RG with units is offered On-Map, as before."""
    rows = [{**row, "footnotes": ""} for row in US_CHART]
    players, _ = phd_with_chart(users, rows, side="us")
    assert "onmap" in dict(price_list(players, "us", "I2"))


def test_rg_footnote_a_and_i2_german_rgs_set_up_on_board_in_the_initial_scenario(users, modules):
    """I2 "German RGs set up on board at no extra cost in the Initial Scenario" is the
    exception to footnote a there: a German RG not marked a is offered On-Map at the
    Initial Scenario's purchases, not at a later TM Scenario's."""
    players, _ = phd_with_chart(users, [{**GREN, "footnotes": "a"}, {**GREN, "id": "I8"}])
    assert ("onmap", 4) in price_list(players, "german", "I8", initial=True)
    assert "onmap" not in dict(price_list(players, "german", "I8", initial=False))
    assert "onmap" in dict(price_list(players, "german", "I9", initial=False))


def test_c5_32_set_up_within_2_hexes_of_the_enemy_feba_costs_one_tp_more(users, modules):
    """C5.32 "A Requisitioned RG has its TP cost increased or decreased by the following
    cumulative totals: ... Set up <2 hexes from enemy FEBA +1" (pass 12's Left item: the
    row was `recorded`, its value lost).  OCR "T #1" read as +1: an RG with units is
    offered On-Map set up within 2 hexes of the enemy FEBA at its On-Map cost plus one
    TP (cumulative with the chart's On-Map cost), and the TP spent are that; an OBA
    module has no set-up; an RG not available On-Map (footnote a) is not offered it."""
    chart = [
        {**US_CHART[0], "cost-onmap": "6", "date_max": "1"},
        US_CHART[1],
        US_CHART[2],
    ]
    players, c = phd_with_chart(users, chart, side="us")
    i1 = dict(price_list(players, "us", "I1"))
    # Before: no such price; the row's +1 TP was the players' to add by hand.
    assert i1["onmap"] == 6 and i1["onmap_near"] == 7
    assert "onmap_near" not in dict(price_list(players, "us", "I2"))
    assert price_list(players, "us", "O1") == [("", 5)]
    seat = c.seats.get(side="us")
    points = seat.points
    p = buy(players, "us", "I1", "onmap_near")
    seat.refresh_from_db()
    assert points - seat.points == 7
    assert p.cost_variant == "onmap_near"
    # The set-up is said on the RG's line of the US's own page.
    assert "within 2 hexes of the enemy FEBA" in page_of(players, "us")
    # C5.31 "Scen Max": one I1 per TM Scenario, whatever its set-up.
    with pytest.raises(ActionRefused) as refused:
        buy(players, "us", "I1", "onmap")
    plain(str(refused.value))
    assert "Scen Max" in str(refused.value) or "per TM Scenario" in str(refused.value)


def test_c5_32_and_i2_the_german_initial_scenario_set_up_near_the_feba_is_at_no_extra_cost(
    users, modules
):
    """I2 "All German OB-Given and purchased RG may set up on board at no extra cost"
    with C5.32's row: at the German's Initial Scenario purchases, On-Map within 2 hexes
    of the enemy FEBA costs the printed cost too; at a later TM Scenario, one TP more."""
    players, _ = phd_with_chart(users, [{**GREN, "cost-onmap": "6"}])
    initial = dict(price_list(players, "german", "I9", initial=True))
    assert initial["onmap"] == 4 and initial["onmap_near"] == 4
    later = dict(price_list(players, "german", "I9", initial=False))
    assert later["onmap"] == 6 and later["onmap_near"] == 7


def _done(players, side):
    from campaign.services import steps

    steps.finish_step(campaign_id=players.campaign_id, user=players.users[side])


def test_c5_27d_low_ammo_markers_leave_each_non_captured_non_isolated_unit(users, modules):
    """C5.27d "Low Ammunition Removal: Each Low Ammo marker on each non-captured,
    non-isolated unit/weapon within a friendly FEBA is removed": when C5.27 is done, a
    squad and a Sherman marked Low Ammo lose the marker by themselves; a squad marked
    Isolated, the BAR it possesses (in its Location, C2.0) and a captured MG keep it.
    After Redeployment (C5.14 iii: a unit that does not redeploy is considered
    Isolated) a unit not marked Isolated is within its friendly FEBA."""
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add

    players, _ = phd_after(users, "C5.27")
    free = add(players, "us", "6-6-7 A", "squad", markers=("low_ammo",))
    cut_off = add(players, "us", "6-6-7 B", "squad", markers=("low_ammo", "isolated"))
    bar = add(players, "us", "BAR", "sw", markers=("low_ammo",), possessor=cut_off.ref)
    tank = add(players, "us", "M4A1 Sherman", "vehicle", markers=("low_ammo",))
    mg = add(players, "us", "MG42", "sw", "captured", markers=("low_ammo",), possessor=free.ref)
    _done(players, "german")
    _done(players, "us")
    assert players.step.id != "C5.27"

    def marks(u):
        u.refresh_from_db()
        return set(u.markers)

    # Before: every Low Ammo marker stayed (the ledger read it as the map's).
    assert "low_ammo" not in marks(free) and "low_ammo" not in marks(tank)
    assert "low_ammo" in marks(cut_off) and "low_ammo" in marks(bar)
    assert "low_ammo" in marks(mg)


def test_c5_26a_a_low_ammo_afv_weapon_suffers_from_ammunition_shortage(users, modules, fixed_dice):
    """C5.26a Weapon Repair Table "+1 If suffering from Ammunition shortage": the
    malfunctioned MA of a Sherman marked Low Ammo (Ammunition Shortage, A19.131; C5.27d
    removes it only after this step), the AFV not Isolated, has the +1 by itself beside
    "-2 If Vehicular-mounted"; it is not Isolated, so no "+1 If Isolated"."""
    from tests.purchase_helpers import add_vehicle
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import roll

    players, _ = phd_after(users, "C5.26")
    tank, (ma,) = add_vehicle(
        players, "us", "M4A1 Sherman", ("ma", ["malfunctioned"]), markers=("low_ammo",)
    )
    fixed_dice.append([4])
    r = roll(players, "us", "weapon_repair", tank, weapon=ma)
    # Before: only "-2 If Vehicular-mounted" (Isolation alone was read as Ammunition
    # shortage): a dr 4 became 2, Repaired.
    assert sorted(d["label"][:14] for d in r.drms) == ["+1 If sufferin", "-2 If Vehicula"]
    assert (r.final, r.result) == (3, "Eliminated")
    fixed_dice.append([1])
    free, (ma2,) = add_vehicle(players, "us", "M4A3 Sherman", ("ma", ["malfunctioned"]))
    assert [
        d["label"][:14] for d in roll(players, "us", "weapon_repair", free, weapon=ma2).drms
    ] == ["-2 If Vehicula"]


def test_c5_28_note_2_an_original_6_vs_a_known_minefield_reduces_an_mmc(users, modules, fixed_dice):
    """C5.28 Fortification Clearance Table note 2 "vs a Known Minefield, an original dr
    of 6 results in Casualty Reduction for one MMC (Engineer if possible, otherwise
    owner's choice of Elite MMC, or next highest class 1st, 2nd, etc.)": the result of an
    original 6 says so (No Effect, and the Casualty Reduction against a Known
    Minefield), whatever the DRMs; an original 5 is a plain No Effect; note 1 stays on
    the Eliminated row (dr 3)."""
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import roll

    players, _ = phd_after(users, "C5.28")
    fixed_dice.extend([[6], [5], [3]])
    six = roll(players, "us", "fortification_clearance", item="Known A-P minefield M12")
    # Before: "No Effect (2)", the Casualty Reduction left to the footnote.
    assert six.result.startswith("No Effect") and "Casualty Reduction for one MMC" in six.result
    plain(six.result)
    five = roll(players, "us", "fortification_clearance", item="Wire N13")
    assert five.result == "No Effect (2)"
    three = roll(players, "us", "fortification_clearance", item="Wire O14")
    assert three.result == "Eliminated (1)"


def test_the_map_sentences_are_said_on_the_step_where_the_player_acts(users, modules):
    """Sentences whose facts are the map's, said where the player acts (each side's
    page): C5.10 "making one dr to determine if the AFV is eliminated or marker
    removed"; C5.14 notes 2 and 4 ("A unit that would become Disrupted is Casualty
    Reduced instead", "May change TCA/VCA and roll for Hull Down"); C5.24a "provided
    there is no leader in that location", "The leader must set up in the same location
    as the designated MMC"; C5.39 "Only requisitioned units may be set up during this step ...
    all on-map units ... stay in their current locations", with the TM rules of set-up
    (TM10 "All units/equipment of the same RG must initially either be set up in the
    same set up area or enter at any hex(es) of the same friendly Entry Area", TM7
    "Such "?" need not be requisitioned", TM15 "A Gun which sets up in a Pillbox or a
    Fortified Building Location may never be moved for the duration of the TM")."""
    from tests.test_phd_conph import phd_after

    players, _ = phd_after(users, "C5.10")
    expected = {
        "C5.10": ["one dr per AFV: it is eliminated or the marker is removed"],
        "C5.14": [
            "A unit that would become Disrupted is Casualty Reduced instead",
            "May change TCA/VCA and roll for Hull Down",
        ],
        "C5.24": ["provided there is no leader in that location", "sets up in the MMC's location"],
        "C5.39": [
            "Only requisitioned units set up",
            "units already on the map stay put",
            "all its units/equipment in the same set-up area",  # TM10
            "such '?' need not be requisitioned (TM7)",
            "may never be moved for the rest of the TM",  # TM15
        ],
    }
    for step, words in expected.items():
        if step == "C5.39":
            players.until_step("C5.37")
            players.chits(german="idle", us="attack")  # not a Lull: a scenario is set up
        players.until_step(step)
        for side in ("german", "us"):
            page = page_of(players, side)
            for w in words:
                assert w in page, (step, side, w)


def test_c5_35_notes_5_and_6_are_said_where_the_german_spends_his_dsp(users, modules):
    """C5.35 note 5 "A fortified building location may not be exchanged for a tunnel"
    and note 6 "Minefield factors may not be exchanged for Booby Trap capability": no
    such exchange is offered, and the notes are on the German's page where he spends
    his 60 DSP (I-C5.35); the US, who may not requisition Defensive Stores for the
    Initial Scenario (I3), has none to spend."""
    players, c = phd_with_chart(users, [GREN])
    players.until_step("I-C5.35")
    page = page_of(players, "german")
    assert "You have 60 DSP" in " ".join(page.replace("<strong>", "").split())
    for w in (
        "A fortified building location may not be exchanged for a tunnel",
        "Minefield factors may not be exchanged for Booby Trap capability",
        "A side may not spend more than 30 DSP per TM Scenario on Mines",
    ):
        assert w in page, w
    assert "tunnel" not in page.split("Footnotes")[0].lower()
    assert c.seats.get(side="us").fortification_points == 0


def test_c5_14_reduced_is_casualty_reduction_and_replaced_is_applied_by_unit_kind(
    users, modules, fixed_dice
):
    """C5.14 Redeployment Table, Infantry: "Redeploys, Replaced" (DR 10), "Redeploys,
    Reduced" (11), "Remains in hex, Reduced" (12-13), each result applied to the unit
    rolled for by its kind (Casualty Reduction, A7.302; Replacement, A19.13): a squad
    DR 11 is reduced to a HS; a HS DR 11 and an already-reduced squad DR 12 are
    eliminated; a leader DR 11 is wounded, not "reduced"; a leader DR 10 is Replaced by
    the next lower quality (8-1 → 8-0); a squad DR 10 is Replaced by its next lower
    quality counter, read from its figures (pass 21: a 6-6-7 becomes a 6-6-6; before,
    marked to be Replaced for its owner to rename).  C5.13a "leadership benefits
    (including Armour Leaders) apply to any unit that redeploy together": a leader
    redeploying alone has no leadership DRM."""
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add, roll, unit_names

    players, _ = phd_after(users, "C5.14")
    squad = add(players, "us", "6-6-7 A", "squad")
    hs = add(players, "us", "3-3-7 HS", "half_squad")
    worn = add(players, "us", "6-6-7 B", "squad", "reduced")
    wounded_to_be = add(players, "us", "9-1", "leader")
    replaced = add(players, "us", "8-1", "leader")
    lowered = add(players, "us", "6-6-7 C", "squad")
    fixed_dice.extend([[5, 6], [5, 6], [6, 6], [5, 6], [4, 6], [4, 6]])
    rolls = [
        roll(players, "us", "redeployment", u)
        for u in (squad, hs, worn, wounded_to_be, replaced, lowered)
    ]
    # C5.13a "leadership benefits ... apply to any unit that redeploy together": a
    # leader redeploying alone has no leadership DRM of his own (before: the 9-1's DR 11
    # became 10 by his own -1).
    assert [r.final for r in rolls] == [11, 11, 12, 11, 10, 10]
    assert rolls[3].drms == [] and rolls[4].drms == []
    names = unit_names(players, "us")
    # Before: the HS and the 9-1 were marked Casualty Reduced, the reduced squad stayed
    # as it was, the 8-1 and the squad of DR 10 were unchanged.
    assert ("6-6-7 A", "squad", "reduced", 1) in names
    assert not [n for n in names if n[0] in ("3-3-7 HS", "6-6-7 B")]
    assert ("9-1", "leader", "wounded", 1) in names
    assert [n for n in names if n[2] == "ok" and n[1] == "leader"] == [("8-0", "leader", "ok", 1)]
    assert ("6-6-6 C", "squad", "ok", 1) in names
