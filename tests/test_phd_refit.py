"""Issue 44, PHD rules that reuse the mechanisms the Sicily fourth pass added: the
Redeployment Table's Original 2 (C5.14 note 1, ``Table.original``) and the Heroes of
C5.22 (an exchange step whose Heroes left are eliminated: no ``kept_status``)."""

from __future__ import annotations

import pytest

from campaign.services import steps
from tests import test_rule_mechanisms as mechanisms
from tests.purchase_helpers import campaign_at
from tests.test_rule_mechanisms import add, exchange, roll, unit_names

users = mechanisms.users
fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


def at_step(users, step_id):
    return campaign_at("purple-heart-draw", "tm", "t0930", users, step=step_id)


def test_c5_14_note_1_an_original_2_always_redeploys(users, modules, fixed_dice):
    """C5.14 note 1: "Original 2 DR always results in Redeployment and HoB": dice 1+1
    with +2 (enemy FEBA) +1 (on Wire) ticked and +1 (Isolated) +1 (Stun) read from the
    squad's markers give a Final 7, but the Original 2 row, whatever the DRMs.  (Not
    enemy FEBA with No-Man's Land: never both on one DR, C5.14, pass 25.)"""
    players, _ = at_step(users, "C5.14")
    side = "us"  # the Attacker rolls first (C5.14; the US moved first, C4.2)
    squad = add(players, side, "6-6-7", "squad", markers=("isolated", "stunned"))
    fixed_dice.append([1, 1])
    r = roll(
        players,
        side,
        "redeployment",
        squad,
        ticked=["enemy_feba", "wire"],
    )
    assert r.final == 7
    assert r.result.startswith("Infantry: Redeploys and Heat of Battle")


def test_c5_22_each_hero_battle_hardens_one_mmc_and_the_rest_are_eliminated(users, modules):
    """C5.22: "Each friendly on-map Hero ... combined with any (non-crew) MMC ... Battle
    Hardens.  Eliminate any Heroes that cannot combine": one Hero given up marks a
    squad Battle Hardened; at Done the Hero left is eliminated (no exception keeps
    him, unlike APD 3.2)."""
    players, _ = at_step(users, "C5.22")
    heroes = add(players, "us", "1-4-9 Hero", "hero", number=2)
    squad = add(players, "us", "6-6-7", "squad")
    exchange(players, "us", heroes, squad)
    assert unit_names(players, "us") == [
        ("1-4-9 Hero", "hero", "ok", 1),
        ("6-6-7", "squad", "battle_hardened", 1),
    ]
    for side in players.users:
        steps.finish_step(campaign_id=players.campaign_id, user=players.users[side])
    assert unit_names(players, "us") == [("6-6-7", "squad", "battle_hardened", 1)]
