"""Sicily (seed 001), RePh 3.6-3.623 with both RG charts, the twenty-fourth pass of the
sentence audit (issue 44): what carries from one CG Date (or scenario) to the next,
what resets, and the order of the steps of one date, played over two or three dates
through the pages (tests/page_play.py), each figure read on both seats' pages against
a hand computation from the rules text (docs/rules-audit/pass-24-sic24.md)."""

from __future__ import annotations

import re

import pytest

from campaign.models import Seat as SeatModel
from campaign.selectors import module_of
from tests import test_rule_mechanisms as mechanisms
from tests.purchase_helpers import campaign_at
from tests.test_rule_mechanisms import add
from tests.test_sica18_pass18 import _forge, _seat
from tests.test_sica21_pass21 import _dones, _log, _markers
from tests.test_sica22_pass22 import _rolled
from tests.test_sicb18_pass18 import _seats

users = mechanisms.users
fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.django_db, pytest.mark.rules]

_HASHES = re.compile(
    r"\b[0-9a-f]{64}\b|\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b"
)


def _same(text: str) -> str:
    """A page's words without what differs between two campaigns by construction (the
    dice seed's hash, the campaign's id)."""
    return _HASHES.sub("#", text)


def _idle(players) -> None:
    players.until("initiative")
    players.chits(axis="idle", british="idle")


# --------------------------------------------------------------------------- secrets


def _sniper_world(users, fixed_dice, sniper: bool):
    """CG I, July 15 AM, purchases kept until their owner reveals them: the Axis SAN 3
    (entered with the result), the Axis buy an M1 Sniper (SAN 3 → 4) or nothing on
    their page; both sides Idle; the walk stops at the repeated 3.6122 of July 15 PM."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, points=100, policy="owner")
    SeatModel.objects.filter(campaign_id=players.campaign_id).update(san=3)
    seats = _seats(players)
    if sniper:
        seats["axis"].open()
        _rolled(seats["axis"], "Buy M1 Sniper for 2 CPP")
    _idle(players)
    players.until_step("3.6122")
    return players, seats


def test_3_6122_after_an_idle_date_the_san_roll_tells_nothing_of_a_secret_sniper(
    users, modules, fixed_dice
):
    """3.617: "The CPP expended, those remaining, and the RG(s) purchased may all be kept
    secret"; Axis M1 "Sniper | SAN Increase +1"; 3.6122: "If a side has a SAN ≥ 4, a SAN
    adjustment dr must be made"; 3.623: "Each side announces its current SAN"; 3.6212
    footnote 2: an Idle date repeats 3.612-3.6212.  Two worlds of CG I, the purchases
    kept by their owner: the Axis SAN 3 (the result's) buy an M1 on July 15 AM (SAN 3 + 1
    = 4) or nothing; both Idle.  At the repeated 3.6122 of July 15 PM the Axis owe a SAN
    dr in the first world (4 ≥ 4) and none in the second (3 < 4), but the British page
    reads word for word the same in both: the Axis not passed by the server in either
    (a pass read the secret SAN: "Axis passes 3.6122: SAN 3 is below 4" named it and
    told the Sniper by its absence), and nothing of the Axis dr (dr 5 +0: SAN 4 − 2 = 2)
    after it, only "Axis finished 3.6122" in both.  The Axis page owes the roll in the
    first world and offers Done in the second.  The British (SAN 3, < 4: "If a side has
    a SAN ≥ 4, a SAN adjustment dr must be made"), now pressing their own Done, are
    offered no SAN dr, and one forged is refused citing 3.6122, the SAN unchanged."""
    pages = {}
    for sniper in (True, False):
        players, seats = _sniper_world(users, fixed_dice, sniper)
        axis, british = seats["axis"], seats["british"]
        axis.open()
        if sniper:
            assert "Roll dr: SAN Adjustment" in axis.buttons() and not _dones(axis), axis.buttons()
            before = _same(british.open())
            fixed_dice.append([5])
            _rolled(axis, "Roll dr: SAN Adjustment")
            assert SeatModel.objects.get(campaign_id=players.campaign_id, side="axis").san == 2
            assert _same(british.open()) == before
            axis.open()
        else:
            assert "Roll dr: SAN Adjustment" not in axis.buttons(), axis.buttons()
            before = _same(british.open())
        _rolled(axis, "Done with 3.6122")
        after = _same(british.open())
        dice = _same(_seat(players, "british", "dice/").text)
        pages[sniper] = (before, after, dice)
        assert "Waiting for: both of you" in before, before[:800]
        today = after[after.index("July 15 PM (") : after.index("July 15 AM (")]
        assert "Axis finished 3.6122 SAN Adjustment" in today, today
        assert "Axis passes 3.6122" not in today and "Axis SAN" not in today, today
    assert pages[True] == pages[False]
    # The British SAN 3 (< 4): its page offers no SAN dr, and a forged one is refused.
    british = seats["british"]
    british.open()
    assert "Roll dr: SAN Adjustment" not in british.buttons(), british.buttons()
    forged = _forge(british, "roll", table="san_adjustment")
    assert forged.refused and "your SAN is 3, below 4 (3.6122)" in forged.text, forged.text[:400]
    assert SeatModel.objects.get(campaign_id=players.campaign_id, side="british").san == 3


# --------------------------------------------------------------------------- what carries


def test_3_620_3_616_the_cpp_left_start_the_next_date_on_both_rosters(users, modules, fixed_dice):
    """3.617: "write the total CPP expended in the "spent" column ...; then write the
    number of CPP remaining, even if zero, in the "Left" column"; 3.620: "that side
    deducts one (or two, for a beneficial drm on its Recon dr) from its current CPP total
    in the CG Roster's "Left" column, and records the new total in the "Start" column of
    the next CG Date"; "The number of Locations ... is recorded on the CG Roster in the
    "Recon" column of the current CG Date line"; 3.616: "the CPP Base # (3.6161) plus CG
    Scenario Loss Points (3.6162)"; 3.6162: "If the CVP lost by a player for the prior CG
    scenario (only) are ≥ two times, and ≥ 8 more than, the CVP lost by the other Player,
    that player may make a dr".  CG I, played over three dates on the pages:

    July 15 AM (100 CPP each): the Axis buy I7 (12) and M2 for 2 CPP (+5): spent 14,
    Left 100 − 14 = 86; Recon dr 2 + 5 = 7 in the Recon column.  The Axis Attack, the
    British Idle; the scenario: British lose 20 CVP, Axis 2 (20 ≥ 2 × 2 and ≥ 2 + 8).
    July 15 PM: Axis Start 86, base 30 (3.6161), no loss points (2 < 2 × 20): 116;
    British Start 100, base 65 + loss-point dr 3 = 68: 168.  Both Idle.  July 15 Night:
    Axis 116 + 44 = 160; British 168 + 65 + dr 5 = 238 (the prior CG scenario is still
    July 15 AM's: the app reads 3.6162 literally on an Idle date's repeated 3.616, a
    question for the host, docs/rules-audit/sicily.md §5).  Each side's roster reads its
    own figures; the opponent's CPP columns read "·" (3.617: "The CPP expended, those
    remaining ... may all be kept secret"), his CVP the result's."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, points=100)
    seats = _seats(players)
    axis = seats["axis"]
    axis.open()
    _rolled(axis, "Buy I7 Italian Infantry Coy for 12 CPP")
    _rolled(axis, "Buy M2 Recon for 2 CPP, Recon bought for 2 CPP (+5 drm)")
    add(players, "british", "4-5-8", "squad")
    players.until("recon")
    axis.open()
    fixed_dice.append([2])
    _rolled(axis, "Recon dr for M2 (+5 drm)")
    players.until("initiative")
    players.chits(axis="attack", british="idle")
    players.until("results")
    fixed_dice.append([3])
    players.results(
        **mechanisms.result_values(
            module_of(players.campaign), cvp_lost_british=20, cvp_lost_axis=2
        )
    )
    players.until("purchase")
    mine = _seat(players, "axis", "roster/").text
    assert "July 15 AM — 70 30 100 14 86 I7 (12), M2 (2) 7 Attack 2 · 0" in mine, mine[:1500]
    assert "July 15 PM — 86 30 116 0 116 · · · · ·" in mine, mine[:1500]
    theirs = _seat(players, "british", "roster/").text
    assert "July 15 AM — · · · · · I7, M2 Attack 2 · 0 20 80 100 0 100 Idle 20 · 0" in theirs
    assert "July 15 PM — · · · · · 100 68 168 0 168" in theirs, theirs[:1500]
    _idle(players)
    fixed_dice.append([5])
    players.until("purchase")
    mine = _seat(players, "axis", "roster/").text
    assert "July 15 Night Night 116 44 160 0 160 · · · · ·" in mine, mine[:1800]
    theirs = _seat(players, "british", "roster/").text
    assert "July 15 Night Night · · · · · 168 70 238 0 238" in theirs, theirs[:1800]
    assert "loss-point dr 5 (3.6162)" in _log(players)


def test_3_6212_note_2_an_idle_date_repeats_3_612_to_3_6212_and_not_3_610(
    users, modules, fixed_dice
):
    """3.6212 footnote 2: "No scenario generated for this CG Date; each side repeats RePh
    steps 3.612-.6212."  So the rolls of 3.6122 and 3.614 are made again on the Idle
    date's repeat, and those of 3.610 are not: 3.6141b "≥ 3 | No change", 3.6141d "3-5 |
    Retain stun", 3.61424 "≥ 4 | NA, weapon still depleted for next CG Date", 3.6122 "If
    a side has a SAN ≥ 4, a SAN adjustment dr must be made", 3.610 "2-4 | Retained
    wounded".  CG I, the British pages: July 15 AM's RePh (3.610 on that date): the 7-0
    leader's dr 3: still wounded; SAN 5: dr 2 + (5 − 4) = 3: no change; the Sherman's
    Immobilization Repair dr 4: no change; the Daimler's Stun Recovery dr 4: stun kept;
    the 6 Pounder's APDS dr 4: still depleted.  Both Idle.  July 15 PM: the SAN dr is
    owed again (dr 1 + 1 = 2), then at 3.614 Done waits for the Sherman's and the
    Daimler's drs again, and the 6 Pounder's Special Ammo dr is offered again; the 7-0
    is still wounded and no Wounded Leaders dr is owed or made on July 15 PM.  The Axis
    page reads the same rolls in its log (the tables are not secret)."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.610")
    leader = add(players, "british", "7-0 leader", "leader", status="wounded")
    sherman = add(players, "british", "Sherman III", "vehicle", status="immobilized")
    daimler = add(players, "british", "Daimler AC", "vehicle", status="stunned")
    gun = add(players, "british", "6 Pounder AT Gun", "gun")
    SeatModel.objects.filter(campaign_id=players.campaign_id, side="british").update(san=5)
    british = _seat(players, "british")
    fixed_dice.append([3])
    _rolled(british, "Roll dr: Wounded Leaders", unit=leader.ref)
    players.until_step("3.6122")
    british.open()
    fixed_dice.append([2])
    _rolled(british, "Roll dr: SAN Adjustment")
    players.until_step("3.614")
    british.open()
    for words, unit, extra in (
        ("Roll dr: Immobilization Repair", sherman, {}),
        ("Roll dr: Stun Recovery", daimler, {}),
        ("Roll dr: Special Ammo", gun, {"item": "APDS"}),
    ):
        fixed_dice.append([4])
        _rolled(british, words, unit=unit.ref, **extra)
    first = _log(players)
    assert "Immobilization Repair for Sherman III: dr 4: No change" in first, first[-800:]
    assert "Stun Recovery for Daimler AC: dr 4: Retain stun" in first
    assert "APDS: dr 4: NA, weapon still depleted for next CG Date" in first
    _idle(players)
    players.until_step("3.6122")
    british.open()
    assert "Roll first: the SAN Adjustment (3.6122)" in british.text and not _dones(british)
    fixed_dice.append([1])
    _rolled(british, "Roll dr: SAN Adjustment")
    players.until_step("3.614")
    said = british.open()
    assert "Immobilization Repair for Sherman III" in said.split("Roll first:", 1)[1], said[:3000]
    assert "Stun Recovery for Daimler AC" in said.split("Roll first:", 1)[1]
    assert not _dones(british), british.buttons()
    assert "Roll dr: Special Ammo" in british.buttons(), british.buttons()
    assert _markers(leader) == ["wounded"]
    axis_page = _seat(players, "axis").text
    today = axis_page[axis_page.index("July 15 PM (") : axis_page.index("July 15 AM (")]
    assert "British rolled on the SAN Adjustment: dr 1, +1" in today, today
    assert "Wounded Leaders" not in today and "3.610" not in today, today
    assert "Immobilization Repair for Sherman III: dr 4" in axis_page


def test_3_6041_a_line_passed_to_the_enemy_is_not_said_removed_by_mistake(
    users, modules, fixed_dice
):
    """3.6041: "If the prisoner is not claimed, it is considered Rearmed (A20.551) and may
    automatically possess any Equipment dropped by its Eliminated Guard" (pass 23's
    Left: the Axis roster said the MG 42 they remove because it passed to the British
    was "removed by mistake at this step").  CG I, July 15 AM, 3.604: the Axis Encircled
    4-6-7 with its MG 42 fails its 1TC (DR 4+4 = 8 > Morale 7): gone, the MG 42 not
    possessed; the British add it as captured; the Axis remove their line.  The Axis
    roster reads "MG 42 ... removed at this step. If that was a mistake: Put ... back":
    the put-back still offered, no mistake asserted; the British roster holds the MG 42
    captured and reads no Axis MG 42."""
    from tests.page_play import Seat
    from tests.purchase_helpers import add_unit

    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.604")
    guard = add_unit(players, "axis", "4-6-7", "squad", "encircled")
    add_unit(players, "axis", "MG 42", "sw", possessor=guard.ref)
    axis = _seat(players, "axis")
    fixed_dice.append([4, 4])
    _rolled(axis, "Roll DR: Encirclement 1TC", unit=guard.ref)
    mine = Seat(players.users["british"], players.campaign_id, "roster/")
    mine.open()
    assert mine.press("Add", name="MG 42", kind="sw", markers="captured").status == 200
    theirs = Seat(players.users["axis"], players.campaign_id, "roster/")
    said = theirs.open()
    assert "Retained forces Axis MG 42 — not possessed" in said, said[:3000]
    assert theirs.press("Remove").status == 200
    said = theirs.open()
    assert "removed at this step. If that was a mistake:" in said, said[:3000]
    assert "removed by mistake" not in said, said[:3000]
    assert [b for b in theirs.buttons() if b.startswith("Put MG 42")], theirs.buttons()
    british = mine.open().split("Retained forces", 1)[1]
    assert "MG 42 — captured" in british and "MG 42 — not possessed" not in british, british


def _line(seat, name: str) -> str:
    """``name``'s line on the retained forces as ``seat``'s roster reads it."""
    said = seat.open().split("Retained forces", 1)[1]
    return said[said.index(f"{name} — ") :][:90]


def test_3_6141c_3_61425_recall_and_low_ammo_carry_into_the_next_scenario_and_end_after_it(
    users, modules
):
    """3.6141c: "If Mobile, under Recall, and Isolated, such an AFV begins the next
    scenario under Recall (as well as suffering from Ammunition Shortage;A19.131)";
    "Each Mobile, non-Isolated Retained AFV under Recall" [is no longer under Recall:
    the verb is cut, the module's reading]; 3.61425: "Each Low Ammo marker on each
    non-captured, non-Isolated vehicle is removed."  CG I, both sides' rosters over two
    dates: after July 14 Night's scenario (RePh on July 15 AM) the British Sherman III,
    Mobile, Isolated and under Recall, keeps its Recall and is marked Low Ammo as 3.613
    completes, and keeps both as 3.614 completes (Isolated); the British Attack, the
    July 15 AM scenario is played.  In the RePh after it the British correct the line:
    no longer Isolated; as 3.613 completes its Recall ends, as 3.614 completes its Low
    Ammo marker is removed: the line reads neither on either roster on July 15 PM."""
    from tests.test_rule_mechanisms import edit

    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.613")
    sherman = add(
        players, "british", "Sherman III", "vehicle", status="recalled", markers=["isolated"]
    )
    add(players, "british", "4-5-8", "squad")
    rosters = {side: _seat(players, side, "roster/") for side in ("axis", "british")}
    players.until_step("3.614")
    assert _markers(sherman) == ["isolated", "low_ammo", "recalled"], _markers(sherman)
    players.until_step("3.615")
    assert _markers(sherman) == ["isolated", "low_ammo", "recalled"], _markers(sherman)
    for seat in rosters.values():
        line = _line(seat, "Sherman III")
        assert "recalled" in line and "Low Ammo" in line, line
    players.until("initiative")
    players.chits(axis="idle", british="attack")
    players.until("results")
    players.results(**mechanisms.result_values(module_of(players.campaign)))
    players.until_step("3.601")
    sherman = edit(players, "british", sherman, "recalled", markers=["low_ammo"])
    players.until_step("3.614")
    assert _markers(sherman) == ["low_ammo"], _markers(sherman)
    players.until_step("3.615")
    assert _markers(sherman) == [], _markers(sherman)
    for seat in rosters.values():
        line = _line(seat, "Sherman III")
        assert "recalled" not in line and "Low Ammo" not in line, line
