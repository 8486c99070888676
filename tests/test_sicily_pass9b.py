"""Sicily (seed 001), the ninth pass of the sentence audit, part B (issue 44): 3.615
to 3.623 and the RG charts, tried through the services as two players meet them
(docs/rules-audit/pass-9-sicily-b.md)."""

from __future__ import annotations

import pytest
from django.test import Client

from campaign.models import Purchase, Seat
from campaign.services.errors import ActionRefused
from tests import test_rule_mechanisms as mechanisms
from tests.purchase_helpers import campaign_at, roster_of
from tests.test_rule_mechanisms import buy

users = mechanisms.users

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


def _points(players, side):
    return Seat.objects.get(campaign_id=players.campaign_id, side=side).points


def _page(players, side):
    client = Client()
    client.force_login(players.users[side])
    return client.get(f"/campaigns/{players.campaign_id}/").content.decode()


def test_british_footnote_i_b1_records_its_secret_pre_registered_hex_when_bought(users, modules):
    """3.617 British chart footnote i: "When the British player purchases a pre-game
    Bombardment, he records a secret Pre-Registered hex for it."  B1 without a hex is
    refused with the footnote, nothing spent; with one, its line records it, seen by
    the British only; the chart row asks for it beside the price."""
    from campaign.services import purchases

    players, _ = campaign_at("sicily", "i", "jul14n", users)
    assert 'placeholder="Pre-Registered hex"' in _page(players, "british")
    before = _points(players, "british")
    with pytest.raises(ActionRefused) as refused:
        buy(players, "british", "B1")
    words = str(refused.value)
    assert "Pre-Registered hex" in words and "footnote i" in words, words
    assert _points(players, "british") == before
    assert not Purchase.objects.filter(campaign_id=players.campaign_id, group_id="B1").exists()

    def bought_with_hex(group_id, where):
        line = purchases.purchase_rg(
            campaign_id=players.campaign_id,
            user=players.users["british"],
            group_id=group_id,
            recorded_hex=where,
        )
        line.refresh_from_db()
        return line

    b1 = bought_with_hex("B1", "23g5")
    assert b1.recorded_hex == "23G5"
    assert _points(players, "british") == before - 3
    mine = next(ln for ln in roster_of(players.campaign, "british").record if ln.group_id == "B1")
    assert mine.recorded_hex == "Pre-Registered hex 23G5"
    axis = roster_of(players.campaign, "axis").record
    assert all("23G5" not in ln.recorded_hex for ln in axis)
    # Another RG of the same column form is not refused for the hex field it carries.
    m1 = bought_with_hex("M1", "23G5")
    assert m1.recorded_hex == ""


def test_3_617_a_cg_max_of_0_in_the_cgs_column_is_not_available_in_that_cg(users, modules):
    """3.617 (3.6177 CG Max): British M2 Recon prints CG Max 0 for CG III.  In CG III
    it is "not available in CG III", not "0 of 0 bought"; nothing is spent, and the
    chart row gives the same reason."""
    players, _ = campaign_at("sicily", "iii", "jul14pm", users)
    before = _points(players, "british")
    with pytest.raises(ActionRefused) as refused:
        buy(players, "british", "M2")
    words = str(refused.value)
    assert "not available in CG III" in words, words
    assert "3.617" in words
    assert "0 of 0" not in words and "maximum is reached" not in words
    assert _points(players, "british") == before
    assert "not available in CG III" in _page(players, "british")


fixed_dice = mechanisms.fixed_dice

AXIS_K = {"I1", "I2", "I3", "G1", "G2", "G3", "G5", "O1", "O2", "O4"}
BRITISH_P = {"I1", "I3", "I5", "G1", "G3", "V1", "V2", "V3", "V4", "V5", "V6"}
BRITISH_P |= {"O1", "O2", "O3", "O4", "B1"}


def _offers(players, side):
    from tests.test_sicily_pass7b import offers

    return offers(players, side)


def _cites(reasons, words):
    return any(words in r for r in reasons)


def test_3_617_footnotes_k_l_p_every_dated_row_on_july_14_pm_and_july_14_night(users, modules):
    """3.617 Axis chart footnote k ("Only eligible for purchase after July 14 PM": I1,
    I2, I3, G1, G2, G3, G5, O1, O2, O4), footnote l ("before July 14N": I4, I5); British
    footnote p ("on or after July 14 N": I1, I3, I5, G1, G3, V1-V6, O1-O4, B1) and k ("on
    or before July 14PM": F1, I2, I4), every row of each footnote, on the last date
    before and the first date after the line, and the undated rows on both."""
    pm, _ = campaign_at("sicily", "i", "jul14pm", users)
    axis, british = _offers(pm, "axis"), _offers(pm, "british")
    for gid, (_, reasons) in axis.items():
        assert _cites(reasons, "Axis chart footnote k") == (gid in AXIS_K), (gid, reasons)
        assert not _cites(reasons, "footnote l"), (gid, reasons)
    for gid, (_, reasons) in british.items():
        assert _cites(reasons, "British chart footnote p") == (gid in BRITISH_P), (gid, reasons)
        assert not _cites(reasons, "footnote k"), (gid, reasons)
    for gid in ("I4", "I5"):
        assert axis[gid][1] == [], axis[gid]
    for gid in ("F1", "I2", "I4"):
        assert british[gid][1] == [], british[gid]


def test_3_617_footnotes_k_l_p_on_july_14_night(users, modules):
    """The same footnotes on July 14 Night: the Axis k rows and British p rows are on
    sale, the Axis I4, I5 (footnote l) and British F1, I2, I4 (footnote k) refused with
    their footnote; I6 (footnote o) still refused."""
    night, _ = campaign_at("sicily", "i", "jul14n", users)
    axis, british = _offers(night, "axis"), _offers(night, "british")
    for gid, (_, reasons) in axis.items():
        assert not _cites(reasons, "footnote k"), (gid, reasons)
        assert _cites(reasons, "Axis chart footnote l") == (gid in {"I4", "I5"}), (gid, reasons)
    assert _cites(axis["I6"][1], "Axis chart footnote o")
    for gid, (_, reasons) in british.items():
        assert not _cites(reasons, "footnote p"), (gid, reasons)
        assert _cites(reasons, "British chart footnote k") == (gid in {"F1", "I2", "I4"}), (
            gid,
            reasons,
        )


def test_3_6175_price_columns_by_side_type_and_footnotes_f_g(users, modules):
    """3.6175: "If an Axis "I" or "G" type RG is purchased for 20% less (FRD)" (Axis I
    and G only: not Axis V/O/M, not British); "The Axis or British player may purchase
    "I" type RGs for Standard On-Map Setup by spending 20% more (FRU)" (I only), except
    the footnote g (Axis) and f (British) rows, "Available for on-map setup on CG Date of
    purchase at no extra cost": buying one of them on-map is refused in those words."""
    players, _ = campaign_at("sicily", "i", "jul14n", users)
    axis, british = _offers(players, "axis"), _offers(players, "british")
    assert axis["I7"][0] == {"": 12, "reserve": 9, "on_map": 15}
    assert axis["I8"][0] == {"": 6, "reserve": 4}  # footnote g: no on-map surcharge
    assert axis["I9"][0] == {"": 6, "reserve": 4}
    assert axis["I2"][0] == {"": 8, "reserve": 6}
    assert axis["G5"][0] == {"": 5, "reserve": 4}
    assert axis["V1"][0] == {"": 12}
    assert axis["O2"][0] == {"": 6}
    assert axis["M1"][0] == {"": 2}
    assert british["I3"][0] == {"": 7, "on_map": 9}  # no Reserve for the British
    assert british["I5"][0] == {"": 7}  # footnote f
    assert british["G3"][0] == {"": 6}
    assert british["V5"][0] == {"": 4}
    before = _points(players, "british")
    with pytest.raises(ActionRefused) as refused:
        buy(players, "british", "I5", "on_map")
    assert "no extra cost" in str(refused.value) and "3.6175" in str(refused.value)
    with pytest.raises(ActionRefused) as refused:
        buy(players, "british", "I3", "reserve")
    assert "3.6175" in str(refused.value)
    assert _points(players, "british") == before


def test_3_617_axis_footnote_d_each_mg_and_mtr_with_its_hs_full_and_depleted(
    users, modules, fixed_dice
):
    """3.617 Axis chart footnote d: "Each German MG is accompanied by a 2-4-8 HS. Each
    Italian MG and MTR is accompanied by a 1-3-6 HS."  I2 (German MMG;HMG) brings a
    2-4-8 HS per MG, I8 (Italian MMG;HMG) a 1-3-6 HS per MG, I9 (Italian 45mm MTR 3/2) a
    1-3-6 HS per MTR, Depleted too (2 MTR, 2 HS)."""
    from tests.purchase_helpers import make_rolls
    from tests.test_sicily_pass7b import _units

    players, _ = campaign_at("sicily", "i", "jul14n", users)
    i2, i8, i9 = (buy(players, "axis", g) for g in ("I2", "I8", "I9"))
    for line, dice in ((i2, [2, 3]), (i8, [3, 3]), (i9, [5, 6])):
        fixed_dice.append(dice)
        make_rolls(players, "axis", line)
    assert _units(i2) == [
        ("2-4-8 HS (I2)", "half_squad", 4),
        ("HMG (I2 Fallschirmjäger MG Pltn)", "sw", 2),
        ("MMG (I2 Fallschirmjäger MG Pltn)", "sw", 2),
    ]
    assert _units(i8) == [
        ("1-3-6 HS (I8)", "half_squad", 4),
        ("HMG (I8 Italian MG Coy)", "sw", 2),
        ("MMG (I8 Italian MG Coy)", "sw", 2),
    ]
    assert i9.strength == "depleted"
    assert _units(i9) == [
        ("1-3-6 HS (I9)", "half_squad", 2),
        ("45mm MTR (I9 Italian MTR Coy)", "sw", 2),
    ]


def test_3_617_british_footnote_s_a_depleted_rifle_coy_has_one_less_of_each_squad_type(
    users, modules, fixed_dice
):
    """3.617 British chart footnote s: "If depleted 1 less of each squad type is
    received": I1 Lgt Inf Rifle Coy (4-5-8;4-5-7;4-4-7, 4/3 each) Depleted (DR 11) joins
    as 3 of each type; its SW are not all received (3.6182: only a Full-Strength "I" RG
    receives all SW; the Depleted dr's table is cut, which its line says), and its
    Leader DR (6) takes "+1 Depleted RG" (3.6183)."""
    from tests.purchase_helpers import make_rolls
    from tests.test_sicily_pass7b import _rolls, _units

    players, _ = campaign_at("sicily", "i", "jul14n", users)
    i1 = buy(players, "british", "I1")
    fixed_dice.extend([[5, 6], [3, 3]])
    make_rolls(players, "british", i1)
    assert (i1.strength, i1.units) == ("depleted", 9)
    # The Depleted SW dr's table is cut from the rules text: said, not silently none.
    assert any(
        "not rolled: the printed rules leave out this table" in r["result"]
        for r in i1.details["rolls"]
        if r["table"] == "SW allotment for a Depleted RG"
    ), i1.details
    assert _rolls(i1) == [
        ("rg_strength", 11, []),
        ("leader_allotment", 7, [("Depleted RG", 1)]),
    ]
    assert _units(i1) == [
        ("4-4-7 (I1 Lgt Inf Rifle Coy)", "squad", 3),
        ("4-5-7 (I1 Lgt Inf Rifle Coy)", "squad", 3),
        ("4-5-8 (I1 Lgt Inf Rifle Coy)", "squad", 3),
        ("8-1 leader (I1)", "leader", 1),
    ]


def test_3_6183_alert_coy_plus_1_on_the_axis_i5_leader_dr(users, modules, fixed_dice):
    """3.6183 DRM "+1 Alert Coy RG": the Axis I5 Alert Infantry Coy (footnote l: on
    sale on July 14 PM) Full (DR 5): Leader DR 4 + 1 = 5, a 9-1 (row 4-5); no "+2
    Italian" or "-1 German V" on it; 3.6182: its one LMG."""
    from tests.purchase_helpers import make_rolls
    from tests.test_sicily_pass7b import _rolls, _units

    players, _ = campaign_at("sicily", "i", "jul14pm", users)
    i5 = buy(players, "axis", "I5")
    fixed_dice.extend([[2, 3], [2, 2]])
    make_rolls(players, "axis", i5)
    assert _rolls(i5) == [("rg_strength", 5, []), ("leader_allotment", 5, [("Alert Coy RG", 1)])]
    assert _units(i5) == [
        ("4-4-7 (I5 Alert Infantry Coy)", "squad", 12),
        ("9-1 leader (I5)", "leader", 1),
        ("LMG (I5)", "sw", 1),
    ]


def test_3_617_m_rows_date_maxima_grants_and_3_619_unspent_fpp_forfeit(users, modules):
    """3.617 charts: Axis M3 "Fortification | 20 FPP | 1" with CG Date Max 5 (a sixth
    on one date refused), Axis M1 "Sniper | SAN Increase +1 | 2" with Date Max 1,
    British M3 for 2 CPP with Date Max 1; 3.619: "All FPP unspent upon completion of
    this step are forfeit": after the fortification step both sides hold 0 FPP."""
    players, _ = campaign_at("sicily", "i", "jul14n", users)
    seats = {s.side: s for s in Seat.objects.filter(campaign_id=players.campaign_id)}
    for _ in range(5):
        buy(players, "axis", "M3")
    with pytest.raises(ActionRefused, match=r"CG date maximum is reached \(5 of 5"):
        buy(players, "axis", "M3")
    buy(players, "axis", "M1")
    with pytest.raises(ActionRefused, match=r"CG date maximum is reached \(1 of 1"):
        buy(players, "axis", "M1")
    buy(players, "british", "M3")
    with pytest.raises(ActionRefused, match=r"CG date maximum is reached \(1 of 1"):
        buy(players, "british", "M3")
    after = {s.side: s for s in Seat.objects.filter(campaign_id=players.campaign_id)}
    assert after["axis"].points == seats["axis"].points - 5 - 2
    assert after["axis"].fortification_points == 100
    assert (after["axis"].san or 0) == (seats["axis"].san or 0) + 1
    assert after["british"].points == seats["british"].points - 2
    assert after["british"].fortification_points == 20
    players.until_step("3.619")
    players.until("initiative")
    assert sorted(
        Seat.objects.filter(campaign_id=players.campaign_id).values_list(
            "side", "fortification_points"
        )
    ) == [("axis", 0), ("british", 0)]


def test_3_617_cpp_left_carry_to_the_next_dates_start_and_purchases(users, modules):
    """3.617: "Any CPP remaining may be used to purchase further RG in any subsequent
    RePh step"; 3.620: "If a side cannot or opts not to use Recon, its current CPP total
    is simply copied in the 'Start' column of that next CG Date".  July 15 AM: the Axis
    receive 30 (3.6161) and spend 7 (G3): Left 23; July 15 PM starts at 23 and buys
    with 23 + 30."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, points=30)
    buy(players, "axis", "G3")
    players.until("initiative")
    players.chits(axis="idle", british="idle")
    players.until("purchase")
    assert _points(players, "axis") == 23 + 30
    view = roster_of(players.campaign, "axis")
    axis = view.side_names.index("Axis")
    am = next(ln for ln in view.lines if ln.date == "July 15 AM").sides[axis]
    pm = next(ln for ln in view.lines if ln.date == "July 15 PM").sides[axis]
    assert (am.total, am.spent, am.left, am.lost) == (30, 7, 23, None), am
    assert (pm.start, pm.repl, pm.total) == (23, 30, 53), pm


def _idle_to_next_purchase(players):
    players.until("initiative")
    players.chits(axis="idle", british="idle")
    players.until("purchase")


def test_3_617_coy_footnotes_m_and_l_per_calendar_day_and_3_619_b_no_hip_cap_at_night(
    users, modules
):
    """3.617 Axis footnote m and British footnote l: "no more than two coy type RG ... on
    any given CG Date. Further, no more than 4 coy type RGs may be purchased on a given
    calendar day."  July 15 AM and PM: two coy RGs each side (the Axis I1 and I7, then I7
    and I10; the British two I1 each date); July 15 Night, the same calendar day: a fifth
    coy RG refused with the footnote, a non-coy RG (Axis I9, British I3) still sold.  3.619
    footnote b: the HIP cap is for "a daytime Scenario": on July 15 Night the Axis with 11
    squads may put 3 units HIP (by day 2)."""
    from tests.purchase_helpers import add_unit
    from tests.test_sicily_pass7b import _fortify

    players, _ = campaign_at("sicily", "i", "jul15am", users, points=400)
    for gid in ("I1", "I7"):
        buy(players, "axis", gid)
    for _ in range(2):
        buy(players, "british", "I1")
    _idle_to_next_purchase(players)
    for gid in ("I7", "I10"):
        buy(players, "axis", gid)
    for _ in range(2):
        buy(players, "british", "I1")
    _idle_to_next_purchase(players)
    assert players.campaign.date_index == 5  # July 15 Night
    with pytest.raises(ActionRefused) as refused:
        buy(players, "axis", "I1")
    assert "Axis chart footnote m" in str(refused.value), refused.value
    assert "calendar day" in str(refused.value) or "July 15" in str(refused.value)
    with pytest.raises(ActionRefused) as refused:
        buy(players, "british", "I1")
    assert "British chart footnote l" in str(refused.value), refused.value
    buy(players, "axis", "I9")
    buy(players, "british", "I3")
    buy(players, "axis", "M3")
    add_unit(players, "axis", "4-6-8", "squad", number=11)
    players.until("fortify")
    hip = _fortify(players, "axis", "hip", count=3, tier=3)
    assert hip.count == 3


def test_3_623_each_side_announces_its_current_san_to_both(users, modules):
    """3.623: "Each side announces its current SAN."  The Axis SAN 3 is raised to 4 by a
    secret M1 Sniper (3.617 Axis chart: "SAN Increase +1"); the British SAN is 2.  When
    the scenario commences both logs read both SANs, with the rule; before it, the
    British read nothing of the Axis SAN."""
    from campaign.models import Event

    players, _ = campaign_at("sicily", "i", "jul15am", users)
    Seat.objects.filter(campaign_id=players.campaign_id, side="axis").update(san=3)
    Seat.objects.filter(campaign_id=players.campaign_id, side="british").update(san=2)
    buy(players, "axis", "M1")
    players.until("initiative")

    def said(side):
        return [
            e.text
            for e in Event.objects.visible_to(side).filter(campaign_id=players.campaign_id)
            if "announces" in e.text
        ]

    assert said("british") == []
    players.chits(axis="idle", british="attack")
    assert players.step.id == "3.622" and said("british") == []
    players.finish()  # set-up done, in order (3.622)
    players.finish()  # Recon Inspection and Bombardment (3.6223): the scenario commences
    expected = ["Each side announces its current SAN: Axis 4, British 2 (3.623)."]
    assert said("axis") == expected
    assert said("british") == expected
    # 3.623: "If this is an Assault scenario, the side setting up second always moves
    # first" (3.6213d: the Axis set up first in a British Assault).
    revealed = Event.objects.filter(campaign_id=players.campaign_id, kind="initiative").last()
    assert "Axis sets up first. British moves first." in revealed.text


def test_3_616_exc_only_the_british_and_only_on_july_14_pm_of_cg_iii(users, modules):
    """3.616 EXC: "On the July 14 PM date of CG III the British player may fore go all or
    a portion of the allotted CPP."  In CG III the Axis may not forgo; in CG I the
    British may not either; nothing changes."""
    from campaign.services import steps

    # In CG I step 3.616 has nothing to decide and passes by itself: the British try
    # at the purchase step that follows it.
    for variant, side, step in (("iii", "axis", "3.616"), ("i", "british", "3.617")):
        players, _ = campaign_at("sicily", variant, "jul14pm", users, step=step)
        before = sorted(
            Seat.objects.filter(campaign_id=players.campaign_id).values_list("side", "points")
        )
        with pytest.raises(ActionRefused) as refused:
            steps.forgo_points(campaign_id=players.campaign_id, user=players.users[side], amount=1)
        assert refused.value.status in (400, 409), refused.value
        # The Axis passed 3.616 by itself (nothing to decide); the British in CG I are
        # past it: the refusal says where the campaign is.
        assert "3.616" in str(refused.value) or "3.617" in str(refused.value), refused.value
        after = sorted(
            Seat.objects.filter(campaign_id=players.campaign_id).values_list("side", "points")
        )
        assert after == before


def test_3_6179_number_remaining_is_the_cg_max_of_the_cg_played(users, modules):
    """3.6179 #R: "The number of this RG Group Type still available for subsequent
    purchase in the CG ... subtracting the number in that RG's #P column from the number
    listed in the "Maximum" column (for that RG for that CG)": the British M1 Sniper
    bought in CG II (CG Max 4/3/1) reads #P 1, #R 2."""
    players, _ = campaign_at("sicily", "ii", "jul15am", users)
    buy(players, "british", "M1")
    (line,) = [ln for ln in roster_of(players.campaign, "british").record if ln.group_id == "M1"]
    assert (line.number_purchased, line.number_remaining) == (1, "2")
