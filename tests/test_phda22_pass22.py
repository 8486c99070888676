"""Purple Heart Draw, twenty-second pass (issue 44), C1-C5.24 side: each sentence at its
edges.  The numbers a player reaches tried at their boundary and one past it, the
exceptions and their complements, the undos, and sentences drawn at random
(random.Random(22)), each played through the pages (tests/page_play.py), each test
citing its rule (docs/rules-audit/pass-22-phda22.md)."""

from __future__ import annotations

import pytest

from campaign.models import Roll, Unit
from tests.test_phd16_pass16 import plain
from tests.test_phda19_pass19 import log_texts, seats, step_words
from tests.test_rule_mechanisms import fixed_dice, users

pytestmark = [pytest.mark.django_db, pytest.mark.rules]
__all__ = ["fixed_dice", "users"]

REDEPLOY = "Roll DR: Redeployment Table"


def last_line(players, words: str) -> str:
    return [t for t in log_texts(players) if words in t][-1]


# Part A: numbers at their boundary.


def test_c5_14_redeployment_table_infantry_rows_at_each_edge(users, modules, fixed_dice):
    """C5.14's Redeployment Table, Infantry column, each row at its edge, pressed
    through the US's page: 9 "Redeploys" (the line unchanged), 11 "Redeploys, Reduced"
    (a squad to a HS), 12 "Remains in hex, Reduced"; "+1 Unit is Isolated" computed
    from the marker: 12 rolled is 13, still "Remains in hex, Reduced" (the US being the
    Attacker of the Initial TM Scenario, his Isolated squad that remains is eliminated:
    C5.14 ii "the same penalties for failure as per (i)", pass 24); Isolated and
    Stunned (+1 +1): 12 rolled is 14, "Eliminated".  Note 1 "Original 2 DR always
    results in Redeployment": 2 rolled with +2 is 4, "Redeploys" all the same."""
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add

    players, _ = phd_after(users, "C5.14")
    nine = add(players, "us", "6-6-7", "squad", location="R1")
    eleven = add(players, "us", "6-6-7", "squad", location="R2")
    twelve = add(players, "us", "6-6-7", "squad", location="R3")
    thirteen = add(players, "us", "6-6-7", "squad", location="R4", markers=("isolated",))
    fourteen = add(players, "us", "6-6-7", "squad", location="R5", markers=("isolated", "stunned"))
    two = add(players, "us", "6-6-7", "squad", location="R6", markers=("isolated", "stunned"))
    us = seats(players)["us"]
    us.open()
    for unit, faces in (
        (nine, [4, 5]),
        (eleven, [5, 6]),
        (twelve, [6, 6]),
        (thirteen, [6, 6]),
        (fourteen, [6, 6]),
        (two, [1, 1]),
    ):
        fixed_dice.append(faces)
        rolled = us.press(REDEPLOY, unit=unit.ref)
        assert rolled.status == 200, rolled.text[:500]
    finals = {
        r.unit_ref: (r.final, r.result)
        for r in Roll.objects.filter(campaign_id=players.campaign_id, table_id="redeployment")
    }
    assert finals[nine.ref] == (9, "Infantry: Redeploys"), finals
    assert finals[eleven.ref] == (11, "Infantry: Redeploys, Reduced"), finals
    assert finals[twelve.ref] == (12, "Infantry: Remains in hex, Reduced"), finals
    assert finals[thirteen.ref] == (13, "Infantry: Remains in hex, Reduced"), finals
    assert finals[fourteen.ref] == (14, "Infantry: Eliminated"), finals
    assert finals[two.ref][0] == 4 and "Redeploys" in finals[two.ref][1], finals
    after = {u.pk: u for u in Unit.objects.filter(campaign_id=players.campaign_id)}
    assert after[nine.pk].markers == [] and after[nine.pk].name == "6-6-7"
    assert "reduced" in after[eleven.pk].markers
    assert "reduced" in after[twelve.pk].markers and thirteen.pk not in after
    assert fourteen.pk not in after
    assert two.pk in after and "reduced" not in after[two.pk].markers
    for line in log_texts(players)[-6:]:
        plain(line)


def test_c5_14_redeployment_table_mobile_vehicle_rows_at_each_edge(users, modules, fixed_dice):
    """C5.14's Redeployment Table, Mobile Vehicle column: 10 "Redeploys" (no Replaced
    for a vehicle), 11 "Remains in hex", 12 "Eliminated, CS NA" (the vehicle leaves the
    retained forces)."""
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add

    players, _ = phd_after(users, "C5.14")
    ten = add(players, "us", "M4A1 Sherman", "vehicle", location="S1")
    eleven = add(players, "us", "M4A1 Sherman", "vehicle", location="S2")
    twelve = add(players, "us", "M4A1 Sherman", "vehicle", location="S3")
    us = seats(players)["us"]
    us.open()
    for unit, faces in ((ten, [4, 6]), (eleven, [5, 6]), (twelve, [6, 6])):
        fixed_dice.append(faces)
        rolled = us.press(REDEPLOY, unit=unit.ref)
        assert rolled.status == 200, rolled.text[:500]
    finals = {
        r.unit_ref: (r.final, r.result)
        for r in Roll.objects.filter(campaign_id=players.campaign_id, table_id="redeployment")
    }
    assert finals[ten.ref] == (10, "Mobile Vehicle: Redeploys"), finals
    assert finals[eleven.ref] == (11, "Mobile Vehicle: Remains in hex"), finals
    assert finals[twelve.ref] == (12, "Mobile Vehicle: Eliminated, CS NA"), finals
    left = set(Unit.objects.filter(campaign_id=players.campaign_id).values_list("pk", flat=True))
    assert ten.pk in left and eleven.pk in left and twelve.pk not in left
    assert Unit.objects.get(pk=ten.pk).name == "M4A1 Sherman"


def test_c5_23_the_cvp_drm_at_10_and_the_mmc_count_at_its_cap(users, modules, fixed_dice):
    """C5.23 "-1 per 10 CVP (FRD) amassed by friendly side in this scenario" at its edge:
    the German lost 10 CVP (the US's DRM -1), the US 9 (the German's 0).  The US DR 7
    rolled is 6: "1 MMC may Battle Harden"; the page offers one, the second pressed is
    refused citing C5.23, nothing changed.  The German's 7 is 7: "0 MMC", no MMC
    offered, a forged one refused."""
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add

    players, _ = phd_after(users, "C5.23", cvp_lost_german=10, cvp_lost_us=9)
    a = add(players, "us", "6-6-7", "squad")
    b = add(players, "us", "6-6-7", "squad", number=2)
    g = add(players, "german", "4-6-7", "squad")
    s = seats(players)
    us_words, de_words = step_words(s["us"]), step_words(s["german"])
    assert "-1 now: 10 CVP German lost" in us_words, us_words
    assert "0 now: 9 CVP American lost" in de_words, de_words
    fixed_dice.extend([[3, 4], [3, 4]])
    assert s["us"].press("Roll DR: Battlefield Promotion Table").status == 200
    assert s["german"].press("Roll DR: Battlefield Promotion Table").status == 200
    rolls = {
        r.side: (r.final, r.result)
        for r in Roll.objects.filter(
            campaign_id=players.campaign_id, table_id="battlefield_promotion"
        )
    }
    assert rolls["us"][0] == 6 and rolls["us"][1].startswith("1 MMC"), rolls
    assert rolls["german"][0] == 7 and rolls["german"][1].startswith("0 MMC"), rolls
    words = "Battle Harden this MMC"
    first = s["us"].press(words, unit=a.ref)
    assert first.status == 200, first.text[:500]
    s["us"].open()
    assert words not in s["us"].buttons(), step_words(s["us"])
    from tests.test_phda18_pass18 import forge

    second = forge(s["us"], "harden", table="battlefield_promotion", unit=b.ref)
    assert second.refused and "C5.23" in second.text, second.text[:500]
    assert "battle_hardened" not in Unit.objects.get(pk=b.pk).markers
    s["german"].open()
    assert words not in s["german"].buttons()
    forged = forge(s["german"], "harden", table="battlefield_promotion", unit=g.ref)
    assert forged.refused and "C5.23" in forged.text, forged.text[:500]
    assert "battle_hardened" not in Unit.objects.get(pk=g.pk).markers


def test_c5_8_the_1tc_at_the_morale_and_one_past_it(users, modules, fixed_dice):
    """C5.8 "Any encircled units ... must take a 1TC ... with the failure of this 1TC
    resulting in the elimination of the unit": a 4-6-7 (Morale 7) rolling 7 passes
    (still Encircled), its twin rolling 8 fails and leaves the retained forces."""
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add

    players, _ = phd_after(users, "C5.8")
    seven = add(players, "german", "4-6-7", "squad", markers=("encircled",))
    eight = add(players, "german", "4-6-7", "squad", markers=("encircled",), location="X2")
    german = seats(players)["german"]
    german.open()
    for unit, faces in ((seven, [3, 4]), (eight, [4, 4])):
        fixed_dice.append(faces)
        rolled = german.press("Roll DR: Encirclement 1TC", unit=unit.ref)
        assert rolled.status == 200, rolled.text[:500]
    left = {u.pk: u for u in Unit.objects.filter(campaign_id=players.campaign_id)}
    assert seven.pk in left and "encircled" in left[seven.pk].markers
    assert eight.pk not in left


def test_c5_24a_one_past_one_leader_per_four_squad_equivalents(users, modules):
    """C5.24a "Provided that a side does not have > one leader per four squad-
    equivalents of its currently retained units" one past its edge (four squads, held
    by pass 20, allow it): one leader with three squads and a HS (3.5 squad-
    equivalents) has more than one leader per four: the promotion is not offered, the
    page says why citing C5.24a, a forged one is refused, no 7-0 made."""
    from tests.test_phd_conph import phd_after
    from tests.test_phda18_pass18 import forge
    from tests.test_rule_mechanisms import add

    players, _ = phd_after(users, "C5.24")
    add(players, "us", "8-1 leader", "leader", location="a1")
    squads = [add(players, "us", "6-6-7", "squad", location=f"b{n}") for n in range(3)]
    add(players, "us", "3-3-7", "half_squad", location="c1")
    us = seats(players)["us"]
    words = "Instead of rolling: Promote a 7-0 leader out of the Ranks (C5.24a)"
    said = step_words(us)
    assert words not in us.buttons(), said
    assert "C5.24a" in said, said
    forged = forge(us, "instead", table="leader_promotion", mmc=squads[0].ref)
    assert forged.refused and "C5.24a" in forged.text, forged.text[:500]
    assert not Unit.objects.filter(campaign_id=players.campaign_id, name="7-0 leader").exists()


# Part B: exceptions and their complements.


def test_c5_8_exc_prisoners_an_encircled_prisoner_takes_no_1tc(users, modules):
    """C5.8 "Any encircled units [EXC: Prisoners] must take a 1TC": the German 4-6-7
    marked Encircled and captured (held prisoner) is not offered the 1TC, a forged one
    is refused citing the rule, nothing rolled; his Encircled 4-6-7 not captured is."""
    from tests.test_phd_conph import phd_after
    from tests.test_phda18_pass18 import forge
    from tests.test_rule_mechanisms import add

    players, _ = phd_after(users, "C5.8")
    pow_ = add(players, "german", "4-6-7", "squad", markers=("encircled", "captured"))
    free = add(players, "german", "4-6-7", "squad", markers=("encircled",), location="Y1")
    german = seats(players)["german"]
    german.open()
    offered = [ref for ref, _ in german.options("Roll DR: Encirclement 1TC", "unit")]
    assert free.ref in offered and pow_.ref not in offered, offered
    forged = forge(german, "roll", table="encircled_1tc", unit=pow_.ref)
    assert forged.refused and "C5.8" in forged.text, forged.text[:500]
    plain(forged.text)
    assert not Roll.objects.filter(campaign_id=players.campaign_id, unit_ref=pow_.ref).exists()


def test_c5_15_guarded_prisoners_go_the_isolated_ones_stay(users, modules):
    """C5.15 "Any guarded non-isolated prisoners are removed from play now; after which,
    any SW/Guns that are not possessed following all Redeployment is complete are
    eliminated": both sides press Done on their pages; the US 3-3-7 held prisoner
    (captured) leaves, the 6-6-7 captured in an Isolated Location (captured, isolated)
    stays; the unpossessed BAZ leaves, the possessed MMG stays."""
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add

    players, _ = phd_after(users, "C5.15")
    guarded = add(players, "us", "3-3-7", "half_squad", markers=("captured",))
    isolated = add(players, "us", "6-6-7", "squad", markers=("captured", "isolated"))
    loose = add(players, "us", "BAZ 44", "sw", markers=("unpossessed",))
    held = add(players, "us", "MMG", "sw")
    s = seats(players)
    for side in ("us", "german"):
        s[side].open()
        assert s[side].press("Done with C5.15").status == 200
    left = set(Unit.objects.filter(campaign_id=players.campaign_id).values_list("pk", flat=True))
    assert guarded.pk not in left and loose.pk not in left
    assert isolated.pk in left and held.pk in left
    assert players.step.id != "C5.15"


def test_c5_24_a_heroic_leader_is_never_the_one_the_dr_hardens(users, modules, fixed_dice):
    """C5.24 "Each Heroic leader has its Hero counter removed and is then Battle
    Hardened ... No SMC may Battle Harden more than once during the ConPh": the US
    holds a heroic 8-1 and a 7-0; the DR of 6 selects an 8-1 ("5-6 | 8-1"): the heroic
    8-1 Battle Hardens by his Hero counter only, so the footnote's next lower leader,
    the 7-0, is the one the DR hardens (8-0)."""
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add, unit_names

    players, _ = phd_after(users, "C5.24")
    add(players, "us", "8-1 leader", "leader", markers=("heroic",))
    add(players, "us", "7-0 leader", "leader")
    add(players, "us", "6-6-7", "squad")
    s = seats(players)
    s["us"].open()
    fixed_dice.append([3, 3])
    rolled = s["us"].press("Roll DR: Leader Promotion Table")
    assert rolled.status == 200, rolled.text[:500]
    line = last_line(players, "Leader Promotion Table")
    assert "7-0 leader Battle Hardens: now 8-0 leader" in line, line
    plain(line)
    names = sorted(n for n, kind, *_ in unit_names(players, "us") if kind == "leader")
    assert names == ["8-0 leader", "8-1 leader"], names
    for side in ("us", "german"):
        s[side].open()
        assert s[side].press("Done with C5.24").status == 200
    names = sorted(n for n, kind, *_ in unit_names(players, "us") if kind == "leader")
    assert names == ["8-0 leader", "9-1 leader"], names


def test_c5_14_infantry_drms_forged_for_a_vehicle_are_refused(users, modules, fixed_dice):
    """C5.14 "+1 Infantry unit is on Wire [EXC: Behind friendly FEBA]": Infantry's,
    never a vehicle's.  The one form serves every unit, so the box is on it; ticked for
    the US's Sherman, the DR is refused with a sentence citing C5.14, nothing rolled;
    unticked, it is made (9: Redeploys)."""
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add

    players, _ = phd_after(users, "C5.14")
    tank = add(players, "us", "M4A1 Sherman", "vehicle", location="S1")
    us = seats(players)["us"]
    us.open()
    fixed_dice.append([4, 5])
    answer = us.press(REDEPLOY, unit=tank.ref, tick="wire")
    assert answer.refused and "on Wire" in answer.text and "C5.14" in answer.text, answer.text
    assert "Nothing was changed" in answer.text
    assert not Roll.objects.filter(campaign_id=players.campaign_id, unit_ref=tank.ref).exists()
    fixed_dice.clear()
    fixed_dice.append([4, 5])
    assert us.press(REDEPLOY, unit=tank.ref).status == 200
    r = Roll.objects.get(campaign_id=players.campaign_id, unit_ref=tank.ref)
    assert (r.final, r.drms) == (9, []), (r.final, r.drms)


def cvp_lost(players) -> dict:
    from campaign.selectors import pass_result

    return dict(pass_result(players.campaign).data["cvp_lost"])


# Part C: undo.


def propose(seat, unit, **typed):
    """Press "Propose the correction" in the form of ``unit``'s roll (one form per unit
    rolled for, each with that button): its fields as the page fills them (the
    markers ticked), ``typed`` over them."""
    from tests.page_play import Answer

    seat.open()
    form = next(
        f
        for f in seat.forms.forms.values()
        if ("unit", unit.ref) in f.fields and "reason" in dict(f.fields)
    )
    data: dict[str, list[str]] = {}
    for name, value in form.fields:
        data.setdefault(name, []).append(value)
    data |= {name: [value] for name, value in typed.items()}
    answer = seat.client.post(form.action, data, HTTP_HX_REQUEST="true")
    seat.open()
    return Answer(answer.status_code, answer.content.decode())


def test_c5_14_an_eliminating_roll_corrected_gives_back_the_line_and_its_cvp(
    users, modules, fixed_dice
):
    """Undo at C5.14: "A unit its result eliminates is a loss of the scenario just
    played: its CVP join your CVP lost in the result (C5.1)".  The US's Isolated and
    Stunned 6-6-7 rolls 12 (+1 +1: 14, "Eliminated"): its 2 CVP (A26.2, supplied) join
    the US's CVP lost, 3 -> 5.  Its owner proposes through his page that the line
    should not be gone (the DR was misread) with its markers as they were, the German
    accepts on his: the 6-6-7 is back on the US roster, Isolated and Stunned, and the
    CVP lost are 3 again on both seats' pages (C5.1: only ConPh losses count).  The
    other way, a unit the correction removes is the roll's loss: its CVP join."""
    from tests.test_cvp14 import supply_value
    from tests.test_phd_conph import phd_after
    from tests.test_phda19_pass19 import roster
    from tests.test_rule_mechanisms import add

    players, _ = phd_after(users, "C5.14", cvp_lost_us=3, cvp_lost_german=4)
    supply_value(players, "cvp_per_kind.squad", "2", by="us")
    squad = add(players, "us", "6-6-7", "squad", location="R5", markers=("isolated", "stunned"))
    other = add(players, "us", "6-6-7", "squad", location="R6")
    s = seats(players)
    s["us"].open()
    fixed_dice.append([6, 6])
    assert s["us"].press(REDEPLOY, unit=squad.ref).status == 200
    assert not Unit.objects.filter(pk=squad.pk).exists()
    assert cvp_lost(players) == {"us": 5, "german": 4}
    form = s["us"].form_of("Propose the correction")
    ticked = [v for n, v in form.fields if n == "markers"]
    assert sorted(ticked) == ["isolated", "stunned"], form.fields
    asked = propose(s["us"], squad, gone="", reason="the DR was 13, not 14")
    assert asked.status == 200, asked.text[:500]
    german = step_words(s["german"])
    assert "Accept the correction" in s["german"].buttons(), german
    accepted = s["german"].press("Accept the correction")
    assert accepted.status == 200, accepted.text[:500]
    back = Unit.objects.get(campaign_id=players.campaign_id, side="us", location="R5")
    assert back.name == "6-6-7" and set(back.markers) == {"isolated", "stunned"}, back.markers
    assert cvp_lost(players) == {"us": 3, "german": 4}
    line = [t for t in log_texts(players) if "accepts" in t][-1]
    assert "5 → 3" in line and "C5.1" in line, line
    plain(line)
    assert "6-6-7 — " in roster(players, "us").open()
    for seat in s.values():
        seat.open()
    # The other way: a correction that removes the unit is the roll's loss.
    fixed_dice.append([4, 5])
    assert s["us"].press(REDEPLOY, unit=other.ref).status == 200
    assert cvp_lost(players) == {"us": 3, "german": 4}
    s["us"].open()
    asked = propose(s["us"], other, gone="1", reason="the DR was 14, not 9")
    assert asked.status == 200, asked.text[:500]
    s["german"].open()
    assert s["german"].press("Accept the correction").status == 200
    assert cvp_lost(players) == {"us": 5, "german": 4}


def test_c5_23_rows_at_2_and_4_the_cvp_drm_at_19_and_20_and_each_cap(users, modules, fixed_dice):
    """C5.23 at its edges, both sides through their pages.  "-1 per 10 CVP (FRD)": the
    German lost 20 CVP (the US's DRM -2), the US 19 (the German's -1, rounded down).
    The US DR 4 is 2: "≤2 | 3" MMC; the German's 5 is 4: "3-4 | 2".  "No unit may
    Battle Harden more than once during the ConPh" (drawn): the US 6-6-7 its Hero Battle
    Hardened at C5.22 is not offered, and forged is refused; the US hardens three,
    the fourth (one past) is refused; the German two, the third refused; each refusal
    cites C5.23 and changes nothing."""
    from campaign.services import units
    from tests.test_phd_conph import phd_after
    from tests.test_phda18_pass18 import forge
    from tests.test_rule_mechanisms import add

    players, _ = phd_after(users, "C5.22", cvp_lost_german=20, cvp_lost_us=19)
    hero = add(players, "us", "Hero", "hero")
    us_squads = [add(players, "us", "6-6-7", "squad", location=f"u{n}") for n in range(5)]
    de_squads = [add(players, "german", "4-6-7", "squad", location=f"g{n}") for n in range(3)]
    units.exchange_unit(
        campaign_id=players.campaign_id,
        user=players.users["us"],
        give_id=hero.ref,
        mark_id=us_squads[0].ref,
    )
    players.until_step("C5.23")
    s = seats(players)
    assert "-2 now: 20 CVP German lost" in step_words(s["us"])
    assert "-1 now: 19 CVP American lost" in step_words(s["german"])
    fixed_dice.extend([[2, 2], [2, 3]])
    assert s["us"].press("Roll DR: Battlefield Promotion Table").status == 200
    assert s["german"].press("Roll DR: Battlefield Promotion Table").status == 200
    rolls = {
        r.side: (r.final, r.result)
        for r in Roll.objects.filter(
            campaign_id=players.campaign_id, table_id="battlefield_promotion"
        )
    }
    assert rolls["us"][0] == 2 and rolls["us"][1].startswith("3 MMC"), rolls
    assert rolls["german"][0] == 4 and rolls["german"][1].startswith("2 MMC"), rolls
    words = "Battle Harden this MMC"
    offered = [ref for ref, _ in s["us"].options(words, "unit")]
    assert us_squads[0].ref not in offered and us_squads[1].ref in offered, offered
    twice = forge(s["us"], "harden", table="battlefield_promotion", unit=us_squads[0].ref)
    assert twice.refused and "C5.23" in twice.text, twice.text[:500]
    plain(twice.text)
    for unit in us_squads[1:4]:
        assert s["us"].press(words, unit=unit.ref).status == 200
    assert words not in s["us"].buttons()
    past = forge(s["us"], "harden", table="battlefield_promotion", unit=us_squads[4].ref)
    assert past.refused and "C5.23" in past.text, past.text[:500]
    plain(past.text)
    for unit in de_squads[:2]:
        assert s["german"].press(words, unit=unit.ref).status == 200
    past = forge(s["german"], "harden", table="battlefield_promotion", unit=de_squads[2].ref)
    assert past.refused and "C5.23" in past.text, past.text[:500]
    hardened = {
        u.pk
        for u in Unit.objects.filter(campaign_id=players.campaign_id)
        if "battle_hardened" in u.markers
    }
    assert hardened == {u.pk for u in (*us_squads[:4], *de_squads[:2])}, hardened


def test_c5_14_the_stacks_drms_at_one_squad_and_past_it(users, modules, fixed_dice):
    """C5.14 "+1 per HS equivalent > one squad using the same Redeployment DR" and
    "+/- Leadership" at the edge, and C5.13a "No unit may overstack during Redeployment"
    one past it, through the US's page (its stack select): a squad and a HS: +1; three
    squads with an 8-1: +4 and -1; three squads and a HS (seven HS-equivalents, one past
    the stacking limit) refused citing C5.13a, nothing rolled."""
    from tests.page_play import Answer
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add

    players, _ = phd_after(users, "C5.14")
    squads = [add(players, "us", "6-6-7", "squad", location=f"r{n}") for n in range(5)]
    hs = [add(players, "us", "3-3-7", "half_squad", location=f"h{n}") for n in range(2)]
    leader = add(players, "us", "8-1 leader", "leader", location="r2")
    us = seats(players)["us"]

    def stack(unit, *others):
        us.open()
        form = us.form_of(REDEPLOY)
        data: dict[str, list[str]] = {}
        for name, value in form.fields:
            if name != "stack":
                data.setdefault(name, []).append(value)
        data["unit"] = [unit.ref]
        data["stack"] = [o.ref for o in others]
        answer = us.client.post(form.action, data, HTTP_HX_REQUEST="true")
        return Answer(answer.status_code, answer.content.decode())

    us.open()
    assert {ref for ref, _ in us.options(REDEPLOY, "stack")} >= {squads[1].ref, hs[0].ref}
    before = Roll.objects.filter(campaign_id=players.campaign_id).count()
    over = stack(squads[2], squads[3], squads[4], hs[1])
    assert over.refused and "overstack" in over.text and "C5.13a" in over.text, over.text
    plain(over.text)
    assert Roll.objects.filter(campaign_id=players.campaign_id).count() == before
    fixed_dice.extend([[3, 3], [1], [2]])
    assert stack(squads[0], hs[0]).status == 200
    fixed_dice.extend([[3, 3], [1], [2], [3], [4]])
    assert stack(squads[2], squads[3], squads[4], leader).status == 200
    drms = [
        sorted(d["value"] for d in r.drms)
        for r in Roll.objects.filter(campaign_id=players.campaign_id, table_id="redeployment")
    ]
    assert drms == [[1], [-1, 4]], drms


def test_c5_14_remains_in_hex_follows_the_situation_its_drm_says(users, modules, fixed_dice):
    """C5.14 i "if they fail to redeploy (i.e.; any result that stipulates that the unit
    remains in hex), they are eliminated (vehicles are replaced with their wrecked side
    with CS NA)" (drawn #55; pass 21's Left) and iii-iv "If they do not redeploy, then
    they are considered Isolated (see C5.13a)", each against its complement, through the
    US's page.  The DRM ticked says the situation: "+2 Unit is in enemy FEBA" (i), "+1
    Unit is in No-Man's Land" (iv).  A 6-6-7 in the enemy FEBA rolling 11 (13: "Remains
    in hex, Reduced") is eliminated, the log citing C5.14 i; one in No-Man's Land
    rolling 11 (12) is reduced and marked Isolated, and at C5.14's Done Low Ammo
    (C5.13a); one behind the friendly FEBA rolling 12 is only reduced (v: it stays).
    The Mobile Vehicle column's "Remains in hex" (11) likewise: the Sherman in the enemy
    FEBA is eliminated, the one in No-Man's Land marked Isolated, the one behind the
    friendly FEBA unchanged."""
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add

    players, _ = phd_after(users, "C5.14")
    behind = add(players, "us", "6-6-7", "squad", location="E1")
    nml = add(players, "us", "6-6-7", "squad", location="N1")
    home = add(players, "us", "6-6-7", "squad", location="F1")
    tank_behind = add(players, "us", "M4A1 Sherman", "vehicle", location="E2")
    tank_nml = add(players, "us", "M4A1 Sherman", "vehicle", location="N2")
    tank_home = add(players, "us", "M4A1 Sherman", "vehicle", location="F2")
    s = seats(players)
    us = s["us"]
    said = step_words(us)
    assert "a result that leaves it in its hex then eliminates it (i) or marks it" in said, said
    for unit, faces, tick in (
        (behind, [5, 6], "enemy_feba"),
        (nml, [5, 6], "no_mans_land"),
        (home, [6, 6], ""),
        (tank_behind, [4, 5], "enemy_feba"),
        (tank_nml, [4, 6], "no_mans_land"),
        (tank_home, [5, 6], ""),
    ):
        fixed_dice.append(faces)
        rolled = us.press(REDEPLOY, unit=unit.ref, **({"tick": tick} if tick else {}))
        assert rolled.status == 200, rolled.text[:500]
    left = {u.pk: u for u in Unit.objects.filter(campaign_id=players.campaign_id)}
    assert behind.pk not in left and tank_behind.pk not in left
    assert {"reduced", "isolated"} <= set(left[nml.pk].markers), left[nml.pk].markers
    assert left[home.pk].markers == ["reduced"], left[home.pk].markers
    assert left[tank_nml.pk].markers == ["isolated"], left[tank_nml.pk].markers
    assert left[tank_home.pk].markers == [], left[tank_home.pk].markers
    line = last_line(players, "Redeployment Table for M4A1 Sherman: DR 4+5")
    assert "C5.14 i" in line, line
    plain(line)
    line = last_line(players, "Redeployment Table for 6-6-7: DR 5+6")
    plain(line)
    for side in ("us", "german"):
        s[side].open()
        assert s[side].press("Done with C5.14").status == 200
    assert "low_ammo" in Unit.objects.get(pk=nml.pk).markers
    assert "low_ammo" not in Unit.objects.get(pk=home.pk).markers


# Part D: sentences drawn at random (random.Random(22)), on paths earlier passes used
# little.


def test_drawn_the_german_attacker_after_the_0930_scenario_from_both_seats(
    users, modules, fixed_dice
):
    """Drawn, after the 0930 hrs TM Scenario in which the German chose Attack and the US
    Idle (the named tests play the US as Attacker after 0600 hrs).  C5.3 "The Attacker
    is the side that had moved first on the final Mission turn" (drawn #17): both pages
    name the German at C5.4 and C5.14.  C5.14 "In turn, Attacker first": the US
    (Defender) reads that it waits, a forged DR refused; once the German is done the
    US's DR is made.  C5.0 "Each applicable step ... must be carried out in the
    numbered/lettered order given" (drawn #10): at C5.14 a roll on C5.23's table is
    refused, nothing rolled.  C5.6 "DO NOT REMOVE ... Stun ... Immobilized ... Encircled
    counters" (drawn #24): the markers are on the lines after both Done at C5.6."""
    from tests.purchase_helpers import campaign_at
    from tests.test_phda18_pass18 import forge
    from tests.test_rule_mechanisms import add, result_values

    players, module = campaign_at("purple-heart-draw", "tm", "t0930", users, kind="initiative")
    players.chits(german="attack", us="idle")
    players.until("results")
    players.results(**result_values(module, cvp_lost_us=4, cvp_lost_german=2))
    players.until_step("C5.4")
    assert module.dates[players.campaign.date_index].label == "0930 hrs"
    s = seats(players)
    for side in ("us", "german"):
        said = step_words(s[side])
        assert "Attacker (C5.3): German, the side that moved first in the 0930 hrs" in said, said
    stunned = add(players, "us", "M4A1 Sherman", "vehicle", markers=("stunned", "immobilized"))
    ringed = add(players, "german", "4-6-7", "squad", markers=("encircled",))
    players.until_step("C5.6")
    for side in ("us", "german"):
        s[side].open()
        assert s[side].press("Done with C5.6").status == 200
    assert {"stunned", "immobilized"} <= set(Unit.objects.get(pk=stunned.pk).markers)
    assert "encircled" in Unit.objects.get(pk=ringed.pk).markers
    players.until_step("C5.8")
    fixed_dice.append([1, 1])
    s["german"].open()
    assert s["german"].press("Roll DR: Encirclement 1TC", unit=ringed.ref).status == 200
    players.until_step("C5.14")
    us_squad = add(players, "us", "6-6-7", "squad")
    de_squad = add(players, "german", "4-6-7", "squad")
    us = step_words(s["us"])
    assert "the Attacker (German, C5.3) goes first at C5.14" in us, us
    assert REDEPLOY not in s["us"].buttons()
    forged = forge(s["us"], "roll", table="redeployment", unit=us_squad.ref)
    assert forged.refused and "C5.3" in forged.text, forged.text[:500]
    early = forge(s["us"], "roll", table="battlefield_promotion")
    assert early.refused, early.status
    plain(early.text)
    assert not Roll.objects.filter(
        campaign_id=players.campaign_id, table_id__in=["redeployment", "battlefield_promotion"]
    ).exists()
    fixed_dice.append([2, 3])
    s["german"].open()
    assert s["german"].press(REDEPLOY, unit=de_squad.ref).status == 200
    assert s["german"].press("Done with C5.14").status == 200
    fixed_dice.append([2, 3])
    s["us"].open()
    assert s["us"].press(REDEPLOY, unit=us_squad.ref).status == 200


# Part E: pass 21's Left items.


def test_c5_14_replaced_the_page_says_the_counter_chosen_and_its_owner_corrects_it(
    users, modules, fixed_dice
):
    """C5.14 Infantry 10 "Redeploys, Replaced" (A19.13; pass 21's Left: the lower
    class's counter is a reading of ASL's counters, not a rule): the US's page says
    which counter the app chose ("now 6-6-6", the campaign log on the same page; the
    correction form's Unit field starts from it), and its owner
    corrects it through the page's correction form (here to a 6-6-6 marked
    stunned, as if he read it otherwise); the German accepts on his page; the line
    reads so on the US roster.  The German's page names the correction for him to
    answer (the roll is not secret)."""
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add

    players, _ = phd_after(users, "C5.14")
    squad = add(players, "us", "6-6-7", "squad", location="R2")
    s = seats(players)
    s["us"].open()
    fixed_dice.append([4, 6])
    assert s["us"].press(REDEPLOY, unit=squad.ref).status == 200
    page = s["us"].open()
    assert "6-6-7 is Replaced by its next lower quality counter (A19.13): now 6-6-6." in page
    form = s["us"].form_of("Propose the correction")
    assert dict(form.fields)["name"] == "6-6-6", form.fields
    asked = propose(s["us"], squad, name="5-5-6", reason="our squad's lower counter")
    assert asked.status == 200, asked.text[:500]
    german = step_words(s["german"])
    assert "6-6-6 (squad), in good order → 5-5-6 (squad)" in german, german
    assert s["german"].press("Accept the correction").status == 200
    assert Unit.objects.get(pk=squad.pk).name == "5-5-6"
    assert Unit.objects.get(pk=squad.pk).location == "R2"
