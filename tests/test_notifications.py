"""Issue 20: "your move" notices.  A notice is due exactly once per transition of a
seat from "not waited for" to "waited for" (not on every push), reaches the right
player with a link straight to the step, follows the player's settings, and a mail
server that fails never fails the action: the notice is retried."""

from __future__ import annotations

import logging
from collections import Counter
from datetime import timedelta

import pytest
from django.core import mail
from django.core.mail.backends.base import BaseEmailBackend
from django.core.management import call_command
from django.utils import timezone

from campaign.models import Notification, NotificationSettings, Purchase, Seat
from campaign.selectors import done_sides, module_of, sides_awaited
from campaign.services import initiative, notifications, purchases, steps, units
from campaign.services.notifications import deliver_due
from tests.purchase_helpers import keep_retained_units
from tests.walk import Players, host_game, players_of

pytestmark = pytest.mark.django_db

BASE = "https://refit.example.org"


class BrokenBackend(BaseEmailBackend):
    """A mail server that is down."""

    def send_messages(self, email_messages):
        raise ConnectionRefusedError("the SMTP server refused the connection")


@pytest.fixture
def base_url(settings):
    settings.REFIT_BASE_URL = BASE


@pytest.fixture
def players(modules, make_user, base_url):
    """Skirmish: alice plays Red (hosts), bob Blue; both gave an e-mail address."""
    alice, bob = make_user("alice"), make_user("bob")
    for user in (alice, bob):
        user.email = f"{user.username}@example.org"
        user.save()
    c = host_game("test-skirmish", "short", alice, bob, name="Bridge at dawn")
    Notification.objects.all().delete()  # "bob joined", told to alice: not these tests'
    mail.outbox.clear()
    return Players(c, {"red": alice, "blue": bob})


def waiting(players) -> set[str]:
    """Whom the campaign waits for, from the engine (not from the stored state)."""
    c = players.campaign
    if c.ended_at:
        return set()
    return set(sides_awaited(c, module_of(c), players.step, done_sides(c)))


def stored_waiting(players) -> set[str]:
    return set(
        Seat.objects.filter(
            campaign_id=players.campaign_id, waiting_since__isnull=False
        ).values_list("side", flat=True)
    )


class Walk:
    """Acts as the players would, after commit (the on-commit callbacks run, as in a
    request), counting the your-move transitions the engine says each action makes."""

    def __init__(self, players, capture):
        self.players = players
        self.capture = capture
        self.transitions: Counter[str] = Counter()

    def act(self, side, fn, **kwargs):
        before = waiting(self.players)
        with self.capture(execute=True):
            fn(campaign_id=self.players.campaign_id, user=self.players.users[side], **kwargs)
        after = waiting(self.players)
        for s in after - before - {side}:
            self.transitions[s] += 1
        assert stored_waiting(self.players) == after, "waiting_since agrees with the engine"

    def finish_all(self):
        start = (self.players.campaign.cycle, self.players.campaign.step_index)
        while (self.players.campaign.cycle, self.players.campaign.step_index) == start:
            side = sorted(waiting(self.players))[0]
            self.act(side, steps.finish_step)


def your_move_rows(user):
    return Notification.objects.filter(user=user, kind=Notification.Kind.YOUR_MOVE)


def test_a_your_move_notice_is_sent_once_per_transition_to_the_right_player_with_the_link(
    players, django_capture_on_commit_callbacks
):
    walk = Walk(players, django_capture_on_commit_callbacks)
    red, blue = players.users["red"], players.users["blue"]
    cid = players.campaign_id
    values = {"cvp_lost.red": 0, "cvp_lost.blue": 0, "san.red": 2, "san.blue": 3}
    # T3.0: both were waited for since the scenario began; Red enters the result and
    # Blue is to confirm it: no transition, Blue hears the campaign waits only for it.
    walk.act("red", steps.enter_scenario_result, values=values)
    assert walk.transitions == {}
    assert Notification.objects.get().kind == Notification.Kind.ONLY_YOU
    walk.act("blue", steps.confirm_scenario_result)
    assert walk.transitions == {"red": 1}  # T3.1: Red had done T3.0; now it is its move
    walk.finish_all()  # T3.1 Rally
    assert players.step.id == "T3.2"
    # A roll is pushed to both pages but changes nobody's turn: no notice.
    leader = units.add_unit(
        campaign_id=cid, user=players.users["red"], name="8-1", kind="leader", markers=["wounded"]
    )
    rows = Notification.objects.count()
    walk.act("red", steps.roll_on_table, table_id="wounded", unit_id=leader.ref)
    assert Notification.objects.count() == rows
    while players.step.id != "T3.6":
        walk.finish_all()
    # A secret purchase is pushed too, and changes nobody's turn: no notice.
    rows = Notification.objects.count()
    Seat.objects.filter(campaign_id=cid).update(points=40)
    walk.act("blue", purchases.purchase_rg, group_id="I1")
    assert Notification.objects.count() == rows
    while players.step.kind != "initiative":
        walk.finish_all()
    walk.act("red", initiative.lock_initiative, chit="attack")
    walk.act("blue", initiative.lock_initiative, chit="idle")
    # T4.1 Set Up is in order (Blue, then Red): Red's move comes when Blue is done.
    while not players.campaign.in_play or players.step.id != "T3.0":
        walk.finish_all()

    for side, user in (("red", red), ("blue", blue)):
        assert your_move_rows(user).count() == walk.transitions[side], side
    assert sum(walk.transitions.values()) >= 4
    # Every notice went out once, to its player's address, with the link to the step.
    sent = Notification.objects.filter(status=Notification.Status.SENT)
    assert sent.count() == Notification.objects.count() == len(mail.outbox)
    link = f"{BASE}/campaigns/{cid}/#campaign-step"
    for row in Notification.objects.select_related("user"):
        message = next(
            m for m in mail.outbox if m.subject == row.subject and row.user.email in m.to
        )
        assert message.to == [row.user.email]
        assert link in message.body and row.link == link
        assert f"{BASE}/settings/" in message.body
    for user in (red, blue):
        moves = [m for m in mail.outbox if m.to == [user.email] and "Your move" in m.subject]
        assert len(moves) == your_move_rows(user).count()


def test_your_move_text_names_the_step_and_the_side(players, django_capture_on_commit_callbacks):
    walk = Walk(players, django_capture_on_commit_callbacks)
    values = {"cvp_lost.red": 1, "cvp_lost.blue": 2, "san.red": 2, "san.blue": 3}
    walk.act("red", steps.enter_scenario_result, values=values)
    (entered,) = mail.outbox
    assert entered.to == ["bob@example.org"]
    assert entered.subject == "Bridge at dawn waits for you: T3.0 Scenario Results"
    assert "Red entered the scenario result: CVP lost Red 1" in entered.body  # the log line
    walk.act("blue", steps.confirm_scenario_result)
    move = mail.outbox[1]
    assert move.to == ["alice@example.org"]
    assert move.subject == "Your move in Bridge at dawn: T3.1 Rally"
    assert "Your move: the campaign waits for you (Red) at T3.1 Rally." in move.body
    assert "Bridge at dawn — Test Skirmish CG, Day 1 AM." in move.body


def test_the_opponent_done_first_tells_the_other_it_waits_only_for_them(
    players, django_capture_on_commit_callbacks
):
    walk = Walk(players, django_capture_on_commit_callbacks)
    players.results(**{"cvp_lost.red": 0, "cvp_lost.blue": 0, "san.red": 2, "san.blue": 2})
    mail.outbox.clear()
    assert players.step.id == "T3.1" and waiting(players) == {"red", "blue"}
    walk.act("red", steps.finish_step)
    (message,) = mail.outbox
    assert message.to == ["bob@example.org"]
    assert "Red is done with T3.1 Rally; the campaign waits only for you (Blue)." in message.body
    walk.act("blue", steps.finish_step)  # the acting player is told nothing ...
    assert [m.to for m in mail.outbox] == [["bob@example.org"], ["alice@example.org"]]
    assert mail.outbox[1].subject == "Your move in Bridge at dawn: T3.2 Wounded Leaders"


def test_e_mail_off_or_no_address_sends_nothing(players, django_capture_on_commit_callbacks):
    red, blue = players.users["red"], players.users["blue"]
    notifications.change_notification_settings(user=blue, email="bob@example.org", frequency="off")
    Walk(players, django_capture_on_commit_callbacks).act(
        "red",
        steps.enter_scenario_result,
        values={"cvp_lost.red": 0, "cvp_lost.blue": 0, "san.red": 2, "san.blue": 2},
    )
    assert mail.outbox == []
    assert Notification.objects.get(user=blue).status == Notification.Status.SKIPPED
    red.email = ""
    red.save()
    Walk(players, django_capture_on_commit_callbacks).act("blue", steps.confirm_scenario_result)
    assert mail.outbox == []
    assert not Notification.objects.filter(user=red, status=Notification.Status.PENDING).exists()


def test_at_most_one_e_mail_per_hour_the_rest_in_one_summary(players):
    """(Deliveries are run by hand here, at chosen times.)"""
    red, blue = players.users["red"], players.users["blue"]
    cid = players.campaign_id
    notifications.change_notification_settings(
        user=blue, email="bob@example.org", frequency="hourly"
    )
    t0 = timezone.now() + timedelta(seconds=1)
    values = {"cvp_lost.red": 0, "cvp_lost.blue": 0, "san.red": 2, "san.blue": 2}
    steps.enter_scenario_result(campaign_id=cid, user=red, values=values)
    assert deliver_due(now=t0).emails == 1
    assert [m.to for m in mail.outbox] == [["bob@example.org"]]
    steps.confirm_scenario_result(campaign_id=cid, user=blue)  # Red's move (T3.1)
    steps.finish_step(campaign_id=cid, user=red)  # Blue: the campaign waits only for you
    ob = Purchase.objects.get(campaign_id=cid, side="red", initial=True)
    purchases.reveal_purchase(campaign_id=cid, user=red, purchase_id=ob.ref)  # news for Blue
    report = deliver_due(now=t0 + timedelta(minutes=20))
    assert report.held == 2  # (Red's notice is obsolete: Red has acted since)
    assert len([m for m in mail.outbox if m.to == ["bob@example.org"]]) == 1
    held = Notification.objects.filter(user=blue, status=Notification.Status.PENDING)
    assert {n.next_attempt_at for n in held} == {t0 + timedelta(hours=1)}
    assert deliver_due(now=t0 + timedelta(minutes=59)).emails == 0
    report = deliver_due(now=t0 + timedelta(minutes=61))
    assert report.emails == 1 and report.sent == 2
    summary = mail.outbox[-1]
    assert summary.to == ["bob@example.org"]
    assert summary.subject == "Refit: 2 notices — Bridge at dawn waits for you: T3.1 Rally"
    assert "Red is done with T3.1 Rally" in summary.body
    assert "Red reveals I1 Rifle Coy" in summary.body


def test_the_hourly_summary_leaves_out_a_move_already_made(players):
    red, blue = players.users["red"], players.users["blue"]
    cid = players.campaign_id
    notifications.change_notification_settings(
        user=blue, email="bob@example.org", frequency="hourly"
    )
    t0 = timezone.now() + timedelta(seconds=1)
    values = {"cvp_lost.red": 0, "cvp_lost.blue": 0, "san.red": 2, "san.blue": 2}
    steps.enter_scenario_result(campaign_id=cid, user=red, values=values)
    deliver_due(now=t0)  # Blue's first e-mail of the hour
    steps.confirm_scenario_result(campaign_id=cid, user=blue)
    steps.finish_step(campaign_id=cid, user=red)  # Blue: the campaign waits only for you
    assert deliver_due(now=t0 + timedelta(minutes=10)).held == 1
    steps.finish_step(campaign_id=cid, user=blue)  # Blue acts before the hour is up
    report = deliver_due(now=t0 + timedelta(minutes=61))
    assert report.obsolete == 1
    assert len([m for m in mail.outbox if m.to == ["bob@example.org"]]) == 1


def test_a_failing_mail_server_fails_no_action_and_the_notice_is_retried(
    players, client, settings, caplog
):
    """Over HTTP, as a player acts: the on-commit delivery fails, the action stands."""
    settings.EMAIL_BACKEND = "tests.test_notifications.BrokenBackend"
    red = players.users["red"]
    client.force_login(red)
    cid = players.campaign_id
    at = f"{players.campaign.cycle}.{players.campaign.step_index}"
    form = {"cvp_lost.red": "0", "cvp_lost.blue": "0", "san.red": "2", "san.blue": "2", "at": at}
    with caplog.at_level(logging.WARNING, logger="campaign.services.notifications"):
        response = client.post(f"/campaigns/{cid}/act/result/", form)
    assert response.status_code == 302  # the action is done
    assert players.waiting() == ["blue"]
    row = Notification.objects.get(user=players.users["blue"])
    # pytest-django runs each test in a transaction: deliver as the commit would have.
    with caplog.at_level(logging.WARNING, logger="campaign.services.notifications"):
        notifications.deliver_soon()
    row.refresh_from_db()
    assert row.status == Notification.Status.PENDING and row.attempts == 1
    assert "ConnectionRefusedError" in row.last_error and row.next_attempt_at > timezone.now()
    assert "failed (attempt 1 of 6)" in caplog.text
    # Not due yet: the next run leaves it; once due, a working server gets it, once.
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    call_command("sendnotifications")
    assert mail.outbox == []
    report = deliver_due(now=timezone.now() + timedelta(minutes=2))
    assert report.sent == 1 and len(mail.outbox) == 1
    assert mail.outbox[0].to == ["bob@example.org"]
    row.refresh_from_db()
    assert row.status == Notification.Status.SENT and row.attempts == 2
    assert deliver_due(now=timezone.now() + timedelta(hours=5)).sent == 0


def test_a_failing_mail_server_inside_a_real_commit(players, settings, transactional_db):
    """The same with a real commit: the on-commit callback itself must not raise."""
    settings.EMAIL_BACKEND = "tests.test_notifications.BrokenBackend"
    steps.enter_scenario_result(
        campaign_id=players.campaign_id,
        user=players.users["red"],
        values={"cvp_lost.red": 0, "cvp_lost.blue": 0, "san.red": 2, "san.blue": 2},
    )
    row = Notification.objects.get(user=players.users["blue"])
    assert row.attempts == 1 and row.status == Notification.Status.PENDING


def test_a_notice_is_given_up_after_repeated_failures(players, settings):
    settings.EMAIL_BACKEND = "tests.test_notifications.BrokenBackend"
    steps.enter_scenario_result(
        campaign_id=players.campaign_id,
        user=players.users["red"],
        values={"cvp_lost.red": 0, "cvp_lost.blue": 0, "san.red": 2, "san.blue": 2},
    )
    now = timezone.now()
    for _ in range(notifications.MAX_ATTEMPTS):
        now += timedelta(hours=4)
        deliver_due(now=now)
    row = Notification.objects.get(user=players.users["blue"])
    assert row.status == Notification.Status.FAILED
    assert row.attempts == notifications.MAX_ATTEMPTS


def test_two_senders_never_send_the_same_notice_twice(players):
    steps.enter_scenario_result(
        campaign_id=players.campaign_id,
        user=players.users["red"],
        values={"cvp_lost.red": 0, "cvp_lost.blue": 0, "san.red": 2, "san.blue": 2},
    )
    row = Notification.objects.get(user=players.users["blue"])
    # Another process claimed it a moment ago: this run leaves it alone.
    Notification.objects.filter(pk=row.pk).update(
        status=Notification.Status.SENDING, claim="x", claimed_at=timezone.now()
    )
    assert deliver_due().sent == 0 and mail.outbox == []
    # That process died mid-send: after ten minutes the claim lapses and it is sent.
    assert deliver_due(now=timezone.now() + timedelta(minutes=11)).sent == 1


def test_the_host_hears_that_the_guest_joined(modules, make_user, base_url):
    from campaign.services import hosting

    alice, bob = make_user("alice"), make_user("bob")
    alice.email = "alice@example.org"
    alice.save()
    c = hosting.create_campaign(
        host=alice,
        module_id="test-skirmish",
        variant_id="short",
        side="red",
        name="Bridge at dawn",
        reveal_policy="step_end",
    )
    assert set(
        Seat.objects.filter(campaign=c, waiting_since__isnull=False).values_list("side", flat=True)
    ) == {"red", "blue"}
    hosting.join_campaign(token=c.invitations.get().token, user=bob)
    (row,) = Notification.objects.filter(user=alice)
    assert row.kind == Notification.Kind.NEWS and "bob joins as Blue" in row.body


def test_settings_page_saves_an_address_and_refuses_a_bad_one(make_user, client):
    user = make_user("carol")
    client.force_login(user)
    page = client.get("/settings/").content.decode()
    assert "data-notify-optin" in page and 'value="immediately"' in page
    bad = client.post("/settings/", {"email": "not-an-address", "frequency": "hourly"})
    assert bad.status_code == 400 and "valid email" in bad.content.decode()
    assert not NotificationSettings.objects.filter(user=user).exists()
    ok = client.post("/settings/", {"email": " carol@example.org ", "frequency": "hourly"})
    assert ok.status_code == 302
    user.refresh_from_db()
    assert user.email == "carol@example.org"
    assert NotificationSettings.objects.get(user=user).frequency == "hourly"
    assert client.post("/settings/", {"email": "", "frequency": "sometimes"}).status_code == 400
    client.logout()
    assert client.get("/settings/").status_code == 302


def test_dashboard_and_title_say_whose_move_and_since_when(players, client):
    red = players.users["red"]
    client.force_login(red)
    html = client.get("/campaigns/").content.decode()
    assert "<title>My campaigns · Refit</title>" in html  # the scenario is on the map
    assert "ago</time>" in html
    page = client.get(f"/campaigns/{players.campaign_id}/").content.decode()
    # The scenario is being played on the map: the page says so, and it is nobody's
    # move in Refit until its result is entered.
    assert "<title>Bridge at dawn · Refit</title>" in page and 'data-your-move="0"' in page
    assert "the scenario, played on the map" in page
    steps.enter_scenario_result(
        campaign_id=players.campaign_id,
        user=players.users["blue"],
        values={"cvp_lost.red": 0, "cvp_lost.blue": 0, "san.red": 2, "san.blue": 2},
    )
    page = client.get(f"/campaigns/{players.campaign_id}/").content.decode()
    assert "<title>(1) Your move — Bridge at dawn · Refit</title>" in page  # to confirm
    assert 'data-your-move="1"' in page
    html = client.get("/campaigns/").content.decode()
    assert "<title>(1) My campaigns · Refit</title>" in html and "ago</time>" in html


def test_the_migration_records_whom_a_campaign_under_way_waits_for(players):
    """Seats of campaigns made before issue 20 get ``waiting_since`` from the data
    migration, so the first action after the upgrade is no false transition."""
    import importlib

    from django.apps import apps

    migration = importlib.import_module("campaign.migrations.0008_notifications")
    Seat.objects.filter(campaign_id=players.campaign_id).update(waiting_since=None)
    migration.waiting_now(apps, None)
    assert stored_waiting(players) == waiting(players) == {"red", "blue"}


def _one_date(players, on_each=lambda: None):
    """Play from the scenario result to the next scenario in play: the waiting
    sides act one at a time (Attack chits at initiative)."""
    module = module_of(players.campaign)
    values = {
        f"{f.id}.{s.id}": (False if f.kind == "bool" else 0)
        for f in module.result_fields
        for s in module.sides
    }
    first = sorted(waiting(players))[0]
    steps.enter_scenario_result(
        campaign_id=players.campaign_id, user=players.users[first], values=values
    )
    on_each()
    other = sorted(waiting(players))[0]
    steps.confirm_scenario_result(campaign_id=players.campaign_id, user=players.users[other])
    on_each()
    cycle = players.campaign.cycle
    keep_retained_units(players)  # Sicily 3.6212 footnote *: an Attack needs units opposite
    for _ in range(200):
        c = players.campaign
        if c.ended_at or (c.in_play and c.cycle > cycle):
            return
        side = sorted(waiting(players))[0]
        if players.step.kind == "initiative":
            initiative.lock_initiative(
                campaign_id=players.campaign_id, user=players.users[side], chit="attack"
            )
        else:  # Done, after the rolls the rules make compulsory (PHD C5.23's DR)
            players.finish_side(side)
        on_each()
    raise AssertionError("the date did not end")


@pytest.mark.parametrize(
    "module_id,variant,side",
    [
        ("sicily", "i", "axis"),
        ("purple-heart-draw", "tm", "us"),
        ("pleasant-diversion", "cg", "american"),
    ],
)
def test_waiting_since_follows_the_engine_through_a_whole_date(
    module_id, variant, side, modules, make_user
):
    """Through the start and one whole date of each system, after every action, the
    seats the campaign stores as waited for are those the engine says it waits for."""
    alice, bob = make_user("host"), make_user("guest")
    c = host_game(module_id, variant, alice, bob, side=side)
    players = players_of(c, alice, bob)

    def agrees():
        assert stored_waiting(players) == waiting(players), players.step.id

    agrees()
    _one_date(players, agrees)
    assert players.campaign.in_play


def test_players_at_their_pages_get_no_e_mail_about_a_move_already_made(players, settings):
    """A notice waits REFIT_NOTIFY_DELAY before it goes out: playing live, each acts
    before it is due, and the notice is dropped; the one not acted on goes out."""
    settings.REFIT_NOTIFY_DELAY = 120
    red, blue = players.users["red"], players.users["blue"]
    cid = players.campaign_id
    values = {"cvp_lost.red": 0, "cvp_lost.blue": 0, "san.red": 2, "san.blue": 2}
    steps.enter_scenario_result(campaign_id=cid, user=red, values=values)  # for Blue
    assert deliver_due().sent == 0  # not yet due
    steps.confirm_scenario_result(campaign_id=cid, user=blue)  # Blue acts: Red's move
    report = deliver_due(now=timezone.now() + timedelta(minutes=3))
    assert report.obsolete == 1 and report.sent == 1
    assert [m.to for m in mail.outbox] == [["alice@example.org"]]


def test_told_it_is_your_move_you_are_not_told_again_that_it_waits_only_for_you(players):
    red, blue = players.users["red"], players.users["blue"]
    cid = players.campaign_id
    values = {"cvp_lost.red": 0, "cvp_lost.blue": 0, "san.red": 2, "san.blue": 2}
    steps.enter_scenario_result(campaign_id=cid, user=red, values=values)
    steps.confirm_scenario_result(campaign_id=cid, user=blue)  # T3.1: Red's move (told)
    assert your_move_rows(red).count() == 1
    steps.finish_step(campaign_id=cid, user=blue)  # Blue done first: Red still to act
    assert Notification.objects.filter(user=red).count() == 1


@pytest.fixture
def no_timer():
    """No delivery timer from an earlier test; none left running after this one."""

    def cancel() -> None:
        if notifications._timer is not None:
            notifications._timer.cancel()
        notifications._timer = notifications._timer_at = None

    cancel()
    yield
    cancel()


def test_a_notice_in_its_grace_period_starts_no_thread_its_timer_sends_it(
    players, settings, no_timer, django_capture_on_commit_callbacks
):
    """In a running server (a thread delivers): an action whose notice must wait out
    REFIT_NOTIFY_DELAY only sets the timer for when it falls due — no delivery thread,
    no query after its commit."""
    settings.REFIT_NOTIFY_DELIVERY = "thread"
    settings.REFIT_NOTIFY_DELAY = 120
    notifications._looked_since_start.set()  # this process has looked since its start
    red, blue = players.users["red"], players.users["blue"]
    values = {"cvp_lost.red": 0, "cvp_lost.blue": 0, "san.red": 2, "san.blue": 2}
    with django_capture_on_commit_callbacks(execute=True):
        steps.enter_scenario_result(campaign_id=players.campaign_id, user=red, values=values)
    row = Notification.objects.get(user=blue)
    assert row.status == Notification.Status.PENDING
    assert not notifications._running.locked()  # no delivery thread
    assert notifications._timer is not None and notifications._timer.is_alive()
    assert notifications._timer_at == row.next_attempt_at
