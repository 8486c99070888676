"""Issue 5: create, invite, join a side, my campaigns, permissions, per-seat JSON."""

import uuid

import pytest
from django.test import Client

from campaign.models import Campaign, Event, Invitation, Seat
from tests.walk import host_game

pytestmark = pytest.mark.django_db


def _create(client, **overrides):
    data = {
        "name": "Primosole",
        "cg": "sicily/i",
        "side": "axis",
        "reveal_policy": "step_end",
        **overrides,
    }
    return client.post("/campaigns/new/", data)


def _snapshot():
    return (
        Campaign.objects.count(),
        Seat.objects.count(),
        Invitation.objects.count(),
        Event.objects.count(),
    )


def test_host_creates_a_campaign_where_its_cg_starts(modules, make_user, login):
    """Sicily: the steps before the Initial Scenario come first (3.617-3.619 for the
    Initial Scenario; 3.6179, 3.6181)."""
    client = login(make_user("alice"))
    response = _create(client)
    assert response.status_code == 302
    campaign = Campaign.objects.get()
    assert response.url == f"/campaigns/{campaign.pk}/"
    assert not campaign.in_play and campaign.step_index == 0
    assert campaign.module_data["id"] == "sicily"
    assert campaign.module_data["steps"][0]["id"] == "I-3.617"
    host_seat = campaign.seats.get(side="axis")
    assert host_seat.user.username == "alice"
    assert campaign.seats.get(side="british").user is None
    assert campaign.invitations.get().side == "british"
    page = client.get(response.url).content.decode()
    assert "Primosole" in page and "Invite your opponent" in page


def test_create_form_offers_the_sides_of_the_chosen_module(modules, make_user, login):
    client = login(make_user("alice"))
    html = client.get("/campaigns/new/?cg=test-skirmish/short").content.decode()
    assert 'value="red"' in html and 'value="blue"' in html and 'value="axis"' not in html


@pytest.mark.parametrize(
    "overrides,message",
    [
        ({"cg": "nosuch/i"}, "Select a valid choice"),
        ({"cg": "sicily/iv"}, "Select a valid choice"),
        ({"side": "martians"}, "Select a valid choice"),
        ({"side": "red"}, "Select a valid choice"),  # a side of another module
        ({"reveal_policy": "never"}, "Select a valid choice"),
        ({"name": ""}, "This field is required"),
    ],
)
def test_bad_create_input_is_refused_and_creates_nothing(
    modules, make_user, login, overrides, message
):
    client = login(make_user("alice"))
    before = _snapshot()
    response = _create(client, **overrides)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert _snapshot() == before


def test_invitation_seats_exactly_one_other_user(hosted, make_user):
    campaign, alice, bob = hosted
    token = campaign.invitations.get().token
    carol = Client()
    carol.force_login(make_user("carol"))
    before = _snapshot()
    page = carol.get(f"/join/{token}/")
    assert page.status_code == 410 and "already been used" not in page.content.decode()
    assert "already used" in page.content.decode()
    response = carol.post(f"/join/{token}/")
    assert response.status_code == 410
    assert "already been used" in response.content.decode()
    assert _snapshot() == before
    assert campaign.seats.get(side="blue").user == bob


def test_joining_takes_the_invited_side(modules, make_user, login):
    alice = make_user("alice")
    campaign = host_game("test-skirmish", "short", alice, side="blue", policy="owner")
    token = campaign.invitations.get().token
    client = login(make_user("bob"))
    page = client.get(f"/join/{token}/").content.decode()
    assert "alice invites you to play <strong>Red</strong>" in page
    response = client.post(f"/join/{token}/")
    assert response.status_code == 302
    assert campaign.seats.get(side="red").user.username == "bob"
    assert not campaign.invitations.filter(used_at__isnull=True).exists()


def test_anonymous_invitee_is_sent_to_sign_up_and_back(hosted):
    campaign, *_ = hosted
    response = Client().get("/join/whatever/")
    assert response.status_code == 302 and response.url == "/signup/?next=/join/whatever/"


def test_revoked_link_gets_a_clear_page_and_a_new_one_works(modules, make_user, login):
    alice = make_user("alice")
    campaign = host_game("test-skirmish", "short", alice, side="red", policy="owner")
    old = campaign.invitations.get().token
    host = login(alice)
    assert host.post(f"/campaigns/{campaign.pk}/invitation/revoke/").status_code == 302
    bob = Client()
    bob.force_login(make_user("bob"))
    page = bob.get(f"/join/{old}/")
    assert page.status_code == 410 and "withdrawn by the host" in page.content.decode()
    assert bob.post(f"/join/{old}/").status_code == 410
    assert host.post(f"/campaigns/{campaign.pk}/invitation/").status_code == 302
    new = campaign.invitations.get(revoked_at__isnull=True).token
    assert new != old
    assert bob.post(f"/join/{new}/").status_code == 302


def test_regenerating_revokes_the_open_link(modules, make_user, login):
    alice = make_user("alice")
    campaign = host_game("test-skirmish", "short", alice, side="red", policy="owner")
    old = campaign.invitations.get().token
    login(alice).post(f"/campaigns/{campaign.pk}/invitation/")
    assert campaign.invitations.get(token=old).revoked_at is not None
    assert campaign.invitations.filter(revoked_at__isnull=True).count() == 1


def test_no_invitation_once_both_sides_are_taken(hosted, login):
    campaign, alice, bob = hosted
    before = _snapshot()
    response = login(alice).post(f"/campaigns/{campaign.pk}/invitation/")
    assert response.status_code == 409
    assert "Both sides are taken" in response.content.decode()
    assert _snapshot() == before


def test_only_the_host_manages_invitations(hosted, login):
    campaign, alice, bob = hosted
    response = login(bob).post(f"/campaigns/{campaign.pk}/invitation/revoke/")
    assert response.status_code == 403


def test_host_cannot_join_own_campaign_twice(modules, make_user, login):
    alice = make_user("alice")
    campaign = host_game("test-skirmish", "short", alice, side="red", policy="owner")
    token = campaign.invitations.get().token
    response = login(alice).post(f"/join/{token}/")
    assert response.status_code == 409
    assert "already play a side" in response.content.decode()
    assert campaign.seats.get(side="blue").user is None


def test_unknown_invitation_token(make_user, login):
    response = login(make_user("bob")).get("/join/not-a-real-token/")
    assert response.status_code == 404
    assert "not valid" in response.content.decode()


@pytest.mark.parametrize(
    "path", ["/campaigns/{id}/", "/campaigns/{id}/state.json", "/campaigns/{id}/export/"]
)
def test_strangers_get_404_everywhere(hosted, make_user, login, path):
    campaign, *_ = hosted
    response = login(make_user("mallory")).get(path.format(id=campaign.pk))
    assert response.status_code == 404


def test_a_forged_campaign_id_is_404(hosted, login):
    _, alice, _ = hosted
    assert login(alice).get(f"/campaigns/{uuid.uuid4()}/").status_code == 404
    assert login(alice).get("/campaigns/not-a-uuid/").status_code == 404


def test_state_json_shows_own_points_and_not_the_opponents(hosted, login):
    campaign, alice, bob = hosted
    Seat.objects.filter(campaign=campaign, side="blue").update(points=37)
    Seat.objects.filter(campaign=campaign, side="red").update(points=23)
    alice_view = login(alice).get(f"/campaigns/{campaign.pk}/state.json").json()
    sides = {s["id"]: s for s in alice_view["sides"]}
    assert alice_view["viewer"] == "red"
    assert sides["red"]["points"] == 23 and sides["blue"]["points"] is None
    assert 37 not in list(_numbers(alice_view))
    assert alice_view["dice_seed"] is None and len(alice_view["dice_seed_hash"]) == 64


def test_dice_seed_never_reaches_a_player_before_the_end(hosted, login):
    campaign, alice, bob = hosted
    for user in (alice, bob):
        client = login(user)
        for path in ("/campaigns/{id}/", "/campaigns/{id}/state.json"):
            body = client.get(path.format(id=campaign.pk)).content.decode()
            assert campaign.dice_seed not in body


def test_dashboard_says_who_we_wait_for(hosted, login):
    campaign, alice, bob = hosted
    html = login(alice).get("/campaigns/").content.decode()
    assert "Bridge at dawn" in html and "bob" in html
    # The Initial Scenario is being played on the map: nobody's move here yet.
    assert "the scenario, played on the map" in html and "both of you" not in html


def test_only_the_host_exports_and_only_once_the_cg_has_ended(hosted, login):
    from django.utils import timezone

    campaign, alice, bob = hosted
    assert login(bob).get(f"/campaigns/{campaign.pk}/export/").status_code == 403
    during = login(alice).get(f"/campaigns/{campaign.pk}/export/")
    assert during.status_code == 403 and "once the CG has ended" in during.content.decode()
    Campaign.objects.filter(pk=campaign.pk).update(ended_at=timezone.now())
    response = login(alice).get(f"/campaigns/{campaign.pk}/export/")
    assert response.status_code == 200
    assert response["Content-Disposition"].startswith("attachment")


def _numbers(node):
    if isinstance(node, dict):
        for v in node.values():
            yield from _numbers(v)
    elif isinstance(node, list):
        for v in node:
            yield from _numbers(v)
    elif isinstance(node, int) and not isinstance(node, bool):
        yield node
