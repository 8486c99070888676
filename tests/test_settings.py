"""The foundation's settings: real servers in the main run, safe defaults, deploy check."""

import asyncio
import os
import subprocess
import sys

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import connection

from tests.conftest import BASE_DIR


@pytest.mark.postgres
@pytest.mark.django_db
def test_main_run_uses_postgresql():
    assert connection.vendor == "postgresql"
    with connection.cursor() as cursor:
        cursor.execute("SELECT version()")
        assert cursor.fetchone()[0].startswith("PostgreSQL")


@pytest.mark.postgres
@pytest.mark.django_db
def test_postgresql_plans_a_statement_repeated_on_a_connection_once():
    """Parameters are bound by the server and a statement is prepared at its second
    use on a connection: PostgreSQL then plans it once, not at every execution."""
    from campaign.models import Seat

    def prepared() -> list[str]:
        with connection.cursor() as cursor:
            cursor.execute("SELECT statement FROM pg_prepared_statements")
            return [row[0] for row in cursor.fetchall()]

    for _ in range(3):
        list(Seat.objects.filter(side="probe-side"))
    seat_reads = [sql for sql in prepared() if '"campaign_seat"' in sql]
    assert len(seat_reads) == 1 and "$1" in seat_reads[0]


def _settings_printed(values: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The settings a fresh process starts with under ``env``: ``values`` (an
    expression of ``s``, the settings) printed."""
    code = f"import django; django.setup(); from django.conf import settings as s; print({values})"
    return subprocess.run(
        [sys.executable, "-c", code], cwd=BASE_DIR, env=env, capture_output=True, text=True
    )


def _database_options(**env: str) -> subprocess.CompletedProcess[str]:
    return _settings_printed(
        "s.DATABASES['default']['OPTIONS'].get('server_side_binding'), "
        "s.DATABASES['default']['OPTIONS'].get('prepare_threshold')",
        {**os.environ, "DATABASE_URL": "postgres://u:p@127.0.0.1:1/x", **env},
    )


@pytest.mark.fresh_process
def test_prepared_statements_are_on_by_default_and_off_for_a_pooler_that_cannot_keep_them():
    assert _database_options().stdout.split() == ["True", "2"]
    assert _database_options(DB_PREPARE_THRESHOLD="5").stdout.split() == ["True", "5"]
    # Django's own defaults: client-side binding, nothing prepared (PgBouncer in
    # transaction mode).
    assert _database_options(DB_PREPARE_THRESHOLD="off").stdout.split() == ["None", "None"]
    refused = _database_options(DB_PREPARE_THRESHOLD="sometimes")
    assert refused.returncode != 0
    assert "DB_PREPARE_THRESHOLD: a whole number of uses, or off." in refused.stderr


@pytest.mark.redis
def test_main_run_uses_the_redis_channel_layer():
    layer = get_channel_layer()
    from channels_redis.core import RedisChannelLayer

    assert isinstance(layer, RedisChannelLayer)
    channel = async_to_sync(layer.new_channel)()
    async_to_sync(layer.send)(channel, {"type": "probe", "n": 7})
    assert async_to_sync(layer.receive)(channel) == {"type": "probe", "n": 7}


@pytest.mark.redis
def test_a_burst_of_layer_commands_waits_for_a_connection_instead_of_failing():
    """More commands at once than the worker's pool has connections (a few hundred
    sockets joining or beating together): each waits its turn, none is refused with
    "Too many connections" (which lost pushes and backed every socket's receive off
    as if Redis were down)."""
    from campaign.layers import RedisChannelLayer

    host = {**settings.CHANNEL_LAYERS["default"]["CONFIG"]["hosts"][0], "max_connections": 2}
    layer = RedisChannelLayer(hosts=[host], prefix="refit-test-burst")

    async def burst() -> list[dict[str, object]]:
        channels = [await layer.new_channel() for _ in range(3)]
        await asyncio.gather(*(layer.group_add("burst", ch) for ch in channels * 20))
        await asyncio.gather(*(layer.group_send("burst", {"type": "x", "n": n}) for n in range(40)))
        received = [await layer.receive(channels[0]) for _ in range(40)]
        pool = layer._layers[asyncio.get_running_loop()].get_connection(0).connection_pool
        await layer.flush()
        assert pool.max_connections == 2
        return received

    received = async_to_sync(burst)()
    assert sorted(m["n"] for m in received) == list(range(40))


@pytest.mark.fresh_process
def test_embedded_default_is_sqlite_and_in_memory_layer():
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    printed = _settings_printed(
        "s.DATABASES['default']['ENGINE'], s.CHANNEL_LAYERS['default']['BACKEND'], s.DEBUG", env
    )
    assert printed.returncode == 0, printed.stderr
    out = printed.stdout.split()
    assert out == [
        "django.db.backends.sqlite3",
        "channels.layers.InMemoryChannelLayer",
        "False",
    ]


@pytest.mark.fresh_process
def test_production_settings_pass_check_deploy():
    env = {
        **os.environ,
        "SECRET_KEY": "x" * 20 + "a-long-random-production-secret-key-value",
        "DEBUG": "0",
        "REFIT_HTTPS": "1",
        "ALLOWED_HOSTS": "refit.example.org",
        "CSRF_TRUSTED_ORIGINS": "https://refit.example.org",
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.fresh_process
def test_https_without_secret_key_refuses_to_start():
    env = {k: v for k, v in os.environ.items() if k != "SECRET_KEY"}
    env["REFIT_HTTPS"] = "1"
    result = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_htmx_and_its_ws_extension_come_from_django_htmx(client):
    html = client.get("/login/").content.decode()
    assert "django_htmx/htmx-2.min.js" in html or "django_htmx/htmx-2.js" in html
    assert "django_htmx/ext/hx-ws-2" in html
    htmx = settings.MIDDLEWARE.index("django_htmx.middleware.HtmxMiddleware")
    # The input check refuses with htmx's fragment, so it runs after HtmxMiddleware.
    assert htmx < settings.MIDDLEWARE.index("campaign.middleware.PlainInputMiddleware")


@pytest.mark.fresh_process
def test_a_worker_moves_what_it_loaded_at_start_out_of_the_collectors_reach():
    """``config.asgi`` freezes what the start loaded (Django, the apps), so a full
    collection in a busy worker scans only what requests made (``make bench`` prints
    the collector's longest pause)."""
    probe = "import gc, config.asgi; print(gc.get_freeze_count())"
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=BASE_DIR, capture_output=True, text=True, check=True
    )
    assert int(out.stdout) > 10_000, out
