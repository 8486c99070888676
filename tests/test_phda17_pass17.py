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
from tests.test_player_words import FORBIDDEN
from tests.test_rule_mechanisms import fixed_dice, users

pytestmark = [pytest.mark.django_db, pytest.mark.rules]
__all__ = ["fixed_dice", "users"]


def plain(sentence: str) -> None:
    """What the player reads has no module or transcription words."""
    assert not FORBIDDEN.search(sentence), sentence


def done(players, side):
    steps.finish_step(campaign_id=players.campaign_id, user=players.users[side])


def marks(unit: Unit) -> set[str]:
    unit.refresh_from_db()
    return set(unit.markers)


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
    C5.13a; a unit marked otherwise (wounded) is not; in the next ConPh, before its
    Redeployment, marking a unit Isolated gives no Low Ammo (that Redeployment decides)."""
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
