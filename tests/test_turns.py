"""A turn under concurrency: what it knows of the current step's done marks is what
was committed before it got the campaign's lock.  (PostgreSQL, READ COMMITTED: a
statement that waits for a row lock keeps the snapshot it started with, so the
locking read itself cannot say which sides are done.)"""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection, transaction

from campaign.selectors import campaign_seats
from campaign.services.turns import mark_done, take_turn
from campaign.services.waiting import waiting_sides
from tests.walk import host_game, players_of


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_turn_sees_the_mark_committed_while_it_waited_for_the_lock(modules, make_user):
    red, blue = make_user("red_t"), make_user("blue_t")
    players = players_of(host_game("test-skirmish", "short", red, blue), red, blue)
    cid = players.campaign_id
    locked, errors, seen = threading.Event(), [], {}

    def first() -> None:  # Red finishes the step and holds the lock a moment
        try:
            with transaction.atomic():
                mark_done(take_turn(cid, red, None))
                locked.set()
                time.sleep(0.5)
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)
        finally:
            locked.set()
            connection.close()

    def second() -> None:  # Blue acts meanwhile: its turn waits for Red's commit
        try:
            locked.wait(10)
            with transaction.atomic():
                turn = take_turn(cid, blue, None)
                seen["done"], seen["waiting"] = turn.done, waiting_sides(turn)
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert "red" in seen["done"], seen
    assert "red" not in seen["waiting"], seen


@pytest.mark.django_db
def test_a_turns_own_marks_join_the_pass_marks_it_read_without_reading_them_again(
    modules, make_user, django_assert_num_queries
):
    red, blue = make_user("red_m"), make_user("blue_m")
    players = players_of(host_game("test-skirmish", "short", red, blue), red, blue)
    with transaction.atomic():
        turn = take_turn(players.campaign_id, red, None)
        assert turn.done == frozenset()  # read once, after the lock
        later = turn.campaign.step_index + 1
        with django_assert_num_queries(2):  # the two marks' inserts; no read
            mark_done(turn, step_index=later)  # finishing ahead: not this step's
            assert turn.done == frozenset()
            mark_done(turn)
            assert turn.done == {turn.side}
        turn.forget_done()  # what the database says, read again: the same
        assert turn.done == {turn.side}
        with django_assert_num_queries(0):  # the pass's marks were read with them
            turn.campaign.step_index = later
            assert turn.done == {turn.side}  # the mark made ahead
            turn.begin_pass()  # a new pass: nobody has marked any of its steps
            assert turn.done == frozenset()


@pytest.mark.django_db
def test_the_seat_read_says_who_is_done_with_this_campaigns_current_step(modules, make_user):
    red, blue = make_user("red_s"), make_user("blue_s")
    one = players_of(host_game("test-skirmish", "short", red, blue), red, blue)
    two = players_of(host_game("test-skirmish", "short", red, blue), red, blue)
    with transaction.atomic():
        turn = take_turn(one.campaign_id, red, None)
        blue_side = next(side for side in turn.seats if side != turn.side)
        mark_done(turn)  # Red, at this step of campaign one
        mark_done(turn, side=blue_side, step_index=turn.campaign.step_index + 1)  # ahead
    with transaction.atomic():
        other = take_turn(two.campaign_id, blue, None)
        mark_done(other)  # Blue, the same step of campaign two
    seats = campaign_seats(one.campaign_id)
    assert {s.side for s in seats if s.is_done} == {turn.side}
    assert {s.side for s in campaign_seats(two.campaign_id) if s.is_done} == {other.side}
