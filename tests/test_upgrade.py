"""Issue 48: an operator's upgrade loses no campaign.

``tests/fixtures/upgrade/`` holds a database at the oldest migration state Refit still
supports (``pg_dump``), filled through that state's services with campaigns of all
three systems at several steps — secret purchases and rolls, a reveal, supplied data,
messages and the notices they sent — and what ``tests/upgrade.py`` read of them then
(every campaign's backup, row by row, and each seat's state.json).  The test restores
it into a database of its own, runs this tree's migrations over it as an operator
would (``manage.py migrate``), and reads the same again: nothing may be lost or
changed, new fields aside.  ``tests/build_upgrade_fixture.py`` rebuilds the fixture."""

from __future__ import annotations

import gzip
import json
import os
import secrets
import subprocess
import sys

import psycopg
import pytest

from tests.conftest import BASE_DIR, _database_url
from tests.upgrade import losses

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]
FIXTURE = BASE_DIR / "tests" / "fixtures" / "upgrade"


@pytest.fixture
def upgraded_database():
    """A database of its own, restored from the fixture's dump; dropped afterwards."""
    from django.db import connection

    s = connection.settings_dict
    name = f"refit_upgrade_{secrets.token_hex(4)}"
    admin = {"host": s["HOST"], "port": s["PORT"], "user": s["USER"], "password": s["PASSWORD"]}
    with psycopg.connect(dbname="postgres", autocommit=True, **admin) as db:
        db.execute(f'CREATE DATABASE "{name}"')
    try:
        restore = subprocess.run(
            ["psql", "-q", "-v", "ON_ERROR_STOP=1", "-h", s["HOST"], "-p", str(s["PORT"])]
            + ["-U", s["USER"], "-d", name],
            input=gzip.decompress((FIXTURE / "database.sql.gz").read_bytes()),
            env={**os.environ, "PGPASSWORD": s["PASSWORD"]},
            capture_output=True,
        )
        assert restore.returncode == 0, restore.stderr.decode()[-2000:]
        yield _database_url({**s, "NAME": name})
    finally:
        with psycopg.connect(dbname="postgres", autocommit=True, **admin) as db:
            db.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _manage(database_url: str, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if k not in {"REDIS_URL", "DATABASE_URL"}}
    env.update(DATABASE_URL=database_url, ALLOWED_HOSTS="testserver")
    done = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=BASE_DIR, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    return done.stdout


def test_the_migrations_keep_every_campaign_secret_and_roll(upgraded_database):
    expected = json.loads(gzip.decompress((FIXTURE / "expected.json.gz").read_bytes()))
    before = _manage(upgraded_database, "showmigrations", "campaign", "--plan")
    assert f"[X]  campaign.{expected['campaign_migration']}" in before
    _manage(upgraded_database, "migrate", "--noinput", "-v0")
    read = (
        "import json, sys; from tests.upgrade import snapshot_all; "
        "sys.stdout.write(json.dumps(snapshot_all()))"
    )
    after = json.loads(_manage(upgraded_database, "shell", "--no-imports", "-c", read))
    campaigns = expected["campaigns"]
    assert set(after) == set(campaigns)
    assert len(campaigns) >= 4
    found = losses(campaigns, after)
    assert not found, f"{len(found)} values lost or changed:\n" + "\n".join(found[:40])
