"""Sicily (seed 001), RePh 3.601-3.614, the seventeenth pass of the sentence audit (issue
44): the items pass 16 left (3.6051's one-click Abandon with its crew escaping, 3.613
footnote †'s CS DR) and the steps walked in rule order as a player meets them, on paths
the earlier tests use little (the British side, late and Night CG dates, CG II, a side
with nothing to roll for, after an undo) (docs/rules-audit/pass-17-sica17.md)."""

from __future__ import annotations

import html

import pytest

from campaign.models import Event, Unit
from campaign.services import steps, units
from campaign.services.errors import ActionRefused
from tests import test_rule_mechanisms as mechanisms
from tests.purchase_helpers import campaign_at
from tests.test_rule_mechanisms import add, roll, unit_names

users = mechanisms.users
fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


def _said(players, kind: str = "unit") -> str:
    return Event.objects.filter(campaign_id=players.campaign_id, kind=kind).last().text


def _done(players, side) -> None:
    steps.finish_step(campaign_id=players.campaign_id, user=players.users[side], without_data=True)


def _page(client, players, side, path: str = "") -> str:
    client.force_login(players.users[side])
    got = client.get(f"/campaigns/{players.campaign_id}/{path}")
    assert got.status_code == 200
    return html.unescape(got.content.decode())


def _abandon(players, side, unit) -> Unit:
    return units.abandon_vehicle(
        campaign_id=players.campaign_id, user=players.users[side], unit_id=unit.ref
    )


def _with_ma(players, side, unit, markers=()) -> Unit:
    return units.add_weapon(
        campaign_id=players.campaign_id,
        user=players.users[side],
        unit_id=unit.ref,
        kind="ma",
        name="75mm MA",
        markers=list(markers),
    )


# --------------------------------------------------------------------------- Part 1


def test_3_6051_abandon_in_no_mans_land_marks_it_and_its_crew_leaves_to_escape(
    users, modules, fixed_dice, client
):
    """3.6051 "Each manned, Immobile vehicle without functioning MA in No-Man's Land
    becomes Abandoned, and its crew (if any) must attempt Escape per 3.606": at 3.605
    (CG II, July 17 PM, the British side) the owner of an immobilized Sherman whose MA
    is malfunctioned presses Abandon in No-Man's Land: the Sherman is marked Abandoned
    (still immobilized), a 2-2-8 crew line joins the British forces, and the log says it
    must attempt Escape at 3.606; at 3.606 that crew makes its Escape DR.  The 3.6056
    chart's Immobile-vehicle row "in No Man's Land | is Abandoned; the crew (if any)
    must attempt Escape (3.6051)" says the same."""
    players, _ = campaign_at("sicily", "ii", "jul17pm", users, step="3.605")
    sherman = add(players, "british", "Sherman III(a)", "vehicle", status="immobilized")
    _with_ma(players, "british", sherman, ["malfunctioned"])
    roster = _page(client, players, "british", "roster/")
    assert "Abandon in No-Man's Land (3.6051)" in roster
    assert "Abandon in No-Man's Land" not in _page(client, players, "axis", "roster/")
    _abandon(players, "british", sherman)
    lines = unit_names(players, "british")
    assert ("Sherman III(a)", "vehicle", "immobilized, abandoned", 1) in lines, lines
    assert ("2-2-8 crew", "half_squad", "crew_escape_due", 1) in lines, lines
    said = _said(players)
    assert "No-Man's Land" in said and "must attempt Escape at 3.606" in said, said
    assert "(3.6051)" in said
    players.until_step("3.606")
    crew = Unit.objects.get(campaign_id=players.campaign_id, side="british", name="2-2-8 crew")
    fixed_dice.append([2, 3])
    assert roll(players, "british", "escape", crew).final == 5


def test_3_6051_refused_for_a_working_ma_a_mobile_or_abandoned_vehicle_or_elsewhere(
    users, modules, client
):
    """3.6051 "Each manned, Immobile vehicle without functioning MA": refused, nothing
    changed, citing 3.6051, for an immobilized StuG whose MA is recorded in good order
    (and not offered on its roster line), a Mobile StuG, the Sherman already Abandoned
    (unmanned: a second press), a captured vehicle; and at 3.606, where the rules give
    no such action.  An immobilized StuG with no MA on the record (an Axis one, the
    other side) is offered and marked."""
    players, _ = campaign_at("sicily", "ii", "jul17pm", users, step="3.605")
    working = add(players, "axis", "StuG IIIG", "vehicle", status="immobilized")
    _with_ma(players, "axis", working)
    with pytest.raises(ActionRefused, match=r"75mm MA is recorded in good order.*\(3\.6051\)"):
        _abandon(players, "axis", working)
    assert f'id="abandon-{working.ref}"' not in _page(client, players, "axis", "roster/")
    mobile = add(players, "axis", "StuG IIIG", "vehicle")
    with pytest.raises(ActionRefused, match=r"immobilized vehicles.*\(3\.6051\)"):
        _abandon(players, "axis", mobile)
    captured = add(
        players, "axis", "Sherman III(a)", "vehicle", markers=["immobilized", "captured"]
    )
    with pytest.raises(ActionRefused, match=r"3\.6051"):
        _abandon(players, "axis", captured)
    bare = add(players, "axis", "StuG IIIG", "vehicle", status="immobilized", location="x1")
    _abandon(players, "axis", bare)
    with pytest.raises(ActionRefused, match=r"not abandoned.*\(3\.6051\)"):
        _abandon(players, "axis", Unit.objects.get(pk=bare.pk))
    assert [n for n in unit_names(players, "axis") if n[0] == "2-2-8 crew"] == [
        ("2-2-8 crew", "half_squad", "crew_escape_due", 1)
    ]
    assert Unit.objects.get(pk=working.pk).markers == ["immobilized"]
    players.until_step("3.606")
    late = add(players, "axis", "StuG IIIG", "vehicle", status="immobilized")
    with pytest.raises(ActionRefused, match=r"only at the step the rules give it"):
        _abandon(players, "axis", late)


def test_3_613_dagger_a_vehicle_eliminated_shifting_gets_a_cs_dr_for_its_crew(
    users, modules, fixed_dice
):
    """3.613 footnote † "Each vehicle is Eliminated on a subsequent dr of >= 4; if it is
    Eliminated, make a CS DR for its inherent crew (if any; Casualty Reduction is NA)":
    the British (CG II, July 16 Night) shift a Sherman, DR 11 "Shifted with Casualties",
    its subsequent dr 4 Eliminates it; the CS DR is then made for the crew line it
    leaves (since pass 18, tests/test_sica18_pass18.py), with its CS# typed (ASL D5.6:
    the seed prints neither): refused without it; DR 6 - CS# 7 = -1, the crew survives;
    a second CS DR for the same crew is refused."""
    players, _ = campaign_at("sicily", "ii", "jul16n", users, step="3.613")
    sherman = add(players, "british", "Sherman III(a)", "vehicle")
    fixed_dice.append([5, 6])
    assert roll(players, "british", "shift", sherman).final == 11
    fixed_dice.append([4])
    roll(players, "british", "shift_casualties", sherman)
    assert [n for n in unit_names(players, "british") if n[0] == "Sherman III(a)"] == []
    crew = Unit.objects.get(campaign_id=players.campaign_id, side="british", name="2-2-8 crew")
    with pytest.raises(ActionRefused, match=r"CS#"):
        roll(players, "british", "crew_survival", crew)
    fixed_dice.append([3, 3])
    made = roll(players, "british", "crew_survival", crew, typed={"cs_number": 7})
    assert made.final == -1
    assert "The crew survives" in made.result
    with pytest.raises(ActionRefused):
        roll(players, "british", "crew_survival", crew, typed={"cs_number": 7})


# --------------------------------------------------------------------------- Part 2


def test_3_6041_exc_and_3_61426_the_page_names_the_vehicles_that_roll(users, modules, client):
    """3.6041 EXC "Encircled PRC of an Immobile vehicle" and 3.61426 "all mobile Isolated
    British Tanks must now attempt Escape": the page tells who rolls by every condition
    the roll reads.  At 3.604 (British, CG II, the July 16 Night RePh) the crew's 1TC
    was said to be rolled "for each of your vehicles (not abandoned or withdrawn)"
    where only an Encircled, immobilized one rolls; at 3.614 on July 16 Night the tank
    Escape "for each of your vehicles (not immobilized ...)" where only an Isolated one
    does; and a British Sherman not Isolated is refused in the same words."""
    players, _ = campaign_at("sicily", "ii", "jul17am", users, step="3.604")
    add(players, "british", "Sherman III(a)", "vehicle", status="immobilized")
    page = _page(client, players, "british")
    assert "your encircled and immobilized vehicles (not abandoned or withdrawn)" in page
    players, _ = campaign_at("sicily", "ii", "jul16n", users, step="3.614")
    sherman = add(players, "british", "Sherman III(a)", "vehicle")
    page = _page(client, players, "british")
    assert "your isolated vehicles (a Sherman, not immobilized or abandoned or captured)" in page, (
        page
    )
    with pytest.raises(ActionRefused, match=r"not one of your isolated vehicles.*\(3\.61426\)"):
        roll(players, "british", "tank_escape", sherman)


def test_3_6051_after_an_undo_and_after_done(users, modules):
    """3.6051 at 3.605, after an undo: the British press Done at 3.605 (the Axis not
    yet): Abandon in No-Man's Land is then refused ("You have already done"); the
    British take their Done back and the Sherman is abandoned; Done then goes, and the
    step passes to 3.606 when the Axis are done too."""
    players, _ = campaign_at("sicily", "ii", "jul17pm", users, step="3.605")
    sherman = add(players, "british", "Sherman III(a)", "vehicle", status="immobilized")
    _done(players, "british")
    with pytest.raises(ActionRefused, match=r"already done 3\.605"):
        _abandon(players, "british", sherman)
    steps.take_back_done(campaign_id=players.campaign_id, user=players.users["british"])
    _abandon(players, "british", sherman)
    assert ("2-2-8 crew", "half_squad", "crew_escape_due", 1) in unit_names(players, "british")
    _done(players, "british")
    _done(players, "axis")
    assert players.step.id == "3.606"


def test_3_604_to_3_6062_the_british_at_night_encircled_and_isolated(users, modules, fixed_dice):
    """The British side after the July 16 Night scenario (CG II).  3.6041 "Each
    encircled unit ... must take a separate 1TC": Done is refused while the Isolated,
    Encircled 4-5-8 owes it; DR 5 - Morale 8 = -3 passes, it stays Encircled.  3.606 at
    Night: its Escape DR alone has -1 Night, +1 for one HS-equivalent over one, +2
    Encircled, +2 Isolated (DR 3 + 4 = 7, Escapes; no longer Isolated, 3.6061); an
    Isolated Sherman's DR has +2 only ("* NA to vehicle Escape": no Night -1).  3.6062:
    at Done the Encircled marker goes."""
    players, _ = campaign_at("sicily", "ii", "jul17am", users, step="3.604")
    squad = add(players, "british", "4-5-8", "squad", markers=["isolated", "encircled"])
    with pytest.raises(ActionRefused, match=r"Roll first: the Encirclement 1TC for 4-5-8"):
        _done(players, "british")
    fixed_dice.append([2, 3])
    assert roll(players, "british", "encircled_1tc", squad).final == -3
    _done(players, "british")
    players.until_step("3.606")
    sherman = add(players, "british", "Sherman III(a)", "vehicle", status="isolated")
    fixed_dice.append([1, 2])
    made = roll(players, "british", "escape", squad)
    assert sorted(d["value"] for d in made.drms) == [-1, 1, 2, 2], made.drms
    assert made.final == 7
    assert unit_names(players, "british", pk=squad.pk) == [("4-5-8", "squad", "encircled", 1)]
    fixed_dice.append([1, 2])
    assert roll(players, "british", "escape", sherman).final == 5
    _done(players, "british")
    _done(players, "axis")
    assert unit_names(players, "british", pk=squad.pk) == [("4-5-8", "squad", "ok", 1)]


def test_3_608_to_3_611_the_british_prisoners_wounded_heroic_leader_and_hero(
    users, modules, fixed_dice
):
    """The British after July 16 Night (CG II).  3.608 "Each prisoner guarded by a
    non-Isolated unit is Eliminated": at Done their 4-5-8 held prisoner leaves, the one
    whose Guard is Isolated stays.  3.610 "for each currently wounded Retained Leader"
    with "+1 if Isolated" and "-1 if Heroic": an Isolated, heroic wounded 8-1 rolls
    dr 1 +1 -1 = 1, "Retained unwounded"; Done is refused before; a second dr is
    refused (he is no longer wounded).  3.6113 "each Retained Heroic leader Battle
    Hardens and loses his heroic status": at 3.611's Done the 8-1 becomes a 9-1, no
    longer heroic."""
    players, _ = campaign_at("sicily", "ii", "jul17am", users, step="3.608")
    add(players, "british", "4-5-8", "squad", markers=["captured"])
    kept = add(players, "british", "4-4-7", "squad", markers=["captured", "isolated"])
    leader = add(players, "british", "8-1", "leader", markers=["wounded", "isolated", "heroic"])
    _done(players, "british")
    _done(players, "axis")
    names = [n[0] for n in unit_names(players, "british")]
    assert "4-5-8" not in names and kept.name in names
    players.until_step("3.610")
    with pytest.raises(ActionRefused, match=r"Roll first: the Wounded Leaders for 8-1"):
        _done(players, "british")
    fixed_dice.append([1])
    made = roll(players, "british", "wounded_leaders", leader)
    assert made.final == 1 and "Retained unwounded" in made.result
    with pytest.raises(ActionRefused, match=r"not one of your wounded leaders.*\(3\.610\)"):
        roll(players, "british", "wounded_leaders", leader)  # unwounded now: no second dr
    players.until_step("3.611")
    _done(players, "british")
    _done(players, "axis")
    assert ("9-1", "leader", "isolated", 1) in unit_names(players, "british")


def test_3_6141_the_british_on_the_last_night_owe_repair_stun_and_tank_escape(
    users, modules, fixed_dice
):
    """3.614 on July 16 Night (CG II), the British: 3.6141b "Each non-Captured,
    non-Abandoned, immobilized vehicle must make a dr" and 3.6141d "A side Retaining a
    vehicle suffering ... stun ... must make a dr" and 3.61426 "all mobile Isolated
    British Tanks must now attempt Escape": Done is refused naming the three owed rolls;
    the immobilized, Isolated Sherman's repair dr has +1 Isolated (dr 1 + 1 = 2:
    "Becomes Mobile"); the stunned one's stun dr +1 Isolated, no German +1; the mobile
    Isolated Sherman's Escape DR is owed and made once."""
    players, _ = campaign_at("sicily", "ii", "jul16n", users, step="3.614")
    stuck = add(
        players, "british", "Sherman III(a)", "vehicle", markers=["immobilized", "isolated"]
    )
    stunned = add(players, "british", "Sherman III(a)", "vehicle", markers=["stunned"])
    loose = add(players, "british", "Sherman III(a)", "vehicle", markers=["isolated"])
    with pytest.raises(ActionRefused, match=r"Roll first") as refused:
        _done(players, "british")
    for owed in ("Immobilization Repair", "Stun Recovery", "Escape"):
        assert owed in str(refused.value), str(refused.value)
    fixed_dice.append([1])
    made = roll(players, "british", "immobilization_repair", stuck)
    assert made.final == 2 and "Becomes Mobile" in made.result
    fixed_dice.append([2])
    assert roll(players, "british", "stun_recovery", stunned).final == 2
    fixed_dice.append([1, 2])
    roll(players, "british", "tank_escape", loose)
    with pytest.raises(ActionRefused, match=r"one .*roll"):
        roll(players, "british", "tank_escape", loose)


def test_3_6141c_recall_at_night_for_the_british_as_3_614_begins(users, modules, fixed_dice):
    """3.6141c "Each Mobile, non-Isolated Retained AFV under Recall [is no longer]. If
    Mobile, under Recall, and Isolated, such an AFV begins the next scenario under
    Recall (as well as suffering from Ammunition Shortage)": the British on July 16
    Night (CG II) finish 3.613 with two Recalled Shermans: the non-Isolated one is in
    good order, the Isolated one keeps Recall and is marked Low Ammo; at 3.614 it owes
    its Night Escape DR (3.61426), a Mobile Isolated tank."""
    players, _ = campaign_at("sicily", "ii", "jul16n", users, step="3.613")
    free = add(players, "british", "Sherman III(a)", "vehicle", status="recalled")
    cut = add(players, "british", "Sherman III(a)", "vehicle", markers=["recalled", "isolated"])
    _done(players, "british")
    _done(players, "axis")
    assert players.step.id == "3.614"
    assert unit_names(players, "british", pk=free.pk) == [("Sherman III(a)", "vehicle", "ok", 1)]
    marks = unit_names(players, "british", pk=cut.pk)[0][2]
    assert set(marks.split(", ")) == {"recalled", "isolated", "low_ammo"}, marks
    with pytest.raises(ActionRefused, match=r"Roll first: the Escape"):
        _done(players, "british")


def test_3_6051_through_the_page_a_stranger_line_gets_a_sentence(users, modules, client):
    """3.6051 as the player posts it: the step's text at 3.605 says how; the roster's
    Abandon in No-Man's Land button posts and the Sherman is Abandoned; posting it again
    is answered 409 with a sentence citing 3.6051, nothing changed."""
    players, _ = campaign_at("sicily", "ii", "jul17pm", users, step="3.605")
    sherman = add(players, "british", "Sherman III(a)", "vehicle", status="immobilized")
    page = _page(client, players, "british")
    assert "press Abandon in No-Man's Land on such a vehicle" in page
    for word in ("abandoning", "crew_escapes", "without_functioning"):
        assert word not in page
    url = f"/campaigns/{players.campaign_id}/units/"
    posted = {"do": "abandon", "unit": sherman.ref, "page": "roster"}
    assert client.post(url, posted, HTTP_HX_REQUEST="true").status_code == 200
    assert "abandoned" in Unit.objects.get(pk=sherman.pk).markers
    again = client.post(url, posted, HTTP_HX_REQUEST="true")
    assert again.status_code == 409
    assert "3.6051" in html.unescape(again.content.decode())
    assert len(unit_names(players, "british")) == 2


def test_the_british_pages_from_3_601_to_3_614_after_the_july_16_night_scenario(
    users, modules, client
):
    """The pages each side reads, in rule order, after the July 16 Night scenario (CG
    II), the British holding a 4-5-8 held prisoner by an Isolated Guard, a wounded
    8-1 of no RG, a Hero and a 4-4-7.  3.601 "must undergo an (unlimited) number of
    Melee rounds": said.  3.6042 "must take a NTC (leader's DRM can apply)": the NTC
    offers the leader's DRM, and the 4-4-7, not the prisoner.  3.606: the
    Axis, with nothing to escape, read so.  3.610 "-1 if part of British Airborne RG":
    offered to the British for a leader of no RG, never to the Axis.  3.6112: the Hero
    is offered to give up and the 4-4-7 to Battle Harden, not the prisoner.  3.61426
    "If this is a Night CG Date": at 3.614 (now July 17 AM) the tank Escape is refused
    in those words."""
    players, _ = campaign_at("sicily", "ii", "jul17am", users, step="3.601")
    prisoner = add(players, "british", "4-5-8", "squad", markers=["captured", "isolated"])
    add(players, "british", "8-1", "leader", status="wounded")
    hero = add(players, "british", "1-4-9 Hero", "hero")
    squad = add(players, "british", "4-4-7", "squad")
    page = _page(client, players, "british")
    assert "fight unlimited Melee rounds until no more CC attacks can be made" in page
    players.until_step("3.604")
    page = _page(client, players, "british")
    assert "Leader's DRM (if a leader is present)" in page
    assert f'value="{squad.ref}"' in page and f'value="{prisoner.ref}"' not in page
    players.until_step("3.606")
    assert "You have no squads or half-squads or leaders or Heroes or vehicles" in _page(
        client, players, "axis"
    )
    players.until_step("3.610")
    airborne = "-1 if part of British Airborne RG (a leader not of an RG)"
    assert airborne in _page(client, players, "british")
    assert airborne not in _page(client, players, "axis")
    players.until_step("3.611")
    page = _page(client, players, "british")
    assert f'value="{hero.ref}"' in page and f'value="{squad.ref}"' in page
    assert f'value="{prisoner.ref}"' not in page
    players.until_step("3.614")
    page = _page(client, players, "british")
    assert "only the British roll on it, and only on a Night CG Date (3.61426)" in page
