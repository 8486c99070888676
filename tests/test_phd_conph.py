"""Issue 44, PHD sentence by sentence, C1.1-C1.3 and the Consolidation Phase C5.0-C5.24:
what the ConPh's sentences state, as two players meet it through the services (the
sentence ledger ``rules/ledger/sentences/purple-heart-draw-c5-early.yaml`` names these
tests).  The dice are fixed where an outcome depends on them."""

from __future__ import annotations

import pytest

from campaign.models import Roll, Unit
from campaign.services import steps
from campaign.services.errors import ActionRefused
from tests import test_rule_mechanisms as mechanisms
from tests.purchase_helpers import add_vehicle
from tests.test_rule_mechanisms import add, result_values, roll, start, unit_names

users = mechanisms.users
fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


def phd_after(users, step_id=None, **losses):
    """A PHD TM whose Initial TM Scenario is over (its result confirmed, each side's CVP
    lost given as ``cvp_lost_<side>=n``), walked to ``step_id`` of its ConPh, if given."""
    players, module = start("purple-heart-draw", "tm", users, "us")
    players.results(**result_values(module, **losses))
    if step_id:
        players.until_step(step_id)
    return players, module


def done(players, side):
    steps.finish_step(campaign_id=players.campaign_id, user=players.users[side])


def test_c1_2_c5_1_conph_losses_join_the_result_and_the_drms_read_them(users, modules, fixed_dice):
    """C1.2: "Casualties suffered in a TM scenario or during the subsequent ConPh ...
    their CVP total is used to determine a DRM for TP Loss/Gain, and Bravery &
    Battlefield Promotion"; C5.1: "All ConPh losses count for the previous scenario for
    all purposes"; C5.2: "Losses are handled as per (C5.1)".  The US lost 5 CVP in the
    scenario and 20 more at C5.14 (units behind the enemy FEBA failing to redeploy are
    eliminated, C5.14 i): proposed at C5.14, accepted by the German, the 25 CVP give the
    German's C5.23 DR its -2 (CVP he amassed) and the US's C5.29 DR its -2 (CVP it
    suffered)."""
    players, module = phd_after(users, "C5.14", cvp_lost_us=5, cvp_lost_german=3)
    steps.propose_result_amendment(
        campaign_id=players.campaign_id,
        user=players.users["us"],
        values=result_values(module, cvp_lost_us=25, cvp_lost_german=3),
        reason="a platoon behind the German FEBA failed to redeploy (C5.14 i)",
    )
    steps.answer_result_amendment(
        campaign_id=players.campaign_id, user=players.users["german"], accept=True
    )
    players.until_step("C5.23")
    add(players, "german", "4-6-7", "squad")  # an MMC the DR may Battle Harden
    add(players, "us", "6-6-7", "squad")
    fixed_dice.extend([[4, 4], [4, 4]])
    german = roll(players, "german", "battlefield_promotion")
    assert [(d["value"], d["how"]) for d in german.drms] == [(-2, "auto")]
    assert german.final == 6
    us = roll(players, "us", "battlefield_promotion")
    assert us.drms == []  # the German's 3 CVP: FRD(3/10) = 0
    players.until("purchase")
    tp = Roll.objects.get(campaign_id=players.campaign_id, side="us", table_id="tp_replenishment")
    assert [d["value"] for d in tp.drms] == [-2]


def test_c5_6_the_markers_kept_stay_on_the_retained_forces(users, modules):
    """C5.6: "DO NOT REMOVE ... Immobilized, Bog, Stun, Malfunction, Disabled ...
    counters at this time": the retained forces' marks pass C5.5-C5.7 unchanged."""
    players, _ = phd_after(users, "C5.5")
    add(players, "us", "M4A1 Sherman", "vehicle", status="immobilized")
    add(players, "us", "M4A3 Sherman", "vehicle", status="stunned")
    add(players, "us", ".50 cal HMG", "sw", status="malfunctioned")
    m10, _ = add_vehicle(players, "us", "M10 GMC", ("ma", ["disabled"]))
    before = unit_names(players, "us")
    players.until_step("C5.8")
    assert unit_names(players, "us") == before
    m10.refresh_from_db()
    assert [w["markers"] for w in m10.weapons] == [["disabled"]]


def test_c5_13_a_redeployment_dr_on_the_table_with_its_drms(users, modules, fixed_dice):
    """C5.13: "Any unit attempting to redeploy must make a DR on the suitable table,
    applying any applicable DRM, and immediately applying the results"; the C5.14
    Redeployment Table and its DRMs: DR 9 +1 (Wire) = 10 "Redeploys, Replaced"; DR 8 +3
    (three PP beyond the IPC) = 11 "Redeploys,
    Reduced" / a Mobile Vehicle "Remains in hex"; DR 12 +2 (enemy FEBA) -1 (adjacent to
    a friendly Front Line Hex) -1 (Labor) +1 (on Wire) +1 (Isolated, by its marker) = 14
    "Eliminated" (No-Man's Land is never claimed with the enemy FEBA: C5.14, pass 25)."""
    players, module = phd_after(users, "C5.14")
    first, second = (add(players, "us", f"6-6-7 {n}", "squad") for n in "AB")
    third = add(players, "us", "6-6-7 C", "squad", markers=("isolated",))
    fixed_dice.extend([[4, 5], [4, 4], [6, 6]])
    r = roll(players, "us", "redeployment", first, ticked=["wire"])
    assert (r.final, r.result) == (10, "Infantry: Redeploys, Replaced")
    r = roll(
        players,
        "us",
        "redeployment",
        second,
        typed={"portage": 3},
    )
    assert (r.final, r.result) == (11, "Infantry: Redeploys, Reduced")
    r = roll(
        players,
        "us",
        "redeployment",
        third,
        ticked=["enemy_feba", "front_line", "labor", "wire"],
    )
    assert r.final == 14 and r.result == "Infantry: Eliminated"
    assert sorted(d["value"] for d in r.drms) == [-1, -1, 1, 1, 2]


def test_c5_19_each_wounded_leader_owes_his_evacuation_dr(users, modules, fixed_dice):
    """C5.19: "For each Wounded Leader a dr is made on the following table": the US's
    Done waits until each of its two wounded leaders has had his dr (1: "Retained
    Unwounded"; 6: "Evacuated (removed from play)"); a second dr for one is refused; the
    German, with none wounded, owes nothing."""
    players, module = start("purple-heart-draw", "tm", users, "us")
    mechanisms.supply_leader_evacuation(players, "Retained Wounded", "none")
    players.results(**result_values(module))
    players.until_step("C5.19")
    eight = add(players, "us", "8-1 leader", "leader", status="wounded")
    seven = add(players, "us", "7-0 leader", "leader", status="wounded")
    add(players, "us", "9-1 leader", "leader")
    with pytest.raises(ActionRefused, match=r"Roll first: .*Leader Evacuation Table"):
        done(players, "us")
    fixed_dice.extend([[1], [6]])
    roll(players, "us", "leader_evacuation", eight)
    with pytest.raises(ActionRefused, match=r"Roll first"):
        done(players, "us")
    with pytest.raises(ActionRefused):
        roll(players, "us", "leader_evacuation", Unit.objects.get(pk=eight.pk))
    roll(players, "us", "leader_evacuation", seven)
    assert unit_names(players, "us") == [
        ("8-1 leader", "leader", "ok", 1),
        ("9-1 leader", "leader", "ok", 1),
    ]
    done(players, "us")
    done(players, "german")


def test_c5_23_each_side_must_make_its_secret_promotion_dr_once(users, modules, fixed_dice):
    """C5.23: "Each side makes a secret DR on the table below": the DR is compulsory
    (Done waits for it, with the reason) and made once per side in the ConPh (each
    side holding an MMC it may Battle Harden: without one it is waived, pass 18)."""
    players, _ = phd_after(users, "C5.23")
    add(players, "german", "4-6-7", "squad")
    add(players, "us", "6-6-7", "squad")
    with pytest.raises(ActionRefused, match=r"Roll first: .*Battlefield Promotion Table"):
        done(players, "german")
    fixed_dice.append([5, 5])
    r = roll(players, "german", "battlefield_promotion")
    assert r.secret and r.result == "0 MMC"
    with pytest.raises(ActionRefused):
        roll(players, "german", "battlefield_promotion")
    done(players, "german")
    with pytest.raises(ActionRefused, match=r"Roll first"):
        done(players, "us")


def test_c5_24a_no_7_0_without_an_mmc_to_promote_from(users, modules):
    """C5.24a: "it may automatically create one 7-0 leader from any designated
    (non-crew) MMC": a side that holds no squad or HS has none to create him from, even
    with no leader (0 leaders are within one per four squad-equivalents); with one
    squad it may."""
    players, _ = phd_after(users, "C5.24")

    def promote():
        from tests.test_rule_mechanisms import an_mmc

        return steps.take_instead_of_roll(
            campaign_id=players.campaign_id,
            user=players.users["us"],
            table_id="leader_promotion",
            mmc_id=an_mmc(players, "us"),  # C5.24a "from any designated (non-crew) MMC"
        )

    with pytest.raises(ActionRefused, match=r"You hold no MMC to create the 7-0 leader from"):
        promote()
    assert not Unit.objects.filter(campaign_id=players.campaign_id, side="us").exists()
    add(players, "us", "6-6-6", "squad")
    assert promote().name == "7-0 leader"


def test_c5_23_the_mmc_the_dr_allows_battle_harden_none_twice(users, modules, fixed_dice, client):
    """C5.23: "Each side makes a secret DR on the table below to determine the number of
    MMC that may be Battle-Hardened (A15.3). No unit may Battle Harden more than once
    during the ConPh."  The US gave its Hero for a 6-6-7 at C5.22; its DR 3 ("2 MMC
    may Battle Harden") lets it Battle Harden two more MMC, chosen on its page: not the
    6-6-7 of C5.22, not a leader, not a third; the German's DR 12 ("0 MMC") none."""
    players, _ = phd_after(users, "C5.22")
    hero = add(players, "us", "1-4-9 Hero", "hero")
    squads = add(players, "us", "6-6-7", "squad", number=3)
    hs = add(players, "us", "3-3-7", "half_squad")
    leader = add(players, "us", "8-1 leader", "leader")
    mechanisms.exchange(players, "us", hero, squads)
    combined = Unit.objects.get(campaign_id=players.campaign_id, markers=["battle_hardened"])
    players.until_step("C5.23")

    def harden(side, unit):
        return steps.harden_mmc(
            campaign_id=players.campaign_id,
            user=players.users[side],
            table_id="battlefield_promotion",
            unit_id=unit.ref,
        )

    with pytest.raises(ActionRefused, match=r"Roll on the Battlefield Promotion Table first"):
        harden("us", hs)
    fixed_dice.extend([[1, 2], [6, 6]])
    assert roll(players, "us", "battlefield_promotion").result == "2 MMC may Battle Harden"
    client.force_login(players.users["us"])
    page = client.get(f"/campaigns/{players.campaign_id}/").content.decode()
    assert "Your roll lets 2 MMC Battle Harden (A15.3); 2 left." in page
    assert "Battle Harden this MMC" in page
    with pytest.raises(ActionRefused, match=r"6-6-7 has Battle Hardened once in this ConPh"):
        harden("us", combined)
    with pytest.raises(ActionRefused, match=r"8-1 leader is not one of your MMC"):
        harden("us", leader)
    harden("us", Unit.objects.get(pk=squads.pk))
    harden("us", hs)
    with pytest.raises(ActionRefused, match=r"lets 2 MMC Battle Harden, and you have .* 2"):
        harden("us", Unit.objects.get(pk=squads.pk))
    assert unit_names(players, "us") == [
        ("3-3-7", "half_squad", "battle_hardened", 1),
        ("6-6-7", "squad", "battle_hardened", 1),
        ("6-6-7", "squad", "battle_hardened", 1),
        ("6-6-7", "squad", "ok", 1),
        ("8-1 leader", "leader", "ok", 1),
    ]
    add(players, "german", "4-6-8", "squad")
    assert roll(players, "german", "battlefield_promotion").result == "0 MMC"
    with pytest.raises(ActionRefused, match=r"lets 0 MMC Battle Harden"):
        harden("german", Unit.objects.get(campaign_id=players.campaign_id, side="german"))


# C5.24's Leader Promotion Table as the players may supply it (its rows for a DR of 2
# or less and 12 or more are lost from the rules text).
LEADER_ROWS = [
    ("≤2", "10-2", "battle harden: 10-2"),
    ("3", "9-2", "battle harden: 9-2"),
    ("4", "9-1", "battle harden: 9-1"),
    ("5-6", "8-1", "battle harden: 8-1"),
    ("7-9", "8-0", "battle harden: 8-0"),
    ("10-11", "7-0", "battle harden: 7-0"),
    ("≥12", "6+1", "battle harden: 6+1"),
]


def test_c5_24_the_lost_rows_are_supplied_by_consent_then_rolled(users, modules, fixed_dice):
    """C5.24's Leader Promotion Table lost its rows for a DR of 2 or less and 12 or more
    (OCR 'S0 b D)', 'T'): the table is rolled on as transcribed meanwhile, and the
    players may supply the lost rows by consent; then a DR 2 selects the row they gave
    (here a 10-2): the German has none, so his 9-2, the next lower, Battle Hardens."""
    players, module = start("purple-heart-draw", "tm", users, "us")
    mechanisms.supply(players, "tables.leader_promotion", mechanisms.row_table(LEADER_ROWS))
    players.results(**result_values(module))
    players.until_step("C5.24")
    add(players, "german", "9-2 leader", "leader")
    fixed_dice.append([1, 1])
    assert roll(players, "german", "leader_promotion").result == "10-2"
    assert unit_names(players, "german") == [("10-2 leader", "leader", "ok", 1)]


def page_of(players, side, client) -> str:
    client.force_login(players.users[side])
    return client.get(f"/campaigns/{players.campaign_id}/").content.decode()


def test_c5_3_the_attacker_is_named_the_side_that_moved_first(users, modules, client):
    """C5.3: "The Attacker is the side that had moved first on the final Mission turn"
    (C5.4 and C5.14 go by it): after the Initial TM Scenario (C4.2: the US moves
    first) C5.3, C5.4 and C5.14 name the American; after a German Attack (C5.37b: the
    German moves first) they name the German."""
    players, module = phd_after(users, "C5.3")
    first = "Attacker (C5.3): American, the side that moved first in the 0600 hrs scenario."
    assert first in page_of(players, "german", client)
    players.until_step("C5.14")
    assert first in page_of(players, "us", client)
    players.until("initiative")
    players.chits(us="idle", german="attack")
    players.until("results")
    players.results(**result_values(module))
    players.until_step("C5.4")
    assert "Attacker (C5.3): German, the side that moved first in the 0930 hrs scenario." in (
        page_of(players, "us", client)
    )
    players.until_step("C5.5")
    assert "Attacker (C5.3)" not in page_of(players, "us", client)
