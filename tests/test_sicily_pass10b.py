"""Sicily (seed 001), the tenth pass of the sentence audit, part B (issue 44): 3.615
to 3.623 and the RG charts, tried through the services as two players meet them
(docs/rules-audit/pass-10-sicily-b.md)."""

from __future__ import annotations

import pytest

from campaign.models import Seat
from campaign.services.errors import ActionRefused
from tests import test_rule_mechanisms as mechanisms
from tests.purchase_helpers import campaign_at, roster_of
from tests.test_rule_mechanisms import buy

users = mechanisms.users
fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


def _points(players):
    return sorted(
        Seat.objects.filter(campaign_id=players.campaign_id).values_list("side", "points")
    )


def test_3_616_exc_a_forgo_refused_names_the_exc_side_date_and_cg(users, modules):
    """3.616 EXC: "On the July 14 PM date of CG III the British player may fore go all
    or a portion of the allotted CPP."  The Axis in CG III, the British in CG I (July 14
    PM) and the British in CG II on July 15 AM are refused in the EXC's words (the
    side, the date and the CG, with "3.616 EXC"), not only with where the campaign
    is; nothing changes."""
    from campaign.services import steps

    for variant, date, side, step in (
        ("iii", "jul14pm", "axis", "3.616"),
        ("i", "jul14pm", "british", None),
        ("ii", "jul15am", "british", None),
    ):
        players, _ = campaign_at("sicily", variant, date, users, step=step)
        before = _points(players)
        with pytest.raises(ActionRefused) as refused:
            steps.forgo_points(campaign_id=players.campaign_id, user=players.users[side], amount=1)
        words = str(refused.value)
        assert "3.616 EXC" in words, words
        assert "only the British may forgo CPP, on the July 14 PM date of CG III" in words, words
        assert refused.value.status == 409
        assert _points(players) == before


def test_3_6175_printed_value_enters_during_the_scenario_on_the_record_line(users, modules):
    """3.6175: "If an Axis or British RG is purchased for its printed value it enters
    play during the course of the scenario (SSR CG4 and CG5)."  The record line of an
    Axis I7 and a British V1 bought at the printed cost says so, with the rule; the I7
    bought In Reserve or On-map says its own price instead; an RG without units (M1
    Sniper) and a footnote g RG (I9: on-map at no extra cost) say nothing of it."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=200)
    buy(players, "axis", "I7")
    buy(players, "axis", "I9")
    buy(players, "axis", "M1")
    buy(players, "british", "V1")
    buy(players, "british", "I3", "on_map")
    axis = {ln.group_id: ln.bought_as for ln in roster_of(players.campaign, "axis").record}
    british = {ln.group_id: ln.bought_as for ln in roster_of(players.campaign, "british").record}
    said = (
        "printed cost: it enters play during the course of the scenario, per SSR CG4 and "
        "CG5 (3.6175)"
    )
    assert axis["I7"] == said, axis
    assert british["V1"] == said, british
    assert axis["I9"] == "" and axis["M1"] == "", axis
    assert "20% more" in british["I3"], british


def test_3_6175_what_a_reserve_or_on_map_price_obliges_on_the_record_line(users, modules):
    """3.6175: "If an Axis "I" or "G" type RG is purchased for 20% less (FRD) ... the RG
    must be set up on-map in Reserve"; "each RG purchased for Standard On-Map Set Up may
    be set up on-map in a friendly, non-Isolated Setup Area in a scenario played on the
    same CG Date"; "An Axis RG purchased for Standard On-Map Setup is not set up in
    Reserve".  The owner's record line says what the price paid obliges, with the rule,
    on the campaign page and on the Roster."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=200)
    reserve = buy(players, "axis", "I7", "reserve")
    buy(players, "axis", "I10", "on_map")
    lines = {ln.group_id: ln for ln in roster_of(players.campaign, "axis").record}
    assert lines["I7"].implies == "The RG must be set up on-map in Reserve (SSR CG6; 3.4; 3.6175)"
    assert "non-Isolated Setup Area in a scenario on the purchase date" in lines["I10"].implies
    assert "It is not set up in Reserve" in lines["I10"].implies
    assert "British Setup Area" not in lines["I10"].implies
    from django.test import Client

    client = Client()
    client.force_login(players.users["axis"])
    for url in (f"/campaigns/{players.campaign_id}/", f"/campaigns/{players.campaign_id}/roster/"):
        page = client.get(url).content.decode()
        assert "must be set up on-map in Reserve (SSR CG6; 3.4; 3.6175)" in page, url
    other = Client()
    other.force_login(players.users["british"])
    assert (
        "in Reserve (SSR CG6"
        not in other.get(f"/campaigns/{players.campaign_id}/").content.decode()
    )
    assert reserve.cost == 9


def test_3_617_footnote_c_depleted_mg_platoons_figure_missing_then_supplied(
    users, modules, fixed_dice
):
    """3.617 Axis chart I2 and I8, British I5: the Full/Depl cell prints "2;2/c", a
    footnote ("Each of these unit types are subject to depletion (See 3.6181)") where
    the Depleted figure would be.  A Depleted I2 (DR 11) receives no units, and its line
    says the rules text lacks the figure (never the Full 2 MMG and 2 HMG silently); the
    players may supply it under Rules data: the I8's 2, proposed by the Axis and
    accepted by the British, makes a Depleted I8 1 MMG, 1 HMG and their 2 HS (footnote
    d)."""
    from campaign.models import Unit
    from campaign.services import supplements
    from rules import supply
    from tests.purchase_helpers import make_rolls
    from tests.test_sicily_pass7b import _units

    players, module = campaign_at("sicily", "i", "jul14n", users)
    paths = {i.path for i in supply.suppliable(module, "i", set())}
    assert {
        "rg_charts.axis.groups.I2.depleted",
        "rg_charts.axis.groups.I8.depleted",
        "rg_charts.british.groups.I5.depleted",
    } <= paths
    i2, i8 = buy(players, "axis", "I2"), buy(players, "axis", "I8")
    i5 = buy(players, "british", "I5")
    fixed_dice.append([5, 6])
    make_rolls(players, "axis", i2)
    i2.refresh_from_db()
    assert (i2.strength, i2.units) == ("depleted", None)
    said = [r["result"] for r in i2.details["rolls"] if r["table"] == "Depleted"]
    assert said and "no Depleted number of units for I2" in said[0], i2.details
    assert "3.617 Axis chart footnote c" in said[0] and "Rules data" in said[0]
    assert not Unit.objects.filter(purchase=i2).exists()
    # The British I5 MG Pltn ("2;2/c", British chart footnote c) the same way.
    fixed_dice.append([6, 5])
    make_rolls(players, "british", i5)
    assert (i5.strength, i5.units) == ("depleted", None)
    assert any(
        "no Depleted number of units for I5" in r["result"]
        and "British chart footnote c" in r["result"]
        for r in i5.details["rolls"]
    ), i5.details
    assert not Unit.objects.filter(purchase=i5).exists()
    mine = next(ln for ln in roster_of(players.campaign, "axis").record if ln.group_id == "I2")
    assert any("no Depleted number of units" in r for r in mine.rolls), mine.rolls

    proposal = supplements.propose_supplement(
        campaign_id=players.campaign_id,
        user=players.users["axis"],
        path="rg_charts.axis.groups.I8.depleted",
        form={"value": "2"},
    )
    supplements.accept_supplement(
        campaign_id=players.campaign_id, user=players.users["british"], ref=proposal.ref
    )
    fixed_dice.append([6, 6])
    make_rolls(players, "axis", i8)
    i8.refresh_from_db()
    assert (i8.strength, i8.units) == ("depleted", 2)
    assert _units(i8) == [
        ("1-3-6 HS (I8)", "half_squad", 2),
        ("HMG (I8 Italian MG Coy)", "sw", 1),
        ("MMG (I8 Italian MG Coy)", "sw", 1),
    ]


def _quiet_result(players):
    """A CG-scenario result with nothing in it (no losses, every answer no)."""
    from campaign.selectors import module_of

    module = module_of(players.campaign)
    return {
        f"{f.id}.{s.id}": (False if f.kind == "bool" else 0)
        for f in module.result_fields
        for s in module.sides
    }


def _finish(players, side):
    from campaign.services import steps

    steps.finish_step(campaign_id=players.campaign_id, user=players.users[side])


def _observer_line(players, side="british"):
    return next(ln for ln in roster_of(players.campaign, side).record if ln.group_id == "O4")


def test_british_footnote_j_the_observer_hex_is_recorded_before_each_set_up(users, modules):
    """3.617 British chart footnote j: "Off board observer is at level 2 in any friendly
    entry area board edge hex. Secretly record the hex prior to German setup."  The O4
    bought with an O2 on July 15 AM records no hex yet: its line says so; the British
    may not lock their chit at 3.621 until it is recorded for this date (the footnote
    cited: the Axis may set up first at 3.622), the Axis may; recorded on the line, it
    is the British's secret.  On the next
    date with a scenario the observer, retained, must record it again."""
    from campaign.services import purchases

    players, _ = campaign_at("sicily", "i", "jul15am", users)
    buy(players, "british", "O2")
    o4 = buy(players, "british", "O4")  # the hex may wait until the set-up
    assert _observer_line(players).recorded_hex == (
        "Offboard Observer hex not yet recorded for July 15 AM (3.617 British chart footnote j)"
    )
    assert _observer_line(players).asks_hex == "Offboard Observer hex"
    players.until("initiative")
    players.chits(axis="idle")
    # Due before the chit: the Axis may set up first at 3.622 (3.6213d, 3.6222).
    with pytest.raises(ActionRefused) as refused:
        players.chits(british="attack")
    words = str(refused.value)
    assert "Record the Offboard Observer hex of O4" in words and "footnote j" in words, words
    assert "July 15 AM" in words

    def record(where):
        purchases.record_entry_area(
            campaign_id=players.campaign_id,
            user=players.users["british"],
            purchase_id=o4.ref,
            entry_area="",
            recorded_hex=where,
        )

    record("33b10")
    assert _observer_line(players).recorded_hex == "Offboard Observer hex 33B10 for July 15 AM"
    axis = roster_of(players.campaign, "axis").record
    assert all("33B10" not in ln.recorded_hex for ln in axis)
    players.chits(british="attack")
    assert players.step.id == "3.622"
    _finish(players, "axis")  # a British Assault: the Axis set up first (3.6222)
    _finish(players, "british")
    # The next date with a scenario: the retained observer's hex is asked again.
    players.until("results")
    players.results(**_quiet_result(players))
    players.until("initiative")
    assert players.campaign.date_index == 4  # July 15 PM
    assert "not yet recorded for July 15 PM" in _observer_line(players).recorded_hex
    with pytest.raises(ActionRefused, match="footnote j"):
        players.chits(british="attack")
    record("34A1")
    players.chits(axis="idle", british="attack")
    assert players.step.id == "3.622"


def test_3_618_guns_and_vehicles_what_comes_with_each_and_the_v_leader_drms(
    users, modules, fixed_dice
):
    """Tried in play on July 15 AM (CG I), each RG's secret rolls made at 3.618:
    3.6181 "-1 'G' and 'V' type" on every G and V strength DR (Axis G4, G5, V1;
    British G1, V1), "≤ 9 Full Strength", "≥ 10 Depleted"; Axis chart footnote e ("Each
    Gun is accompanied by a 2-2-8 crew"), h ("Each gun obtained with the purchase ... is
    accompanied by an Sdkfz 7": a Depleted G4 obtains one gun, so one SdKfz 7), j (an
    SdKfz 2 per 40LL); British footnote d (a crew per Gun) and g (a Lloyd Carrier per
    gun obtained: a Depleted G1 of 3/2 has two); 3.6183 "-1 German 'V' RG" (Axis V1
    Armor Leader DR 7 - 1 = 6: an 8-1 armor leader, row 6-7) and "+2 British 'V' RG"
    (British V1 DR 6 + 2 = 8: the Armor Leader column prints "-", no leader); 3.6181
    "one Secret DR" per RG: a second roll for the same RG is refused."""
    from campaign.services import purchases
    from tests.purchase_helpers import make_rolls
    from tests.test_sicily_pass7b import _rolls, _units

    players, _ = campaign_at("sicily", "i", "jul15am", users, points=200)
    g4, g5, v1 = (buy(players, "axis", g) for g in ("G4", "G5", "V1"))
    bg1, bv1 = (buy(players, "british", g) for g in ("G1", "V1"))
    fixed_dice.append([5, 6])  # G4: 11 - 1 = 10, Depleted
    make_rolls(players, "axis", g4)
    fixed_dice.append([2, 2])  # G5: 4 - 1 = 3, Full
    make_rolls(players, "axis", g5)
    fixed_dice.extend([[5, 5], [3, 4]])  # V1: 10 - 1 = 9 Full; leader 7 - 1 = 6
    make_rolls(players, "axis", v1)
    fixed_dice.append([5, 6])  # British G1: 11 - 1 = 10, Depleted
    make_rolls(players, "british", bg1)
    fixed_dice.extend([[2, 2], [3, 3]])  # British V1: 4 - 1 = 3 Full; leader 6 + 2 = 8
    make_rolls(players, "british", bv1)
    gv = ('"G" and "V" type RG [EXC: British Airlanding]', -1)
    assert _rolls(g4) == [("rg_strength", 10, [gv])], _rolls(g4)
    assert _rolls(bg1) == [("rg_strength", 10, [gv])], _rolls(bg1)
    assert (g4.strength, g5.strength, v1.strength) == ("depleted", "full", "full")
    assert _units(g4) == [
        ("2-2-8 crew (G4)", "half_squad", 1),
        ("88L FlaK 18 AA (G4 AA Section)", "gun", 1),
        ("SdKfz 7 (G4)", "vehicle", 1),
    ]
    assert _units(g5) == [
        ("2-2-8 crew (G5)", "half_squad", 2),
        ("40LL lePaK 41 AT (G5 AT Section)", "gun", 2),
        ("SdKfz 2 (G5)", "vehicle", 2),
    ]
    assert _rolls(v1)[1] == ("leader_allotment", 6, [('German "V" RG', -1)]), _rolls(v1)
    assert _units(v1) == [
        ("8-1 armor leader (V1)", "leader", 1),
        ("StuG IIIG (V1 StuG Pltn)", "vehicle", 2),
    ]
    assert bg1.strength == "depleted"
    assert _units(bg1) == [
        ("2-2-8 crew (G1)", "half_squad", 2),
        ("57L OQF 6-Pounder AT (G1 Lgt Inf AT Pltn)", "gun", 2),
        ("Lloyd Carrier (G1)", "vehicle", 2),
    ]
    # (_rolls reads both sides' V1 rolls: the Axis V1's two, then the British V1's two.)
    assert _rolls(bv1)[3] == ("leader_allotment", 8, [('British "V" RG', 2)]), _rolls(bv1)
    assert _units(bv1) == [("Sherman III(a) (V1 Med Tank Troop)", "vehicle", 3)]
    with pytest.raises(ActionRefused):
        purchases.roll_for_purchase(
            campaign_id=players.campaign_id, user=players.users["axis"], purchase_id=v1.ref
        )
    assert len(_rolls(v1)) == 4


def test_3_617_axis_n_british_m_and_3_6182_full_sw_in_play(users, modules, fixed_dice):
    """Tried in play on July 15 AM (CG I): Axis chart footnote n ("May not be purchased
    until all 11 RG have been purchased", read as all I1): the Axis I3 is refused with
    the footnote, nothing spent; British footnote m ("If depleted make a Secret dr for
    each Carrier as if a SW per 3.6182"): a Depleted V3 Carrier Pltn owes a dr per
    Carrier whose table the rules text lacks, and its line says so (not silently none);
    3.6182 "Each Full-Strength 'I' RG receives all SW": the British I3 Lgt Inf Aslt Pltn
    Full receives 2 LMG and 1 DC, possessed by its squads."""
    from campaign.models import Unit
    from tests.purchase_helpers import make_rolls
    from tests.test_sicily_pass7b import _units

    players, _ = campaign_at("sicily", "i", "jul15am", users, points=200)
    before = _points(players)
    with pytest.raises(ActionRefused) as refused:
        buy(players, "axis", "I3")
    assert "Axis chart footnote n" in str(refused.value), refused.value
    assert _points(players) == before
    v3, i3 = buy(players, "british", "V3"), buy(players, "british", "I3")
    fixed_dice.append([5, 6])  # V3: 11 - 1 = 10, Depleted
    make_rolls(players, "british", v3)
    assert v3.strength == "depleted"
    said = [r["result"] for r in v3.details["rolls"]]
    assert any("not rolled: the printed rules leave out this table" in r for r in said), said
    fixed_dice.extend([[2, 3], [3, 3]])  # I3: 5 Full; Leader DR 6
    make_rolls(players, "british", i3)
    assert i3.strength == "full"
    units = _units(i3)
    assert ("DC (I3)", "sw", 1) in units and ("LMG (I3)", "sw", 2) in units, units
    assert ("4-5-8 (I3 Lgt Inf Assault Pltn)", "squad", 3) in units, units
    sw = Unit.objects.filter(purchase=i3, kind="sw")
    assert all(u.possessor_id is not None for u in sw)
