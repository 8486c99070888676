"""Sicily (seed 001), the twelfth pass of the sentence audit (issue 44): sentences of
3.615-3.623, both RG charts, their footnotes and EXC clauses that no earlier pass doc
quotes, tried through the services as two players meet them
(docs/rules-audit/pass-12-sicb12.md)."""

from __future__ import annotations

import contextlib

import pytest

from campaign.models import Event, Purchase, Roll, Seat
from campaign.services import purchases
from campaign.services.errors import ActionRefused
from tests import test_rule_mechanisms as mechanisms
from tests.purchase_helpers import campaign_at, keep_retained_units, make_rolls, roster_of
from tests.test_rule_mechanisms import add, buy, unit_names

users = mechanisms.users
fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


def _points(players, side):
    return Seat.objects.get(campaign_id=players.campaign_id, side=side).points


def _line(players, side, purchase):
    return next(ln for ln in roster_of(players.campaign, side).record if ln.id == purchase.ref)


def _fortify(players, side, item, count=1, tier=0, location=""):
    return purchases.buy_fortification(
        campaign_id=players.campaign_id,
        user=players.users[side],
        item_id=item,
        count=count,
        tier=tier,
        **({"location": location} if location else {}),
    )


# --------------------------------------------------------------------------- the charts


def test_british_footnote_s_a_depleted_rifle_coy_gets_one_less_of_each_squad_type(
    users, modules, fixed_dice
):
    """3.617 British chart I1 "4-5-8;4-5-7;4-4-7 (4/3 each)" and footnote s: "If depleted
    1 less of each squad type is received."  A Depleted I1 receives 3 of each of the
    three squad types (9 in all); a Full one 4 of each."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, points=100)
    depleted = buy(players, "british", "I1")
    full = buy(players, "british", "I1")
    fixed_dice[:] = [[6, 6], [3, 3]]  # strength DR 12: Depleted; leader DR
    make_rolls(players, "british", depleted)
    assert depleted.strength == "depleted"
    squads = [u for u in unit_names(players, "british", kind="squad")]
    assert sorted((name.split(" ")[0], n) for name, *_, n in squads) == [
        ("4-4-7", 3),
        ("4-5-7", 3),
        ("4-5-8", 3),
    ], squads
    fixed_dice[:] = [[1, 1], [3, 3]]
    make_rolls(players, "british", full)
    assert full.strength == "full"
    counts: dict[str, int] = {}
    for name, *_, n in unit_names(players, "british", kind="squad"):
        counts[name.split(" ")[0]] = counts.get(name.split(" ")[0], 0) + n
    assert counts == {"4-4-7": 7, "4-5-7": 7, "4-5-8": 7}


def test_3_6182_a_full_axis_pioneer_coy_receives_its_sw_row(users, modules, fixed_dice):
    """3.6182: "Each Full-Strength "I" RG receives all SW/" and its row
    "Fallschirmjäger Pioneer Coy | 3 | 6 | 3" (LMG, DC, FT): 3 LMG, 6 DC, 3 FT; its 12
    4-6-8 (Full/Depl 12/9)."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    i1 = buy(players, "axis", "I1")
    fixed_dice[:] = [[1, 2], [3, 3]]
    make_rolls(players, "axis", i1)
    sw = {name.split(" ")[0]: n for name, *_, n in unit_names(players, "axis", kind="sw")}
    assert sw == {"LMG": 3, "DC": 6, "FT": 3}, sw
    assert sum(n for *_, n in unit_names(players, "axis", kind="squad")) == 12


def test_axis_footnote_d_italian_mtr_each_with_a_1_3_6_hs(users, modules, fixed_dice):
    """3.617 Axis chart footnote d: "Each Italian MG and MTR is accompanied by a 1-3-6
    HS."  I9 Italian MTR Coy (3/2), Full: three 45mm MTR and three 1-3-6 HS; footnote
    c: it is subject to depletion (a strength DR is made)."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    i9 = buy(players, "axis", "I9")
    fixed_dice[:] = [[2, 2]]
    make_rolls(players, "axis", i9)
    assert i9.strength == "full"
    names = unit_names(players, "axis")
    assert sum(n for name, kind, _, n in names if kind == "half_squad" and "1-3-6" in name) == 3
    assert sum(n for name, kind, _, n in names if kind == "sw" and "45mm" in name) == 3


def test_3_6181_an_fb42_or_oba_rg_makes_no_strength_dr(users, modules):
    """3.6181: "Each RG whose ID begins with "I", "V", or "G" is subject to Depletion":
    the Axis F1 (FB42) and O2 (OBA module) make no RG Strength DR, their lines read no
    strength."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    f1 = buy(players, "axis", "F1")
    o2 = buy(players, "axis", "O2")
    players.until("strength")
    for p in (f1, o2):
        with contextlib.suppress(ActionRefused):
            make_rolls(players, "axis", p)
    assert not Roll.objects.filter(table_id="rg_strength").exists()


def test_3_6183_alert_coy_plus_1_and_depleted_plus_1_on_the_leader_dr(users, modules, fixed_dice):
    """3.6183 DRM "+1 Alert Coy RG" and "+1 Depleted RG": a Depleted Axis I5 (Alert
    Infantry Coy) reads both by itself: leader DR 6 + 2 = 8, an 8-0."""
    players, _ = campaign_at("sicily", "i", "jul14pm", users, points=100)
    i5 = buy(players, "axis", "I5")
    fixed_dice[:] = [[5, 5], [3, 3]]
    make_rolls(players, "axis", i5)
    leader = Roll.objects.get(table_id="leader_allotment")
    labels = {d["label"]: d["value"] for d in leader.drms}
    assert labels == {"Alert Coy RG": 1, "Depleted RG": 1}, labels
    assert leader.final == 8
    assert unit_names(players, "axis", kind="leader") == [("8-0 leader (I5)", "leader", "ok", 1)]


def test_3_6183_coy_cmd_minus_1_by_itself_airborne_offered(users, modules, fixed_dice):
    """3.6183 DRM "-1 Coy Cmd RG" (by itself) and "-1 Airborne/" (cut, ticked): the
    British I4 Airborne Coy Cmd, leader DR 7 - 1 - 1 = 5, a 9-1."""
    players, _ = campaign_at("sicily", "i", "jul14pm", users, points=100)
    i4 = buy(players, "british", "I4")
    fixed_dice[:] = [[1, 1], [3, 4]]
    make_rolls(players, "british", i4, ticked={"leader_allotment": ["airborne"]})
    leader = Roll.objects.get(table_id="leader_allotment")
    labels = {d["label"]: d["value"] for d in leader.drms}
    assert labels.get("Coy Cmd RG") == -1 and leader.final == 5, (labels, leader.final)
    assert unit_names(players, "british", kind="leader") == [("9-1 leader (I4)", "leader", "ok", 1)]


# --------------------------------------------------------------------------- purchase limits


def test_british_footnote_l_no_more_than_4_coy_rgs_on_a_calendar_day(users, modules):
    """3.617 British chart footnote l: "A total of no more than two coy type RG may be
    purchased on any given CG Date. Further, no more than 4 coy type RGs may be purchased
    on a given calendar day."  July 15: two I1 in the AM, a third refused that date;
    two in the PM; at Night a fifth that day is refused with footnote l, nothing spent."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, points=200)
    buy(players, "british", "I1")
    buy(players, "british", "I1")
    with pytest.raises(ActionRefused) as refused:
        buy(players, "british", "I1")
    assert "footnote l" in str(refused.value) or "3.617" in str(refused.value)
    players.until("initiative")
    players.chits(axis="idle", british="idle")
    players.until("purchase")
    Seat.objects.filter(campaign_id=players.campaign_id).update(points=200)
    buy(players, "british", "I1")
    buy(players, "british", "I1")
    players.until("initiative")
    players.chits(axis="idle", british="idle")
    players.until("purchase")
    Seat.objects.filter(campaign_id=players.campaign_id).update(points=200)
    assert players.campaign.date_index == 5  # July 15 Night
    with pytest.raises(ActionRefused) as refused:
        buy(players, "british", "I1")
    words = str(refused.value)
    assert "British chart footnote l" in words and "day" in words, words
    assert _points(players, "british") == 200


def test_british_footnote_k_and_p_the_date_windows(users, modules):
    """3.617 British chart footnote k: "May only be purchased on or before July 14PM"
    (I2 on July 14 N refused) and footnote p: "May only be purchased on or after July
    14 N" (I3 on July 14 PM refused); each refusal names its footnote."""
    players, _ = campaign_at("sicily", "i", "jul14pm", users, points=100)
    with pytest.raises(ActionRefused) as refused:
        buy(players, "british", "I3")
    assert "footnote p" in str(refused.value), str(refused.value)
    buy(players, "british", "I2")
    players.until("initiative")
    players.chits(axis="idle", british="idle")
    players.until("purchase")
    with pytest.raises(ActionRefused) as refused:
        buy(players, "british", "I2")
    assert "footnote k" in str(refused.value), str(refused.value)


def test_axis_footnote_o_the_fallschirmjager_coy_only_after_july_16_n(users, modules):
    """3.617 Axis chart footnote o: "Only eligible for purchase after July 16 N": I6 on
    July 16 N refused with the footnote; on July 17 AM bought."""
    players, _ = campaign_at("sicily", "i", "jul16n", users, points=100)
    with pytest.raises(ActionRefused) as refused:
        buy(players, "axis", "I6")
    assert "footnote o" in str(refused.value), str(refused.value)
    assert _points(players, "axis") == 100


def test_axis_m3_fortification_five_a_date(users, modules):
    """3.617 Axis chart M3 "Fortification | 20 FPP | 1 | 5 |": five on one CG Date give
    100 FPP for 5 CPP; a sixth is refused; the British M3 costs 2, one a date."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    for _ in range(5):
        buy(players, "axis", "M3")
    seat = Seat.objects.get(campaign_id=players.campaign_id, side="axis")
    assert (seat.points, seat.fortification_points) == (95, 100)
    with pytest.raises(ActionRefused):
        buy(players, "axis", "M3")
    buy(players, "british", "M3")
    assert _points(players, "british") == 98
    with pytest.raises(ActionRefused):
        buy(players, "british", "M3")


def test_chart_m1_sniper_raises_the_buyers_san_by_one(users, modules):
    """Both charts M1 "Sniper | SAN Increase +1": the British buy one (3 CPP), their SAN
    rises by one; the Axis SAN does not move."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    before = {s.side: s.san for s in Seat.objects.filter(campaign_id=players.campaign_id)}
    buy(players, "british", "M1")
    after = {s.side: s.san for s in Seat.objects.filter(campaign_id=players.campaign_id)}
    assert after["british"] == (before["british"] or 0) + 1
    assert after["axis"] == before["axis"]
    assert _points(players, "british") == 97


def test_3_6175_on_map_for_an_i_rg_is_20_percent_more_fru_not_for_g(users, modules):
    """3.6175: "The Axis or British player may purchase "I" type RGs for Standard On-Map
    Setup by spending 20% more (FRU) than the printed value."  British I3 (7) costs 9
    (8.4 up); Axis I7 (12) 15 (14.4 up); a G RG at that price is refused, nothing spent."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    buy(players, "british", "I3", "on_map")
    assert _points(players, "british") == 91
    buy(players, "axis", "I7", "on_map")
    assert _points(players, "axis") == 85
    with pytest.raises(ActionRefused) as refused:
        buy(players, "axis", "G1", "on_map")
    assert "3.6175" in str(refused.value), str(refused.value)
    assert _points(players, "axis") == 85


def test_british_footnote_e_a_creeping_barrage_is_50_percent_more(users, modules):
    """3.617 British chart footnote e: "Use as a creeping barrage increases the cost of a
    module by 50% and is not convertible."  O1 (7) as a Creeping Barrage costs 11; the
    O4 observer (not a module) and the Axis O1 are refused that price."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    buy(players, "british", "O1", "creeping")
    assert _points(players, "british") == 89
    with pytest.raises(ActionRefused):
        buy(players, "british", "O4", "creeping")
    with pytest.raises(ActionRefused):
        buy(players, "axis", "O1", "creeping")
    assert _points(players, "axis") == 100


def test_3_6181_exc_a_paradrop_is_for_british_airborne_rgs_only(users, modules):
    """3.6181 EXC "RG entering via Para drop" / British footnote c EXC: I2 by paradrop
    makes no strength DR; a British I3 (not airborne) and the Axis I1 cannot be bought
    so."""
    players, _ = campaign_at("sicily", "i", "jul14pm", users, points=100)
    i2 = buy(players, "british", "I2", "paradrop")
    with pytest.raises(ActionRefused):
        buy(players, "axis", "I5", "paradrop")
    make_rolls(players, "british", i2)
    assert not Roll.objects.filter(table_id="rg_strength").exists()
    assert i2.strength == "full"


# --------------------------------------------------------------------------- 3.619


def test_3_619_b_hip_is_capped_in_a_daytime_scenario_only(users, modules):
    """3.619 footnote b: "No more than 10% (FRU) of a side's Retained Infantry squads
    may use HIP in a daytime Scenario."  On July 14 Night, 11 squads: three HIP counters
    are bought (no cap at Night)."""
    players, _ = campaign_at("sicily", "i", "jul14n", users)
    buy(players, "axis", "M3")
    add(players, "axis", "4-6-8", "squad", number=11)
    players.until("fortify")
    hip = _fortify(players, "axis", "hip", count=3, tier=3)
    assert hip.cost == 3


def test_3_619_f_the_british_have_no_roadblock_cap(users, modules):
    """3.619 footnote f: "The Axis can purchase no more than 5 roadblocks during the
    course of any CG."  The Axis sixth is refused with footnote f; the British buy six."""
    players, _ = campaign_at("sicily", "i", "jul14n", users)
    for _ in range(3):
        buy(players, "axis", "M3")
    buy(players, "british", "M3")
    Seat.objects.filter(campaign_id=players.campaign_id).update(fortification_points=60)
    players.until("fortify")
    _fortify(players, "axis", "roadblock", count=5)
    with pytest.raises(ActionRefused) as refused:
        _fortify(players, "axis", "roadblock")
    assert "footnote f" in str(refused.value), str(refused.value)
    _fortify(players, "british", "roadblock", count=6)


def test_3_619_d_at_mines_british_only_with_an_airborne_mmc_retained(users, modules):
    """3.619 footnote d: "May only be purchased by the British when >= 1 airborne MMC is
    currently retained. No more than 6 AT mines may be purchased during any CG."  The
    Axis are refused; the British without an airborne MMC are refused."""
    players, _ = campaign_at("sicily", "i", "jul14n", users)
    buy(players, "axis", "M3")
    buy(players, "british", "M3")
    players.until("fortify")
    with pytest.raises(ActionRefused):
        _fortify(players, "axis", "at_mines")
    with pytest.raises(ActionRefused) as refused:
        _fortify(players, "british", "at_mines")
    assert "footnote d" in str(refused.value), str(refused.value)


def test_3_619_all_fpp_unspent_are_forfeit_when_the_step_ends(users, modules):
    """3.619: "All FPP unspent upon completion of this step are forfeit.": the Axis buy
    M3 (20 FPP), spend 3; after the step 0 FPP remain, the CPP untouched."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=50)
    buy(players, "axis", "M3")
    players.until("fortify")
    _fortify(players, "axis", "foxhole")
    players.until("recon")
    seat = Seat.objects.get(campaign_id=players.campaign_id, side="axis")
    assert seat.fortification_points == 0
    assert seat.points == 49


# --------------------------------------------------------------------------- 3.620


def test_3_620_no_recon_before_an_initial_scenario(users, modules):
    """3.620: "Each side may now make a Recon dr, provided ... the players are not
    preparing to play an Initial Scenario."  At the Initial Scenario's purchase, the
    Axis M2 is refused in those words, nothing spent."""
    from tests.walk import host_game, players_of

    a, b = users
    c = host_game("sicily", "i", a, b, side="axis", through_start=False)
    players = players_of(c, a, b)
    players.until_step("I-3.617")
    Seat.objects.filter(campaign=c).update(points=50)
    with pytest.raises(ActionRefused) as refused:
        buy(players, "axis", "M2")
    assert "3.620" in str(refused.value), str(refused.value)
    assert _points(players, "axis") == 50


# --------------------------------------------------------------------------- 3.621-3.623


def test_3_6212_star_the_axis_attack_chit_needs_british_on_map_units(users, modules):
    """3.6212 matrix footnote *: "The Attack Chit cannot be selected by the Axis player
    if the British player currently has no on-map Retained units."  The British declare
    none (Refit cannot see the map): the Axis Attack is refused with the footnote and
    Idle is accepted."""
    from campaign.services import initiative

    players, _ = campaign_at("sicily", "i", "jul14n", users, kind="initiative")
    keep_retained_units(players)  # 3.6212*: the British roster lists a unit
    initiative.declare_on_map_units(
        campaign_id=players.campaign_id, user=players.users["british"], has_units=False
    )
    with pytest.raises(ActionRefused) as refused:
        players.chits(axis="attack")
    assert "3.6212" in str(refused.value), str(refused.value)
    players.chits(axis="idle")


def _outcome(players):
    from campaign.models import InitiativeOutcome

    return InitiativeOutcome.objects.filter(campaign_id=players.campaign_id).latest("pk")


def test_3_6213c_an_axis_assault_british_set_up_first_axis_move_first(users, modules):
    """3.6213c: "AXIS ASSAULT: On this CG Date the Axis side is attacking. The British
    set up first and the Axis moves first."; 3.623: "If this is an Assault scenario, the
    side setting up second always moves first.": no moves-first dr is made."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, kind="initiative")
    keep_retained_units(players)  # 3.6212*: the British roster lists a unit
    players.chits(axis="attack", british="idle")
    out = _outcome(players)
    assert (out.sets_up_first, out.moves_first) == ("british", "axis")
    players.until("results")  # 3.622, 3.6223, 3.623
    assert not Roll.objects.filter(table_id="moves_first").exists()
    assert _outcome(players).moves_first == "axis"


def test_3_6213d_british_assault_axis_set_up_first(users, modules):
    """3.6213d: "BRITISH ASSAULT: ... The Axis sets up first and the British move
    first."."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, kind="initiative")
    keep_retained_units(players)  # 3.6212*: the British roster lists a unit
    players.chits(axis="idle", british="attack")
    out = _outcome(players)
    assert (out.sets_up_first, out.moves_first) == ("axis", "british")


def test_3_6213a_dual_attack_the_setup_dr_now_the_move_dr_after_setup(users, modules, fixed_dice):
    """3.6213a: "The British player makes a dr to determine which side sets up first: if
    <= 3 the British do; otherwise the Axis does. The side moving first however, is not
    determined until after all setup is complete (step 3.623)."  Dual Attack, dr 4: the
    Axis set up first and no side moves first yet; at 3.623 a dr 2: the British."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, kind="initiative")
    keep_retained_units(players)  # 3.6212*: the British roster lists a unit
    fixed_dice[:] = [[4]]
    players.chits(axis="attack", british="attack")
    out = _outcome(players)
    assert (out.sets_up_first, out.moves_first) == ("axis", "")
    players.until("setup")
    fixed_dice[:] = [[2]]
    players.until("results")  # 3.622, 3.6223, 3.623
    assert _outcome(players).moves_first == "british"


def test_3_6212_note_2_idle_repeats_3_612_to_3_6212(users, modules):
    """3.6212 matrix note 2: "No scenario generated for this CG Date; each side repeats
    RePh steps 3.612-.6212."  Both Idle on July 14 N: the next step is 3.612 on July 15
    AM, and 3.616 adds July 15 AM's base (Axis 30, British 80)."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, kind="initiative", points=0)
    players.chits(axis="idle", british="idle")
    players.until_step("3.617")
    assert players.campaign.date_index == 3
    assert (_points(players, "axis"), _points(players, "british")) == (30, 80)


def test_purchase_record_secret_from_the_opponent_3_617(users, modules):
    """3.617: "The CPP expended, those remaining, and the RG(s) purchased may all be
    kept secret."  The Axis buy I7; the British roster shows neither its ID nor the Axis
    CPP."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    buy(players, "axis", "I7")
    british = roster_of(players.campaign, "british")
    assert all("I7" not in str(ln.__dict__) for ln in british.record)
    assert Purchase.objects.filter(side="axis").count() == 1


# --------------------------------------------------------------------------- batch 2


def _page(client, players, side):
    client.force_login(players.users[side])
    return client.get(f"/campaigns/{players.campaign_id}/").content.decode()


def test_3_6223_the_set_up_step_carries_the_recon_inspection_conditions(users, modules, client):
    """3.6223: "RECON INSPECTION: After all setup is complete (but prior to Bombardment,
    if any), each side may declare the Location(s) they wish to reconnoiter (3.620), if
    any. Each reconned Location must be within six hexes of a friendly Setup/"; Refit
    keeps no hexes, so the 3.622 step's page carries the conditions."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, kind="initiative")
    keep_retained_units(players)  # 3.6212*: the British roster lists a unit
    players.chits(axis="idle", british="attack")
    players.until_step("3.6223")
    page = _page(client, players, "axis")
    assert "six hexes" in page and "3.6223" in page, "the six-hex condition is not on the page"
    assert "before any Bombardment" in page or "prior to Bombardment" in page


def test_3_6222_exc_the_set_up_step_says_immobile_vehicles_stay(users, modules, client):
    """3.6222 EXC: "each Immobile vehicle must remain in its current Location and VCA
    (3.6071)": the 3.622 step's page says so."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, kind="initiative")
    keep_retained_units(players)  # 3.6212*: the British roster lists a unit
    players.chits(axis="idle", british="attack")
    players.until("setup")
    page = _page(client, players, "british")
    assert "Immobile vehicle" in page and "3.6222" in page


def test_3_623_each_side_announces_its_current_san(users, modules):
    """3.623: "Each side announces its current SAN.": the log both sides read names
    both SANs once the set-up is done."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, kind="initiative")
    keep_retained_units(players)  # 3.6212*: the British roster lists a unit
    Seat.objects.filter(campaign_id=players.campaign_id, side="axis").update(san=3)
    Seat.objects.filter(campaign_id=players.campaign_id, side="british").update(san=5)
    players.chits(axis="attack", british="idle")
    players.until("results")  # 3.622, 3.6223, 3.623
    texts = list(Event.objects.filter(secret_side="").values_list("text", flat=True))
    said = [t for t in texts if "SAN" in t]
    assert any("3" in t and "5" in t for t in said), said


def test_3_6175_no_british_on_map_rg_without_a_british_setup_area(users, modules):
    """3.6175: "A British RG may be purchased for Standard On-Map Setup only if there is
    >= one Set Up Area on the Map."  The British 3.605 list names none: the British
    I3 On-map is refused in words naming the rule, nothing spent; at its printed cost
    it is bought."""
    from campaign.models import Campaign
    from campaign.selectors import module_of
    from rules import machine
    from tests.walk import host_game, players_of

    a, b = users
    c = host_game("sicily", "i", a, b, policy="step_end", name="buy")
    module = module_of(c)
    Campaign.objects.filter(pk=c.pk).update(date_index=machine.date_index(module, "jul14n") - 1)
    players = players_of(c, a, b)
    values = {
        f"{f.id}.{s.id}": (False if f.kind == "bool" else 0)
        for f in module.result_fields
        for s in module.sides
    }
    players.results(**values)
    players.until_step("3.605")
    from campaign.services import units

    units.record_setup_areas(campaign_id=c.pk, user=players.users["british"], areas="")
    players.until("purchase")
    Seat.objects.filter(campaign=c).update(points=50)
    with pytest.raises(ActionRefused) as refused:
        buy(players, "british", "I3", "on_map")
    assert "3.6175" in str(refused.value), str(refused.value)
    assert _points(players, "british") == 50
    buy(players, "british", "I3")
    buy(players, "axis", "I7", "on_map")


def test_3_617_cpp_left_carry_to_a_later_date_except_after_14_pm(users, modules):
    """3.617: "Any CPP remaining may be used to purchase further RG in any subsequent
    RePh step": 20 CPP left on July 15 AM are still there (plus July 15 PM's base 30)
    at the July 15 PM purchase."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, points=20)
    players.until("initiative")
    players.chits(axis="idle", british="idle")
    players.until("purchase")
    assert _points(players, "axis") == 20 + 30


def test_3_6181_british_airlanding_g2_of_the_ob_reads_plus_1_not_minus_1(
    users, modules, fixed_dice
):
    """3.6181 DRM "-1 | "G" and "V" type RG [EXC: British Airlanding]" and "+1 British
    Airlanding/": the British G2 Airlanding AT Pltn of an Initial-Scenario OB rolls
    +1, never the G -1; British footnote q: each Gun comes with a Jeep (a) and a
    British Glider."""
    from tests.purchase_helpers import with_sicily_ob

    c, players = with_sicily_ob(users, {"rgs.axis": "I5", "rgs.british": "G2"})
    players.until("strength")
    g2 = Purchase.objects.get(campaign=c, side="british", group_id="G2")
    fixed_dice[:] = [[4, 4]]
    make_rolls(players, "british", g2)
    roll = Roll.objects.get(table_id="rg_strength", side="british")
    labels = {d["label"]: d["value"] for d in roll.drms}
    assert labels == {"British Airlanding RG": 1}, labels
    assert roll.final == 9
    names = unit_names(players, "british")
    assert any("Jeep" in n for n, *_ in names) and any("Glider" in n for n, *_ in names), names


def test_3_6179_the_ob_rgs_do_not_count_toward_the_purchase_limits(users, modules):
    """3.6179: "If preparing for a CG Initial Scenario, one line is also filled out for
    each RG given in the Initial Scenario OB (but these latter do not apply towards RG
    purchase limits; 3.6176-.6177)."  An OB with the Axis I10 (CG Max 1): the Axis may
    still buy an I10."""
    from tests.purchase_helpers import with_sicily_ob

    c, players = with_sicily_ob(users, {"rgs.axis": "I10", "rgs.british": "I2"})
    players.until_step("I-3.617")
    Seat.objects.filter(campaign=c).update(points=50)
    buy(players, "axis", "I10")
    lines = roster_of(c, "axis").record
    assert len([ln for ln in lines if "I10" in str(ln.__dict__)]) == 2


def test_british_footnote_d_each_mmg_and_hmg_with_a_2_4_8_hs(users, modules, fixed_dice):
    """3.617 British chart footnote d: "Each MMG and HMG is accompanied by a 2-4-8 HS."
    British I5 MG Pltn, Full: 2 MMG, 2 HMG and four 2-4-8 HS."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    i5 = buy(players, "british", "I5")
    fixed_dice[:] = [[1, 1]]
    make_rolls(players, "british", i5)
    names = unit_names(players, "british")
    assert sum(n for name, kind, _, n in names if kind == "half_squad" and "2-4-8" in name) == 4
    assert sum(n for name, kind, _, n in names if kind == "sw") == 4


def test_british_v3_carrier_pltn_full_one_of_each_carrier(users, modules, fixed_dice):
    """3.617 British chart V3 "Carrier Pltn I | 3/m | Carrier A;Carrier B;Carrier 2"
    Mtr": Full (DR 5 - 1), one of each carrier."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    v3 = buy(players, "british", "V3")
    fixed_dice[:] = [[2, 3]]
    make_rolls(players, "british", v3)
    names = sorted(name for name, kind, _, n in unit_names(players, "british", kind="vehicle"))
    assert len(names) == 3 and any("Carrier A" in n for n in names), names


def test_3_6175_reserve_is_for_axis_i_and_g_only(users, modules):
    """3.6175: "If an Axis "I" or "G" type RG is purchased for 20% less (FRD)": the Axis
    G5 (5) In Reserve costs 4; the Axis V1 is refused that price, nothing spent."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    buy(players, "axis", "G5", "reserve")
    assert _points(players, "axis") == 96
    with pytest.raises(ActionRefused) as refused:
        buy(players, "axis", "V1", "reserve")
    assert "3.6175" in str(refused.value), str(refused.value)
    assert _points(players, "axis") == 96


def test_axis_m1_cg_iii_two_snipers_one_a_date(users, modules):
    """3.617 Axis chart M1 Sniper: CG Date Max 1: a second on July 14 PM is refused."""
    players, _ = campaign_at("sicily", "iii", "jul14pm", users, points=100)
    buy(players, "axis", "M1")
    with pytest.raises(ActionRefused):
        buy(players, "axis", "M1")
    assert _points(players, "axis") == 98


def test_3_621_a_chit_other_than_attack_or_idle_and_a_second_lock_are_refused(users, modules):
    """3.621: "Each side selects its Initiative for the current CG Date, either to
    "Attack" or stand "Idle""; 3.6212 "secretly places it": a third word is refused in
    words, a second lock is refused, and the British read only that the Axis chose."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, kind="initiative")
    keep_retained_units(players)  # 3.6212*: the British roster lists a unit
    with pytest.raises(ActionRefused) as refused:
        players.chits(axis="defend")
    assert "Attack or Idle" in str(refused.value)
    players.chits(axis="attack")
    with pytest.raises(ActionRefused):
        players.chits(axis="idle")
    shown = [e.public_text if e.secret_side else e.text for e in Event.objects.filter(kind="chit")]
    assert all("attack" not in t.lower() for t in shown), shown


# --------------------------------------------------------------------------- batch 3


def test_british_footnote_i_bombardments_per_scenario_count_the_idle_dates(users, modules):
    """3.617 British chart footnote i: "The maximum number of Bombardments useable per CG
    scenario is equal to the number of new CG Dates since the last CG-Scenario End (e.g.
    if one Idle Date occurred between scenarios, no > two Bombardments may be conducted
    for the current scenario)."  The British sheet reads 1 on July 14 N (the scenario of
    July 14 PM just ended), and 2 on July 15 AM after an Idle July 14 N; the Axis sheet
    says nothing of it."""
    from campaign.seat_views.sheet import scenario_sheet

    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    said = [t for t in scenario_sheet(players.campaign, "british").in_effect if "B1" in t]
    assert said and said[0].startswith("At most 1 Bombardment RG (B1)"), said
    players.until("initiative")
    players.chits(axis="idle", british="idle")
    players.until("purchase")
    said = [t for t in scenario_sheet(players.campaign, "british").in_effect if "B1" in t]
    assert said and said[0].startswith("At most 2 Bombardment RGs (B1)"), said
    assert not [t for t in scenario_sheet(players.campaign, "axis").in_effect if "B1" in t]


def test_3_6176_cg_max_by_cg_axis_i1_two_in_cg_ii(users, modules):
    """3.617 Axis chart I1 "CG Max | 3 | 2 | 0": in CG II the third I1 (on a later date)
    is refused, naming CG II; #R reads 0 after the second."""
    players, _ = campaign_at("sicily", "ii", "jul15am", users, points=200)
    buy(players, "axis", "I1")
    players.until("initiative")
    players.chits(axis="idle", british="idle")
    players.until("purchase")
    Seat.objects.filter(campaign_id=players.campaign_id).update(points=200)
    second = buy(players, "axis", "I1")
    assert _line(players, "axis", second).number_remaining == "0"
    players.until("initiative")
    players.chits(axis="idle", british="idle")
    players.until("purchase")
    with pytest.raises(ActionRefused) as refused:
        buy(players, "axis", "I1")
    assert "CG II" in str(refused.value), str(refused.value)


def test_3_6183_the_cut_airborne_drm_cannot_be_ticked_for_an_italian_rg(users, modules, fixed_dice):
    """3.6183 "-1 Airborne/" (cut; ticked by the player): offered to airborne and
    Fallschirmjäger RGs only.  Ticked for an Axis I7 (Italian Infantry Coy), the roll
    is refused in words, and no roll is made."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    i7 = buy(players, "axis", "I7")
    fixed_dice[:] = [[1, 1], [3, 3]]
    with pytest.raises(ActionRefused):
        make_rolls(players, "axis", i7, ticked={"leader_allotment": ["airborne"]})
    assert not Roll.objects.filter(table_id="leader_allotment").exists()


def test_3_6181_non_airborne_cannot_be_ticked_for_a_british_airborne_rg(users, modules, fixed_dice):
    """3.6181 "-1 | Non-Airborne/" (cut; ticked): never offered to an airborne RG.  The
    British I2 Airborne Pltn bought at its printed cost rolls for strength; ticking it
    is refused, no roll is made."""
    players, _ = campaign_at("sicily", "i", "jul14pm", users, points=100)
    i2 = buy(players, "british", "I2")
    fixed_dice[:] = [[5, 5], [3, 3]]
    with pytest.raises(ActionRefused):
        make_rolls(players, "british", i2, ticked={"rg_strength": ["non_airborne"]})
    assert not Roll.objects.filter(table_id="rg_strength").exists()


def test_3_6182_a_depleted_i_rg_says_its_sw_table_is_missing(users, modules, fixed_dice):
    """3.6182: "Each Full-Strength "I" RG receives all SW/" (the Depleted rule is cut):
    a Depleted Axis I7 receives its 9 squads, and its line says the SW allotment dr's
    table is missing from the rules text, not that it got the Full SW."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    i7 = buy(players, "axis", "I7")
    fixed_dice[:] = [[6, 5], [3, 3]]
    make_rolls(players, "axis", i7)
    assert i7.strength == "depleted"
    assert sum(n for *_, n in unit_names(players, "axis", kind="squad")) == 9
    assert unit_names(players, "axis", kind="sw") == []


def test_3_620_the_left_goes_to_the_next_dates_start(users, modules):
    """3.620: "that side deducts one ... from its current CPP total in the CG Roster's
    "Left" column, and records the new total in the "Start" column of the next CG Date
    ... If a side cannot or opts not to use Recon, its current CPP total is simply
    copied in the "Start" column of that next CG Date."  The Axis keep 20 CPP on July
    15 AM: the Roster's July 15 PM line starts with 20 (+30 base)."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, points=20)
    players.until("initiative")
    players.chits(axis="idle", british="idle")
    players.until("purchase")
    roster = roster_of(players.campaign, "axis")
    line = next(ln for ln in roster.lines if ln.date == "July 15 PM")
    mine = line.sides[0]
    assert (mine.start, mine.repl) == (20, 30), mine


# --------------------------------------------------------------------------- batch 4


def test_3_6179_the_line_records_date_cost_strength_and_units(users, modules, fixed_dice):
    """3.617: "As each RG is selected, record its ID (and the CPP expended to purchase
    it)"; 3.6179 "CG Date: The CG scenario the RG is purchased.", "Str: ... Record "F"
    for a Full, "D" for a Depleted, RG." and "#Units: The number of units received":
    an Axis G5 bought on July 14 N for 5, Depleted (DR 11 - 1 = 10): its line reads July
    14 Night, 5, D and 1 unit."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    g5 = buy(players, "axis", "G5")
    fixed_dice[:] = [[5, 6]]
    make_rolls(players, "axis", g5)
    line = _line(players, "axis", g5)
    assert (line.date, line.cost, line.strength, line.units) == ("July 14 Night", 5, "D", 1)


def test_3_620_the_2_cpp_recon_costs_two_and_its_number_is_on_the_roster(
    users, modules, fixed_dice
):
    """3.620: "that side deducts one (or two, for a beneficial drm on its Recon dr)";
    "The number of Locations that may be reconnoitered (3.6223) per CG Date is recorded
    on the CG Roster in the "Recon" column of the current CG Date line."  The Axis M2 at
    2 CPP: 2 spent; dr 3 + 5 = 8 on the July 14 N line's Recon column; the British
    Roster does not show it."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=10)
    m2 = buy(players, "axis", "M2", "recon_plus5")
    assert _points(players, "axis") == 8
    players.until("recon")
    fixed_dice[:] = [[3]]
    purchases.buy_recon(
        campaign_id=players.campaign_id, user=players.users["axis"], purchase_id=m2.ref
    )
    line = next(
        ln for ln in roster_of(players.campaign, "axis").lines if ln.date == "July 14 Night"
    )
    assert line.sides[0].recon == 8, line
    theirs = next(
        ln for ln in roster_of(players.campaign, "british").lines if ln.date == "July 14 Night"
    )
    assert theirs.sides[0].recon is None, theirs


def test_3_6213b_night_dual_attack_both_attackers(users, modules, fixed_dice):
    """3.6213b: "If both sides choose Attack for a Night CG Date, both are considered
    Scenario Attackers."; 3.6213a "The British player makes a dr": on July 14 Night both
    Attack: a Night Dual Attack, the set-up dr is the British's."""
    from campaign.models import InitiativeOutcome

    players, _ = campaign_at("sicily", "i", "jul14n", users, kind="initiative")
    keep_retained_units(players)  # 3.6212*: the British roster lists a unit
    fixed_dice[:] = [[2]]
    players.chits(axis="attack", british="attack")
    out = InitiativeOutcome.objects.filter(campaign_id=players.campaign_id).latest("pk")
    assert out.label == "Night Dual Attack", out.label
    assert sorted(out.attackers) == ["axis", "british"]
    assert out.sets_up_first == "british"
    setup = Roll.objects.filter(campaign_id=players.campaign_id).latest("pk")
    assert setup.side == "british", setup.side


def test_3_6161_the_cpp_base_of_july_16_night(users, modules):
    """3.6161: "July 16 N | 31 | 18": both sides at 0 reach 3.617 on July 16 Night with
    31 and 18 CPP."""
    players, _ = campaign_at("sicily", "i", "jul16pm", users, kind="initiative", points=0)
    players.chits(axis="idle", british="idle")
    players.until_step("3.617")
    assert (_points(players, "axis"), _points(players, "british")) == (31, 18)


def test_axis_footnote_l_and_k_the_axis_date_windows(users, modules):
    """3.617 Axis chart footnote l: "Only eligible for purchase before July 14N." (I5 on
    July 14 N refused) and footnote k: "Only eligible for purchase after July 14 PM."
    (G1 on July 14 PM refused), each naming its footnote, nothing spent."""
    players, _ = campaign_at("sicily", "i", "jul14pm", users, points=100)
    with pytest.raises(ActionRefused) as refused:
        buy(players, "axis", "G1")
    assert "footnote k" in str(refused.value), str(refused.value)
    players.until("initiative")
    players.chits(axis="idle", british="idle")
    players.until("purchase")
    Seat.objects.filter(campaign_id=players.campaign_id).update(points=100)
    with pytest.raises(ActionRefused) as refused:
        buy(players, "axis", "I5")
    assert "footnote l" in str(refused.value), str(refused.value)
    assert _points(players, "axis") == 100


def test_axis_footnote_f_each_oba_module_comes_with_a_radio(users, modules):
    """3.617 Axis chart footnote f: "Each OBA module comes with a radio.": an Axis O2 Lgt
    Arty brings a radio to the retained forces."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    o2 = buy(players, "axis", "O2")
    players.until("strength")
    with contextlib.suppress(ActionRefused):
        make_rolls(players, "axis", o2)
    names = [n for n, kind, *_ in unit_names(players, "axis") if kind == "sw"]
    assert any("radio" in n.lower() for n in names), names


def test_british_footnote_j_an_observer_only_for_a_module_held(users, modules):
    """3.617 British chart footnote j: "Cost is per module. Each Off board Observer is
    retained as long as the module he is assigned to is retained.": an O4 bought with no
    OBA module held is refused with footnote j, nothing spent."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    with pytest.raises(ActionRefused) as refused:
        buy(players, "british", "O4")
    assert "footnote j" in str(refused.value), str(refused.value)
    assert _points(players, "british") == 100


def test_axis_footnote_m_the_initial_scenarios_coy_purchases_count_for_july_14(users, modules):
    """3.617 Axis chart footnote m: "A total of no more than two coy type RG may be
    purchase on any given CG Date. Further, no more than 4 coy type RGs may be purchased
    on a given calendar day."  CG I: I4 and I10 bought for the Initial Scenario (July
    14 AM), I5 and I7 on July 14 PM: a fifth coy RG on July 14 Night (I7) is refused
    with footnote m, nothing spent; a third on July 14 PM was refused for the date."""
    from tests.walk import host_game, players_of

    a, b = users
    c = host_game("sicily", "i", a, b, side="axis", through_start=False)
    players = players_of(c, a, b)
    players.until_step("I-3.617")
    Seat.objects.filter(campaign=c).update(points=100)
    buy(players, "axis", "I4")
    buy(players, "axis", "I10")
    players.until("results")
    from campaign.selectors import module_of

    module = module_of(c)
    values = {
        f"{f.id}.{s.id}": (False if f.kind == "bool" else 0)
        for f in module.result_fields
        for s in module.sides
    }
    players.results(**values)
    players.until("purchase")
    Seat.objects.filter(campaign=c).update(points=100)
    assert players.campaign.date_index == 1  # July 14 PM
    buy(players, "axis", "I5")
    buy(players, "axis", "I7")
    with pytest.raises(ActionRefused):
        buy(players, "axis", "I7")
    players.until("initiative")
    players.chits(axis="idle", british="idle")
    players.until("purchase")
    Seat.objects.filter(campaign=c).update(points=100)
    with pytest.raises(ActionRefused) as refused:
        buy(players, "axis", "I7")
    words = str(refused.value)
    assert "Axis chart footnote m" in words and "day" in words, words
    assert _points(players, "axis") == 100


def test_british_footnote_i_the_set_up_step_says_how_a_bombardment_is_resolved(
    users, modules, client
):
    """3.617 British chart footnote i: "To resolve each bombardment, after all on-map
    setup is completed he places an AR counter in the Pre-Reg hex and makes a C1.31
    error DR (with the white dr halved; FRU) to determine the bombardment Center Hex
    ... After the Bombardment has been fully resolved, its FFE:C is removed and that
    Bombardment RG is Eliminated. Each Bombardment is fully resolved before conducting
    another".  Refit does not roll it (3.623 has no player action): the 3.622 page, the
    last a player sees before the scenario, says how, and what to mark after."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, kind="initiative")
    keep_retained_units(players)  # 3.6212*: the British roster lists a unit
    players.chits(axis="idle", british="attack")
    players.until_step("3.6223")
    page = _page(client, players, "british")
    for words in ("Pre-Registered hex", "C1.31 error DR", "white dr halved (FRU)", "one at a time"):
        assert words in page, words
    assert "eliminated" in page and "British chart footnote i" in page
