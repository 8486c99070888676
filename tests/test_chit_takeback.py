"""A locked initiative chit taken back before the opponent locks his (3.621 / C5.37:
both chits are revealed simultaneously; until then a side may pick its chit up again
and choose another).  Revealed chits stand."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from campaign.models import Event, EventKind, InitiativeChit, InitiativeOutcome, StepMark
from campaign.services import initiative
from campaign.services.errors import ActionRefused
from tests.walk import Players


@pytest.fixture
def at_chits(hosted):
    campaign, alice, bob = hosted
    players = Players(campaign, {"red": alice, "blue": bob})
    players.results(**{"cvp_lost.red": 0, "cvp_lost.blue": 0, "san.red": 2, "san.blue": 2})
    players.until("initiative")
    return campaign, alice, bob


def _state(campaign):
    return (
        sorted(InitiativeChit.objects.filter(campaign=campaign).values_list("side", "chit")),
        Event.objects.filter(campaign=campaign).count(),
        StepMark.objects.filter(campaign=campaign).count(),
        InitiativeOutcome.objects.filter(campaign=campaign).count(),
    )


@pytest.mark.django_db
def test_a_chit_taken_back_is_chosen_again_and_the_new_one_is_revealed(at_chits, login):
    campaign, alice, bob = at_chits
    initiative.lock_initiative(campaign_id=campaign.pk, user=alice, chit="attack")
    initiative.take_back_chit(campaign_id=campaign.pk, user=alice)
    assert not InitiativeChit.objects.filter(campaign=campaign).exists()
    red = login(alice).get(f"/campaigns/{campaign.pk}/").content.decode()
    assert "Lock Attack" in red and "Lock Idle" in red  # to choose again
    blue = login(bob).get(f"/campaigns/{campaign.pk}/").content.decode()
    assert "<strong>Red</strong>: has not chosen yet" in blue
    assert "takes back its initiative chit before the reveal" in blue
    assert "Attack; taken back" not in blue
    initiative.lock_initiative(campaign_id=campaign.pk, user=alice, chit="idle")
    initiative.lock_initiative(campaign_id=campaign.pk, user=bob, chit="idle")
    chits = dict(InitiativeChit.objects.filter(campaign=campaign).values_list("side", "chit"))
    assert chits == {"red": "idle", "blue": "idle"}
    # The reveal shows the chit locked, never the one taken back (the CG's end does).
    blue = login(bob).get(f"/campaigns/{campaign.pk}/").content.decode()
    assert "Attack; taken back" not in blue
    red = login(alice).get(f"/campaigns/{campaign.pk}/").content.decode()
    assert "Red locked its initiative chit: Attack; taken back before the reveal." in red


@pytest.mark.django_db
def test_the_page_offers_the_take_back_and_says_when_locking_reveals(at_chits, login):
    campaign, alice, bob = at_chits
    red = login(alice)
    page = red.get(f"/campaigns/{campaign.pk}/").content.decode()
    assert "you may take it back until he locks his" in page
    assert "Lock Attack? You may take it back until your opponent locks his." in page
    response = red.post(f"/campaigns/{campaign.pk}/act/chit/", {"chit": "idle"})
    assert response.status_code == 302  # no script: back to the page
    page = red.get(f"/campaigns/{campaign.pk}/").content.decode()
    assert "Take back my chit" in page
    response = red.post(f"/campaigns/{campaign.pk}/act/take-back-chit/")
    assert response.status_code == 302  # no script: back to the page
    assert not InitiativeChit.objects.filter(campaign=campaign).exists()
    # Once the opponent has locked his, locking reveals both: the page and the
    # confirmation say so.
    initiative.lock_initiative(campaign_id=campaign.pk, user=bob, chit="attack")
    page = red.get(f"/campaigns/{campaign.pk}/").content.decode()
    assert "Your opponent has locked his" in page
    assert "Lock Idle? Both chits are revealed at once and stand." in page


@pytest.mark.django_db
def test_revealed_chits_stand(at_chits, client):
    campaign, alice, bob = at_chits
    initiative.lock_initiative(campaign_id=campaign.pk, user=alice, chit="idle")
    initiative.lock_initiative(campaign_id=campaign.pk, user=bob, chit="idle")
    before = _state(campaign)
    with pytest.raises(ActionRefused, match="revealed and stand"):
        initiative.take_back_chit(campaign_id=campaign.pk, user=alice)
    assert _state(campaign) == before


@pytest.mark.django_db
def test_no_chit_to_take_back_is_refused_and_changes_nothing(at_chits, login):
    campaign, alice, bob = at_chits
    before = _state(campaign)
    response = login(alice).post(f"/campaigns/{campaign.pk}/act/take-back-chit/")
    assert response.status_code == 409
    assert "You have locked no initiative chit to take back." in response.content.decode()
    assert _state(campaign) == before
    # The opponent's chit is not his to take back.
    initiative.lock_initiative(campaign_id=campaign.pk, user=bob, chit="attack")
    before = _state(campaign)
    with pytest.raises(ActionRefused, match="locked no initiative chit"):
        initiative.take_back_chit(campaign_id=campaign.pk, user=alice)
    assert _state(campaign) == before


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_take_back_racing_the_opponents_lock_leaves_one_story(modules, make_user):
    """The take back and the opponent's lock fired at once: either the chits are
    revealed (the take back refused) or the chit is gone and the opponent's waits."""
    from tests.walk import host_game, players_of

    for round_ in range(6):
        alice, bob = make_user(f"ra{round_}"), make_user(f"rb{round_}")
        c = host_game("test-skirmish", "short", alice, bob)
        players = players_of(c, alice, bob)
        players.results(**{"cvp_lost.red": 0, "cvp_lost.blue": 0, "san.red": 2, "san.blue": 2})
        players.until("initiative")
        initiative.lock_initiative(campaign_id=c.pk, user=alice, chit="attack")
        barrier, outcomes = threading.Barrier(2), {}

        def act(name, call, barrier=barrier, outcomes=outcomes):
            try:
                barrier.wait(timeout=10)
                call()
                outcomes[name] = "done"
            except ActionRefused as exc:
                outcomes[name] = str(exc)
            finally:
                connection.close()

        threads = [
            threading.Thread(
                target=act,
                args=(
                    "back",
                    lambda c=c, u=alice: initiative.take_back_chit(campaign_id=c.pk, user=u),
                ),
            ),
            threading.Thread(
                target=act,
                args=(
                    "lock",
                    lambda c=c, u=bob: initiative.lock_initiative(
                        campaign_id=c.pk, user=u, chit="idle"
                    ),
                ),
            ),
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert outcomes["lock"] == "done"
        chits = dict(InitiativeChit.objects.filter(campaign=c).values_list("side", "chit"))
        if outcomes["back"] == "done":
            assert chits == {"blue": "idle"}
            assert not Event.objects.filter(campaign=c, kind=EventKind.CHIT, secret_side="red")
            assert not InitiativeOutcome.objects.filter(campaign=c).exists()
        else:
            assert "revealed" in outcomes["back"]
            assert chits == {"red": "attack", "blue": "idle"}
            assert InitiativeOutcome.objects.filter(campaign=c).count() == 1
