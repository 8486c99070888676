"""The check a pooled PostgreSQL connection passes before it is lent (psycopg's pool
``check``, ``DATABASES["default"]["OPTIONS"]["pool"]``).

psycopg's own check (``ConnectionPool.check_connection``, what Django's
``CONN_HEALTH_CHECKS`` installs) sends an empty statement and waits for its answer
at every loan: one round trip to PostgreSQL before every request, and before every
render of a socket's push (each borrows from the pool in its thread), on the path of
a reveal.  A connection that nothing happened to has nothing to read on its socket;
one whose backend ended (PostgreSQL restarted or crashed, the backend terminated) has
its end of stream, or the server's last message, waiting there.  So the socket is
polled, without waiting, and only a connection with something to read, closed here,
or not idle (a transaction left open) gets psycopg's full check, which then fails
for a dead one: the pool drops it and lends another (``tests/test_pool_check.py``).
"""

from __future__ import annotations

import select
from typing import Any

from psycopg.pq import TransactionStatus
from psycopg_pool import ConnectionPool

_INPUT = select.POLLIN | select.POLLPRI | select.POLLERR | select.POLLHUP


def _has_input(conn: Any) -> bool:
    """Whether the connection's socket has something to read (or an error) now."""
    try:
        poll = select.poll()
        poll.register(conn.fileno(), _INPUT)
        return bool(poll.poll(0))
    except (OSError, ValueError):
        return True
    except Exception:  # noqa: BLE001 - psycopg's own error for a closed connection
        return True


def check_connection(conn: Any) -> None:
    """Raise if ``conn`` may not be lent (the pool then discards it)."""
    if conn.closed or conn.info.transaction_status != TransactionStatus.IDLE or _has_input(conn):
        ConnectionPool.check_connection(conn)
