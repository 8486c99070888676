"""The foundation's settings: real servers in the main run, safe defaults, deploy check."""

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


@pytest.mark.redis
def test_main_run_uses_the_redis_channel_layer():
    layer = get_channel_layer()
    from channels_redis.core import RedisChannelLayer

    assert isinstance(layer, RedisChannelLayer)
    channel = async_to_sync(layer.new_channel)()
    async_to_sync(layer.send)(channel, {"type": "probe", "n": 7})
    assert async_to_sync(layer.receive)(channel) == {"type": "probe", "n": 7}


def test_embedded_default_is_sqlite_and_in_memory_layer():
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    code = (
        "import django; django.setup(); from django.conf import settings as s; "
        "print(s.DATABASES['default']['ENGINE'], s.CHANNEL_LAYERS['default']['BACKEND'], s.DEBUG)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert out == [
        "django.db.backends.sqlite3",
        "channels.layers.InMemoryChannelLayer",
        "False",
    ]


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


def test_a_worker_moves_what_it_loaded_at_start_out_of_the_collectors_reach():
    """``config.asgi`` freezes what the start loaded (Django, the apps), so a full
    collection in a busy worker scans only what requests made (``make bench`` prints
    the collector's longest pause)."""
    probe = "import gc, config.asgi; print(gc.get_freeze_count())"
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=BASE_DIR, capture_output=True, text=True, check=True
    )
    assert int(out.stdout) > 10_000, out
