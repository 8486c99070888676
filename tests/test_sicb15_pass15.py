"""Sicily (seed 001), the fifteenth pass of the sentence audit (issue 44): the Left
items of pass 12 (British chart footnote i's Bombardment, 3.6212 footnote * and
British forces not yet entered), then sentences of 3.615 to the end of the RePh, the
RG charts and their footnotes no earlier pass doc quotes, tried through the services
as two players meet them (docs/rules-audit/pass-15-sicb15.md)."""

from __future__ import annotations

import pytest

from campaign.models import Event, Purchase, Roll, Seat
from campaign.services import purchases
from campaign.services.errors import ActionRefused
from tests import test_rule_mechanisms as mechanisms
from tests.purchase_helpers import add_unit, campaign_at, make_rolls, roster_of
from tests.test_rule_mechanisms import buy

users = mechanisms.users
fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


def _points(players, side):
    return Seat.objects.get(campaign_id=players.campaign_id, side=side).points


def _reveal(players, side, purchase):
    purchases.reveal_purchase(
        campaign_id=players.campaign_id, user=players.users[side], purchase_id=purchase.ref
    )


# --------------------------------------------------------------------------- Left: 3.6212 *


def test_3_6212_star_british_units_not_yet_entered_are_not_on_map(users, modules):
    """3.6212 matrix footnote *: "The Attack Chit cannot be selected by the Axis player
    if the British player currently has no on-map Retained units."; 3.6175: "If an Axis
    or British RG is purchased for its printed value it enters play during the course
    of the scenario".  On July 14 N the British hold only the units of an I3 bought that
    date at its printed value, revealed: they have not entered, so the Axis Attack is
    refused with the footnote; Idle is accepted."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    p = buy(players, "british", "I3")
    make_rolls(players, "british", p)
    _reveal(players, "british", p)
    players.until("initiative")
    with pytest.raises(ActionRefused) as refused:
        players.chits(axis="attack")
    said = str(refused.value)
    assert "3.6212" in said and "3.6175" in said, said
    players.chits(axis="idle")


def test_3_6212_star_the_british_read_why_their_units_do_not_count(users, modules, client):
    """3.6212 footnote *, what the British read at 3.621: their only units are of an I3
    bought on July 14 N at its printed value (revealed): the page says the Axis cannot
    choose Attack and that such units have not entered yet (3.6175)."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    p = buy(players, "british", "I3")
    make_rolls(players, "british", p)
    _reveal(players, "british", p)
    players.until("initiative")
    page = _page(client, players, "british")
    assert "list no unit on the map" in page and "3.6175" in page


def test_3_6212_star_a_withdrawn_british_unit_is_not_on_map(users, modules):
    """3.6212 footnote *: a British unit marked withdrawn (off map) is no on-map
    Retained unit: the Axis Attack is refused while it is the only one."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, kind="initiative")
    add_unit(players, "british", "4-5-8", "squad", "withdrawn")
    with pytest.raises(ActionRefused) as refused:
        players.chits(axis="attack")
    assert "3.6212" in str(refused.value)


def test_3_6212_star_a_british_unit_on_the_map_allows_the_axis_attack(users, modules):
    """3.6212 footnote *: the same British roster with one squad in good order beside
    the withdrawn one: the Axis may choose Attack."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, kind="initiative")
    add_unit(players, "british", "4-5-8", "squad", "withdrawn")
    add_unit(players, "british", "4-5-7", "squad")
    players.chits(axis="attack")


# --------------------------------------------------------------------------- Left: footnote i


def _b1(players, where="23G5"):
    return purchases.purchase_rg(
        campaign_id=players.campaign_id,
        user=players.users["british"],
        group_id="B1",
        recorded_hex=where,
    )


def _bombard(players, item="B1", side="british"):
    from campaign.services import steps

    return steps.roll_on_table(
        campaign_id=players.campaign_id,
        user=players.users[side],
        table_id="bombardment",
        item=item,
    )


def _to_setup(players, **chits):
    from tests.purchase_helpers import keep_retained_units

    players.until("initiative")
    keep_retained_units(players)  # 3.6212*: the British roster lists a unit
    players.chits(**(chits or {"axis": "idle", "british": "attack"}))
    # 3.622 set up in order (3.6222); the Bombardment follows all set-up, at 3.6223.
    players.until_step("3.6223")


def _play(players, module):
    """The scenario is played: both walk to its result and enter a blank one."""
    players.until("results")
    sides = [x.id for x in module.sides]
    players.results(
        **{
            f"{f.id}.{s}": (False if f.kind == "bool" else 0)
            for f in module.result_fields
            for s in sides
        }
    )


def test_british_footnote_i_the_error_dr_reads_its_dice_apart(users, modules, fixed_dice):
    """3.617 British chart footnote i: "he places an AR counter in the Pre-Reg hex and makes a
    C1.31 error DR (with the white dr halved; FRU) to determine the bombardment Center
    Hex."  The B1 bought on July 14 N with Pre-Registered hex 23G5; at 3.622, once the
    Axis have set up, the British roll: colored dr 4, white dr 5 -> direction 4, 3 hexes
    (5 halved, FRU) from 23G5."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    _b1(players)
    _to_setup(players)
    players.finish_side("axis")
    fixed_dice[:] = [[4, 5]]
    r = _bombard(players)
    assert "Center Hex 3 hex" in r.result and "direction 4" in r.result, r.result
    logged = [e.text for e in Event.objects.filter(campaign_id=players.campaign_id)]
    assert any("Pre-Registered hex 23G5" in t for t in logged), logged[-3:]


def test_british_footnote_i_after_the_bombardment_the_b1_is_eliminated(users, modules):
    """3.617 British chart footnote i: "After the Bombardment has been fully resolved, its
    FFE:C is removed and that Bombardment RG is Eliminated.": the roll marks the B1
    eliminated by itself on its RG Purchase Record line, and a second roll for it is
    refused."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    p = _b1(players)
    _to_setup(players)
    players.finish_side("axis")
    _bombard(players)
    p.refresh_from_db()
    assert p.state == Purchase.State.ELIMINATED
    with pytest.raises(ActionRefused):
        _bombard(players)


def test_british_footnote_i_only_after_all_on_map_setup(users, modules):
    """3.617 British chart footnote i: "after all on-map setup is completed": while the Axis
    have not finished 3.6223 the Bombardment roll is refused with the footnote."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    _b1(players)
    _to_setup(players)
    with pytest.raises(ActionRefused) as refused:
        _bombard(players)
    assert "footnote i" in str(refused.value), str(refused.value)
    assert not Roll.objects.filter(table_id="bombardment").exists()


def test_british_footnote_i_no_more_bombardments_than_new_cg_dates(users, modules):
    """3.617 British chart footnote i: "The maximum number of Bombardments useable per CG
    scenario is equal to the number of new CG Dates since the last CG-Scenario End".
    A B1 bought on July 14 N is kept through its scenario; a second bought on July 15
    AM: one new CG Date, so the second Bombardment roll is refused with the footnote."""
    players, module = campaign_at("sicily", "i", "jul14n", users, points=100)
    _b1(players)
    _to_setup(players)
    _play(players, module)
    players.until("purchase")
    assert players.step.id == "3.617"
    Seat.objects.filter(campaign_id=players.campaign_id, side="british").update(points=100)
    _b1(players, "24H6")
    _to_setup(players)
    players.finish_side("axis")
    _bombard(players)
    with pytest.raises(ActionRefused) as refused:
        _bombard(players)
    said = str(refused.value)
    assert "footnote i" in said and "1" in said, said
    assert Roll.objects.filter(table_id="bombardment").count() == 1


def test_british_footnote_i_two_after_an_idle_date(users, modules):
    """3.617 British chart footnote i: "(e.g. if one Idle Date occurred between scenarios, no >
    two Bombardments may be conducted for the current scenario)": B1 on July 14 N, both
    Idle, B1 on July 15 AM: both may be rolled for at July 15 AM's 3.622."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    _b1(players)
    players.until("initiative")
    players.chits(axis="idle", british="idle")
    players.until("purchase")
    Seat.objects.filter(campaign_id=players.campaign_id, side="british").update(points=100)
    _b1(players, "24H6")
    _to_setup(players)
    players.finish_side("axis")
    _bombard(players)
    _bombard(players)
    assert Roll.objects.filter(table_id="bombardment").count() == 2


def test_british_footnote_i_the_axis_have_no_bombardment(users, modules):
    """3.617 British chart footnote i is the British chart's: the Axis roll is refused."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    _to_setup(players)
    players.finish_side("british")
    with pytest.raises(ActionRefused):
        _bombard(players, side="axis")


def _page(client, players, side):
    client.force_login(players.users[side])
    return client.get(f"/campaigns/{players.campaign_id}/").content.decode()


def test_british_footnote_i_the_set_up_page_offers_the_roll_after_the_axis(users, modules, client):
    """3.617 British chart footnote i, what the players read at 3.622: the British page
    says the Bombardment error DR waits for the Axis set-up, then offers it for the B1
    held; the Axis page never names the British B1 (a secret RG: reveal policy
    "owner")."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100, policy="owner")
    _b1(players)
    _to_setup(players)
    page = _page(client, players, "british")
    assert "Bombardment error DR" in page and "have not finished 3.6223" in page
    assert "B1 Bombardment" not in _page(client, players, "axis")
    players.finish_side("axis")
    page = _page(client, players, "british")
    assert '<option value="B1 Bombardment"' in page, page[page.find("table-bombardment") :][:2000]
    _bombard(players)
    page = _page(client, players, "british")
    assert "Center Hex" in page
    assert "B1 Bombardment" not in _page(client, players, "axis")


def test_british_footnote_i_the_set_up_page_says_game_turn_1s_lv_hindrance(users, modules, client):
    """3.617 British chart footnote i: "Throughout Game Turn 1 of any CG Date just prior to a
    bombardment has been conducted there is a LV hindrance ... equivalent to heavy rain
    (E3.51)": the 3.6223 page, where the Bombardment is rolled, says so."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    _to_setup(players)
    page = _page(client, players, "british")
    assert "Game Turn 1" in page and "E3.51" in page


# --------------------------------------------------------------------------- Part 2


def _fortify(players, side, item, count=1, tier=0):
    return purchases.buy_fortification(
        campaign_id=players.campaign_id,
        user=players.users[side],
        item_id=item,
        count=count,
        tier=tier,
    )


def test_3_619_d_no_more_than_6_at_mines_in_a_cg(users, modules):
    """3.619 footnote d: "No more than 6 AT mines may be purchased during any CG."  The
    British, an airborne I2 retained (July 14 PM), buy six AT mines; the seventh is
    refused with footnote d, nothing spent."""
    players, _ = campaign_at("sicily", "i", "jul14pm", users, points=100)
    i2 = buy(players, "british", "I2")
    buy(players, "british", "M3")
    make_rolls(players, "british", i2)
    Seat.objects.filter(campaign_id=players.campaign_id, side="british").update(
        fortification_points=60
    )
    players.until("fortify")
    _fortify(players, "british", "at_mines", count=6)
    fpp = Seat.objects.get(campaign_id=players.campaign_id, side="british").fortification_points
    with pytest.raises(ActionRefused) as refused:
        _fortify(players, "british", "at_mines")
    assert "footnote d" in str(refused.value), str(refused.value)
    seat = Seat.objects.get(campaign_id=players.campaign_id, side="british")
    assert seat.fortification_points == fpp


# 3.6161's CPP base of July 16 N (31 / 18, both Idle on July 16 PM): the same path and
# assertion as test_sicb12_pass12.py's test_3_6161_the_cpp_base_of_july_16_night, kept
# there (docs/test-time.md, pass 19).


def test_axis_footnote_k_only_after_july_14_pm(users, modules):
    """3.617 Axis chart footnote k: "Only eligible for purchase after July 14 PM."  The Axis
    G1 RCL Section is refused on July 14 PM with footnote k and bought on July 14 N."""
    players, _ = campaign_at("sicily", "i", "jul14pm", users, points=100)
    with pytest.raises(ActionRefused) as refused:
        buy(players, "axis", "G1")
    assert "footnote k" in str(refused.value), str(refused.value)
    players2, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    buy(players2, "axis", "G1")


def test_axis_footnote_l_only_before_july_14_n(users, modules):
    """3.617 Axis chart footnote l: "Only eligible for purchase before July 14N."  The Axis I4
    Fallschirmjager Signal Coy is refused on July 14 N with footnote l."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    with pytest.raises(ActionRefused) as refused:
        buy(players, "axis", "I4")
    assert "footnote l" in str(refused.value), str(refused.value)
    assert _points(players, "axis") == 100


def test_axis_footnote_n_the_alert_coy_after_all_11_rgs(users, modules):
    """3.617 Axis chart footnote n: "May not be purchased until all 11 RG have been
    purchased."  The Axis I3 Pioneer Alert Coy, first of the CG, is refused with
    footnote n."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    with pytest.raises(ActionRefused) as refused:
        buy(players, "axis", "I3")
    assert "footnote n" in str(refused.value), str(refused.value)


def test_axis_footnote_m_two_coy_rgs_a_cg_date(users, modules):
    """3.617 Axis chart footnote m: "A total of no more than two coy type RG may be purchase on
    any given CG Date."  I1 and I7 on July 14 N; the I10 is refused with footnote m."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    buy(players, "axis", "I1")
    buy(players, "axis", "I7")
    with pytest.raises(ActionRefused) as refused:
        buy(players, "axis", "I10")
    assert "footnote m" in str(refused.value), str(refused.value)


def test_british_g2_airlanding_at_pltn_is_na(users, modules):
    """3.617 British chart G2 Airlanding AT Pltn, "Max NA" and CG Max 0/0/0: the British
    cannot buy it, in words."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    with pytest.raises(ActionRefused) as refused:
        buy(players, "british", "G2")
    said = str(refused.value)
    assert "G2" in said or "Airlanding" in said, said
    assert _points(players, "british") == 100


def test_british_v1_date_max_4_then_refused(users, modules):
    """3.617 British chart V1 Med Tank Troop, CG Date Max 4: four on July 14 N, the fifth is
    refused in words."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    for _ in range(4):
        buy(players, "british", "V1")
    with pytest.raises(ActionRefused) as refused:
        buy(players, "british", "V1")
    assert "V1" in str(refused.value) or "Date" in str(refused.value), str(refused.value)
    assert _points(players, "british") == 100 - 4 * 12


def test_the_axis_cannot_buy_a_british_bombardment(users, modules):
    """3.617: the B1 Bombardment is the British chart's (footnote i): an Axis B1 is refused,
    nothing spent."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    with pytest.raises(ActionRefused):
        purchases.purchase_rg(
            campaign_id=players.campaign_id,
            user=players.users["axis"],
            group_id="B1",
            recorded_hex="23G5",
        )
    assert _points(players, "axis") == 100


def test_3_617_spent_and_left_on_the_roster(users, modules):
    """3.617: "write the total CPP expended in the "Spent" column of the CG Roster for
    the current CG Date; then write the number of CPP remaining, even if zero, in the
    "Left" column": the Axis spend 12 on an I7 on July 14 N; their line reads Spent 12
    and Left its Total less 12; the British roster shows neither."""
    players, _ = campaign_at("sicily", "i", "jul14n", users)
    buy(players, "axis", "I7")
    line = next(
        ln for ln in roster_of(players.campaign, "axis").lines if ln.date == "July 14 Night"
    )
    mine = line.sides[0]
    assert (mine.spent, mine.left) == (12, mine.total - 12), line
    theirs = next(
        ln for ln in roster_of(players.campaign, "british").lines if ln.date == "July 14 Night"
    )
    assert 12 not in [s.spent for s in theirs.sides], theirs


def test_3_6179_number_remaining_is_the_cg_max_less_those_bought(users, modules):
    """3.6179: "#R (Number Remaining): ... derived by subtracting the number in that RG's
    #P column from the number listed in the "Maximum" column": the Axis I7 (CG I max 3)
    bought once: #P 1, #R 2."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    p = buy(players, "axis", "I7")
    line = next(ln for ln in roster_of(players.campaign, "axis").record if ln.id == p.ref)
    assert (line.number_purchased, str(line.number_remaining)) == (1, "2"), line


def test_3_6211_attack_on_consecutive_dates(users, modules):
    """3.6211: "(There is no limit otherwise on selecting Attack Chits on consecutive CG
    Dates.)"  The British Attack on July 14 N and again on July 15 AM."""
    from tests.purchase_helpers import keep_retained_units

    players, module = campaign_at("sicily", "i", "jul14n", users, kind="initiative")
    keep_retained_units(players)
    players.chits(axis="idle", british="attack")
    _play(players, module)
    players.until("initiative")
    players.chits(axis="idle", british="attack")


def test_3_6181_a_strength_dr_owed_is_made_by_itself_at_done(users, modules):
    """3.6181: "For each such RG the player has just purchased ... the player must make
    one Secret DR on the RG Strength Table": the British I3 not rolled for; the British
    press Done at 3.6181 and its strength DR is made (a result that follows by
    itself)."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    p = buy(players, "british", "I3")
    players.until("strength")
    players.finish_side("british")
    p.refresh_from_db()
    assert p.rolled_at is not None
    assert p.strength in ("full", "depleted"), p.strength


def test_3_617_british_m3_date_max_1_and_b1_date_max_1(users, modules):
    """3.617 British chart M3 Fortification and B1 Bombardment, CG Date Max 1 each: the
    second of each on July 14 N is refused, nothing spent."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    buy(players, "british", "M3")
    _b1(players)
    left = _points(players, "british")
    with pytest.raises(ActionRefused):
        buy(players, "british", "M3")
    with pytest.raises(ActionRefused):
        _b1(players, "24H6")
    assert _points(players, "british") == left == 100 - 2 - 3


def test_3_617_british_footnote_p_no_bombardment_before_july_14_n(users, modules):
    """3.617 British chart footnote p: "May only be purchased on or after July 14 N.":
    a B1 on July 14 PM is refused with footnote p."""
    players, _ = campaign_at("sicily", "i", "jul14pm", users, points=100)
    with pytest.raises(ActionRefused) as refused:
        _b1(players)
    assert "footnote p" in str(refused.value), str(refused.value)


def test_3_6175_an_axis_on_map_i_rg_is_not_in_reserve(users, modules):
    """3.6175: "The Axis or British player may purchase "I" type RGs for Standard On-Map
    Setup by spending 20% more (FRU) ... An Axis RG purchased for Standard On-Map Setup
    is not set up in Reserve": the Axis I7 (12) on-map costs 15, and its RG Purchase
    Record line says it is not in Reserve and may set up on the purchase date."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    p = buy(players, "axis", "I7", "on_map")
    assert p.cost == 15
    line = next(ln for ln in roster_of(players.campaign, "axis").record if ln.id == p.ref)
    said = str(line.__dict__)
    assert "not set up in Reserve" in said and "purchase date" in said, said


def test_3_619_no_fortification_without_fpp(users, modules):
    """3.619: "Fortifications, which are obtained by spending FPP, may be purchased on
    each CG Date if the player has the requisite FPP (purchased in 3.617)": the British,
    no M3 bought, are refused a Foxhole in words."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    buy(players, "axis", "M3")  # the step is not skipped for both
    players.until("fortify")
    with pytest.raises(ActionRefused) as refused:
        _fortify(players, "british", "foxhole")
    assert "FPP" in str(refused.value), str(refused.value)


def test_3_6183_british_v_plus_2_and_italian_plus_2_by_themselves(users, modules, fixed_dice):
    """3.6183 DRM: "+2 British "V" RG" and "+2 Italian RG": the British V1 Med Tank
    Troop's leader DR 2 is read 4 (Armor Leader column: 9-1), the Axis I7 Italian
    Infantry Coy's DR 3 is read 5 (Personnel Leader: 9-1), neither ticked."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    v1 = buy(players, "british", "V1")
    i7 = buy(players, "axis", "I7")
    fixed_dice[:] = [[3, 3], [1, 1]]
    make_rolls(players, "british", v1)
    fixed_dice[:] = [[3, 3], [1, 2]]
    make_rolls(players, "axis", i7)
    finals = {
        r.side: (r.final, r.result)
        for r in Roll.objects.filter(campaign_id=players.campaign_id, table_id="leader_allotment")
    }
    assert finals["british"][0] == 4 and "9-1" in finals["british"][1], finals
    assert finals["axis"][0] == 5 and "9-1" in finals["axis"][1], finals
