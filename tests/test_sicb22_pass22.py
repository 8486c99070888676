"""Sicily (seed 001), the twenty-second pass of the sentence audit (issue 44): 3.615 to
the end, each sentence at its edges: a number at its limit and one past it, an
exception and its complement, an action taken back, through the page's own buttons
(tests/page_play.py) (docs/rules-audit/pass-22-sicb22.md)."""

from __future__ import annotations

import pytest

from campaign.models import Seat as SeatRow
from tests import test_rule_mechanisms as mechanisms
from tests.page_play import Seat
from tests.purchase_helpers import add_unit, campaign_at
from tests.test_sicb18_pass18 import _forge, _press_through, _seats
from tests.test_sicb21_pass21 import _step_part

users = mechanisms.users
fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


def _cpp(seat: Seat) -> str:
    said = seat.open()
    return said[said.index("You have") :].split(" and ", 1)[0]


def _buys(seat: Seat, group: str) -> list[str]:
    return [b for b in seat.buttons() if b.startswith(f"Buy {group} ")]


# ------------------------------------------------ A/C: the coy limit and a cancel


def test_axis_fn_m_two_coys_a_date_the_third_refused_and_a_cancel_gives_it_back(users, modules):
    """Axis chart footnote m: "A total of no more than two coy type RG may be purchase on
    any given CG Date."  CG I, July 17 AM (the first date footnote o lets the I6 be
    bought), 200 CPP: the Axis buy I7 and I10 (two coys, the limit): the I6 row then
    says the footnote instead of a price, and an I6 posted anyway is refused with it,
    the CPP unchanged; the non-coy I8 still sells.  The I10 cancelled (3.617): 20 -> 12
    CPP spent, the I6 is offered again at its three prices; the British chart never
    counted the Axis coys."""
    players, _ = campaign_at("sicily", "i", "jul17am", users, points=200)
    seats = _seats(players)
    axis, british = seats["axis"], seats["british"]
    axis.open()
    assert len(_buys(axis, "I6")) == 3, axis.buttons()
    assert axis.press("Buy I7 Italian Infantry Coy for 12 CPP").status == 200
    assert axis.press("Buy I10 Italian Blackshirt Coy for 8 CPP").status == 200
    assert _cpp(axis) == "You have 180 CPP"
    said = axis.text
    row = said[said.index("I6 Fallschirmjäger Coy") :][:200]
    assert "no more than 2 per CG date (July 17 AM) (3.617 Axis chart footnote m)" in row, row
    assert not _buys(axis, "I6") and _buys(axis, "I8"), axis.buttons()
    forged = _forge(axis, "buy", group="I6")
    assert forged.refused, forged.status
    assert "no more than 2 per CG date (July 17 AM) (3.617 Axis chart footnote m)" in forged.text
    assert _cpp(axis) == "You have 180 CPP"
    cancel = next(b for b in axis.buttons() if b.startswith("Cancel") and "I10" in b)
    assert axis.press(cancel).status == 200
    assert _cpp(axis) == "You have 188 CPP"
    assert len(_buys(axis, "I6")) == 3, axis.buttons()
    assert axis.press("Buy I6 Fallschirmjäger Coy for 17 CPP").status == 200
    assert _cpp(axis) == "You have 171 CPP"
    british.open()
    assert "footnote m" not in british.text.split("Chart notes", 1)[0]
    assert "per CG date" not in british.text


# ------------------------------------------- A/B/C: 3.619 footnotes b and f at the limit


def _at_3619(users, date, squads):
    players, _ = campaign_at("sicily", "i", date, users, step="3.619", points=0)
    SeatRow.objects.filter(campaign_id=players.campaign_id).update(fortification_points=80)
    add_unit(players, "axis", "4-6-8", "squad", number=squads)
    axis = _seats(players)["axis"]
    axis.open()
    return players, axis


def _fpp(seat: Seat) -> str:
    said = seat.open()
    return said[said.index("You have") :].split(".", 1)[0].strip()


def test_3_619_fn_f_five_roadblocks_in_one_press_the_sixth_refused_then_taken_back(users, modules):
    """3.619 footnote f: "The Axis can purchase no more than 5 roadblocks during the
    course of any CG."  CG I, July 14 PM, 80 FPP: 6 Roadblocks typed in one press are
    refused with the footnote, nothing bought; 5 in one press are accepted (50 FPP);
    one more is refused, "5 bought so far", the FPP unchanged; the row says the limit
    instead of its Buy.  "Take back my last fortification" returns the 50 FPP and the
    row's Buy, and the Roadblocks can be bought again."""
    _, axis = _at_3619(users, "jul14pm", squads=10)
    six = axis.press("Buy Roadblock", count="6")
    assert six.refused and "no more than 5 per CG (3.619 footnote f)" in six.text, six.text[:300]
    assert _fpp(axis) == "You have 80 FPP"
    assert axis.press("Buy Roadblock", count="5").status == 200
    assert _fpp(axis) == "You have 30 FPP"
    one = axis.press("Buy Roadblock", count="1")
    assert one.refused and "5 bought so far" in one.text, one.text[:300]
    assert "Nothing was changed" in one.text
    assert _fpp(axis) == "You have 30 FPP"
    assert "no more than 5 per CG (3.619 footnote f); 5 bought so far" in axis.text
    back = next(b for b in axis.buttons() if b.startswith("Take back"))
    assert "5 × Roadblock (50 FPP)" in back
    assert axis.press(back).status == 200
    assert _fpp(axis) == "You have 80 FPP"
    assert "5 bought so far" not in axis.text
    assert axis.press("Buy Roadblock", count="1").status == 200
    assert _fpp(axis) == "You have 70 FPP"


@pytest.mark.parametrize(
    ("date", "squads", "allowed"),
    [("jul14pm", 10, 1), ("jul14pm", 11, 2), ("jul14n", 11, None)],
)
def test_3_619_fn_b_hip_ten_percent_fru_of_the_squads_by_day_and_none_at_night(
    users, modules, date, squads, allowed
):
    """3.619 footnote b: "No more than 10% (FRU) of a side's Retained Infantry squads may
    use HIP in a daytime Scenario."  At the FRU edge: 10 retained squads allow 1 HIP
    (two typed at once are refused with the footnote, nothing bought), 11 allow 2 (a
    third refused); on a Night date (July 14 N) the footnote does not apply: no limit
    is shown and three HIP are bought."""
    _, axis = _at_3619(users, date, squads=squads)
    said = axis.text
    if allowed is None:
        assert "HIP (1/10 FRU" not in said, said[:2000]
        for _ in range(3):
            assert axis.press("Buy HIP").status == 200
        assert _fpp(axis) == "You have 65 FPP"
        return
    assert f"≤ {allowed} HIP (1/10 FRU of your squads, 3.619 footnote b)" in said
    over = axis.press("Buy HIP", count=str(allowed + 1))
    assert over.refused, over.status
    assert (
        f"no more than {allowed} HIP (1/10 FRU of {squads} retained squads; 3.619 footnote b)"
        in over.text
    ), over.text[:300]
    assert _fpp(axis) == "You have 80 FPP"
    assert axis.press("Buy HIP", count=str(allowed)).status == 200
    one = axis.press("Buy HIP")
    assert one.refused and f"{allowed} taken so far" in one.text, one.text[:300]


# -------------------------------------------- A: 3.6181 / 3.6183 at their thresholds


def test_3_6181_3_6183_the_strength_and_leader_rolls_at_their_thresholds(
    users, modules, fixed_dice
):
    """3.6181: "≤ 9 Full Strength, ≥ 10 Depleted", DRM -1 for "G" and "V" type RG;
    3.6183 "≥ 12 | 6+1 | -" (no Armor Leader), +1 Depleted RG, -1 German "V" RG, +2
    Italian RG; Axis chart footnotes b, c, d ("Each Italian MG and MTR is accompanied
    by a 1-3-6 HS"), e ("Each Gun is accompanied by a 2-2-8 crew").  CG I, July 17 AM,
    the Axis press each RG's "Make its secret rolls": G5 rolls DR 10, -1 -> 9: Full,
    2 guns with a crew each; V1 rolls 11, -1 -> 10: Depleted, its Armor Leader DR 12
    (+1 -1) gives none; I7 rolls 10 with no DRM: Depleted (9 units), its leader DR 10
    +1 +2 -> 13: a 6+1; I9 rolls 9: Full, 3 MTRs each with a 1-3-6 HS.  The British
    page (the purchases revealed as the step ended, the host's choice) reads none of the
    secret rolls nor what they gave."""
    players, _ = campaign_at("sicily", "i", "jul17am", users, points=100)
    seats = _seats(players)
    axis, british = seats["axis"], seats["british"]
    axis.open()
    for words in (
        "Buy G5 AT Section for 5 CPP",
        "Buy V1 StuG Pltn for 12 CPP",
        "Buy I7 Italian Infantry Coy for 12 CPP",
        "Buy I9 Italian MTR Coy for 6 CPP",
    ):
        assert axis.press(words).status == 200, words
    _press_through(seats, "3.617")
    for group, dice in (
        ("G5", [[5, 5]]),
        ("V1", [[5, 6], [6, 6]]),
        ("I7", [[5, 5], [5, 5]]),
        ("I9", [[4, 5]]),
    ):
        axis.open()
        (button,) = [b for b in axis.buttons() if b.startswith("Make its secret") and group in b]
        fixed_dice.extend(dice)
        assert axis.press(button).status == 200, group
        assert not fixed_dice, (group, fixed_dice)
    said = axis.open()
    assert (
        'G5 AT Section — 5 CPP, July 17 AM · F, 2 units RG Strength: Full Strength (DR 5+5, -1 "G"'
        ' and "V" type RG [EXC: British Airlanding] → 9)' in said
    ), said[:3000]
    assert "V1 StuG Pltn — 12 CPP, July 17 AM · D, 1 unit" in said
    assert "[EXC: British Airlanding] → 10) Leader Allotment: Armor Leader: none (DR 6+6" in said
    assert '-1 German "V" RG → 12)' in said
    assert "I7 Italian Infantry Coy — 12 CPP, July 17 AM · D, 9 units" in said
    assert "RG Strength: Depleted (DR 5+5 → 10)" in said
    assert "Personnel Leader: 6+1 (DR 5+5, +1 Depleted RG, +2 Italian RG → 13)" in said, said[:3000]
    assert "I9 Italian MTR Coy — 6 CPP, July 17 AM · F, 3 units" in said
    assert "RG Strength: Full Strength (DR 4+5 → 9)" in said
    roster = Seat(players.users["axis"], players.campaign_id, "roster/").open()
    assert "2 × 40LL lePaK 41 AT (G5 AT Section)" in roster, roster[:3000]
    assert "2 × 2-2-8 crew (G5)" in roster, roster[:3000]
    assert "3 × 45mm MTR (I9 Italian MTR Coy)" in roster, roster[:3000]
    assert "3 × 1-3-6 HS (I9)" in roster, roster[:3000]
    theirs = british.open()
    for words in ("RG Strength:", "Full Strength (", "Depleted (", "6+1", "1-3-6 HS", "DR 5+5"):
        assert words not in theirs, words


# ------------------------------------- C: 3.6162 at its bound after an amended result


def _amend(proposer: Seat, answerer: Seat, field: str, value: str):
    """``proposer`` proposes ``field`` (e.g. "cvp_lost.british") at ``value`` with a
    reason; returns the answer and whether ``answerer``'s page then offers to accept."""
    proposer.open()
    answer = proposer.press("Propose the amendment", **{field: value, "reason": "miscounted"})
    answerer.open()
    return answer, "Accept the amendment" in answerer.buttons()


@pytest.mark.parametrize(
    ("cvp", "amended", "holds"),
    [
        ((7, 15), "14", False),  # 15 vs 7 gave the dr; 14 vs 7 would not call for it
        ((7, 14), "15", False),  # 14 vs 7 gave none; 15 vs 7 would call for a dr
        ((7, 15), "16", True),  # still >= 2x and >= 8 more: the dr stands, 69 CPP
    ],
)
def test_3_6162_an_amended_cvp_across_the_loss_point_bound_is_refused_where_proposed(
    users, modules, fixed_dice, cvp, amended, holds
):
    """3.6162: "If the CVP lost by a player for the prior CG scenario (only) are >= two
    times, and >= 8 more than, the CVP lost by the other Player, that player may make a
    dr and add this value to the CPP Base Number".  CG II, July 15 PM (British base 65),
    at 3.617 after the replenishment: the Axis propose the British CVP lost amended.
    Across the bound (15 -> 14 with the dr made, 14 -> 15 without one) the dice stand,
    so the figures cannot be taken: the proposal is refused where the Axis clicked, with
    a sentence citing 3.6162, nothing proposed (before, it was recorded and only the
    British "Accept" was refused, a 409 the proposer never read); the British keep their
    CPP.  Within the bound (15 -> 16) it is proposed, accepted, and the CPP stay 69."""
    from tests.test_sicb19_pass19 import _after_result

    fixed_dice[:] = [[4]]
    players = _after_result(users, "ii", "jul15pm", cvp)
    seats = _seats(players)
    axis, british = seats["axis"], seats["british"]
    before = _cpp(british)
    assert before == ("You have 69 CPP" if cvp[1] == 15 else "You have 65 CPP"), before
    answer, offered = _amend(axis, british, "cvp_lost.british", amended)
    if not holds:
        assert answer.refused, answer.status
        assert "3.6162" in answer.text and "dice" in answer.text, answer.text[:400]
        assert "Nothing was changed" in answer.text
        assert not offered
        assert _cpp(british) == before
        return
    assert answer.status == 200 and offered, answer.text[:300]
    assert british.press("Accept the amendment").status == 200
    assert _cpp(british) == "You have 69 CPP"


# ------------------------------------- E: the On-map price's words, each side its own

AXIS_ON_MAP = (
    "May set up on-map in a friendly, non-Isolated Setup Area in a scenario on the purchase "
    "date. It is not set up in Reserve and, if it can use an Eligible Entry Area, may instead "
    "be Retained in that Entry Area's Holding Box to enter as a reinforcement (SSR CG4; 3.4"
)
BRITISH_ON_MAP = (
    "May set up on-map in a friendly, non-Isolated Setup Area in a scenario on the purchase "
    "date. Bought only if there is ≥ one British Setup Area on the map"
)


def test_3_6175_the_on_map_price_says_to_each_side_only_its_own_case(users, modules):
    """3.6175: "An Axis RG purchased for Standard On-Map Setup is not set up in Reserve -
    and, if it can use an Eligible Entry Area, may instead be Retained in that Entry
    Area's Holding Box to enter as a reinforcement (see SSR CG4; 3.4). A British RG may
    be purchased for Standard On-Map Setup only if there is >= one Set Up Area on the
    Map."  The price's words named both sides' cases on either side's page (pass 21's
    Left); now, on CG I July 17 AM, the Axis chart's price legend, its RG Purchase Record
    line and its 3.622 list say the Axis case only, the British ones the British case
    only."""
    from tests.test_sicb21_pass21 import _bought_at_set_up, _entries

    players, seats = _bought_at_set_up(users)
    axis, british = seats["axis"], seats["british"]
    mine, theirs = _entries(axis), _entries(british)
    assert (
        f"I10 Italian Blackshirt Coy: I RG for Standard On-Map Setup (20% more, FRU): {AXIS_ON_MAP}"
        in mine
    ), mine
    assert "British Setup Area" not in mine, mine
    assert (
        f"I1 Lgt Inf Rifle Coy: I RG for Standard On-Map Setup (20% more, FRU): {BRITISH_ON_MAP}"
        in theirs
    ), theirs
    assert "Holding Box" not in theirs and "Reserve" not in theirs, theirs
    # Each RG Purchase Record line (both sides' lines revealed at the step's end, the
    # host's choice) says its own side's case.
    for seat in (axis, british):
        said = seat.open()
        records = said[said.rindex("RG Purchase Records Side") :]
        for line_of, own, other in (
            ("Axis July 17 AM I10 ", AXIS_ON_MAP, "British Setup Area"),
            ("British July 17 AM I1 ", BRITISH_ON_MAP, "Holding Box"),
        ):
            line = records[records.index(line_of) :].split(" in the OB", 1)[0]
            assert own in line and other not in line, line
    players2, _ = campaign_at("sicily", "i", "jul17am", users, points=40)
    for side, own, other in (
        ("axis", AXIS_ON_MAP, "British Setup Area"),
        ("british", BRITISH_ON_MAP, "Holding Box"),
    ):
        said = _seats(players2)[side].open()
        legend = said[said.index("What the price columns mean") :].split("Chart notes", 1)[0]
        assert f"On-map +20%: I RG for Standard On-Map Setup (20% more, FRU) — {own}" in legend, (
            legend
        )
        assert other not in legend, legend


# ------------------------------------------------- E: the test helper's roster rows


def test_3_617_the_roster_row_of_a_campaign_put_at_a_date_adds_up(users, modules):
    """3.617: "write the total CPP expended in the "Spent" column ... then write the
    number of CPP remaining, even if zero, in the "Left" column".  The test helper that
    puts a campaign at a date with given points (``campaign_at(points=40)``) left the
    date's row reading Start 0 + Repl 12 = 12 while the Axis held 40, so a 15 CPP buy
    read "Left -3" (pass 21's walk).  Now on CG I July 17 AM the Axis row reads 28 + 12
    = 40, and after I7 (12) and G3 (7): Spent 19, Left 21, as the page's CPP."""
    players, _ = campaign_at("sicily", "i", "jul17am", users, points=40)
    axis = _seats(players)["axis"]
    axis.open()
    assert axis.press("Buy I7 Italian Infantry Coy for 12 CPP").status == 200
    assert axis.press("Buy G3 MTR Section for 7 CPP").status == 200
    assert _cpp(axis) == "You have 21 CPP"
    roster = Seat(players.users["axis"], players.campaign_id, "roster/").open()
    assert "July 17 AM — 28 12 40 19 21 I7 (12), G3 (7)" in roster, roster[:3000]


# ------------------------------------------------------------ D: drawn sentences


def test_drawn_axis_fn_m_four_coys_a_calendar_day_and_the_next_day_sells_again(users, modules):
    """Axis chart footnote m (drawn, seed line 258): "Further, no more than 4 coy type
    RGs may be purchased on a given calendar day."  The Axis side (pass 19 played the
    British footnote l): CG I, an I1 and an I7 bought through the page on July 16 AM and
    again on July 16 PM (both sides Idle between): on July 16 Night the I1 and I7 rows
    read the calendar-day limit instead of a price (4 of 4 coys of July 16), a buy
    posted is refused with it, nothing bought, and the non-coy I8 still sells; both
    Idle again, on July 17 AM (the next calendar day) the I1 sells again."""
    from campaign.models import Purchase

    players, _ = campaign_at("sicily", "i", "jul16am", users, points=100)
    axis = _seats(players)["axis"]
    for date in ("jul16am", "jul16pm"):
        SeatRow.objects.filter(campaign_id=players.campaign_id).update(points=100)
        axis.open()
        for words in (
            "Buy I1 Fallschirmjäger Pioneer Coy for 21 CPP",
            "Buy I7 Italian Infantry Coy for 12 CPP",
        ):
            assert axis.press(words).status == 200, (date, words)
        players.until("initiative")
        players.chits(axis="idle", british="idle")
        players.until("purchase")
    said = axis.open()
    day = "no more than 4 per calendar day (July 16) (3.617 Axis chart footnote m)"
    for row in ("I1 Fallschirmjäger Pioneer Coy", "I7 Italian Infantry Coy"):
        assert day in said[said.index(row) :][:400], said[said.index(row) :][:400]
    assert not _buys(axis, "I1") and not _buys(axis, "I7") and _buys(axis, "I8")
    forged = _forge(axis, "buy", group="I1")
    assert forged.refused and "footnote m" in forged.text and "Nothing was changed" in forged.text
    bought = Purchase.objects.filter(campaign_id=players.campaign_id, side="axis")
    assert bought.count() == 4
    players.until("initiative")
    players.chits(axis="idle", british="idle")
    players.until("purchase")
    axis.open()
    assert "July 17 AM" in axis.text and _buys(axis, "I1"), axis.buttons()


def test_drawn_british_fn_c_exc_a_paradrop_rg_rolls_no_strength_its_twin_does(
    users, modules, fixed_dice
):
    """British chart footnote c (drawn, seed line 292): "Each of these unit types are
    subject to depletion (See 3.6181) [EXC: RG entering play via paradrop are not subject
    to depletion]."  CG I, July 14 PM: the British buy one I2 Airborne Pltn at the
    paradrop price and one at its printed cost.  At 3.618 the paradrop I2's rolls make
    no RG Strength DR (Full: 4 units) even with 12s waiting, its leader DR takes them;
    the printed-cost I2 rolls its Strength DR (2: Full)."""
    players, _ = campaign_at("sicily", "i", "jul14pm", users, points=60)
    seats = _seats(players)
    british = seats["british"]
    british.open()
    paradrop = "Airborne RG entering by paradrop (not subject to depletion)"
    assert british.press(f"Buy I2 Airborne Pltn for 7 CPP, {paradrop}").status == 200
    assert british.press("Buy I2 Airborne Pltn for 7 CPP").status == 200
    _press_through(seats, "3.617")
    for n, dice in ((1, [[6, 6]]), (2, [[1, 1], [1, 1]])):
        british.open()
        fixed_dice.extend(dice)
        assert (
            british.press(f"Make its secret rolls: RG {n} of the list, I2 Airborne Pltn").status
            == 200
        )
        assert not fixed_dice, n
    said = british.open()
    first = said[said.index("I2 Airborne Pltn — 7 CPP") :].split("I2 Airborne Pltn — 7 CPP", 2)
    assert "F, 4 units · SW: " in first[1] and f" · {paradrop} Leader Allotment" in first[1]
    assert all(sw in first[1] for sw in ("1 DC", "1 FT", "1 LMG")), first[1]
    assert "RG Strength:" not in first[1], first[1]
    assert "RG Strength: Full Strength (DR 1+1 → 2)" in first[2], first[2][:400]


def test_drawn_3_6179_the_initial_scenario_obs_rgs_count_toward_no_limit(users, modules):
    """3.6179 (drawn, seed line 204): "If preparing for a CG Initial Scenario, one line
    is also filled out for each RG given in the Initial Scenario OB (but these latter do
    not apply towards RG purchase limits; 3.6176-.6177)."  CG I's start, the OB giving
    the British an I2 and the Axis an I5: at I-3.617 the British chart still offers 2 of
    2 I2 (CG I's max) and the Axis chart 2 of 2 I5, each at its prices."""
    from tests.purchase_helpers import with_sicily_ob

    c, players = with_sicily_ob(users, {"rgs.axis": "I5", "rgs.british": "I2"})
    players.until("purchase")
    assert players.step.id == "I-3.617"
    SeatRow.objects.filter(campaign_id=c.pk).update(points=60)
    for side, row, group in (
        ("british", "I2 Airborne Pltn b c k 4/3 6-4-8 2 / 2 7", "I2"),
        ("axis", "I5 Alert Infantry Coy b c l m 12/9 4-4-7 2 / 2 14", "I5"),
    ):
        seat = Seat(players.users[side], c.pk)
        said = seat.open()
        assert row in said, said[said.index(row.split(" b ")[0]) :][:300]
        assert _buys(seat, group), seat.buttons()


def test_3_6223_the_page_says_the_recon_number_and_the_six_hex_limit(users, modules):
    """3.6223: "each side may declare the Location(s) they wish to reconnoiter (3.620)
    ... Each reconned Location must be within six hexes of a friendly Setup/..."  The
    app holds no map, so the Locations stay the players' (pass 21's Left): at 3.6223 the
    page of a side holding a Recon number says it and the six-hex limit in ASL words;
    its opponent's page names no number of its."""
    from tests.test_sicb20_pass20 import _at_set_up

    players, seats = _at_set_up(users, recon=True)
    for side in ("axis", "british"):  # the Axis set up first (a British Assault)
        seats[side].open()
        assert seats[side].press("Done with 3.622").status == 200, side
    assert players.step.id == "3.6223", players.step.id
    mine, theirs = (_step_part(seats[side].open()) for side in ("british", "axis"))
    limit = (
        "up to its Recon number (3.620), each within six hexes of a friendly Setup Area (3.6223)"
    )
    assert limit in mine and limit in theirs, mine
    number = "Recon Locations for your next scenario, adding up over Idle dates: "
    assert number in mine, mine
    assert mine.split(number, 1)[1].split(" ", 1)[0].isdigit(), mine
    assert "Recon Locations for your next scenario" not in theirs, theirs
