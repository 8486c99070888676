"""Purple Heart Draw, nineteenth pass, second half (issue 44): pass 18's Left items of
C5.25-C5.41 (C5.32's set-up prices pressed one by one, C5.35 with DSP held, C5.39's
set-up order), then sentences of C5.25-C5.41, the RG chart notes and C2-C3 drawn at
random (``random.Random(19)``) and tried in play through each side's page
(tests/page_play.py), on paths the named tests use little: the US buying before the
last TM Scenario (1930 hrs), a DSP RG, an Attack after two Lulls
(docs/rules-audit/pass-19-phdb19.md)."""

from __future__ import annotations

import re

import pytest

from campaign.models import Purchase, Roll
from campaign.models import Seat as SeatRow
from tests.page_play import Answer, Seat
from tests.test_phdb17_pass17 import plain
from tests.test_phdb18_pass18 import seats, step_part
from tests.test_rule_mechanisms import fixed_dice, users

pytestmark = [pytest.mark.django_db, pytest.mark.rules]
__all__ = ["fixed_dice", "users"]

SHERMANS = {
    "id": "A1",
    "type": "Sherman Pl",
    "units": "M4A1",
    "unit_kind": "vehicle",
    "full": "2",
    "cost": "6",
    "cost-onmap": "8",
    "cost-reserve": "5",
    "cost-reinforcement": "4",
}
RIFLES = {"id": "I2", "type": "Rifle Pl", "units": "6-6-6", "unit_kind": "squad", "cost": "3"}
STORES = {"id": "D1", "type": "Defensive Stores", "units": "DSP", "cost": "2", "grants": "10"}
GRENS = {"id": "I1", "type": "Gren Pl", "units": "4-6-7", "unit_kind": "squad", "cost": "4"}


def us_attacks_last(users, step_id):
    """The ConPh before the last TM Scenario (1930 hrs) after Lulls at 0930 and 1230 hrs
    and a US Attack at 1530 hrs (the German lost 14 CVP); the US chart supplied with a
    Sherman Pl priced for each set-up (8 On-Map, 5 In Reserve, 4 as Reinforcements), a
    Rifle Pl at its printed 3 and Defensive Stores giving 10 DSP for 2 TP; the German's
    with a Gren Pl.  Walked to ``step_id``."""
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import module_of, result_values, supply_chart

    players, _ = phd_after(users, "C5.37")
    for _ in range(2):
        players.chits(us="idle", german="idle")
        players.until_step("C5.37")
    players.chits(us="attack", german="idle")
    players.until("results")
    players.results(**result_values(module_of(players.campaign), cvp_lost_german=14))
    supply_chart(players, "us", [SHERMANS, RIFLES, STORES])
    supply_chart(players, "german", [GRENS])
    players.until_step(step_id)
    return players


def points(seat: Seat) -> tuple[int, int]:
    found = re.search(r"You have (\d+) TP and (\d+) DSP", seat.text)
    assert found, seat.text[:600]
    return int(found.group(1)), int(found.group(2))


def form_with(seat: Seat, name: str, value: str):
    """The form of ``seat``'s page carrying the field ``name`` = ``value`` (a line's
    form among several whose buttons read alike: "Save")."""
    found = [f for f in seat.forms.forms.values() if (name, value) in f.fields]
    assert len(found) == 1, (name, value, len(found))
    return found[0]


def post(seat: Seat, form, **typed: str) -> Answer:
    """Post ``form`` as its button does, with ``typed`` chosen in it (page_play's press
    finds a button by its words; a line's "Save" repeats)."""
    data: dict[str, list[str]] = {}
    for name, value in form.fields:
        data.setdefault(name, []).append(value)
    data.update({name: [value] for name, value in typed.items()})
    answer = seat.client.post(form.action, data, HTTP_HX_REQUEST="true")
    result = Answer(answer.status_code, answer.content.decode())
    seat.open()
    return result


def dsp(seat: Seat) -> int:
    found = re.search(r"You have (\d+) DSP", seat.text)
    assert found, seat.text[:600]
    return int(found.group(1))


def your_rgs(seat: Seat) -> str:
    found = re.search(r"Your RGs.*", step_part(seat))
    assert found, step_part(seat)[:600]
    return found.group(0)


# --------------------------------------------------------------------------- Part 1


def test_c5_32_each_set_up_price_pressed_and_named_on_your_rgs_before_the_last_scenario(
    users, modules
):
    """C5.32 "Any reinforcement group may be requisitioned for On-Map set up; In Reserve
    set up; or enter as Reinforcements ... A Requisitioned RG has its TP cost increased
    or decreased by the following cumulative totals" and its row "Set up <2 hexes from
    enemy FEBA" (+1), each price pressed on the US page before the 1930 hrs TM Scenario
    (pass 18 pressed On-Map only): the Shermans at 9 (the chart's On-Map 8, +1 within 2
    hexes), Rifle Pls In Reserve and as Reinforcements at 3, the DSP at 2: the TP fall
    by each price.  C5.31 "at the player's choice (see C5.32)": the player's list of
    his RGs names the set-up each was bought for (two Rifle Pls, one In Reserve, one as
    Reinforcements, read alike before; C5.31a's On-Map set up named so too).  The
    German page shows none of it.  Drawn with
    it: C5.29's +1 for the US's Attack chit at 1530 hrs read on its page, not the
    German's; C2.0 "Friendly Map Edge (FME): The north map edge is the US player's ...
    and the south map edge is the German player's" said where each buys Reinforcements."""
    players = us_attacks_last(users, "C5.31")
    page = seats(players)
    us, de = page["us"], page["german"]
    # C5.29 "+1 If the friendly side selected Attack Chit in the previous scenario"
    # (drawn): the US's DR read on its page, its TP kept from the German's (C5.29).
    attack = r"C5\.29 American TP: carried over \d+ · DR \d\+\d, \+1 if the friendly side selected "
    assert re.search(attack + "the Attack chit in the previous scenario", us.text), us.text[-2000:]
    assert "C5.29 American received its TP (secret)" in de.text
    assert "American TP: carried over" not in de.text
    # C2.0 FME (drawn), I4: the edge each side's Reinforcements enter along, where he buys
    edges = "the north edge for the US, the south edge for the German (C2.0, I4)"
    assert f"Enters along the Friendly Map Edge: {edges}" in us.text
    assert f"Enters along the Friendly Map Edge: {edges}" in de.text
    tp, dsp = points(us)
    for words, price in (
        ("Buy A1 Sherman Pl for 9 TP, On-Map set up within 2 hexes of the enemy FEBA", 9),
        ("Buy I2 Rifle Pl for 3 TP, In Reserve", 3),
        ("Buy I2 Rifle Pl for 3 TP, Enters as Reinforcements", 3),
        ("Buy D1 Defensive Stores for 2 TP", 2),
    ):
        answer = us.press(words)
        assert answer.status == 200, (words, answer.text[:300])
        tp -= price
        assert points(us)[0] == tp, (words, us.text[:400])
    assert points(us)[1] == dsp + 10
    mine = your_rgs(us)
    near = "On-Map set up within 2 hexes of the enemy FEBA (+1 TP)"
    assert f"A1 Sherman Pl — 9 TP, 1930 hrs · {near}" in mine, mine
    assert "I2 Rifle Pl — 3 TP, 1930 hrs · In Reserve" in mine, mine
    assert "I2 Rifle Pl — 3 TP, 1930 hrs · Enters as Reinforcements" in mine, mine
    assert "D1 Defensive Stores — 2 TP, 1930 hrs Cancel" in mine, mine
    plain(mine)
    de.open()
    assert "Sherman" not in de.text and "Rifle Pl" not in de.text


def test_c5_35_with_dsp_held_then_c5_36_and_c5_39_played_through_both_pages(
    users, modules, fixed_dice
):
    """C5.35 with DSP held (pass 18 walked it with none): "the player first expends TP to
    requisition DSP.  The DSP are then used to requisition fortifications from the table
    below.  Any unspent DSP are lost."  The US, holding the 10 DSP of its Defensive
    Stores before the 1930 hrs TM Scenario, buys a 3-squad Foxhole (3 DSP); a HIP squad
    is refused in words citing note 3 (no squad-equivalent held: a cap of 0) and nothing
    is spent; the German-only Booby Traps (note G) are not offered him; the German page
    shows 0 DSP of his own and none of the US's; the US's Done leaves him 0 DSP.
    C5.36 "The number of locations that may be reconnoitred is recorded on the TM
    Roster in the Recce column": the US's Recon dr of 4 reads 4 on his roster line and
    stays hidden on the German's.  C5.39 "The order of set up for requisitioned units is
    determined as per C5.37": after a US Attack and a German Idle for 1930 hrs both
    pages say the German sets up first."""
    players = us_attacks_last(users, "C5.31")
    page = seats(players)
    us, de = page["us"], page["german"]
    assert us.press("Buy D1 Defensive Stores for 2 TP").status == 200
    for seat in (us, de):
        assert seat.press("Done with C5.31").status == 200
    players.until_step("C5.35")
    us.open()
    de.open()
    assert dsp(us) == 10 and dsp(de) == 0
    assert not [b for b in de.buttons() if b.startswith("Buy")], de.buttons()
    assert "Buy Booby Traps" not in us.buttons()
    squad = [v for v, words in us.options("Buy HIP", "tier") if words.startswith("Squad")]
    assert squad, us.form_of("Buy HIP")
    hip = us.press("Buy HIP", tier=squad[0], where="K5")
    assert hip.refused and "C5.35 note 3" in hip.text, (hip.status, hip.text[:400])
    plain(hip.text)
    assert dsp(us) == 10
    three = [v for v, words in us.options("Buy Foxhole", "tier") if words.startswith("3-squad")]
    assert us.press("Buy Foxhole", tier=three[0], where="K5").status == 200
    assert dsp(us) == 7
    de.open()
    assert "K5" not in de.text
    assert us.press("Done with C5.35").status == 200
    c = players.campaign
    assert SeatRow.objects.get(campaign=c, side="us").fortification_points == 0
    players.until_step("C5.36")
    us.open()
    fixed_dice.append([4])
    assert us.press("Recon for 1 TP").status == 200
    assert "Recon dr: 4 Locations" in us.text, step_part(us)
    de.open()
    assert "4 Locations" not in de.text
    for seat in (us, de):
        assert seat.press("Done with C5.36").status == 200
    us_roster = Seat(players.users["us"], c.pk, "roster/")
    line = re.search(r"1930 hrs EC Moderate; Clear; no wind (.*?) RG Purchase", us_roster.open())
    assert line and " 4 " in f" {line.group(1)} ", line
    de_roster = Seat(players.users["german"], c.pk, "roster/")
    theirs = re.search(r"1930 hrs EC Moderate; Clear; no wind (.*?) RG Purchase", de_roster.open())
    assert theirs and " 4 " not in f" {theirs.group(1)} ", theirs
    players.until_step("C5.37")
    us.open()
    de.open()
    assert us.press("Lock Attack").status == 200
    assert de.press("Lock Idle").status == 200
    players.until_step("C5.39")
    order = (
        "Initiative for 1930 hrs: American Attack, German Idle → US Attack; German sets up first"
    )
    for seat in (us, de):
        seat.open()
        assert order in seat.text, seat.text[:800]


# --------------------------------------------------------------------------- Part 2

ROLL_C5_28 = "Roll dr: Fortification Clearance Table"


def test_c5_28_a_p_mines_not_cleared_bar_another_fortification_of_their_location(
    users, modules, fixed_dice
):
    """C5.28 "Consequently, all A-P mines must be cleared from a location before a
    removal attempt on any other same location (non-mine) fortification can be made"
    (ledger: map), played on the German page before the 1930 hrs TM Scenario: his roll
    vs "A-P mines in 23K4" gives No Effect (dr 5), so his roll for "Wire in 23K4" is
    refused in a sentence citing C5.28 and nothing is rolled; Wire in another hex
    (23K5) may be rolled for; at 23L2, where his roll cleared the A-P mines (dr 2),
    the Roadblock may be.  "Only one attempt may be made per item for each location"
    (drawn): the same A-P mines again are refused.  The German's mines bar nothing of the
    US's (the US rolls for Wire in 23K4)."""
    players = us_attacks_last(users, "C5.28")
    page = seats(players)
    de, us = page["german"], page["us"]

    def rolls() -> int:
        return Roll.objects.filter(campaign_id=players.campaign_id, step_id="C5.28").count()

    fixed_dice.append([5])
    assert de.press(ROLL_C5_28, item="A-P mines in 23K4").status == 200
    again = de.press(ROLL_C5_28, item="A-P mines in 23K4")
    assert again.refused and "C5.28" in again.text, (again.status, again.text[:300])
    wire = de.press(ROLL_C5_28, item="Wire in 23K4")
    assert wire.refused, (wire.status, wire.text[:400])
    assert "A-P mines in 23K4" in wire.text and "C5.28" in wire.text, wire.text[:400]
    plain(wire.text)
    assert rolls() == 1
    fixed_dice.append([4])
    assert de.press(ROLL_C5_28, item="Wire in 23K5").status == 200
    fixed_dice.append([2])
    assert de.press(ROLL_C5_28, item="A-P mines in 23L2").status == 200
    fixed_dice.append([4])
    assert de.press(ROLL_C5_28, item="Roadblock in 23L2").status == 200
    assert rolls() == 4
    us.open()
    fixed_dice.append([4])
    assert us.press(ROLL_C5_28, item="Wire in 23K4").status == 200  # his own: not barred


MODULE_P = {
    "id": "O1",
    "type": "81mm OBA Module",
    "units": "OBA",
    "cost": "4",
    "tags": "oba",
    "footnotes": "p",
}
MODULE_105 = {"id": "O3", "type": "105mm OBA Module", "units": "OBA", "cost": "6", "tags": "oba"}


def test_us_oba_modules_played_through_the_pages_tm13_footnote_p_and_c5_34_ffe(
    users, modules, fixed_dice
):
    """Drawn: TM13 "The player may add a Radio or fieldphone to his On-Map OB when an OBA
    module is requisitioned as a RG"; RG footnote p "If the OBA module is unused during
    current TM Scenario, an additional two TP expenditure may be made to requisition
    each additional Pre-Registered hex"; C5.34 "+1 If module placed an FFE counter in
    prior TM Scenario" — the named tests call the services for the German; here the US
    plays them through its pages: O1 (footnote p) bought with 1 Pre-Registered hex and
    O3 at the ConPh before 0930 hrs, each joining with a Radio or Fieldphone on his
    retained forces; after the 0930 hrs TM Scenario he marks O3 as having placed an FFE
    on the RG Purchase Records (its radio leaves); at the next C5.31 O1's line offers a
    further Pre-Registered hex for 2 TP, refused in words until he affirms the module
    was unused, then bought; O3 bought again rolls its C5.34 DR with the +1 by itself."""
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import module_of, result_values, supply_chart

    players, _ = phd_after(users, "C5.31")
    supply_chart(players, "us", [MODULE_P, MODULE_105, RIFLES])
    supply_chart(players, "german", [GRENS])
    page = seats(players)
    us, de = page["us"], page["german"]
    assert us.press("Buy O1 81mm OBA Module for 6 TP, With 1 Pre-Registered hex").status == 200
    assert us.press("Buy O3 105mm OBA Module for 6 TP").status == 200
    for seat in (us, de):
        assert seat.press("Done with C5.31").status == 200
    players.until_step("C5.34")
    us.open()
    roster = Seat(players.users["us"], players.campaign_id, "roster/")
    held = roster.open()
    assert "Radio or Fieldphone (O1)" in held and "Radio or Fieldphone (O3)" in held
    fixed_dice.append([3, 4])
    roll_oba = "Roll DR: Offboard Artillery Table"
    assert [w for _, w in us.options(roll_oba, "item")] == [
        "O1 81mm OBA Module",
        "O3 105mm OBA Module",
    ]
    for module in ("O1 81mm OBA Module", "O3 105mm OBA Module"):
        fixed_dice.append([3, 4])
        assert us.press(roll_oba, item=module).status == 200
    first = Roll.objects.filter(campaign_id=players.campaign_id, step_id="C5.34").order_by("seq")
    # after the Initial TM Scenario, whose US Attack C4.2 gave, no chit was selected
    assert [(r.item, r.final, r.drms) for r in first] == [
        ("O1 81mm OBA Module", 7, []),
        ("O3 105mm OBA Module", 7, []),
    ]
    players.until_step("C5.37")
    players.chits(us="attack", german="idle")
    players.until("results")
    players.results(**result_values(module_of(players.campaign)))
    o3 = Purchase.objects.get(campaign_id=players.campaign_id, group_id="O3")
    record = Seat(players.users["us"], players.campaign_id)
    record.open()
    states = dict((w, v) for v, w in form_with(record, "purchase", o3.ref).selects["state"])
    fired = next(v for w, v in states.items() if "FFE" in w)
    assert post(record, form_with(record, "purchase", o3.ref), state=fired).status == 200
    assert "Radio or Fieldphone (O3)" not in roster.open()
    assert "Radio or Fieldphone (O1)" in roster.text
    players.until_step("C5.31")
    us.open()
    further = "Buy: A further Pre-Registered hex (2 TP)"
    assert further in us.buttons(), us.buttons()
    before = points(us)[0]
    unaffirmed = us.press(further)
    assert unaffirmed.refused and "footnote p" in unaffirmed.text, unaffirmed.text[:300]
    plain(unaffirmed.text)
    assert points(us)[0] == before
    assert us.press(further, affirmed="yes").status == 200
    assert points(us)[0] == before - 2
    assert "A further Pre-Registered hex (2 TP) bought on 1230 hrs" in your_rgs(us), your_rgs(us)
    assert us.press("Buy O3 105mm OBA Module for 6 TP").status == 200
    for seat in (us, de):
        seat.open()
        assert seat.press("Done with C5.31").status == 200
    players.until_step("C5.34")
    us.open()
    fixed_dice.append([3, 4])
    assert us.press(roll_oba, item="O3 105mm OBA Module").status == 200
    again = Roll.objects.filter(campaign_id=players.campaign_id, step_id="C5.34").order_by("seq")
    last = again.last()
    assert last is not None and last.final == 7 + 1 - 1, (last.final, last.drms)
    assert "+1 If module placed" in us.text and "-1 Attack Chit" in us.text, step_part(us)


def test_c5_26_c5_27_drawn_drms_and_the_ft_cap_played_through_both_pages_before_1930(
    users, modules, fixed_dice
):
    """Drawn, before the 1930 hrs TM Scenario: C5.26b "The total number of FT/DC (each)
    after the repair phase may not exceed the total number of (non-isolated) Assault
    Engineer squad-equivalents currently available.  Excess repaired FT/DC are
    eliminated instead" — the German, holding no Assault Engineer, is refused the roll
    for an FT in words citing C5.26b (it could only be eliminated), nothing rolled; his
    Psk is rolled for.  C5.26a "+1 If only Non-Qualified (A21.13) use is possible"
    (ledger: recorded, the player ticks it) is offered on the US page for its
    malfunctioned MMG and counted when ticked.  C5.27a "+1 If Isolated": the US's
    immobilized Sherman, Isolated, gets it by itself.  C5.27b "by using ... US MMG if
    the AFV is American" (pass 18 tried the German): the US M4A3's disabled BMG is
    offered the exchange for his MMG only, not his LMG; the German is offered none."""
    from tests.purchase_helpers import add_vehicle
    from tests.test_rule_mechanisms import add

    players = us_attacks_last(users, "C5.24")
    add(players, "us", "MMG", "sw", markers=("malfunctioned",))
    add(players, "us", "M4A1", "vehicle", markers=("immobilized", "isolated"))
    add_vehicle(players, "us", "M4A3", ("mg", ["disabled"], "BMG"), ("ma", [], "75"))
    add(players, "us", "MMG", "sw")
    add(players, "us", "LMG", "sw")
    players.until_step("C5.26")
    page = seats(players)
    de, us = page["german"], page["us"]
    baz = "Roll dr: BAZ/PSK/FT/DC Repair Table"
    ft = de.press(baz, item="FT in 23K4")
    assert ft.refused and "C5.26b" in ft.text, (ft.status, ft.text[:300])
    plain(ft.text)
    assert not Roll.objects.filter(campaign_id=players.campaign_id, step_id="C5.26").exists()
    fixed_dice.append([3])
    assert de.press(baz, item="Psk in 23K4").status == 200
    assert "Done with C5.26" not in us.buttons()
    assert us.options("Roll dr: Weapon Repair Table", "unit")[0][1] == "MMG (malfunctioned)"
    assert "non_qualified" in us.form_of("Roll dr: Weapon Repair Table").choices["tick"]
    fixed_dice.append([1])
    assert us.press("Roll dr: Weapon Repair Table", tick="non_qualified").status == 200
    mmg = Roll.objects.get(campaign_id=players.campaign_id, step_id="C5.26", side="us")
    assert (mmg.final, [d["value"] for d in mmg.drms], mmg.result) == (2, [1], "Repaired")
    for seat in (us, de):
        assert seat.press("Done with C5.26").status == 200
    players.until_step("C5.27")
    us.open()
    immobilized = [b for b in us.buttons() if b.startswith("Roll dr: Immobilization")]
    assert immobilized, us.buttons()
    fixed_dice.append([1])
    assert us.press(immobilized[0]).status == 200
    sherman = Roll.objects.get(campaign_id=players.campaign_id, step_id="C5.27", side="us")
    assert [(d["value"], "Isolated" in d["label"]) for d in sherman.drms] == [(1, True)], (
        sherman.drms
    )
    assert sherman.final == 2 and "Mobile" in sherman.result, (sherman.final, sherman.result)
    # C5.27b (drawn) on the US side: "or US MMG if the AFV is American"
    roster = Seat(players.users["us"], players.campaign_id, "roster/")
    roster.open()
    # his two MMGs (one repaired at C5.26), not his LMG
    assert [words for _, words in roster.options("Repair BMG (C5.27b)", "give")] == ["MMG"] * 2
    theirs = Seat(players.users["german"], players.campaign_id, "roster/")
    theirs.open()
    assert not [b for b in theirs.buttons() if b.startswith("Repair")]


def test_c5_33_only_an_i_or_a_rg_marked_l_is_offered_its_secret_rolls(users, modules):
    """C5.33 "For each requisitioned/OB given I or A type RG marked with an RG Footnote
    l make one secret DR" (pass 18's Left: "Make its secret rolls" was offered for an
    OBA module too), on the German page before the 1930 hrs TM Scenario: his I1 Gren Pl
    (footnote l) is offered its secret rolls; his O2 81mm OBA Module is only recorded,
    "no secret rolls"."""
    from tests.test_phdb18_pass18 import last_conph

    players = last_conph(users, "C5.31")
    page = seats(players)
    de, us = page["german"], page["us"]
    assert de.press("Buy O2 81mm OBA Module for 5 TP").status == 200
    assert de.press("Buy I1 Gren Pl for 4 TP, On-Map set up").status == 200
    for seat in (de, us):
        assert seat.press("Done with C5.31").status == 200
    players.until_step("C5.33")
    de.open()
    offered = [b for b in de.buttons() if "of the list" in b]
    assert offered == [
        "Record it: RG 1 of the list, O2 81mm OBA Module (no secret rolls): receive OBA, "
        "Radio or Fieldphone",
        "Make its secret rolls: RG 2 of the list, I1 Gren Pl",
    ], offered
