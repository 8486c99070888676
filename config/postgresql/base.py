"""Django's PostgreSQL backend whose pool checks a connection before lending it by
polling its socket (``config.pool.check_connection``) rather than by a round trip.

Django builds the psycopg pool itself and gives it psycopg's own check when
``CONN_HEALTH_CHECKS`` is on (its ``check`` argument cannot be set through the pool's
options): the pool, once built, is given this check instead."""

from __future__ import annotations

from typing import Any

from django.db.backends.postgresql import base
from psycopg_pool import ConnectionPool

from config.pool import check_connection


class DatabaseWrapper(base.DatabaseWrapper):
    @property
    def pool(self) -> Any:
        pool = super().pool
        if pool is not None and pool._check is ConnectionPool.check_connection:
            pool._check = check_connection
        return pool
