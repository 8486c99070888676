"""Issue 16, "Rules as data, honestly": each mechanism a module declares happens,
through the services, as two players would meet it — with the rule's own numbers and
examples.  The dice are fixed where a rule's outcome depends on them (``fixed_dice``).

Engine-level checks of the same mechanisms are in ``tests/engine/test_effects.py``;
3.617's loss timing is in ``tests/test_computations.py``."""

from __future__ import annotations

import copy
import hashlib
import html
import json

import pytest

import rules.dice
from campaign.models import Campaign, Event, FortificationBuy, Purchase, ReconBuy, Roll, Seat, Unit
from campaign.seat_views.campaign_page import campaign_view
from campaign.selectors import module_of
from campaign.services import purchases, steps, supplements, units
from campaign.services.errors import ActionRefused
from rules import availability
from rules.schema import Module
from tests.purchase_helpers import (
    add_unit,
    add_vehicle,
    campaign_at,
    keep_retained_units,
    make_rolls,
)
from tests.walk import host_game, players_of

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


# --------------------------------------------------------------------------- helpers


@pytest.fixture
def fixed_dice(monkeypatch):
    """A queue of faces: each roll takes the next entry ([6] for a dr, [3, 4] for a DR);
    when the queue is empty the campaign's own dice roll."""
    queue: list[list[int]] = []
    real = rules.dice.faces

    def faces(seed, seq, dice, stream=""):
        if queue:
            out = queue.pop(0)
            assert len(out) == rules.dice.DICE_COUNT[dice], (dice, out)
            return list(out)
        return real(seed, seq, dice, stream)

    monkeypatch.setattr(rules.dice, "faces", faces)
    return queue


@pytest.fixture
def users(make_user):
    return make_user("first_player"), make_user("second_player")


def start(module_id, variant, users, side):
    a, b = users
    c = host_game(module_id, variant, a, b, side=side)
    return players_of(c, a, b), module_of(c)


def result_values(module, **by_field):
    """Every result field 0 (False), except ``<field>_<side>=value``."""
    out = {}
    for f in module.result_fields:
        for s in module.sides:
            out[f"{f.id}.{s.id}"] = by_field.get(f"{f.id}_{s.id}", False if f.kind == "bool" else 0)
    return out


def patch_module(campaign, mutate) -> Module:
    """Change the campaign's module data (as a host's override would) and return it."""
    data = copy.deepcopy(campaign.module_data)
    mutate(data)
    module = Module.model_validate(data)
    checksum = hashlib.sha256(
        json.dumps(data, sort_keys=True, ensure_ascii=False).encode()
    ).hexdigest()
    Campaign.objects.filter(pk=campaign.pk).update(module_data=data, module_checksum=checksum)
    return module


def seat(players, side) -> Seat:
    return Seat.objects.get(campaign_id=players.campaign_id, side=side)


def buy(players, side, group, variant=""):
    return purchases.purchase_rg(
        campaign_id=players.campaign_id,
        user=players.users[side],
        group_id=group,
        cost_variant=variant,
    )


def mark_rg(players, side, purchase, state):
    """``side`` marks its RG in the OB, eliminated, withdrawn or used up."""
    return purchases.change_rg_state(
        campaign_id=players.campaign_id,
        user=players.users[side],
        purchase_id=purchase.ref,
        state=state,
    )


def rg_roll(players, side, purchase, ticked=None):
    return make_rolls(players, side, purchase, ticked)


def add(players, side, name, kind, status="ok", number=1, markers=(), **kw) -> Unit:
    return add_unit(players, side, name, kind, status, number, markers, **kw)


def edit(players, side, unit, status, **kw) -> Unit:
    """``side`` corrects ``unit``'s line on its retained forces (its name unless given):
    marked ``status`` (one marker, "ok" none) and ``markers``; its markers as they are
    when neither is given (``status`` None)."""
    marks = kw.pop("markers", None)
    if status is not None:
        marks = [status, *(marks or ())]
    return units.update_unit(
        campaign_id=players.campaign_id,
        user=players.users[side],
        unit_id=unit.ref,
        name=kw.pop("name", unit.name),
        markers=marks,
        **kw,
    )


def roll(players, side, table, unit=None, item="", weapon="", **kw) -> Roll:
    """``side`` rolls on ``table`` for ``unit`` (for its ``weapon``, a reference on its
    record), or for ``item``."""
    return steps.roll_on_table(
        campaign_id=players.campaign_id,
        user=players.users[side],
        table_id=table,
        unit_id=(f"{unit.ref}.{weapon}" if weapon else unit.ref) if unit is not None else None,
        item=item,
        **kw,
    )


def unit_names(players, side, **filters) -> list[tuple[str, str, str, int]]:
    """Each line: its name, kind, markers ("ok": none; "isolated, recalled") and count."""
    lines = Unit.objects.filter(campaign_id=players.campaign_id, side=side, **filters)
    return sorted((u.name, u.kind, ", ".join(u.markers) or "ok", u.count) for u in lines)


# --------------------------------------------------------------------------- SAN


def test_3_6122_san_raised_to_2_and_a_san_of_6_rolls_plus_2(users, modules, fixed_dice):
    """3.6122: "A side whose SAN is currently < 2 has it automatically raised to 2 ... If
    a side has a SAN ≥ 4, a SAN adjustment dr must be made with a +drm equal to the
    current SAN minus 4. A Final dr ≥ 5 immediately reduces that sides SAN by two."
    Axis SAN 1 → 2 on entering the step (no roll); British SAN 6: dr 3 + 2 = 5 → 4."""
    players, module = start("sicily", "i", users, "axis")
    players.results(**result_values(module, san_axis=1, san_british=6))
    players.until_step("3.6122")
    assert seat(players, "axis").san == 2
    assert Event.objects.filter(kind="san", text="Axis SAN 1 is raised to 2 (3.6122).").exists()
    assert players.waiting() == ["british"]  # the Axis (SAN 2 < 4) has no roll to make
    fixed_dice.append([3])
    r = roll(players, "british", "san_adjustment")
    assert [(d["value"], d["how"]) for d in r.drms] == [(2, "auto")] and r.final == 5
    assert seat(players, "british").san == 4
    assert "British SAN 6 → 4" in Event.objects.filter(kind="roll").last().text
    with pytest.raises(ActionRefused, match=r"made your SAN Adjustment roll in this pass"):
        roll(players, "british", "san_adjustment")


def test_3_6122_a_final_dr_of_4_leaves_the_san(users, modules, fixed_dice):
    """3.6122: only a Final dr ≥ 5 reduces the SAN: SAN 5, dr 3 + 1 = 4, no change."""
    players, module = start("sicily", "i", users, "axis")
    players.results(**result_values(module, san_axis=5, san_british=2))
    players.until_step("3.6122")
    fixed_dice.append([3])
    assert roll(players, "axis", "san_adjustment").final == 4
    assert seat(players, "axis").san == 5


def test_c5_25_san_below_2_becomes_2_above_4_becomes_4_before_requisitions(users, modules):
    """C5.25: "Any side with a SAN of < 2 has its SAN adjusted to '2' before making any
    requisitions (C5.31). Any side with a SAN that is > 4 has it reduced to '4'": no
    roll, the step passes for both."""
    players, module = start("purple-heart-draw", "tm", users, "us")
    players.results(**result_values(module, san_german=1, san_us=6))
    players.until("purchase")
    assert players.step.id == "C5.31"
    assert (seat(players, "german").san, seat(players, "us").san) == (2, 4)
    texts = set(Event.objects.filter(kind="san").values_list("text", flat=True))
    us = module.side("us").name
    assert texts == {
        "German SAN 1 is raised to 2 (C5.25).",
        f"{us} SAN 6 is lowered to 4 (C5.25).",
    }


# --------------------------------------------------------------------------- APD 3.1, 3.3


def apd_at(users, step_id, **result):
    players, module = start("pleasant-diversion", "cg", users, "american")
    players.results(**result_values(module, vp_american=63, cvp_lost_american=41, **result))
    players.until_step(step_id)
    return players, module


def test_3_31_ma_repair_6_recalls_the_vehicle_and_removes_the_gun(users, modules, fixed_dice):
    """3.31: "A vehicle that rolls a 6 on a MA repair becomes BU if CE and is marked with a
    Recall counter (D5.431), while a Gun is removed from the board."  The tank stays."""
    players, _ = apd_at(users, "3.3")
    tank, (ma,) = add_vehicle(players, "american", "M4A3(75)W", ("ma", ["malfunctioned"]))
    gun = add(players, "american", "57L AT", "gun", "malfunctioned")
    fixed_dice.extend([[6], [6]])
    roll(players, "american", "repair_ma_gun", tank, weapon=ma)
    roll(players, "american", "repair_ma_gun", gun)
    assert unit_names(players, "american") == [("M4A3(75)W", "vehicle", "recalled", 1)]
    tank.refresh_from_db()
    assert [(w["kind"], w["markers"]) for w in tank.weapons] == [("ma", ["disabled"])]
    texts = list(Event.objects.filter(kind="roll").values_list("text", flat=True))
    assert any("M4A3(75)W's MA is disabled; the M4A3(75)W is recalled (BU)" in t for t in texts)
    assert any("57L AT is removed from the retained forces" in t for t in texts)


def test_3_31_each_weapon_makes_only_one_repair_attempt(users, modules, fixed_dice):
    """3.31: "Each weapon/Vehicle may make only one Repair attempt": a SW that rolled NE
    (4-5) stays malfunctioned, and is refused a second attempt in the same pass."""
    players, _ = apd_at(users, "3.3")
    baz = add(players, "american", "BAZ 44", "sw", "malfunctioned")
    fixed_dice.append([4])
    r = roll(players, "american", "repair_sw", baz)
    assert r.result == "NE"
    assert unit_names(players, "american") == [("BAZ 44", "sw", "malfunctioned", 1)]
    with pytest.raises(
        ActionRefused, match=r"BAZ 44 has made its one Repair Table: Repair SW roll in this pass"
    ):
        roll(players, "american", "repair_sw", baz)
    # Two identical SW on one line: each makes its own attempt.
    pair = add(players, "american", "MMG", "sw", "malfunctioned", number=2)
    fixed_dice.extend([[5], [1]])
    roll(players, "american", "repair_sw", pair)
    roll(players, "american", "repair_sw", pair)
    assert ("MMG", "sw", "ok", 1) in unit_names(players, "american")


def test_3_3_a_captured_malfunctioned_weapon_makes_no_repair_attempt(users, modules, fixed_dice):
    """3.3: "making a dr per repair attempt for malfunctioned, non-captured weapons": an
    MMG, a Gun and a tank marked Captured as well as malfunctioned are refused each
    Repair row; the same MMG not Captured rolls."""
    players, _ = apd_at(users, "3.3")

    def weapon(name, kind, status):
        return add(players, "american", name, kind, status, markers=["captured"])

    def captured(name, kind):
        tank, (ref,) = add_vehicle(
            players, "american", name, (kind, ["malfunctioned"]), markers=["captured"]
        )
        return tank, ref

    for table, unit, ref in (
        ("repair_sw", weapon("MMG", "sw", "malfunctioned"), ""),
        ("repair_ma_gun", weapon("57L AT", "gun", "malfunctioned"), ""),
        ("repair_ma_gun", *captured("PzIVH", "ma")),
        ("repair_vehicular_mg", *captured("PzIVJ", "mg")),
    ):
        with pytest.raises(ActionRefused, match=r"is not one of your .*\(not .*captured.*\)"):
            roll(players, "american", table, unit, weapon=ref)
    assert not Roll.objects.filter(campaign_id=players.campaign_id).exists()
    own = add(players, "american", "MMG", "sw", "malfunctioned")
    fixed_dice.append([1])
    assert roll(players, "american", "repair_sw", own).result == "Repaired"


def test_3_31_a_weapon_that_rolled_keeps_its_result_until_the_step_ends(users, modules, fixed_dice):
    """3.31: "Each weapon/Vehicle may make only one Repair attempt": a SW that rolled NE
    cannot be marked repaired, nor removed (to be added again as a new line for another
    attempt), until 3.3 ends; its name and location may still be corrected; after the
    step it may be edited again."""
    players, _ = apd_at(users, "3.3")
    american = players.users["american"]
    mmg = add(players, "american", "MMG", "sw", "malfunctioned")
    fixed_dice.append([4])
    assert roll(players, "american", "repair_sw", mmg).result == "NE"
    refused = r"MMG has made its one roll on the Repair Table: Repair SW \(3.3; 3.31\) at this step"
    for change in (
        lambda: edit(players, "american", mmg, "ok"),
        lambda: edit(players, "american", mmg, "malfunctioned", markers=["captured"]),
        lambda: units.remove_unit(campaign_id=players.campaign_id, user=american, unit_id=mmg.ref),
    ):
        with pytest.raises(ActionRefused, match=refused):
            change()
    edit(players, "american", mmg, "malfunctioned", name="MMG 42", location="12L6")
    assert unit_names(players, "american") == [("MMG 42", "sw", "malfunctioned", 1)]
    players.until_step("3.4")
    units.remove_unit(campaign_id=players.campaign_id, user=american, unit_id=mmg.ref)


def test_3_31_a_vehicle_with_ma_and_mg_malfunctioned_repairs_each_on_its_own_row(
    users, modules, fixed_dice
):
    """3.31: "Each weapon/Vehicle may make only one Repair attempt": a tank whose MA and
    MG are both malfunctioned makes one attempt on each row, and each result concerns
    its own weapon: the MG Repaired leaves the MA malfunctioned; a tank whose MG alone is
    out has no MA to repair."""
    players, _ = apd_at(users, "3.3")
    tank, (ma, mg) = add_vehicle(
        players,
        "american",
        "M4A3(75)W",
        ("ma", ["malfunctioned"]),
        ("mg", ["malfunctioned"], "BMG"),
    )
    other, (other_mg,) = add_vehicle(players, "american", "M4A3(76)W", ("mg", ["malfunctioned"]))
    fixed_dice.extend([[1], [5]])
    assert roll(players, "american", "repair_vehicular_mg", tank, weapon=mg).result == "Repaired"
    tank.refresh_from_db()
    assert [(w["name"], w["markers"]) for w in tank.weapons] == [
        ("MA", ["malfunctioned"]),
        ("BMG", []),
    ]
    assert roll(players, "american", "repair_ma_gun", tank, weapon=ma).result == "NE"
    for table, unit, ref in (
        ("repair_vehicular_mg", tank, mg),
        ("repair_ma_gun", other, other_mg),
        ("repair_ma_gun", tank, mg),
    ):
        with pytest.raises(ActionRefused):
            roll(players, "american", table, unit, weapon=ref)
    # The vehicle itself is never rolled for: the roll names one of its weapons.
    with pytest.raises(ActionRefused, match="choose which of M4A3\\(76\\)W.s weapons"):
        roll(players, "american", "repair_vehicular_mg", other)
    assert Unit.objects.get(pk=tank.pk).weapons[0]["markers"] == ["malfunctioned"]
    texts = list(Event.objects.filter(kind="roll").values_list("text", flat=True))
    assert any("Repair vehicular MG for M4A3(75)W BMG" in t for t in texts), texts


def test_3_1_an_evacuated_leader_is_replaced_by_a_7_0_and_a_recovered_one_rolls_no_more(
    users, modules, fixed_dice
):
    """3.1 Recovery Table: 4-6 Evacuated* ("permanently removed from play, but is
    immediately replaced with a 7-0 leader"); 1-3 Retain Unwounded — then he is no longer
    a wounded leader to roll for."""
    players, _ = apd_at(users, "3.1")
    evacuated = add(players, "american", "8-1 leader", "leader", "wounded")
    recovered = add(players, "american", "9-1 leader", "leader", "wounded")
    fixed_dice.extend([[5], [2]])
    roll(players, "american", "recovery", evacuated)
    roll(players, "american", "recovery", recovered)
    assert unit_names(players, "american") == [
        ("7-0 leader", "leader", "ok", 1),
        ("9-1 leader", "leader", "ok", 1),
    ]
    assert "8-1 leader is removed and replaced by a 7-0 leader" in (
        Event.objects.filter(kind="roll").first().text
    )
    for leader in Unit.objects.filter(campaign_id=players.campaign_id):
        with pytest.raises(ActionRefused, match="is not one of your wounded leaders"):
            roll(players, "american", "recovery", leader)


def test_3_1_footnote_the_7_0_goes_with_the_nearest_mmc_not_where_the_leader_was(
    users, modules, fixed_dice
):
    """3.1 footnote *: an Evacuated leader "is immediately replaced with a 7-0 leader in
    the same location as the friendly MMC nearest (in hexes) to the last location that
    Evacuated leader occupied. The owning player may choose which location in the event
    of a tie": the 7-0 is not put at the 8-1's location nor given his markers; the log
    names the side's MMC locations (hex distances are the owner's to count)."""
    players, _ = apd_at(users, "3.1")
    leader = add(players, "american", "8-1 leader", "leader", "wounded", location="12K5")
    Unit.objects.filter(pk=leader.pk).update(markers=["wounded", "isolated"])
    add(players, "american", "7-4-7", "squad", location="12L6")
    add(players, "american", "2-4-7", "half_squad", location="12J2")
    add(players, "american", "9-1 leader", "leader", location="12K4")
    fixed_dice.append([6])
    roll(players, "american", "recovery", leader)
    new = Unit.objects.get(campaign_id=players.campaign_id, name="7-0 leader")
    assert (new.location, new.markers) == ("", [])
    text = Event.objects.filter(kind="roll").first().text
    assert (
        "8-1 leader is removed and replaced by a 7-0 leader, to be placed with the friendly "
        "MMC nearest (in hexes) to 12K5 (MMC at 12J2, 12L6), the owner choosing on a tie"
    ) in text, text


# --------------------------------------------------------------------------- leaders from rolls


def test_3_6183_a_dash_gives_no_leader_unit(users, modules, fixed_dice):
    """3.6183: British V1 Med Tank Troop reads the Armor Leader column, +2 for a British
    "V" RG: DR 6 + 2 = 8 is '-' (no leader, no leader unit); DR 2 + 2 = 4 is a 9-1.
    (3.6183 prints "dr"; its rows run to >= 12, read as a DR: see the module.)"""
    players, _ = campaign_at("sicily", "i", "jul14n", users)
    first = buy(players, "british", "V1")
    second = buy(players, "british", "V1")
    fixed_dice.extend([[3, 3], [3, 3]])  # strength DR 6 - 1 = 5: Full; leader DR 6 + 2
    rg_roll(players, "british", first)
    assert first.strength == "full" and first.details["leaders"] == []
    assert unit_names(players, "british", kind="leader") == []
    assert unit_names(players, "british") == [
        ("Sherman III(a) (V1 Med Tank Troop)", "vehicle", "ok", 3)
    ]
    fixed_dice.extend([[3, 3], [1, 1]])
    rg_roll(players, "british", second)
    assert unit_names(players, "british", kind="leader") == [
        ("9-1 armor leader (V1)", "leader", "ok", 1)
    ]


def test_3_6183_signal_coy_first_leader_roll_minus_4_and_leaders_per_rg(users, modules, fixed_dice):
    """3.6183: "-4 1st Signal Coy RG Leader Roll" reaches the Axis I4's first leader roll
    by itself.  With two leaders per RG (the count is in the cut text of 3.6183: here a
    host's override), the I4 makes two leader rolls, the -4 on the first only, and gets
    two leaders."""
    players, _ = campaign_at("sicily", "i", "jul14pm", users)

    def two_leaders(data):
        for pp in data["post_purchase"]:
            if pp["table"] == "leader_allotment" and "I4" in pp["applies_to"].get("groups", []):
                pp["count"] = 2

    patch_module(players.campaign, two_leaders)
    i4 = buy(players, "axis", "I4")
    fixed_dice.extend([[4, 4], [3, 3], [3, 3]])  # strength DR 8: Full; leader DRs 6 - 4, 6
    rg_roll(players, "axis", i4)
    first, second = Roll.objects.filter(table_id="leader_allotment").order_by("seq")
    assert {"label": "1st Signal Coy RG Leader Roll", "value": -4, "how": "auto"} in first.drms
    assert first.final == 2 and second.final == 6 and second.drms == []
    assert i4.details["leaders"] == ["10-2 leader", "8-1 leader"]
    assert unit_names(players, "axis", kind="leader") == [
        ("10-2 leader (I4)", "leader", "ok", 1),
        ("8-1 leader (I4)", "leader", "ok", 1),
    ]


def supply_sw_table(data):
    table = next(t for t in data["tables"] if t["id"] == "sw_depleted")
    table["missing"] = False
    table["rows"] = [
        {"range": "≤3", "result": "Received"},
        {"range": "≥4", "result": "Not received"},
    ]


def test_3_6182_a_depleted_i_rg_rolls_once_per_sw(users, modules, fixed_dice):
    """3.6182: a Full-Strength "I" RG receives all its SW; a Depleted one rolls for each
    (British I3 Lgt Inf Assault Pltn: 2 LMG + 1 DC = 3 drs).  The table is cut from the
    seed: supplied here."""
    players, _ = campaign_at("sicily", "i", "jul14n", users)
    patch_module(players.campaign, supply_sw_table)
    i3 = buy(players, "british", "I3")
    fixed_dice.extend([[6, 6], [1, 1], [1], [1], [1]])  # DR 12: Depleted; leader; 3 SW drs
    rg_roll(players, "british", i3)
    assert i3.strength == "depleted" and i3.units == 2
    assert Roll.objects.filter(table_id="sw_depleted").count() == 3
    assert Roll.objects.filter(table_id="leader_allotment").count() == 1


def test_3_617_footnote_m_a_depleted_carrier_pltn_rolls_once_per_carrier(
    users, modules, fixed_dice
):
    """British footnote m: "If depleted make a Secret dr for each Carrier as if a SW per
    3.6182": V3 Carrier Pltn I has three Carriers (Full/Depl printed '3/m'), so a
    Depleted V3 makes three drs."""
    players, _ = campaign_at("sicily", "i", "jul14n", users)
    patch_module(players.campaign, supply_sw_table)
    v3 = buy(players, "british", "V3")
    fixed_dice.extend([[6, 6], [1], [1], [1]])  # DR 12 - 1 = 11: Depleted
    rg_roll(players, "british", v3)
    assert v3.strength == "depleted"
    assert Roll.objects.filter(table_id="sw_depleted").count() == 3


def test_3_610_british_airborne_leader_minus_1_reaches_the_wounded_leader_roll(
    users, modules, fixed_dice
):
    """3.610 drm: "-1 if part of British Airborne RG": the leader the British I2 Airborne
    Pltn brought rolls with -1 by itself when wounded."""
    players, module = campaign_at("sicily", "i", "jul14pm", users)
    i2 = buy(players, "british", "I2")
    fixed_dice.extend([[3, 3], [3, 3]])
    rg_roll(players, "british", i2)
    (leader,) = Unit.objects.filter(campaign_id=players.campaign_id, kind="leader")
    units.update_unit(
        campaign_id=players.campaign_id,
        user=players.users["british"],
        unit_id=leader.ref,
        name=leader.name,
        markers=["wounded"],
    )
    players.until("initiative")
    keep_retained_units(players)  # 3.6212 footnote *: the Axis Attack needs British units
    players.chits(axis="attack", british="idle")
    players.until("results")
    players.results(**result_values(module, san_axis=2, san_british=2))
    players.until_step("3.610")
    fixed_dice.append([5])
    r = roll(players, "british", "wounded_leaders", leader)
    assert r.drms == [{"label": "if part of British Airborne RG", "value": -1, "how": "auto"}]
    assert r.final == 4 and r.result == "Retained wounded"


# --------------------------------------------------------------------------- the RG lifecycle


def test_3_617_footnote_e_one_o4_in_the_ob_at_a_time(users, modules):
    """British footnote e: "No more than 1 O4 may be in a sides OB at any given time":
    a second O4 is refused while the first is in the OB, and may be bought once it is
    marked eliminated."""
    players, _ = campaign_at("sicily", "i", "jul14n", users)
    with pytest.raises(ActionRefused, match=r"only with one of O1, O2, O3 held \(3.617 British"):
        buy(players, "british", "O4")  # footnote j: an observer serves a module
    buy(players, "british", "O2")
    first = buy(players, "british", "O4")
    players.finish()
    players.until("initiative")
    players.chits(axis="idle", british="idle")
    players.until("purchase")
    Seat.objects.filter(campaign_id=players.campaign_id).update(points=100)
    with pytest.raises(ActionRefused, match=r"no more than 1 in the OB at a time \(3.617 British"):
        buy(players, "british", "O4")
    mark_rg(players, "british", first, "eliminated")
    assert Purchase.objects.get(pk=first.pk).state == "eliminated"
    second = buy(players, "british", "O4")
    assert second.ordinal == 2  # the CG Max still counts the first
    with pytest.raises(ActionRefused, match="already eliminated"):
        purchases.change_rg_state(
            campaign_id=players.campaign_id,
            user=players.users["british"],
            purchase_id=first.ref,
            state="eliminated",
        )


def test_3_617_footnote_j_the_observer_leaves_with_the_last_module_it_serves(users, modules):
    """British footnote j: "Each Off board Observer is retained as long as the module he
    is assigned to is retained": the O2 module used up, the O4 bought for it leaves the
    OB with it (withdrawn, logged), and a new O4 may be bought with a new module."""
    players, _ = campaign_at("sicily", "i", "jul14n", users)
    module = buy(players, "british", "O2")
    observer = buy(players, "british", "O4")
    mark_rg(players, "british", module, "used")
    assert Purchase.objects.get(pk=observer.pk).state == "withdrawn"
    said = [e.text for e in Event.objects.filter(campaign_id=players.campaign_id)]
    assert any("O4 Offboard Observer leaves with O2" in t for t in said)
    # Footnote e ("no more than 1 O4 ... at any given time") no longer counts it.
    from campaign.selectors import holdings
    from rules.purchase import outlived

    snap = players.campaign
    held = holdings(snap, "british", purchases=True).bought
    assert [b.group_id for b in held if b.state == "held"] == []
    assert outlived(module_of(snap), "british", held) == []


# --------------------------------------------------------------------------- recon (3.620)


def two_recon_drs(users, fixed_dice):
    """The Axis buys two M2 Recon RGs on July 14 PM (one at 2 CPP) and makes their
    Recon drs: 2 + 5 and 4 Locations."""
    players, _ = campaign_at("sicily", "i", "jul14pm", users)
    plus5 = buy(players, "axis", "M2", "recon_plus5")
    plain = buy(players, "axis", "M2")
    assert (plus5.cost, plain.cost, seat(players, "axis").points) == (2, 1, 197)
    players.until("recon")
    # Both wait: the British passing by itself would tell the Axis it bought no M2.
    assert sorted(players.waiting()) == ["axis", "british"]
    assert not Event.objects.filter(text__contains="passes 3.620").exists()
    axis = players.users["axis"]
    fixed_dice.extend([[2], [4]])
    a = purchases.buy_recon(campaign_id=players.campaign_id, user=axis, purchase_id=plus5.ref)
    b = purchases.buy_recon(campaign_id=players.campaign_id, user=axis, purchase_id=plain.ref)
    assert (a.locations, b.locations, a.cost, b.cost) == (7, 4, 0, 0)
    assert (a.purchase_id, b.purchase_id) == (plus5.pk, plain.pk)
    with pytest.raises(ActionRefused, match=r"No M2 Recon RG bought on this date awaits"):
        purchases.buy_recon(campaign_id=players.campaign_id, user=axis, purchase_id=plain.ref)
    return players


def test_3_620_each_m2_recon_rg_gives_one_recon_dr_plus_5_at_2_cpp(users, modules, fixed_dice):
    """3.620 / chart footnote r: the Recon dr is bought as the M2 Recon RG, 1 CPP, or 2
    CPP "for a +5 drm to the Recon dr"; each gives one dr; a side that bought none passes
    3.620."""
    two_recon_drs(users, fixed_dice)
    plus5 = Roll.objects.filter(purpose__startswith="Recon").first()
    assert plus5.drms == [{"label": "M2 bought for 2 CPP", "value": 5, "how": "auto"}]


def test_3_620_the_british_buy_no_recon_in_cg_iii(users, modules):
    """3.617 British chart, M2 Recon: CG Max 6/6/0: none in CG III (the Axis may buy 2)."""
    players, _ = campaign_at("sicily", "iii", "jul14pm", users)
    with pytest.raises(ActionRefused, match=r"not available in CG III"):
        buy(players, "british", "M2")
    buy(players, "axis", "M2")


def test_3_620_idle_dates_recon_locations_add_up_until_the_next_scenario(
    users, modules, fixed_dice
):
    """3.620: "The number recorded for each Idle CG Date is cumulative with the number
    recorded for each succeeding CG Date, but not beyond the next CG scenario": 7 + 4
    Locations on July 14 PM (Idle), then 3 on July 14 N: 14."""
    players = two_recon_drs(users, fixed_dice)
    players.until("initiative")
    players.chits(axis="idle", british="idle")
    players.until("purchase")
    m2 = buy(players, "axis", "M2")
    players.until("recon")
    fixed_dice.append([3])
    purchases.buy_recon(
        campaign_id=players.campaign_id, user=players.users["axis"], purchase_id=m2.ref
    )
    panel = campaign_view(players.users["axis"], players.campaign_id).panel
    assert panel.recon_total == (
        "Recon Locations for your next scenario, adding up over Idle dates: 14 (3.620)."
    )
    assert ReconBuy.objects.count() == 3


# --------------------------------------------------------------------------- forgone CPP (3.616)


def test_3_616_exc_the_british_forgo_cpp_which_come_off_the_axis(users, modules):
    """3.616 EXC: "On the July 14 PM date of CG III the British player may fore go all or
    a portion of the allotted CPP. The number of CPP fore gone is subtracted from the Axis
    CPP base."  July 14 PM: Axis 29, British 12 (3.6161); the British forgo 5."""
    players, module = start("sicily", "iii", users, "axis")
    players.results(**result_values(module))
    players.until_step("3.616")
    assert players.waiting() == ["british"]
    assert (seat(players, "axis").points, seat(players, "british").points) == (29, 12)
    british = players.users["british"]
    with pytest.raises(ActionRefused, match=r"Forgo between 0 and 12 CPP \(the CPP allotted"):
        steps.forgo_points(campaign_id=players.campaign_id, user=british, amount=13)
    steps.forgo_points(campaign_id=players.campaign_id, user=british, amount=5)
    assert (seat(players, "axis").points, seat(players, "british").points) == (24, 7)
    assert Event.objects.get(kind="forgo").text == (
        "British forgoes 5 CPP; the Axis CPP are reduced by 5 (3.616 EXC)."
    )
    assert players.step.id != "3.616"


def test_3_616_exc_only_the_allotted_cpp_are_forgone_never_the_carried_ones(users, modules):
    """3.616 EXC: "all or a portion of the allotted CPP": British CPP carried over from
    July 14 AM are not forgone (they would cost the British nothing, being lost after
    the 14 PM purchase step, 3.617 EXC, and cut the Axis as much)."""
    players, module = start("sicily", "iii", users, "axis")
    Seat.objects.filter(campaign_id=players.campaign_id, side="british").update(points=10)
    players.results(**result_values(module))
    players.until_step("3.616")
    assert seat(players, "british").points == 22  # 10 carried + 12 allotted (3.6161)
    british = players.users["british"]
    with pytest.raises(ActionRefused, match=r"Forgo between 0 and 12 CPP"):
        steps.forgo_points(campaign_id=players.campaign_id, user=british, amount=13)
    steps.forgo_points(campaign_id=players.campaign_id, user=british, amount=12)
    assert (seat(players, "axis").points, seat(players, "british").points) == (17, 10)


# --------------------------------------------------------------------------- fortifications (3.619)


def test_3_619_foxholes_cost_3_2_1_by_capacity_and_hip_is_capped(users, modules):
    """3.619: Foxhole "3/2/1" FPP (footnote c, 3S/2S/1S); footnote b: "No more than 10%
    (FRU) of a side's Retained Infantry squads may use HIP": 11 squads → 2."""
    players, _ = campaign_at("sicily", "i", "jul14pm", users)
    buy(players, "axis", "M3")  # 20 FPP
    add(players, "axis", "4-6-8", "squad", number=11)
    add(players, "axis", "2-4-8", "half_squad", number=4)
    players.until("fortify")
    axis = players.users["axis"]

    def fortify(item, count=1, tier=0):
        return purchases.buy_fortification(
            campaign_id=players.campaign_id, user=axis, item_id=item, count=count, tier=tier
        )

    two_s = fortify("foxhole", count=3, tier=1)
    assert (two_s.cost, two_s.tier) == (6, "2S")
    assert fortify("foxhole", tier=2).cost == 1
    assert seat(players, "axis").fortification_points == 13
    assert (
        Event.objects.filter(kind="fortify")
        .first()
        .text.endswith("bought 3 × Foxhole (2S) for 6 FPP.")
    )
    hip = fortify("hip", count=2, tier=3)  # two 1-FPP counters
    assert hip.cost == 2
    with pytest.raises(
        ActionRefused,
        match=r"no more than 2 HIP \(1/10 FRU of 11 retained squads; 3.619 footnote b\); "
        r"2 taken so far",
    ):
        fortify("hip", tier=3)
    with pytest.raises(ActionRefused, match=r"not enough FPP \(15 needed, 11 left\)"):
        fortify("foxhole", count=5, tier=0)
    assert FortificationBuy.objects.count() == 3


def test_c5_35_hip_capped_at_10_percent_frd_of_squad_equivalents(users, modules):
    """C5.35 note 3: "No > 10% (FRD) of a side's non-reserve Infantry squad-equivalents may
    be set up using HIP": 15 squads and 3 HS are 16.5 squad-equivalents → 1."""
    german, us = users
    c = host_game("purple-heart-draw", "tm", german, us, side="german", through_start=False)
    players = players_of(c, german, us)
    players.until_step("I-C5.35")
    add(players, "german", "4-6-7", "squad", number=15)
    add(players, "german", "2-4-7", "half_squad", number=3)
    with pytest.raises(
        ActionRefused,
        match=r"no more than 1 HIP \(1/10 FRD of 16.5 retained squad-equivalents; C5.35 note 3\)",
    ):
        purchases.buy_fortification(campaign_id=c.pk, user=german, item_id="hip", count=2, tier=1)
    buy = purchases.buy_fortification(campaign_id=c.pk, user=german, item_id="hip", tier=1)
    assert (buy.cost, buy.tier) == (3, "Squad")


# --------------------------------------------------------------------------- APD 2.9, 3.5, 3.6


def test_2_9_the_american_wins_the_morning_and_moves_first(users, modules):
    """2.9: at or above the required total the American wins the scenario, "otherwise the
    German wins. The winning side moves first in the following scenario."  2.92 EX: 63 VP
    scored, 55 needed; 2.92: 55 − 63 + 41 = 33 PP."""
    players, module = apd_at(users, "3.4")
    assert players.campaign.results.get().winner == "american"
    assert Event.objects.get(kind="winner").text == (
        "American wins the December 6 Morning scenario: VP scored by the American in the "
        "scenario (CG total) 63 ≥ 55 (2.9; 4.0). American moves first in the next scenario."
    )
    assert seat(players, "american").points == 33


def test_2_9_4_0_the_winner_who_moves_first_is_on_the_header_and_the_sheet(users, modules):
    """4.0: "Play then commences with the RPh of the player who won the previous
    scenario": the scenario sheet and the header say so (APD has no initiative chit),
    instead of an initiative still to be determined."""
    from django.test import Client

    players, _ = apd_at(users, "3.4")
    client = Client()
    client.force_login(players.users["german"])
    said = "American won the December 6 Morning scenario: American moves first"
    for path in ("", "sheet/"):
        page = client.get(f"/campaigns/{players.campaign_id}/{path}").content.decode()
        assert said in page, path
        assert "Initiative is not determined yet" not in page


def test_2_9_below_the_required_total_the_german_wins(users, modules):
    """2.9: 40 VP of the 55 required (and no CGV Buildings): the German wins the scenario
    and moves first in the next."""
    players, module = start("pleasant-diversion", "cg", users, "american")
    players.results(**result_values(module, vp_american=40, cvp_lost_american=10))
    players.until("purchase")
    assert players.campaign.results.get().winner == "german"
    assert Event.objects.get(kind="winner").text == (
        "German wins the December 6 Morning scenario: VP scored by the American in the "
        "scenario (CG total) 40 < 55; not: American achieved this scenario's CGV Building "
        "requirement (2.9; 4.0). German moves first in the next scenario."
    )


GERMAN_CHART = {
    "row-0-id": "RA1",
    "row-0-type": "PzGr Platoon I",
    "row-0-units": "4-6-7",
    "row-0-full": "4",
    "row-0-cost": "0",
    "row-0-unit_kind": "squad",
    "row-0-tags": "pzgr_platoon_i",
    "row-1-id": "RB1",
    "row-1-type": "PzIV Section",
    "row-1-units": "PzIVH",
    "row-1-full": "2",
    "row-1-cost": "0",
    "row-1-unit_kind": "vehicle",
}


def row_table(rows):
    form = {}
    for n, (rng, result, effect) in enumerate(rows):
        form.update(
            {
                f"row-{n}-range": rng,
                f"row-{n}-result": result,
                f"row-{n}-effect": effect,
            }
        )
    return form


def supply(players, path, form, by="german"):
    """``by`` proposes the datum, the other side accepts it."""
    (other,) = [side for side in players.users if side != by]
    proposal = supplements.propose_supplement(
        campaign_id=players.campaign_id, user=players.users[by], path=path, form=form
    )
    supplements.accept_supplement(
        campaign_id=players.campaign_id, user=players.users[other], ref=proposal.ref
    )
    return proposal


def phd_with_chart(users, rows: list[dict[str, str]], side="german"):
    """A PHD TM at its start (I-C5.31), ``side``'s RG chart supplied with ``rows``."""
    a, b = users
    c = host_game("purple-heart-draw", "tm", a, b, side=side, through_start=False)
    players = players_of(c, a, b)
    supply_chart(players, side, rows)
    players.until_step("I-C5.31")  # after I-C5.12 (control)
    return players, c


def supply_chart(players, side, rows: list[dict[str, str]]):
    """``side``'s lost RG chart supplied with these rows (form keys: id, type, units,
    unit_kind, full, cost, footnotes, tags ...), accepted by the opponent."""
    form = {f"row-{n}-{key}": value for n, row in enumerate(rows) for key, value in row.items()}
    supply(players, f"rg_charts.{side}", form, by=side)


def supply_german(players, chart=None):
    """The German chart (``GERMAN_CHART``) and Rows A-C, supplied: a dr of 1-3 on Row A
    gives RA1, any on Row B gives RB1, Row C gives nothing."""
    supply(players, "rg_charts.german", chart or GERMAN_CHART)
    supply(
        players,
        "tables.german_reinforcement_row_a",
        row_table([("1-3", "PzGr Platoon I", "group: RA1"), ("4-6", "Nothing", "none")]),
    )
    supply(
        players,
        "tables.german_reinforcement_row_b",
        row_table([("1-6", "PzIV Section", "group: RB1")]),
    )
    supply(
        players,
        "tables.german_reinforcement_row_c",
        row_table([("1-6", "HE (only)", "none")]),
    )


def test_3_5_german_rows_a_c_give_rgs_at_no_cost_once_and_3_6_rolls_their_leaders(
    users, modules, fixed_dice
):
    """3.5: "The German player now secretly makes three Reinforcement drs (one each on
    Rows A-C)"; 3.6: a Leader Table DR "for each German infantry (Row A) and armor (Row B)
    Reinforcement Group" on its column, -1 for a PzGr Platoon I.  The rows and the groups
    are not printed: the players supply them, each row naming the RG it gives."""
    players, _ = apd_at(users, "3.4")
    supply_german(players)
    players.until_step("3.5")
    fixed_dice.extend([[2], [5], [1]])
    roll(players, "german", "german_reinforcement_row_a", item="Row A")
    roll(players, "german", "german_reinforcement_row_b", item="Row B")
    roll(players, "german", "german_reinforcement_row_c", item="Row C")
    got = Purchase.objects.filter(side="german").order_by("id")
    assert [(p.group_id, p.cost, p.revealed_at) for p in got] == [
        ("RA1", 0, None),
        ("RB1", 0, None),
    ]
    assert seat(players, "german").points == 0
    with pytest.raises(
        ActionRefused,
        match=r"You have made your German Reinforcement Table, Row A roll in this pass \(3.5\)",
    ):
        roll(players, "german", "german_reinforcement_row_a", item="Row A again")
    players.finish()
    players.until_step("3.6")
    assert players.waiting() == ["german"]
    ra1, rb1 = got
    fixed_dice.extend([[3, 3], [6, 6]])
    rg_roll(players, "german", ra1)
    rg_roll(players, "german", rb1)
    infantry, armor = Roll.objects.filter(table_id="leader").order_by("seq")
    assert infantry.drms == [
        {"label": "PzGr Platoon I / PzV Section (German)", "value": -1, "how": "auto"}
    ]
    assert infantry.result == "German Infantry: 8-1" and armor.result == "German Armor: No leader"
    assert unit_names(players, "german", kind="leader") == [("8-1 leader (RA1)", "leader", "ok", 1)]
    assert ("4-6-7 (RA1 PzGr Platoon I)", "squad", "ok", 4) in unit_names(players, "german")


# --------------------------------------------------------------------------- issue 44, third pass


def test_3_6181_exc_an_airborne_rg_entering_by_paradrop_is_not_depleted(users, modules, fixed_dice):
    """3.6181 [EXC: RG entering via Para drop] and British footnote c: the British I2
    bought to enter by paradrop (the printed cost) makes no RG Strength DR and is
    received at Full Strength with all its SW; bought otherwise, it rolls."""
    players, _ = campaign_at("sicily", "i", "jul14pm", users, points=60)
    dropped = buy(players, "british", "I2", "paradrop")
    assert dropped.cost == 7 and dropped.cost_variant == "paradrop"
    landed = buy(players, "british", "I2")
    with pytest.raises(ActionRefused):  # an Axis RG is never bought "by paradrop" here
        buy(players, "axis", "I1", "paradrop")
    fixed_dice.extend([[3, 3]])  # the leader DR (3.6183) only
    dropped = rg_roll(players, "british", dropped)
    assert dropped.strength == "full" and dropped.units == 4
    assert [r["table"] for r in dropped.details["rolls"]] == ["Leader Allotment"]
    assert dropped.details["sw"] == {"LMG": 1, "DC": 1, "FT": 1}
    fixed_dice.extend([[6, 6], [3, 3]])  # strength DR 12: Depleted
    landed = rg_roll(players, "british", landed)
    assert landed.strength == "depleted"
    assert [r["table"] for r in landed.details["rolls"]][0] == "RG Strength"


def test_3_6181_3_6183_claimable_drms_are_offered_and_accepted_only_where_they_apply(
    users, modules, fixed_dice
):
    """The cut DRM labels of 3.6181/3.6183 say whom they concern: "British
    Airlanding/…" is the British player's, "Airborne/…" an airborne (Fallschirmjäger)
    RG's, "Non-Airborne/…" never an airborne one.  The Italian I7's leader roll is not
    offered "-1 Airborne/…" and a forged tick of it is refused, nothing rolled."""
    players, _ = campaign_at("sicily", "i", "jul14pm", users, points=80)
    i7 = buy(players, "axis", "I7")
    i4 = buy(players, "axis", "I4")  # Fallschirmjäger: its "-1 Airborne/…" is offered
    players.until("strength")  # the rolls come once every RG is selected (3.6181)
    view = campaign_view(players.users["axis"], players.campaign_id)
    line = next(r for r in view.record if r.group_id == "I7")
    claimed = {drm_id for _, drm_id, _, _ in line.claims}
    assert claimed == {"non_airborne"}
    with pytest.raises(ActionRefused, match="does not apply to this roll"):
        rg_roll(players, "axis", i7, ticked={"leader_allotment": ["airborne"]})
    with pytest.raises(ActionRefused, match="does not apply to this roll"):
        rg_roll(players, "axis", i7, ticked={"rg_strength": ["british_airlanding"]})
    assert not Roll.objects.filter(campaign_id=players.campaign_id).exists()
    view = campaign_view(players.users["axis"], players.campaign_id)
    line = next(r for r in view.record if r.group_id == "I4")
    assert {d for _, d, _, _ in line.claims} == {"airborne"}
    fixed_dice.extend([[3, 3], [4, 5]])  # the -4 of the Signal Coy's first leader roll, too
    rg_roll(players, "axis", i4, ticked={"leader_allotment": ["airborne"]})
    leader = Roll.objects.get(table_id="leader_allotment")
    assert leader.final == 4 and "Airborne/..." in [d["label"] for d in leader.drms]


def test_tm20_one_secret_gyrostabilizer_dr_per_us_vehicle(users, modules, fixed_dice):
    """TM20: "The US player may make a secret dr, to determine if an eligible Sherman
    tank has a functioning Gyrostabilizer": a step of its own before set-up, the US
    side's; one dr per retained vehicle, secret, and never a second for it."""
    players, module = start("purple-heart-draw", "tm", users, "us")
    players.results(**result_values(module))
    sherman = add(players, "us", "M4A1 Sherman", "vehicle")
    players.until_step("C5.37")
    players.chits(german="idle", us="attack")
    players.until_step("TM20")
    assert players.step.acts == "us"
    fixed_dice.extend([[2]])
    r = roll(players, "us", "gyrostabilizer", sherman)
    assert r.secret and r.result == "Functioning Gyrostabilizer (D11.1)"
    with pytest.raises(ActionRefused):
        roll(players, "us", "gyrostabilizer", sherman)
    with pytest.raises(ActionRefused):
        roll(players, "german", "gyrostabilizer", sherman)
    assert Unit.objects.get(pk=sherman.pk).markers == []


def test_c5_23_the_cvp_drm_is_computed_from_the_recorded_result(users, modules, fixed_dice):
    """C5.23: "-1 per 10 CVP (FRD) amassed by friendly side in this scenario": the US
    inflicted 25 CVP (the German's recorded losses): -2 by itself, shown with its
    source; the German amassed 9: no DRM.  A typed value is refused."""
    players, module = start("purple-heart-draw", "tm", users, "us")
    players.results(**result_values(module, cvp_lost_german=25, cvp_lost_us=9))
    players.until_step("C5.23")
    add(players, "us", "6-6-7", "squad")  # an MMC each DR may Battle Harden
    add(players, "german", "4-6-7", "squad")
    fixed_dice.extend([[3, 3], [3, 3]])
    us = roll(players, "us", "battlefield_promotion")
    assert us.final == 4 and [d["value"] for d in us.drms] == [-2]
    assert us.drms[0]["how"] == "auto"
    german = roll(players, "german", "battlefield_promotion")
    assert german.final == 6 and german.drms == []


_M4_ARMOR_TYPE = {"do": "type", "type": "m4"}


def _armor_group(players, armor_rows, *, tags=("armor",), **group):
    """The American chart's one Armor Group A1 (10 PP) and the players' armor-type rows
    (3.4), supplied; the American holds 20 PP at 3.4."""

    def supplied(data):
        chart = next(c for c in data["rg_charts"] if c["side"] == "american")
        a1 = {"id": "A1", "type": "Armor Group", "units": "3 tanks", "cost": 10}
        chart.update(
            missing=False,
            groups=[{**a1, "unit_kind": "vehicle", "tags": list(tags), **group}],
        )
        armor = next(t for t in data["tables"] if t["id"] == "american_reinforcement")
        armor.update(missing=False, rows=armor_rows)
        gyro = next(t for t in data["tables"] if t["id"] == "gyrostabilizer")
        gyro.update(missing=False, rows=[{"range": "≤12", "result": "Functioning"}])

    patch_module(players.campaign, supplied)
    Seat.objects.filter(campaign_id=players.campaign_id, side="american").update(points=20)


def test_3_4_3_7_the_m4_model_dr_follows_the_armor_type_dr(users, modules, fixed_dice):
    """APD 3.4: "For each Armor Group purchased, make a dr to determine armor type"; 3.7:
    "For each M4 Armor Reinforcement Group, make a secret DR on the M4 Model Table".  The
    players' armor-type rows say which result is an M4 group (effect type m4): the Armor
    Group whose dr gave M4 rolls on the M4 Model Table and receives its three tanks; the
    one whose dr gave another type does not, and receives that row's tanks."""
    players, _ = apd_at(users, "3.4")
    stuarts = {"do": "units", "unit": "M5A1", "count": 3, "kind": "vehicle"}
    _armor_group(
        players,
        [
            {"range": "1-3", "result": "M4", "effect": _M4_ARMOR_TYPE},
            {"range": "4-6", "result": "M5A1", "effect": stuarts},
        ],
    )
    m4, stuart = buy(players, "american", "A1"), buy(players, "american", "A1")
    fixed_dice.extend([[2], [5]])  # armor types M4 and M5A1, while buying (3.4)
    rg_roll(players, "american", m4)
    rg_roll(players, "american", stuart)
    players.until_step("3.6")  # the Leader and M4 Model DRs, at their steps
    fixed_dice.extend([[3, 3]])  # leader
    rg_roll(players, "american", m4)
    fixed_dice.extend([[3, 3]])  # leader: no M4 Model DR
    rg_roll(players, "american", stuart)
    players.until_step("3.7")
    fixed_dice.extend([[1, 2]])  # M4 Model DR 3
    rg_roll(players, "american", m4)
    rolled = list(Roll.objects.order_by("seq").values_list("table_id", "item"))
    tables = [t for t, _ in rolled]
    assert tables.count("m4_model") == 1, rolled
    # after both armor-type drs (3.4) and both Leader DRs (3.6)
    assert tables.index("m4_model") > max(i for i, t in enumerate(tables) if t == "leader")
    tanks = Unit.objects.filter(campaign_id=players.campaign_id, kind="vehicle")
    assert sorted(tanks.filter(purchase=m4).values_list("name", "count")) == [
        ("M4A3(105) (A1)", 1),
        ("M4A3(75)W (A1)", 1),
        ("M4A3(76)W (A1)", 1),
    ]
    assert list(tanks.filter(purchase=stuart).values_list("name", "count")) == [("M5A1 (A1)", 3)]


def test_3_4_note_3_one_gyrostabilizer_dr_per_afv_the_m4_roll_gave(users, modules, fixed_dice):
    """APD 3.4 note 3: "one DR on the H1.42 Gyrostabilizer Table per AFV": the M4 Model
    roll (3.7) gives the group's tanks (DR 3: three of them), and one Gyrostabilizer DR
    is made for each, whatever the chart's count; 3.5 note 2 counts PzIVs only."""
    players, _ = apd_at(users, "3.4")
    _armor_group(
        players,
        [{"range": "1-6", "result": "M4", "effect": _M4_ARMOR_TYPE}],
        tags=("armor", "afv"),
        full=1,
    )
    a1 = buy(players, "american", "A1")
    fixed_dice.extend([[1]])  # armor type (M4), while buying (3.4)
    rg_roll(players, "american", a1)
    players.until_step("3.6")
    fixed_dice.extend([[1, 1]])  # leader (3.6)
    rg_roll(players, "american", a1)
    players.until_step("3.7")
    fixed_dice.extend([[1, 2], [2, 2], [3, 3], [4, 4]])  # M4 (3), 3 gyros (3.7)
    rg_roll(players, "american", a1)
    tables = list(Roll.objects.order_by("seq").values_list("table_id", flat=True))
    assert tables.count("gyrostabilizer") == 3, tables
    assert tables.index("m4_model") < tables.index("gyrostabilizer")


def test_4_0_no_quarter_once_invoked_is_on_every_later_sheet(users, modules):
    """APD 4.0: "Once invoked, No Quarter will remain in effect for the duration of the
    CG": recorded with the scenario's result, every later scenario sheet says so."""
    from campaign.seat_views.sheet import scenario_sheet, sheet_text

    players, _ = apd_at(users, "3.1", no_quarter_american=True)
    for side in ("american", "german"):
        sheet = scenario_sheet(players.campaign, side)
        assert sheet.in_effect == [
            "No Quarter invoked (4.0): since the December 6 Morning scenario, for the rest of "
            "the CG."
        ], sheet.in_effect
        assert "In effect: No Quarter invoked (4.0)" in sheet_text(sheet)


def test_c5_26a_a_vehicular_weapon_that_fails_repair_is_disabled_the_vehicle_stays(
    users, modules, fixed_dice
):
    """C5.26a/c: a malfunctioned weapon failing its repair dr is eliminated, but a
    vehicular-mounted one is Disabled (C5.27b repairs an MG "even if disabled in
    C5.26"): the vehicle stays in the retained forces; a SW is removed."""
    players, module = start("purple-heart-draw", "tm", users, "us")
    players.results(**result_values(module))
    tank, (ma, bmg) = add_vehicle(
        players,
        "us",
        "M4A1 Sherman",
        ("ma", ["malfunctioned"]),
        ("mg", ["malfunctioned"], "BMG"),
    )
    bazooka = add(players, "us", "Bazooka", "sw", status="malfunctioned")
    players.until_step("C5.26")
    fixed_dice.extend([[6], [5], [1]])  # the vehicle's -2 makes 4: still a failure
    roll(players, "us", "weapon_repair", tank, weapon=ma)
    roll(players, "us", "weapon_repair", bazooka)
    roll(players, "us", "weapon_repair", tank, weapon=bmg)  # -1: Repaired
    tank.refresh_from_db()
    assert tank.markers == []
    assert [(w["name"], w["markers"]) for w in tank.weapons] == [("MA", ["disabled"]), ("BMG", [])]
    assert not Unit.objects.filter(pk=bazooka.pk).exists()


def test_c3_0_tm20_gyrostabilizers_in_the_initial_tm_scenario_too(users, modules):
    """C3.0: the TM's special rules "apply in all TM Scenarios": the US may make its
    Gyrostabilizer drs (TM20) before the Initial TM Scenario as well."""
    a, b = users
    c = host_game("purple-heart-draw", "tm", a, b, side="us", through_start=False)
    module = module_of(c)
    ids = [s.id for s in module.steps if s.start]
    assert ids.index("I-TM20") == ids.index("I-C5.35") + 1
    assert module.steps[[s.id for s in module.steps].index("I-TM20")].acts == "us"


def test_c5_34_c5_13a_one_dr_per_oba_module_and_per_redeploying_unit(users, modules, fixed_dice):
    """C5.34: "a DR for each [OBA module]"; C5.13a: "No unit may redeploy more than
    once per ConPh": a second roll for the same module, or the same unit, in the pass is
    refused; the typed "+1 per ..." Redeployment DRMs are never negative."""
    players, module = start("purple-heart-draw", "tm", users, "us")
    players.results(**result_values(module))
    players.until_step("C5.14")
    squad, other = add(players, "us", "6-6-7", "squad"), add(players, "us", "7-4-7", "squad")
    roll(players, "us", "redeployment", squad)
    with pytest.raises(ActionRefused):
        roll(players, "us", "redeployment", squad)
    with pytest.raises(ActionRefused, match="between 0 and 9"):
        roll(players, "us", "redeployment", other, typed={"portage": -2})
    assert module.table("oba").once == "item"


def test_c5_20_c5_23_the_result_is_read_at_c5_23_no_amendment_after_it(users, modules):
    """C5.20: the CVP are recorded "for the DRM for TP Replenishment and Bravery and
    Battlefield Promotion": C5.23's DRM reads them, so once a side's DR has read them
    the result may no longer be amended (until then it may: pass 26)."""
    players, module = start("purple-heart-draw", "tm", users, "us")
    players.results(**result_values(module, cvp_lost_german=25))
    players.until_step("C5.23")
    add(players, "us", "6-6-7", "squad")  # an MMC the DR may Battle Harden
    roll(players, "us", "battlefield_promotion")
    with pytest.raises(ActionRefused, match="read by the American's DR on the Battlefield"):
        steps.propose_result_amendment(
            campaign_id=players.campaign_id,
            user=players.users["us"],
            values=result_values(module, cvp_lost_german=35),
            reason="two more tanks lost",
        )


def test_3_606_3_613_escape_and_shift_once_per_item_night_drm_at_night_only(
    users, modules, fixed_dice
):
    """3.606: one Escape DR per unit (issue 45: made for a unit named), "-1 If current
    CG Date is Night" applies by itself on a Night date only (never ticked); 3.613: one
    Shift DR per attempt, "+1 per five ... hexes" never negative, and footnote †'s
    subsequent dr is offered."""
    players, module = campaign_at("sicily", "i", "jul14pm", users)
    players.until("initiative")
    keep_retained_units(players)  # 3.6212*: the Axis Attack needs British units
    players.chits(axis="attack", british="idle")
    players.until("results")
    players.results(**result_values(module, san_axis=2, san_british=2))
    players.until_step("3.606")
    assert not module.dates[players.campaign.date_index].night
    squad = add(players, "axis", "4-6-8", "squad", number=2)
    with pytest.raises(ActionRefused, match="applies by itself"):
        roll(players, "axis", "escape", squad, ticked=["night"])
    fixed_dice.extend([[3, 3]])
    r = roll(players, "axis", "escape", squad)
    assert "night" not in str(r.drms)  # a day date: no Night -1
    escaped = Roll.objects.get(table_id="escape").unit_ref
    with pytest.raises(ActionRefused, match="has made its one Escape roll"):
        roll(players, "axis", "escape", Unit.objects.get(ref=escaped))
    players.until_step("3.613")
    assert players.step.tables == ["shift", "shift_casualties", "crew_survival"]
    with pytest.raises(ActionRefused, match="between 0 and 9"):
        roll(players, "axis", "shift", squad, typed={"uncontrolled_hexes": -3})


def test_3_6181_3_6141d_penalty_drms_apply_by_themselves(users, modules, fixed_dice):
    """3.6181 "+1 British Airlanding/…" reaches the British airlanding RG's strength roll
    by itself (the owner need not tick his own penalty); 3.6141d "+1 if German" reaches
    an Axis stun roll by itself, never a British one; 3.6142's "-x (Weapon Repair
    Number)" is typed between -6 and -1."""
    from rules.drm import DrmRefused, RollContext, applicable_drms

    players, module = campaign_at("sicily", "i", "jul14pm", users)
    g2 = module.group("british", "G2")
    strength = module.table("rg_strength")
    applied = applicable_drms(strength, RollContext(side="british", group=g2))
    assert ("british_airlanding_rg", 1, "auto") in [(d.id, d.value, d.how) for d in applied]
    stun = module.table("stun_recovery")
    stug = dict(unit_kind="vehicle", group=module.group("axis", "V1"))
    assert [d.id for d in applicable_drms(stun, RollContext(side="axis", **stug))] == ["german"]
    assert applicable_drms(stun, RollContext(side="british", unit_kind="vehicle")) == []
    repair = module.table("weapon_repair")
    with pytest.raises(DrmRefused, match="between -6 and -1"):
        applicable_drms(repair, RollContext(side="axis"), typed={"repair_number": 3})


def german_groups(players, fixed_dice, chart=None):
    """The German's 3.5 (``supply_german``), the three drs rolled (Row A gives RA1, Row
    B RB1, Row C nothing); the campaign then at 3.6; his two lines."""
    supply_german(players, chart)
    players.until_step("3.5")
    fixed_dice.extend([[2], [5], [1]])
    for row in ("a", "b", "c"):
        roll(players, "german", f"german_reinforcement_row_{row}", item=f"Row {row.upper()}")
    players.finish()
    players.until_step("3.6")
    return list(Purchase.objects.filter(side="german").order_by("id"))


def test_3_6_note_a_the_pzgr_pzv_drm_applies_by_itself_to_those_two_groups(
    users, modules, fixed_dice
):
    """APD 3.6 note a "-1 DRM for PzGr Platoon I/PzV Section" sits under the German
    columns and names two groups: it applies by itself to the leader DR of a German
    group tagged pzgr_platoon_i or pzv_section, so the German's Done, which rolls what is
    left, keeps it; it is offered to no group (a PzIV Section, an American group), and a
    tick of it is refused."""
    from rules import availability
    from rules.drm import DrmRefused, RollContext, applicable_drms

    players, module = apd_at(users, "3.4")
    leader = module.table("leader")
    for side in ("american", "german"):
        with pytest.raises(DrmRefused, match="applies by itself"):
            applicable_drms(leader, RollContext(side=side), ticked=["pzgr_pzv"])
        assert applicable_drms(leader, RollContext(side=side)) == []
    german_groups(players, fixed_dice)
    patched = module_of(Campaign.objects.get(pk=players.campaign_id))
    for group in ("RA1", "RB1"):
        assert availability.claimable_drms(patched, "german", group) == []
    fixed_dice.extend([[3, 3], [3, 3]])
    steps.finish_step(campaign_id=players.campaign_id, user=players.users["german"])
    infantry, armor = Roll.objects.filter(table_id="leader").order_by("seq")
    assert infantry.drms == [
        {"label": "PzGr Platoon I / PzV Section (German)", "value": -1, "how": "auto"}
    ]
    assert infantry.result == "German Infantry: 8-1"
    assert armor.drms == [] and armor.result == "German Armor: No leader"


def test_3_6_the_row_that_gave_a_german_group_says_its_leader_column(users, modules, fixed_dice):
    """3.6: "for each German infantry (Row A) and armor (Row B) Reinforcement Group, make
    one secret DR": the group a Row A dr gave is an infantry group whatever the supplied
    chart's tags say, so its Leader DR is made (German Infantry column), also by Done;
    a Row B group reads the Armor column; Schuerzen is rolled per PzIV (none for the
    infantry).  Rules: 3.5."""
    from rules import availability

    untagged = {k: v for k, v in GERMAN_CHART.items() if not k.endswith("-tags")}
    ra1, rb1 = german_groups(players := apd_at(users, "3.4")[0], fixed_dice, untagged)
    module = module_of(Campaign.objects.get(pk=players.campaign_id))
    assert ra1.details == {"types": ["infantry"]} and rb1.details == {"types": ["armor"]}
    assert availability.rolls_to_make(module, "german", "RA1") == ["leader", "schuerzen"]
    fixed_dice.extend([[4, 4], [1, 1]])
    steps.finish_step(campaign_id=players.campaign_id, user=players.users["german"])
    rolls = Roll.objects.filter(table_id="leader").order_by("seq")
    assert [(r.item, r.result) for r in rolls] == [
        ("RA1 PzGr Platoon I", "German Infantry: 8-0"),
        ("RB1 PzIV Section", "German Armor: 9-2"),
    ]
    ra1.refresh_from_db()
    assert [x["table"] for x in ra1.details["rolls"]] == ["Leader Table"]
    rb1.refresh_from_db()
    assert [x["table"] for x in rb1.details["rolls"]] == ["Leader Table", "H1.42 Schuerzen Table"]


def test_3_5_done_with_the_rows_missing_says_so_and_may_go_on_without(users, modules):
    """APD 3.5: "The German player now secretly makes three Reinforcement drs": while
    the rows are missing from the rules text, a plain Done is refused with the reason;
    going on without them is the player's knowing choice."""
    players, _ = apd_at(users, "3.5")
    with pytest.raises(ActionRefused, match="Nothing can be rolled at 3.5 yet"):
        steps.finish_step(campaign_id=players.campaign_id, user=players.users["german"])
    steps.finish_step(
        campaign_id=players.campaign_id, user=players.users["german"], without_data=True
    )


def test_3_1_a_unit_owing_its_compulsory_roll_keeps_its_line_until_it_rolls(
    users, modules, fixed_dice
):
    """APD 3.1: the owner "rolls ... to determine each wounded leader's fate": at 3.1 the
    wounded leader cannot be marked unwounded or removed before its roll; after it, he
    stays as the roll left him until the step ends (its one roll, ``once: unit``), then
    he may be edited again."""
    players, _ = start("pleasant-diversion", "cg", users, "american")
    leader = add(players, "american", "8-1 leader", "leader", status="wounded")
    module = module_of(players.campaign)
    players.results(**result_values(module, vp_american=63, cvp_lost_american=41))
    players.until_step("3.1")
    for change in (
        lambda: units.update_unit(
            campaign_id=players.campaign_id,
            user=players.users["american"],
            unit_id=leader.ref,
            name=leader.name,
            markers=[],
        ),
        lambda: units.remove_unit(
            campaign_id=players.campaign_id, user=players.users["american"], unit_id=leader.ref
        ),
    ):
        with pytest.raises(ActionRefused, match="owes its roll on the Recovery Table"):
            change()
    assert Unit.objects.get(pk=leader.pk).markers == ["wounded"]
    fixed_dice.append([2])
    roll(players, "american", "recovery", leader)
    with pytest.raises(ActionRefused, match="has made its one roll on the Recovery Table"):
        units.remove_unit(
            campaign_id=players.campaign_id, user=players.users["american"], unit_id=leader.ref
        )
    players.until_step("3.2")
    units.remove_unit(
        campaign_id=players.campaign_id, user=players.users["american"], unit_id=leader.ref
    )


def test_3_1_done_waits_for_each_wounded_leaders_recovery_dr(users, modules, fixed_dice):
    """APD 3.1: "The owning player rolls on the following Recovery Table to determine
    each wounded leader's fate" (issue 44, audit item 4): neither Done nor "Done with
    3.1 to 3.3" skips it; once the leader has rolled, Done goes through."""
    players, _ = apd_at(users, "3.1")
    leader = add(players, "american", "9-2 leader", "leader", status="wounded")
    american = players.users["american"]
    for through in ("", "3.3"):
        with pytest.raises(
            ActionRefused, match=r"Roll first: the Recovery Table for 9-2 leader \(3.1\)"
        ):
            steps.finish_step(campaign_id=players.campaign_id, user=american, through=through)
    assert players.step.id == "3.1"
    fixed_dice.append([5])
    roll(players, "american", "recovery", leader)
    steps.finish_step(campaign_id=players.campaign_id, user=american)


def test_2_1_prisoners_leave_at_done_and_a_captured_leader_owes_no_recovery_dr(
    users, modules, fixed_dice
):
    """2.1: "All Prisoners are then removed from play": a side's personnel marked
    Captured (its men held Prisoner) leave its forces when 2.1 is completed; a Captured
    weapon stays.  3.1: a wounded leader marked Captured is no wounded leader of the
    side's to roll for, so Done at 3.1 does not wait for his Recovery dr."""
    players, _ = apd_at(users, "2.1")
    leader = add(players, "american", "8-1 leader", "leader", "wounded", markers=["captured"])
    add(players, "american", "7-4-7", "squad", "captured")
    add(players, "american", "7-4-7", "squad", "ok", location="12L6")
    add(players, "american", "MMG", "sw", "captured")
    players.until_step("2.2")
    assert unit_names(players, "american") == [
        ("7-4-7", "squad", "ok", 1),
        ("MMG", "sw", "captured", 1),
    ]
    texts = set(Event.objects.filter(kind="unit").values_list("text", flat=True))
    assert "American: 8-1 leader leaves the retained forces (2.1)." in texts
    players.until_step("3.1")
    add(players, "american", "9-1 leader", "leader", "wounded", markers=["captured"])
    with pytest.raises(ActionRefused, match=r"is not one of your wounded leaders \(not captured\)"):
        roll(players, "american", "recovery", Unit.objects.get(name="9-1 leader"))
    steps.finish_step(campaign_id=players.campaign_id, user=players.users["american"])
    assert not Unit.objects.filter(pk=leader.pk).exists()


def exchange(players, side, give, mark):
    units.exchange_unit(
        campaign_id=players.campaign_id,
        user=players.users[side],
        give_id=give.ref,
        mark_id=mark.ref,
    )


def test_3_2_each_hero_eliminated_lets_one_mmc_battle_harden(users, modules, client):
    """APD 3.2: "Heroes (whether wounded or unwounded) are eliminated, but for each such
    eliminated Hero the owning player may Battle Harden ... any one MMC": two Heroes give
    two MMC their Battle Hardening, one each, and no more; a leader is no MMC, a squad no
    Hero."""
    players, _ = apd_at(users, "3.2")
    heroes = add(players, "american", "1-4-9 Hero", "hero", "wounded", number=2)
    squads = add(players, "american", "7-4-7", "squad", number=2)
    hs = add(players, "american", "3-4-7", "half_squad")
    leader = add(players, "american", "8-1 leader", "leader")
    client.force_login(players.users["american"])
    shown = html.unescape(client.get(f"/campaigns/{players.campaign_id}/").content.decode())
    assert "Your Heroes" in shown and ">Mark battle hardened</button>" in shown
    assert "2 × 1-4-9 Hero (wounded)" in shown and "3-4-7 (in good order)" in shown
    assert "each of your Heroes left leaves your forces (3.2)" in shown
    with pytest.raises(ActionRefused, match=r"8-1 leader is not one of your squads or half-squads"):
        exchange(players, "american", heroes, leader)
    with pytest.raises(ActionRefused, match=r"2 × 7-4-7 is not one of your Heroes \(3.2\)"):
        exchange(players, "american", squads, hs)
    exchange(players, "american", heroes, squads)
    exchange(players, "american", heroes, hs)
    assert unit_names(players, "american") == [
        ("3-4-7", "half_squad", "battle_hardened", 1),
        ("7-4-7", "squad", "battle_hardened", 1),
        ("7-4-7", "squad", "ok", 1),
        ("8-1 leader", "leader", "ok", 1),
    ]
    with pytest.raises(ActionRefused, match="You have no such unit"):
        exchange(players, "american", heroes, squads)  # no Hero left: no third MMC
    assert "1-4-9 Hero is removed from the retained forces; for it, 3-4-7 is now battle " in (
        Event.objects.filter(kind="unit").order_by("-id").first().text
    )
    steps.finish_step(campaign_id=players.campaign_id, user=players.users["american"])
    assert len(unit_names(players, "american")) == 4


def test_3_2_a_hero_left_is_eliminated_or_stays_unwounded_with_no_mmc(users, modules):
    """APD 3.2: a Hero whose owner Battle Hardens nothing for him is still eliminated at
    Done; "[EXC: If unable to Battle Harden any MMC, the Hero remains onboard unwounded
    instead]": a side with no MMC keeps its wounded Hero, unwounded.  Recovery (3.1) is
    for leaders, never offered for a Hero."""
    players, module = apd_at(users, "3.2")
    add(players, "american", "1-4-9 Hero", "hero")
    add(players, "american", "7-4-7", "squad")
    add(players, "german", "1-4-9 Hero", "hero", "wounded")
    add(players, "german", "PzIVH", "vehicle")
    steps.finish_step(campaign_id=players.campaign_id, user=players.users["american"])
    assert unit_names(players, "american") == [("7-4-7", "squad", "ok", 1)]
    steps.finish_step(campaign_id=players.campaign_id, user=players.users["german"])
    assert unit_names(players, "german") == [
        ("1-4-9 Hero", "hero", "ok", 1),
        ("PzIVH", "vehicle", "ok", 1),
    ]
    texts = list(Event.objects.filter(kind="unit").values_list("text", flat=True))
    assert any(
        "1-4-9 Hero leaves the retained forces, no unit marked for it (3.2)" in t for t in texts
    )
    assert any("1-4-9 Hero stays, now in good order: no squads or half-squads" in t for t in texts)
    from rules.effects import UnitState, matches

    hero = UnitState("1-4-9 Hero", "hero", ("wounded",))
    assert not matches(module.table("recovery").for_units, hero)


@pytest.mark.parametrize("held, winner", [(True, "American"), (False, "German")])
def test_c4_2_the_tm_objective_decides_the_tm_at_its_end_only(users, modules, held, winner):
    """C4.2 TM Objective: "The Americans achieve victory at the end of the last TM
    Scenario if they control the St-Lo-Bayeux Highway": holding it after an earlier TM
    Scenario ends nothing; after the 1930 TM Scenario it decides the TM (else the
    German wins)."""
    players, module = campaign_at("purple-heart-draw", "tm", "t1930", users, kind="initiative")
    players.chits(german="idle", us="attack")
    players.until("results")
    assert players.campaign.ended_at is None
    players.results(**result_values(module, highway_controlled_us=held))
    c = players.campaign
    assert c.ended_at is not None
    assert f"{winner} wins" in c.outcome, c.outcome
    if held:
        assert "C4.2 TM Objective" in c.outcome


def test_apd_2_cleanup_losses_amended_in_can_void_a_cg_win(users, modules):
    """APD 2.: "CVP are recorded normally throughout this phase", and the CG VC: the
    American wins with >= 150 VP "provided the Germans have not amassed >= 105 CVP".
    The Midday result gives 153 VP with 100 American CVP lost; the Clean-Up's melee
    costs 6 more, amended in with consent before 2.9: the CG goes on, and the log says
    the American can no longer win by its victory conditions."""
    from tests.test_computations import supply_midday_vp

    players, module = start("pleasant-diversion", "cg", users, "american")
    supply_midday_vp(players, 110)
    players.results(**result_values(module, vp_american=63, cvp_lost_american=41))
    players.until("results")
    players.results(**result_values(module, vp_american=90, cvp_lost_american=59))
    assert players.campaign.ended_at is None  # not read before the Clean-Up's losses
    players.until_step("2.1")
    steps.propose_result_amendment(
        campaign_id=players.campaign_id,
        user=players.users["american"],
        values=result_values(module, vp_american=90, cvp_lost_american=65),
        reason="the melee in the church",
    )
    steps.answer_result_amendment(
        campaign_id=players.campaign_id, user=players.users["german"], accept=True
    )
    assert players.campaign.ended_at is None
    players.until("results")  # through 2.9, which reads the amended result
    c = players.campaign
    assert c.ended_at is None, c.outcome
    said = [e.text for e in Event.objects.filter(campaign_id=players.campaign_id)]
    assert any("American can no longer win the CG" in t for t in said)


def test_3_6142_a_unit_carries_several_markers_and_the_isolated_drm_is_computed(
    users, modules, fixed_dice
):
    """A unit carries several markers at once (issue 45): a tank whose MA is
    malfunctioned and which is also Isolated rolls 3.6142 for its MA with "+1 if
    Isolated" by itself (the weapon reads its carrier's markers) and -1 vehicular;
    repaired, the MA is in good order and the tank still Isolated.  A captured
    malfunctioned weapon owes no repair dr ("each ... non-Captured, Retained Weapon");
    a marker outside the vocabulary is refused, and so is a vehicle's line marked for
    its weapon's condition."""
    from campaign.selectors import owed_rolls

    players, module = campaign_at("sicily", "i", "jul14pm", users)

    def unit(name, kind, status, markers):
        return units.add_unit(
            campaign_id=players.campaign_id,
            user=players.users["axis"],
            name=name,
            kind=kind,
            markers=[status, *markers],
        )

    tank, (ma,) = add_vehicle(
        players, "axis", "StuG IIIG", ("ma", ["malfunctioned"]), markers=["isolated"]
    )
    halftrack, (mg,) = add_vehicle(
        players, "axis", "SPW 251/1", ("mg", ["malfunctioned"]), status="isolated"
    )
    bren = unit("Bren LMG", "sw", "captured", ["malfunctioned"])
    with pytest.raises(ActionRefused, match="markers among those listed"):
        unit("PIAT", "sw", "ok", ["cowering"])
    with pytest.raises(ActionRefused, match="A vehicle's weapons are marked, not the vehicle"):
        unit("PzIIIN", "vehicle", "isolated", ["malfunctioned"])
    players.until("initiative")
    keep_retained_units(players)  # 3.6212*: the Axis Attack needs British units
    players.chits(axis="attack", british="idle")
    players.until("results")
    players.results(**result_values(module, san_axis=2, san_british=2))
    players.until_step("3.614")
    owed = owed_rolls(players.campaign, module, "axis")
    assert sorted(owed) == [
        ("vehicular_mg_repair", "SPW 251/1 MG"),
        ("weapon_repair", "StuG IIIG MA"),
    ]  # each vehicle's weapon; never the captured Bren
    with pytest.raises(ActionRefused):
        roll(players, "axis", "weapon_repair", bren)
    fixed_dice.extend([[1], [1]])
    r = roll(players, "axis", "weapon_repair", tank, weapon=ma, typed={"repair_number": -1})
    assert {(d["label"], d["value"], d["how"]) for d in r.drms} == {
        ("if Isolated", 1, "auto"),
        ("if vehicular-mounted", -1, "auto"),
        ("-x (Weapon Repair Number)", -1, "typed"),
    }
    assert r.final == 0 and r.result == "Repaired"
    tank.refresh_from_db()
    assert (tank.markers, tank.weapons[0]["markers"]) == (["isolated"], [])
    roll(players, "axis", "vehicular_mg_repair", halftrack, weapon=mg, typed={"repair_number": -1})
    halftrack.refresh_from_db()
    assert (halftrack.markers, halftrack.weapons[0]["markers"]) == (["isolated"], [])


def test_c2_0_a_side_concedes_the_tm_and_its_opponent_wins(users, modules, client):
    """PHD C2.0: "TM End ... if one side concedes the Tactical Mission": asked to
    confirm (without it nothing changes), the concession ends the TM for both with the
    opponent the winner; nothing more can be done."""
    from campaign.services import conceding

    players, module = start("purple-heart-draw", "tm", users, "us")
    with pytest.raises(ActionRefused, match="confirm it"):
        conceding.concede_campaign(
            campaign_id=players.campaign_id, user=players.users["german"], confirmed=False
        )
    assert players.campaign.ended_at is None
    client.force_login(players.users["german"])
    response = client.post(f"/campaigns/{players.campaign_id}/act/concede/", {"confirm": "concede"})
    assert response.status_code in (200, 302)
    c = players.campaign
    us = module.side("us").name
    assert c.ended_at is not None and c.outcome == f"German concedes the CG: {us} wins."
    with pytest.raises(ActionRefused, match="has ended"):
        conceding.concede_campaign(
            campaign_id=players.campaign_id, user=players.users["us"], confirmed=True
        )


def test_c5_26b_no_baz_repair_after_a_lull(users, modules, fixed_dice):
    """C5.26b: a dr "for each Baz/Psk/FT/DC ... removed from play in the previous TM
    Scenario": made after a scenario played, refused in the pass a Lull brings (no
    scenario, nothing removed: C2.0, C5.37d)."""
    players, module = start("purple-heart-draw", "tm", users, "us")
    players.results(**result_values(module))
    players.until_step("C5.26")
    fixed_dice.append([1])
    roll(players, "us", "baz_psk_ft_dc_repair", item="Bazooka at 12H3")
    players.until("initiative")
    players.chits(us="idle", german="idle")  # a Lull
    players.until_step("C5.26")
    with pytest.raises(ActionRefused, match="No scenario was played in this pass"):
        roll(players, "us", "baz_psk_ft_dc_repair", item="Bazooka at 14K2")


def test_c5_35_note_3_an_smc_or_afv_hip_takes_nothing_of_the_infantry_cap(users, modules):
    """C5.35 note 3: "AFV/Squad/HS/Crew/SMC cost respectively. No > 10% (FRD) of a side's
    non-reserve Infantry squad-equivalents may be set up using HIP": with 12 squads (cap
    1) a leader (SMC) and an AFV hidden take nothing of it; one squad does; a HS then
    exceeds it (half a squad-equivalent more)."""
    german, us = users
    c = host_game("purple-heart-draw", "tm", german, us, side="german", through_start=False)
    players = players_of(c, german, us)
    players.until_step("I-C5.35")
    add(players, "german", "4-6-7", "squad", number=12)
    hip = next(i for i in module_of(c).fortifications.items if i.id == "hip")
    tiers = {t.label: n for n, t in enumerate(hip.tiers)}

    def hide(tier):
        return purchases.buy_fortification(
            campaign_id=c.pk, user=german, item_id="hip", tier=tiers[tier]
        )

    hide("SMC")
    hide("AFV")
    hide("Squad")
    with pytest.raises(ActionRefused, match=r"no more than 1 HIP .* 1 taken so far"):
        hide("HS")


def test_3_6181_exc_an_ob_airborne_rg_may_enter_by_paradrop(users, modules, fixed_dice):
    """3.6181: a strength DR "for each such RG he receives in an Initial-Scenario OB
    [EXC: RG entering via Para drop]": the British OB's I2 Airborne Pltn, rolled as
    entering by paradrop, makes no strength DR and is Full; a non-OB or unknown way is
    refused."""
    from tests.purchase_helpers import with_sicily_ob

    c, players = with_sicily_ob(users, {"rgs.axis": "I5", "rgs.british": "I2"})
    players.until_step("I-3.618")
    line = Purchase.objects.get(campaign=c, side="british", initial=True)
    view = campaign_view(players.users["british"], c.pk)
    (shown,) = [r for r in view.record if r.group_id == "I2"]
    assert [v for v, _ in shown.entering] == ["paradrop"]
    with pytest.raises(ActionRefused, match="cannot enter that way"):
        purchases.roll_for_purchase(
            campaign_id=c.pk, user=players.users["british"], purchase_id=line.ref, entering="x"
        )
    fixed_dice.extend([[3, 3]])  # the leader DR only
    purchases.roll_for_purchase(
        campaign_id=c.pk, user=players.users["british"], purchase_id=line.ref, entering="paradrop"
    )
    line.refresh_from_db()
    assert line.strength == "full" and line.cost_variant == "paradrop"
    assert [r["table"] for r in line.details["rolls"]] == ["Leader Allotment"]


def test_c5_32_a_purchase_records_its_set_up_and_the_hip_cap_leaves_out_reserve(users, modules):
    """C5.31/C5.32: an RG is requisitioned On-Map, In Reserve or as Reinforcements, never
    at its bare printed cost; the set-up is on its record line.  C5.35 note 3: "No > 10%
    (FRD) of a side's non-reserve Infantry squad-equivalents may be set up using HIP":
    the 10 squads of an RG bought In Reserve for this TM Scenario are not counted (12
    squads retained, 2 of them not in Reserve: no HIP at all)."""
    german, us = users
    players, c = phd_with_chart(
        users,
        [
            {
                "id": "I1",
                "type": "Gren Pl",
                "units": "4-6-7",
                "unit_kind": "squad",
                "full": "10",
                "cost": "8",
            }
        ],
    )
    with pytest.raises(ActionRefused, match="cannot be bought at that price"):
        purchases.purchase_rg(campaign_id=c.pk, user=german, group_id="I1")
    bought = purchases.purchase_rg(
        campaign_id=c.pk, user=german, group_id="I1", cost_variant="reserve"
    )
    assert (bought.cost, bought.cost_variant) == (8, "reserve")
    (line,) = [x for x in campaign_view(german, c.pk).record if x.mine]
    assert line.bought_as == "In Reserve"
    players.until_step("I-C5.35")
    assert Unit.objects.get(campaign=c, side="german", purchase=bought).count == 10
    add(players, "german", "4-6-7", "squad", number=2)
    with pytest.raises(
        ActionRefused,
        match=r"no more than 0 HIP \(1/10 FRD of 2 retained squad-equivalents; C5.35 note 3\)",
    ):
        purchases.buy_fortification(campaign_id=c.pk, user=german, item_id="hip", tier=1)


def supply_leader_evacuation(players, result_3_5, effect_3_5):
    """PHD C5.19's Leader Evacuation Table, its lost rows 3-5 given ``result_3_5`` and
    ``effect_3_5``: supplied by the US, accepted by the German; the proposal."""
    rows = [
        ("≤1", "Retained Unwounded", "status: ok"),
        ("2", "Retained Unwounded & Replaced (A19.13)*", "replace lower: ok"),
        ("3-5", result_3_5, effect_3_5),
        ("≥6", "Evacuated (removed from play)", "eliminate"),
    ]
    return supply(players, "tables.leader_evacuation", row_table(rows), by="us")


def test_c5_19_row_2_the_wounded_leader_is_replaced_unwounded_a_6_1_retained(
    users, modules, fixed_dice
):
    """C5.19 Leader Evacuation Table row 2: "Retained Unwounded & Replaced (A19.13)*":
    a wounded 9-1 is Replaced by the next lower quality leader, an 8-1, unwounded;
    "* EXC: A wounded 6+1 is retained Unwounded" (there is none lower)."""
    players, module = start("purple-heart-draw", "tm", users, "us")
    proposal = supply_leader_evacuation(players, "(as the players supply it)", "status: ok")
    assert proposal.value[1]["effect"] == {"do": "replace_lower", "status": "ok"}
    players.results(**result_values(module))
    players.until_step("C5.19")
    nine = add(players, "german", "9-1 leader", "leader", status="wounded")
    six = add(players, "german", "6+1 leader", "leader", status="wounded")
    fixed_dice.extend([[2], [2]])
    roll(players, "german", "leader_evacuation", nine)
    roll(players, "german", "leader_evacuation", six)
    assert unit_names(players, "german") == [
        ("6+1 leader", "leader", "ok", 1),
        ("8-1 leader", "leader", "ok", 1),
    ]


def test_c5_24_the_promotion_battle_hardens_the_leader_or_the_next_lower(
    users, modules, fixed_dice
):
    """C5.24: the Leader Promotion Table's DR 4 selects a 9-1; "If that side does not
    currently retain the leader selected, then the player must Battle Harden the next
    lower quality non-wounded leader": the German has no 9-1 and a wounded 8-1, so his
    8-0 Battle Hardens (A15.3) into an 8-1; the US, with no leader of 9-1 or lower, has
    none Battle Harden."""
    players, module = start("purple-heart-draw", "tm", users, "us")
    players.results(**result_values(module))
    players.until_step("C5.24")
    add(players, "german", "9-2 leader", "leader")
    add(players, "german", "8-1 leader", "leader", status="wounded")
    add(players, "german", "8-0 leader", "leader")
    fixed_dice.extend([[2, 2], [2, 2]])
    r = roll(players, "german", "leader_promotion")
    assert r.result == "9-1"
    assert unit_names(players, "german", kind="leader") == [
        ("8-1 leader", "leader", "ok", 1),
        ("8-1 leader", "leader", "wounded", 1),
        ("9-2 leader", "leader", "ok", 1),
    ]
    add(players, "us", "9-2 leader", "leader")
    roll(players, "us", "leader_promotion")
    assert unit_names(players, "us", kind="leader") == [("9-2 leader", "leader", "ok", 1)]
    log = Event.objects.filter(campaign_id=players.campaign_id, kind="roll").order_by("id")
    assert "8-0 leader Battle Hardens: now 8-1 leader" in log.filter(side="german").last().text
    assert "none Battle Hardens" in log.filter(side="us").last().text


def page(players, side) -> str:
    from django.test import Client

    client = Client()
    client.force_login(players.users[side])
    return client.get(f"/campaigns/{players.campaign_id}/").content.decode()


def an_mmc(players, side) -> str:
    """The first of ``side``'s squad or HS lines, designated to create a leader from (PHD
    C5.24a: "from any designated (non-crew) MMC"); "" where it holds none."""
    return next(
        (
            u.ref
            for u in Unit.objects.filter(
                campaign_id=players.campaign_id, side=side, kind__in=["squad", "half_squad"]
            ).order_by("pk")
            if "crew" not in u.name.lower()
        ),
        "",
    )


def test_c5_24a_a_7_0_out_of_the_ranks_instead_of_the_promotion_dr(users, modules, fixed_dice):
    """C5.24: a secret DR "OR promote a leader out of the Ranks (C5.24a)"; C5.24a:
    "Provided that a side does not have > one leader per four squad-equivalents of its
    currently retained units, it may automatically create one 7-0 leader": the German
    (1 leader, 3 squads and 2 HS: 4 squad-equivalents) creates one and may then not
    roll; the US (2 leaders, 4 squads) may not; after its roll, no 7-0 either."""
    players, module = start("purple-heart-draw", "tm", users, "us")
    players.results(**result_values(module))
    players.until_step("C5.24")

    def promote(side):
        return steps.take_instead_of_roll(
            campaign_id=players.campaign_id,
            user=players.users[side],
            table_id="leader_promotion",
            mmc_id=an_mmc(players, side),  # C5.24a "from any designated (non-crew) MMC"
        )

    add(players, "german", "8-0 leader", "leader")
    add(players, "german", "4-6-7", "squad", number=3)
    add(players, "german", "2-4-7", "half_squad", number=2)
    offer = "Instead of rolling: Promote a 7-0 leader out of the Ranks (C5.24a)"
    assert f'<button type="submit">{offer}</button>' in page(players, "german")
    assert promote("german").name == "7-0 leader"
    after = page(players, "german")
    assert f"{offer} — You have done so in this pass" in after
    assert "You have not rolled on the Leader Promotion Table" not in after
    with pytest.raises(ActionRefused, match=r"You have chosen instead: .*C5.24a"):
        roll(players, "german", "leader_promotion")
    with pytest.raises(ActionRefused, match=r"You have done so in this pass \(C5.24a\)"):
        promote("german")
    add(players, "us", "8-0 leader", "leader", number=2)
    add(players, "us", "6-6-6", "squad", number=4)
    with pytest.raises(ActionRefused, match=r"Not with 2 leaders for 4 squad-equivalents"):
        promote("us")
    add(players, "us", "6-6-6", "squad", number=4)
    fixed_dice.extend([[6, 6]])
    roll(players, "us", "leader_promotion")
    with pytest.raises(ActionRefused, match=r"You have made your Leader Promotion Table roll"):
        promote("us")


def test_c5_31_footnote_c_a_hs_with_each_mmg_and_a_crew_with_each_gun(users, modules):
    """C5.31 RG footnote c: "Each German MMG/HMG comes with a 2-3-8 HS and each Gun comes
    with a 2-2-8 Crew": the RGs the players mark c on the chart they supply join the
    retained forces with them, one per unit; an RG not marked c brings none."""
    german, us = users
    c = host_game("purple-heart-draw", "tm", german, us, side="german", through_start=False)
    players = players_of(c, german, us)
    rows = [
        ("W1", "MG Section", "MMG", "sw", "2", "c"),
        ("G1", "Pak Section", "7.5cm PaK 40", "gun", "2", "c"),
        ("W2", "LMG Section", "LMG", "sw", "3", ""),
    ]
    keys = ("id", "type", "units", "unit_kind", "full", "footnotes")
    supply_chart(
        players, "german", [{**dict(zip(keys, row, strict=True)), "cost": "3"} for row in rows]
    )
    players.until_step("I-C5.31")
    for gid in ("W1", "G1", "W2"):
        purchases.purchase_rg(
            campaign_id=c.pk, user=german, group_id=gid, cost_variant="reinforcement"
        )
    players.until_step("I-C5.35")
    assert unit_names(players, "german", kind="half_squad") == [
        ("2-2-8 Crew (G1)", "half_squad", "ok", 2),
        ("2-3-8 HS (W1)", "half_squad", "ok", 2),
    ]


def test_c5_34_an_oba_module_bought_for_the_initial_scenario_rolls_its_ammunition(
    users, modules, fixed_dice
):
    """C5.34 "To determine the Ammunition of each OBA Module requisitioned, make a DR for
    each" (C3.0: in all TM Scenarios): a module the German requisitions at I-C5.31 has
    its DR on the Offboard Artillery Table at I-C5.34, before the Initial TM Scenario."""
    german, us = users
    players, c = phd_with_chart(
        users,
        [
            {
                "id": "O1",
                "type": "105mm OBA Module (HE & smoke)",
                "units": "OBA",
                "cost": "6",
                "tags": "oba",
            }
        ],
    )
    purchases.purchase_rg(campaign_id=c.pk, user=german, group_id="O1")
    players.until_step("I-C5.34")
    fixed_dice.append([3, 4])
    r = roll(players, "german", "oba", item="O1 105mm OBA")
    assert (r.final, r.result) == (7, "German: Normal") and r.step_id == "I-C5.34"
    with pytest.raises(ActionRefused):
        roll(players, "german", "oba", item="O1 105mm OBA")


def test_c5_26c_a_malfunctioned_captured_weapon_owes_no_roll_and_is_removed_at_done(
    users, modules, fixed_dice
):
    """C5.26c: a Captured Equipment dr "for each functioning, captured, and possessed
    weapon. Each already-malfunctioned captured weapon is removed from play (disabled if
    vehicular)": a captured MMG marked malfunctioned owes no dr and leaves the retained
    forces when C5.26 is done; a captured Sherman whose weapon is malfunctioned stays,
    captured, its weapon disabled; a functioning captured Panzerschreck makes its dr."""
    players, module = start("purple-heart-draw", "tm", users, "us")
    players.results(**result_values(module))
    mmg = add(players, "us", "MG 42", "sw", "captured", markers=["malfunctioned"])
    tank, (_, cmg) = add_vehicle(
        players,
        "us",
        "PzKpfw IVH",
        ("ma", ["malfunctioned"]),
        ("mg", [], "CMG"),
        status="captured",
    )
    psk = add(players, "us", "Panzerschreck", "sw", "captured")
    players.until_step("C5.26")
    with pytest.raises(ActionRefused, match=r"Roll first: .*Captured Equipment"):
        steps.finish_step(campaign_id=players.campaign_id, user=players.users["us"])
    fixed_dice.extend([[2], [5]])
    roll(players, "us", "captured_equipment", psk)
    with pytest.raises(ActionRefused, match=r"Roll first: .*Captured Equipment"):
        steps.finish_step(campaign_id=players.campaign_id, user=players.users["us"])
    roll(players, "us", "captured_equipment", tank, weapon=cmg)  # Eliminated: disabled
    steps.finish_step(campaign_id=players.campaign_id, user=players.users["us"])
    assert Unit.objects.filter(pk=mmg.pk).exists()  # until the step is completed
    players.finish()
    assert players.step.id == "C5.27"
    assert not Unit.objects.filter(pk=mmg.pk).exists()
    tank.refresh_from_db()
    assert tank.markers == ["captured"]
    # Its malfunctioned MA is disabled at Done; its working CMG made its own dr and,
    # Eliminated, is disabled: the captured vehicle stays.
    assert [(w["name"], w["markers"]) for w in tank.weapons] == [
        ("MA", ["disabled"]),
        ("CMG", ["disabled"]),
    ]
    assert Unit.objects.get(pk=psk.pk).markers == ["captured"]
    assert Event.objects.filter(
        campaign_id=players.campaign_id, text__contains="MG 42 leaves the retained forces (C5.26c)"
    ).exists()


def test_c5_1_recalled_units_are_eliminated(users, modules):
    """C5.1: "Recalled units are eliminated but do not count for CVP purposes": a unit
    marked recalled leaves the retained forces once the result is confirmed; the CVP
    are the players' entry."""
    players, module = start("purple-heart-draw", "tm", users, "us")
    recalled = add(players, "german", "StuG IIIG", "vehicle", status="recalled")
    kept = add(players, "german", "4-6-7", "squad")
    players.results(**result_values(module))
    assert players.step.id != "C5.1"
    assert not Unit.objects.filter(pk=recalled.pk).exists()
    assert Unit.objects.filter(pk=kept.pk).exists()


def test_i3_the_us_may_not_requisition_defensive_stores_for_the_initial_scenario(users, modules):
    """I3: "The US may not requisition Defensive stores during the Initial Scenario": an
    RG of the US chart that gives DSP is refused at I-C5.31 (0600 hrs), so the US passes
    I-C5.35; the German buys his; from the 0930 hrs TM Scenario on the US may."""
    dsp = {"id": "D1", "type": "Defensive Stores", "units": "DSP", "cost": "2", "grants": "5"}
    players, c = phd_with_chart(users, [dsp], side="us")
    supply_chart(players, "german", [dsp])
    with pytest.raises(ActionRefused, match=r"not before 0930 hrs \(I3\)"):
        buy(players, "us", "D1")
    buy(players, "german", "D1")
    assert seat(players, "german").fortification_points == 60 + 5
    module = module_of(players.campaign)  # with the charts supplied
    step = next(st for st in module.steps if st.id == "I-C5.35")
    assert availability.no_fortification_possible(module, "tm", "us", step, 0)
    assert not availability.no_fortification_possible(module, "tm", "german", step, 0)
    players.until_step("C5.1")
    players.results(**result_values(module))
    players.until_step("C5.31")
    assert not availability.no_fortification_possible(module, "tm", "us", step, 1)
    buy(players, "us", "D1")
    assert seat(players, "us").fortification_points == 5


def test_tm13_an_oba_module_requisitioned_brings_a_radio_or_fieldphone(users, modules):
    """TM13: "The player may add a Radio or fieldphone to his On-Map OB when an OBA module
    is requisitioned as a RG": the RG the players give the group kind oba on the chart
    they supply joins the retained forces with one; an RG of squads brings none.  The
    chart's form names the group kind."""
    from campaign.seat_views.supplements import supply_form

    german, _ = users
    players, c = phd_with_chart(
        users,
        [
            {"id": "O1", "type": "105mm OBA Module", "units": "OBA", "cost": "6", "tags": "oba"},
            {"id": "I1", "type": "Gren Pl", "units": "4-6-7", "unit_kind": "squad", "cost": "4"},
        ],
    )
    purchases.purchase_rg(campaign_id=c.pk, user=german, group_id="O1")
    purchases.purchase_rg(campaign_id=c.pk, user=german, group_id="I1", cost_variant="onmap")
    players.until_step("I-C5.35")
    assert unit_names(players, "german", kind="sw") == [("Radio or Fieldphone (O1)", "sw", "ok", 1)]
    form = supply_form(players.campaign, module_of(c), "rg_charts.us")
    assert "The group kinds this chart's rules read: 60mm, oba." in form.help
