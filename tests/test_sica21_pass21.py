"""Sicily (seed 001), RePh 3.601-3.614, the twenty-first pass of the sentence audit
(issue 44): the items pass 20 left (a unit's Setup Area, 3.606 footnote 2's MMC already
of its lowest quality), the ledger's map/recorded/narrative claims challenged, what
carries to the next CG date, and sentences drawn at random from the seed
(random.Random(21)), played through the pages (tests/page_play.py) for each side
(docs/rules-audit/pass-21-sica21.md)."""

from __future__ import annotations

import pytest

from campaign.models import Event, Unit
from tests import test_rule_mechanisms as mechanisms
from tests.page_play import Answer, Seat
from tests.purchase_helpers import campaign_at
from tests.test_rule_mechanisms import add, edit
from tests.test_sica18_pass18 import _seat

users = mechanisms.users
fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


def _markers(unit) -> list[str]:
    return sorted(Unit.objects.get(pk=unit.pk).markers)


def _dones(seat: Seat) -> list[str]:
    return [b for b in seat.buttons() if b.startswith("Done with")]


def _log(players) -> str:
    return " ".join(
        e.text for e in Event.objects.filter(campaign_id=players.campaign_id).order_by("id")
    )


def _press_of(seat: Seat, words: str, unit: Unit) -> Answer:
    """Press the button reading ``words`` in the form of ``unit``'s line (the retained
    forces' Save and Remove read the same on every line; the page player's ``press``
    picks a button by its words only)."""
    for button in seat.forms.buttons:
        form = seat.forms.forms.get(button.owner or "")
        if button.words != words or form is None or ("unit", unit.ref) not in form.fields:
            continue
        data: dict[str, list[str]] = {}
        for name, value in form.fields:
            data.setdefault(name, []).append(value)
        if button.attrs.get("name"):
            data[button.attrs["name"]] = [button.attrs.get("value", "")]
        answer = seat.client.post(form.action, data, HTTP_HX_REQUEST="true")
        seat.open()
        return Answer(answer.status_code, answer.content.decode())
    raise AssertionError(f"no {words!r} in the form of {unit.name}: {seat.buttons()}")


def _refused_citing(answer: Answer, rule: str) -> None:
    assert answer.refused and answer.status >= 400, (answer.status, answer.text[:300])
    assert f"({rule})" in answer.text and "Setup Area" in answer.text, answer.text[:400]
    assert answer.text.count("Nothing was changed") == 1, answer.text[:400]


# --------------------------------------------------------------------------- Part 1


def test_3_605_a_units_setup_area_is_entered_on_the_retained_forces(users, modules):
    """3.605 MARKING THE MAP "each side should record (on the reduced-size map) an ID for
    each one [Setup Area]": the retained forces ask each unit's Setup Area (its ID), on
    the line added and on a line edited, and show it on the line ("Setup Area A")."""
    players, _ = campaign_at("sicily", "iii", "jul14pm", users, step="3.611")
    squad = add(players, "axis", "4-6-7", "squad")
    roster = _seat(players, "axis", "roster/")
    assert "Setup Area (3.605)" in roster.html, roster.html[:300]
    saved = roster.press("Save", unit=squad.ref, location="A")
    assert saved.status < 400 and not saved.refused, saved.text[:300]
    roster.open()
    assert "4-6-7 — in good order (A)" in roster.text, roster.text


def test_3_6111_3_6112_within_the_same_setup_area_at_3_611(users, modules):
    """3.6111 "All Retained same-class HS with the same strength factors within the same
    Setup/" and 3.6112 "each such Elimination enables that side to Battle Harden one
    non-crew MMC of the owner's choice within the same Setup/": through the Axis 3.611
    page of CG III's last date.  Two 2-4-7 HS entered in Setup Areas A and B: Recombine
    refused citing 3.6111, naming both Setup Areas, nothing changed; a Hero in A and a
    4-6-7 in B: the Battle Hardening refused citing 3.6112.  Corrected to the same
    Setup Area (or one not entered: the players' to judge), both are done."""
    players, _ = campaign_at("sicily", "iii", "jul14pm", users, step="3.611")
    one = add(players, "axis", "2-4-7", "half_squad", location="A")
    two = add(players, "axis", "2-4-7", "half_squad", location="B")
    hero = add(players, "axis", "Hero 1-4-9", "hero", location="A")
    squad = add(players, "axis", "4-6-7", "squad", location="b ")
    axis = _seat(players, "axis")
    words = "Recombine the two HS"
    apart = axis.press(words, give=one.ref, mark=two.ref, forms="4-4-7")
    _refused_citing(apart, "3.6111")
    assert "Setup Area A" in apart.text and "Setup Area B" in apart.text, apart.text
    assert Unit.objects.filter(pk__in=[one.pk, two.pk]).count() == 2
    hardens = "Mark battle hardened"
    apart = axis.press(hardens, give=hero.ref, mark=squad.ref)
    _refused_citing(apart, "3.6112")
    assert _markers(squad) == [] and Unit.objects.filter(pk=hero.pk).exists()
    edit(players, "axis", two, "ok", location="a")
    made = axis.press(words, give=one.ref, mark=two.ref, forms="4-4-7")
    assert made.status == 200 and not made.refused, made.text[:300]
    edit(players, "axis", squad, "ok", location="")
    axis.open()
    made = axis.press(hardens, give=hero.ref, mark=squad.ref)
    assert made.status == 200 and not made.refused, made.text[:300]
    assert _markers(squad) == ["battle_hardened"]
    assert words not in _seat(players, "british").buttons()


def test_3_6141a_3_61421_within_the_same_setup_area_on_the_3_614_roster(users, modules):
    """3.6141a "Each Abandoned vehicle may remain Abandoned, or may be remanned and
    operated ... by Personnel Retained within the same Setup Area" and 3.61421 "In all
    cases, the MG to be Eliminated must be Retained within the same Setup/": on the
    British retained forces at 3.614 (CG I, July 15 AM).  An Abandoned Daimler in Setup
    Area North, a 4-5-8 in South: Remann refused citing 3.6141a, the Daimler still
    Abandoned; a Sherman's disabled AAMG in North, the LMG in South: Repair refused
    citing 3.61421, both unchanged.  The 4-5-8 and the LMG entered in North: both done."""
    from tests.purchase_helpers import add_vehicle

    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.614")
    daimler = add(players, "british", "Daimler AC", "vehicle", status="abandoned", location="North")
    squad = add(players, "british", "4-5-8", "squad", location="South")
    sherman, (aamg,) = add_vehicle(players, "british", "Sherman III", ("mg", ["disabled"], "AAMG"))
    edit(players, "british", sherman, None, location="North")
    bren = add(players, "british", "LMG", "sw", location="South")
    roster = _seat(players, "british", "roster/")
    remann = "Remann Daimler AC (3.6141a)"
    apart = roster.press(remann, by=squad.ref)
    _refused_citing(apart, "3.6141a")
    assert "Setup Area North" in apart.text and "Setup Area South" in apart.text, apart.text
    assert _markers(daimler) == ["abandoned"]
    repair = "Repair AAMG (3.61421)"
    apart = roster.press(repair, give=bren.ref)
    _refused_citing(apart, "3.61421")
    sherman.refresh_from_db()
    assert [w["markers"] for w in sherman.weapons] == [["disabled"]]
    assert Unit.objects.filter(pk=bren.pk).exists()
    edit(players, "british", squad, None, location="north")
    edit(players, "british", bren, None, location="North")
    roster.open()
    assert roster.press(remann, by=squad.ref).status < 400
    assert _markers(daimler) == []
    assert roster.press(repair, give=bren.ref).status < 400
    sherman.refresh_from_db()
    assert [w["markers"] for w in sherman.weapons] == [[]]
    assert remann not in _seat(players, "axis", "roster/").buttons()


# --------------------------------------------------------------------------- Part 2A: claims


def test_claims_3_604_to_3_607_the_pages_name_the_units_the_map_sentences_concern(users, modules):
    """The ledger's map claims where the retained forces hold the facts: each step's page
    names the viewer's own units the sentence concerns (the map decides the rest), the
    opponent's page none of them.  3.6042 "Each Mobile vehicle ... in any type of
    minefield undergoes the appropriate type(s) of mine attack(s)": the Axis 3.604 page
    names the StuG (not the immobilized PSW).  3.6052 "An Isolated unit/" and 3.6055
    "IMPORTANT: Each Gun must ... remain in its current Location": 3.605 names the
    Isolated 4-6-7 and the 7.5cm PaK 40.  3.606 footnotes 4, 5 ("The surviving crew (if
    any) may turn the vehicle into a (Burnt-Out) Wreck"; "... Scrounge"): 3.606 names the
    Abandoned Semovente.  3.6071 "The Inherent crew of each now-Captured Immobile vehicle
    with no functioning MA is also Captured": 3.607 names the captured, immobilized
    Sherman the Axis hold.  The British pages name none of them."""
    players, _ = campaign_at("sicily", "iii", "jul14pm", users, step="3.604")
    add(players, "axis", "StuG IIIG", "vehicle", location="A")
    add(players, "axis", "PSW 234/1", "vehicle", status="immobilized")
    add(players, "axis", "4-6-7", "squad", status="isolated")
    add(players, "axis", "7.5cm PaK 40", "gun", location="B")
    add(players, "axis", "Semovente 75/18", "vehicle", status="abandoned")
    add(players, "axis", "Sherman III", "vehicle", markers=["captured", "immobilized"])
    axis, british = _seat(players, "axis"), _seat(players, "british")
    said = axis.text
    assert (
        "as if it is attempting to exit the minefield Location (3.6042): your StuG IIIG" in said
    ), said[:3000]
    assert "PSW" not in said[said.find("(3.6042)") :][:200], said
    assert "(3.6042)" not in british.text
    players.until_step("3.605")
    said = axis.open()
    assert "(3.6052; 3.6056): your 4-6-7 (isolated)" in said, said[:3000]
    assert (
        "due to setup restrictions (3.6055): your 7.5cm PaK 40 (in good order; in Setup Area B)"
        in said
    ), said[:3000]
    assert "(3.6055)" not in british.open()
    players.until_step("3.606")
    said = axis.open()
    assert "(3.606 footnotes 4, 5): your Semovente 75/18" in said, said[:3000]
    assert "(3.606 footnotes 4, 5)" not in british.open()
    players.until_step("3.607")
    said = axis.open()
    assert "is also Captured (3.6071): your Sherman III" in said, said[:3000]
    assert "(3.6071): your" not in british.open()


def test_claims_3_6141b_footnote_and_3_61423_on_the_british_3_614_pages(users, modules, fixed_dice):
    """3.6141b footnote * "[Becomes Mobile] And is Retained in its current Setup Area":
    the British immobilized Sherman entered in Setup Area North rolls dr 1 at 3.614: it
    is Mobile, still in Setup Area North on both sides' retained forces (no result moves
    it: 3.605 MARKING THE MAP "Subsequent changes in the status of (potential) Strategic
    Locations (e.g., ... a manned, immobilized vehicle with functioning MA that becomes
    Mobile [3.6141b], etc.) do not alter or otherwise affect either side's Setup Area(s)
    in any way").  3.61423 "At the Controlling player's option ≥ one non-Recalled vehicle/": the
    3.614 page names the British non-Recalled vehicles (the Sherman, not the recalled
    Daimler), the Axis page none."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.614")
    sherman = add(
        players, "british", "Sherman III", "vehicle", status="immobilized", location="North"
    )
    add(players, "british", "Daimler AC", "vehicle", status="recalled")
    british = _seat(players, "british")
    said = british.text
    assert "(3.61423): your Sherman III (immobilized; in Setup Area North)" in said, said[:3000]
    assert "Daimler" not in said[said.find("(3.61423)") :][:300], said
    assert "(3.61423): your" not in _seat(players, "axis").text
    fixed_dice.append([1])
    made = british.press("Roll dr: Immobilization Repair", unit=sherman.ref)
    assert made.status == 200 and not made.refused, made.text[:300]
    assert _markers(sherman) == []
    for side in ("british", "axis"):
        roster = _seat(players, side, "roster/")
        assert "Sherman III — in good order (North)" in roster.text, roster.text


def test_3_606_footnote_2_an_mmc_to_be_replaced_is_named_with_the_footnote(
    users, modules, fixed_dice
):
    """3.606 footnote 2 "A crew, or unit, that would become Disrupted is Eliminated
    instead" for an MMC (pass 19's and pass 20's Left: its lowest quality depends on its
    nationality and class, which no line records and the seed does not print): the Axis
    Isolated 4-4-7's Escape DR 3+3 +1 (HS-equivalent) +2 (Isolated) = 9 "Escapes;
    Replaced": it is marked to be Replaced (its line stays as the roll left it until 3.606
    ends), and the 3.607 page names it under footnote 2 with what its owner does (Remove
    it if of its lowest quality, else rename it); the British page names none.  Removed,
    the page names it no more."""
    players, _ = campaign_at("sicily", "iii", "jul14pm", users, step="3.606")
    squad = add(players, "axis", "4-4-7", "squad", status="isolated")
    axis = _seat(players, "axis")
    fixed_dice.append([3, 3])
    made = axis.press("Roll DR: Escape", unit=squad.ref, stack="")
    assert made.status == 200 and not made.refused, made.text[:300]
    assert "replace_due" in _markers(squad), _markers(squad)
    assert "Done with 3.606" in _dones(axis), axis.buttons()
    players.until_step("3.607")
    said = axis.open()
    assert "Eliminated instead" in said and "(3.606 footnote 2): your 4-4-7" in said, said[:3000]
    assert "(3.606 footnote 2): your" not in _seat(players, "british").text
    roster = _seat(players, "axis", "roster/")
    gone = roster.press("Remove", unit=squad.ref)
    assert gone.status < 400 and not gone.refused, gone.text[:300]
    said = axis.open()
    assert "(3.606 footnote 2): your" not in said
    assert "Done with 3.607" in _dones(axis), axis.buttons()


# --------------------------------------------------------------------------- Part 2C: the draw


def test_drawn_3_606_the_axis_escape_page_of_cg_i(users, modules, fixed_dice):
    """Drawn (Random(21)): 3.606 footnote 1 "An Original 2 DR results in Escape and Heat
    of Battle for an eligible unit (A15)" (#5) and "-1 | If lone, unwounded SMC" (#11),
    through the Axis page of CG I (the RePh after July 14 PM).  The Isolated 4-6-7's
    Original 2 (Final 4): "Escapes and Heat of Battle", its Isolated marker off.
    The lone 8-1's tick is offered on the Axis page: DR 3+3 -1 = 5, escapes.  The
    British page offers no Escape of these units."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.606")
    squad = add(players, "axis", "4-6-7", "squad", status="isolated")
    leader = add(players, "axis", "8-1 leader", "leader", status="isolated")
    axis = _seat(players, "axis")
    british = _seat(players, "british")
    if "Roll DR: Escape" in british.buttons():
        theirs = {v for v, _ in british.options("Roll DR: Escape", "unit")}
        assert not theirs & {squad.ref, leader.ref}, theirs
    fixed_dice.append([1, 1])
    made = axis.press("Roll DR: Escape", unit=squad.ref, stack="")
    assert made.status == 200 and not made.refused, made.text[:300]
    said = _log(players)[-400:]
    assert "DR 1+1 = 2" in said and "Escapes and Heat of Battle" in said, said
    assert "isolated" not in _markers(squad)
    assert "lone_smc" in axis.form_of("Roll DR: Escape").choices.get("tick", [])
    fixed_dice.append([3, 3])
    made = axis.press("Roll DR: Escape", unit=leader.ref, stack="", tick="lone_smc")
    assert made.status == 200 and not made.refused, made.text[:300]
    said = _log(players)[-400:]
    assert "-1 If lone, unwounded SMC" in said and "Escapes" in said, said


def test_drawn_3_613_3_614_the_axis_pages_of_cg_ii(users, modules, fixed_dice):
    """Drawn: 3.613 "-1 | If that entire path can be traced on road hexes‡" (#2), "*
    Unit/" (#15, cut) and footnote † "Each vehicle is Eliminated on a subsequent dr of ≥
    4; if it is Eliminated, make a CS DR for its inherent crew" (#20); 3.6141b "+1 | if
    in a Front-Line hex" (#6); 3.6142 "Each side now makes a separate dr ... for each
    malfunctioned, non-Captured, Retained Weapon" (#9), "≥ 2 | Eliminated*" (#7) and its
    footnote "* If vehicular-mounted, the Weapon is Disabled; if MA, the AFV is
    immediately Recalled" (#10), through the Axis pages of CG II (the RePh after July 16
    AM).  The road tick is offered on the Axis page (DR 4+4 -1 = 7, safely); the StuG's
    Shift DR 11 "Shifted with Casualties": its subsequent dr 4 eliminates it and its
    crew's CS DR is owed (Done waits); at 3.614 the immobilized PSW's front-line tick is
    offered (dr 2 +1 = 3, no change); the MG 42 and the Marder's MA owe their drs (Done
    waits), the MG 42's dr 6 eliminates it, the Marder's dr 4 -1 (vehicular) = 3
    disables its MA and recalls it.  The British pages owe none of it."""

    players, _ = campaign_at("sicily", "ii", "jul16pm", users, step="3.613")
    squad = add(players, "axis", "4-6-7", "squad")
    stug = add(players, "axis", "StuG IIIG", "vehicle")
    axis = _seat(players, "axis")
    ticks = axis.form_of("Roll DR: Shift").choices.get("tick", [])
    road = next(t for t in ticks if "road" in t)
    fixed_dice.append([4, 4])
    made = axis.press("Roll DR: Shift", unit=squad.ref, stack="", tick=road)
    assert made.status == 200 and not made.refused, made.text[:300]
    assert "→ 7: Shifted safely" in _log(players)[-300:], _log(players)[-300:]
    fixed_dice.append([5, 6])
    made = axis.press("Roll DR: Shift", unit=stug.ref, stack="")
    assert made.status == 200 and not made.refused, made.text[:300]
    words = "Roll dr: Shifted with Casualties (subsequent dr)"
    assert [v for v, _ in axis.options(words, "unit")] == [stug.ref]
    assert not _dones(axis), axis.buttons()
    fixed_dice.append([4])
    assert axis.press(words, unit=stug.ref).status == 200
    assert not Unit.objects.filter(pk=stug.pk).exists()
    axis.open()
    assert "Crew Survival" in axis.text and not _dones(axis), axis.buttons()
    british = _seat(players, "british")
    assert "Roll first" not in british.text and "Done with 3.613" in _dones(british)
    print(axis.text[axis.text.find("Roll first") :][:300], axis.buttons())


def test_drawn_3_601_3_603_3_610_both_sides_pages_of_cg_ii(users, modules, fixed_dice):
    """Drawn: 3.601 "All opposing units in the same Locations are now assumed to be in
    Melee ..." (#12) and 3.603 "All currently broken units of both sides automatically
    rally, even if Disrupted" (#13; "No DR is made"): both sides' 3.601 and 3.603 pages
    offer no roll (no Location nor broken state is recorded: the map's), Done leads to
    3.604.  3.610 "-1 if part of British Airborne RG" (#14): a wounded 9-1 the British
    added by hand: the tick is offered on the British page, not the Axis's (whose 8-1 is
    wounded too); ticked, dr 3 -1 = 2."""
    players, _ = campaign_at("sicily", "ii", "jul16pm", users, step="3.601")
    para = add(players, "british", "9-1 leader", "leader", status="wounded")
    axis_leader = add(players, "axis", "8-1 leader", "leader", status="wounded")
    for step in ("3.601", "3.602", "3.603"):
        players.until_step(step)
        for side in ("axis", "british"):
            seat = _seat(players, side)
            assert not [b for b in seat.buttons() if b.startswith("Roll")], (step, seat.buttons())
            assert f"Done with {step}" in " ".join(_dones(seat)), (step, seat.buttons())
    players.until_step("3.604")
    players.until_step("3.610")
    british, axis = _seat(players, "british"), _seat(players, "axis")
    ticks = british.form_of("Roll dr: Wounded Leaders").choices.get("tick", [])
    airborne = [t for t in ticks if "airborne" in t]
    assert airborne, ticks
    theirs = axis.form_of("Roll dr: Wounded Leaders").choices.get("tick", [])
    assert not [t for t in theirs if "airborne" in t], theirs
    assert [v for v, _ in axis.options("Roll dr: Wounded Leaders", "unit")] == [axis_leader.ref]
    fixed_dice.append([3])
    made = british.press("Roll dr: Wounded Leaders", unit=para.ref, tick=airborne[0])
    assert made.status == 200 and not made.refused, made.text[:300]
    assert "-1 if part of British Airborne RG" in _log(players)[-300:], _log(players)[-300:]


# --------------------------------------------------------------------------- Part 2B: carry-over


def test_carry_3_6112_3_6141d_3_605_to_the_next_cg_date(users, modules, fixed_dice):
    """What outlives its step, played over two CG dates of CG II (the RePh after July 16
    AM, the July 16 PM scenario, then the RePh after it).  3.6112: the Axis Hero in
    Setup Area A is Eliminated for the 4-6-7 in A, Battle Hardened.  3.6141d "3-5 |
    Retain stun": the PSW's dr 3 keeps its stun.  3.6111: two 2-4-7 HS in Setup Area B
    recombine into a 4-4-7.  At the next RePh both sides' retained forces show the
    4-6-7 battle hardened in Setup Area A, the 4-4-7 in Setup Area B, the PSW stunned,
    no Hero; at 3.611 no Hero exchange is offered (none is held), and at 3.614 the PSW
    owes its Stun Recovery dr again (Done waits)."""
    from tests.walk import module_of

    players, _ = campaign_at("sicily", "ii", "jul16pm", users, step="3.611")
    hero = add(players, "axis", "Hero 1-4-9", "hero", location="A")
    squad = add(players, "axis", "4-6-7", "squad", location="A")
    one = add(players, "axis", "2-4-7", "half_squad", location="B")
    two = add(players, "axis", "2-4-7", "half_squad", location="B")
    psw = add(players, "axis", "PSW 234/1", "vehicle", status="stunned", location="A")
    add(players, "british", "4-5-8", "squad", location="North")
    axis = _seat(players, "axis")
    made = axis.press("Mark battle hardened", give=hero.ref, mark=squad.ref)
    assert made.status == 200 and not made.refused, made.text[:300]
    made = axis.press("Recombine the two HS", give=one.ref, mark=two.ref, forms="4-4-7")
    assert made.status == 200 and not made.refused, made.text[:300]
    players.until_step("3.614")
    axis.open()
    fixed_dice.append([3])
    made = axis.press("Roll dr: Stun Recovery", unit=psw.ref)
    assert made.status == 200 and not made.refused, made.text[:300]
    assert "Retain stun" in _log(players)[-300:], _log(players)[-300:]
    players.until_step("3.621")
    players.chits(axis="attack", british="idle")
    players.until("results")
    values = {
        f"{f.id}.{s}": (False if f.kind == "bool" else 0)
        for f in module_of(players.campaign).result_fields
        for s in ("axis", "british")
    }
    players.results(**values)
    players.until_step("3.601")
    for side in ("axis", "british"):
        roster = _seat(players, side, "roster/")
        said = roster.text
        assert "4-6-7 — battle hardened (A)" in said, said
        assert "4-4-7 — in good order (B)" in said, said
        assert "PSW 234/1 — stunned (A)" in said, said
        assert "Hero 1-4-9" not in said and "2-4-7" not in said, said
    players.until_step("3.611")
    assert "Mark battle hardened" not in _seat(players, "axis").buttons()
    players.until_step("3.614")
    axis.open()
    assert "Roll first: the Stun Recovery for PSW 234/1 (3.6141d)" in axis.text, axis.text[:2000]
    assert not _dones(axis), axis.buttons()


def test_carry_a_line_removed_by_mistake_and_put_back_keeps_its_setup_area(users, modules):
    """3.6112 "within the same Setup/" after an undo: the Axis 4-6-7 entered in Setup
    Area B is removed by mistake at 3.611 and put back: it is in Setup Area B again on
    both sides' retained forces, and the Hero in A still cannot Battle Harden it (3.6112
    refused, citing the rule); nothing else changed."""
    players, _ = campaign_at("sicily", "ii", "jul16pm", users, step="3.611")
    hero = add(players, "axis", "Hero 1-4-9", "hero", location="A")
    squad = add(players, "axis", "4-6-7", "squad", location="B")
    roster = _seat(players, "axis", "roster/")
    gone = _press_of(roster, "Remove", squad)
    assert gone.status < 400 and not gone.refused, gone.text[:300]
    back = [b for b in roster.buttons() if b.startswith("Put 4-6-7")]
    assert back, roster.buttons()
    made = roster.press(back[0])
    assert made.status < 400 and not made.refused, made.text[:300]
    for side in ("axis", "british"):
        said = _seat(players, side, "roster/").text
        assert "4-6-7 — in good order (B)" in said, said
    squad = Unit.objects.get(campaign_id=players.campaign_id, side="axis", name="4-6-7")
    apart = _seat(players, "axis").press("Mark battle hardened", give=hero.ref, mark=squad.ref)
    _refused_citing(apart, "3.6112")


def test_3_6055_finishing_ahead_stops_at_the_step_that_names_your_gun(users, modules):
    """3.6055 "IMPORTANT: Each Gun must (for now; see SSR CG10 [3.4] and 3.613) remain in
    its current Location": finishing ahead from 3.601 ("Done with 3.601 to ...") does not
    run the Axis past 3.605, whose page names his PaK 40 (he would never see it); the
    British, who hold no unit a reminder names, still finish ahead past it.  At 3.605
    the Axis page names the Gun and offers Done."""
    players, _ = campaign_at("sicily", "ii", "jul16pm", users, step="3.601")
    add(players, "axis", "7.5cm PaK 40", "gun", location="B")
    add(players, "british", "4-5-8", "squad")
    axis, british = _seat(players, "axis"), _seat(players, "british")
    past = ("to 3.605", "to 3.606", "to 3.607", "to 3.608", "to 3.609", "to 3.61")
    ahead = [b for b in _dones(axis) if " to " in b]
    assert not [b for b in ahead if any(p in b for p in past)], ahead
    assert [b for b in _dones(british) if any(p in b for p in past)], _dones(british)
    players.until_step("3.605")
    said = axis.open()
    assert "(3.6055): your 7.5cm PaK 40" in said, said[:2000]
    assert [b for b in _dones(axis) if b.startswith("Done with 3.605")], axis.buttons()
