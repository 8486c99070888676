"""Issue 7: secret initiative chits, revealed together; every matrix cell; limits;
a race on PostgreSQL; websocket frames before and after the reveal."""

import threading

import pytest
from asgiref.sync import sync_to_async
from django.db import connection

from campaign.models import (
    Campaign,
    Event,
    InitiativeChit,
    InitiativeOutcome,
)
from campaign.selectors import module_of
from campaign.services import initiative
from campaign.services.errors import ActionRefused
from tests.purchase_helpers import keep_retained_units
from tests.walk import Players, host_game, players_of

SEED_MODULES = [("sicily", "i"), ("purple-heart-draw", "tm"), ("test-skirmish", "short")]


def new_campaign(module_id, variant, users):
    alice, bob = users
    c = host_game(module_id, variant, alice, bob)
    module = module_of(c)
    sides = [s.id for s in module.sides]
    players = players_of(c, alice, bob)
    values = {
        f"{f.id}.{s}": (False if f.kind == "bool" else 1)
        for f in module.result_fields
        for s in sides
    }
    players.results(**values)
    players.until("initiative")
    keep_retained_units(players)  # 3.6212*: the Attack chit needs the opponent's units
    return players, module


def matrix_cases():
    from rules.loader import MODULE_DIR, load_file
    from tests.conftest import FIXTURE_MODULES

    cases = []
    for module_id, variant in SEED_MODULES:
        path = FIXTURE_MODULES if module_id.startswith("test-") else MODULE_DIR
        module = load_file(path / f"{module_id.removeprefix('test-')}.yaml")
        for cell in module.initiative.matrix:
            label = "-".join(f"{s}_{c}" for s, c in cell.chits.items())
            cases.append(
                pytest.param(module_id, variant, cell.chits, cell.result, id=f"{module_id}:{label}")
            )
    return cases


@pytest.mark.django_db
@pytest.mark.rules
@pytest.mark.parametrize("module_id,variant,chits,expected", matrix_cases())
def test_every_matrix_cell(modules, make_user, module_id, variant, chits, expected):
    """Rules: 3.621, C5.37."""
    players, module = new_campaign(module_id, variant, (make_user("a"), make_user("b")))
    date_before = players.campaign.date_index
    players.chits(**chits)
    outcome = InitiativeOutcome.objects.get()
    assert outcome.result == expected
    result = next(r for r in module.initiative.results if r.id == expected)
    assert InitiativeChit.objects.filter(revealed_at__isnull=False).count() == 2
    if result.scenario:
        assert players.campaign.date_index == date_before
        assert players.step.kind != "initiative"
        if isinstance(result.sets_up_first, str):
            assert outcome.sets_up_first == result.sets_up_first
    else:
        # Idle/Lull: no scenario; the sequence loops to the next date (the date step
        # itself passes by itself: the server does it).
        from campaign.models import Event
        from rules import machine

        assert players.campaign.date_index == date_before + 1
        target = result.loops_to or module.flow.idle_loop_from
        assert players.campaign.step_index >= machine.step_index(module, target)
        assert Event.objects.filter(kind="idle").exists()
        assert Event.objects.filter(step_id=target, text__contains=f"passes {target}").exists()


@pytest.mark.django_db
def test_dual_attack_rolls_who_sets_up_first(hosted):
    campaign, alice, bob = hosted
    players = Players(campaign, {"red": alice, "blue": bob})
    players.results(**{"cvp_lost.red": 0, "cvp_lost.blue": 0, "san.red": 2, "san.blue": 2})
    players.until("initiative")
    players.chits(red="attack", blue="attack")
    outcome = InitiativeOutcome.objects.get()
    roll = campaign.rolls.get(purpose__startswith="who sets up first")
    assert roll.side == "blue" and roll.dice == "dr"
    assert outcome.sets_up_first == ("blue" if roll.final <= 3 else "red")
    assert "Dual Attack" in outcome.text


@pytest.mark.django_db
def test_chit_is_locked_and_cannot_change(hosted):
    campaign, alice, bob = hosted
    players = Players(campaign, {"red": alice, "blue": bob})
    players.results(**{"cvp_lost.red": 0, "cvp_lost.blue": 0, "san.red": 2, "san.blue": 2})
    players.until("initiative")
    initiative.lock_initiative(campaign_id=campaign.pk, user=alice, chit="idle")
    with pytest.raises(ActionRefused, match="already done"):
        initiative.lock_initiative(campaign_id=campaign.pk, user=alice, chit="attack")
    assert InitiativeChit.objects.get().chit == "idle"


@pytest.mark.django_db
def test_attack_chit_limit_refuses_with_the_rule(hosted):
    """The fixture CG allows Red one Attack chit.  Rules: 3.6211."""
    campaign, alice, bob = hosted
    players = Players(campaign, {"red": alice, "blue": bob})
    players.results(**{"cvp_lost.red": 0, "cvp_lost.blue": 0, "san.red": 2, "san.blue": 2})
    players.until("initiative")
    players.chits(red="attack", blue="idle")
    players.until("results")
    players.results(**{"cvp_lost.red": 0, "cvp_lost.blue": 0, "san.red": 2, "san.blue": 2})
    players.until("initiative")
    before = (Event.objects.count(), InitiativeChit.objects.count())
    with pytest.raises(ActionRefused, match=r"used all 1 Attack chits this CG allows \(T4.0\)"):
        initiative.lock_initiative(campaign_id=campaign.pk, user=alice, chit="attack")
    assert (Event.objects.count(), InitiativeChit.objects.count()) == before


@pytest.mark.django_db
def test_no_attack_against_a_side_without_on_map_units(hosted):
    """Fixture rule T4.0* (like 3.6212*): Red cannot attack when Blue has no on-map units."""
    campaign, alice, bob = hosted
    players = Players(campaign, {"red": alice, "blue": bob})
    players.results(**{"cvp_lost.red": 0, "cvp_lost.blue": 0, "san.red": 2, "san.blue": 2})
    players.until("initiative")
    initiative.declare_on_map_units(campaign_id=campaign.pk, user=bob, has_units=False)
    with pytest.raises(ActionRefused, match=r"Red cannot attack .* \(T4.0\*\)"):
        initiative.lock_initiative(campaign_id=campaign.pk, user=alice, chit="attack")
    initiative.lock_initiative(campaign_id=campaign.pk, user=alice, chit="idle")


@pytest.mark.django_db
def test_opponent_sees_only_has_chosen_before_the_reveal(hosted, login):
    campaign, alice, bob = hosted
    players = Players(campaign, {"red": alice, "blue": bob})
    players.results(**{"cvp_lost.red": 0, "cvp_lost.blue": 0, "san.red": 2, "san.blue": 2})
    players.until("initiative")
    initiative.lock_initiative(campaign_id=campaign.pk, user=alice, chit="idle")
    client = login(bob)
    for path in ("/campaigns/{id}/", "/campaigns/{id}/state.json", "/campaigns/{id}/dice/"):
        body = client.get(path.format(id=campaign.pk)).content.decode()
        assert "chit: Idle" not in body and 'class="chit">Idle' not in body
        assert '"chit": "Idle"' not in body
    page = client.get(f"/campaigns/{campaign.pk}/").content.decode()
    assert "<strong>Red</strong>: has chosen" in page
    # A refused action never hints at the other chit either.
    response = client.post(f"/campaigns/{campaign.pk}/act/chit/", {"chit": "sideways"})
    assert response.status_code == 400
    body = response.content.decode()
    assert "Choose Attack or Idle (" in body and "chit: Idle" not in body


RACE_ROUNDS = 15


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_simultaneous_locks_reveal_exactly_once(modules, make_user):
    """Both sides lock at the same moment, many times over: exactly one reveal each time.
    Rules: 3.6212."""
    users = (make_user("a"), make_user("b"))
    for round_ in range(RACE_ROUNDS):
        players, module = new_campaign("test-skirmish", "short", users)
        barrier = threading.Barrier(2)
        errors = []

        def lock(user, chit, barrier=barrier, campaign_id=players.campaign_id, errors=errors):
            try:
                barrier.wait(timeout=10)
                initiative.lock_initiative(campaign_id=campaign_id, user=user, chit=chit)
            except Exception as exc:  # noqa: BLE001
                errors.append(exc)
            finally:
                connection.close()

        chits = [("attack", "attack"), ("idle", "idle"), ("attack", "idle")][round_ % 3]
        threads = [
            threading.Thread(target=lock, args=(users[0], chits[0])),
            threading.Thread(target=lock, args=(users[1], chits[1])),
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors, errors
        c = Campaign.objects.get(pk=players.campaign_id)
        assert InitiativeOutcome.objects.filter(campaign=c).count() == 1
        assert c.chits.filter(revealed_at__isnull=False).count() == 2
        assert Event.objects.filter(campaign=c, kind="initiative").count() == 1


# ---------------------------------------------------------------- websocket frames


async def _socket(campaign, user):
    from tests.test_websocket import _campaign_socket

    comm, connected, _ = await _campaign_socket(campaign, user)
    assert connected
    await comm.receive_from(timeout=10)  # the state on connect
    return comm


async def _drain(comm, *, expect: str | None = None) -> list[str]:
    """The frames a socket receives for one change: with ``expect``, it first waits (up
    to 10 s: a loaded machine renders slowly) for a frame holding it; then it takes
    what follows until the socket has been quiet for 0.3 s."""
    frames: list[str] = []
    while expect is not None and not any(expect in f for f in frames):
        frames.append(await comm.receive_from(timeout=10))
    while not await comm.receive_nothing(timeout=0.3):
        frames.append(await comm.receive_from(timeout=10))
    return frames


@pytest.mark.django_db(transaction=True)
async def test_frames_never_carry_the_first_chit_and_one_frame_reveals_both(hosted):
    campaign, alice, bob = hosted

    def walk():
        players = Players(campaign, {"red": alice, "blue": bob})
        players.results(**{"cvp_lost.red": 0, "cvp_lost.blue": 0, "san.red": 2, "san.blue": 2})
        players.until("initiative")

    await sync_to_async(walk)()
    alice_ws, bob_ws = await _socket(campaign, alice), await _socket(campaign, bob)
    await _drain(alice_ws), await _drain(bob_ws)
    await sync_to_async(initiative.lock_initiative)(
        campaign_id=campaign.pk, user=alice, chit="idle"
    )
    bob_frames = await _drain(bob_ws, expect="<strong>Red</strong>: has chosen")
    alice_frames = await _drain(alice_ws, expect='class="chit">Idle')
    assert bob_frames and alice_frames
    for frame in bob_frames:
        assert "chit: Idle" not in frame and 'class="chit">Idle' not in frame
    # The step (what a player reads first, in the change's first frame) says so.
    assert "<strong>Red</strong>: has chosen" in bob_frames[0]
    assert any('class="chit">Idle' in f for f in alice_frames)  # her own, to her only
    await sync_to_async(initiative.lock_initiative)(
        campaign_id=campaign.pk, user=bob, chit="attack"
    )
    for comm in (alice_ws, bob_ws):
        frames = await _drain(comm, expect="Initiative revealed")
        reveal = [f for f in frames if "Initiative revealed: Red Idle, Blue Attack" in f]
        assert len(reveal) >= 1
        assert "Blue Attack" in reveal[0] and "Red sets up first" in reveal[0]
    await alice_ws.disconnect()
    await bob_ws.disconnect()
