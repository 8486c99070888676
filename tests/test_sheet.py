"""Issue 20: the scenario sheet, the hand-off to the map.  For each seat of a Sicily
date at its set-up (3.622) the sheet matches the RG Purchase Record and the retained
forces of the roster, and holds nothing the seat may not see; the plain text and
the JSON carry the same."""

from __future__ import annotations

import json

import pytest

from campaign.models import Purchase, Seat
from campaign.seat_views.sheet import scenario_sheet
from campaign.services import purchases, units
from tests.purchase_helpers import campaign_at, roster_of
from tests.test_secrecy import Secrets
from tests.walk import host_game, players_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup_night(modules, make_user):
    """July 14 Night, owner-revealed purchases: the Axis player bought I1 and an M2 Recon RG,
    the British V6 and G3 and revealed V6; both chose Attack; the campaign is at 3.622
    Unit Set Up."""
    users = make_user("axis_s"), make_user("brit_s")
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=120, policy="owner")
    axis, brit = players.users["axis"], players.users["british"]
    cid = players.campaign_id
    i1 = purchases.purchase_rg(campaign_id=cid, user=axis, group_id="I1")
    m2 = purchases.purchase_rg(campaign_id=cid, user=axis, group_id="M2")  # Recon (3.620)
    bought = {
        gid: purchases.purchase_rg(campaign_id=cid, user=brit, group_id=gid) for gid in ("V6", "G3")
    }
    players.until("strength")  # the rolls come once every RG is selected (3.6181)
    purchases.roll_for_purchase(campaign_id=cid, user=axis, purchase_id=i1.ref)
    purchases.record_entry_area(
        campaign_id=cid, user=axis, purchase_id=i1.ref, entry_area="east edge", notes="HIP 1"
    )
    for gid, p in bought.items():
        purchases.roll_for_purchase(campaign_id=cid, user=brit, purchase_id=p.ref)
        bought[gid] = Purchase.objects.get(pk=p.pk)
    purchases.record_entry_area(
        campaign_id=cid, user=brit, purchase_id=bought["G3"].ref, entry_area="Primosole bridge"
    )
    purchases.reveal_purchase(campaign_id=cid, user=brit, purchase_id=bought["V6"].ref)
    units.add_unit(campaign_id=cid, user=axis, name="8-1 leader", kind="leader", location="12G4")
    units.add_unit(
        campaign_id=cid, user=brit, name="9-2 leader", kind="leader", location="secret wood"
    )
    players.until("recon")
    purchases.buy_recon(campaign_id=cid, user=axis, purchase_id=m2.ref)
    players.until("initiative")
    players.chits(axis="attack", british="attack")
    assert players.step.id == "3.622", players.step.id
    g3 = bought["G3"]
    secrets = Secrets()  # what the Axis player must not see of the British
    # (units added by hand are public, as on the roster; those of G3 are not)
    secrets.texts += [g3.group_type, "Primosole bridge"]
    seen = {  # roll results the Axis player sees anyway (its own, V6's)
        f"{r['table']}: {r['result']}"
        for p in Purchase.objects.filter(campaign_id=cid).exclude(pk=g3.pk)
        for r in p.details.get("rolls", [])
    }
    secrets.texts += [
        t for r in g3.details["rolls"] if (t := f"{r['table']}: {r['result']}") not in seen
    ]
    return players, secrets


def _own(lines):
    return [
        (ln.group_id, ln.group_type, ln.strength, ln.units, ln.sw, ln.rolls, ln.entry_area)
        for ln in lines
    ]


def _sheet_rows(rgs):
    return [
        (r.group_id, r.group_type, {"Full": "F", "Depleted": "D"}.get(r.strength, ""), r.units)
        + (r.sw, r.rolls, r.entry_area)
        for r in rgs
    ]


@pytest.mark.parametrize("side", ["axis", "british"])
def test_each_seats_sheet_matches_the_purchase_record_and_the_roster(setup_night, side):
    players, _ = setup_night
    c = players.campaign
    sheet = scenario_sheet(c, side)
    roster = roster_of(c, side)
    name = {"axis": "Axis", "british": "British"}[side]
    other = {"axis": "British", "british": "Axis"}[side]
    assert sheet.side == name and sheet.date == "July 14 Night"
    assert "is being set up" in sheet.scenario
    mine = [ln for ln in roster.record if ln.mine]
    theirs = [ln for ln in roster.record if not ln.mine]
    assert _sheet_rows(sheet.mine.rgs) == _own(mine)
    assert _sheet_rows(sheet.opponent.rgs) == _own(theirs)
    forces = {
        f.side: [(u.label, u.state_label, u.location) for u in f.units] for f in roster.forces
    }
    assert [(u.name, u.state, u.location) for u in sheet.mine.units] == forces[name]
    assert [(u.name, u.state, u.location) for u in sheet.opponent.units] == forces[other]
    seat = Seat.objects.get(campaign=c, side=side)
    assert (sheet.san, sheet.elr) == (seat.san, seat.elr)
    assert sheet.points.startswith(f"{seat.points} CPP")
    assert sheet.weather.startswith("Night")
    assert sheet.misr == []
    assert sheet.initiative[0].startswith("Axis Attack, British Attack → ")
    # The RG's printed unit types come from the chart.
    assert all(rg.unit_types for rg in sheet.mine.rgs if not rg.initial)


def test_what_each_side_revealed(setup_night):
    players, _ = setup_night
    c = players.campaign
    axis, brit = scenario_sheet(c, "axis"), scenario_sheet(c, "british")
    assert any(r.startswith("V6 ") for r in brit.revealed_by_me)
    assert not any(r.startswith("G3 ") for r in brit.revealed_by_me)
    assert [rg.group_id for rg in axis.opponent.rgs if not rg.initial] == ["V6"]
    assert {rg.group_id for rg in brit.mine.rgs} >= {"V6", "G3"}
    i1 = next(rg for rg in axis.mine.rgs if rg.group_id == "I1")
    assert (i1.entry_area, i1.notes) == ("east edge", "HIP 1")
    assert axis.mine.recon and not brit.opponent.recon  # Axis Recon: its own secret
    assert not [rg for rg in brit.opponent.rgs if not rg.initial]  # nothing revealed yet


def test_the_opponents_sheet_pages_hold_no_secret(setup_night, client):
    players, secrets = setup_night
    client.force_login(players.users["axis"])
    cid = players.campaign_id
    html = client.get(f"/campaigns/{cid}/sheet/").content.decode()
    text = client.get(f"/campaigns/{cid}/sheet.txt")
    data = client.get(f"/campaigns/{cid}/sheet.json")
    assert text["Content-Type"].startswith("text/plain")
    for body, where in ((html, "page"), (text.content.decode(), "text"), (data.content, "json")):
        secrets.check(body if isinstance(body, str) else body.decode(), f"sheet {where}")
    assert "V6" in html and "east edge" in html and "8-1 leader" in html
    doc = json.loads(data.content)
    assert doc["side"] == "Axis" and doc["opponent"]["side"] == "British"
    assert "V6 " in text.content.decode() and "entry/set-up: east edge" in text.content.decode()
    # The British player's own sheet has them, of course.
    client.force_login(players.users["british"])
    own = client.get(f"/campaigns/{cid}/sheet.txt").content.decode()
    assert "Primosole bridge" in own and "9-2 leader" in own
    assert "9-2 leader" in html  # a unit added by hand is public, as on the roster


def test_the_initial_scenario_sheet_has_misr_weather_san_and_elr(modules, make_user):
    """Purple Heart Draw's Initial Scenario: the variant's start (I1-I5)."""
    alice, bob = make_user("us_p"), make_user("german_p")
    c = host_game("purple-heart-draw", "tm", alice, bob, side="us")
    players = players_of(c, alice, bob)
    assert c.in_play or players.campaign.in_play
    sheet = scenario_sheet(players.campaign, "us")
    assert "Initial Scenario" in sheet.scenario and "is in play" in sheet.scenario
    assert sheet.weather.startswith("EC Moist")
    assert sheet.misr and sheet.misr[0].startswith("I1:")
    assert (sheet.san, sheet.elr) == (2, 4)
    assert sheet.initiative[0] == "German sets up first."


def test_a_stranger_gets_no_sheet(setup_night, make_user, client):
    players, _ = setup_night
    client.force_login(make_user("mallory"))
    for path in ("sheet/", "sheet.txt", "sheet.json"):
        assert client.get(f"/campaigns/{players.campaign_id}/{path}").status_code == 404


def test_the_sheet_is_linked_from_the_campaign_page(setup_night, client):
    players, _ = setup_night
    client.force_login(players.users["axis"])
    page = client.get(f"/campaigns/{players.campaign_id}/").content.decode()
    assert f'href="/campaigns/{players.campaign_id}/sheet/"' in page
