"""Sicily (seed 001), RePh 3.601-3.614, the twenty-second pass of the sentence audit
(issue 44): each sentence at its edges.  Every number a player can reach played AT its
boundary and ONE PAST it, every exception and its complement, the undo of what a side
can take back, and twenty sentences drawn at random from the seed (random.Random(22)),
through the pages (tests/page_play.py) for each side (docs/rules-audit/pass-22-sica22.md)."""

from __future__ import annotations

import pytest

from campaign.models import Seat as SeatModel
from campaign.models import Unit
from tests import test_rule_mechanisms as mechanisms
from tests.purchase_helpers import campaign_at
from tests.test_rule_mechanisms import add
from tests.test_sica18_pass18 import _forge, _seat
from tests.test_sica21_pass21 import _dones, _log, _markers

users = mechanisms.users
fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


def _gone(unit) -> bool:
    return not Unit.objects.filter(pk=unit.pk).exists()


def _rolled(seat, words, **typed):
    made = seat.press(words, **typed)
    assert made.status == 200 and not made.refused, made.text[:400]
    return made


# --------------------------------------------------------------------------- Part A: numbers


def test_3_610_wounded_leaders_at_each_row_boundary(users, modules, fixed_dice):
    """3.610 "≤ 1 | Retained unwounded", "2-4 | Retained wounded", "≥ 5 | Eliminated
    (evacuated)", "+1 if Isolated", "-1 if Heroic": at each edge on the Axis page of CG
    II.  dr 1: unwounded; dr 2: still wounded; the Isolated 8-1's dr 4 +1 = 5:
    evacuated; the heroic 9-1's dr 2 -1 = 1: unwounded; the British 7-0's dr 4: still
    wounded (the last of the middle row)."""
    players, _ = campaign_at("sicily", "ii", "jul16pm", users, step="3.610")
    one = add(players, "axis", "8-0 leader", "leader", status="wounded")
    two = add(players, "axis", "7-0 leader", "leader", status="wounded")
    iso = add(players, "axis", "8-1 leader", "leader", status="wounded", markers=["isolated"])
    hero = add(players, "axis", "9-1 leader", "leader", status="wounded", markers=["heroic"])
    brit = add(players, "british", "7-0 leader", "leader", status="wounded")
    axis, british = _seat(players, "axis"), _seat(players, "british")
    words = "Roll dr: Wounded Leaders"
    fixed_dice.append([1])
    _rolled(axis, words, unit=one.ref)
    assert "wounded" not in _markers(one)
    fixed_dice.append([2])
    _rolled(axis, words, unit=two.ref)
    assert "wounded" in _markers(two)
    fixed_dice.append([4])
    _rolled(axis, words, unit=iso.ref)
    assert _gone(iso), _log(players)[-300:]
    fixed_dice.append([2])
    _rolled(axis, words, unit=hero.ref)
    assert "wounded" not in _markers(hero), _log(players)[-300:]
    fixed_dice.append([4])
    _rolled(british, words, unit=brit.ref)
    assert "wounded" in _markers(brit)


def test_3_6141b_3_6141d_repair_and_stun_at_each_row_boundary(users, modules, fixed_dice):
    """3.6141b "≤ 2 | Becomes Mobile*", "≥ 3 | No change", "+1 if Isolated"; 3.6141d
    "≤ 2 | Recover", "3-5 | Retain stun", "≥ 6 | Eliminated", "+1 if German", on the
    3.614 pages of CG I (July 15 AM).  Axis PSW dr 2: Mobile; the Axis Isolated StuG's
    dr 2 +1 = 3: no change; the British Sherman's stun dr 2: recovered; the British
    Daimler's stun dr 5: kept (no German drm for the British); the Axis StuG IIIG's stun
    dr 5 +1 (German) = 6: Eliminated; the Axis Semovente 75/18 (Italian) dr 5: kept."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.614")
    psw = add(players, "axis", "PSW 234/1", "vehicle", status="immobilized")
    iso = add(players, "axis", "Marder III", "vehicle", status="immobilized", markers=["isolated"])
    stug = add(players, "axis", "StuG IIIG", "vehicle", status="stunned")
    semo = add(players, "axis", "Semovente 75/18", "vehicle", status="stunned")
    sherman = add(players, "british", "Sherman III", "vehicle", status="stunned")
    daimler = add(players, "british", "Daimler AC", "vehicle", status="stunned")
    axis, british = _seat(players, "axis"), _seat(players, "british")
    repair, stun = "Roll dr: Immobilization Repair", "Roll dr: Stun Recovery"
    fixed_dice.append([2])
    _rolled(axis, repair, unit=psw.ref)
    assert _markers(psw) == []
    fixed_dice.append([2])
    _rolled(axis, repair, unit=iso.ref)
    assert "immobilized" in _markers(iso), _log(players)[-300:]
    fixed_dice.append([2])
    _rolled(british, stun, unit=sherman.ref)
    assert _markers(sherman) == []
    fixed_dice.append([5])
    _rolled(british, stun, unit=daimler.ref)
    assert _markers(daimler) == ["stunned"], _log(players)[-300:]
    fixed_dice.append([5])
    _rolled(axis, stun, unit=stug.ref)
    assert _gone(stug), _log(players)[-300:]
    ticks = axis.form_of(stun).choices.get("tick", [])
    fixed_dice.append([5])
    _rolled(axis, stun, unit=semo.ref)
    assert _markers(semo) == ["stunned"], (ticks, _log(players)[-300:])


def test_3_6142_weapon_repair_at_its_boundary_and_the_repair_number(users, modules, fixed_dice):
    """3.6142 "≤ 1 | Repaired", "≥ 2 | Eliminated*", "-x | (Weapon Repair Number)": the
    Axis MG 42 with Repair Number 1 (-1): dr 2 -1 = 1 repaired; a second MG 42's dr 3 -1
    = 2: Eliminated; a Repair Number typed 0 or 7 (no weapon has one) is refused with
    the rule, nothing rolled."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.614")
    one = add(players, "axis", "MG 42", "sw", status="malfunctioned")
    two = add(players, "axis", "MG 42", "sw", status="malfunctioned")
    axis = _seat(players, "axis")
    words = "Roll dr: Weapon Repair"
    form = axis.form_of(words)
    field = next(n for n, _ in form.fields if "repair_number" in n)
    for bad in ("0", "-7"):
        said = axis.press(words, unit=one.ref, **{field: bad})
        assert said.refused and "3.6142" in said.text, (bad, said.status, said.text[:300])
    assert "malfunctioned" in _markers(one)
    fixed_dice.append([2])
    _rolled(axis, words, unit=one.ref, **{field: "-1"})
    assert _markers(one) == [], _log(players)[-300:]
    fixed_dice.append([3])
    _rolled(axis, words, unit=two.ref, **{field: "-1"})
    assert _gone(two), _log(players)[-300:]


def test_3_61424_special_ammo_british_window_first_date(users, modules, fixed_dice):
    """3.61424 "[EXC: British weapons prior to July 15 AM CG Date]", "≤ 3 | Restores",
    "≥ 4 | NA": the RePh after July 14 PM (3.614 falls on the new CG Date, July 14
    Night): the British page offers no Special Ammo dr, the Axis page does; the RePh
    after July 14 Night (3.614 on July 15 AM, the first date of the window): the British
    page offers it, dr 3 restores, dr 4 does not."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, step="3.614")
    add(players, "british", "6 Pounder AT Gun", "gun")
    add(players, "axis", "7.5cm PaK 40", "gun")
    words = "Roll dr: Special Ammo"
    assert words not in _seat(players, "british").buttons()
    assert words in _seat(players, "axis").buttons()
    players2, _ = campaign_at("sicily", "i", "jul15am", users, step="3.614")
    gun = add(players2, "british", "6 Pounder AT Gun", "gun")
    british = _seat(players2, "british")
    assert words in british.buttons(), british.buttons()
    fixed_dice.append([3])
    _rolled(british, words, unit=gun.ref, item="APDS")
    assert "Restores" in _log(players2)[-300:], _log(players2)[-300:]
    fixed_dice.append([4])
    _rolled(british, words, unit=gun.ref, item="Smoke")
    assert "still depleted" in _log(players2)[-300:], _log(players2)[-300:]


def test_3_6122_san_adjustment_at_its_thresholds(users, modules, fixed_dice):
    """3.6122 "A side whose SAN is currently < 2 has it automatically raised to 2", "If a
    side has a SAN ≥ 4, a SAN adjustment dr must be made with a +drm equal to the current
    SAN minus 4. A Final dr ≥ 5 immediately reduces that sides SAN by two", on CG II's
    pages.  The Axis SAN 1 is raised to 2 and owes no dr; the British SAN 4 (the first
    SAN that rolls) owes one, +0: dr 4 leaves it at 4.  On the next campaign the Axis
    SAN 3 (one below) owes none and stays 3, the British SAN 4's dr 5 lowers it to 2."""
    words = "Roll dr: SAN Adjustment"
    for axis_san, dr, after in ((1, 4, (2, 4)), (3, 5, (3, 2))):
        players, _ = campaign_at("sicily", "ii", "jul16pm", users, step="3.611")
        seats = SeatModel.objects.filter(campaign_id=players.campaign_id)
        seats.filter(side="axis").update(san=axis_san)
        seats.filter(side="british").update(san=4)
        players.until_step("3.6122")
        axis, british = _seat(players, "axis"), _seat(players, "british")
        assert words not in axis.buttons(), axis.buttons()
        assert words in british.buttons() and not _dones(british), british.buttons()
        assert "+0" in british.text or "+ (current SAN - 4)" in british.text, british.text[:2000]
        fixed_dice.append([dr])
        _rolled(british, words)
        assert (seats.get(side="axis").san, seats.get(side="british").san) == after, _log(players)[
            -300:
        ]


def test_3_613_shift_rows_and_the_uncontrolled_hexes_at_their_edges(users, modules, fixed_dice):
    """3.613 "≤ 8 | Shifted safely", "9-10 | No Shift*", "11 | Shifted with Casualties†",
    "≥ 12 | All units ... Eliminated", "+1 | Per five (FRD) Uncontrolled-Territory
    hexes along that path": the British pages of CG I (July 15 AM).  DR 4+4 = 8: safely;
    DR 4+5 = 9: no Shift; 4 hexes typed (+0): DR 5+5 = 10 no Shift; 5 hexes (+1): DR 5+5
    +1 = 11: with Casualties; 9 hexes (+1, FRD): DR 5+5 +1 = 11; 10 hexes (+2): DR 5+5
    +2 = 12: all Eliminated.  A negative count is refused."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.613")
    made = [add(players, "british", "4-5-8", "squad") for _ in range(6)]
    british = _seat(players, "british")
    words = "Roll DR: Shift"
    form = british.form_of(words)
    count = next((n for n, _ in form.fields if "uncontrolled" in n), None)
    assert count, form.fields
    refused = british.press(words, unit=made[0].ref, stack="", **{count: "-5"})
    assert refused.refused, (refused.status, refused.text[:300])
    cases = [
        ([4, 4], "", "Shifted safely"),
        ([4, 5], "", "No Shift"),
        ([5, 5], "4", "No Shift"),
        ([5, 5], "5", "Shifted with Casualties"),
        ([5, 5], "9", "Shifted with Casualties"),
        ([5, 5], "10", "All units"),
    ]
    for unit, (faces, hexes, result) in zip(made, cases, strict=True):
        fixed_dice.append(faces)
        _rolled(british, words, unit=unit.ref, stack="", **{count: hexes})
        said = _log(players)[-300:]
        assert result in said, (faces, hexes, said)
    assert _gone(made[5])


def test_3_6041_encirclement_1tc_at_the_units_morale(users, modules, fixed_dice):
    """3.6041 "Each encircled unit [EXC: Prisoner] must take a separate 1TC": a 1TC passed
    by a DR ≤ Morale (A12.1).  The Axis Encircled 4-6-7 (Morale 7): DR 3+4 = 7 passes,
    it stays; a second one's DR 4+4 = 8 fails: Eliminated.  An Encircled 4-6-7 held
    prisoner (captured) is not offered (the EXC); the British Encircled 4-5-8 (Morale
    8): DR 4+4 = 8 passes."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.604")
    one = add(players, "axis", "4-6-7", "squad", status="encircled")
    two = add(players, "axis", "4-6-7", "squad", status="encircled")
    pris = add(players, "axis", "4-6-7", "squad", status="encircled", markers=["captured"])
    brit = add(players, "british", "4-5-8", "squad", status="encircled")
    axis, british = _seat(players, "axis"), _seat(players, "british")
    words = "Roll DR: Encirclement 1TC"
    offered = [v for v, _ in axis.options(words, "unit")]
    assert one.ref in offered and pris.ref not in offered, offered
    fixed_dice.append([3, 4])
    _rolled(axis, words, unit=one.ref)
    assert not _gone(one), _log(players)[-300:]
    fixed_dice.append([4, 4])
    _rolled(axis, words, unit=two.ref)
    assert _gone(two), _log(players)[-300:]
    fixed_dice.append([4, 4])
    _rolled(british, words, unit=brit.ref)
    assert not _gone(brit), _log(players)[-300:]


def test_3_606_escape_rows_8_9_and_the_night_drm_by_date(users, modules, fixed_dice):
    """3.606 "≥ 8 | Escapes" (first row, ≤ 8) and "9 | Escapes; Replaced", "-1 | If
    current CG Date is Night*", "* NA to vehicle Escape attempt": the RePh after July 14
    Night (3.606 falls on that Night date): the British 4-5-8's DR 3+3 +1 (a squad is
    two HS-equivalents) +2 (Isolated) -1 (Night) = 8: Escapes; another's DR 3+4 ... = 9:
    Replaced; the Isolated Sherman's DR 3+3 +2 = 8 (no Night drm for a vehicle).  The
    RePh after July 15 AM (a day): DR 3+3 +1 +2 = 8 with no Night drm."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.606")
    one = add(players, "british", "4-5-8", "squad", status="isolated")
    two = add(players, "british", "4-5-8", "squad", status="isolated")
    tank = add(players, "british", "Sherman III", "vehicle", status="isolated")
    british = _seat(players, "british")
    words = "Roll DR: Escape"
    fixed_dice.append([3, 3])
    _rolled(british, words, unit=one.ref, stack="")
    said = _log(players)[-300:]
    assert "Night" in said and "→ 8" in said and "Escapes" in said, said
    assert "replace_due" not in _markers(one)
    fixed_dice.append([3, 4])
    _rolled(british, words, unit=two.ref, stack="")
    assert "replace_due" in _markers(two), _log(players)[-300:]
    fixed_dice.append([3, 3])
    _rolled(british, words, unit=tank.ref, stack="")
    said = _log(players)[-300:]
    assert "Night" not in said and "→ 8" in said, said
    day, _ = campaign_at("sicily", "i", "jul15pm", users, step="3.606")
    three = add(day, "british", "4-5-8", "squad", status="isolated")
    fixed_dice.append([3, 3])
    _rolled(_seat(day, "british"), words, unit=three.ref, stack="")
    said = _log(day)[-300:]
    assert "Night" not in said and "→ 9" in said, said


def test_3_61426_british_tanks_at_night_only_isolated_shermans(users, modules, fixed_dice):
    """3.61426 "If this is a Night CG Date, ... all mobile Isolated British Tanks must now
    attempt Escape": at 3.614 of the RePh after July 14 PM (3.614 falls on July 14
    Night) the British page owes the Isolated Sherman's Escape (Done waits) and not the
    non-Isolated Sherman's, the Isolated Daimler's (no tank), nor the immobilized
    Isolated Sherman's; the Axis page owes none for its Isolated StuG.  On July 15 AM
    (a day) nothing is owed."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, step="3.614")
    iso = add(players, "british", "Sherman III", "vehicle", status="isolated")
    add(players, "british", "Sherman III", "vehicle")
    daim = add(players, "british", "Daimler AC", "vehicle", status="isolated")
    imm = add(
        players, "british", "Sherman III", "vehicle", status="isolated", markers=["immobilized"]
    )
    add(players, "axis", "StuG IIIG", "vehicle", status="isolated")
    british, axis = _seat(players, "british"), _seat(players, "axis")
    words = next(b for b in british.buttons() if "British tanks at Night" in b)
    offered = [v for v, _ in british.options(words, "unit")]
    assert offered == [iso.ref], (offered, daim.ref, imm.ref)
    assert not [b for b in axis.buttons() if "tanks at Night" in b], axis.buttons()
    assert not _dones(british), british.buttons()
    day, _ = campaign_at("sicily", "i", "jul15am", users, step="3.614")
    add(day, "british", "Sherman III", "vehicle", status="isolated")
    seat = _seat(day, "british")
    assert not [b for b in seat.buttons() if "tanks at Night" in b], seat.buttons()


# --------------------------------------------------------------------------- Part B: exceptions


def test_3_606_drm_exclusions_and_bounds_forged(users, modules, fixed_dice):
    """3.606 "-2 | If adjacent to a friendly Setup Area (-1 if two hexes away ...)" (one
    or the other), "-1 | If lone, unwounded SMC" (not a wounded one), "-1 | if CT AFV"
    (a vehicle's), "+x | (Armor-)Leader/" (a 10-3's -3 to a 6+1's +1), "+1 per HS-
    equivalent > one HS": forged posts on the Axis page of CG II.  Both Setup Area
    ticks: refused; the lone SMC's tick for the wounded 8-1: refused; the CT AFV's for a
    squad: refused; a leader DRM of -4 or +2: refused; nothing rolled.  Two HS in one
    stack: +1; a HS alone: +0."""
    players, _ = campaign_at("sicily", "ii", "jul16pm", users, step="3.606")
    sq = add(players, "axis", "4-6-7", "squad", status="isolated")
    wl = add(players, "axis", "8-1 leader", "leader", status="wounded")
    h1 = add(players, "axis", "2-4-7", "half_squad")
    h2 = add(players, "axis", "2-4-7", "half_squad")
    h3 = add(players, "axis", "2-4-7", "half_squad")
    axis = _seat(players, "axis")
    words = "Roll DR: Escape"
    form = axis.form_of(words)
    lead = next(n for n, _ in form.fields if "leader" in n)
    ticks = form.choices.get("tick", [])
    assert {"adjacent_setup_area", "two_hexes_setup_area", "lone_smc"} <= set(ticks), ticks

    def refused(**typed):
        said = axis.press(words, **typed)
        assert said.refused, (typed, said.status, said.text[:300])
        assert "3.606" in said.text, said.text[:300]

    data = {n: v for n, v in form.fields}
    both = {
        **data,
        "unit": sq.ref,
        "stack": "",
        "tick": ["adjacent_setup_area", "two_hexes_setup_area"],
    }
    # Two ticks of one form, as a forged page would send them.
    said = axis.client.post(form.action, both, HTTP_HX_REQUEST="true")
    assert 400 <= said.status_code < 500, said.content[:300]
    refused(unit=wl.ref, stack="", tick="lone_smc")
    refused(unit=sq.ref, stack="", tick="ct_afv")
    refused(unit=sq.ref, stack="", **{lead: "-4"})
    refused(unit=sq.ref, stack="", **{lead: "2"})
    assert "isolated" in _markers(sq)
    fixed_dice.append([2, 3])
    _rolled(axis, words, unit=h1.ref, stack=h2.ref)
    said = _log(players)[-400:]
    assert "→ 6" in said, said
    fixed_dice.append([2, 3])
    _rolled(axis, words, unit=h3.ref, stack="")
    said = _log(players)[-120:]
    assert "DR 2+3 = 5: Infantry" in said and "HS-equivalent" not in said, said


def test_3_6112_a_hero_left_at_done_is_eliminated_and_a_crew_is_not_hardened(users, modules):
    """3.6112 "each Retained Hero [EXC: Heroic Leader; 3.6113] is Eliminated; however,
    each such Elimination enables that side to Battle Harden one non-crew MMC": on the
    British 3.611 page of CG I.  The 2-2-8 crew is not offered to be hardened (and a
    forged post is refused, citing 3.6112); the Hero is given up for the 4-5-8.  The
    Axis Hero, not given up, is Eliminated all the same when 3.611 ends; the heroic 9-2
    leader is not (3.6113: he hardens to 10-2 and loses his heroic status), a heroic
    10-3 only loses it."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.611")
    hero = add(players, "british", "Hero 1-4-9", "hero")
    crew = add(players, "british", "2-2-8 Crew", "half_squad")
    squad = add(players, "british", "4-5-8", "squad")
    ahero = add(players, "axis", "Hero 1-4-9", "hero")
    nine = add(players, "axis", "9-2 leader", "leader", status="heroic")
    ten = add(players, "axis", "10-3 leader", "leader", status="heroic")
    british = _seat(players, "british")
    words = "Mark battle hardened"
    assert crew.ref not in [v for v, _ in british.options(words, "mark")]
    said = british.press(words, give=hero.ref, mark=crew.ref)
    assert said.refused and "3.6112" in said.text, said.text[:300]
    _rolled(british, words, give=hero.ref, mark=squad.ref)
    assert _markers(squad) == ["battle_hardened"]
    players.until_step("3.613")
    assert _gone(ahero) and _gone(hero)
    names = {u.name: sorted(u.markers) for u in Unit.objects.filter(pk__in=[nine.pk, ten.pk])}
    assert names == {"10-2 leader": [], "10-3 leader": []}, names


def test_3_6062_3_608_3_61425_what_step_ends_clear_and_keep(users, modules):
    """The settles of the range, each with its exception's complement: 3.6062 "All
    Encircled markers are now removed" (when 3.606 ends: every unit, both sides); 3.608
    "Each prisoner guarded by a non-Isolated unit is Eliminated. An Isolated Guard may
    retain possession of his prisoner(s)": the Axis 4-6-7 held prisoner goes, the one
    marked Isolated (its Guard's) stays; 3.61425 "Each Low Ammo marker on each
    non-captured, non-Isolated vehicle is removed": the British Sherman's goes, the
    Isolated Sherman's and the captured StuG's stay."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.606")
    enc = add(players, "british", "4-5-8", "squad", status="encircled")
    aenc = add(players, "axis", "4-6-7", "squad", status="encircled", markers=["isolated"])
    pris = add(players, "axis", "4-6-7", "squad", status="captured")
    ipris = add(players, "axis", "4-6-7", "squad", status="captured", markers=["isolated"])
    low = add(players, "british", "Sherman III", "vehicle", status="low_ammo")
    ilow = add(
        players, "british", "Sherman III", "vehicle", status="low_ammo", markers=["isolated"]
    )
    clow = add(players, "british", "StuG IIIG", "vehicle", status="low_ammo", markers=["captured"])
    players.until_step("3.607")
    assert _markers(enc) == [] and _markers(aenc) == ["isolated"]
    players.until_step("3.609")
    assert _gone(pris) and not _gone(ipris)
    players.until_step("3.615")
    assert _markers(low) == []
    assert "low_ammo" in _markers(ilow) and "low_ammo" in _markers(clow)


# --------------------------------------------------------------------------- Part D: the draw


def test_drawn_3_61421_an_mg_disabled_at_3_6142_is_exchanged_the_same_step(
    users, modules, fixed_dice
):
    """Drawn (Random(22)) #2: 3.61421 "A Disabled, non-Captured, vehicular MG may be
    automatically repaired (even if disabled in step 3.6142) by Eliminating a friendly SW
    LMG"; #16 3.6142 "-1 | if vehicular-mounted"; #13 "≤ 1 | Repaired": on the British
    pages of CG I's last date (the RePh after July 17 AM).  The Sherman's malfunctioned
    AAMG (Repair Number 1): dr 4 -1 (vehicular) -1 = 2, one past "≤ 1 | Repaired":
    Disabled; then, the same step, the roster's Repair AAMG with the British LMG: done,
    the LMG gone."""
    from tests.purchase_helpers import add_vehicle

    players, _ = campaign_at("sicily", "i", "jul17pm", users, step="3.614")
    sherman, (aamg,) = add_vehicle(
        players, "british", "Sherman III", ("mg", ["malfunctioned"], "AAMG")
    )
    lmg = add(players, "british", "LMG", "sw")
    british = _seat(players, "british")
    words = next(b for b in british.buttons() if "vehicular MG" in b)
    fixed_dice.append([4])
    made = _rolled(british, words, unit=f"{sherman.ref}.{aamg}", **{"typed.repair_number": "-1"})
    said = _log(players)[-300:]
    assert "-1 if vehicular-mounted" in said and "→ 2" in said and "Disabled" in said, said
    sherman.refresh_from_db()
    assert [w["markers"] for w in sherman.weapons] == [["disabled"]], sherman.weapons
    roster = _seat(players, "british", "roster/")
    repair = "Repair AAMG (3.61421)"
    assert repair in roster.buttons(), roster.buttons()
    made = roster.press(repair, give=lmg.ref)
    assert made.status < 400 and not made.refused, made.text[:400]
    sherman.refresh_from_db()
    assert [w["markers"] for w in sherman.weapons] == [[]], sherman.weapons
    assert _gone(lmg)


def test_drawn_3_606_row_9_vehicle_and_the_pp_drm_of_cg_i_last_date(users, modules, fixed_dice):
    """Drawn #14: 3.606 "9 | Escapes; Replaced2,3 | Abandoned;4,5 crew (if any)
    Escapes"; #7 "+1 | per PP > IPC being carried ...*" (NA to vehicle Escape); #4 "if
    Isolated | may attempt Escape or remain in place": on the British pages of the RePh
    after July 17 AM.  The Isolated Sherman's DR 3+4 +2 (Isolated) = 9: Abandoned, its
    crew added as a line of its own; a forged excess-PP +2 for it is refused (NA to
    vehicles); the Isolated 4-5-8 carrying 2 PP too many: DR 1+2 +1 +2 +2 = 8, Escapes.
    The Isolated 9-1 may stay: Done is offered without his roll."""
    players, _ = campaign_at("sicily", "i", "jul17pm", users, step="3.606")
    tank = add(players, "british", "Sherman III", "vehicle", status="isolated")
    squad = add(players, "british", "4-5-8", "squad", status="isolated")
    add(players, "british", "9-1 leader", "leader", status="isolated")
    british = _seat(players, "british")
    words = "Roll DR: Escape"
    assert "Done with 3.606" in " ".join(_dones(british)), british.buttons()
    said = british.press(words, unit=tank.ref, stack="", **{"typed.excess_pp": "2"})
    assert said.refused, (said.status, said.text[:300])
    fixed_dice.append([3, 4])
    _rolled(british, words, unit=tank.ref, stack="")
    assert "abandoned" in _markers(tank), _log(players)[-300:]
    crews = Unit.objects.filter(campaign_id=players.campaign_id, side="british", kind="half_squad")
    assert crews.count() == 1, list(crews.values_list("name", flat=True))
    fixed_dice.append([1, 2])
    _rolled(british, words, unit=squad.ref, stack="", **{"typed.excess_pp": "2"})
    said = _log(players)[-300:]
    assert "→ 8" in said and "Escapes" in said, said


def test_drawn_3_613_all_eliminated_with_their_equipment_axis_last_date(users, modules, fixed_dice):
    """Drawn #11: 3.613 "≥ 12 | All units, Inherent Crews and Equipment Eliminated": the
    Axis 4-6-7 possessing an MG 42, stacked with a StuG, on CG I's last RePh (after July
    17 AM): DR 6+6 = 12: the squad, its MG 42 and the StuG leave the retained forces, on
    both sides' rosters; the British 4-5-8 is untouched."""
    players, _ = campaign_at("sicily", "i", "jul17pm", users, step="3.613")
    squad = add(players, "axis", "4-6-7", "squad")
    mg = add(players, "axis", "MG 42", "sw", possessor=squad.ref)
    stug = add(players, "axis", "StuG IIIG", "vehicle")
    brit = add(players, "british", "4-5-8", "squad")
    axis = _seat(players, "axis")
    fixed_dice.append([6, 6])
    _rolled(axis, "Roll DR: Shift", unit=squad.ref, stack=stug.ref)
    assert _gone(squad) and _gone(mg) and _gone(stug), _log(players)[-400:]
    assert not _gone(brit)
    for side in ("axis", "british"):
        said = _seat(players, side, "roster/").text
        assert "MG 42" not in said and "StuG" not in said, said


def test_drawn_3_6111_same_strength_factors_and_3_6141b_captured_abandoned(users, modules):
    """Drawn #12: 3.6111 "All Retained same-class HS with the same strength factors
    within the same Setup/": the British 2-4-8 and 2-3-8 HS do not recombine (refused,
    citing 3.6111), two 2-4-8 do.  #15: 3.6141b "Each non-Captured, non-Abandoned,
    immobilized vehicle must make a dr": at 3.614 the British page owes the immobilized
    Sherman's dr, not the captured immobilized StuG's nor the Abandoned immobilized
    Daimler's."""
    players, _ = campaign_at("sicily", "i", "jul17pm", users, step="3.611")
    a = add(players, "british", "2-4-8", "half_squad")
    b = add(players, "british", "2-3-8", "half_squad")
    c = add(players, "british", "2-4-8", "half_squad")
    british = _seat(players, "british")
    words = "Recombine the two HS"
    said = british.press(words, give=a.ref, mark=b.ref, forms="4-4-8")
    assert said.refused and "3.6111" in said.text, (said.status, said.text[:300])
    assert not _gone(a) and not _gone(b)
    _rolled(british, words, give=a.ref, mark=c.ref, forms="4-4-8")
    players.until_step("3.614")
    sherman = add(players, "british", "Sherman III", "vehicle", status="immobilized")
    stug = add(
        players, "british", "StuG IIIG", "vehicle", status="immobilized", markers=["captured"]
    )
    daim = add(
        players, "british", "Daimler AC", "vehicle", status="immobilized", markers=["abandoned"]
    )
    british = _seat(players, "british")
    offered = [v for v, _ in british.options("Roll dr: Immobilization Repair", "unit")]
    assert offered == [sherman.ref], (offered, stug.ref, daim.ref)


def test_drawn_3_6041_3_6042_prc_and_minefield_ntc_at_morale(users, modules, fixed_dice):
    """Drawn #20: 3.6041 "Failing the 1TC results in the unit's immediate Elimination
    [EXC: Encircled PRC of an Immobile vehicle are Eliminated, leaving the vehicle
    Abandoned]"; #17 3.6042 "Each Infantry unit in an A-P minefield hex ... must take a
    NTC ...; failure of the TC causes Casualty Reduction": the British pages of CG II's
    last date.  The Encircled, immobilized Sherman (crew Morale 8): DR 4+4 = 8 passes;
    another's DR 4+5 = 9 fails: Abandoned, still on the roster.  The 4-5-8 (Morale 8)
    in a minefield: DR 4+4 passes; DR 4+5 fails: Casualty Reduced; the NTC is not owed
    (Done offered)."""
    players, _ = campaign_at("sicily", "ii", "jul17pm", users, step="3.604")
    one = add(
        players, "british", "Sherman III", "vehicle", status="encircled", markers=["immobilized"]
    )
    two = add(
        players, "british", "Sherman III", "vehicle", status="encircled", markers=["immobilized"]
    )
    sq1 = add(players, "british", "4-5-8", "squad")
    sq2 = add(players, "british", "4-5-8", "squad")
    british = _seat(players, "british")
    prc = next(b for b in british.buttons() if "crew of an Immobile" in b)
    fixed_dice.append([4, 4])
    _rolled(british, prc, unit=one.ref, **{"typed.crew_morale": "8"})
    assert "abandoned" not in _markers(one), _log(players)[-300:]
    fixed_dice.append([4, 5])
    _rolled(british, prc, unit=two.ref, **{"typed.crew_morale": "8"})
    assert "abandoned" in _markers(two) and not _gone(two), _log(players)[-300:]
    ntc = "Roll DR: Minefield NTC"
    british.open()
    assert "Done with 3.604" in " ".join(_dones(british)), british.buttons()
    fixed_dice.append([4, 4])
    _rolled(british, ntc, unit=sq1.ref)
    assert _markers(sq1) == [], _log(players)[-300:]
    fixed_dice.append([4, 5])
    _rolled(british, ntc, unit=sq2.ref)
    assert "reduced" in _markers(sq2), _log(players)[-300:]


# --------------------------------------------------------------------------- Part E: pass 21's Left


def test_the_selects_and_reminders_name_each_units_setup_area(users, modules):
    """Pass 21's Left: the selects of 3.611 and 3.614 offered units of another Setup Area
    with nothing to tell them apart (3.6111, 3.6112 "within the same Setup/"; 3.6141a
    "by Personnel Retained within the same Setup Area"; 3.61421 "the MG to be Eliminated
    must be Retained within the same Setup/"), and the reminders printed a unit's Setup
    Area as a hex ("at A").  On the Axis 3.611 page of CG I each Hero, MMC and HS is
    offered with its Setup Area ("in Setup Area A"); at 3.614 the British roster offers
    the LMG and the Personnel with theirs, and the 3.61423 reminder reads "in Setup Area
    North"; a unit with no Setup Area entered reads as before."""
    from tests.purchase_helpers import add_vehicle

    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.611")
    hero = add(players, "axis", "Hero 1-4-9", "hero", location="A")
    squad = add(players, "axis", "4-6-7", "squad", location="B")
    bare = add(players, "axis", "4-6-8", "squad")
    one = add(players, "axis", "2-4-7", "half_squad", location="A")
    add(players, "axis", "2-4-7", "half_squad", location="B")
    axis = _seat(players, "axis")
    gives = dict(axis.options("Mark battle hardened", "give"))
    marks = dict(axis.options("Mark battle hardened", "mark"))
    assert "in Setup Area A" in gives[hero.ref], gives
    assert "in Setup Area B" in marks[squad.ref] and "Setup Area" not in marks[bare.ref], marks
    halves = dict(axis.options("Recombine the two HS", "give"))
    assert "(in Setup Area A)" in halves[one.ref], halves
    players.until_step("3.614")
    add_vehicle(players, "british", "Sherman III", ("mg", ["disabled"], "AAMG"), location="North")
    add(players, "british", "Daimler AC", "vehicle", status="abandoned", location="North")
    lmg = add(players, "british", "LMG", "sw", location="South")
    crew = add(players, "british", "4-5-8", "squad", location="North")
    roster = _seat(players, "british", "roster/")
    assert (
        dict(roster.options("Repair AAMG (3.61421)", "give"))[lmg.ref]
        == "LMG (in Setup Area South)"
    )
    by = dict(roster.options("Remann Daimler AC (3.6141a)", "by"))
    assert by[crew.ref] == "4-5-8 (in Setup Area North)", by
    said = _seat(players, "british").text
    assert "your Sherman III (in good order; in Setup Area North)" in said, said[:3000]


# --------------------------------------------------------------------------- Part C: undo


def test_undo_a_wounded_leader_is_not_removed_around_his_one_dr(users, modules, fixed_dice):
    """3.610 "Each side makes a dr ... for each currently wounded Retained Leader", tried
    with an undo: the British wounded 9-1 (Setup Area North) may not be removed while his
    dr is owed (refused citing 3.610, "Nothing was changed" read once, where the page read
    it twice: "Roll first; nothing was changed. Nothing was changed."), nor after his dr
    3 (still wounded: he stays as the roll left it until the step ends); a second dr is
    refused.  Both rosters still show him wounded in Setup Area North; Done is offered."""
    from tests.test_sica21_pass21 import _press_of

    players, _ = campaign_at("sicily", "i", "jul16am", users, step="3.610")
    leader = add(players, "british", "9-1 leader", "leader", status="wounded", location="North")
    british = _seat(players, "british")
    assert not _dones(british) and "Roll first" in british.text, british.buttons()
    roster = _seat(players, "british", "roster/")
    owed = _press_of(roster, "Remove", leader)
    assert owed.refused and "(3.610)" in owed.text, owed.text[:300]
    assert owed.text.count("othing was changed") == 1, owed.text[:300]
    fixed_dice.append([3])
    _rolled(british, "Roll dr: Wounded Leaders", unit=leader.ref)
    assert _markers(leader) == ["wounded"]
    rolled = _press_of(roster, "Remove", leader)
    assert rolled.refused and "(3.610)" in rolled.text, rolled.text[:300]
    assert "Roll dr: Wounded Leaders" not in british.buttons()
    again = _forge(british, "roll", table="wounded_leaders", unit=leader.ref)
    assert again.refused and "3.610" in again.text, again.text[:300]
    for side in ("british", "axis"):
        said = _seat(players, side, "roster/").text
        assert "9-1 leader — wounded (North)" in said, said
    assert "Done with 3.610" in " ".join(_dones(_seat(players, "british")))


def test_undo_a_done_taken_back_at_3_614_leaves_low_ammo_until_both_finish(users, modules):
    """3.61425 "Each Low Ammo marker on each non-captured, non-Isolated vehicle is
    removed", when 3.614 ends, after an undo: the British press Done with 3.614 and take
    it back before the Axis acts: the step waits for them again (Done offered), the
    Sherman still Low Ammo on both rosters; both finish: it is removed."""
    players, _ = campaign_at("sicily", "i", "jul16am", users, step="3.614")
    tank = add(players, "british", "Sherman III", "vehicle", status="low_ammo")
    british = _seat(players, "british")
    done = british.press("Done with 3.614")
    assert done.status < 400 and not done.refused, done.text[:300]
    assert "Take back my Done at 3.614" in british.buttons(), british.buttons()
    back = british.press("Take back my Done at 3.614")
    assert back.status < 400 and not back.refused, back.text[:300]
    assert "Done with 3.614" in _dones(british), british.buttons()
    for side in ("british", "axis"):
        said = _seat(players, side, "roster/").text
        assert "Sherman III — low ammo" in said.replace("Low Ammo", "low ammo"), said
    assert "low_ammo" in _markers(tank)
    players.until_step("3.615")
    assert _markers(tank) == []


# --------------------------------------------------------------------------- Part B: forged


def test_forged_posts_across_3_610_to_3_61424(users, modules, fixed_dice):
    """Exceptions tried with forged posts (the page offers no button for them), each
    refused with its rule and nothing rolled: 3.61424 "[EXC: British weapons prior to
    July 15 AM CG Date]" (the British gun on July 14 Night); 3.61424 "a dr ... for each
    type of special ammunition which is depleted" (the Axis PaK's APDS twice, the second
    typed "apds "); 3.6142 "non-Captured" (the Axis captured, malfunctioned Bren);
    3.6141d "if German" ticked by the British; 3.610 "-1 if part of British Airborne
    RG" ticked by the Axis (at 3.610 of the same RePh)."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, step="3.610")
    axis_leader = add(players, "axis", "8-1 leader", "leader", status="wounded")
    axis = _seat(players, "axis")
    airborne = "british_airborne_no_rg"
    said = axis.press("Roll dr: Wounded Leaders", unit=axis_leader.ref, tick=airborne)
    assert said.refused and "3.610" in said.text, (said.status, said.text[:300])
    players.until_step("3.614")
    gun = add(players, "british", "6 Pounder AT Gun", "gun")
    pak = add(players, "axis", "7.5cm PaK 40", "gun")
    bren = add(players, "axis", "Bren LMG", "sw", status="malfunctioned", markers=["captured"])
    daim = add(players, "british", "Daimler AC", "vehicle", status="stunned")
    british, axis = _seat(players, "british"), _seat(players, "axis")
    said = _forge(british, "roll", table="special_ammo", unit=gun.ref, item="APDS")
    assert said.refused and "3.61424" in said.text, (said.status, said.text[:300])
    fixed_dice.append([5])
    _rolled(axis, "Roll dr: Special Ammo", unit=pak.ref, item="APDS")
    said = axis.press("Roll dr: Special Ammo", unit=pak.ref, item="apds ")
    assert said.refused, (said.status, said.text[:300], _log(players)[-300:])
    number = {"typed.repair_number": "-2"}
    said = _forge(axis, "roll", table="weapon_repair", unit=bren.ref, **number)
    assert said.refused and "3.6142" in said.text, (said.status, said.text[:300])
    said = british.press("Roll dr: Stun Recovery", unit=daim.ref, tick="german_no_rg")
    assert said.refused and "3.6141d" in said.text, (said.status, said.text[:300])
    assert _markers(daim) == ["stunned"] and "malfunctioned" in _markers(bren)


def test_3_605_each_sides_setup_areas_listed_and_the_units_in_an_enemy_one(users, modules):
    """Pass 21's Left, the most valuable item: 3.605 "Each side now determines its Setup
    Area(s) for the next CG scenario" and MARKING THE MAP "each side should record ...
    an ID for each one"; 3.6051 "there will be portions of the map where two opposing
    Setup Areas overlap ... A No-Man's Land hex can never be part of a Setup Area"; the
    3.6056 chart "in enemy Setup Area | must attempt Escape (3.606)" (Personnel) and "is
    Captured or Eliminated (enemy's choice; 3.6071)" (Equipment, vehicles).  On CG II's
    3.605 pages: the Axis list A, B; the British page reads them; the British listing
    "North, b" is refused citing 3.6051 (B is the Axis's), nothing recorded; "North,
    South" is recorded.  The Axis page then names the 4-6-7 entered in North under the
    chart's words, not the PaK in "a" (its own A); the British page names its 4-5-8 in
    A.  After the next scenario both lists are still there at 3.605 (kept to the next
    date until listed again)."""
    from tests.walk import module_of

    players, _ = campaign_at("sicily", "ii", "jul16pm", users, step="3.605")
    add(players, "axis", "4-6-7", "squad", location="North")
    add(players, "axis", "7.5cm PaK 40", "gun", location="a")
    add(players, "british", "4-5-8", "squad", location=" a ")
    axis, british = _seat(players, "axis"), _seat(players, "british")
    words = "Record my Setup Areas"
    assert words in axis.buttons() and words in british.buttons(), axis.buttons()
    _rolled(axis, words, areas="A, B, a")
    british.open()
    assert "Axis Setup Areas: A, B" in british.text, british.text[:3000]
    said = british.press(words, areas="North, b")
    assert said.refused and "(3.6051)" in said.text and "Setup Area b" in said.text, said.text
    assert said.text.count("othing was changed") == 1, said.text
    assert "Your Setup Areas (3.605): none listed" in british.text, british.text[:3000]
    _rolled(british, words, areas="North, South")
    said = axis.open()
    chart = "(enemy's choice; 3.6071) (3.6056 chart): your "
    assert chart + "4-6-7 (in good order; in Setup Area North)." in said, said[:3000]
    assert "British Setup Areas: North, South" in said
    assert chart + "4-5-8 (in good order; in Setup Area a)." in british.open(), british.text
    players.until_step("3.621")
    players.chits(axis="attack", british="idle")
    players.until("results")
    values = {
        f"{f.id}.{s}": (False if f.kind == "bool" else 0)
        for f in module_of(players.campaign).result_fields
        for s in ("axis", "british")
    }
    players.results(**values)
    players.until_step("3.605")
    said = _seat(players, "british").text
    assert "Your Setup Areas (3.605): North, South . Axis Setup Areas: A, B" in said, said[:3000]
