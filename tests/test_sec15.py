"""Pass 15 (sec15): PHD C5.23 and C5.24 secret rolls change open units; the opponent reads
those units in their former state until the scenario ends (``visibility.UNIT.former``,
``Unit.held``), the owner their new state at once (``docs/rules-audit/pass-15-sec15.md``)."""

from __future__ import annotations

import pytest
from django.test import Client

from campaign.models import Event, Roll, Unit
from campaign.seat_views.sheet import scenario_sheet
from campaign.services import steps, units
from tests import test_rule_mechanisms as mechanisms
from tests.purchase_helpers import roster_of
from tests.test_phd_conph import phd_after
from tests.test_rule_mechanisms import add, result_values, roll

users = mechanisms.users
fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


def forces(players, seen_by: str, of: str) -> list[tuple[str, str, int, str]]:
    """``of``'s retained forces on ``seen_by``'s roster: each line's name, state, count
    and location."""
    view = roster_of(players.campaign_id, seen_by)
    side = next(f for f in view.forces if f.mine == (seen_by == of))
    return [(u.name, u.state_label, u.count, u.location) for u in side.units]


def forces_views(players, side: str):
    """``side``'s own lines on its roster (``UnitView``)."""
    view = roster_of(players.campaign_id, side)
    return next(f for f in view.forces if f.mine).units


def log_of(players, side: str) -> str:
    return "\n".join(
        e.shown for e in Event.objects.visible_to(side).filter(campaign_id=players.campaign_id)
    )


def page(players, side: str, path: str) -> str:
    client = Client()
    client.force_login(players.users[side])
    response = client.get(f"/campaigns/{players.campaign_id}/{path}")
    assert response.status_code == 200, path
    return response.content.decode()


def promoted(users, fixed_dice):
    """The German at C5.24 with an 8-1 and a 7-0; his secret DR 6 names an 8-1, who
    Battle Hardens into a 9-1 (C5.24's table, footnote *)."""
    players, _ = phd_after(users, "C5.24")
    add(players, "german", "8-1 leader", "leader", location="12B4")
    add(players, "german", "7-0 leader", "leader")
    fixed_dice.append([3, 3])
    assert roll(players, "german", "leader_promotion").result == "8-1"
    return players


def test_c5_24_the_owner_reads_his_promoted_leader_at_once_the_opponent_as_he_was(
    users, modules, fixed_dice
):
    """C5.24 "the option to make a secret DR to Battle Harden one Retained Non-Wounded
    Infantry Leader": the German's roster, sheet and log show his 9-1 at once; the US's
    show the 8-1 as he was (its line, state, place and count), no 9-1 anywhere, no log
    line of the promotion but the public "made a secret roll"."""
    players = promoted(users, fixed_dice)
    assert forces(players, "german", "german") == [
        ("9-1 leader", "in good order", 1, "12B4"),
        ("7-0 leader", "in good order", 1, ""),
    ]
    assert forces(players, "us", "german") == [
        ("8-1 leader", "in good order", 1, "12B4"),
        ("7-0 leader", "in good order", 1, ""),
    ]
    assert "8-1 leader Battle Hardens: now 9-1 leader" in log_of(players, "german")
    seen = log_of(players, "us")
    assert "German made a secret roll (Leader Promotion Table)." in seen
    assert "9-1" not in seen and "Battle Hardens" not in seen
    for path in ("roster/", "sheet/", "sheet.txt", "sheet.json", "state.json", ""):
        assert "9-1 leader" not in page(players, "us", path), path
    assert "9-1 leader" in page(players, "german", "roster/")
    # The sheet (the scenario's set-up) reads through the same gate.
    us_sheet = scenario_sheet(players.campaign, "us")
    assert "9-1 leader" not in repr(us_sheet)


def test_c5_24_a_later_change_to_the_promoted_leader_is_kept_behind_his_former_state(
    users, modules, fixed_dice
):
    """The owner moves his promoted leader (a public act on an open unit): the opponent
    reads neither the move nor a log line of it, which would name the new quality,
    until the promotion is released."""
    players = promoted(users, fixed_dice)
    leader = Unit.objects.get(campaign_id=players.campaign_id, name="9-1 leader")
    units.update_unit(
        campaign_id=players.campaign_id,
        user=players.users["german"],
        unit_id=leader.ref,
        name=leader.name,
        location="14C2",
        markers=[],
    )
    assert forces(players, "us", "german")[0] == ("8-1 leader", "in good order", 1, "12B4")
    assert "German marks 9-1 leader" in log_of(players, "german")
    assert "9-1" not in log_of(players, "us")


def test_c5_23_the_mmc_hardened_after_the_secret_dr_show_the_opponent_nothing(
    users, modules, fixed_dice
):
    """C5.23 "Each side makes a secret DR on the table below to determine the number of
    MMC that may be Battle-Hardened": the German's DR 2 gives three; he hardens two of
    his line of three 4-6-7 (each splits off the line).  He reads two hardened lines and
    one in good order; the US reads "3 × 4-6-7" in good order, one line, and no log line
    of the hardening (how many hardened would be a lower bound of the secret)."""
    players, _ = phd_after(users, "C5.23")
    line = add(players, "german", "4-6-7", "squad", number=3)
    fixed_dice.append([1, 1])
    assert roll(players, "german", "battlefield_promotion").result == "3 MMC may Battle Harden"
    for _ in range(2):
        line = Unit.objects.get(pk=line.pk)
        steps.harden_mmc(
            campaign_id=players.campaign_id,
            user=players.users["german"],
            table_id="battlefield_promotion",
            unit_id=line.ref,
        )
    assert sorted(forces(players, "german", "german")) == [
        ("4-6-7", "battle hardened", 1, ""),
        ("4-6-7", "battle hardened", 1, ""),
        ("4-6-7", "in good order", 1, ""),
    ]
    assert forces(players, "us", "german") == [("4-6-7", "in good order", 3, "")]
    assert "battle hardened" not in log_of(players, "us").lower()
    assert log_of(players, "german").count("4-6-7 is now battle hardened") == 2
    # No count gives it away: the opponent's gate counts one line, the owner's three.
    c = players.campaign
    assert Unit.objects.visible_to("us").filter(campaign=c, side="german").count() == 1
    assert Unit.objects.visible_to("german").filter(campaign=c, side="german").count() == 3


def test_c5_23_c5_24_the_former_state_is_released_at_the_scenarios_end(users, modules, fixed_dice):
    """The units a secret roll's effect changed play in the next scenario as they are:
    when its result is confirmed, the US reads the 9-1 and the hardened 4-6-7 (and the
    log lines of both changes); the C5.24 DR itself stays secret (C5.24, until the CG
    ends: ``visibility.SECRET_ROLL``)."""
    players, module = phd_after(users, "C5.23")
    line = add(players, "german", "4-6-7", "squad", number=2)
    add(players, "german", "8-1 leader", "leader")
    fixed_dice.append([1, 1])
    roll(players, "german", "battlefield_promotion")
    steps.harden_mmc(
        campaign_id=players.campaign_id,
        user=players.users["german"],
        table_id="battlefield_promotion",
        unit_id=line.ref,
    )
    players.until_step("C5.24")
    fixed_dice.append([3, 3])
    roll(players, "german", "leader_promotion")
    assert [n for n, *_ in forces(players, "us", "german")] == ["4-6-7", "8-1 leader"]
    players.until("initiative")
    players.chits(german="attack", us="idle")
    players.until("results")
    players.results(**result_values(module))
    assert sorted(forces(players, "us", "german")) == [
        ("4-6-7", "battle hardened", 1, ""),
        ("4-6-7", "in good order", 1, ""),
        ("9-1 leader", "in good order", 1, ""),
    ]
    seen = log_of(players, "us")
    assert "German: 4-6-7 is now battle hardened (Battlefield Promotion Table, C5.23)." in seen
    assert not Unit.objects.filter(campaign_id=players.campaign_id).exclude(held={}).exists()
    assert not Roll.objects.visible_to("us").filter(table_id="leader_promotion").exists()


def test_c5_24_the_owner_reveals_his_promoted_leader_before_the_scenario_ends(
    users, modules, fixed_dice
):
    """The owner's reveal, as an RG's ("Reveal what it rolled"): his roster line says
    what his opponent sees of it ("8-1 leader — in good order") and offers "Reveal it
    now"; posted, the US reads the 9-1 and the log line saying so; a second reveal is
    refused in words (409), and so is one of a line the player does not have (404);
    nothing changes."""
    players = promoted(users, fixed_dice)
    mine = forces_views(players, "german")
    leader = next(u for u in mine if u.name == "9-1 leader")
    assert (leader.held_as, leader.reveals) == ("8-1 leader — in good order", True)
    assert "Reveal it now" in page(players, "german", "roster/")
    assert "Reveal it now" not in page(players, "us", "roster/")
    client = Client()
    client.force_login(players.users["german"])
    url = f"/campaigns/{players.campaign_id}/units/"
    answer = client.post(url, {"do": "reveal", "unit": leader.id}, HTTP_HX_REQUEST="true")
    assert answer.status_code == 200, answer.content[:300]
    assert forces(players, "us", "german")[0] == ("9-1 leader", "in good order", 1, "12B4")
    assert (
        "German reveals what its secret roll made of its 8-1 leader: 9-1 leader, in good order."
        in log_of(players, "us")
    )
    answer = client.post(url, {"do": "reveal", "unit": leader.id}, HTTP_HX_REQUEST="true")
    assert answer.status_code == 409
    assert "already sees 9-1 leader as it is" in answer.content.decode()
    theirs = add(players, "us", "8-1 leader", "leader")
    answer = client.post(url, {"do": "reveal", "unit": theirs.ref}, HTTP_HX_REQUEST="true")
    assert answer.status_code == 404
    assert log_of(players, "us").count("reveals what its secret roll") == 1


def test_c5_23_the_owners_reveal_of_a_hardened_line_shows_the_lines_split_off_it(
    users, modules, fixed_dice
):
    """C5.23: the German reveals his line of 4-6-7 two of which hardened: the US reads
    the three lines as they are; the lines split off it offer no reveal of their own."""
    players, _ = phd_after(users, "C5.23")
    line = add(players, "german", "4-6-7", "squad", number=3)
    fixed_dice.append([1, 1])
    roll(players, "german", "battlefield_promotion")
    for _ in range(2):
        line = Unit.objects.get(pk=line.pk)
        steps.harden_mmc(
            campaign_id=players.campaign_id,
            user=players.users["german"],
            table_id="battlefield_promotion",
            unit_id=line.ref,
        )
    views = {u.id: u for u in forces_views(players, "german")}
    assert views[line.ref].held_as == "3 × 4-6-7 — in good order"
    split = [u for ref, u in views.items() if ref != line.ref]
    assert [(u.held_as, u.reveals) for u in split] == [("counted in 4-6-7", False)] * 2
    units.reveal_unit(
        campaign_id=players.campaign_id, user=players.users["german"], unit_id=line.ref
    )
    assert sorted(forces(players, "us", "german")) == [
        ("4-6-7", "battle hardened", 1, ""),
        ("4-6-7", "battle hardened", 1, ""),
        ("4-6-7", "in good order", 1, ""),
    ]
    assert log_of(players, "us").count("4-6-7 is now battle hardened") == 2
    assert not Unit.objects.filter(campaign_id=players.campaign_id).exclude(held={}).exists()


def test_c5_24_the_promoted_leader_removed_by_mistake_and_put_back_shows_the_opponent_the_8_1(
    users, modules, fixed_dice
):
    """The German removes his promoted leader (a correction) and puts him back: the US
    reads each as it happens, in the leader's former words ("removes 8-1 leader", "puts
    back 8-1 leader"), his roster (read afresh and at his seat's revision alike) losing
    and regaining the 8-1; the 9-1 stays held."""
    from campaign.models import Seat
    from campaign.seat_views.roster import _read_roster_view

    players = promoted(users, fixed_dice)
    leader = Unit.objects.get(campaign_id=players.campaign_id, name="9-1 leader")
    german = players.users["german"]

    def us_roster_is_current() -> None:
        seat = Seat.objects.select_related("campaign").get(
            campaign_id=players.campaign_id, side="us"
        )
        assert roster_of(players.campaign_id, "us") == _read_roster_view(seat.campaign, "us")

    units.remove_unit(campaign_id=players.campaign_id, user=german, unit_id=leader.ref)
    us_roster_is_current()
    assert [n for n, *_ in forces(players, "us", "german")] == ["7-0 leader"]
    assert "German removes 8-1 leader from its retained forces." in log_of(players, "us")
    units.put_back_unit(campaign_id=players.campaign_id, user=german, unit_id=leader.ref)
    us_roster_is_current()
    assert forces(players, "us", "german")[1] == ("8-1 leader", "in good order", 1, "12B4")
    seen = log_of(players, "us")
    assert "German puts back 8-1 leader on its retained forces (removed by mistake)." in seen
    assert "9-1" not in seen
    assert forces(players, "german", "german")[1][0] == "9-1 leader"
