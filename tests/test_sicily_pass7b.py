"""Sicily (seed 001), the seventh pass of the sentence audit, part B (issue 44): 3.615
to 3.623 and the RG charts with their footnotes, tried through the services as two
players meet them (docs/rules-audit/pass-7-sicily-b.md)."""

from __future__ import annotations

import pytest

from campaign.models import Purchase, Seat, Unit
from campaign.selectors import module_of
from campaign.services import initiative, purchases
from campaign.services.errors import ActionRefused
from rules import availability, machine
from tests import test_rule_mechanisms as mechanisms
from tests.purchase_helpers import campaign_at, keep_retained_units, make_rolls
from tests.test_rule_mechanisms import buy
from tests.walk import host_game, players_of

users = mechanisms.users
fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


def points(players, side):
    return Seat.objects.get(campaign_id=players.campaign_id, side=side).points


def offers(players, side):
    """The side's chart as its purchase panel reads it: each RG's prices and refusals."""
    from campaign.selectors import holdings
    from campaign.services.turns import take_turn

    turn = take_turn(players.campaign_id, players.users[side], None)
    snap = turn.snapshot(holdings(turn.campaign, side, purchases=True))
    return {
        g.id: ({o.variant: o.cost for o in options}, reasons)
        for g, options, reasons in availability.chart_offers(turn.module, snap)
    }


def test_3_6161_each_dates_cpp_base_received_and_footnote_2_idle_repeats(users, modules):
    """3.616/3.6161: the CPP replenished on each CG Date are its CPP Base (no loss
    points: every CVP 0); 3.617 EXC: what is left after the July 14 PM purchase step is
    lost; 3.6212 footnote 2: an Idle date repeats 3.612-3.6212, so a whole CG I of Idle
    dates walks every date of the table, and ends after July 17 PM."""
    alice, bob = users
    c = host_game("sicily", "i", alice, bob, name="pass7b")
    module = module_of(c)
    players = players_of(c, alice, bob)
    players.results(**mechanisms.result_values(module))
    seen = []
    for _ in range(11):
        players.until("purchase")
        date = module.dates[players.campaign.date_index]
        seen.append((date.label, points(players, "axis"), points(players, "british")))
        players.until("initiative")
        players.chits(axis="idle", british="idle")
        if players.campaign.ended_at:
            break
    assert seen == [
        ("July 14 PM", 29, 12),
        ("July 14 Night", 42, 4),  # the 14 PM CPP left are lost (3.617 EXC)
        ("July 15 AM", 42 + 30, 4 + 80),
        ("July 15 PM", 72 + 30, 84 + 65),
        ("July 15 Night", 102 + 44, 149 + 65),
        ("July 16 AM", 146 + 25, 214 + 62),
        ("July 16 PM", 171 + 25, 276 + 60),
        ("July 16 Night", 196 + 31, 336 + 18),
        ("July 17 AM", 227 + 12, 354 + 16),
        ("July 17 PM", 239 + 12, 370 + 16),
    ]
    assert players.campaign.ended_at is not None


# The chart's date windows, read on each date from the chart the player sees.
WINDOWS = {
    # (side, group): the dates it is on sale (CG I)
    ("axis", "G4"): "all",  # no footnote k (printed "cehg")
    ("axis", "G1"): "from jul14n",  # footnote k
    ("axis", "O3"): "all",  # no footnote k
    ("axis", "I5"): "until jul14pm",  # footnote l
    ("axis", "I6"): "from jul17am",  # footnote o
    ("british", "F1"): "until jul14pm",  # footnote k
    ("british", "I2"): "until jul14pm",  # footnote k
    ("british", "V1"): "from jul14n",  # footnote p
    ("british", "M1"): "all",
}


def _on_sale(window, date_ids, date_id):
    if window == "all":
        return True
    how, edge = window.split()
    at, limit = date_ids.index(date_id), date_ids.index(edge)
    return at >= limit if how == "from" else at <= limit


def test_3_617_chart_footnotes_k_l_o_p_date_windows_on_every_date(users, modules):
    """Axis footnotes k ("Only eligible for purchase after July 14 PM"), l ("before July
    14N"), o ("after July 16 N"), British k ("on or before July 14PM") and p ("on or
    after July 14 N"): on each purchase step of a CG I of Idle dates, the chart the
    player reads offers the RG or gives the footnote's refusal."""
    alice, bob = users
    c = host_game("sicily", "i", alice, bob, name="pass7b")
    module = module_of(c)
    date_ids = [d.id for d in module.dates]
    players = players_of(c, alice, bob)
    players.results(**mechanisms.result_values(module))
    for _ in range(10):
        players.until("purchase")
        date_id = date_ids[players.campaign.date_index]
        seen = {side: offers(players, side) for side in ("axis", "british")}
        for (side, group), window in WINDOWS.items():
            _, reasons = seen[side][group]
            date_reasons = [r for r in reasons if r.startswith(("not before", "not after"))]
            assert bool(date_reasons) != _on_sale(window, date_ids, date_id), (
                date_id,
                side,
                group,
                reasons,
            )
        players.until("initiative")
        players.chits(axis="idle", british="idle")
        if players.campaign.ended_at:
            break


def test_3_6175_prices_round_as_printed(users, modules):
    """3.6175: "If an Axis "I" or "G" type RG is purchased for 20% less (FRD)" (I1 21 ->
    16, G3 7 -> 5), "The Axis or British player may purchase "I" type RGs for Standard
    On-Map Setup by spending 20% more (FRU)" (Axis I1 21 -> 26, British I1 18 -> 22, I3
    7 -> 9); British footnote e, a Creeping Barrage "increases the cost of a module by
    50%" (O1 7 -> 11, O3 10 -> 15); footnote r, Recon for 2 CPP."""
    players, _ = campaign_at("sicily", "i", "jul15am", users)
    axis, british = offers(players, "axis"), offers(players, "british")
    assert axis["I1"][0] == {"": 21, "reserve": 16, "on_map": 26}
    assert axis["G3"][0] == {"": 7, "reserve": 5}
    assert axis["V1"][0] == {"": 12}
    assert axis["M2"][0] == {"": 1, "recon_plus5": 2}
    assert british["I1"][0] == {"": 18, "on_map": 22}
    assert british["I3"][0] == {"": 7, "on_map": 9}
    assert british["O1"][0] == {"": 7, "creeping": 11}
    assert british["O3"][0] == {"": 10, "creeping": 15}
    assert british["O4"][0] == {"": 1}
    assert british["M2"][0] == {"": 1, "recon_plus5": 2}
    line = buy(players, "axis", "I1", "reserve")
    assert (line.cost, points(players, "axis")) == (16, 200 - 16)


def test_3_6212_footnote_star_axis_attack_refused_while_the_british_declare_no_units(
    users, modules
):
    """3.6212 matrix footnote *: "The Attack Chit cannot be selected by the Axis player
    if the British player currently has no on-map Retained units."  The British say so
    openly at 3.621: the Axis Attack chit is refused with the footnote; Idle is not, and
    the British chits are not bound by it."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, kind="initiative")
    initiative.declare_on_map_units(
        campaign_id=players.campaign_id, user=players.users["british"], has_units=False
    )
    with pytest.raises(
        ActionRefused, match=r"no on-map Retained units\. \(3\.6212 matrix footnote \*\)"
    ):
        initiative.lock_initiative(
            campaign_id=players.campaign_id, user=players.users["axis"], chit="attack"
        )
    initiative.declare_on_map_units(
        campaign_id=players.campaign_id, user=players.users["axis"], has_units=False
    )
    players.chits(british="attack", axis="idle")


def _rolls(purchase):
    from campaign.models import Roll

    return [
        (r.table_id, r.final, sorted((d["label"], d["value"]) for d in r.drms))
        for r in Roll.objects.filter(campaign_id=purchase.campaign_id).order_by("seq")
        if r.item.startswith(f"{purchase.group_id} ")
    ]


def _units(purchase):
    return sorted((u.name, u.kind, u.count) for u in Unit.objects.filter(purchase=purchase))


def test_3_618_axis_rgs_strength_sw_leaders_and_what_comes_with_them(users, modules, fixed_dice):
    """3.6181 (a DR for each I, V, G RG; "-1 'G' and 'V' type RG"), 3.6182 ("Each
    Full-Strength "I" RG receives all SW": the Fallschirmjäger Pioneer Coy's 3 LMG, 6 DC,
    3 FT), 3.6183 (the Leader DRMs "+1 Alert Coy RG", "+2 Italian RG", "-1 German "V"
    RG", "+1 Depleted RG"; the Armor Leader column), chart footnotes e, h and j (each
    Gun with a 2-2-8 crew, the 88L with an SdKfz 7, the 40LL with an SdKfz 2)."""
    players, _ = campaign_at("sicily", "i", "jul15am", users)
    Seat.objects.filter(campaign_id=players.campaign_id).update(points=400)
    i1, i7 = buy(players, "axis", "I1"), buy(players, "axis", "I7")
    g4, g5, v1 = buy(players, "axis", "G4"), buy(players, "axis", "G5"), buy(players, "axis", "V1")
    # I1: Full (DR 5), leader DR 7; I7: Depleted (DR 11), leader DR 6 (+2 Italian, +1
    # Depleted); G4: Full (DR 9 -1); G5: Depleted (DR 11 - 1); V1: Full (DR 2 - 1),
    # armor leader DR 4 - 1.
    fixed_dice.extend([[2, 3], [3, 4], [5, 6], [3, 3], [4, 5], [5, 6], [1, 1], [2, 2]])
    for line in (i1, i7, g4, g5, v1):
        make_rolls(players, "axis", line)
    assert _rolls(i1) == [("rg_strength", 5, []), ("leader_allotment", 7, [])]
    assert _rolls(i7) == [
        ("rg_strength", 11, []),
        ("leader_allotment", 9, [("Depleted RG", 1), ("Italian RG", 2)]),
    ]
    assert _rolls(g4) == [
        ("rg_strength", 8, [('"G" and "V" type RG [EXC: British Airlanding]', -1)])
    ]
    assert _rolls(g5) == [
        ("rg_strength", 10, [('"G" and "V" type RG [EXC: British Airlanding]', -1)])
    ]
    assert _rolls(v1) == [
        ("rg_strength", 1, [('"G" and "V" type RG [EXC: British Airlanding]', -1)]),
        ("leader_allotment", 3, [('German "V" RG', -1)]),
    ]
    assert _units(i1) == [
        ("4-6-8 (I1 Fallschirmjäger Pioneer Coy)", "squad", 12),
        ("8-1 leader (I1)", "leader", 1),
        ("DC (I1)", "sw", 6),
        ("FT (I1)", "sw", 3),
        ("LMG (I1)", "sw", 3),
    ]
    assert _units(i7) == [
        ("3-4-6 (I7 Italian Infantry Coy)", "squad", 9),
        ("8-0 leader (I7)", "leader", 1),
    ]
    assert _units(g4) == [
        ("2-2-8 crew (G4)", "half_squad", 2),
        ("88L FlaK 18 AA (G4 AA Section)", "gun", 2),
        ("SdKfz 7 (G4)", "vehicle", 2),
    ]
    assert _units(g5) == [
        ("2-2-8 crew (G5)", "half_squad", 1),
        ("40LL lePaK 41 AT (G5 AT Section)", "gun", 1),
        ("SdKfz 2 (G5)", "vehicle", 1),
    ]
    assert _units(v1) == [
        ("9-2 armor leader (V1)", "leader", 1),
        ("StuG IIIG (V1 StuG Pltn)", "vehicle", 2),
    ]


def test_3_618_british_rgs_strength_leaders_and_what_comes_with_them(users, modules, fixed_dice):
    """The British side of 3.6181 ("-1 "G" and "V" type RG"), 3.6183 ("+2 British "V"
    RG", "-1 Coy Cmd RG"; the Armor Leader column's "-": no leader) and chart footnotes
    d and g (each 6-Pounder with a 2-2-8 crew and a Lloyd Carrier)."""
    players, _ = campaign_at("sicily", "i", "jul14n", users)
    Seat.objects.filter(campaign_id=players.campaign_id).update(points=400)
    v1, g1, v5 = (
        buy(players, "british", "V1"),
        buy(players, "british", "G1"),
        buy(players, "british", "V5"),
    )
    # V1: Full (DR 6 - 1), armor leader DR 8 + 2 = 10: "-"; G1 Full (DR 4 - 1); V5
    # Depleted (DR 11 - 1).
    fixed_dice.extend([[3, 3], [4, 4], [2, 2], [5, 6]])
    for line in (v1, g1, v5):
        make_rolls(players, "british", line)
    g_v = ('"G" and "V" type RG [EXC: British Airlanding]', -1)
    assert _rolls(v1) == [
        ("rg_strength", 5, [g_v]),
        ("leader_allotment", 10, [('British "V" RG', 2)]),
    ]
    assert _rolls(g1) == [("rg_strength", 3, [g_v])]
    assert _rolls(v5) == [("rg_strength", 10, [g_v])]
    assert _units(v1) == [("Sherman III(a) (V1 Med Tank Troop)", "vehicle", 3)]
    assert _units(g1) == [
        ("2-2-8 crew (G1)", "half_squad", 3),
        ("57L OQF 6-Pounder AT (G1 Lgt Inf AT Pltn)", "gun", 3),
        ("Lloyd Carrier (G1)", "vehicle", 3),
    ]
    assert _units(v5) == [("Daimler AC (V5 AC Pltn I)", "vehicle", 2)]


def test_3_6212_footnote_star_the_british_declaration_holds_for_its_cg_date_only(users, modules):
    """3.6212 matrix footnote *: "if the British player *currently* has no on-map
    Retained units".  The British declaration made on July 15 AM is what the British
    hold on that date; the chits revealed, it lapses: on July 15 PM the Axis may choose
    Attack again until the British declare it anew."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, kind="initiative")
    british, axis = players.users["british"], players.users["axis"]
    keep_retained_units(players)  # the British roster lists a unit: no fact of its own
    initiative.declare_on_map_units(campaign_id=players.campaign_id, user=british, has_units=False)
    players.chits(axis="idle", british="idle")
    players.until("initiative")
    assert players.campaign.date_index == machine.date_index(module_of(players.campaign), "jul15pm")
    assert not Seat.objects.get(campaign_id=players.campaign_id, side="british").no_on_map_units
    initiative.declare_on_map_units(campaign_id=players.campaign_id, user=british, has_units=False)
    with pytest.raises(ActionRefused, match=r"\(3\.6212 matrix footnote \*\)"):
        initiative.lock_initiative(campaign_id=players.campaign_id, user=axis, chit="attack")
    initiative.declare_on_map_units(campaign_id=players.campaign_id, user=british, has_units=True)
    players.chits(axis="attack", british="idle")


def _fortify(players, side, item, count=1, tier=0, location=""):
    return purchases.buy_fortification(
        campaign_id=players.campaign_id,
        user=players.users[side],
        item_id=item,
        count=count,
        tier=tier,
        location=location,
    )


def test_3_619_footnote_e_a_trench_only_where_a_foxhole_stood_on_the_previous_date(users, modules):
    """3.619 footnote e: "A trench may only be placed in a hex which contained a fox-hole
    on the previous CG date. When the trench is placed the foxhole is removed."  The
    Trench is bought for its hex ("Where"), one per hex: a hex not named, two Trenches in
    one hex, a hex whose Foxhole is bought on this same date, a hex whose Foxhole a
    Trench already replaced are refused with the footnote; the Foxhole the Axis placed
    there on July 14 PM is named removed.  A hex Refit holds no Foxhole for (one of the
    Initial Scenario's, or one taken over) is the player's word."""
    players, _ = campaign_at("sicily", "i", "jul14pm", users)
    buy(players, "axis", "M3")
    players.until("fortify")
    _fortify(players, "axis", "foxhole", tier=1, location="12F4")
    players.until("initiative")
    players.chits(axis="idle", british="idle")
    players.until("purchase")
    buy(players, "axis", "M3")
    buy(players, "axis", "M3")
    players.until("fortify")
    _fortify(players, "axis", "foxhole", tier=2, location="12G5")
    for location, count, refusal in [
        ("", 1, r"name the hex \(Where\) that held a Foxhole on the previous CG Date"),
        ("12F4", 2, r"one Trench per hex"),
        ("12g5", 1, r"the Foxhole in 12g5 is bought on this CG Date, not on the previous one"),
    ]:
        with pytest.raises(ActionRefused, match=refusal + r".*\(3\.619 footnote e\)"):
            _fortify(players, "axis", "trench", count=count, location=location)
    trench = _fortify(players, "axis", "trench", location=" 12f4 ")
    assert trench.cost == 10
    from campaign.models import Event

    line = Event.objects.filter(campaign_id=players.campaign_id, kind="fortify").latest("id")
    assert line.text.endswith(
        "bought 1 × Trench for 10 FPP in 12f4; the Foxhole placed there on July 14 PM is "
        "removed (3.619 footnote e)."
    ), line.text
    with pytest.raises(ActionRefused, match=r"a Trench is already placed in 12F4"):
        _fortify(players, "axis", "trench", location="12F4")
    other = _fortify(players, "axis", "trench", location="14B2")  # a Foxhole of the OB
    assert other.location == "14B2"


def test_3_617_axis_footnote_n_in_cg_ii_i3_after_both_i1_and_cg_maxima_by_cg(users, modules):
    """Axis footnote n ("May not be purchased until all [I1] RG have been purchased"): in
    CG II, whose I1 CG Max is 2, the Pioneer Alert Coy (I3) is refused after one I1 and
    sold after the second; 3.6179 #R and the CG Max column by CG: the British M1 Sniper
    (CG II Max 3) and the Axis G4 (CG II Max 0) are counted against CG II's own column."""
    alice, bob = users
    c = host_game("sicily", "ii", alice, bob, name="pass7b")
    module = module_of(c)
    players = players_of(c, alice, bob)
    players.results(**mechanisms.result_values(module))
    players.until("purchase")
    Seat.objects.filter(campaign=c).update(points=300)
    assert module.dates[players.campaign.date_index].id == "jul15am"
    buy(players, "axis", "I1")
    with pytest.raises(ActionRefused, match=r"footnote n"):
        buy(players, "axis", "I3")
    with pytest.raises(
        ActionRefused, match=r"not available in CG II: .* prints 0 as its CG Max for CG II"
    ):
        buy(players, "axis", "G4")
    buy(players, "british", "M1")
    players.until("initiative")
    players.chits(axis="idle", british="idle")
    players.until("purchase")
    buy(players, "axis", "I1")
    assert buy(players, "axis", "I3").cost == 16
    buy(players, "british", "M1")
    players.until("initiative")
    players.chits(axis="idle", british="idle")
    players.until("purchase")
    buy(players, "british", "M1")
    players.until("initiative")
    players.chits(axis="idle", british="idle")
    players.until("purchase")
    with pytest.raises(ActionRefused, match=r"CG maximum is reached \(3 of 3 bought in CG II"):
        buy(players, "british", "M1")


def test_3_6162_loss_points_in_play_at_the_boundaries(users, modules, fixed_dice):
    """3.6162: "If the CVP lost by a player for the prior CG scenario (only) are >= two
    times, and >= 8 more than, the CVP lost by the other Player, that player may make a
    dr and add this value to the CPP Base Number": 15 CVP lost against 7 (>= 2 x 7 and 8
    more) gives the Axis a dr (4: 29 + 4 on July 14 PM); the British, who lost 7, none;
    14 against 7 (only 7 more) gives none."""
    alice, bob = users
    for axis_lost, british_lost, axis_cpp in ((15, 7, 29 + 4), (14, 7, 29)):
        c = host_game("sicily", "i", alice, bob, name=f"pass7b {axis_lost}")
        module = module_of(c)
        players = players_of(c, alice, bob)
        fixed_dice.append([4])
        players.results(
            **mechanisms.result_values(
                module,
                cvp_lost_axis=axis_lost,
                cvp_lost_british=british_lost,
            )
        )
        players.until("purchase")
        fixed_dice.clear()
        assert (points(players, "axis"), points(players, "british")) == (axis_cpp, 12)


def test_british_footnotes_e_j_and_the_m_rows(users, modules):
    """British footnote j ("Cost is per module ... retained as long as the module he is
    assigned to is retained"): no O4 without an OBA module held; footnote e ("No more
    than 1 O4 may be in a sides OB at any given time"): a second O4 is refused while the
    first is held; M1 "SAN Increase +1" for 3 CPP; M3 "20 FPP" for 2 CPP, Date Max 1;
    3.619 footnote d: the Axis buys no AT Mines; the '"?"' counter costs 1 FPP."""
    players, _ = campaign_at("sicily", "i", "jul15am", users)
    with pytest.raises(ActionRefused, match=r"footnote j"):
        buy(players, "british", "O4")
    buy(players, "british", "O1")
    assert buy(players, "british", "O4").cost == 1
    with pytest.raises(ActionRefused, match=r"footnote e"):
        buy(players, "british", "O4")
    san = Seat.objects.get(campaign_id=players.campaign_id, side="british").san
    assert buy(players, "british", "M1").cost == 3
    assert Seat.objects.get(campaign_id=players.campaign_id, side="british").san == san + 1
    assert buy(players, "british", "M3").cost == 2
    with pytest.raises(ActionRefused, match=r"CG date maximum is reached \(1 of 1"):
        buy(players, "british", "M3")
    buy(players, "axis", "M3")
    players.until("fortify")
    assert (
        Seat.objects.get(campaign_id=players.campaign_id, side="british").fortification_points == 20
    )
    with pytest.raises(ActionRefused, match=r"Axis cannot buy AT Mines \(3\.619 footnote d\)"):
        _fortify(players, "axis", "at_mines")
    assert _fortify(players, "axis", "unknown_counter", count=3).cost == 3


def test_3_617_the_rg_purchased_column_records_each_id_and_the_cpp_expended(users, modules):
    """3.617: "As each RG is selected, record its ID (and the CPP expended to purchase
    it) in the "RG Purchased" column on the line for the current CG Scenario on the CG
    Roster": the owner's line reads "I1 (16)" for an I1 bought In Reserve and "M2 (2)"
    for Recon at 2 CPP; the CPP expended being secret (3.617), the opponent's roster
    names no RG and no price."""
    from tests.purchase_helpers import roster_of

    players, _ = campaign_at("sicily", "i", "jul15am", users)
    buy(players, "axis", "I1", "reserve")
    buy(players, "axis", "M2", "recon_plus5")
    mine = roster_of(players.campaign, "axis").lines[-1].sides[0]
    assert (mine.rgs, mine.spent) == (["I1 (16)", "M2 (2)"], 18)
    theirs = roster_of(players.campaign, "british").lines[-1].sides[0]
    assert (theirs.rgs, theirs.spent) == ([], None)


def test_3_620_the_recon_column_records_the_locations_of_every_recon_dr_of_the_date(
    users, modules, fixed_dice
):
    """3.620: "The number of Locations that may be reconnoitered (3.6223) per CG Date is
    recorded on the CG Roster in the "Recon" column of the current CG Date line"; the
    M2 Recon RG's Date Max is 2: two drs on July 14 PM (2 + 5 and 4) put 11 in the
    column, not the last dr's 4."""
    from tests.purchase_helpers import roster_of
    from tests.test_rule_mechanisms import two_recon_drs

    players = two_recon_drs(users, fixed_dice)
    line = roster_of(players.campaign, "axis").lines[-1]
    assert line.date == "July 14 PM"
    assert (line.sides[0].recon, line.sides[0].spent) == (11, 3)


def test_3_6179_ob_rgs_are_on_the_record_but_not_counted_toward_purchase_limits(users, modules):
    """3.6179: "If preparing for a CG Initial Scenario, one line is also filled out for
    each RG given in the Initial Scenario OB (but these latter do not apply towards RG
    purchase limits; 3.6176-.6177)": with an Airborne Pltn (I2) in the British OB of CG
    I, the British still buy the two I2 its CG Max allows, and a third is refused."""
    from tests.purchase_helpers import with_sicily_ob

    c, players = with_sicily_ob(users, {"rgs.axis": "I5", "rgs.british": "I2"})
    players.until_step("I-3.617")
    Seat.objects.filter(campaign=c).update(points=100)
    assert Purchase.objects.filter(campaign=c, side="british", initial=True).count() == 1
    buy(players, "british", "I2")
    buy(players, "british", "I2")
    with pytest.raises(ActionRefused, match=r"CG maximum is reached \(2 of 2 bought in CG I"):
        buy(players, "british", "I2")
