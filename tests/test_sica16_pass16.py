"""Sicily (seed 001), RePh 3.601-3.614, the sixteenth pass of the sentence audit (issue
44): the items pass 15 left (a prisoner's Escape and Shift DRs, the crew that escapes its
vehicle, footnote 2's lowest-quality MMC, 3.6041 EXC's crew Morale) and sentences of the
range tried as two players meet them (docs/rules-audit/pass-16-sica16.md)."""

from __future__ import annotations

import pytest

from campaign.models import Event, Unit
from campaign.services import steps
from campaign.services.errors import ActionRefused
from tests import test_rule_mechanisms as mechanisms
from tests.purchase_helpers import campaign_at
from tests.test_rule_mechanisms import add, roll, unit_names

users = mechanisms.users
fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


def _said(players, kind: str = "roll") -> str:
    return Event.objects.filter(campaign_id=players.campaign_id, kind=kind).last().text


def _done(players, side) -> None:
    steps.finish_step(campaign_id=players.campaign_id, user=players.users[side], without_data=True)


# --------------------------------------------------------------------------- Part 1


@pytest.mark.parametrize(("step", "table"), [("3.606", "escape"), ("3.613", "shift")])
def test_3_606_3_613_a_prisoner_makes_no_escape_or_shift_dr_captured_equipment_may(
    users, modules, fixed_dice, step, table
):
    """3.606 "Each Personnel/" and 3.613 "A Personnel/": a prisoner (a squad, HS, leader
    or Hero the side holds marked captured: a man held by the enemy, 3.608) is not the
    side's Personnel and makes neither DR, alone or joining a stack; a captured vehicle
    (the side's captured Equipment, 3.606 "+1 If a Captured vehicle") may; the
    side's own 4-6-7 may."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step=step)
    for name, kind in (("4-5-8", "squad"), ("2-4-8", "half_squad"), ("8-1 leader", "leader")):
        prisoner = add(players, "axis", name, kind, markers=["captured", "isolated"])
        with pytest.raises(ActionRefused, match=rf"not a prisoner\).*\({step}\)"):
            roll(players, "axis", table, prisoner)
    squad = add(players, "axis", "4-6-7", "squad", status="isolated")
    held = add(players, "axis", "4-5-8", "squad", markers=["captured", "isolated"])
    with pytest.raises(ActionRefused, match=rf"{step}"):
        roll(players, "axis", table, squad, stack=[held.ref])
    fixed_dice.append([1, 2])
    roll(players, "axis", table, squad)
    sherman = add(players, "axis", "Sherman III", "vehicle", markers=["captured", "isolated"])
    fixed_dice.append([1, 2])
    roll(players, "axis", table, sherman)


@pytest.mark.parametrize(
    ("dice", "final", "vehicle_after"), [([3, 4], 9, "abandoned"), ([4, 4], 10, None)]
)
def test_3_606_rows_9_10_the_crew_of_a_vehicle_escapes_as_a_line_of_its_own(
    users, modules, fixed_dice, dice, final, vehicle_after
):
    """3.606 Mobile Vehicle "9 | Abandoned; crew (if any) Escapes" and "10 | Eliminated;
    crew (if any) Escapes": an Isolated StuG's crew escapes: a 2-2-8 crew line (the
    German crew counter the charts give a Gun, footnote e) joins the Axis retained
    forces, in good order (Retained in a friendly Setup Area, 3.6061), while the StuG
    stays Abandoned and Isolated (row 9) or leaves (row 10); the log says so."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.606")
    stug = add(players, "axis", "StuG IIIG", "vehicle", status="isolated")
    fixed_dice.append(dice)
    assert roll(players, "axis", "escape", stug).final == final
    lines = unit_names(players, "axis")
    assert ("2-2-8 crew", "half_squad", "ok", 1) in lines, lines
    stugs = [n for n in lines if n[0] == "StuG IIIG"]
    assert stugs == ([("StuG IIIG", "vehicle", "isolated, abandoned", 1)] if vehicle_after else [])
    assert "its 2-2-8 crew escapes" in _said(players), _said(players)


@pytest.mark.parametrize(("dice", "final"), [([4, 5], 11), ([5, 5], 12)])
def test_3_606_rows_11_12_the_crew_is_eliminated_with_no_line_added(
    users, modules, fixed_dice, dice, final
):
    """3.606 rows 11 "Abandoned; crew (if any) is Eliminated" and 12 "Eliminated; crew
    (if any) is Eliminated": no crew line is added for a British Sherman."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.606")
    sherman = add(players, "british", "Sherman III(a)", "vehicle", status="isolated")
    fixed_dice.append(dice)
    assert roll(players, "british", "escape", sherman).final == final
    assert [n for n in unit_names(players, "british") if "crew" in n[0]] == []


def test_3_606_row_9_a_vehicle_whose_crew_the_module_does_not_know_asks_its_owner(
    users, modules, fixed_dice
):
    """3.606 row 9 for an Italian Semovente (added by hand; its Italian crew counter is
    in no chart of the seed): no crew counter is invented: the crew escapes as a line
    named for its vehicle, "crew of Semovente 75/18", and the log tells the owner to
    rename it to its crew counter (pass 19: before, he was told to add it himself); a
    captured Sherman the Axis hold has no Inherent crew of theirs (its Personnel stay
    their own lines): none added."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.606")
    semo = add(players, "axis", "Semovente 75/18", "vehicle", status="isolated")
    fixed_dice.append([3, 4])
    assert roll(players, "axis", "escape", semo).final == 9
    assert [n for n in unit_names(players, "axis") if "crew" in n[0]] == [
        ("crew of Semovente 75/18", "half_squad", "ok", 1)
    ]
    assert "rename the line to it on your retained forces" in _said(players), _said(players)
    Unit.objects.filter(campaign_id=players.campaign_id, name__startswith="crew of").delete()
    sherman = add(players, "axis", "Sherman III(a)", "vehicle", markers=["captured"])
    fixed_dice.append([4, 4])
    assert roll(players, "axis", "escape", sherman).final == 9  # 8 +1 Captured vehicle
    assert [n for n in unit_names(players, "axis") if "crew" in n[0]] == []


def test_3_6041_exc_the_crews_morale_is_read_from_its_crew_counter(users, modules, fixed_dice):
    """3.6041 "[EXC: Encircled PRC of an Immobile vehicle are Eliminated, leaving the
    vehicle Abandoned]": the 1TC of an Encircled, immobilized StuG's crew is taken
    against the Morale of its 2-2-8 crew, read (8), nothing typed: DR 9 - 8 = 1 fails
    and the StuG is Abandoned; a British Sherman's DR 8 - 8 = 0 passes; a typed 7 for a
    StuG is refused (the record says 8); an Italian Semovente's crew is in no chart:
    its Morale is still typed, and its roll refused without it."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.604")
    stug = add(players, "axis", "StuG IIIG", "vehicle", markers=["encircled", "immobilized"])
    with pytest.raises(ActionRefused, match=r"is 8 on the record, not 7.*3\.6041"):
        roll(players, "axis", "encircled_prc_1tc", stug, typed={"crew_morale": 7})
    fixed_dice.append([4, 5])
    r = roll(players, "axis", "encircled_prc_1tc", stug)
    assert r.final == 1 and r.result.startswith("Fails"), (r.final, r.drms)
    assert ("StuG IIIG", "vehicle", "immobilized, abandoned, encircled", 1) in unit_names(
        players, "axis"
    )
    sherman = add(
        players, "british", "Sherman III(a)", "vehicle", markers=["encircled", "immobilized"]
    )
    fixed_dice.append([4, 4])
    r = roll(players, "british", "encircled_prc_1tc", sherman, typed={"crew_morale": 8})
    assert r.final == 0 and r.result.startswith("Passes"), (r.final, r.drms)
    semo = add(players, "axis", "Semovente 75/18", "vehicle", markers=["encircled", "immobilized"])
    with pytest.raises(ActionRefused, match=r"Enter '- the Inherent crew's Morale'"):
        roll(players, "axis", "encircled_prc_1tc", semo)
    fixed_dice.append([3, 4])
    r = roll(players, "axis", "encircled_prc_1tc", semo, typed={"crew_morale": 7})
    assert r.final == 0, r.drms


# --------------------------------------------------------------------------- Part 2


def test_3_61426_a_british_tank_abandoned_at_night_leaves_its_crew(users, modules, fixed_dice):
    """3.61426 "all mobile Isolated British Tanks must now attempt Escape" on the
    Escape Table's Mobile Vehicle column (3.606 "9 | Abandoned; crew (if any)
    Escapes"): at 3.614 on July 15 Night an Isolated Sherman's DR 7 +2 = 9 leaves it
    Abandoned and Isolated and its 2-2-8 crew joins the British retained forces; a
    second Sherman's DR 11 (Abandoned; crew Eliminated) adds no crew; the escaped crew
    owes no Escape of its own (Done goes)."""
    players, _ = campaign_at("sicily", "i", "jul15n", users, step="3.614")
    sherman = add(players, "british", "Sherman III(a)", "vehicle", status="isolated")
    fixed_dice.append([3, 4])
    assert roll(players, "british", "tank_escape", sherman).final == 9
    lines = unit_names(players, "british")
    assert ("2-2-8 crew", "half_squad", "ok", 1) in lines, lines
    assert ("Sherman III(a)", "vehicle", "isolated, abandoned", 1) in lines, lines
    other = add(players, "british", "Sherman III(a) #2", "vehicle", status="isolated")
    fixed_dice.append([4, 5])
    assert roll(players, "british", "tank_escape", other).final == 11
    assert [n for n in unit_names(players, "british") if "crew" in n[0]] == [
        ("2-2-8 crew", "half_squad", "ok", 1)
    ]
    _done(players, "british")


def test_3_606_the_escaped_crew_is_of_the_vehicles_rg_and_the_axis_side(users, modules, fixed_dice):
    """3.606 row 10 for a captured StuG the British hold (Abandoned? no: Mobile,
    Isolated, captured): the +1 "If a Captured vehicle" applies by itself; the StuG is
    Eliminated and no crew line is added (its captor's Personnel man it, their own
    lines); the Axis retained forces are untouched."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.606")
    stug = add(players, "british", "StuG IIIG", "vehicle", markers=["captured", "isolated"])
    fixed_dice.append([3, 4])  # 7 +2 Isolated +1 Captured vehicle = 10
    r = roll(players, "british", "escape", stug)
    assert r.final == 10, r.drms
    assert unit_names(players, "british") == []
    assert unit_names(players, "axis") == []


def test_3_6041_a_prisoner_takes_no_1tc_and_a_corrected_line_owes_none(users, modules, fixed_dice):
    """3.6041 "Each encircled unit [EXC: Prisoner] must take a separate 1TC": a British
    4-5-8 held prisoner (captured) marked Encircled is refused the 1TC and not waited
    for; the British 6-4-8's is owed, its Morale 8 read from the counter: DR 9 fails and
    it is Eliminated.  The EXC's vehicle: the owner of a StuG marked Encircled and
    immobilized cannot correct its line (immobilized taken off) to dodge its crew's
    1TC: refused while the roll is owed, nothing changed."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.604")
    prisoner = add(players, "british", "4-5-8", "squad", markers=["captured", "encircled"])
    with pytest.raises(ActionRefused, match=r"3\.6041"):
        roll(players, "british", "encircled_1tc", prisoner)
    para = add(players, "british", "6-4-8", "squad", markers=["encircled"])
    with pytest.raises(ActionRefused, match="Roll first"):
        steps.finish_step(campaign_id=players.campaign_id, user=players.users["british"])
    fixed_dice.append([4, 5])
    r = roll(players, "british", "encircled_1tc", para)
    assert r.final == 1 and r.result.startswith("Fails"), (r.final, r.result)
    assert "6-4-8" not in {n[0] for n in unit_names(players, "british")}
    _done(players, "british")
    stug = add(players, "axis", "StuG IIIG", "vehicle", markers=["encircled", "immobilized"])
    from tests.test_rule_mechanisms import edit

    with pytest.raises(ActionRefused, match=r"owes its roll on the Encirclement 1TC.*Roll first"):
        edit(players, "axis", stug, None, markers=["encircled"])
    assert ("StuG IIIG", "vehicle", "immobilized, encircled", 1) in unit_names(players, "axis")


def test_3_6122_san_of_4_rolls_with_no_drm_and_3_does_not(users, modules, fixed_dice):
    """3.6122 "If a side has a SAN ≥ 4, a SAN adjustment dr must be made with a +drm
    equal to the current SAN minus 4. A Final dr ≥ 5 immediately reduces that sides
    SAN by two": Axis SAN 4, dr 5 +0 → SAN 2; British SAN 3: no roll owed, refused."""
    from tests.test_rule_mechanisms import result_values, seat, start

    players, module = start("sicily", "i", users, "axis")
    players.results(**result_values(module, san_axis=4, san_british=3))
    players.until_step("3.6122")
    assert players.waiting() == ["axis"]
    fixed_dice.append([5])
    r = roll(players, "axis", "san_adjustment")
    assert r.final == 5 and [d["value"] for d in r.drms] in ([], [0]), r.drms
    assert seat(players, "axis").san == 2
    with pytest.raises(ActionRefused):
        roll(players, "british", "san_adjustment")
    assert seat(players, "british").san == 3


def test_3_613_a_gun_and_a_captured_gun_may_shift_a_withdrawn_squad_may_not(
    users, modules, fixed_dice
):
    """3.613 with 3.6055 "Each Gun must (for now; see ... 3.613) remain": a PaK 40 may
    make a Shift DR, and so may a captured 6-Pounder the Axis hold (Equipment, not a
    prisoner); a 4-6-7 withdrawn off map (3.60742) may not; a second DR for the PaK is
    refused; Done needs none of them ("may")."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.613")
    pak = add(players, "axis", "PaK 40", "gun")
    fixed_dice.append([2, 3])
    assert roll(players, "axis", "shift", pak).result == "Shifted safely"
    with pytest.raises(ActionRefused, match=r"one Shift"):
        roll(players, "axis", "shift", pak)
    six = add(players, "axis", "57L OQF 6-Pounder AT", "gun", status="captured")
    fixed_dice.append([2, 3])
    assert roll(players, "axis", "shift", six).result == "Shifted safely"
    gone = add(players, "axis", "4-6-7", "squad", status="withdrawn")
    with pytest.raises(ActionRefused, match=r"3\.613"):
        roll(players, "axis", "shift", gone)
    _done(players, "axis")


def test_3_6141b_a_captured_or_withdrawn_vehicle_owes_no_repair_dr(users, modules):
    """3.6141b "Each non-Captured, non-Abandoned, immobilized vehicle must make a dr":
    a captured immobilized Sherman the Axis hold and a withdrawn immobilized StuG are
    refused the dr and not waited for; Done goes."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.614")
    cap = add(players, "axis", "Sherman III(a)", "vehicle", markers=["captured", "immobilized"])
    wd = add(players, "axis", "StuG IIIG", "vehicle", markers=["withdrawn", "immobilized"])
    for v in (cap, wd):
        with pytest.raises(ActionRefused, match=r"3\.6141b"):
            roll(players, "axis", "immobilization_repair", v)
    _done(players, "axis")


def test_3_6141d_the_german_drm_by_side_and_a_stunned_sherman(users, modules, fixed_dice):
    """3.6141d "+1 if German": the British Sherman's stun dr has no +1 (dr 2 recovers:
    its stun goes); the Axis StuG of V1's counter has it by itself (dr 2 +1 = 3:
    Retain stun); a stunned captured Sherman the Axis hold is not German (no +1)."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.614")
    sherman = add(players, "british", "Sherman III(a)", "vehicle", status="stunned")
    fixed_dice.append([2])
    r = roll(players, "british", "stun_recovery", sherman)
    assert r.final == 2 and r.result.startswith("Recover"), (r.final, r.result)
    assert unit_names(players, "british") == [("Sherman III(a)", "vehicle", "ok", 1)]
    stug = add(players, "axis", "StuG IIIG", "vehicle", status="stunned")
    fixed_dice.append([2])
    r = roll(players, "axis", "stun_recovery", stug)
    assert r.final == 3 and r.result == "Retain stun", (r.final, r.result)
    cap = add(players, "axis", "Sherman III(a)", "vehicle", markers=["captured", "stunned"])
    fixed_dice.append([2])
    assert roll(players, "axis", "stun_recovery", cap).final == 2


def test_3_61425_low_ammo_stays_on_a_captured_or_isolated_vehicle(users, modules):
    """3.61425 "Each Low Ammo marker on each non-captured, non-Isolated vehicle is
    removed": completing 3.614, the British Sherman's goes; a captured StuG's and an
    Isolated Sherman's stay."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.614")
    add(players, "british", "Sherman III(a)", "vehicle", status="low_ammo")
    add(players, "british", "StuG IIIG", "vehicle", markers=["captured", "low_ammo"])
    add(players, "british", "Sherman III(a) #2", "vehicle", markers=["isolated", "low_ammo"])
    _done(players, "axis")
    _done(players, "british")
    lines = unit_names(players, "british")
    assert ("Sherman III(a)", "vehicle", "ok", 1) in lines, lines
    assert ("StuG IIIG", "vehicle", "captured, low_ammo", 1) in lines, lines
    assert ("Sherman III(a) #2", "vehicle", "isolated, low_ammo", 1) in lines, lines


def test_3_610_a_leader_not_wounded_owes_no_dr_and_a_wounded_one_rolls_once(
    users, modules, fixed_dice
):
    """3.610 "for each currently wounded Retained Leader": an unwounded 8-1 is refused;
    a wounded British 8-1's dr 3 leaves him wounded (2-4 Retained wounded); a second
    dr is refused."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.610")
    fit = add(players, "british", "8-1 leader", "leader")
    with pytest.raises(ActionRefused, match=r"3\.610"):
        roll(players, "british", "wounded_leaders", fit)
    hurt = add(players, "british", "8-1 leader", "leader", status="wounded")
    fixed_dice.append([3])
    r = roll(players, "british", "wounded_leaders", hurt)
    assert r.final == 3 and r.result == "Retained wounded", (r.final, r.result)
    with pytest.raises(ActionRefused):
        roll(players, "british", "wounded_leaders", hurt)


def test_3_606_the_page_offers_no_prisoner_and_says_the_crew_is_added(users, modules, client):
    """What the player reads at 3.606: the step's text says a vehicle's crew that
    escapes is added as a 2-2-8 crew line; the Escape form offers the Axis 4-6-7 and
    not the 4-5-8 held prisoner; no schema word (inherent_crews, crew_escapes,
    not_if) shows."""
    import html

    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.606")
    add(players, "axis", "4-6-7", "squad", status="isolated")
    held = add(players, "axis", "4-5-8", "squad", markers=["captured", "isolated"])
    client.force_login(players.users["axis"])
    page = html.unescape(client.get(f"/campaigns/{players.campaign_id}/").content.decode())
    assert "Refit adds it as a 2-2-8 crew line" in page
    assert 'value="' + held.ref + '"' not in page
    assert "4-6-7" in page
    for word in ("inherent_crews", "crew_escapes", "not_if"):
        assert word not in page


def test_3_606_then_3_6141a_the_escaped_crew_remanns_its_abandoned_vehicle(
    users, modules, fixed_dice
):
    """3.606 row 9 "Abandoned; crew (if any) Escapes", then 3.6141a "Each Abandoned
    vehicle may remain Abandoned, or may be remanned ... by Personnel Retained": the
    StuG's escaped 2-2-8 crew line, walked on to 3.614 (July 15 AM), remanns the
    StuG; the log names it."""
    from campaign.services import units

    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.606")
    stug = add(players, "axis", "StuG IIIG", "vehicle", status="isolated")
    fixed_dice.append([3, 4])
    assert roll(players, "axis", "escape", stug).final == 9
    players.until_step("3.614")
    from campaign.models import Unit

    crew = Unit.objects.get(campaign_id=players.campaign_id, side="axis", name="2-2-8 crew")
    stug = Unit.objects.get(campaign_id=players.campaign_id, side="axis", name="StuG IIIG")
    units.remann_vehicle(
        campaign_id=players.campaign_id,
        user=players.users["axis"],
        unit_id=stug.ref,
        by_id=crew.ref,
    )
    assert "2-2-8 crew remanns StuG IIIG" in _said(players, "unit"), _said(players, "unit")
