"""Sicily (seed 001), RePh 3.601-3.623 with both RG charts, the twenty-third pass of the
sentence audit (issue 44): twenty sentences drawn at random (random.Random(23)) from the
sentences passes 20-22 did not draw, each tried through the pages (tests/page_play.py)
at its edge (docs/rules-audit/pass-23-sic23.md)."""

from __future__ import annotations

import pytest

from campaign.models import Seat as SeatModel
from tests import test_rule_mechanisms as mechanisms
from tests.purchase_helpers import campaign_at
from tests.test_rule_mechanisms import add
from tests.test_sica18_pass18 import _forge, _seat
from tests.test_sica21_pass21 import _log, _markers
from tests.test_sica22_pass22 import _gone, _rolled

users = mechanisms.users
fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


def test_drawn_3_6142_plus_1_if_isolated_at_the_repaired_boundary(users, modules, fixed_dice):
    """3.6142 (drawn, seed line 167) "+1 | if Isolated |", with "≤ 1 | Repaired", "≥ 2 |
    Eliminated*": the Axis page of CG I (July 15 AM), each MG 42 typed Repair Number 1.
    The Isolated MG 42's dr 1 -1 +1 = 1: Repaired (the limit); a second Isolated one's
    dr 2 -1 +1 = 2: Eliminated (one past); the non-Isolated MG 42's dr 2 -1 = 1:
    Repaired (the complement: no +1).  The British Isolated Bren's dr 3 -1 +1 = 3: Eliminated
    (the other side)."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.614")
    edge = add(players, "axis", "MG 42", "sw", status="malfunctioned", markers=["isolated"])
    past = add(players, "axis", "MG 42", "sw", status="malfunctioned", markers=["isolated"])
    plain = add(players, "axis", "MG 42", "sw", status="malfunctioned")
    bren = add(players, "british", "Bren LMG", "sw", status="malfunctioned", markers=["isolated"])
    axis, british = _seat(players, "axis"), _seat(players, "british")
    words = "Roll dr: Weapon Repair"
    field = next(n for n, _ in axis.form_of(words).fields if "repair_number" in n)
    fixed_dice.append([1])
    _rolled(axis, words, unit=edge.ref, **{field: "-1"})
    said = _log(players)[-300:]
    assert _markers(edge) == ["isolated"], said
    fixed_dice.append([2])
    _rolled(axis, words, unit=past.ref, **{field: "-1"})
    assert _gone(past), _log(players)[-300:]
    fixed_dice.append([2])
    _rolled(axis, words, unit=plain.ref, **{field: "-1"})
    assert _markers(plain) == [], _log(players)[-300:]
    fixed_dice.append([3])
    _rolled(british, words, unit=bren.ref, **{field: "-1"})
    assert _gone(bren), _log(players)[-300:]


def test_drawn_3_606_plus_2_if_encircled_not_for_a_vehicle(users, modules, fixed_dice):
    """3.606 (drawn, seed line 87) "+2 | if Encircled* |", "* NA to vehicle Escape
    attempt": the Axis page of the RePh after July 14 Night (3.606 falls on that Night
    date, -1 Night).  The Encircled 2-4-7 HS's DR 4+3 -1 +2 = 8: Escapes (the last
    row of Escape alone); another's DR 4+4 -1 +2 = 9: Escapes; Replaced (one past); the
    Encircled StuG's DR 3+3 = 6 with no +2 (the vehicle exception); a non-Encircled
    HS's DR 3+3 -1 = 5 (the complement)."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.606")
    one = add(players, "axis", "2-4-7", "half_squad", status="encircled")
    two = add(players, "axis", "2-4-7", "half_squad", status="encircled")
    stug = add(players, "axis", "StuG IIIG", "vehicle", status="encircled")
    free = add(players, "axis", "2-4-7", "half_squad")
    axis = _seat(players, "axis")
    words = "Roll DR: Escape"

    def rolled(unit, faces):
        fixed_dice.append(faces)
        _rolled(axis, words, unit=unit.ref, stack="")
        return _log(players).rsplit("Escape for", 1)[1]

    said = rolled(one, [4, 3])
    assert "+2 If Encircled" in said and "→ 8: Infantry: Escapes" in said, said
    assert "replace_due" not in _markers(one)
    said = rolled(two, [4, 4])
    assert "→ 9: Infantry: Escapes; Replaced" in said, said
    assert "replace_due" in _markers(two), said
    said = rolled(stug, [3, 3])
    assert "Encircled" not in said and "3+3 = 6:" in said, said
    said = rolled(free, [3, 3])
    assert "Encircled" not in said and "→ 5:" in said, said


def test_drawn_3_6041_a_passed_1tc_keeps_the_unit_encircled_until_3_6062(
    users, modules, fixed_dice
):
    """3.6041 (drawn, seed line 29): "Each encircled unit [EXC: Prisoner] must take a
    separate 1TC (leadership DRM may apply if present and at owner's choice). If it
    passes its 1TC it remains in its present Location (Encircled markers are not removed
    until 3.6062)."  The British page of CG I (July 15 AM): the 4-5-8 (Morale 8), DR 5+4
    with a leadership DRM -1 typed = 8: passes (the owner's choice, at the limit); a
    second's DR 5+4 with no leader typed = 9: Eliminated (one past).  The survivor is
    still Encircled on both rosters at 3.605 and 3.606, and not after 3.6062."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.604")
    one = add(players, "british", "4-5-8", "squad", status="encircled")
    two = add(players, "british", "4-5-8", "squad", status="encircled")
    british = _seat(players, "british")
    words = "Roll DR: Encirclement 1TC"
    form = british.form_of(words)
    lead = next((n for n, _ in form.fields if "leader" in n), None)
    assert lead, form.fields
    fixed_dice.append([5, 4])
    _rolled(british, words, unit=one.ref, **{lead: "-1"})
    assert not _gone(one) and "encircled" in _markers(one), _log(players)[-300:]
    fixed_dice.append([5, 4])
    _rolled(british, words, unit=two.ref)
    assert _gone(two), _log(players)[-300:]
    for step in ("3.605", "3.606"):
        players.until_step(step)
        assert "encircled" in _markers(one), step
    players.until_step("3.608")
    assert "encircled" not in _markers(one), _markers(one)


def test_drawn_3_6122_a_san_below_2_raised_to_2_and_2_kept(users, modules):
    """3.6122 (drawn, seed line 119): "A side whose SAN is currently < 2 has it
    automatically raised to 2 (no CPP expenditure is necessary)."  CG II's pages: the
    British SAN 0 is raised to 2 and the Axis SAN 2 (the limit, not < 2) stays 2, no
    CPP spent by either, and neither side owes a SAN dr (both below 4): the walk passes 3.6122."""
    players, _ = campaign_at("sicily", "ii", "jul16pm", users, step="3.611")
    seats = SeatModel.objects.filter(campaign_id=players.campaign_id)
    seats.filter(side="axis").update(san=2)
    seats.filter(side="british").update(san=0)
    points = {s.side: s.points for s in seats}
    players.until_step("3.613")
    axis, british = _seat(players, "axis"), _seat(players, "british")
    for seat in (axis, british):
        assert "Roll dr: SAN Adjustment" not in seat.buttons(), seat.buttons()
        assert "SAN 2" in seat.text or "SAN: 2" in seat.text, seat.text[:1500]
    after = {s.side: (s.san, s.points) for s in seats.all()}
    assert after == {"axis": (2, points["axis"]), "british": (2, points["british"])}, after


def test_drawn_3_605_setup_area_ids_stand_once_the_side_is_done(users, modules):
    """3.605 MARKING THE MAP (drawn, seed line 42): "After all Setup Areas have been
    determined, each side should record ... an ID for each one ... once all Setup Areas
    have been correctly marked, they remain thus until the start of the next CG
    scenario" (pass 22's Left: a change after the side's Done).  CG II's 3.605 pages:
    the Axis list A, B and press Done; their page then offers no "Record my Setup
    Areas", and a forged list "C" is refused citing 3.605, the list unchanged on both
    pages; the British, not yet done, still record theirs; the Axis, their Done taken
    back (asked, the British accepting), list again."""
    players, _ = campaign_at("sicily", "ii", "jul16pm", users, step="3.605")
    axis, british = _seat(players, "axis"), _seat(players, "british")
    words = "Record my Setup Areas"
    _rolled(axis, words, areas="A, B")
    _rolled(axis, "Done with 3.605")
    assert words not in axis.buttons(), axis.buttons()
    forged = _forge(axis, "setup-areas", areas="C")
    assert forged.refused and "3.605" in forged.text, (forged.status, forged.text[:400])
    assert forged.text.count("othing was changed") == 1, forged.text
    assert SeatModel.objects.get(campaign_id=players.campaign_id, side="axis").setup_areas == [
        "A",
        "B",
    ]
    assert "Axis Setup Areas: A, B" in british.open(), british.text[:3000]
    _rolled(british, words, areas="North")
    assert "British Setup Areas: North" in axis.open(), axis.text[:3000]
    _rolled(axis, "Ask to take back my Done at 3.605")
    british.open()
    _rolled(british, "Accept the takeback")
    axis.open()
    _rolled(axis, words, areas="A, C")
    assert "Axis Setup Areas: A, C" in british.open(), british.text[:3000]


def _buys(seat, group: str) -> list[str]:
    return [b for b in seat.buttons() if b.startswith(f"Buy {group} ")]


def test_drawn_axis_fn_o_the_i6_not_sold_on_july_16_night(users, modules):
    """Axis chart footnote o (drawn, seed line 260): "Only eligible for purchase after
    July 16 N."  CG I, July 16 Night (the date itself, one short of the limit): the I6
    row sells nothing and a forged I6 buy is refused citing footnote o, the CPP
    unchanged; the British chart (no such footnote) still sells its I-type RGs.  (July
    17 AM, the first date after, sells the I6 at its three prices: pass 22's
    test_axis_fn_m_two_coys_a_date_the_third_refused_and_a_cancel_gives_it_back.)"""
    from tests.test_sicb18_pass18 import _seats
    from tests.test_sicb22_pass22 import _cpp

    players, _ = campaign_at("sicily", "i", "jul16n", users, points=200)
    seats = _seats(players)
    axis, british = seats["axis"], seats["british"]
    axis.open()
    assert not _buys(axis, "I6") and _buys(axis, "I7"), axis.buttons()
    forged = _forge(axis, "buy", group="I6")
    assert forged.refused and "footnote o" in forged.text, (forged.status, forged.text[:400])
    assert _cpp(axis) == "You have 200 CPP"
    british.open()
    assert [b for b in british.buttons() if b.startswith("Buy I")], british.buttons()


def test_drawn_fn_r_the_axis_recon_dr_plus_5_only_for_the_2_cpp_m2(users, modules, fixed_dice):
    """Axis chart footnote r (drawn, seed line 305): "If purchased for 2 CPP the player
    receives a +5 drm to the Recon dr."  CG I, July 17 AM, the Axis page: one M2 bought
    for 2 CPP and one for 1 CPP (the chart's date limit, 2); at 3.620 the dr of each is
    made on the page with the same die, 1: the 2 CPP M2 gives 1 +5 = 6 Locations, the 1
    CPP M2 gives 1 (the complement).  The British page reads neither number."""
    from tests.test_sicb18_pass18 import _seats
    from tests.test_sicb22_pass22 import _cpp

    players, _ = campaign_at("sicily", "i", "jul17am", users, points=30)
    seats = _seats(players)
    axis, british = seats["axis"], seats["british"]
    axis.open()
    assert axis.press("Buy M2 Recon for 2 CPP").status == 200
    assert axis.press("Buy M2 Recon for 1 CPP").status == 200
    assert _cpp(axis) == "You have 27 CPP"
    players.until_step("3.620")
    axis.open()
    fixed_dice.extend([[1], [1]])
    assert axis.press("Recon dr for M2 (+5 drm)").status == 200
    assert axis.press("Recon dr for M2").status == 200
    said = axis.open()
    assert "Recon Locations" in said, said[:3000]
    log = _log(players)
    assert "Recon dr of M2: dr 1, +5 M2 bought for 2 CPP → 6 Locations." in log, log[-600:]
    assert "Recon dr of M2: dr 1 → 1 Location." in log, log[-600:]
    british.open()
    assert "Recon dr for M2" not in british.text, british.text[:3000]


def test_drawn_3_617_the_cpp_and_rgs_bought_may_be_kept_secret(users, modules):
    """3.617 (drawn, seed line 197) "The CPP expended, those remaining, and the RG(s)
    purchased may all be kept secret", and 3.6172 (drawn, seed line 199) "This name and
    its ID are secretly recorded on the RG Purchase Record": CG I, July 17 AM.  The
    British page and roster read the same words before and after the Axis buy the I7
    and an M2 (180 CPP left of 200); the Axis page reads its own buys and CPP."""
    from tests.page_play import Seat
    from tests.test_sicb18_pass18 import _seats
    from tests.test_sicb22_pass22 import _cpp

    players, _ = campaign_at("sicily", "i", "jul17am", users, points=200)
    seats = _seats(players)
    axis, british = seats["axis"], seats["british"]
    roster = Seat(players.users["british"], players.campaign_id, "roster/")
    before = (british.open(), roster.open())
    axis.open()
    assert axis.press("Buy I7 Italian Infantry Coy for 12 CPP").status == 200
    assert axis.press("Buy M2 Recon for 2 CPP").status == 200
    assert _cpp(axis) == "You have 186 CPP"
    after = (british.open(), roster.open())
    assert after == before


def test_drawn_3_6175_i_type_on_map_for_20_percent_more_fru(users, modules):
    """3.6175 (drawn, seed line 202): "The Axis or British player may purchase "I" type
    RGs for Standard On-Map Setup by spending 20% more (FRU) than the printed value."
    CG I, July 17 AM: the British I3 (printed 7: 8.4 rounded up) sells for 7 or 9 CPP,
    the I1 (18: 21.6) for 18 or 22; the Axis I7 (12: 14.4) for 15; a V-type row (the
    British V1, the Axis V1) has no on-map price (the complement).  The 9 CPP I3 bought:
    200 -> 191 CPP."""
    from tests.test_sicb18_pass18 import _seats
    from tests.test_sicb22_pass22 import _cpp

    players, _ = campaign_at("sicily", "i", "jul17am", users, points=200)
    seats = _seats(players)
    axis, british = seats["axis"], seats["british"]
    british.open()
    i3, i1, v1 = (_buys(british, g) for g in ("I3", "I1", "V1"))
    on_map = "for Standard On-Map Setup (20% more, FRU)"
    assert [b.split(" for ", 1)[1] for b in i3] == ["7 CPP", "9 CPP, I RG " + on_map], i3
    assert any(b.endswith("for 22 CPP, I RG " + on_map) for b in i1), i1
    assert v1 and all(on_map not in b for b in v1), v1
    axis.open()
    assert any("for 15 CPP, I RG " + on_map in b for b in _buys(axis, "I7")), _buys(axis, "I7")
    assert _buys(axis, "V1") and all(on_map not in b for b in _buys(axis, "V1"))
    on_map = next(b for b in i3 if "for 9 CPP" in b)
    assert british.press(on_map).status == 200
    assert _cpp(british) == "You have 191 CPP"


def test_drawn_3_6041_the_equipment_of_an_eliminated_encircled_unit_stays_unpossessed(
    users, modules, fixed_dice
):
    """3.6041 (drawn, seed line 29): "Otherwise, any Equipment that an Eliminated
    Encircled unit possessed is left in the Location unpossessed."  The Axis page of CG
    I (July 15 AM): the Encircled 4-6-7 holding an MG 42 fails its 1TC (DR 4+4 = 8 >
    Morale 7): the squad is gone, the MG 42 stays on the Axis roster, "not
    possessed"; the British Encircled 4-5-8 holding a Bren passes (DR 4+4 = 8): the
    Bren is still his (the complement)."""
    from tests.page_play import Seat
    from tests.purchase_helpers import add_unit

    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.604")
    squad = add_unit(players, "axis", "4-6-7", "squad", "encircled")
    mg = add_unit(players, "axis", "MG 42", "sw", possessor=squad.ref)
    brit = add_unit(players, "british", "4-5-8", "squad", "encircled")
    bren = add_unit(players, "british", "Bren LMG", "sw", possessor=brit.ref)
    axis, british = _seat(players, "axis"), _seat(players, "british")
    words = "Roll DR: Encirclement 1TC"
    fixed_dice.append([4, 4])
    _rolled(axis, words, unit=squad.ref)
    assert _gone(squad) and not _gone(mg), _log(players)[-300:]
    mg.refresh_from_db()
    assert mg.possessor_id is None and "unpossessed" in mg.markers, mg.markers
    roster = Seat(players.users["axis"], players.campaign_id, "roster/").open()
    assert "Retained forces Axis MG 42 — not possessed" in roster, roster[:3000]
    fixed_dice.append([4, 4])
    _rolled(british, words, unit=brit.ref)
    bren.refresh_from_db()
    assert bren.possessor_id == brit.pk and "unpossessed" not in bren.markers


def test_3_606_footnote_6_the_crew_of_a_row_10_vehicle_keeps_what_it_scrounged(
    users, modules, fixed_dice
):
    """3.606 footnote 6 (pass 22's Left): "Eliminated [6]; crew (if any) Escapes" and
    "The surviving crew (if any) may attempt to Scrounge the vehicle prior to its
    Elimination."  The RePh after July 15 AM (a day), the Axis page: the Isolated StuG's
    DR 4+4 +2 = 10: the StuG leaves the retained forces, its 2-2-8 crew is Retained as
    a line of its own, and the page prints footnote 6's words under the table where the
    result reads "[6]".  What the crew scrounged (D10.5) is the map's; its owner adds
    it on the retained forces (an MG 34), which the roster then lists.  The complement, DR 4+3 +2 =
    9 for a second StuG: Abandoned [4,5], the vehicle kept (footnote 6 not in play)."""
    from tests.page_play import Seat

    players, _ = campaign_at("sicily", "i", "jul15pm", users, step="3.606")
    stug = add(players, "axis", "StuG IIIG", "vehicle", status="isolated")
    other = add(players, "axis", "StuG IIIG", "vehicle", status="isolated")
    axis = _seat(players, "axis")
    fixed_dice.append([4, 4])
    _rolled(axis, "Roll DR: Escape", unit=stug.ref, stack="")
    said = _log(players).rsplit("Escape for", 1)[1]
    assert "→ 10: Mobile Vehicle: Eliminated [6]; crew (if any) Escapes" in said, said
    assert _gone(stug)
    page = axis.open()
    assert (
        "[6] The surviving crew (if any) may attempt to Scrounge the vehicle prior to its "
        "Elimination." in page
    ), page[:3000]
    roster = Seat(players.users["axis"], players.campaign_id, "roster/")
    roster.open()
    assert "2-2-8 crew — in good order" in roster.text, roster.text[:3000]
    assert roster.press("Add", name="MG 34", kind="sw").status == 200
    assert "MG 34 — in good order" in roster.open(), roster.text[:3000]
    fixed_dice.append([4, 3])
    _rolled(axis, "Roll DR: Escape", unit=other.ref, stack="")
    assert "abandoned" in _markers(other), _log(players)[-300:]


def test_drawn_3_6141c_a_recalled_isolated_british_afv_stays_recalled_with_low_ammo(users, modules):
    """3.6141c (drawn, seed line 146): "If Mobile, under Recall, and Isolated, such an AFV
    begins the next scenario under Recall (as well as suffering from Ammunition
    Shortage;A19.131)."  The British pages of CG I (July 15 AM): both sides press Done
    with 3.613; at 3.614 the Mobile, Recalled, Isolated Sherman is still recalled and
    marked Low Ammo on the roster; the Recalled, non-Isolated Daimler leaves Recall with
    no Low Ammo; the Recalled, Isolated, immobilized Sherman (not Mobile) gets none."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.613")
    kept = add(
        players, "british", "Sherman III", "vehicle", status="recalled", markers=["isolated"]
    )
    free = add(players, "british", "Daimler AC", "vehicle", status="recalled")
    stuck = add(
        players,
        "british",
        "Sherman III",
        "vehicle",
        status="recalled",
        markers=["isolated", "immobilized"],
    )
    for side in ("axis", "british"):
        _rolled(_seat(players, side), "Done with 3.613")
    assert players.step.id == "3.614", players.step.id
    assert set(_markers(kept)) == {"isolated", "recalled", "low_ammo"}, _markers(kept)
    assert _markers(free) == [], _markers(free)
    assert "low_ammo" not in _markers(stuck), _markers(stuck)
    from tests.page_play import Seat

    roster = Seat(players.users["british"], players.campaign_id, "roster/").open()
    assert "Low Ammo" in roster.split("Retained forces", 1)[1], roster[:3000]


def test_3_6041_an_unclaimed_prisoner_rearmed_takes_his_guards_dropped_equipment(
    users, modules, fixed_dice
):
    """3.6041 (pass 22's Left): "Each prisoner that an Eliminated Encircled unit was
    Guarding must, if possible, be claimed by another unit in that Location friendly to
    the eliminated unit. If the prisoner is not claimed, it is considered Rearmed
    (A20.551) and may automatically possess any Equipment dropped by its Eliminated
    Guard."  Refit records no Guard nor Location (who claims him is the map's), so the
    path is played on the retained forces: CG I (July 15 AM), the Axis Encircled 4-6-7
    holding an MG 42 fails its 1TC (DR 4+4 = 8 > 7): gone, the MG 42 left not
    possessed; the British prisoner (a 4-5-8 marked captured, no 1TC of his own: the
    EXC) is not claimed: the British clear his captured marker (Rearmed) and add the MG
    42 as captured; the Axis remove their dropped MG 42 line (a correction).  Both rosters then
    read the 4-5-8 in good order and the MG 42 on the British side only."""
    from tests.page_play import Seat
    from tests.purchase_helpers import add_unit

    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.604")
    guard = add_unit(players, "axis", "4-6-7", "squad", "encircled")
    add_unit(players, "axis", "MG 42", "sw", possessor=guard.ref)
    pris = add(players, "british", "4-5-8", "squad", status="captured")
    axis, british = _seat(players, "axis"), _seat(players, "british")
    words = "Roll DR: Encirclement 1TC"
    assert words not in british.buttons() or pris.ref not in [
        v for v, _ in british.options(words, "unit")
    ]
    fixed_dice.append([4, 4])
    _rolled(axis, words, unit=guard.ref)
    assert _gone(guard)
    mine = Seat(players.users["british"], players.campaign_id, "roster/")
    mine.open()
    assert mine.press("Save", markers="").status == 200
    assert _markers(pris) == [], _markers(pris)
    assert mine.press("Add", name="MG 42", kind="sw", markers="captured").status == 200
    theirs = Seat(players.users["axis"], players.campaign_id, "roster/")
    theirs.open()
    assert "Retained forces Axis MG 42 — not possessed" in theirs.text, theirs.text[:3000]
    assert theirs.press("Remove").status == 200
    for seat in (mine, theirs):
        said = seat.open().split("Retained forces", 1)[1]
        axis_part, british_part = said.split(" British 4-5-8 — ", 1)
        assert "MG 42 — not possessed" not in axis_part, axis_part[:300]
        assert british_part.startswith("in good order"), british_part[:300]
        assert "MG 42 — captured" in british_part, british_part[:400]
