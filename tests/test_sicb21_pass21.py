"""Sicily (seed 001), the twenty-first pass of the sentence audit (issue 44): 3.615 to
the end, pass 20's Left, the ledger's `map` / `recorded` / `narrative` claims, what
carries to the next date and a new random draw (random.Random(21)), each tried through
the page's own buttons (tests/page_play.py) (docs/rules-audit/pass-21-sicb21.md)."""

from __future__ import annotations

import pytest

from tests import test_rule_mechanisms as mechanisms
from tests.page_play import Seat
from tests.purchase_helpers import campaign_at, keep_retained_units  # noqa: F401
from tests.test_sicb18_pass18 import _press_through, _seats

users = mechanisms.users
fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


def _entries(seat: Seat) -> str:
    """The words of the set-up page's list of the side's RGs (its ``ul.entries``)."""
    from tests.page_play import text_of

    seat.open()
    html = seat.html
    if 'class="entries"' not in html:
        return ""
    return text_of(html.split('class="entries"', 1)[1].split("</ul>", 1)[0])


ENTERS = (
    "printed cost: it enters play during the course of the scenario, per SSR CG4 and CG5 (3.6175)"
)
ON_MAP = (
    "I RG for Standard On-Map Setup (20% more, FRU): May set up on-map in a friendly, "
    "non-Isolated Setup Area in a scenario on the purchase date"
)
RESERVE = (
    "Axis I/G RG in Reserve (20% less, FRD): "
    "The RG must be set up on-map in Reserve (SSR CG6; 3.4; 3.6175)"
)


def _bought_at_set_up(users):
    """CG I, July 17 AM, 40 CPP a side: the Axis buy an I7 at its printed cost, an I10
    for On-map set-up, a G5 at its printed cost (chart footnote g) and a G3 in Reserve;
    the British an I3 at its printed cost, an I1 for On-map set-up and an I5 MG
    Pltn (British chart footnote f); the British lock Attack, the Axis Idle (a British
    Assault, the Axis set up first), at 3.622."""
    players, _ = campaign_at("sicily", "i", "jul17am", users, points=40)
    seats = _seats(players)
    axis, british = seats["axis"], seats["british"]
    axis.open()
    for words in (
        "Buy I7 Italian Infantry Coy for 12 CPP",
        "Buy I10 Italian Blackshirt Coy for 10 CPP, I RG for Standard On-Map Setup (20% more, FRU)",
        "Buy G5 AT Section for 5 CPP",
        "Buy G3 MTR Section for 5 CPP, Axis I/G RG in Reserve (20% less, FRD)",
    ):
        answer = axis.press(words)
        assert answer.status == 200 and not answer.refused, (words, answer.text[:300])
    british.open()
    for words in (
        "Buy I3 Lgt Inf Assault Pltn for 7 CPP",
        "Buy I1 Lgt Inf Rifle Coy for 22 CPP, I RG for Standard On-Map Setup (20% more, FRU)",
        "Buy I5 MG Pltn for 7 CPP",
    ):
        answer = british.press(words)
        assert answer.status == 200 and not answer.refused, (words, answer.text[:300])
    players.until("initiative")
    players.chits(axis="idle", british="attack")
    assert players.step.id == "3.622"
    return players, seats


# ------------------------------------------- Pass 20's Left: "Your RGs" at 3.622


def test_3_6175_the_set_up_page_lists_each_rg_with_what_its_price_obliges(users, modules):
    """3.6175: "If an Axis "I" or "G" type RG is purchased for 20% less (FRD) than its
    printed value the RG must be set up on-map in Reserve ... If an Axis or British RG
    is purchased for its printed value it enters play during the course of the
    scenario ... each RG purchased for Standard On-Map Set Up may be set up on-map in a
    friendly, non-Isolated Setup Area in a scenario played on the same CG Date that it
    is purchased"; chart footnotes g (Axis) / f (British): "Available for on-map setup
    on CG Date of purchase at no extra cost."  At 3.622 Unit Set Up, each side's page
    lists each RG it bought since the last scenario with what its price obliges, in
    the purchase line's words; the opponent's page names none of them."""
    players, seats = _bought_at_set_up(users)
    axis, british = seats["axis"], seats["british"]
    mine = _entries(axis)
    assert f"I7 Italian Infantry Coy: {ENTERS}" in mine, mine
    assert f"I10 Italian Blackshirt Coy: {ON_MAP}" in mine, mine
    assert (
        "G5 AT Section: Available for on-map setup on CG Date of purchase at no extra cost "
        "(3.617 Axis chart footnote g)" in mine
    ), mine
    assert f"G3 MTR Section: {RESERVE}" in mine, mine
    assert "(3.6175) (3.6175)" not in mine and "((" not in mine and " ." not in mine
    theirs = _entries(british)
    assert f"I3 Lgt Inf Assault Pltn: {ENTERS}" in theirs, theirs
    assert f"I1 Lgt Inf Rifle Coy: {ON_MAP}" in theirs, theirs
    assert (
        "I5 MG Pltn: Available for on-map setup on CG Date of purchase at no extra cost "
        "(3.617 British chart footnote f)" in theirs
    ), theirs
    for axis_rg in ("I7 Italian", "I10 Italian", "G5 AT", "G3 MTR"):
        assert axis_rg not in theirs
    for british_rg in ("I3 Lgt", "I5 MG", "I1 Lgt"):
        assert british_rg not in mine


# ------------------------------------- Pass 20's Left: words of the refusal and the roll


def test_3_6175_the_forged_on_map_buy_refusal_cites_its_rule_once(users, modules):
    """3.6175: "A British RG may be purchased for Standard On-Map Setup only if there is
    >= one Set Up Area on the Map."  July 17 PM after a British 3.605 list naming no
    Setup Area: the On-map buy posted anyway is refused with one sentence citing
    3.6175 once (pass 20 saw "...(3.6175)" (3.6175)"), the CPP unchanged, and the chart's
    line says it once too."""
    from tests.page_play import text_of
    from tests.test_sicb18_pass18 import _forge
    from tests.test_sicb20_pass20 import _last_date

    players, seats = _last_date(users, british_areas="")
    british = seats["british"]
    said = british.open()
    line = said.split("I RG for Standard On-Map Setup (20% more, FRU): not offered", 1)[1]
    line = line.split(").", 1)[0]
    assert line.count("3.6175") == 1, line
    forged = _forge(british, "buy", group="I3", variant="on_map")
    words = text_of(forged.html)
    assert forged.refused and words.count("3.6175") == 1, words[:400]
    assert '(3.6175)" (3.6175)' not in words
    assert "You have 40 CPP" in british.open()


@pytest.mark.parametrize(("white", "hexes"), [(1, "1 hex"), (2, "1 hex"), (3, "2 hexes")])
def test_british_fn_i_the_center_hex_counts_hex_or_hexes(white, hexes):
    """British chart footnote i: "makes a C1.31 error DR (with the white dr halved;
    FRU) to determine the bombardment Center Hex": the roll's line reads "1 hex" or
    "2 hexes", never "hex(es)"."""
    from rules import dice
    from rules.loader import MODULE_DIR, load_file

    module = load_file(MODULE_DIR / "sicily.yaml")
    table = next(t for t in module.tables if t.id == "bombardment")
    assert table.apart is not None
    said = dice.read_apart(table.apart, (4, white))
    assert f"Center Hex {hexes} from the Pre-Registered hex in direction 4" in said, said
    assert "hex(es)" not in said


# --------------------------- Part 2A: the chart footnotes a `map` claim left unshown


def _reminders(seat: Seat) -> list[str]:
    """The reminder lines of the seat's step panel."""
    from tests.page_play import text_of

    seat.open()
    return [text_of(p.split("</p>", 1)[0]) for p in seat.html.split('<p class="reminder">')[1:]]


def test_chart_footnotes_f_i_e_h_the_set_up_page_names_each_oba_modules_ammunition(users, modules):
    """3.617 Axis chart footnote f: "O1 may fire HE, JR, and Smoke.  O2, O3, and O4 may
    only fire HE."; footnote i: "Receives a -2 DRM on its Radio Maintenance DR (C1.22)";
    British chart footnote e: "Each Creeping Barrage must have east-west hex grain
    alignment (E12.11-12.2).  All OBA modules may use HE.  In addition, O1 may fire IR,
    O1, O2, and O3 may fire S, and O1 and O3 may fire WP."; footnote h: the -2 DRM.  The
    ledger called them `map` (played in the scenario), but the app holds which modules
    each side has and at which price: at 3.622 Unit Set Up each side's page names its
    own modules with what each may fire; the opponent's modules are not named."""
    players, _ = campaign_at("sicily", "i", "jul17am", users, points=40)
    seats = _seats(players)
    axis, british = seats["axis"], seats["british"]
    axis.open()
    for words in ("Buy O1 Btln Mtr for 7 CPP", "Buy O2 Lgt Arty for 6 CPP"):
        answer = axis.press(words)
        assert answer.status == 200 and not answer.refused, (words, answer.text[:300])
    british.open()
    for words in (
        "Buy O1 Btln Mtr for 11 CPP, OBA module as a Creeping Barrage (50% more, FRU)",
        "Buy O3 Med Arty for 10 CPP",
    ):
        answer = british.press(words)
        assert answer.status == 200 and not answer.refused, (words, answer.text[:300])
    players.until("initiative")
    players.chits(axis="idle", british="attack")
    assert players.step.id == "3.622"
    mine = _reminders(axis)
    assert (
        "O1 may fire HE, IR (printed JR) and Smoke (3.617 Axis chart footnote f): "
        "your O1 Btln Mtr (July 17 AM)." in mine
    ), mine
    assert (
        "O2, O3 and O4 may only fire HE (3.617 Axis chart footnote f): your O2 Lgt Arty "
        "(July 17 AM)." in mine
    ), mine
    assert (
        "Its Radio Maintenance DR receives a -2 DRM (3.617 Axis chart footnote i; C1.22): "
        "your O1 Btln Mtr (July 17 AM)." in mine
    ), mine
    assert not [r for r in mine if "British chart" in r], mine
    theirs = _reminders(british)
    assert (
        "All OBA modules may use HE; in addition O1 may fire IR, Smoke and WP (3.617 "
        "British chart footnote e): your O1 Btln Mtr (July 17 AM)." in theirs
    ), theirs
    assert (
        "All OBA modules may use HE; in addition O3 may fire Smoke and WP (3.617 British "
        "chart footnote e): your O3 Med Arty (July 17 AM)." in theirs
    ), theirs
    assert (
        "Each Creeping Barrage must have east-west hex grain alignment (3.617 British chart "
        "footnote e; E12.11-12.2): your O1 Btln Mtr (July 17 AM)." in theirs
    ), theirs
    assert (
        "Its Radio Maintenance DR receives a -2 DRM (3.617 British chart footnote h; C1.22): "
        "your O1 Btln Mtr (July 17 AM)." in theirs
    ), theirs
    assert not [r for r in theirs if "Axis chart" in r or "O2 " in r], theirs


# ------------------------------------------ Part 2B: what carries to the next date


def _step_part(said: str) -> str:
    return said.split("Notification settings", 1)[1].split("Amend the scenario result")[0]


def test_carry_over_july_17_am_to_pm_bombardment_recon_rg_list_cancel_and_amended_result(
    users, modules, fixed_dice
):
    """Two consecutive CG dates of CG I through both sides' pages, each effect read at
    the later step or date.  3.617: a purchase cancelled (the British M1) refunds its
    CPP and counts toward no limit: on July 17 PM the chart's CG remaining reads 4 of 4.
    3.6175: the 3.622 list names the RGs bought on July 17 AM (not the cancelled one),
    and on July 17 PM, after the scenario they entered, none.  British chart footnote i:
    the B1's error DR (3+1) names "Center Hex 1 hex ..." and Game Turn 1's LV Hindrance
    on both sides' logs; on July 17 PM the B1 reads eliminated in the Axis page's RG
    Purchase Records and its CG remaining 7 of 8 on the British chart.  3.620: "not
    beyond the next CG scenario": the Recon number shown at 3.622 on July 17 AM is
    gone on July 17 PM.  3.6175 "only if there is >= one Set Up Area on the Map": the
    British 3.605 list of July 17 PM naming none takes the British On-map price off
    their page, with its reason (the result asks it no more: pass 26)."""
    players, module = campaign_at("sicily", "i", "jul17am", users, points=40)
    keep_retained_units(players)
    seats = _seats(players)
    axis, british = seats["axis"], seats["british"]
    british.open()
    for words, typed in (
        ("Buy B1 Bombardment for 3 CPP", {"hex": "21C5"}),
        ("Buy M2 Recon for 2 CPP", {}),
        ("Buy I3 Lgt Inf Assault Pltn for 7 CPP", {}),
        ("Buy M1 Sniper for 3 CPP", {}),
    ):
        answer = british.press(words, **typed)
        assert answer.status == 200 and not answer.refused, (words, answer.text[:300])
    assert "You have 25 CPP" in british.text
    cancel = next(b for b in british.buttons() if b.startswith("Cancel") and "M1 Sniper" in b)
    assert british.press(cancel).status == 200
    assert "You have 28 CPP" in british.text
    axis.open()
    for words in (
        "Buy G5 AT Section for 5 CPP",
        "Buy I10 Italian Blackshirt Coy for 10 CPP, I RG for Standard On-Map Setup (20% more, FRU)",
    ):
        answer = axis.press(words)
        assert answer.status == 200 and not answer.refused, (words, answer.text[:300])
    _press_through(seats, "3.617")
    for seat in (british, axis):
        seat.open()
        for button in [b for b in seat.buttons() if b.startswith(("Make its secret", "Record it"))]:
            seat.open()
            assert seat.press(button).status == 200, button
    players.until_step("3.620")
    british.open()
    assert british.press("Recon dr for M2 (+5 drm)").status == 200
    players.until("initiative")
    players.chits(axis="idle", british="attack")
    assert players.step.id == "3.622"
    mine = _entries(british)
    assert "I3 Lgt Inf Assault Pltn: printed cost" in mine and "M1" not in mine, mine
    assert "Recon Locations for your next scenario" in _step_part(british.open())
    theirs = _entries(axis)
    assert "G5 AT Section" in theirs and "I10 Italian Blackshirt Coy" in theirs, theirs
    assert axis.press("Done with 3.622").status == 200
    british.open()
    assert british.press("Done with 3.622").status == 200
    axis.open()
    assert axis.press("Done with 3.6223").status == 200
    british.open()
    fixed_dice.append([3, 1])
    assert british.press("Roll DR: Bombardment error DR").status == 200
    british.open()
    assert british.press("Done with 3.6223").status == 200
    # 3.623 "Players are now ready to begin the CG scenario": the next step is the
    # scenario's result, on both pages
    assert players.step.id == "3.6", players.step.id
    for seat in (british, axis):
        assert "When the July 17 AM scenario is over, enter its outcome." in seat.open()
    for seat in (british, axis):
        said = seat.open()
        assert "DR 3+1 = 4: Center Hex 1 hex from the Pre-Registered hex in direction 3" in said
        assert (
            "throughout Game Turn 1 fire into, through or out of the bombardment area has a "
            "LV Hindrance as heavy rain, E3.51: +1 at ranges ≤ 6 hexes, +2 at ≥ 7" in said
        ), said[-3000:]
        assert "hex(es)" not in said
    values = {
        f"{f.id}.{s.id}": (False if f.kind == "bool" else 0)
        for f in module.result_fields
        for s in module.sides
    }
    players.results(**values)
    # 3.6175 read from the 3.605 lists (pass 26): the British list no Setup Area
    from tests.test_sicsa_pass24 import _listed

    players.until_step("3.605")
    _listed(players, "A", "")
    players.until("purchase")
    said = british.open()
    assert "B1 Bombardment i p Pregame Bombardment 1 / 7 3" in said, said[:4000]
    assert "M1 Sniper SAN Increase +1 1 / 4 3" in said, said[:4000]
    theirs = axis.open()
    assert "B1 Bombardment; Pre-Registered hex 21C5 1 7 eliminated" in theirs, theirs[-5000:]
    # the July 17 AM result no longer holds the answer: nothing to amend for it
    form = british.form_of("Propose the amendment")
    assert not [n for n, _ in form.fields + [(k, "") for k in form.choices] if "setup_area" in n]
    said = british.open()
    assert not [b for b in british.buttons() if "On-Map Setup" in b and b.startswith("Buy")]
    assert "I RG for Standard On-Map Setup (20% more, FRU): not offered" in said, said[:4000]
    assert [b for b in axis.buttons() if "On-Map Setup" in b and b.startswith("Buy")]
    players.until("initiative")
    players.chits(axis="idle", british="attack")
    assert players.step.id == "3.622"
    for seat in (british, axis):
        assert _entries(seat) == ""
        assert "Recon Locations for your next scenario" not in _step_part(seat.open())


def test_british_chart_fn_b_a_british_i_rg_receives_its_sw_and_leader_by_3_6182_3_6183(
    users, modules, fixed_dice
):
    """British chart footnote b: "SW and/" (cut; the Axis chart's footnote b reads "SW
    and Leader types are determined as per 3.6182 and 3.6183, respectively").  The
    ledger called it `map` ("Refit keeps nothing of it"), but the app determines both
    for a British "I" RG: CG I, July 17 AM, the British I3 (footnote b) made Full by its
    secret rolls through the page receives its row's SW (3.6182) and a leader by the
    3.6183 DR, on its line; the Axis page shows neither before the reveal."""
    players, _ = campaign_at("sicily", "i", "jul17am", users, points=40)
    seats = _seats(players)
    axis, british = seats["axis"], seats["british"]
    british.open()
    assert british.press("Buy I3 Lgt Inf Assault Pltn for 7 CPP").status == 200
    _press_through(seats, "3.617")
    british.open()
    button = next(b for b in british.buttons() if b.startswith(("Make its secret", "Record it")))
    fixed_dice.extend([[2, 2], [1, 4]])
    answer = british.press(button)
    assert answer.status == 200, answer.text[:300]
    said = british.open()
    line = said.split("Your RGs", 1)[1][:900]
    assert "I3 Lgt Inf Assault Pltn" in line and "F, 3 units" in line, line
    assert "SW: 1 DC, 2 LMG" in line or "SW: 2 LMG, 1 DC" in line, line
    assert "Leader Allotment: Personnel Leader: 9-1 (DR 1+4 → 5)" in line, line
    theirs = axis.open()
    assert "9-1" not in theirs and "2 LMG" not in theirs


def test_3_6213b_a_night_dual_attack_tells_both_sides_cloaking_and_no_move(users, modules):
    """3.6213b: "If both sides choose Attack for a Night CG Date, both are considered
    Scenario Attackers.  Both sides may use Cloaking as per SSR CG3 (3.4).  Neither side
    is restricted by the use of No Move counters (E1.21) ..."  The ledger called the
    last two `map` (played in the scenario), but the app decides the Night Dual Attack
    from the chits and the date: CG I, July 16 Night, both sides lock Attack through
    the page; both sides' pages say "Night Dual Attack" with the Cloaking and No Move
    sentences at the reveal.  On a day date (July 17 AM) a Dual Attack says neither."""
    players, _ = campaign_at("sicily", "i", "jul16n", users, points=40)
    keep_retained_units(players)
    seats = _seats(players)
    players.until("initiative")
    players.chits(axis="attack", british="attack")
    for seat in seats.values():
        said = seat.open()
        assert "→ Night Dual Attack." in said, said[-3000:]
        assert "Both sides may use Cloaking as per SSR CG3 (3.4)." in said
        assert "Neither side is restricted by the use of No Move counters (E1.21)" in said
    day, _ = campaign_at("sicily", "i", "jul17am", users, points=40)
    keep_retained_units(day)
    day.until("initiative")
    day.chits(axis="attack", british="attack")
    said = Seat(day.users["axis"], day.campaign_id).open()
    assert "→ Dual Attack." in said and "Cloaking" not in said, said[-3000:]


# ----------------------------------- Part 2C: drawn 2, 5, 9, 11, 17, 20 and carry-over


def test_drawn_3_619_fn_d_six_at_mines_a_cg_counted_into_the_next_date_and_the_chart_windows(
    users, modules
):
    """Drawn sentences, CG I through both sides' pages. Axis chart footnote k "Only
    eligible for purchase after July 14 PM": on July 14 PM the Axis I1's row says
    why it is not offered and a forged buy is refused with the footnote, nothing
    changed. 3.619 footnote d "No more than 6 AT mines may be purchased during any
    CG": the British (an I2 Airborne Pltn retained, M3's 20 FPP) buy 6 on July 14
    PM; 3.619 "As Fortifications are selected, the specific type must be recorded in
    the "FORTIFICATIONS" area": the British roster names them, the Axis page does
    not. 3.621: each side's own page offers Lock Attack / Lock Idle. 3.6212 footnote
    2 "No scenario generated for this CG Date; each side repeats RePh steps
    3.612-.6212": both Idle, the next date is July 14 Night (3.612 is the server's),
    both pages at 3.613. There, with a new M3's 20 FPP, the AT mines already bought
    count: one more (pressed, or posted from the earlier page's form) is refused
    with the footnote, the FPP unchanged (a cap per CG carried to the next date).
    Axis chart footnote l "Only eligible for purchase before July 14N": on July 14
    Night the Axis I4's row says why, and a forged buy is refused."""
    from campaign.models import Campaign
    from campaign.models import Seat as SeatRow
    from tests.test_sicb18_pass18 import _forge

    players, _ = campaign_at("sicily", "i", "jul14pm", users, points=80)
    seats = _seats(players)
    axis, british = seats["axis"], seats["british"]
    said = axis.open()
    assert "I1 Fallschirmjäger Pioneer Coy" in said
    assert "not before July 14 Night (3.617 Axis chart footnote k)" in said, said[:3000]
    forged = _forge(axis, "buy", group="I1")
    assert forged.refused and "(3.617 Axis chart footnote k)" in forged.text, forged.text[:300]
    assert SeatRow.objects.get(campaign_id=players.campaign_id, side="axis").points == 80
    british.open()
    for words in ("Buy I2 Airborne Pltn for 7 CPP", "Buy M3 Fortification for 2 CPP"):
        answer = british.press(words)
        assert answer.status == 200 and not answer.refused, (words, answer.text[:300])
    _press_through(seats, "3.617")
    for seat in (british, axis):
        seat.open()
        for button in [b for b in seat.buttons() if b.startswith(("Make its secret", "Record it"))]:
            seat.open()
            assert seat.press(button).status == 200, button
    players.until_step("3.619")
    british.open()
    assert "Buy AT Mines" in british.buttons()
    action = british.form_of("Buy AT Mines").action
    answer = british.press("Buy AT Mines", count="6")
    assert answer.status == 200 and not answer.refused, answer.text[:300]
    roster = Seat(players.users["british"], players.campaign_id, "roster/").open()
    assert "AT Mines" in roster, roster[:4000]
    assert "AT Mines" not in Seat(players.users["axis"], players.campaign_id, "roster/").open()
    players.until("initiative")
    for seat in (axis, british):
        seat.open()
        assert {"Lock Attack", "Lock Idle"} <= set(seat.buttons()), seat.buttons()
    players.chits(axis="idle", british="idle")
    # 3.612 New CG date is the server's: both pages are at 3.613 of July 14 Night
    campaign = Campaign.objects.get(pk=players.campaign_id)
    assert campaign.date_index == 2 and players.step.id == "3.613", players.step.id
    for seat in (axis, british):
        assert "July 14 Night — step" in seat.open() and "3.613 Shift" in _step_part(seat.text)
    players.until("purchase")
    british.open()
    answer = british.press("Buy M3 Fortification for 2 CPP")
    assert answer.status == 200 and not answer.refused, answer.text[:300]
    said = axis.open()
    assert "July 14 Night" in said
    assert "not after July 14 PM (3.617 Axis chart footnote l)" in said, said[:3000]
    forged = _forge(axis, "buy", group="I4")
    assert forged.refused and "(3.617 Axis chart footnote l)" in forged.text, forged.text[:300]
    _press_through(seats, "3.617")
    players.until_step("3.619")
    said = british.open()
    assert "You have 20 FPP" in said
    at = next(v for f in british.forms.forms.values() for n, v in f.fields if n == "at" and v)
    if "Buy AT Mines" in british.buttons():
        over = british.press("Buy AT Mines", count="1")
    else:  # a stale page's form
        from tests.page_play import Answer

        posted = british.client.post(
            action,
            {"at": at, "item": "at_mines", "count": "1", "location": ""},
            HTTP_HX_REQUEST="true",
        )
        over = Answer(posted.status_code, posted.content.decode())
    assert over.refused and "3.619 footnote d" in over.text, over.text[:300]
    assert "You have 20 FPP" in british.open()
