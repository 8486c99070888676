"""Sicily (seed 001), RePh 3.601-3.614, the fifteenth pass of the sentence audit (issue
44): the items pass 12 left (3.6141a remanning, 3.606 footnote 2, 3.6041 EXC) and
sentences no earlier pass doc quotes, each tried through the services as two players
meet them (docs/rules-audit/pass-15-sica15.md)."""

from __future__ import annotations

import pytest

from campaign.models import Event, Roll
from campaign.services import steps, units
from campaign.services.errors import ActionRefused
from tests import test_rule_mechanisms as mechanisms
from tests.purchase_helpers import campaign_at
from tests.test_rule_mechanisms import add, edit, roll, unit_names

users = mechanisms.users
fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


def _said(players, kind: str = "roll") -> str:
    return Event.objects.filter(campaign_id=players.campaign_id, kind=kind).last().text


def _remann(players, side, vehicle, by=None):
    return units.remann_vehicle(
        campaign_id=players.campaign_id,
        user=players.users[side],
        unit_id=vehicle.ref,
        by_id=by.ref if by is not None else "",
    )


# --------------------------------------------------------------------------- Part 1


def test_3_6141a_an_abandoned_vehicle_is_remanned_only_by_personnel_retained(users, modules):
    """3.6141a "Each Abandoned vehicle may remain Abandoned, or may be remanned and
    operated ... by Personnel Retained within the same Setup Area": at 3.614 the Axis,
    who retain no Personnel, cannot take a StuG's Abandoned marker off, neither by
    Remann nor by correcting its line; a captured (prisoner) squad is no Personnel
    retained; once a 4-6-7 is retained it remanns the StuG, and the log names it; the
    British cannot name the Axis StuG; a second Remann is refused."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.614")
    stug = add(players, "axis", "StuG IIIG", "vehicle", status="abandoned")
    with pytest.raises(ActionRefused, match=r"you retain no Personnel.*\(3\.6141a"):
        _remann(players, "axis", stug)
    with pytest.raises(ActionRefused, match=r"unless it is remanned \(3\.6141a\)"):
        edit(players, "axis", stug, "ok")
    prisoner = add(players, "axis", "4-6-7", "squad", status="captured")
    with pytest.raises(ActionRefused, match=r"only Personnel you retain.*3\.6141a"):
        _remann(players, "axis", stug, prisoner)
    assert unit_names(players, "axis", kind="vehicle") == [("StuG IIIG", "vehicle", "abandoned", 1)]
    squad = add(players, "axis", "4-6-7", "squad")
    with pytest.raises(ActionRefused, match=r"Name the Personnel who remann"):
        _remann(players, "axis", stug)
    _remann(players, "axis", stug, squad)
    assert unit_names(players, "axis", kind="vehicle") == [("StuG IIIG", "vehicle", "ok", 1)]
    assert "4-6-7 remanns StuG IIIG, now in good order (3.6141a)" in _said(players, "unit")
    # The wrong side: the British name the Axis StuG.
    with pytest.raises(ActionRefused, match="You have no such unit"):
        _remann(players, "british", stug, squad)
    # Twice: the StuG is no longer Abandoned.
    with pytest.raises(ActionRefused, match=r"not a vehicle of yours marked abandoned"):
        _remann(players, "axis", stug, squad)


def test_3_6141a_remanning_only_at_3_614_and_a_correction_elsewhere_needs_personnel(users, modules):
    """3.6141a is a step of 3.614: Remann is refused at 3.610 (Wounded Leaders); there, taking the
    Abandoned marker off (a correction of the line) is refused while the British retain
    no Personnel, and accepted once they retain a HS."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.610")
    sherman = add(players, "british", "Sherman III", "vehicle", status="abandoned")
    with pytest.raises(ActionRefused, match=r"No vehicle is remanned at 3\.610"):
        _remann(players, "british", sherman)
    with pytest.raises(ActionRefused, match=r"you retain no Personnel.*3\.6141a"):
        edit(players, "british", sherman, "ok")
    add(players, "british", "2-4-8", "half_squad")
    edit(players, "british", sherman, "ok")
    assert unit_names(players, "british", kind="vehicle") == [("Sherman III", "vehicle", "ok", 1)]


def _roster(client, players, side) -> str:
    import html

    client.force_login(players.users[side])
    return html.unescape(client.get(f"/campaigns/{players.campaign_id}/roster/").content.decode())


def test_3_6141a_the_roster_offers_remann_and_the_form_remanns(users, modules, client):
    """3.6141a as the player meets it: the retained forces offer "Remann StuG IIIG
    (3.6141a)" with a choice of his Personnel; posting it with none named is a 4xx
    naming the rule and changes nothing; naming the 4-6-7 remanns the StuG."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.614")
    stug = add(players, "axis", "StuG IIIG", "vehicle", status="abandoned")
    squad = add(players, "axis", "4-6-7", "squad")
    page = _roster(client, players, "axis")
    assert "Remann StuG IIIG (3.6141a)" in page, page
    url = f"/campaigns/{players.campaign_id}/units/"
    r = client.post(url, {"do": "remann", "unit": stug.ref, "by": ""}, HTTP_HX_REQUEST="true")
    assert 400 <= r.status_code < 500, r.status_code
    assert "3.6141a" in r.content.decode()
    assert unit_names(players, "axis", kind="vehicle") == [("StuG IIIG", "vehicle", "abandoned", 1)]
    r = client.post(
        url, {"do": "remann", "unit": stug.ref, "by": squad.ref}, HTTP_HX_REQUEST="true"
    )
    assert r.status_code < 400, r.content.decode()
    assert unit_names(players, "axis", kind="vehicle") == [("StuG IIIG", "vehicle", "ok", 1)]
    assert "Remann StuG IIIG" not in _roster(client, players, "axis")


def test_3_6141a_remann_is_offered_at_3_614_only(users, modules, client):
    """The roster offers Remann only at the step that gives it (3.614): at 3.610 the
    same Abandoned StuG, with a squad retained, shows no Remann form (it would be
    refused there)."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.610")
    add(players, "axis", "StuG IIIG", "vehicle", status="abandoned")
    add(players, "axis", "4-6-7", "squad")
    page = _roster(client, players, "axis")
    assert "StuG IIIG" in page and "Remann StuG IIIG" not in page


def test_3_606_footnote_2_a_crew_replaced_is_eliminated_instead(users, modules, fixed_dice):
    """3.606 footnote 2 "A crew, or unit, that would become Disrupted is Eliminated
    instead" (rows 9 "Escapes; Replaced" and 11 "Replaced, then Casualty Reduced"): an
    Isolated 2-2-8 crew whose Escape DR is 9 is Eliminated (a crew has no lower quality
    counter), where a 2-4-7 HS is marked to be Replaced; on row 11 the crew is
    Eliminated too.  The 3.606 page says what the app cannot hold (an MMC already of its
    lowest quality)."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.606")
    crew = add(players, "axis", "2-2-8 crew", "half_squad", status="isolated")
    fixed_dice.append([4, 4])  # 8 +2 Isolated -1 Night = 9
    assert roll(players, "axis", "escape", crew).final == 9
    assert unit_names(players, "axis") == []
    assert "Replaced [2,3]. 2-2-8 crew is Eliminated (3.606 footnote 2)" in _said(players)
    hs = add(players, "axis", "2-4-7", "half_squad", status="isolated")
    fixed_dice.append([4, 4])
    assert roll(players, "axis", "escape", hs).final == 9
    assert unit_names(players, "axis") == [("2-4-7", "half_squad", "replace_due", 1)]
    crew = add(players, "axis", "2-2-8 crew", "half_squad", status="isolated")
    fixed_dice.append([5, 5])  # 10 +2 -1 = 11
    assert roll(players, "axis", "escape", crew).final == 11
    assert ("2-2-8 crew", "half_squad") not in {n[:2] for n in unit_names(players, "axis")}


def test_3_6041_exc_the_encircled_crew_of_an_immobile_vehicle_fails_and_leaves_it_abandoned(
    users, modules, fixed_dice
):
    """3.6041 "[EXC: Encircled PRC of an Immobile vehicle are Eliminated, leaving the
    vehicle Abandoned]": a StuG marked Encircled and immobilized owes its crew's 1TC
    (Done waits for it); DR 10 - 8 fails:
    the StuG stays, marked Abandoned (not eliminated); a second DR is refused; a Mobile
    Encircled StuG owes none.  A passed 1TC leaves a second StuG as it was."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.604")
    stug = add(players, "axis", "StuG IIIG", "vehicle", markers=["encircled", "immobilized"])
    mobile = add(players, "axis", "StuG IIIG", "vehicle", markers=["encircled"])
    with pytest.raises(ActionRefused, match=r"Roll first"):
        steps.finish_step(campaign_id=players.campaign_id, user=players.users["axis"])
    # Pass 16: the StuG's crew Morale is read from its 2-2-8 crew (inherent_crews), no
    # longer refused untyped (test_sica16_pass16::
    # test_3_6041_exc_the_crews_morale_is_read_from_its_crew_counter).
    with pytest.raises(ActionRefused, match=r"3\.6041"):
        roll(players, "axis", "encircled_prc_1tc", mobile, typed={"crew_morale": 8})
    fixed_dice.append([5, 5])
    r = roll(players, "axis", "encircled_prc_1tc", stug, typed={"crew_morale": 8})
    assert r.final == 2 and r.result.startswith("Fails"), (r.final, r.result)
    lines = unit_names(players, "axis", kind="vehicle")
    assert ("StuG IIIG", "vehicle", "immobilized, abandoned, encircled", 1) in lines, lines
    with pytest.raises(ActionRefused):
        roll(players, "axis", "encircled_prc_1tc", stug, typed={"crew_morale": 8})
    other = add(players, "axis", "Semovente 75/18", "vehicle", markers=["encircled", "immobilized"])
    fixed_dice.append([3, 4])
    r = roll(players, "axis", "encircled_prc_1tc", other, typed={"crew_morale": 7})
    assert r.final == 0 and r.result.startswith("Passes")
    assert ("Semovente 75/18", "vehicle", "immobilized, encircled", 1) in unit_names(
        players, "axis", kind="vehicle"
    )


# --------------------------------------------------------------------------- Part 2


def _page(client, players, side) -> str:
    import html

    client.force_login(players.users[side])
    return html.unescape(client.get(f"/campaigns/{players.campaign_id}/").content.decode())


def _done(players, side) -> None:
    """``side`` presses Done (going on without the data a step lacks, as the walk does:
    3.61422's table is missing from the seed)."""
    steps.finish_step(campaign_id=players.campaign_id, user=players.users[side], without_data=True)


def test_3_61424_restores_special_ammo_once_per_type_and_not_for_an_isolated_weapon(
    users, modules, fixed_dice
):
    """3.61424 "Each non-captured, non-Isolated weapon ... may make a dr ... for each
    type of special ammunition which is depleted" and "≤ 3 | Restores special
    Ammunition type" / "≥ 4 | NA, weapon still depleted for next CG Date": a PaK 40's
    APCR dr 3 restores it; a second APCR dr for the PaK is refused; its HE dr 4 is NA; an
    Isolated PaK and a captured one are refused; Done needs none of them ("may")."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.614")
    pak = add(players, "axis", "PaK 40", "gun")
    fixed_dice.append([3])
    r = roll(players, "axis", "special_ammo", pak, item="APCR")
    assert r.result == "Restores special Ammunition type", r.result
    with pytest.raises(ActionRefused):
        roll(players, "axis", "special_ammo", pak, item="APCR")
    fixed_dice.append([4])
    r = roll(players, "axis", "special_ammo", pak, item="HE")
    assert r.result == "NA, weapon still depleted for next CG Date"
    for marker in ("isolated", "captured"):
        other = add(players, "axis", "PaK 38", "gun", status=marker)
        with pytest.raises(ActionRefused, match=r"3\.61424"):
            roll(players, "axis", "special_ammo", other, item="APCR")
    _done(players, "axis")


def test_3_606_mobile_vehicle_column_escapes_abandoned_eliminated(users, modules, fixed_dice):
    """3.606 Mobile Vehicle column: "≥ 8 | Escapes" (printed so; read ≤ 8), "9 |
    Abandoned; crew (if any) Escapes", "10 | Eliminated; crew (if any) Escapes": an
    Isolated StuG DR 6 (+2 Isolated, no Night -1 for a vehicle) escapes and is no longer
    Isolated (3.6061); another DR 7 → 9 is Abandoned and stays Isolated where it is (in
    its current hex, footnote 5); a third DR 8 → 10 leaves the retained forces."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.606")
    a = add(players, "axis", "StuG IIIG", "vehicle", status="isolated")
    fixed_dice.append([3, 3])
    r = roll(players, "axis", "escape", a)
    assert (r.final, r.result) == (8, "Mobile Vehicle: Escapes"), (r.final, r.result)
    assert unit_names(players, "axis") == [("StuG IIIG", "vehicle", "ok", 1)]
    b = add(players, "axis", "Semovente 75/18", "vehicle", status="isolated")
    fixed_dice.append([3, 4])
    assert roll(players, "axis", "escape", b).final == 9
    assert ("Semovente 75/18", "vehicle", "isolated, abandoned", 1) in unit_names(players, "axis")
    c = add(players, "axis", "PzKpfw IVH", "vehicle", status="isolated")
    fixed_dice.append([4, 4])
    assert roll(players, "axis", "escape", c).final == 10
    assert "PzKpfw IVH" not in {n[0] for n in unit_names(players, "axis")}


def test_3_6056_an_isolated_unit_may_remain_in_place_without_an_escape_dr(users, modules):
    """3.6056 chart, Personnel "if Isolated | may attempt Escape or remain in place":
    an Isolated 4-6-7 that makes no Escape DR is not waited for: both sides' Done at
    3.606 go through, and it stays Isolated (only Encircled goes, 3.6062)."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.606")
    add(players, "axis", "4-6-7", "squad", markers=["isolated", "encircled"])
    _done(players, "axis")
    _done(players, "british")
    assert unit_names(players, "axis") == [("4-6-7", "squad", "isolated", 1)]


def test_3_608_a_freed_prisoner_is_retained_by_its_side(users, modules):
    """3.608 "If freed, a prisoner is automatically Retained (by the side friendly to
    it)": a British 4-5-8 held prisoner (marked captured) whose Isolated Guard frees it
    has its captured marker cleared by its owner and stays in the British retained
    forces when 3.608 is completed; another, still captured and not Isolated, is
    Eliminated."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.608")
    freed = add(players, "british", "4-5-8", "squad", status="captured")
    add(players, "british", "8-0 leader", "leader", status="captured")
    edit(players, "british", freed, "ok")
    _done(players, "axis")
    _done(players, "british")
    assert unit_names(players, "british") == [("4-5-8", "squad", "ok", 1)]


def test_3_603_all_broken_units_rally_no_dr_is_made(users, modules, client):
    """3.603 "All currently broken units of both sides automatically rally, even if
    Disrupted. No DR is made.": the 3.603 page offers no roll and says so; each side's
    Done goes through with nothing rolled."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.603")
    page = _page(client, players, "axis")
    assert "All broken units rally automatically, even if Disrupted, with no DR" in page
    _done(players, "axis")
    _done(players, "british")
    assert not Roll.objects.filter(campaign_id=players.campaign_id).exists()


def test_3_6051_the_step_says_an_immobile_vehicle_in_no_mans_land_is_abandoned(
    users, modules, client, fixed_dice
):
    """3.6051 "Each manned, Immobile vehicle without functioning MA in No-Man's Land
    becomes Abandoned, and its crew (if any) must attempt Escape per 3.606": No-Man's
    Land is the map's, so the 3.605 page says it; the crew added as a line then makes
    its Escape DR at 3.606 (an immobilized vehicle itself makes none)."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.605")
    page = _page(client, players, "axis")
    assert "Immobile vehicle without functioning MA in No-Man's Land becomes Abandoned" in page
    assert "its crew, if any, must attempt Escape at 3.606" in page
    stug = add(players, "axis", "StuG IIIG", "vehicle", markers=["immobilized", "abandoned"])
    crew = add(players, "axis", "2-2-8 crew", "half_squad")
    _done(players, "axis")
    _done(players, "british")
    players.until_step("3.606")
    with pytest.raises(ActionRefused, match=r"3\.606"):
        roll(players, "axis", "escape", stug)
    fixed_dice.append([2, 3])
    assert roll(players, "axis", "escape", crew).result == "Infantry: Escapes [1]"


@pytest.mark.parametrize(
    ("step", "words"),
    [
        # 3.601 "All opposing units in the same Locations are now assumed to be in Melee,
        # and must under go an (unlimited) number of Melee rounds until no more CC
        # attacks can be made."
        ("3.601", "fight unlimited Melee rounds until no more CC attacks can be made"),
        # 3.602 "All markers/" (cut): the page gives the printed words and says the
        # printed rule stops there.
        ("3.602", "All markers/… (the printed rule stops here"),
        # 3.6043-3.6046 (Bog, Shock, Fording, used OBA RGs' radios): the map's.
        ("3.604", "resolve Bog, Shock and Fording; remove the radio of each used OBA RG"),
        # 3.606 footnote 2, what the app cannot hold.
        ("3.606", "an MMC marked to be Replaced that is already of its nationality's lowest"),
        # 3.606 footnotes 4 and 6: the surviving crew's options, printed with the table.
        ("3.606", "The surviving crew (if any) may turn the vehicle into a (Burnt-Out) Wreck"),
        ("3.606", "The surviving crew (if any) may attempt to Scrounge the vehicle prior to"),
        # 3.609 "Each building/" ... 3.6095 "All Fortifications/": map work.
        ("3.609", "Remove Blazes from Burning Wrecks"),
    ],
)
def test_map_sentences_are_carried_by_the_steps_text(users, modules, client, step, words):
    """Sentences of 3.601-3.609 whose facts Refit does not hold (Locations, markers on
    the map, crews' options): the step's page carries each sentence's condition."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step=step)
    assert words in _page(client, players, "axis")


def test_3_610_a_wounded_leader_held_prisoner_is_not_retained_and_owes_no_dr(
    users, modules, fixed_dice
):
    """3.610 "Each side makes a dr on the following table for each currently wounded
    Retained Leader", read with 3.608 "If freed, a prisoner is automatically Retained":
    a prisoner is not Retained.  A wounded British 8-1 held prisoner by an Isolated
    Guard (marked captured and Isolated, so 3.608 kept him) owes no dr: the dr is
    refused citing 3.610 and the British Done goes through; a wounded 8-0 who is not a
    prisoner owes his."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.610")
    prisoner = add(
        players, "british", "8-1 leader", "leader", markers=["wounded", "captured", "isolated"]
    )
    with pytest.raises(ActionRefused, match=r"3\.610"):
        roll(players, "british", "wounded_leaders", prisoner)
    _done(players, "british")
    free = add(players, "axis", "8-0 leader", "leader", status="wounded")
    with pytest.raises(ActionRefused, match=r"Roll first"):
        steps.finish_step(campaign_id=players.campaign_id, user=players.users["axis"])
    fixed_dice.append([3])
    assert roll(players, "axis", "wounded_leaders", free).result == "Retained wounded"


def test_3_611_a_prisoner_is_no_retained_hero_nor_heroic_leader(users, modules):
    """3.6112 "each Retained Hero ... is Eliminated; however, each such Elimination
    enables that side to Battle Harden one non-crew MMC" and 3.6113 "each Retained
    Heroic leader Battle Hardens and loses his heroic status": a Hero and a heroic 8-1
    held prisoner (captured, their Guard Isolated) are not Retained: the Hero cannot be
    given up for a Battle Hardened squad (refused citing 3.6112) and stays the Guard's
    prisoner at Done, and the 8-1 neither Battle Hardens nor loses his heroic status;
    the Axis's own heroic 8-1 becomes a 9-1."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.611")
    hero = add(players, "british", "Hero 1-4-9", "hero", markers=["captured", "isolated"])
    squad = add(players, "british", "4-5-8", "squad")
    with pytest.raises(ActionRefused, match=r"3\.6112"):
        units.exchange_unit(
            campaign_id=players.campaign_id,
            user=players.users["british"],
            give_id=hero.ref,
            mark_id=squad.ref,
        )
    add(players, "british", "8-1 leader", "leader", markers=["heroic", "captured", "isolated"])
    add(players, "axis", "8-1 leader", "leader", status="heroic")
    _done(players, "axis")
    _done(players, "british")
    assert unit_names(players, "british") == [
        ("4-5-8", "squad", "ok", 1),
        ("8-1 leader", "leader", "isolated, captured, heroic", 1),
        ("Hero 1-4-9", "hero", "isolated, captured", 1),  # still the Guard's prisoner
    ]
    assert unit_names(players, "axis") == [("9-1 leader", "leader", "ok", 1)]


def test_3_6141a_then_b_a_remanned_immobilized_vehicle_owes_its_repair_dr(
    users, modules, fixed_dice
):
    """3.6141a then 3.6141b "Each non-Captured, non-Abandoned, immobilized vehicle must
    make a dr": an Abandoned, immobilized StuG owes no repair dr (refused citing
    3.6141b); once a 4-6-7 remanns it, it is no longer Abandoned and owes it (Done says
    "Roll first"); dr 2 makes it Mobile."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.614")
    stug = add(players, "axis", "StuG IIIG", "vehicle", markers=["immobilized", "abandoned"])
    squad = add(players, "axis", "4-6-7", "squad")
    with pytest.raises(ActionRefused, match=r"3\.6141b"):
        roll(players, "axis", "immobilization_repair", stug)
    _remann(players, "axis", stug, squad)
    with pytest.raises(ActionRefused, match=r"Roll first"):
        steps.finish_step(
            campaign_id=players.campaign_id, user=players.users["axis"], without_data=True
        )
    fixed_dice.append([2])
    assert roll(players, "axis", "immobilization_repair", stug).result.startswith("Becomes Mobile")
    assert ("StuG IIIG", "vehicle", "ok", 1) in unit_names(players, "axis")


def test_3_6062_the_encircled_marker_leaves_a_vehicle_whose_crew_passed(users, modules, fixed_dice):
    """3.6041 EXC then 3.6062 "All Encircled markers are now removed": a StuG whose
    crew passed its 1TC at 3.604 stays Encircled and immobilized through 3.605; when
    3.606 is completed the Encircled marker goes, immobilized stays."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.604")
    stug = add(players, "axis", "StuG IIIG", "vehicle", markers=["encircled", "immobilized"])
    fixed_dice.append([2, 2])
    assert roll(players, "axis", "encircled_prc_1tc", stug, typed={"crew_morale": 8}).final == -4
    players.until_step("3.607")
    assert unit_names(players, "axis") == [("StuG IIIG", "vehicle", "immobilized", 1)]


def test_3_6042_a_crew_line_takes_the_minefield_ntc_and_is_eliminated(users, modules, fixed_dice):
    """3.6042 "Each Infantry unit in an A-P minefield hex (including a crew that just
    unloaded due to a minefield attack) must take a NTC ... failure of the TC causes
    Casualty Reduction": a 2-2-8 crew line's NTC reads Morale 8 from its counter; DR 10
    fails and the crew (a HS-equivalent) is Eliminated."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.604")
    crew = add(players, "axis", "2-2-8 crew", "half_squad")
    fixed_dice.append([5, 5])
    r = roll(players, "axis", "minefield_ntc", crew)
    assert r.final == 2 and r.result == "Fails: Casualty Reduction", (r.final, r.result)
    assert unit_names(players, "axis") == []


def test_3_6141a_a_captured_vehicle_is_remanned_a_withdrawn_squad_cannot(users, modules):
    """3.6141a "Each Abandoned vehicle ... may be remanned and operated (per A21.22 or
    D5.42/D6.631) by Personnel Retained within the same Setup Area": a captured StuG the
    British Retain (3.6071) and find Abandoned is remanned by their 4-5-8; an Axis 4-6-7
    withdrawn off map (3.60742) stands in no Setup Area and cannot remann the Axis's
    Abandoned Semovente (refused citing 3.6141a)."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.614")
    stug = add(players, "british", "StuG IIIG", "vehicle", markers=["captured", "abandoned"])
    squad = add(players, "british", "4-5-8", "squad")
    _remann(players, "british", stug, squad)
    assert ("StuG IIIG", "vehicle", "captured", 1) in unit_names(players, "british")
    sem = add(players, "axis", "Semovente 75/18", "vehicle", status="abandoned")
    away = add(players, "axis", "4-6-7", "squad", status="withdrawn")
    with pytest.raises(ActionRefused, match=r"not withdrawn off map.*3\.6141a"):
        _remann(players, "axis", sem, away)


def test_3_610_a_wounded_leader_withdrawn_off_map_is_retained_and_owes_his_dr(
    users, modules, fixed_dice
):
    """3.610 "for each currently wounded Retained Leader" with 3.60742 "Withdrawn Axis
    units ... are retained by the Axis off map": a wounded 8-1 withdrawn off map is
    Retained, so the Axis Done waits for his dr (unlike a prisoner's)."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.610")
    leader = add(players, "axis", "8-1 leader", "leader", markers=["wounded", "withdrawn"])
    with pytest.raises(ActionRefused, match=r"Roll first"):
        steps.finish_step(campaign_id=players.campaign_id, user=players.users["axis"])
    fixed_dice.append([1])
    assert roll(players, "axis", "wounded_leaders", leader).result == "Retained unwounded"


def test_3_6071_the_new_owner_may_abandon_a_captured_vehicle_or_eliminate_a_captured_sw(
    users, modules
):
    """3.6071 "At its (new) owner's option, each such non-vehicle piece may be
    Eliminated by any Personnel ... Retained in that Setup Area, and each such vehicle
    may be Abandoned, etc. exactly as per 3.61423": at 3.607 the British, who captured
    a StuG and an MG 42, mark the StuG Abandoned and remove the MG 42 from their
    retained forces; both are theirs to do, and the log says so."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.607")
    stug = add(players, "british", "StuG IIIG", "vehicle", status="captured")
    mg = add(players, "british", "MG 42", "sw", status="captured")
    edit(players, "british", stug, "captured", markers=["abandoned"])
    units.remove_unit(
        campaign_id=players.campaign_id, user=players.users["british"], unit_id=mg.ref
    )
    assert unit_names(players, "british") == [("StuG IIIG", "vehicle", "captured, abandoned", 1)]
    assert "MG 42" in _said(players, "unit"), _said(players, "unit")


def test_3_6141a_an_abandoned_vehicle_may_remain_abandoned(users, modules):
    """3.6141a "Each Abandoned vehicle may remain Abandoned": at 3.614 the Axis, who
    retain a 4-6-7, press Done without remanning their Abandoned StuG: nothing is
    owed for it, and it stays Abandoned."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.614")
    add(players, "axis", "StuG IIIG", "vehicle", status="abandoned")
    add(players, "axis", "4-6-7", "squad")
    _done(players, "axis")
    assert ("StuG IIIG", "vehicle", "abandoned", 1) in unit_names(players, "axis")
