"""Sicily (seed 001), RePh 3.601-3.614, the eighteenth pass of the sentence audit (issue
44): the items pass 17 left (3.6051's crew Escape owed, 3.613 footnote †'s CS DR tied to
the vehicle a Shift's subsequent dr Eliminated), then the steps played through the
page's own buttons (tests/page_play.py) for each side, on paths the earlier tests use
little: CG III (the RePh after July 14 AM, its only one), the Axis side, a side holding
only vehicles, after an undo (docs/rules-audit/pass-18-sica18.md)."""

from __future__ import annotations

import pytest

from campaign.models import Roll, Unit
from campaign.models import Seat as SeatModel
from tests import test_rule_mechanisms as mechanisms
from tests.page_play import Answer, Seat
from tests.purchase_helpers import campaign_at
from tests.test_rule_mechanisms import add, edit, unit_names

users = mechanisms.users
fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


def _seat(players, side, page: str = "") -> Seat:
    seat = Seat(players.users[side], players.campaign_id, page)
    seat.open()
    return seat


def _done_on_page(players, side):
    seat = _seat(players, side)
    step = players.step.id
    return seat.press(f"Done with {step}")


def _forge(seat: Seat, action: str, **data: str) -> Answer:
    """Post ``action``'s form as a forged (or stale) page would, with the step's ``at``
    the page rendered, when the page offers no button for it (the page player presses
    only what the page shows)."""
    at = next(v for f in seat.forms.forms.values() for n, v in f.fields if n == "at" and v)
    url = f"{seat.url}act/{action}/"
    got = seat.client.post(url, {"at": at, **data}, HTTP_HX_REQUEST="true")
    seat.open()
    return Answer(got.status_code, got.content.decode())


# --------------------------------------------------------------------------- Part 1


def test_3_6051_the_crew_of_a_vehicle_abandoned_in_no_mans_land_owes_its_escape_dr(
    users, modules, fixed_dice
):
    """3.6051 "Each manned, Immobile vehicle without functioning MA in No-Man's Land
    becomes Abandoned, and its crew (if any) must attempt Escape per 3.606" (and the
    3.6056 chart's "in No Man's Land | is Abandoned; the crew (if any) must attempt
    Escape (3.6051)"), played through the pages: CG III, the RePh after July 14 AM, the
    Axis side.  The Axis press Abandon in No-Man's Land on an immobilized StuG on their
    roster: the 2-2-8 crew line reads "must attempt Escape"; at 3.606 Done (and Done
    through the steps after) is refused with a sentence citing 3.6051 while the crew
    has not rolled; a 4-6-7 squad, not so marked, is not owed; the crew's Escape DR
    (Roll DR on the page) takes the mark off and Done passes."""
    players, _ = campaign_at("sicily", "iii", "jul14pm", users, step="3.605")
    add(players, "axis", "StuG IIIG", "vehicle", status="immobilized")
    add(players, "axis", "4-6-7", "squad")
    roster = _seat(players, "axis", "roster/")
    pressed = roster.press("Abandon in No-Man's Land (3.6051) (StuG IIIG)")
    assert pressed.status == 200, pressed.text[:300]
    assert "2-2-8 crew — must attempt Escape" in roster.text, roster.text
    # Finishing ahead stops before the owed roll: no "Done ... to 3.613 (no rolls)".
    assert [b for b in _seat(players, "axis").buttons() if b.startswith("Done")] == [
        "Done with 3.605"
    ]
    assert _done_on_page(players, "axis").status == 200
    assert _done_on_page(players, "british").status == 200
    assert players.step.id == "3.606"
    axis = _seat(players, "axis")
    assert not [b for b in axis.buttons() if b.startswith("Done with")], axis.buttons()
    assert "Roll first: the Escape for 2-2-8 crew (3.606; 3.6051)" in axis.text
    forged = _forge(axis, "finish")
    assert forged.refused and "2-2-8 crew (3.606; 3.6051)" in forged.text, forged.text
    forged = _forge(axis, "finish", through="3.615")
    assert forged.refused and "Roll first" in forged.text, forged.text
    assert "axis" in players.waiting()
    assert players.step.id == "3.606"
    crew = Unit.objects.get(campaign_id=players.campaign_id, side="axis", name="2-2-8 crew")
    fixed_dice.append([2, 3])
    # A multiple select sends nothing unpicked (page_play sends its first option).
    rolled = axis.press("Roll DR: Escape", unit=crew.ref, stack="")
    assert rolled.status == 200, rolled.text[:300]
    assert ("2-2-8 crew", "half_squad", "ok", 1) in unit_names(players, "axis")
    assert axis.press("Done with 3.606").status == 200
    assert "axis" not in players.waiting()


def test_3_613_dagger_the_cs_dr_is_owed_for_the_crew_of_the_vehicle_eliminated_shifting(
    users, modules, fixed_dice
):
    """3.613 footnote † "Each vehicle is Eliminated on a subsequent dr of >= 4; if it is
    Eliminated, make a CS DR for its inherent crew (if any; Casualty Reduction is NA).
    Roll separately for each unit.", through the pages: CG III, the RePh after July 14
    AM, the Axis side holding only vehicles (two StuGs).  The first StuG's Shift DR 11
    "Shifted with Casualties", its subsequent dr 5: it is Eliminated and a 2-2-8 crew
    line, marked "must make its Crew Survival DR", joins the Axis forces; the CS DR is
    offered for that crew only (not for the other StuG, nor for another crew: a
    forged post is refused citing 3.613 footnote †); Done waits for it; its CS# is
    required (refused without it, nothing changed); DR 9 - CS# 6 = 3: the crew is
    Eliminated with its vehicle, and Done then passes.  The British page offers no CS
    DR."""
    players, _ = campaign_at("sicily", "iii", "jul14pm", users, step="3.613")
    first = add(players, "axis", "StuG IIIG", "vehicle", location="a1")
    other = add(players, "axis", "StuG IIIG", "vehicle", location="b2")
    axis = _seat(players, "axis")
    fixed_dice.append([5, 6])
    shifted = axis.press("Roll DR: Shift", unit=first.ref, stack="")
    assert shifted.status == 200, shifted.text[:300]
    fixed_dice.append([5])
    hit = axis.press("Roll dr: Shifted with Casualties (subsequent dr)", unit=first.ref)
    assert hit.status == 200, hit.text[:300]
    assert "2-2-8 crew — must make its Crew Survival DR" in _seat(players, "axis", "roster/").text
    crew = Unit.objects.get(campaign_id=players.campaign_id, side="axis", name="2-2-8 crew")
    words = "Roll DR: Crew Survival DR of a vehicle Eliminated Shifting"
    assert [v for v, _ in axis.options(words, "unit")] == [crew.ref]
    assert (
        "Rolled for each of your half-squads marked 'must make its Crew Survival DR'" in axis.text
    )
    assert not [b for b in axis.buttons() if b.startswith("Done with")], axis.buttons()
    assert "Roll first: the Crew Survival DR of a vehicle Eliminated Shifting for 2-2-8 crew" in (
        axis.text
    )
    forged = axis.press(words, unit=other.ref, **{"typed.cs_number": "6"})
    assert forged.refused and "3.613 footnote †" in forged.text, forged.text
    bare = axis.press(words, unit=crew.ref, **{"typed.cs_number": ""})
    assert bare.refused and "CS#" in bare.text, bare.text
    assert Unit.objects.get(pk=crew.pk).markers == ["cs_due"]
    british = _seat(players, "british")
    assert words not in british.buttons()
    fixed_dice.append([4, 5])
    made = axis.press(words, unit=crew.ref, **{"typed.cs_number": "6"})
    assert made.status == 200, made.text[:300]
    assert [n for n in unit_names(players, "axis") if n[0] == "2-2-8 crew"] == []
    assert axis.press("Done with 3.613").status == 200
    assert "axis" not in players.waiting()


# --------------------------------------------------------------------------- Part 2


def _markers(unit) -> list[str]:
    return list(Unit.objects.get(pk=unit.pk).markers)


def test_3_601_to_3_604_the_axis_pages_of_cg_iii_encircled_with_a_prisoner(
    users, modules, fixed_dice
):
    """3.601-3.604 through the pages, CG III (the RePh after July 14 AM), the Axis side
    holding an Isolated, Encircled 4-6-7, a 4-5-8 of theirs held prisoner (captured) and
    a Hero; the British nothing.  3.601 "must undergo an (unlimited) number of Melee
    rounds", 3.602, 3.603: Done on both pages; the British, with nothing to roll up to
    3.614, may finish through it at once ("no rolls"), the Axis only up to 3.603 (their
    1TC at 3.604 is owed).  3.6041 "Each encircled unit [EXC: Prisoner] must take a
    separate 1TC": at 3.604 the Axis page offers no Done but "Roll first: the
    Encirclement 1TC for 4-6-7 (3.6041)"; its select offers the 4-6-7 only (not the
    prisoner); the British page says it has none to roll for and offers Done.  The 1TC
    (DR 6 - Morale 7 = -1) passes: "it remains in its present Location (Encircled
    markers are not removed until 3.6062)"; pressed again it is refused, citing 3.6041,
    nothing changed.  3.6042 "Each Infantry unit in an A-P minefield hex ... must take a
    NTC": offered for the 4-6-7 and the Hero, not the prisoner."""
    players, _ = campaign_at("sicily", "iii", "jul14pm", users, step="3.601")
    squad = add(players, "axis", "4-6-7", "squad", markers=["isolated", "encircled"])
    prisoner = add(players, "axis", "4-5-8", "squad", markers=["captured"])
    hero = add(players, "axis", "Hero 2-4-9", "hero")
    axis, british = _seat(players, "axis"), _seat(players, "british")
    assert "unlimited Melee rounds" in axis.text
    assert "Done with 3.601 to 3.603 Rally and Unloading (no rolls)" in axis.buttons()
    # The run ends at 3.605, whose completion may make an Escape DR owed (3.6056 chart).
    assert "Done with 3.601 to 3.605 Setup Area Determination (no rolls)" in british.buttons()
    assert not [b for b in axis.buttons() if "to 3.615" in b or "to 3.620" in b]
    assert axis.press("Done with 3.601 to 3.603 Rally and Unloading (no rolls)").status == 200
    assert british.press("Done with 3.601").status == 200
    for step in ("3.602", "3.603"):
        assert players.step.id == step
        assert british.press(f"Done with {step}").status == 200
    assert players.step.id == "3.604"
    axis.open()
    assert not [b for b in axis.buttons() if b.startswith("Done with")], axis.buttons()
    assert "Roll first: the Encirclement 1TC for 4-6-7 (3.6041)" in axis.text
    assert [v for v, _ in axis.options("Roll DR: Encirclement 1TC", "unit")] == [squad.ref]
    ntc = [v for v, _ in axis.options("Roll DR: Minefield NTC", "unit")]
    assert squad.ref in ntc and hero.ref in ntc and prisoner.ref not in ntc
    british.open()
    assert "You have no encircled squads or half-squads or leaders or Heroes" in british.text
    assert "Done with 3.604" in british.buttons()
    fixed_dice.append([3, 3])
    passed = axis.press("Roll DR: Encirclement 1TC", unit=squad.ref)
    assert passed.status == 200, passed.text[:300]
    assert "encircled" in _markers(squad) and "isolated" in _markers(squad)
    assert "Roll first" not in axis.text and "Done with 3.604" in axis.buttons()
    again = _forge(axis, "roll", table="encircled_1tc", unit=squad.ref)
    assert again.refused and "3.6041" in again.text, again.text
    forged = _forge(axis, "roll", table="encircled_1tc", unit=prisoner.ref)
    assert forged.refused and "3.6041" in forged.text, forged.text
    assert _markers(prisoner) == ["captured"]


def test_3_608_to_3_611_the_axis_pages_prisoners_wounded_leader_and_hero(
    users, modules, fixed_dice
):
    """3.608-3.611 through the Axis pages, CG III (July 14 AM's RePh).  3.608 "Each
    prisoner guarded by a non-Isolated unit is Eliminated. An Isolated Guard may retain
    possession of his prisoner(s)": the page says the Axis men held prisoner leave at
    Done unless marked Isolated; Done: the 4-5-8 prisoner leaves, the Isolated 4-4-7
    prisoner stays.  3.610 "Each side makes a dr ... for each currently wounded
    Retained Leader": the page owes it for the wounded 8-1 (not the captured 9-1);
    "-1 if part of British Airborne RG" is not the Axis's: ticked in a forged post, it
    is refused, citing 3.610, nothing changed; dr 2 +1 (Isolated) -1 (Heroic) = 2:
    "Retained wounded"; a second dr is refused.  3.6112 "each Retained Hero is
    Eliminated ... each such Elimination enables that side to Battle Harden one
    non-crew MMC": the page offers the Hero to give up for a 4-6-7, not for the 2-2-8
    crew."""
    players, _ = campaign_at("sicily", "iii", "jul14pm", users, step="3.608")
    add(players, "axis", "4-5-8", "squad", markers=["captured"])
    add(players, "axis", "4-4-7", "squad", markers=["captured", "isolated"])
    leader = add(players, "axis", "8-1 leader", "leader", markers=["wounded", "isolated", "heroic"])
    add(players, "axis", "9-1 leader", "leader", markers=["wounded", "captured", "isolated"])
    add(players, "axis", "Hero 2-4-9", "hero")
    squad = add(players, "axis", "4-6-7", "squad")
    crew = add(players, "axis", "2-2-8 crew", "half_squad")
    axis, british = _seat(players, "axis"), _seat(players, "british")
    assert "leave your retained forces when this step is completed, unless marked Isolated" in (
        axis.text
    )
    assert axis.press("Done with 3.608").status == 200
    assert british.press("Done with 3.608").status == 200
    names = [n[0] for n in unit_names(players, "axis")]
    assert "4-5-8" not in names and "4-4-7" in names
    players.until_step("3.610")
    axis.open()
    assert "Roll first: the Wounded Leaders for 8-1 leader (3.610)" in axis.text
    assert [v for v, _ in axis.options("Roll dr: Wounded Leaders", "unit")] == [leader.ref]
    forged = axis.press("Roll dr: Wounded Leaders", unit=leader.ref, tick="british_airborne_no_rg")
    assert forged.refused and "3.610" in forged.text, forged.text
    assert _markers(leader) == ["wounded", "isolated", "heroic"]
    fixed_dice.append([2])
    made = axis.press("Roll dr: Wounded Leaders", unit=leader.ref)
    assert made.status == 200, made.text[:300]
    assert "wounded" in _markers(leader)
    again = _forge(axis, "roll", table="wounded_leaders", unit=leader.ref)
    assert again.refused and "3.610" in again.text, again.text
    assert axis.press("Done with 3.610").status == 200
    british.open()
    assert british.press("Done with 3.610").status == 200
    assert players.step.id == "3.611"
    axis.open()
    harden = [b for b in axis.buttons() if "battle hardened" in b.lower()]
    assert harden, axis.buttons()
    offered = [v for v, _ in axis.options("Mark battle hardened", "mark")]
    assert squad.ref in offered and crew.ref not in offered, offered
    forged = axis.press("Mark battle hardened", mark=crew.ref)
    assert forged.refused and "3.6112" in forged.text, forged.text
    assert _markers(crew) == []


def test_3_6122_to_3_614_the_pages_of_cg_iii_san_shift_and_repair(users, modules, fixed_dice):
    """3.6122-3.614 through the pages, CG III (the RePh after July 14 AM, new date July
    14 PM).  3.6122 "A side whose SAN is currently < 2 has it automatically raised to
    2 ... If a side has a SAN >= 4, a SAN adjustment dr must be made with a +drm equal
    to the current SAN minus 4. A Final dr >= 5 immediately reduces that sides SAN by
    two": the British SAN 1 is raised to 2 with no roll (no roll on their page); the
    Axis SAN 6 page owes the dr (no Done); dr 3 + 2 = 5: SAN 4; a second dr refused.
    3.613: a Shift DR for an immobilized StuG (a forged post: the page does not offer
    it) is refused citing 3.613, nothing changed.  3.6141d "+1 if German": for a StuG
    added by hand it applies by itself; the "(a vehicle not of an RG)" tick forged
    beside it is refused (no +2), nothing changed.  3.61424 EXC "British weapons prior
    to July 15 AM": the Special Ammo dr is offered on the Axis page, and the British
    page says they may not roll before July 15 AM."""
    players, _ = campaign_at("sicily", "iii", "jul14pm", users, step="3.611")
    SeatModel.objects.filter(campaign_id=players.campaign_id, side="axis").update(san=6)
    SeatModel.objects.filter(campaign_id=players.campaign_id, side="british").update(san=1)
    stuck = add(players, "axis", "StuG IIIG", "vehicle", markers=["immobilized"])
    stunned = add(players, "axis", "StuG IIIG", "vehicle", markers=["stunned"], location="b2")
    players.until_step("3.6122")
    axis, british = _seat(players, "axis"), _seat(players, "british")
    assert SeatModel.objects.get(campaign_id=players.campaign_id, side="british").san == 2
    assert "Roll dr: SAN Adjustment" in axis.buttons()
    assert not [b for b in axis.buttons() if b.startswith("Done with")], axis.buttons()
    assert "Roll dr: SAN Adjustment" not in british.buttons()
    fixed_dice.append([3])
    made = axis.press("Roll dr: SAN Adjustment")
    assert made.status == 200, made.text[:300]
    assert SeatModel.objects.get(campaign_id=players.campaign_id, side="axis").san == 4
    again = _forge(axis, "roll", table="san_adjustment")
    assert again.refused and "SAN Adjustment" in again.text, again.text
    players.until_step("3.613")
    axis.open()
    assert stuck.ref not in [v for v, _ in axis.options("Roll DR: Shift", "unit")]
    forged = axis.press("Roll DR: Shift", unit=stuck.ref, stack="")
    assert forged.refused and "3.613" in forged.text, forged.text
    assert _markers(stuck) == ["immobilized"]
    players.until_step("3.614")
    axis, british = _seat(players, "axis"), _seat(players, "british")
    doubled = axis.press("Roll dr: Stun Recovery", unit=stunned.ref, tick="german_no_rg")
    assert doubled.refused and "3.6141d" in doubled.text, doubled.text
    assert _markers(stunned) == ["stunned"]
    assert "Roll dr: Special Ammo" in axis.buttons()
    assert "Roll dr: Special Ammo" not in british.buttons()
    assert "You may not roll on it now: not before July 15 AM (3.61424 EXC)" in british.text


def test_3_606_the_axis_escape_page_refuses_what_the_drms_and_the_stack_exclude(
    users, modules, fixed_dice
):
    """3.606 through the Axis page, CG III: "-1 If lone, unwounded SMC" is not offered
    for a wounded 8-1 (forged, refused citing 3.606, nothing changed), while "+1 If
    Wounded" applies by itself; "Each Personnel/" (a man of the side's held prisoner is
    not rolled for): the 4-5-8 prisoner is neither in the unit select nor in the stack,
    and named in a forged stack it is refused; the 8-1 and the Hero escape under one DR
    (dr 2+3, +1 Wounded, +1 HS-equivalents over one: the stack's two SMC count none, so
    +0) and the log names both."""
    players, _ = campaign_at("sicily", "iii", "jul14pm", users, step="3.606")
    leader = add(players, "axis", "8-1 leader", "leader", markers=["wounded"])
    hero = add(players, "axis", "Hero 2-4-9", "hero")
    prisoner = add(players, "axis", "4-5-8", "squad", markers=["captured"])
    axis = _seat(players, "axis")
    units = [v for v, _ in axis.options("Roll DR: Escape", "unit")]
    stack = [v for v, _ in axis.options("Roll DR: Escape", "stack")]
    assert leader.ref in units and prisoner.ref not in units + stack
    lone = axis.press("Roll DR: Escape", unit=leader.ref, stack="", tick="lone_smc")
    assert lone.refused and "3.606" in lone.text, lone.text
    held = axis.press("Roll DR: Escape", unit=leader.ref, stack=prisoner.ref)
    assert held.refused and held.text, held.text
    assert _markers(leader) == ["wounded"] and _markers(prisoner) == ["captured"]
    fixed_dice.append([2, 3])
    made = axis.press("Roll DR: Escape", unit=leader.ref, stack=hero.ref)
    assert made.status == 200, made.text[:300]
    rolled = Roll.objects.filter(campaign_id=players.campaign_id, table_id="escape").get()
    assert rolled.final == 6, rolled.drms


def test_3_6142_the_british_weapon_repair_page_bounds_the_repair_number(users, modules, fixed_dice):
    """3.6142 "make a separate dr for each malfunctioned ... Weapon": through the
    British page (CG III, July 14 AM's RePh), a malfunctioned Bren LMG owes its dr (no
    Done); "-x (Weapon Repair Number)" is typed: left empty, or typed outside a Repair
    Number's range (+3, -7), the dr is refused citing 3.6142, nothing changed; "-1 if
    vehicular-mounted" is not the SW's (forged, refused); typed -2, dr 3 - 2 = 1:
    "Repaired", and Done is offered."""
    players, _ = campaign_at("sicily", "iii", "jul14pm", users, step="3.614")
    bren = add(players, "british", "Bren LMG", "sw", markers=["malfunctioned"])
    british = _seat(players, "british")
    assert not [b for b in british.buttons() if b.startswith("Done with")], british.buttons()
    assert "Roll first: the Weapon Repair for Bren LMG (3.6142)" in british.text
    words = "Roll dr: Weapon Repair"
    for typed in ("", "3", "-7"):
        refused = british.press(words, unit=bren.ref, **{"typed.repair_number": typed})
        assert refused.refused and "3.6142" in refused.text, (typed, refused.text)
    forged = british.press(words, unit=bren.ref, tick="vehicular", **{"typed.repair_number": "-2"})
    assert forged.refused and "3.6142" in forged.text, forged.text
    assert _markers(bren) == ["malfunctioned"]
    assert not Roll.objects.filter(campaign_id=players.campaign_id).exists()
    fixed_dice.append([3])
    made = british.press(words, unit=bren.ref, **{"typed.repair_number": "-2"})
    assert made.status == 200, made.text[:300]
    assert _markers(bren) == []
    assert "Done with 3.614" in british.buttons()


def test_3_6056_a_unit_its_owner_marks_must_attempt_escape_owes_its_escape_dr(users, modules):
    """3.6056 chart "in enemy Setup Area | must attempt Escape (3.606)" and "in No Man's
    Land | must attempt Escape (3.606)": where a unit stands is the map's, but once its
    owner marks it "must attempt Escape" on the retained forces (the British, CG III),
    Done at 3.606 waits for its Escape DR, citing 3.606 and the 3.6056 chart; a squad not
    so marked may escape or not."""
    players, _ = campaign_at("sicily", "iii", "jul14pm", users, step="3.605")
    squad = add(players, "british", "4-5-8", "squad")
    add(players, "british", "4-4-7", "squad")
    edit(players, "british", squad, "escape_due")
    roster = _seat(players, "british", "roster/")
    assert "4-5-8 — must attempt Escape" in roster.text
    players.until_step("3.606")
    british = _seat(players, "british")
    assert "Roll first: the Escape for 4-5-8 (3.606; 3.6056 chart)" in british.text, british.text
    owed = british.text[british.text.find("Roll first") :]
    assert "4-4-7" not in owed[: owed.find("compulsory")], owed[:300]


def test_3_6141_the_axis_3_614_page_remann_repair_and_low_ammo(users, modules, fixed_dice):
    """3.6141a-3.61425 through the Axis pages, CG III (July 14 AM's RePh), the Axis
    holding an Abandoned, immobilized StuG, a captured immobilized Sherman, a StuG
    marked Low Ammo and a 2-2-8 crew.  3.6141b "Each non-Captured, non-Abandoned,
    immobilized vehicle must make a dr": neither is offered Immobilization Repair, and
    Done is offered.  3.6141a "may be remanned ... by Personnel Retained within the
    same Setup Area": the roster offers Remann on the StuG; pressed naming no one it is
    refused citing 3.6141a, nothing changed; naming the crew, the StuG is no longer
    Abandoned, and being immobilized it now owes 3.6141b's dr (no Done until it is
    made: dr 3, no change).  3.61425 (Low Ammo removed from each non-captured, non-Isolated vehicle)
    as 3.614 ends: once both sides are done the StuG's Low Ammo marker is gone."""
    players, _ = campaign_at("sicily", "iii", "jul14pm", users, step="3.614")
    abandoned = add(players, "axis", "StuG IIIG", "vehicle", markers=["abandoned", "immobilized"])
    add(players, "axis", "Sherman III(a)", "vehicle", markers=["immobilized", "captured"])
    low = add(players, "axis", "StuG IIIG", "vehicle", markers=["low_ammo"])
    crew = add(players, "axis", "2-2-8 crew", "half_squad")
    axis = _seat(players, "axis")
    assert "Roll dr: Immobilization Repair" not in axis.buttons()
    assert "Done with 3.614" in axis.buttons()
    roster = _seat(players, "axis", "roster/")
    words = "Remann StuG IIIG (3.6141a)"
    assert [v for v, _ in roster.options(words, "by")] == ["", crew.ref]
    nobody = roster.press(words)
    assert nobody.refused and "3.6141a" in nobody.text, nobody.text
    assert "abandoned" in _markers(abandoned)
    remanned = roster.press(words, by=crew.ref)
    assert remanned.status == 200, remanned.text[:300]
    assert "abandoned" not in _markers(abandoned)
    # Manned again and still immobilized, it now owes 3.6141b's dr.
    axis.open()
    assert [v for v, _ in axis.options("Roll dr: Immobilization Repair", "unit")] == [abandoned.ref]
    assert not [b for b in axis.buttons() if b.startswith("Done with")], axis.buttons()
    fixed_dice.append([3])
    assert axis.press("Roll dr: Immobilization Repair", unit=abandoned.ref).status == 200
    assert _markers(abandoned) == ["immobilized"]
    assert _done_on_page(players, "axis").status == 200
    assert _done_on_page(players, "british").status == 200
    assert _markers(low) == []
