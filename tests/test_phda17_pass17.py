"""Purple Heart Draw, seventeenth pass (issue 44), C1-C5.24 side: pass 16's Left items
(C5.13a's Stun removal, C5.13a's Low Ammo of a unit marked Isolated late, the Low Ammo
of a captured SW) and the steps of the Consolidation Phase walked as a player, in rule
order, on paths the earlier tests use little (the other side, a late TM Scenario,
after an undo), each test citing its rule (docs/rules-audit/pass-17-phda17.md)."""

from __future__ import annotations

import pytest

from campaign.models import Unit
from campaign.services import steps
from campaign.services.errors import ActionRefused
from tests.test_phd16_pass16 import done, marks, plain
from tests.test_rule_mechanisms import fixed_dice, users

pytestmark = [pytest.mark.django_db, pytest.mark.rules]
__all__ = ["fixed_dice", "users"]


def log_texts(players) -> list[str]:
    from campaign.models import Event

    return list(
        Event.objects.filter(campaign_id=players.campaign_id)
        .order_by("pk")
        .values_list("text", flat=True)
    )


# Part 1: pass 16's Left items.


def test_c5_13a_a_stun_counter_comes_off_after_redeploying_unless_isolated(users, modules):
    """C5.13a "Units marked with a Stun counter may remove it after redeploying only if
    they are not Isolated at that time": when C5.14 (Redeployment) is done, the Stun
    counter of each unit not Isolated is taken off by the app (the German's Panzer, the
    Defender's side); a stunned unit still Isolated keeps it (the US Sherman), with its
    Low Ammo (C5.13a), and its owner's taking the Stun off at a later ConPh step is
    refused, citing C5.13a, nothing changed; once its Isolated marker is corrected off,
    the Stun may go."""
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add, edit

    players, _ = phd_after(users, "C5.14")
    panzer = add(players, "german", "PzKpfw IVH", "vehicle", markers=("stunned",))
    sherman = add(players, "us", "M4A1 Sherman", "vehicle", markers=("stunned", "isolated"))
    players.finish()
    assert players.step.id == "C5.15"
    assert marks(panzer) == set()
    assert marks(sherman) == {"stunned", "isolated", "low_ammo"}
    assert any("PzKpfw IVH" in t and "C5.13a" in t for t in log_texts(players))
    with pytest.raises(ActionRefused) as refused:
        edit(players, "us", sherman, "isolated", markers=["low_ammo"])
    said = str(refused.value)
    plain(said)
    assert "C5.13a" in said and "Isolated" in said and "Nothing was changed" in said
    assert marks(sherman) == {"stunned", "isolated", "low_ammo"}
    # Its Isolated marker was a mistake: corrected off first, then the Stun may go.
    edit(players, "us", sherman, "stunned", markers=["low_ammo"])
    edit(players, "us", sherman, "low_ammo")
    assert marks(sherman) == {"low_ammo"}


def test_c5_13a_a_stunned_isolated_unit_keeps_its_stun_during_redeployment(users, modules):
    """C5.13a "may remove it after redeploying only if they are not Isolated at that
    time": at C5.14 itself the owner of a stunned, Isolated German tank cannot take the
    Stun counter off (its +1 Redeployment DRM would go with it); a stunned tank not
    Isolated may be corrected freely (a Stun marked by mistake)."""
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add, edit

    players, _ = phd_after(users, "C5.14")
    cut_off = add(players, "german", "PzKpfw IVH", "vehicle", markers=("stunned", "isolated"))
    free = add(players, "german", "StuG IIIG", "vehicle", markers=("stunned",))
    with pytest.raises(ActionRefused):
        edit(players, "german", cut_off, "isolated")
    assert marks(cut_off) == {"stunned", "isolated"}
    edit(players, "german", free, "ok")
    assert marks(free) == set()


def test_c5_13a_a_unit_marked_isolated_after_redeployment_is_short_of_ammunition(users, modules):
    """C5.13a "Units that end this Redeployment phase Isolated (only), suffer from
    Ammunition shortage for the next TM Scenario" (pass 16's Left item): a unit its
    owner marks Isolated only after C5.14 is done (a correction at C5.19) ended the
    Redeployment Isolated, so the app marks it Low Ammo then, on the log citing
    C5.13a; a unit marked otherwise (wounded) is not.  (Marked Isolated before a
    Redeployment, it gets none: the 1530 hrs walk below, at C5.2.)"""
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add, edit

    players, _ = phd_after(users, "C5.19")
    squad = add(players, "german", "4-6-7", "squad")
    leader = add(players, "german", "8-0 leader", "leader")
    edit(players, "german", squad, "isolated")
    assert marks(squad) == {"isolated", "low_ammo"}
    line = [t for t in log_texts(players) if "4-6-7" in t and "C5.13a" in t]
    assert line, log_texts(players)[-3:]
    plain(line[-1])
    edit(players, "german", leader, "wounded")
    assert marks(leader) == {"wounded"}


def test_c5_13a_c5_27d_a_captured_sw_keeps_its_low_ammo(users, modules, fixed_dice):
    """C5.13a gives Low Ammo to a unit ending the Redeployment Isolated (a SW in its
    possessor's Location with it, C2.0), and C5.27d "Each Low Ammo marker on each
    non-captured, non-isolated unit/weapon within a friendly FEBA is removed": a
    captured MG42 possessed by an Isolated US squad is marked Low Ammo with it; the
    squad no longer Isolated at C5.27 loses its marker, the captured MG42 keeps its own
    (it is captured: C5.27d removes none from a captured weapon)."""
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add, roll

    players, _ = phd_after(users, "C5.14")
    squad = add(players, "us", "6-6-7", "squad", markers=("isolated",))
    mg = add(players, "us", "MG42", "sw", status="captured", possessor=squad.ref)
    players.finish()
    assert marks(squad) == {"isolated", "low_ammo"}
    assert marks(mg) == {"captured", "low_ammo"}
    Unit.objects.filter(pk=squad.pk).update(markers=["low_ammo"])
    players.until_step("C5.26")
    fixed_dice.append([2])
    roll(players, "us", "captured_equipment", mg)  # C5.26c: dr 2, Retained
    players.until_step("C5.28")
    assert marks(squad) == set()
    assert marks(mg) == {"captured", "low_ammo"}


def test_c5_24_a_side_with_no_unwounded_leader_to_harden_may_not_roll(users, modules):
    """C5.24 "Each side has the option to make a secret DR to Battle Harden one Retained
    Non-Wounded Infantry Leader"; footnote * "If there is no lower quality leader
    available, then no SMC will be Battle-Harden"; "No SMC may Battle Harden more than
    once during the ConPh".  The German holding only vehicles and an Armour Leader, and
    the US holding only a wounded 8-1 and a Heroic 9-1 (whom C5.24 Battle Hardens by
    itself), have no leader the DR could Battle Harden: each one's DR is refused,
    citing C5.24, nothing rolled (it was rolled for nothing).  With an unwounded 7-0 the
    US rolls."""
    from campaign.models import Roll
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add, roll

    players, _ = phd_after(users, "C5.24")
    add(players, "german", "PzKpfw IVH", "vehicle")
    add(players, "german", "8-1 Armour Leader", "leader")
    add(players, "us", "8-1 leader", "leader", markers=("wounded",))
    add(players, "us", "9-1 leader", "leader", markers=("heroic",))
    for side in ("german", "us"):
        with pytest.raises(ActionRefused) as refused:
            roll(players, side, "leader_promotion")
        said = str(refused.value)
        plain(said)
        assert "C5.24" in said and "Nothing was rolled" in said
    assert not Roll.objects.filter(
        campaign_id=players.campaign_id, table_id="leader_promotion"
    ).exists()
    add(players, "us", "7-0 leader", "leader")
    assert roll(players, "us", "leader_promotion").table_id == "leader_promotion"


def page(players, side, path=""):
    """What ``side`` reads on the campaign page (or its ``path``), as text."""
    import html
    import re

    from django.test import Client

    client = Client()
    client.force_login(players.users[side])
    body = client.get(f"/campaigns/{players.campaign_id}/{path}").content.decode()
    body = re.sub(r"<(script|style).*?</\1>", "", body, flags=re.S)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", body)))


def late_conph(users):
    """A PHD TM hosted by the German (the other side than the named tests'), walked
    through three more TM Scenarios (both choosing Attack) to the ConPh after the
    1530 hrs scenario, the last before the final one; its result entered."""
    from tests.test_rule_mechanisms import result_values, start

    players, module = start("purple-heart-draw", "tm", users, "german")
    players.results(**result_values(module, cvp_lost_us=12, cvp_lost_german=31))
    for _ in range(3):
        players.until("initiative")
        players.chits(us="attack", german="attack")
        players.until_step("C5.1")
        players.results(**result_values(module, cvp_lost_us=12, cvp_lost_german=31))
    return players


def test_the_conph_after_the_1530_scenario_walked_step_by_step_from_both_seats(
    users, modules, fixed_dice
):
    """The ConPh after the 1530 hrs TM Scenario (the last but one), the German hosting,
    the German holding only vehicles (a stunned PzKpfw IVH, an immobilized Isolated
    StuG), the US an Isolated squad with its BAR, a wounded 8-1, a Heroic 9-1 and a
    Hero; each step's page read by both sides next to its rules text, in rule order.

    C5.3 "The Attacker is the side that had moved first on the final Mission turn";
    C5.6 "DO NOT REMOVE ... Stun ..."; C5.13a "Units that end this Redeployment phase
    Isolated" (a squad marked Isolated before the Redeployment gets no Low Ammo yet);
    C5.14 "In turn, Attacker first", "+1 Unit marked with Stun counter", "+/-
    Leadership" read as printed, the Mobile Vehicle column (no DR for an Immobilized
    StuG); C5.13a the Stun taken off after the Redeployment (the Attacker's Done taken
    back and given again first); C5.19's lost rows; C5.22 "Each friendly
    on-map Hero ... combined with any (non-crew) MMC ... Eliminate any Heroes that
    cannot combine"; C5.23's "-1 per 10 CVP (FRD) amassed by friendly side in this
    scenario"; C5.24 (no leader to Battle Harden; C5.24a's promotion out of the Ranks)
    and "Each Heroic leader has its Hero counter removed and is then Battle Hardened"."""
    import re

    from tests.test_rule_mechanisms import add, edit, roll, unit_names

    players = late_conph(users)
    assert players.step.id == "C5.2"
    panzer = add(players, "german", "PzKpfw IVH", "vehicle", markers=("stunned",))
    stug = add(players, "german", "StuG IIIG", "vehicle", markers=("immobilized", "isolated"))
    squad = add(players, "us", "6-6-7", "squad", markers=("isolated",))
    add(players, "us", "BAR", "sw", possessor=squad.ref)
    add(players, "us", "8-1 leader", "leader", markers=("wounded",))
    add(players, "us", "9-1 leader", "leader", markers=("heroic",))
    add(players, "us", "Hero", "hero")
    other = add(players, "us", "6-6-7 B", "squad")
    # C5.13a: Isolated before the Redeployment (a correction at C5.2): no Low Ammo yet.
    edit(players, "us", other, "isolated")
    assert marks(other) == {"isolated"}
    edit(players, "us", other, "ok")

    # C5.3: the Attacker is the side that moved first in the 1530 hrs scenario.
    players.until_step("C5.3")
    first = re.findall(r"rolled who moves first: dr \d → (\w+)", page(players, "us"))[0]
    attacker = {"American": "us", "German": "german"}[first]
    defender = "us" if attacker == "german" else "german"
    for side in ("us", "german"):
        text = page(players, side)
        assert f"Attacker (C5.3): {first}, the side that moved first in the 1530 hrs" in text
    # C5.6: the Stun stays through the marker removal.
    players.until_step("C5.14")
    assert marks(panzer) == {"stunned"}

    # C5.14: "In turn, Attacker first": the Defender reads why he waits.
    text = page(players, defender)
    assert f"the Attacker ({first}, C5.3) goes first at C5.14" in text
    # The Attacker's Done taken back and given again before the Defender acts.
    done(players, attacker)
    steps.take_back_done(campaign_id=players.campaign_id, user=players.users[attacker])
    assert players.step.id == "C5.14"
    if attacker == "us":
        done(players, "us")
    german = page(players, "german")
    # The Mobile Vehicle column: the Immobilized StuG makes no DR, the Panzer does.
    assert "PzKpfw IVH (stunned)" in german and "StuG IIIG (immobilized" not in german
    # A DRM computed from a figure reads by its words ("+/-"), not "+1 +/- Leadership".
    assert "+/- Leadership (including Armour Leader) — applied by itself" in german
    assert "+1 +/- Leadership" not in german
    fixed_dice.append([3, 4])
    r = roll(players, "german", "redeployment", panzer)
    assert [(d["value"], d["how"]) for d in r.drms] == [(1, "auto")]
    assert "Stun" in r.drms[0]["label"] and r.final == 8
    done(players, "german")
    if attacker == "german":
        done(players, "us")
    assert players.step.id == "C5.15"
    assert marks(panzer) == set()
    assert marks(stug) == {"immobilized", "isolated", "low_ammo"}
    assert marks(squad) == {"isolated", "low_ammo"}
    assert sum("PzKpfw IVH" in t and "(C5.13a)" in t for t in log_texts(players)) == 1

    # C5.19 "For each Wounded Leader a dr is made": the US's wounded 8-1 owes one, but
    # rows 3-5 are lost: the page says so and offers to go on without; the German,
    # with no wounded leader, is not stopped.
    players.until_step("C5.19")
    us = page(players, "us")
    assert "the printed rules leave out the Leader Evacuation Table (C5.19)" in us
    assert "Go on without it" in us
    assert "Done with C5.19" in page(players, "german")

    # C5.22: the US Hero may combine with the non-crew MMC; the German holds none.
    players.until_step("C5.22")
    us = page(players, "us")
    assert "Hero (in good order)" in us and "Mark battle hardened" in us
    assert "You hold no Heroes" in page(players, "german")
    players.until_step("C5.23")
    assert "Hero" not in [n for n, *_ in unit_names(players, "us")]

    # C5.23: the US DR's -1 per 10 CVP the US amassed (the German lost 31): -3.
    fixed_dice.append([4, 4])
    r = roll(players, "us", "battlefield_promotion")
    assert [(d["value"], d["how"]) for d in r.drms] == [(-3, "auto")]
    # The German holds no MMC: his DR, which could Battle Harden none, is waived
    # (pass 18: refused citing C5.23, not owed by Done).
    with pytest.raises(ActionRefused) as refused:
        roll(players, "german", "battlefield_promotion")
    assert "no MMC" in str(refused.value) and "C5.23" in str(refused.value)
    players.until_step("C5.24")

    # C5.24: no leader either side's DR could Battle Harden; C5.24a for each.
    for side in ("us", "german"):
        with pytest.raises(ActionRefused):
            roll(players, side, "leader_promotion")
        assert (
            "You may not roll on it now: you retain no unwounded leader it could Battle "
            "Harden: whatever the DR, none would (C5.24)." in page(players, side)
        )
    assert "You hold no MMC to create the 7-0 leader from (C5.24a)" in page(players, "german")
    assert "no more than one leader per 4 (C5.24a)" in page(players, "us")
    players.until_step("C5.25")
    names = [n for n, *_ in unit_names(players, "us")]
    assert "9-2 leader" in names and "8-1 leader" in names


def test_c5_15_guarded_non_isolated_prisoners_are_removed_from_play(users, modules):
    """C5.15 "Any guarded non-isolated prisoners are removed from play now; after which,
    any SW/Guns that are not possessed following all Redeployment is complete are
    eliminated from play" (was `map`: "Refit keeps no prisoners"; a squad, HS, leader
    or Hero its side marks captured is one of its men held prisoner, as C5.22 and
    Sicily read it).  When C5.15 is done the German 4-6-7 and 8-0 leader held prisoner
    leave his retained forces (the log cites C5.15); the US 6-6-7 held prisoner in an
    Isolated Location stays; a captured MG42 the US uses stays.  C5.14: a prisoner
    makes no Redeployment DR (moved by his guard), refused in ASL words."""
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add, roll, unit_names

    players, _ = phd_after(users, "C5.14")
    held = add(players, "german", "4-6-7", "squad", status="captured")
    add(players, "german", "8-0 leader", "leader", status="captured")
    add(players, "us", "6-6-7", "squad", status="captured", markers=("isolated",))
    gunner = add(players, "us", "6-6-7 B", "squad")
    add(players, "us", "MG42", "sw", status="captured", possessor=gunner.ref)
    done(players, "us")  # the Attacker (the US, who moved first in 0600 hrs) first
    with pytest.raises(ActionRefused) as refused:
        roll(players, "german", "redeployment", held)
    plain(str(refused.value))
    assert "prisoner" in str(refused.value)
    players.until_step("C5.15")
    players.finish()
    assert players.step.id == "C5.16"
    assert unit_names(players, "german") == []
    assert [n for n, *_ in unit_names(players, "us")] == ["6-6-7", "6-6-7 B", "MG42"]
    line = [t for t in log_texts(players) if "4-6-7" in t and "(C5.15)" in t]
    assert line and "leaves the retained forces" in line[-1]
    plain(line[-1])


def test_c5_9_c1_2_a_german_vehicle_lost_in_the_conph_at_a_late_date(users, modules):
    """C5.9 "Vehicles immobilized by the minefield's attack ... remain in the original
    hex"; C1.2 "Casualties suffered ... during the subsequent ConPh ... their CVP total
    is used"; C5.1 "All ConPh losses count for the previous scenario for all purposes":
    tried on the German side (the named tests: the US) at C5.9.  A PzKpfw its owner
    removes as eliminated there: its CVP are not in the rules text and not supplied, so
    the log says they are not counted and how to add them (never a silent 0); one
    removed as a correction counts none; the result is unchanged."""
    from campaign.services import units
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add

    players, _ = phd_after(users, "C5.9", cvp_lost_german=7)
    tank = add(players, "german", "PzKpfw IVH", "vehicle")
    wrong = add(players, "german", "PzKpfw IVJ", "vehicle")
    units.remove_unit(
        campaign_id=players.campaign_id,
        user=players.users["german"],
        unit_id=tank.ref,
        eliminated=True,
    )
    units.remove_unit(
        campaign_id=players.campaign_id, user=players.users["german"], unit_id=wrong.ref
    )
    lines = log_texts(players)
    lost = [t for t in lines if "PzKpfw IVH" in t][-1]
    assert "eliminated at C5.9" in lost and "not counted" in lost and "(C5.1)" in lost, lost
    plain(lost)
    assert "a correction, not a loss" in [t for t in lines if "PzKpfw IVJ" in t][-1]


def test_c5_22_a_german_hero_with_only_a_prisoner_mmc_is_eliminated(users, modules):
    """C5.22 "Each friendly on-map Hero ... is removed from play by being 'combined'
    with any (non-crew) MMC ... Eliminate any Heroes that cannot combine", on the German
    side at the ConPh's C5.22: his only MMC is an Isolated 4-6-7 held prisoner (captured,
    not removed at C5.15): the combination is refused in ASL words, nothing changed; at
    Done the Hero leaves the retained forces."""
    from campaign.services import units
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add, unit_names

    players, _ = phd_after(users, "C5.22")
    hero = add(players, "german", "1-4-9 Hero", "hero")
    held = add(players, "german", "4-6-7", "squad", status="captured", markers=("isolated",))
    with pytest.raises(ActionRefused) as refused:
        units.exchange_unit(
            campaign_id=players.campaign_id,
            user=players.users["german"],
            give_id=hero.ref,
            mark_id=held.ref,
        )
    plain(str(refused.value))
    assert "C5.22" in str(refused.value)
    assert [n for n, *_ in unit_names(players, "german")] == ["1-4-9 Hero", "4-6-7"]
    players.finish()
    assert [n for n, *_ in unit_names(players, "german")] == ["4-6-7"]
