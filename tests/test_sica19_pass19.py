"""Sicily (seed 001), RePh 3.601-3.614, the nineteenth pass of the sentence audit (issue
44): the items pass 18 left (the rule a hand-marked unit's owed Escape cites, the crew
of an Italian vehicle Eliminated Shifting), then sentences drawn at random from the seed
(random.Random(19)) and the ledger's weakest claims, played through the pages
(tests/page_play.py) for each side, on paths the earlier passes used little: CG II on
its last date (July 17 PM), CG I on a Night date, the British side, a side holding only
vehicles, an Italian vehicle (docs/rules-audit/pass-19-sica19.md)."""

from __future__ import annotations

import pytest

from campaign.models import Event, Unit
from tests import test_rule_mechanisms as mechanisms
from tests.page_play import Answer, Seat
from tests.purchase_helpers import campaign_at
from tests.test_rule_mechanisms import add, edit, unit_names
from tests.test_sica18_pass18 import _seat

users = mechanisms.users
fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


def _done(players, side) -> Answer:
    return _seat(players, side).press(f"Done with {players.step.id}")


def _forge(seat: Seat, action: str, **data: str) -> Answer:
    """Post ``action``'s form as a forged (or stale) page would, with the step's ``at``
    the page rendered, where the page offers no button for it (the page player presses
    only what the page shows)."""
    at = next(v for f in seat.forms.forms.values() for n, v in f.fields if n == "at" and v)
    got = seat.client.post(f"{seat.url}act/{action}/", {"at": at, **data}, HTTP_HX_REQUEST="true")
    seat.open()
    return Answer(got.status_code, got.content.decode())


def _markers(unit) -> list[str]:
    return list(Unit.objects.get(pk=unit.pk).markers)


def _dones(seat: Seat) -> list[str]:
    return [b for b in seat.buttons() if b.startswith("Done with")]


# --------------------------------------------------------------------------- Part 1


def test_3_6056_chart_a_hand_marked_unit_owes_its_escape_citing_the_chart_a_crew_3_6051(
    users, modules, fixed_dice
):
    """The owed Escape DR cites the rule that made it owed, the marker's own: CG II on
    its last date (the RePh after July 17 AM), the British.  A 4-5-8 its owner marks
    "must attempt Escape" on the roster (the 3.6056 chart's "in enemy Setup Area | must
    attempt Escape (3.606)") owes its DR citing "(3.606; 3.6056 chart)"; the crew of a
    Sherman the British Abandon in No-Man's Land (3.6051 "its crew (if any) must attempt
    Escape per 3.606") citing "(3.606; 3.6051)" (both cited 3.6051 before).  Each DR
    takes its own mark off; Done then passes.  The Axis page owes nothing."""
    players, _ = campaign_at("sicily", "ii", "jul17pm", users, step="3.605")
    squad = add(players, "british", "4-5-8", "squad")
    add(players, "british", "Sherman III", "vehicle", status="immobilized")
    edit(players, "british", squad, "escape_due")
    roster = _seat(players, "british", "roster/")
    pressed = roster.press("Abandon in No-Man's Land (3.6051) (Sherman III)")
    assert pressed.status == 200, pressed.text[:300]
    assert "2-2-8 crew — must attempt Escape, its vehicle Abandoned in No-Man's Land" in (
        roster.text
    ), roster.text
    players.until_step("3.606")
    british = _seat(players, "british")
    assert "4-5-8 (3.606; 3.6056 chart)" in british.text, british.text
    assert "2-2-8 crew (3.606; 3.6051)" in british.text, british.text
    assert "3.6051), 4-5-8" in british.text or "3.6056 chart), 2-2-8" in british.text
    assert not _dones(british), british.buttons()
    assert "Roll first" not in _seat(players, "axis").text
    crew = Unit.objects.get(campaign_id=players.campaign_id, side="british", name="2-2-8 crew")
    for unit in (squad, crew):
        fixed_dice.append([2, 3])
        rolled = british.press("Roll DR: Escape", unit=unit.ref, stack="")
        assert rolled.status == 200, rolled.text[:300]
        assert _markers(unit) == []
    assert "Done with 3.606" in _dones(british), british.buttons()


def test_3_613_dagger_the_crew_of_an_italian_vehicle_eliminated_shifting_owes_its_cs_dr(
    users, modules, fixed_dice
):
    """3.613 footnote † "Each vehicle is Eliminated on a subsequent dr of >= 4; if it is
    Eliminated, make a CS DR for its inherent crew (if any ...)", for a vehicle whose
    crew counter is not on record (an Italian Semovente, of no chart): CG I on a Night
    date (the RePh after July 16 PM), the Axis holding only vehicles.  Shift DR 11,
    subsequent dr 4: the Semovente leaves and a line "crew of Semovente 75/18", marked
    "must make its Crew Survival DR", joins the Axis forces (before: the owner was told
    to add the crew, and nothing owed its CS DR); Done waits for the CS DR, offered for
    that line only; its owner may rename it to the crew counter, still owing the DR;
    the DR made (DR 3 - CS# 5: survives) takes the mark off, and Done passes."""
    players, _ = campaign_at("sicily", "i", "jul16n", users, step="3.613")
    semovente = add(players, "axis", "Semovente 75/18", "vehicle", location="a1")
    axis = _seat(players, "axis")
    fixed_dice.append([5, 6])
    shifted = axis.press("Roll DR: Shift", unit=semovente.ref, stack="")
    assert shifted.status == 200, shifted.text[:300]
    fixed_dice.append([4])
    hit = axis.press("Roll dr: Shifted with Casualties (subsequent dr)", unit=semovente.ref)
    assert hit.status == 200, hit.text[:300]
    assert not Unit.objects.filter(pk=semovente.pk).exists()
    roster = _seat(players, "axis", "roster/")
    assert "crew of Semovente 75/18 — must make its Crew Survival DR" in roster.text
    crew = Unit.objects.get(campaign_id=players.campaign_id, side="axis", name__startswith="crew")
    assert crew.kind == "half_squad"
    axis.open()
    words = "Roll DR: Crew Survival DR of a vehicle Eliminated Shifting"
    assert [v for v, _ in axis.options(words, "unit")] == [crew.ref]
    assert "Roll first: the Crew Survival DR of a vehicle Eliminated Shifting for crew of" in (
        axis.text
    ), axis.text
    assert not _dones(axis), axis.buttons()
    assert words not in _seat(players, "british").buttons()
    # The owner names the counter: the line keeps its mark, the DR is still owed.
    edit(players, "axis", crew, None, name="2-2-7 crew")
    assert _markers(crew) == ["cs_due"]
    axis.open()
    assert "Roll first: the Crew Survival DR of a vehicle Eliminated Shifting for 2-2-7 crew" in (
        axis.text
    ), axis.text
    fixed_dice.append([1, 2])
    made = axis.press(words, unit=crew.ref, **{"typed.cs_number": "5"})
    assert made.status == 200, made.text[:300]
    assert ("2-2-7 crew", "half_squad", "ok", 1) in unit_names(players, "axis")
    assert "Done with 3.613" in _dones(axis), axis.buttons()


# --------------------------------------------------------------------------- Part 2: the draw


def _log(players) -> str:
    return " ".join(
        e.text for e in Event.objects.filter(campaign_id=players.campaign_id).order_by("id")
    )


def test_drawn_3_6041_to_3_606_the_british_pages_of_cg_ii_on_its_last_date(
    users, modules, fixed_dice
):
    """Sentences drawn at random (Random(19)), 3.604-3.606, through the British pages of
    CG II on its last date (the RePh after July 17 AM).  3.6041 "If the prisoner is not
    claimed, it is considered Rearmed": the Encircled 4-5-8 fails its 1TC (DR 12 -
    Morale 8) and is Eliminated; the Axis man it held (a 4-6-7 the Axis mark captured)
    keeps his line, which the Axis may clear (Refit keeps no Guard of a prisoner).  3.606
    "-2 If adjacent to a friendly Setup Area (-1 if two hexes away ...)": both ticked in
    one forged post, refused citing 3.606, nothing rolled.  "+2 If Isolated": an
    Isolated 4-4-7's DR 6 is Final 8 by itself ("Escapes").  "+1 If unarmed or Wounded":
    the wounded 8-1's DR 6 is Final 7 by itself.  Footnote 2 "A crew, or unit, that would
    become Disrupted is Eliminated instead": the 2-2-8 crew's DR 9 ("Escapes; Replaced")
    eliminates it.  Footnote 4 "The surviving crew (if any) may turn the vehicle into a
    (Burnt-Out) Wreck": a Sherman's DR 9 leaves it Abandoned and its crew a line of its
    own; the roster offers Remove on the Sherman.  The Axis pages offer none of it."""
    players, _ = campaign_at("sicily", "ii", "jul17pm", users, step="3.604")
    encircled = add(players, "british", "4-5-8", "squad", markers=["isolated", "encircled"])
    prisoner = add(players, "axis", "4-6-7", "squad", markers=["captured"])
    isolated = add(players, "british", "4-4-7", "squad", markers=["isolated"])
    leader = add(players, "british", "8-1 leader", "leader", markers=["wounded"])
    crew = add(players, "british", "2-2-8 crew", "half_squad")
    sherman = add(players, "british", "Sherman III", "vehicle")
    british = _seat(players, "british")
    assert not _dones(british), british.buttons()
    fixed_dice.append([6, 6])
    failed = british.press("Roll DR: Encirclement 1TC", unit=encircled.ref)
    assert failed.status == 200, failed.text[:300]
    assert not Unit.objects.filter(pk=encircled.pk).exists()
    assert _markers(prisoner) == ["captured"]
    assert "Roll DR: Encirclement 1TC" not in _seat(players, "axis").buttons()
    players.until_step("3.606")
    british.open()
    forged = _forge(
        british,
        "roll",
        table="escape",
        unit=isolated.ref,
        stack="",
        tick=["adjacent_setup_area", "two_hexes_setup_area"],
    )
    assert forged.refused and "3.606" in forged.text, forged.text
    assert _markers(isolated) == ["isolated"]
    fixed_dice.append([2, 3])
    made = british.press("Roll DR: Escape", unit=isolated.ref, stack="")
    assert made.status == 200, made.text[:300]
    # A squad is two HS-equivalents: +1 by itself, as +2 Isolated.
    assert "DR 2+3 = 5, +1 per HS-equivalent" in _log(players), _log(players)[-600:]
    assert "+2 If Isolated → 8: Infantry: Escapes" in _log(players), _log(players)[-600:]
    assert _markers(isolated) == []  # Retained into a friendly Setup Area (3.6061)
    fixed_dice.append([2, 4])
    made = british.press("Roll DR: Escape", unit=leader.ref, stack="")
    assert made.status == 200, made.text[:300]
    assert "DR 2+4 = 6, +1 If Wounded → 7" in _log(players), _log(players)[-600:]
    fixed_dice.append([4, 5])
    made = british.press("Roll DR: Escape", unit=crew.ref, stack="")
    assert made.status == 200, made.text[:300]
    assert not Unit.objects.filter(pk=crew.pk).exists(), unit_names(players, "british")
    assert "Escapes; Replaced [2,3]. 2-2-8 crew is Eliminated (3.606 footnote 2)" in (_log(players))
    assert "Refit eliminates a crew" in british.text  # the step's words: footnote 2
    fixed_dice.append([4, 5])
    made = british.press("Roll DR: Escape", unit=sherman.ref, stack="")
    assert made.status == 200, made.text[:300]
    assert "abandoned" in _markers(sherman)
    roster = _seat(players, "british", "roster/")
    assert "Sherman III — abandoned" in roster.text, roster.text
    assert "crew (if any) Escapes" in _log(players)[-500:] and "2-2-8 crew" in _log(players)[-300:]
    assert "Remove Sherman III" in roster.buttons()  # the Wreck: its owner takes the vehicle off
    axis = _seat(players, "axis")
    # The Axis hold only their man held prisoner: nothing to escape.
    assert "Roll DR: Escape" not in axis.buttons() and "Done with 3.606" in axis.buttons()


def test_drawn_3_608_3_6121_3_613_the_british_pages_of_cg_ii_on_its_last_date(
    users, modules, fixed_dice
):
    """Drawn sentences, 3.608-3.613, the British pages of CG II on its last date (the
    RePh after July 17 AM).  3.608 "If freed, a prisoner is automatically Retained (by
    the side friendly to it)": a British 4-5-8 held by an Isolated Guard (marked
    captured and Isolated) is freed by its owner clearing the captured marker: at Done
    it stays (cleared on the roster page); a 4-4-7 held by a non-Isolated Guard
    leaves.  3.6121 "Each passage of this
    RePh step represents the start of a new CG Date": the date becomes July 17 PM when
    both pass 3.612.  3.613 footnote † "Each Personnel unit suffers Casualty Reduction
    on a subsequent dr of >= 4": the 4-5-8's Shift DR 11, its subsequent dr 4: it is
    casualty reduced; Done waits for the subsequent dr.  Footnote ‡ "Not applicable to a
    Shift from one Entry Area to another": printed beside the road DRM it qualifies."""
    players, _ = campaign_at("sicily", "ii", "jul17pm", users, step="3.608")
    freed = add(players, "british", "4-5-8", "squad", markers=["captured", "isolated"])
    british = _seat(players, "british")
    assert "a freed prisoner is Retained into the nearest friendly Setup Area" in british.text
    assert "July 17 AM — step" in british.text
    # Freed by its Isolated Guard: its owner clears the captured marker on the roster.
    roster = _seat(players, "british", "roster/")
    saved = roster.press("Save", markers="isolated")
    assert saved.status in (200, 204, 302), saved.text[:300]
    assert _markers(freed) == ["isolated"]
    held = add(players, "british", "4-4-7", "squad", markers=["captured"])
    assert _done(players, "british").status == 200
    assert _done(players, "axis").status == 200
    assert Unit.objects.filter(pk=freed.pk).exists()
    assert not Unit.objects.filter(pk=held.pk).exists()
    before = players.campaign.date_index
    players.until_step("3.613")
    players.campaign.refresh_from_db()
    assert players.campaign.date_index == before + 1
    british.open()
    assert "July 17 PM — step" in british.text, british.text[:400]
    assert "[‡] Not applicable to a Shift from one Entry Area to another." in british.text
    assert "on road hexes [‡]" in british.text
    fixed_dice.append([5, 6])
    shifted = british.press("Roll DR: Shift", unit=freed.ref, stack="")
    assert shifted.status == 200, shifted.text[:300]
    british.open()
    assert not _dones(british), british.buttons()
    words = "Roll dr: Shifted with Casualties (subsequent dr)"
    assert [v for v, _ in british.options(words, "unit")] == [freed.ref]
    assert words not in _seat(players, "axis").buttons()
    fixed_dice.append([4])
    hit = british.press(words, unit=freed.ref)
    assert hit.status == 200, hit.text[:300]
    assert "reduced" in _markers(freed), _markers(freed)
    assert "Done with 3.613" in _dones(british)


def test_drawn_3_6141_3_6142_3_61424_the_pages_of_cg_i_on_a_night_date(users, modules, fixed_dice):
    """Drawn sentences, 3.6141-3.61424, CG I on a Night date (the RePh after July 16
    PM: the new date July 16 Night), both sides.  3.6141c "If Mobile, under Recall, and
    Isolated, such an AFV begins the next scenario under Recall (as well as suffering
    from Ammunition Shortage)": the Axis StuG, recalled and Isolated, is marked Low Ammo
    as 3.614 begins and keeps its Recall.  3.6141 "Each side performs the applicable
    step(s) below for each vehicle": the British page owes the immobilized Sherman's dr
    and the stunned Daimler's (no Done).  3.6141b "<= 2 Becomes Mobile": dr 2, the
    Sherman is no longer immobilized.  3.6141d "A side Retaining a vehicle suffering the
    results of a stun ... must make a dr"; ">= 6 Eliminated": the Daimler's dr 6 (no +1
    German for a British vehicle) eliminates it.  3.6142 "a separate dr ... for each
    malfunctioned, non-Captured, Retained Weapon": the Bren LMG is owed, the captured MG
    42 neither offered nor owed; "-x (Weapon Repair Number)" typed -2; "+1 if only
    Non-Qualified Use (A21.13) possible" offered as a tick; "<= 1 Repaired": dr 3 - 2.
    3.61424 "<= 3 Restores special Ammunition type": the British, after July 15 AM, roll
    for the Sherman's smoke: dr 3 restores it.  The Axis page owes none of it."""
    players, _ = campaign_at("sicily", "i", "jul16n", users, step="3.613")
    stug = add(players, "axis", "StuG IIIG", "vehicle", markers=["recalled", "isolated"])
    sherman = add(players, "british", "Sherman III", "vehicle", status="immobilized")
    daimler = add(players, "british", "Daimler AC", "vehicle", status="stunned")
    bren = add(players, "british", "Bren LMG", "sw", status="malfunctioned")
    mg = add(players, "british", "MG 42", "sw", markers=["malfunctioned", "captured"])
    axis = _seat(players, "axis")
    assert "StuG IIIG is now Low Ammo (Ammunition Shortage, A19.131) (3.6141c)" in axis.text
    players.until_step("3.614")
    assert sorted(_markers(stug)) == ["isolated", "low_ammo", "recalled"]
    british = _seat(players, "british")
    assert not _dones(british), british.buttons()
    owed = british.text[british.text.find("Roll first") :][:600]
    for name in ("Sherman III", "Daimler AC", "Bren LMG"):
        assert name in owed, owed
    assert "MG 42" not in owed, owed
    assert [v for v, _ in british.options("Roll dr: Weapon Repair", "unit")] == [bren.ref]
    assert "non_qualified" in british.form_of("Roll dr: Weapon Repair").choices.get("tick", [])
    fixed_dice.append([2])
    assert british.press("Roll dr: Immobilization Repair", unit=sherman.ref).status == 200
    assert "immobilized" not in _markers(sherman)
    fixed_dice.append([6])
    stun = british.press("Roll dr: Stun Recovery", unit=daimler.ref)
    assert stun.status == 200, stun.text[:300]
    assert not Unit.objects.filter(pk=daimler.pk).exists()
    assert "if German" not in _log(players)[-400:], _log(players)[-400:]
    fixed_dice.append([3])
    made = british.press("Roll dr: Weapon Repair", unit=bren.ref, **{"typed.repair_number": "-2"})
    assert made.status == 200, made.text[:300]
    assert _markers(bren) == []
    assert _markers(mg) == ["malfunctioned", "captured"] or sorted(_markers(mg)) == [
        "captured",
        "malfunctioned",
    ]
    fixed_dice.append([3])
    ammo = british.press("Roll dr: Special Ammo", unit=sherman.ref, item="smoke")
    assert ammo.status == 200, ammo.text[:300]
    assert "Restores special Ammunition type" in _log(players)[-300:], _log(players)[-300:]
    assert "Done with 3.614" in _dones(british), british.buttons()
    axis.open()
    assert "Roll first" not in axis.text and "Done with 3.614" in _dones(axis)


def test_3_6111_two_hs_of_one_squads_line_recombine_on_the_3_611_page(users, modules, fixed_dice):
    """3.6111 "RECOMBINING: All Retained same-class HS with the same strength factors
    within the same Setup/" (cut before its verb), through the pages of CG II on its
    last date, the British: two 4-5-8 lines marked casualty reduced (two HS of that
    squad) and a 4-4-7 marked reduced.  The 3.611 page offers "Recombine the two HS"
    beside the Hero exchange (3.6112), naming the two 4-5-8 HS only; a forged post
    pairing a 4-5-8 with the 4-4-7 is refused citing 3.6111, nothing changed; pressed,
    the two become one 4-5-8 squad in good order.  The Axis page offers none.
    Finishing ahead stops at 3.611 while two such HS are held (not for the Axis's one)."""
    players, _ = campaign_at("sicily", "ii", "jul17pm", users, step="3.610")
    one = add(players, "british", "4-5-8", "squad", markers=["reduced"])
    two = add(players, "british", "4-5-8", "squad", markers=["reduced"])
    other = add(players, "british", "4-4-7", "squad", markers=["reduced"])
    add(players, "axis", "4-6-7", "squad", markers=["reduced"])  # one HS: nothing to pair
    british = _seat(players, "british")
    assert [b for b in _seat(players, "axis").buttons() if "to 3.615" in b]
    assert "Done with 3.610 to 3.610 Wounded Leaders (no rolls)" not in british.buttons()
    assert not [b for b in british.buttons() if "to 3.615" in b], british.buttons()
    players.until_step("3.611")
    british.open()
    words = "Recombine the two HS"
    assert words in british.buttons(), british.buttons()
    assert [v for v, _ in british.options(words, "give")] == [one.ref, two.ref]
    assert words not in _seat(players, "axis").buttons()
    forged = british.press(words, give=one.ref, mark=other.ref)
    assert forged.refused and "3.6111" in forged.text, forged.text
    assert _markers(other) == ["reduced"] and _markers(one) == ["reduced"]
    made = british.press(words, give=one.ref, mark=two.ref)
    assert made.status == 200, made.text[:300]
    assert [n for n in unit_names(players, "british") if n[0] == "4-5-8"] == [
        ("4-5-8", "squad", "ok", 1)
    ]
    assert "two 4-5-8 HS recombine into one 4-5-8 squad (3.6111)" in _log(players)
    assert "Done with 3.611" in _dones(british)
