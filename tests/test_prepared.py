"""Reads compiled once (``campaign.prepared``, issue 19): each returns what the same
queryset evaluated by the ORM returns, binds each call's own values (in any thread),
compiles once per process, refuses a call with the wrong values, and the session
store and the user read built on them still sign players in and out."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.db.models import BooleanField, CharField, DateTimeField, F, IntegerField, UUIDField
from django.db.models.expressions import RawSQL
from django.db.models.sql.compiler import SQLCompiler
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from campaign.models import Event, Presence, Purchase, Seat
from campaign.prepared import Param, PreparedRead
from campaign.seat_views.common import event_views, member_seat, visible_purchases
from campaign.selectors import _DONE, DEFERRED, campaign_seats, online_now, pass_marks
from tests.purchase_helpers import campaign_at, roster_of


@pytest.fixture
def users(make_user):
    return make_user("axis_p"), make_user("brit_p")


@pytest.fixture
def bought(modules, users):
    """Sicily at 3.617 on July 14 Night: the Axis has bought I1 and G3 (G3 revealed),
    the British V5."""
    from campaign.services import purchases

    players, module = campaign_at("sicily", "i", "jul14n", users, policy="owner")
    for side, group in (("axis", "I1"), ("axis", "G3"), ("british", "V5")):
        purchases.purchase_rg(
            campaign_id=players.campaign_id, user=players.users[side], group_id=group
        )
    Purchase.objects.filter(side="axis", group_id="G3").update(revealed_at=timezone.now())
    players.module = module
    return players


def _seat_row(s: Seat) -> tuple:
    return (s.pk, s.side, s.user_id, s.points, s.campaign.pk, s.campaign.step_index, s.user.pk)


def test_the_seat_read_returns_what_the_orm_returns(bought):
    """The seats with their campaign, players, done marks and presence, as the ORM
    reads them (the queryset written out here, with literal values)."""
    cid = bought.campaign_id
    Presence.objects.create(
        socket="s1",
        seat=Seat.objects.get(campaign_id=cid, side="axis"),
        expires_at=timezone.now() + timedelta(seconds=30),
    )
    orm = list(
        Seat.objects.filter(campaign_id=cid)
        .select_related("campaign", "user")
        .defer(DEFERRED)
        .order_by("id")
        .annotate(is_done=RawSQL(_DONE, (), BooleanField()), online=online_now())
    )
    prepared = campaign_seats(cid)
    assert [_seat_row(s) for s in prepared] == [_seat_row(s) for s in orm]
    assert [(s.is_done, s.online) for s in prepared] == [(s.is_done, s.online) for s in orm]
    assert [s.online for s in prepared] == [True, False]
    # The campaign's large module data is deferred, as the ORM's read defers it.
    assert "module_data" in prepared[0].campaign.get_deferred_fields()


@pytest.mark.django_db(transaction=True)
def test_the_locking_seat_read_returns_what_the_orm_returns(bought):
    from django.db import transaction

    cid = bought.campaign_id
    with transaction.atomic():
        orm = list(
            Seat.objects.filter(campaign_id=cid)
            .select_related("campaign", "user")
            .defer(DEFERRED)
            .order_by("id")
            .select_for_update(of=("self", "campaign"))
            .annotate(notice_frequency=F("user__notification_settings__frequency"))
        )
        with CaptureQueriesContext(connection) as ctx:
            prepared = campaign_seats(cid, lock=True)
    assert [_seat_row(s) for s in prepared] == [_seat_row(s) for s in orm]
    assert [s.notice_frequency for s in prepared] == [s.notice_frequency for s in orm]
    if connection.features.has_select_for_update_of:
        assert "FOR UPDATE OF" in ctx.captured_queries[-1]["sql"]


def test_the_gated_reads_return_what_the_orm_returns_for_each_seat(bought):
    """Purchases and the log through the visibility gate: each seat's own, and the
    opponent's only as revealed, exactly as the gate's querysets read them."""
    c = bought.campaign
    for side in ("axis", "british"):
        orm = list(
            Purchase.objects.visible_to(side)
            .filter(campaign=c, status=Purchase.Status.ACTIVE)
            .order_by("id")
        )
        assert [p.pk for p in visible_purchases(c, side)] == [p.pk for p in orm]
        shown = list(
            Event.objects.visible_to(side)
            .filter(campaign=c)
            .order_by("-id")
            .values_list("shown", flat=True)[:200]
        )
        assert [e.text for e in event_views(c, side, bought.module)] == shown
    axis = {p.group_id for p in visible_purchases(c, "axis")}
    british = {p.group_id for p in visible_purchases(c, "british")}
    assert axis == {"I1", "G3"}  # the British V5 is secret
    assert british == {"V5", "G3"}  # the Axis G3 is revealed, I1 is not
    roster = roster_of(c, "british")
    assert sorted(line.group_id for line in roster.record) == ["G3", "V5"]


def test_pass_marks_and_the_member_seat_read_as_the_orm(bought):
    c = bought.campaign
    c.refresh_from_db()
    assert pass_marks(c) == {i: frozenset(s) for i, s in _orm_marks(c).items()}
    campaign, seat = member_seat(bought.users["british"], c.pk)
    assert (campaign.pk, seat.side) == (c.pk, "british")


def _orm_marks(c) -> dict[int, set[str]]:
    from campaign.models import StepMark

    marks: dict[int, set[str]] = {}
    for i, s in StepMark.objects.filter(campaign=c, cycle=c.cycle).values_list(
        "step_index", "side"
    ):
        marks.setdefault(i, set()).add(s)
    return marks


SEATS_OF = PreparedRead(
    lambda: Seat.objects.filter(campaign_id=Param("campaign", UUIDField())).order_by("side")
)


@pytest.mark.django_db(transaction=True)
def test_each_call_binds_its_own_values_in_any_thread(modules, make_user):
    """Threads running one read at once each get the rows of their own campaign (the
    compiled SQL is shared; the values and the connection are each call's)."""
    from tests.walk import host_game

    alice, bob = make_user("p_a"), make_user("p_b")
    ids = [host_game("test-skirmish", "short", alice, bob, name=f"c{k}").pk for k in range(4)]
    results: dict[int, list] = {}
    errors: list[BaseException] = []

    def run(k: int) -> None:
        try:
            for _ in range(20):
                rows = SEATS_OF(campaign=ids[k])
                assert {s.campaign_id for s in rows} == {ids[k]}
            results[k] = [s.side for s in rows]
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert all(sides == ["blue", "red"] for sides in results.values()), results


def test_a_read_is_compiled_once_per_process(bought, monkeypatch):
    compiled = []
    real = SQLCompiler.as_sql

    def counting(self, *args, **kwargs):
        compiled.append(self.query.model)
        return real(self, *args, **kwargs)

    read = PreparedRead(
        lambda: Purchase.objects.filter(
            campaign_id=Param("campaign", UUIDField()), side=Param("side", CharField())
        ).order_by("id")
    )
    monkeypatch.setattr(SQLCompiler, "as_sql", counting)
    first = read(campaign=bought.campaign_id, side="axis")
    second = read(campaign=bought.campaign_id, side="british")
    assert compiled == [Purchase]
    assert [p.group_id for p in first] == ["I1", "G3"]
    assert [p.group_id for p in second] == ["V5"]


def test_a_reads_converters_are_described_once_per_connection(bought, monkeypatch):
    """What turns a column's value into Python's (a JSON field's, a timestamp's) is
    described at a read's first call on a connection, not at every call as the ORM
    does (issue 49: a page after a change makes a dozen reads); the values are the
    same, each read's own (another read's converters are never used)."""
    described = []
    real = SQLCompiler.get_converters

    def counting(self, expressions):
        described.append(self.query.model)
        return real(self, expressions)

    read = PreparedRead(
        lambda: Purchase.objects.filter(campaign_id=Param("campaign", UUIDField())).order_by("id")
    )
    events = PreparedRead(
        lambda: Event.objects.filter(campaign_id=Param("campaign", UUIDField())).order_by("id")
    )
    monkeypatch.setattr(SQLCompiler, "get_converters", counting)
    cid = bought.campaign_id
    first, second = read(campaign=cid), read(campaign=cid)
    logged = events(campaign=cid)
    events(campaign=cid)
    assert described == [Purchase, Event]
    orm = list(Purchase.objects.filter(campaign_id=cid).order_by("id"))
    assert [(p.details, p.created_at) for p in second] == [(p.details, p.created_at) for p in orm]
    assert [(p.details, p.created_at) for p in first] == [(p.details, p.created_at) for p in orm]
    assert [(e.data, e.created_at) for e in logged] == [
        (e.data, e.created_at) for e in Event.objects.filter(campaign_id=cid).order_by("id")
    ]


def test_values_are_prepared_by_their_fields(bought):
    """A datetime, an integer and a UUID are prepared for the database as the ORM
    prepares them (SQLite stores text, PostgreSQL its own types)."""
    read = PreparedRead(
        lambda: Event.objects.filter(
            campaign_id=Param("campaign", UUIDField()),
            created_at__lte=Param("until", DateTimeField()),
            id__gte=Param("from_id", IntegerField()),
        ).order_by("id")
    )
    cid = bought.campaign_id
    everything = list(Event.objects.filter(campaign_id=cid).order_by("id"))
    assert read(campaign=cid, until=timezone.now(), from_id=0) == everything
    assert read(campaign=cid, until=timezone.now() - timedelta(days=1), from_id=0) == []
    assert read(campaign=str(cid), until=timezone.now(), from_id=everything[-1].pk) == [
        everything[-1]
    ]


def test_a_call_with_missing_or_unknown_values_is_refused(bought):
    with pytest.raises(TypeError, match="campaign"):
        SEATS_OF()
    with pytest.raises(TypeError, match="side"):
        SEATS_OF(campaign=bought.campaign_id, side="axis")


@pytest.mark.django_db(transaction=True)
def test_the_session_store_signs_in_reads_and_signs_out(make_user):
    """The session engine (its read compiled once) keeps a player signed in across
    requests, forgets a session that has expired, and signs out."""
    from django.contrib.sessions.models import Session

    make_user("s_alice", "pass-word-42")
    client = Client()

    def sign_in() -> None:
        response = client.post("/login/", {"username": "s_alice", "password": "pass-word-42"})
        assert response.status_code == 302, response.content

    sign_in()
    assert client.get("/").wsgi_request.user.username == "s_alice"
    key = client.cookies["sessionid"].value
    Session.objects.filter(session_key=key).update(expire_date=timezone.now() - timedelta(1))
    assert client.get("/").wsgi_request.user.is_anonymous
    sign_in()
    assert client.get("/").wsgi_request.user.username == "s_alice"
    client.post("/logout/")
    assert client.get("/").wsgi_request.user.is_anonymous


def test_the_user_read_signs_in_as_djangos_and_keeps_older_sessions(make_user):
    """Signing in names the backend whose user read is compiled once; a player signed
    in before it (his session names Django's own backend) stays signed in; a player
    made inactive or deleted is signed out, as Django's backend does."""
    from django.contrib.auth import BACKEND_SESSION_KEY
    from django.contrib.auth.models import User
    from django.contrib.sessions.backends.db import SessionStore

    user = make_user("u_alice", "pass-word-42")
    client = Client()
    response = client.post("/login/", {"username": "u_alice", "password": "pass-word-42"})
    assert response.status_code == 302, response.content
    session = SessionStore(client.cookies["sessionid"].value)
    assert session[BACKEND_SESSION_KEY] == "campaign.auth.ModelBackend"
    with CaptureQueriesContext(connection) as ctx:
        assert client.get("/campaigns/").wsgi_request.user.username == "u_alice"
    assert sum('FROM "auth_user"' in q["sql"] for q in ctx.captured_queries) == 1

    older = Client()
    older.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    assert older.get("/campaigns/").wsgi_request.user.username == "u_alice"

    User.objects.filter(pk=user.pk).update(is_active=False)
    assert client.get("/campaigns/").wsgi_request.user.is_anonymous
    User.objects.filter(pk=user.pk).update(is_active=True)
    assert client.get("/campaigns/").wsgi_request.user.username == "u_alice"
    User.objects.filter(pk=user.pk).delete()
    assert client.get("/campaigns/").wsgi_request.user.is_anonymous


@pytest.mark.django_db(transaction=True)
def test_a_locking_read_outside_a_transaction_is_refused_as_the_orm_refuses_it(bought):
    """A compiled locking read is refused in autocommit, where its lock would be
    released at once, as the ORM refuses the same queryset."""
    from django.db import transaction
    from django.db.transaction import TransactionManagementError

    cid = bought.campaign_id
    with transaction.atomic():
        assert len(campaign_seats(cid, lock=True)) == 2  # compiled here, in a transaction
    if not connection.features.has_select_for_update:  # SQLite: no row locks, no refusal
        list(Seat.objects.select_for_update().filter(campaign_id=cid))
        assert len(campaign_seats(cid, lock=True)) == 2
        return
    with pytest.raises(TransactionManagementError):
        list(Seat.objects.select_for_update().filter(campaign_id=cid))
    with pytest.raises(TransactionManagementError):
        campaign_seats(cid, lock=True)


def test_compiling_at_every_call_reads_the_same(bought, monkeypatch):
    """The benchmark's comparison (``compile_once`` off: built and compiled at every
    call, as the ORM does) reads what the compiled read reads."""
    c = bought.campaign
    once = ([_seat_row(s) for s in campaign_seats(c.pk)], visible_purchases(c, "british"))
    monkeypatch.setattr(PreparedRead, "compile_once", False)
    again = ([_seat_row(s) for s in campaign_seats(c.pk)], visible_purchases(c, "british"))
    assert once == again
