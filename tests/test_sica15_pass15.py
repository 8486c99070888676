"""Sicily (seed 001), RePh 3.601-3.614, the fifteenth pass of the sentence audit (issue
44): the items pass 12 left (3.6141a remanning, 3.606 footnote 2, 3.6041 EXC) and
sentences no earlier pass doc quotes, each tried through the services as two players
meet them (docs/rules-audit/pass-15-sica15.md)."""

from __future__ import annotations

import pytest

from campaign.models import Event
from campaign.services import units
from campaign.services.errors import ActionRefused
from tests import test_rule_mechanisms as mechanisms
from tests.purchase_helpers import campaign_at
from tests.test_rule_mechanisms import add, edit, unit_names

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
