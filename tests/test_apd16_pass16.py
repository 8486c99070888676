"""Issue 44, pass 16, A Pleasant Diversion (seed 002): the Left items of pass 15 (3.1
footnote's SW with several MMC; 2.5 "leadership applies normally"), then sentences of
the CG rules, the Clean-Up 2.-2.92 and the Setup 3.-4.0 tried once more in play in a
way their named tests do not (the other side, twice, skipped, after a correction,
another unit kind, another row, the step before or after, what the player reads).
Each test cites its rule; docs/rules-audit/pass-16-apd16.md lists what was tried and
what held."""

from __future__ import annotations

import pytest

from campaign.models import Event, Roll, Unit
from campaign.services import units
from campaign.services.errors import ActionRefused
from tests import test_rule_mechanisms
from tests.test_apd12_pass12 import apd, page_of
from tests.test_apd_pass5 import done
from tests.test_rule_mechanisms import add, edit, roll

pytestmark = [pytest.mark.django_db, pytest.mark.rules]

users = test_rule_mechanisms.users
fixed_dice = test_rule_mechanisms.fixed_dice


def rolls(players) -> int:
    return Roll.objects.filter(campaign_id=players.campaign_id).count()


def fresh(unit: Unit) -> Unit:
    return Unit.objects.get(pk=unit.pk)


def evacuated_with_two_mmc(players, fixed_dice, side="american"):
    """``side``'s wounded 8-1 at 12K5 possessing a BAZ rolls dr 5 (Evacuated) while the
    side holds two MMC, a 7-4-7 at 12L6 and a 2-4-7 at 12J2: the 7-0 joins unplaced and
    the BAZ waits for its MMC (3.1 footnote *)."""
    leader = add(players, side, "8-1 leader", "leader", "wounded", location="12K5")
    baz = add(players, side, "BAZ 45", "sw", possessor=leader.ref)
    squad = add(players, side, "7-4-7", "squad", location="12L6")
    half = add(players, side, "2-4-7", "half_squad", location="12J2")
    fixed_dice.append([5])
    assert roll(players, side, "recovery", leader).result == "Evacuated*"
    seven = Unit.objects.get(campaign_id=players.campaign_id, side=side, name="7-0 leader")
    return baz, squad, half, seven


# --------------------------------------------------------------------------- Left: 3.1 footnote


def test_3_1_footnote_done_waits_for_the_evacuated_leaders_sw_to_reach_its_mmc(
    users, modules, fixed_dice
):
    """3.1 footnote *: "Any SW Possessed by an Evacuated leader is considered
    Transferred to the MMC as well."  With two MMC the nearest is the map's; the
    American's Done at 3.1 is refused while the BAZ waits for its MMC, in words naming
    the BAZ, the 7-0 and what to do; nothing is finished."""
    players, _ = apd(users, "3.1")
    evacuated_with_two_mmc(players, fixed_dice)
    with pytest.raises(ActionRefused) as refused:
        done(players, "american")
    said = str(refused.value)
    assert "BAZ 45" in said and "7-0 leader" in said and "3.1" in said, said
    assert players.step.id == "3.1"


def test_3_1_footnote_entering_the_7_0s_location_transfers_the_sw_to_the_mmc_there(
    users, modules, fixed_dice
):
    """3.1 footnote *: the 7-0 is "in the same location as the friendly MMC nearest";
    the SW "Transferred to the MMC as well".  The owner enters the 7-0's location, 12J2:
    the 2-4-7 there takes the BAZ, the log says so, and Done at 3.1 goes through."""
    players, _ = apd(users, "3.1")
    baz, _, half, seven = evacuated_with_two_mmc(players, fixed_dice)
    edit(players, "american", seven, None, location="12J2")
    assert fresh(baz).possessor_id == half.pk
    text = Event.objects.filter(campaign_id=players.campaign_id).latest("id").text
    assert "BAZ 45 Transferred to 2-4-7" in text, text
    done(players, "american")


def test_3_1_footnote_the_7_0_goes_only_where_a_friendly_mmc_is(users, modules, fixed_dice):
    """3.1 footnote *: "replaced with a 7-0 leader in the same location as the friendly
    MMC nearest": entering for the 7-0 a location where none of the side's MMC is
    (12K5, the Evacuated leader's own) is refused in words naming the MMC locations;
    the 7-0 stays unplaced and the BAZ unpossessed."""
    players, _ = apd(users, "3.1")
    baz, _, _, seven = evacuated_with_two_mmc(players, fixed_dice)
    with pytest.raises(ActionRefused) as refused:
        edit(players, "american", seven, None, location="12K5")
    said = str(refused.value)
    assert "12J2" in said and "12L6" in said and "3.1" in said, said
    assert fresh(seven).location == ""
    assert fresh(baz).possessor_id is None


def test_3_1_footnote_naming_the_sws_possessor_refuses_a_unit_not_an_mmc_of_that_location(
    users, modules, fixed_dice
):
    """3.1 footnote *: the SW goes to "the MMC" the 7-0 is placed with.  At the step,
    the owner names the BAZ's possessor: a leader is refused (not an MMC); with the 7-0
    entered at 12L6, the 2-4-7 of 12J2 is refused (not an MMC of that location); the
    7-4-7 of 12L6 takes it, and Done goes through."""
    players, _ = apd(users, "3.1")
    baz, squad, half, seven = evacuated_with_two_mmc(players, fixed_dice)
    other = add(players, "american", "9-1 leader", "leader", location="12L6")
    with pytest.raises(ActionRefused, match="MMC"):
        edit(players, "american", baz, None, possessor=other.ref)
    assert fresh(baz).possessor_id is None
    # Two lines at 12L6 would leave the choice to him: here the 7-4-7 is the only one.
    Unit.objects.filter(pk=squad.pk).update(location="12L6")
    units.update_unit(
        campaign_id=players.campaign_id,
        user=players.users["american"],
        unit_id=seven.ref,
        name=seven.name,
        location="12L6",
    )
    assert fresh(baz).possessor_id == squad.pk
    # A correction in the same pass is held to the same rule: none named, it is owed
    # again, and only an MMC of 12L6 may take it.
    edit(players, "american", baz, None, possessor="")
    with pytest.raises(ActionRefused, match="BAZ 45"):
        done(players, "american")
    with pytest.raises(ActionRefused, match="12L6"):
        edit(players, "american", baz, None, possessor=half.ref)
    edit(players, "american", baz, None, possessor=squad.ref)
    done(players, "american")


def test_3_1_footnote_naming_the_mmc_first_places_the_7_0_with_it(users, modules, fixed_dice):
    """3.1 footnote *, "(or at the step)": the owner names the 2-4-7 (12J2) as the BAZ's
    possessor before entering the 7-0's location: the BAZ is Transferred to it and the
    7-0 is placed with it, at 12J2; the German's Done is his own affair."""
    players, _ = apd(users, "3.1")
    baz, _, half, seven = evacuated_with_two_mmc(players, fixed_dice)
    edit(players, "american", baz, None, possessor=half.ref)
    assert fresh(baz).possessor_id == half.pk
    assert fresh(seven).location == "12J2"
    done(players, "american")


# --------------------------------------------------------------------------- Left: 2.5 leadership


def test_2_5_the_page_says_leadership_applies_normally_and_how_it_is_typed(users, modules, client):
    """2.5: "Each Encircled unit must take a 1TC (leadership applies normally)": the
    retained forces keep no reliable Locations (a unit's location is optional), so the
    leadership DRM (A10.7) is typed; the owner of an Encircled squad reads, at 2.5, the
    sentence's words and that the DRM is a leader's in the unit's Location, never his
    own."""
    players, _ = apd(users, "2.5")
    add(players, "american", "4-6-7", "squad", "encircled")
    text = page_of(client, players, "american")
    assert "leadership applies normally" in text, text[:3000]
    assert "A10.7" in text, text[:3000]


def test_3_1_footnote_with_no_mmc_the_sw_owes_nothing_and_done_goes_through(
    users, modules, fixed_dice
):
    """3.1 footnote *: the SW goes "to the MMC"; with no MMC (his only squad Captured,
    a Prisoner, is none) the rules say nothing more: the 7-0 joins, the BAZ is left
    with no possessor named, and the German's Done at 3.1 is not held for it."""
    players, _ = apd(users, "3.1")
    done(players, "american")
    leader = add(players, "german", "8-1 leader", "leader", "wounded", location="12K5")
    baz = add(players, "german", "PSK", "sw", possessor=leader.ref)
    add(players, "german", "4-6-7", "squad", "captured", location="12L6")
    fixed_dice.append([4])
    assert roll(players, "german", "recovery", leader).result == "Evacuated*"
    assert fresh(baz).possessor_id is None
    done(players, "german")
    assert players.step.id == "3.2"
