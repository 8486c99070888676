"""The pooled connection's check before a request or a socket's render borrows it
(``config.pool.check_connection``): no round trip to PostgreSQL for a connection
whose socket has nothing to say, the full check (an empty statement) for one the
server closed, one left in a transaction or one closed here, so a connection
PostgreSQL dropped (a restart) is still found before use and replaced."""

from __future__ import annotations

import select

import psycopg
import pytest
from django.db import connection

from config.pool import check_connection

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]


def _connect() -> psycopg.Connection:
    params = connection.get_connection_params()
    params["autocommit"] = True
    return psycopg.connect(**params)


class Statements:
    """Counts what a connection sends to the server (psycopg's ``execute``)."""

    def __init__(self, conn: psycopg.Connection, monkeypatch: pytest.MonkeyPatch) -> None:
        self.sent: list[object] = []
        real = conn.execute

        def execute(query: object, *args: object, **kwargs: object) -> object:
            self.sent.append(query)
            return real(query, *args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(conn, "execute", execute)


def test_an_idle_healthy_connection_is_lent_without_a_round_trip(monkeypatch):
    with _connect() as conn:
        conn.execute("SELECT 1").fetchall()
        statements = Statements(conn, monkeypatch)
        check_connection(conn)
        assert statements.sent == []


def test_a_connection_the_server_ended_fails_the_check(monkeypatch):
    """What PostgreSQL's restart does to a pooled connection: its backend ends and
    closes the socket, which is then readable; the check runs the empty statement,
    which fails, and the pool lends another connection."""
    with _connect() as conn, _connect() as other:
        pid = conn.info.backend_pid
        other.execute("SELECT pg_terminate_backend(%s)", [pid])
        # The backend's exit is asynchronous: it leaves pg_stat_activity before its
        # process has closed the socket, so wait (up to 10 s) for the socket itself to
        # become readable, as it long is when a restart precedes the loan.
        poll = select.poll()
        poll.register(conn.fileno(), select.POLLIN | select.POLLHUP | select.POLLERR)
        assert poll.poll(10_000), "the terminated backend never closed its socket"
        with pytest.raises(psycopg.OperationalError):
            check_connection(conn)


def test_a_connection_in_a_transaction_gets_the_full_check(monkeypatch):
    with _connect() as conn:
        conn.autocommit = False
        conn.execute("SELECT 1").fetchall()  # a transaction left open
        statements = Statements(conn, monkeypatch)
        with pytest.raises(psycopg.ProgrammingError):
            # psycopg refuses to switch autocommit inside a transaction: not lent.
            check_connection(conn)
        assert statements.sent == []
        conn.rollback()


def test_a_closed_connection_fails_the_check():
    conn = _connect()
    conn.close()
    with pytest.raises(psycopg.OperationalError):
        check_connection(conn)


def test_the_pooled_backend_lends_through_the_poll():
    """What ``DB_POOL_MAX`` configures (``config.postgresql``): the pool Django builds
    checks with the poll, not with psycopg's round trip."""
    from config.postgresql.base import DatabaseWrapper

    options = {**connection.settings_dict["OPTIONS"], "pool": {"min_size": 1, "max_size": 1}}
    settings = {
        **connection.settings_dict,
        "CONN_MAX_AGE": 0,
        "CONN_HEALTH_CHECKS": True,
        "OPTIONS": options,
    }
    wrapper = DatabaseWrapper(settings, alias="pool-check")
    try:
        assert wrapper.pool._check is check_connection
        with wrapper.cursor() as cursor:
            cursor.execute("SELECT 1")
            assert cursor.fetchall() == [(1,)]
    finally:
        wrapper.close()
        wrapper.close_pool()
