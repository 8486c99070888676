"""Sicily RePh gaps of the fourth audit pass, each through the services as two players
meet it: the Carrier Pltns' three carriers (3.6174), a vehicle's MA and MG repaired
apart and a failed MA recalling the AFV (3.6142), mobile Isolated British tanks'
Escape at Night only (3.61426), Heroes given up for Battle Hardening (3.6112), the
Setup Area Escape DRMs one or the other (3.606), captured weapons that function
(3.61422), a used OBA RG's radio (3.6046), an Original 2 Escape DR (3.606 fn 1), a
Coy RG's Objective Hex on its RG Purchase Record line (3.6179)."""

from __future__ import annotations

import html

import pytest

from campaign.models import Event, Purchase, Roll, Unit
from campaign.services import steps, units
from campaign.services.errors import ActionRefused
from tests import test_rule_mechanisms as mechanisms
from tests.purchase_helpers import add_vehicle, campaign_at
from tests.test_rule_mechanisms import add, buy, mark_rg, rg_roll, roll, unit_names

# The fixtures of the rule-mechanism suite: two players, dice fixed per roll.
users = mechanisms.users
fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


def at_step(users, date, step_id):
    players, module = campaign_at("sicily", "i", date, users, step=step_id)
    return players, module


def owed(players, side):
    from campaign.selectors import module_of, owed_rolls

    c = players.campaign
    return owed_rolls(c, module_of(c), side)


def test_3_6174_a_carrier_pltn_joins_as_three_carriers_one_of_each(users, modules, fixed_dice):
    """British V3 Carrier Pltn I: Unit Type "Carrier A;Carrier B;Carrier 2" Mtr", 3 at
    Full: one line for each carrier, not one line of "3 x" the whole cell."""
    players, _ = campaign_at("sicily", "i", "jul14n", users)
    v3 = buy(players, "british", "V3")
    fixed_dice.append([3, 3])  # strength DR 6 - 1 ("G"/"V" type) = 5: Full
    rg_roll(players, "british", v3)
    assert v3.strength == "full"
    assert unit_names(players, "british", kind="vehicle") == [
        ('Carrier 2" Mtr (V3 Carrier Pltn I)', "vehicle", "ok", 1),
        ("Carrier A (V3 Carrier Pltn I)", "vehicle", "ok", 1),
        ("Carrier B (V3 Carrier Pltn I)", "vehicle", "ok", 1),
    ]


def test_3_6142_a_vehicles_ma_and_mg_each_owe_a_dr_and_a_failed_ma_recalls_it(
    users, modules, fixed_dice
):
    """3.6142: "a separate dr ... for each malfunctioned, non-Captured, Retained
    Weapon": a tank with MA and MG out owes two drs, one on each table; footnote *
    "If vehicular-mounted, the Weapon is Disabled; if MA, the AFV is immediately
    Recalled": a 6 on the MA's dr leaves the tank Recalled, a 6 on the MG's disables
    the MG only."""
    players, _ = at_step(users, "jul15am", "3.614")
    tank, (ma, mg) = add_vehicle(
        players,
        "british",
        "Sherman III(a)",
        ("ma", ["malfunctioned"]),
        ("mg", ["malfunctioned"], "CMG"),
    )
    mg_only, (daimler_mg,) = add_vehicle(
        players, "british", "Daimler AC", ("mg", ["malfunctioned"])
    )
    assert sorted(owed(players, "british")) == [
        ("vehicular_mg_repair", "Daimler AC MG"),
        ("vehicular_mg_repair", "Sherman III(a) CMG"),
        ("weapon_repair", "Sherman III(a) MA"),
    ]
    with pytest.raises(ActionRefused, match="Roll first: .*Weapon Repair: vehicular MG"):
        steps.finish_step(campaign_id=players.campaign_id, user=players.users["british"])
    fixed_dice.extend([[6], [6], [1]])
    r = roll(players, "british", "weapon_repair", tank, weapon=ma, typed={"repair_number": -1})
    assert r.final == 4 and r.result == "Eliminated [*]"
    tank.refresh_from_db()
    # The MA is Disabled, the AFV Recalled: it stays in the retained forces.
    assert tank.markers == ["recalled"]
    assert [w["markers"] for w in tank.weapons] == [["disabled"], ["malfunctioned"]]
    r = roll(
        players, "british", "vehicular_mg_repair", tank, weapon=mg, typed={"repair_number": -1}
    )
    assert r.result == "Disabled [*]"
    tank.refresh_from_db()
    assert tank.markers == ["recalled"]
    assert [w["markers"] for w in tank.weapons] == [["disabled"], ["disabled"]]
    roll(
        players,
        "british",
        "vehicular_mg_repair",
        mg_only,
        weapon=daimler_mg,
        typed={"repair_number": -1},
    )
    mg_only.refresh_from_db()
    assert (mg_only.markers, mg_only.weapons[0]["markers"]) == ([], [])
    assert owed(players, "british") == ()


def test_3_61426_isolated_british_tanks_escape_at_night_only(users, modules, fixed_dice):
    """3.61426: "If this is a Night CG Date ... all mobile Isolated British Tanks must
    now attempt Escape": on a Night date the British Done waits for an Isolated
    Sherman's Escape DR (not for an immobilized one's); the Axis is refused that roll;
    on a day date nobody rolls it.  The DRMs NA to vehicle Escape are not offered."""
    players, module = at_step(users, "jul15n", "3.614")
    assert module.dates[players.campaign.date_index].night
    sherman = add(players, "british", "Sherman III(a)", "vehicle", "isolated")
    stuck = add(
        players, "british", "Sherman III(a) #2", "vehicle", "immobilized", markers=["isolated"]
    )
    stug = add(players, "axis", "StuG IIIG", "vehicle", "isolated")
    escapes = [what for table, what in owed(players, "british") if table == "tank_escape"]
    assert escapes == ["Sherman III(a)"]
    assert owed(players, "axis") == ()
    with pytest.raises(
        ActionRefused,
        match="Roll first: .*the Escape: mobile Isolated British tanks at Night for Sherman III",
    ):
        steps.finish_step(campaign_id=players.campaign_id, user=players.users["british"])
    with pytest.raises(
        ActionRefused, match=r"only the British roll on it, and only on a Night CG Date \(3.61426"
    ):
        roll(players, "axis", "tank_escape", stug)
    with pytest.raises(ActionRefused, match="no DRM 'encircled'"):
        roll(players, "british", "tank_escape", sherman, ticked=["encircled"])
    with pytest.raises(ActionRefused):
        roll(players, "british", "tank_escape", stuck)
    fixed_dice.append([3, 3])  # 6 + 2 (Isolated, by itself) = 8: Escapes
    r = roll(players, "british", "tank_escape", sherman)
    assert (r.final, r.result) == (8, "Mobile Vehicle: Escapes")
    sherman.refresh_from_db()
    assert sherman.markers == []
    assert [t for t, _ in owed(players, "british")] == ["immobilization_repair"]


def test_3_61426_no_tank_escape_by_day(users, modules):
    """3.61426 holds on a Night CG Date only: by day the Isolated Sherman owes no
    Escape DR at 3.614, and the British are refused one."""
    players, _ = at_step(users, "jul15am", "3.614")
    sherman = add(players, "british", "Sherman III(a)", "vehicle", "isolated")
    assert owed(players, "british") == ()
    with pytest.raises(ActionRefused, match="only on a Night CG Date"):
        roll(players, "british", "tank_escape", sherman)
    assert "escape" not in players.step.tables  # 3.606's Escape is rolled at 3.606


def test_3_6112_each_hero_given_up_battle_hardens_one_mmc_and_the_rest_leave(users, modules):
    """3.6112: "each Retained Hero ... is Eliminated; however, each such Elimination
    enables that side to Battle Harden one non-crew MMC": one Hero given up marks a
    squad Battle Hardened; at Done the Heroes left are Eliminated (no exception keeps
    them, unlike APD 3.2), even on a side with no MMC."""
    players, _ = at_step(users, "jul15am", "3.611")
    heroes = add(players, "british", "1-4-9 Hero", "hero", number=2)
    squad = add(players, "british", "4-5-8", "squad")
    add(players, "axis", "1-4-9 Hero", "hero", "wounded")
    from campaign.selectors import exchanges_held, module_of

    c = players.campaign  # a side holding a Hero is not taken past 3.611 by finishing ahead
    assert exchanges_held(c, module_of(c), "british") == {"3.611"}
    units.exchange_unit(
        campaign_id=players.campaign_id,
        user=players.users["british"],
        give_id=heroes.ref,
        mark_id=squad.ref,
    )
    assert unit_names(players, "british") == [
        ("1-4-9 Hero", "hero", "ok", 1),
        ("4-5-8", "squad", "battle_hardened", 1),
    ]
    for side in ("british", "axis"):
        steps.finish_step(campaign_id=players.campaign_id, user=players.users[side])
    assert unit_names(players, "british") == [("4-5-8", "squad", "battle_hardened", 1)]
    assert unit_names(players, "axis") == []
    texts = list(Event.objects.filter(kind="unit").values_list("text", flat=True))
    assert any(
        "1-4-9 Hero leaves the retained forces, no unit marked for it (3.6112)" in t for t in texts
    )


def test_3_606_adjacent_and_two_hexes_from_a_setup_area_are_one_drm_or_the_other(users, modules):
    """3.606: "-2 If adjacent to a friendly Setup Area (-1 if two hexes away ...)": a
    unit is one or the other; claiming both (-3) is refused."""
    players, _ = at_step(users, "jul14pm", "3.606")
    squad = add(players, "axis", "4-6-8", "squad", location="12H3")
    with pytest.raises(ActionRefused, match=r"do not both apply to one roll \(3.606\)"):
        roll(
            players,
            "axis",
            "escape",
            squad,
            ticked=["adjacent_setup_area", "two_hexes_setup_area"],
        )
    r = roll(players, "axis", "escape", squad, ticked=["adjacent_setup_area"])
    assert [d["value"] for d in r.drms] == [-2, 1]  # and a squad's second HS-equivalent


def test_3_606_footnote_1_an_original_2_escapes_whatever_the_drms(users, modules, fixed_dice):
    """3.606 footnote 1: "An Original 2 DR results in Escape and Heat of Battle": dice
    1+1 with +8 of DRMs (Final 10, 'Casualty Reduced') give the Escape row."""
    players, _ = at_step(users, "jul14pm", "3.606")
    squad = add(
        players, "axis", "4-6-8", "squad", location="12H3", markers=["isolated", "encircled"]
    )
    half = add(players, "axis", "2-4-8", "half_squad", location="12H3", markers=["isolated"])
    fixed_dice.append([1, 1])
    r = roll(
        players,
        "axis",
        "escape",
        squad,
        ticked=["enemy_setup_area", "unarmed_wounded"],
        stack=[half.ref],
    )
    assert r.final == 10  # +2: the squad and the HS escaping with it, three HS-equivalents
    assert r.result.startswith("Infantry: Escapes and Heat of Battle for an eligible unit (A15)")
    # Not Casualty Reduced; escaped, it is no longer Isolated (3.6061), and stays
    # Encircled until 3.6062.
    assert Unit.objects.get(pk=squad.pk).markers == ["encircled"]


def test_3_606_each_escape_dr_is_for_a_named_unit_its_column_and_drms_by_its_kind(
    users, modules, fixed_dice
):
    """3.606 (issue 45): the Escape DR is made for a named unit of the retained forces:
    a squad reads the Infantry column, a vehicle the Mobile Vehicle one, and the result
    is written to it (10: the squad Casualty Reduced, the vehicle Eliminated; 9: the
    vehicle Abandoned); footnote * "NA to vehicle Escape attempt": the Night -1, the
    Encircled +2 and the excess HS/PP DRMs are refused for a vehicle in words, nothing
    rolled; "If CT AFV" is refused for a squad and "If lone, unwounded SMC" for a
    vehicle."""
    players, module = at_step(users, "jul15am", "3.606")  # after the July 14 Night scenario
    assert module.dates[players.campaign.date_index].night
    squad = add(players, "axis", "4-6-8", "squad", markers=["encircled"])
    tank = add(players, "axis", "PzIVG", "vehicle", markers=["encircled"])
    halftrack = add(players, "axis", "SPW 251/1", "vehicle")
    for ticked, typed in (
        ([], {"excess_pp": 2}),
        (["lone_smc"], None),
    ):
        with pytest.raises(ActionRefused, match=r"does not apply to this roll \(3.606\)"):
            roll(players, "axis", "escape", tank, ticked=ticked, typed=typed)
    with pytest.raises(ActionRefused, match=r"'If CT AFV' does not apply to this roll"):
        roll(players, "axis", "escape", squad, ticked=["ct_afv"])
    assert not Roll.objects.filter(table_id="escape").exists()
    fixed_dice.extend([[5, 6], [5, 6], [4, 5]])
    # 11 - 1 (Night) + 2 (Encircled) + 1 (a squad is two HS-equivalents)
    r = roll(players, "axis", "escape", squad)
    assert (r.final, r.result) == (13, "Infantry: All units and Equipment Eliminated")
    assert not Unit.objects.filter(pk=squad.pk).exists()  # All units Eliminated
    r = roll(players, "axis", "escape", tank, ticked=["ct_afv"])  # its Encircled: no +2
    assert (r.final, r.result) == (10, "Mobile Vehicle: Eliminated [6]; crew (if any) Escapes")
    assert not Unit.objects.filter(pk=tank.pk).exists()
    r = roll(players, "axis", "escape", halftrack)
    assert (r.final, r.result) == (9, "Mobile Vehicle: Abandoned [4,5]; crew (if any) Escapes")
    assert Unit.objects.get(pk=halftrack.pk).markers == ["abandoned"]


def test_3_61422_a_captured_weapon_that_does_not_function_owes_no_dr(users, modules):
    """3.61422: "a separate dr for each functioning, Captured, Retained Weapon": a
    captured MMG owes its dr; a captured and malfunctioned one, or a disabled one,
    owes none."""
    from rules.effects import UnitState

    players, module = at_step(users, "jul15am", "3.614")
    table = module.table("captured_equipment")
    from rules.availability import owed_for

    supplied = table.model_copy(update={"missing": False})
    assert owed_for(supplied, UnitState("MMG", "sw", ("captured",)))
    for other in ("malfunctioned", "disabled"):
        assert not owed_for(supplied, UnitState("MMG", "sw", ("captured", other)))
        assert not owed_for(supplied, UnitState("MMG", "sw", (other, "captured")))


def test_3_6046_a_used_oba_rg_loses_its_radio(users, modules, fixed_dice):
    """3.6046: "If an OBA RG has been used ... remove its radio": the Axis O1 marked
    used up, its radio line leaves the retained forces, logged for its owner."""
    players, _ = campaign_at("sicily", "i", "jul14n", users)
    o1 = buy(players, "axis", "O1")
    rg_roll(players, "axis", o1)
    assert ("radio (O1)", "sw", "ok", 1) in unit_names(players, "axis")
    mark_rg(players, "axis", o1, "used")
    assert Purchase.objects.get(pk=o1.pk).state == "used"
    assert not Unit.objects.filter(campaign_id=players.campaign_id, name="radio (O1)").exists()
    said = Event.objects.filter(campaign_id=players.campaign_id, kind="unit").latest("id")
    assert "radio (O1) leaves the retained forces: O1 Btln Mtr is used up" in said.text
    assert "3.6046" in said.text
    o1.refresh_from_db()  # secret like the RG's own line while it is unrevealed
    assert said.secret_side == ("axis" if o1.revealed_at is None else "")


def test_3_6179_a_coy_rgs_line_records_its_objective_hex_secretly(users, modules, login):
    """3.6179 "Objective Hex: Record the Objective Hex of each Coy size RG": the
    British I1 Rifle Coy's line has the column, and its owner writes it; the Med Tank
    Troop's has none (refused); the opponent sees nothing of it before the reveal."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, policy="owner")
    brit = players.users["british"]
    coy = buy(players, "british", "I1")
    troop = buy(players, "british", "V1")
    roster = f"/campaigns/{players.campaign_id}/roster/"
    page = html.unescape(login(brit).get(roster).content.decode())
    assert f'id="objective-hex-{coy.ref}"' in page
    assert f'id="objective-hex-{troop.ref}"' not in page

    def record(purchase, hex_):
        return login(brit).post(
            f"/campaigns/{players.campaign_id}/act/entry-area/",
            {"purchase": purchase.ref, "entry_area": "Area A", "objective_hex": hex_},
        )

    assert record(coy, "23Q5").status_code == 302
    coy.refresh_from_db()
    assert coy.objective_hex == "23Q5"
    assert 'value="23Q5"' in login(brit).get(roster).content.decode()
    refused = record(troop, "12A1")
    assert refused.status_code == 400
    assert "V1 Med Tank Troop records no Objective Hex (3.6179)" in html.unescape(
        refused.content.decode()
    )
    troop.refresh_from_db()
    assert troop.objective_hex == ""
    assert "23Q5" not in login(players.users["axis"]).get(roster).content.decode()
