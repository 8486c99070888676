"""Shared fixtures.

The suite runs twice under ``make test``: on PostgreSQL + Redis (REFIT_TEST_BACKEND=real)
and on the embedded default (SQLite + in-memory layer).  Tests marked ``postgres`` or
``redis`` need the real servers: they are skipped when those are not configured, and
in the real run a missing server is an error, never a skip.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

import pytest

from tests.servers import AsgiWorker

BASE_DIR = Path(__file__).resolve().parent.parent
ARTIFACTS = BASE_DIR / "var" / "artifacts"  # screenshots and worker logs (CI keeps var/)


def _on_postgres() -> bool:
    return os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://"))


def _on_redis() -> bool:
    return bool(os.environ.get("REDIS_URL"))


def examples(on_the_real_servers: int) -> int:
    """How many examples a Hypothesis trial of bad input tries: all of them on
    PostgreSQL + Redis, a third (at least 4) on the embedded run.  The random bodies
    drive the same forms, services and refusals on either backend; what SQLite could
    change (a value it stores that PostgreSQL refuses, a NUL byte, an oversized text)
    is among the values every example draws from, and the scripted cases of the same
    files run there in full."""
    if _on_postgres():
        return on_the_real_servers
    return max(4, on_the_real_servers // 3)


@pytest.fixture(scope="session", autouse=True)
def _flush_by_delete():
    """On PostgreSQL, a transactional test's teardown empties the tables with DELETE
    rather than TRUNCATE, which makes each table's files anew (~190 ms a test with
    fsync off; the DELETEs take a few).  Django's foreign keys are DEFERRABLE INITIALLY
    DEFERRED there and the flush runs in one transaction, so any order works.  A flush
    that resets sequences still truncates."""
    if not _on_postgres():
        yield
        return
    from django.db.backends.postgresql.operations import DatabaseOperations

    truncate = DatabaseOperations.sql_flush

    def sql_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):
        if reset_sequences or not tables:
            return truncate(
                self, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade
            )
        return [f"DELETE FROM {self.quote_name(table)};" for table in tables]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(DatabaseOperations, "sql_flush", sql_flush)
        yield


def _migrations_digest() -> str:
    """A digest of what a migrated database is made from: Django's version and every
    installed app's migration files."""
    import hashlib

    import django
    from django.apps import apps

    digest = hashlib.sha256(django.get_version().encode())
    for app in sorted(apps.get_app_configs(), key=lambda a: a.label):
        for path in sorted((Path(app.path) / "migrations").glob("*.py")):
            digest.update(f"{app.label}/{path.name}".encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _migrate_into(name: str) -> None:
    """Run the migrations into database ``name`` (the test connection pointed there
    meanwhile)."""
    from django.core.management import call_command
    from django.db import connection

    named = connection.settings_dict["NAME"]
    connection.close()
    connection.settings_dict["NAME"] = name
    try:
        call_command("migrate", verbosity=0, interactive=False, run_syncdb=True)
    finally:
        connection.close()
        connection.settings_dict["NAME"] = named


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix, django_db_blocker):
    """Each test process's database is a copy of one migrated database rather than
    migrated anew: the 60 migrations cost each process ~3 CPU-seconds, the copy a
    fraction of a second.  The migrated database is named by a digest of the
    migrations (and Django's version), so a change to any of them makes a new one; it
    is built once, by the first process that needs it, while the others wait (an
    advisory lock on PostgreSQL, a file lock on SQLite), and published by renaming it
    once complete.  On PostgreSQL each process's database is made from it (``CREATE
    DATABASE ... TEMPLATE``, Django's TEST TEMPLATE setting); on SQLite its file is
    copied.  The copy is then migrated as usual (nothing left to apply)."""
    from django.db import connection

    if connection.vendor == "postgresql":
        _postgresql_template(connection, django_db_blocker)
        yield
    elif connection.vendor == "sqlite" and not connection.creation.is_in_memory_db(
        connection.creation._get_test_db_name()
    ):
        with _sqlite_template(connection, django_db_blocker):
            yield
    else:
        yield


def _postgresql_template(connection, django_db_blocker) -> None:
    template = f"refit_migrated_{_migrations_digest()}"
    with django_db_blocker.unblock(), connection._nodb_cursor() as cursor:
        cursor.execute("SELECT pg_advisory_lock(hashtext('refit migrated template'))")
        try:
            cursor.execute("SELECT 1 FROM pg_database WHERE datname = %s", [template])
            if cursor.fetchone() is None:
                building = f"{template}_building"
                cursor.execute(f'DROP DATABASE IF EXISTS "{building}"')
                cursor.execute(f'CREATE DATABASE "{building}"')
                _migrate_into(building)
                cursor.execute(f'ALTER DATABASE "{building}" RENAME TO "{template}"')
        finally:
            cursor.execute("SELECT pg_advisory_unlock(hashtext('refit migrated template'))")
    connection.settings_dict["TEST"]["TEMPLATE"] = template


@contextlib.contextmanager
def _sqlite_template(connection, django_db_blocker):
    import fcntl
    import shutil

    from django.db.backends.sqlite3.creation import DatabaseCreation

    template = BASE_DIR / "var" / f"test-migrated-{_migrations_digest()}.sqlite3"
    template.parent.mkdir(parents=True, exist_ok=True)
    with open(BASE_DIR / "var" / "test-migrated.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not template.exists():
            building = template.with_name(f"{template.name}.building")
            for stale in (building, *(Path(f"{building}{x}") for x in ("-wal", "-shm"))):
                stale.unlink(missing_ok=True)
            with django_db_blocker.unblock():
                _migrate_into(str(building))
            building.replace(template)
    create = DatabaseCreation._create_test_db

    def _create_test_db(self, verbosity, autoclobber, keepdb=False):
        name = create(self, verbosity, autoclobber, keepdb)
        if not keepdb:
            for stale in (Path(f"{name}-wal"), Path(f"{name}-shm")):
                stale.unlink(missing_ok=True)
            shutil.copyfile(template, name)
        return name

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(DatabaseCreation, "_create_test_db", _create_test_db)
        yield


def pytest_configure(config):
    """Under xdist, the run's first process makes a directory its test processes share
    their walks in (tests/walk_cache.py, ``share``): each walk is then made once per
    run, not once per process.  They read it from their environment (set before they
    start); it is removed when the run ends (``pytest_unconfigure``)."""
    if (
        getattr(config.option, "numprocesses", None)
        and not hasattr(config, "workerinput")
        and "REFIT_WALK_SHARE" not in os.environ
    ):
        import uuid

        shared = BASE_DIR / "var" / "walks" / uuid.uuid4().hex
        shared.mkdir(parents=True)
        config.refit_walk_share = shared
        os.environ["REFIT_WALK_SHARE"] = str(shared)
    config.addinivalue_line(
        "markers",
        "fresh_process: starts a process of its own under an environment the test sets "
        "(the settings read afresh, check --deploy, the compose file or Caddyfile "
        "validated): no backend of its own, run once, on PostgreSQL + Redis; the embedded "
        "run leaves them out",
    )


def pytest_collection_modifyitems(config, items):
    real = os.environ.get("REFIT_TEST_BACKEND") == "real"
    if real and not (_on_postgres() and _on_redis()):
        raise pytest.UsageError("REFIT_TEST_BACKEND=real needs DATABASE_URL and REDIS_URL")
    for item in items:
        if "postgres" in item.keywords and not _on_postgres():
            item.add_marker(pytest.mark.skip(reason="needs PostgreSQL (DATABASE_URL)"))
        if "redis" in item.keywords and not _on_redis():
            item.add_marker(pytest.mark.skip(reason="needs Redis (REDIS_URL)"))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """Keep the call phase's report on the item: fixtures' teardown reads whether the
    test failed (``new_context`` saves screenshots only then)."""
    report = yield
    if report.when == "call":
        item.refit_call_report = report
    return report


@pytest.fixture(scope="session", autouse=True)
def fast_passwords():
    """The default PBKDF2 hash costs ~0.3 s a user on purpose; tests make hundreds."""
    from django.conf import settings
    from django.contrib.auth.hashers import get_hashers, get_hashers_by_algorithm

    settings.PASSWORD_HASHERS = [
        "django.contrib.auth.hashers.MD5PasswordHasher",
        "django.contrib.auth.hashers.PBKDF2PasswordHasher",
    ]
    get_hashers.cache_clear()
    get_hashers_by_algorithm.cache_clear()


@pytest.fixture(autouse=True)
def dice_of_the_test(request, monkeypatch):
    """Each campaign a test hosts in this process rolls the same dice on every run: its
    secret seed derives from the test's id and the campaign's order in the test, so an
    outcome one run in five (a Depleted RG, a wounded leader) cannot fail CI now and
    then.  The dice themselves are the product's (``rules.dice.faces``).  Campaigns
    hosted by a live worker (browser tests) keep random seeds, and those tests read the
    page.  ``REFIT_TEST_DICE=random make test`` sweeps other outcomes."""
    if os.environ.get("REFIT_TEST_DICE") == "random":
        yield
        return
    import hashlib
    import itertools

    from rules import dice

    hosted = itertools.count()

    def new_seed() -> tuple[str, str]:
        seed = hashlib.sha256(f"{request.node.nodeid}#{next(hosted)}".encode()).hexdigest()
        return seed, dice.seed_hash(seed)

    monkeypatch.setattr(dice, "new_seed", new_seed)
    # A walk copied from another test's carries a seed that is the same in every test
    # and every run (tests/walk_cache.py, ``seeded``): the walk cache stays on.
    from tests import walk_cache

    walk_cache.GATE.seed_of_test = new_seed
    yield
    walk_cache.GATE.seed_of_test = None


@pytest.fixture(autouse=True)
def fresh_channel_layer():
    """A new channel layer instance per test: pytest-asyncio gives each test its own
    event loop, and a Redis layer keeps locks and pools bound to the loop it first
    ran in."""
    from channels.layers import channel_layers

    channel_layers.backends.clear()
    yield
    channel_layers.backends.clear()


@pytest.fixture(autouse=True)
def walk_cache_gate(request):
    """Whether this test's walks (tests/walk.py) may be copied from the same walk made
    earlier in the process (tests/walk_cache.py): a test whose data rolls back
    (``db``), capturing no on-commit callbacks, its patches (if any) read at each walk."""
    from tests import walk_cache

    names = set(request.fixturenames)
    committing = {"transactional_db", "live_server", "asgi_server", "start_server", "stack"}
    marker = request.node.get_closest_marker("django_db")
    walk_cache.GATE.open = (
        not names & committing
        and "django_capture_on_commit_callbacks" not in names
        and not (marker and marker.kwargs.get("transaction"))
    )
    walk_cache.GATE.patches = (
        [request.getfixturevalue("monkeypatch")] if "monkeypatch" in names else []
    )
    yield
    walk_cache.GATE.open = False
    walk_cache.GATE.patches = []


@pytest.fixture(autouse=True)
def notices_inline(settings):
    """Notices are e-mailed in the committing thread during tests, without the grace
    delay (a server started by a test sends them from its background thread, as in
    production)."""
    settings.REFIT_NOTIFY_DELIVERY = "inline"
    settings.REFIT_NOTIFY_DELAY = 0


@pytest.fixture(autouse=True)
def close_worker_thread_connections():
    """Async tests and consumers reach the database from asgiref's one worker thread
    (sync_to_async, database_sync_to_async): close that thread's connection after each
    test, so the test database can be dropped at the end of the session."""
    yield
    from asgiref.sync import SyncToAsync
    from django.db import connections

    SyncToAsync.single_thread_executor.submit(connections.close_all).result(timeout=30)


def _database_url(settings_dict: dict) -> str:
    if "postgresql" in settings_dict["ENGINE"]:
        return (
            f"postgres://{settings_dict['USER']}:{settings_dict['PASSWORD']}@"
            f"{settings_dict['HOST']}:{settings_dict['PORT']}/{settings_dict['NAME']}"
        )
    return f"sqlite:///{settings_dict['NAME']}"


# A live worker borrows its PostgreSQL connections from a pool, as a hosted worker does
# (docker-compose.yml): without one, every request and every socket's render would
# open a connection of its own (~12 ms of password exchange and a new server process
# on the development machine).
WORKER_POOL = {"DB_POOL_MAX": "10"}
# Its sockets beat every 3 s and resync every other beat, so a push lost on a loaded
# machine is caught up within a browser test's wait (the worker logs each catch-up:
# see worker_log_on_failure).
WORKER_BEAT = {"REFIT_PRESENCE_HEARTBEAT": "3", "REFIT_PRESENCE_RESYNC_BEATS": "2"}


# How long a worker may take to answer its first request: on a machine loaded several
# times over its cores (a CI box shared with other jobs), importing the project and
# connecting took longer than tests/servers.py's 30 s, and every browser test of the
# process then failed at set-up.  It waits only as long as the worker needs.
READY_WITHIN = 120


def AsgiServer(database_url: str, **env: str) -> AsgiWorker:  # noqa: N802 - a factory
    """A real ASGI worker serving config.asgi on the test database."""
    env = {"DATABASE_URL": database_url, **WORKER_POOL, **WORKER_BEAT, **env}
    worker = AsgiWorker(log_dir=ARTIFACTS, env=env)
    try:
        return worker.wait_ready(timeout=READY_WITHIN)
    except BaseException:
        worker.stop()  # a worker that did not start in time is not left running
        raise


@pytest.fixture(autouse=True)
def worker_log_on_failure(request):
    """When a test that drove the live server fails, its report shows what the worker
    logged meanwhile (a lost push, a failed render): a failure on a loaded CI machine
    is then read, not guessed."""
    if "asgi_server" not in request.fixturenames:
        yield
        return
    server = request.getfixturevalue("asgi_server")
    start = server.log_path.stat().st_size
    yield
    report = getattr(request.node, "refit_call_report", None)
    if report is None or not report.failed:
        return
    with server.log_path.open("rb") as log:
        log.seek(start)
        lines = log.read().decode("utf-8", "replace").splitlines()
    print(f"--- what the worker logged during the test ({len(lines)} lines, the last 80):")
    print("\n".join(lines[-80:]))


@pytest.fixture
def start_server(django_db_setup):
    """Start extra ASGI workers on the test database (stopped after the test)."""
    from django.db import connection

    servers = []

    def start(**env):
        server = AsgiServer(_database_url(connection.settings_dict), **env)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


@pytest.fixture(scope="session")
def asgi_server(django_db_setup, django_db_blocker):
    """A live ASGI server (HTTP + websockets) on the test database.  Tests using it
    need committed data: use the ``transactional_db`` fixture."""
    from django.db import connection

    server = AsgiServer(_database_url(connection.settings_dict))
    yield server
    server.stop()


@pytest.fixture
def stack(tmp_path, transactional_db):
    """The hosted topology on the test database: the repository's Caddyfile serving
    HTTPS in front of two workers started with the web image's command
    (``tests/proxy.py``).  Its data must be committed, as for ``asgi_server``."""
    from django.conf import settings
    from django.db import connection

    from tests.proxy import Stack

    redis_url = os.environ.get("REDIS_URL", "")
    assert redis_url, "the proxy tests run on the real servers (make test-real)"
    found = Stack(
        tmp_path,
        ARTIFACTS,
        database_url=_database_url(connection.settings_dict),
        redis_url=redis_url,
        secret_key=settings.SECRET_KEY,
    )
    yield found
    found.stop()


@pytest.fixture
def new_context(chromium, request):
    """Isolated browser contexts (one per player).  axe-core checks every kind of page
    the test visits, as it first loads, and every page the test leaves open, as the
    player left it: the parts re-drawn since it was last checked (``PageAudit``;
    axe-core is JavaScript: not in a context with JavaScript off);
    when the test failed, each page's last state is saved as a screenshot in
    var/artifacts/."""
    from tests.browser.helpers import PageAudit

    contexts = []  # (context, whether axe-core can check its pages)
    audit = PageAudit()

    def make(**options):
        ctx = chromium.new_context(**options)
        ctx.set_default_timeout(10_000)
        audited = options.get("java_script_enabled", True)
        if audited:
            ctx.on("page", audit.watch)
        contexts.append((ctx, audited))
        return ctx

    yield make
    report = getattr(request.node, "refit_call_report", None)
    failed = report is None or report.failed
    for i, (ctx, audited) in enumerate(contexts):
        for j, page in enumerate(ctx.pages):
            if failed:  # a full-page screenshot costs Chromium ~0.5 s: kept for failures
                ARTIFACTS.mkdir(parents=True, exist_ok=True)
                name = request.node.name.replace("/", "_")
                page.screenshot(path=str(ARTIFACTS / f"{name}-{i}-{j}.png"), full_page=True)
            if audited:
                audit.check(page, "as left")
        ctx.close()
    problems = audit.problems
    assert not problems, (
        "accessibility (axe-core, serious/critical) and page errors:\n" + "\n".join(problems)
    )


@pytest.fixture
def make_user(django_user_model):
    def make(username: str = "alice", password: str = "correct-horse-9"):
        return django_user_model.objects.create_user(username=username, password=password)

    return make


FIXTURE_MODULES = Path(__file__).parent / "fixtures" / "modules"


_PARSED_MODULES: dict[tuple, dict] = {}


def _load_all_once(directory: Path):
    """``rules.loader.load_all``, read and validated once per test process while no
    module or override file changes (it costs ~0.4 s, and most tests load modules)."""
    from rules.loader import load_all, module_files, override_dirs

    files = module_files(directory)
    files += [p for d in override_dirs() if d.is_dir() for p in module_files(d)]
    key = (str(directory), *((str(p), p.stat().st_mtime_ns) for p in files))
    if key not in _PARSED_MODULES:
        _PARSED_MODULES[key] = load_all(directory)
    return _PARSED_MODULES[key]


# Each parsed module's stored form and checksum, by the module (a frozen pydantic model,
# parsed once per process above): ``load_modules`` computes both for every module at
# every load (as_dict, then a JSON dump of it for the checksum), a third of its CPU.
_STORED_FORMS: dict[int, tuple[Any, dict, str]] = {}


def _stored_form(module) -> tuple[dict, str]:
    from campaign.services import modules as service
    from rules.schema import as_dict

    known = _STORED_FORMS.get(id(module))
    if known is None or known[0] is not module:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(service, "as_dict", as_dict)  # the service's own checksum
            known = (module, as_dict(module), _SERVICE_CHECKSUM[0](module))
        _STORED_FORMS[id(module)] = known
    return known[1], known[2]


_SERVICE_CHECKSUM: list = []  # campaign.services.modules.checksum, unpatched


def _as_dict_once(module) -> dict:
    """``as_dict`` of a module parsed once per process, computed at its first load
    (``load_modules`` only hands it to the row it writes, which nothing keeps)."""
    return _stored_form(module)[0]


def _checksum_once(module) -> str:
    return _stored_form(module)[1]


def load_test_modules() -> None:
    """Load the three seed modules and the test fixture module.  Where the database
    holds none of them (a test's own transaction, most tests), their records are
    written in one statement, each row as ``load_modules`` would write it (its title,
    stored form and checksum, parsed once per process), after one read of what is
    there; where it holds them all, unchanged, nothing is written; else through
    ``load_modules`` itself."""
    from campaign.models import ModuleRecord
    from campaign.services import modules as service
    from rules.loader import MODULE_DIR

    if not _SERVICE_CHECKSUM:
        _SERVICE_CHECKSUM.append(service.checksum)
    wanted = {
        module_id: module
        for directory in (MODULE_DIR, FIXTURE_MODULES)
        for module_id, module in _load_all_once(directory).items()
    }
    held = dict(ModuleRecord.objects.filter(id__in=wanted).values_list("id", "checksum"))
    if held == {module_id: _checksum_once(m) for module_id, m in wanted.items()}:
        return
    if not held:
        ModuleRecord.objects.bulk_create(
            ModuleRecord(
                id=module_id,
                title=module.title,
                data=_as_dict_once(module),
                checksum=_checksum_once(module),
            )
            for module_id, module in wanted.items()
        )
        return
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(service, "load_all", _load_all_once)
        patch.setattr(service, "as_dict", _as_dict_once)
        patch.setattr(service, "checksum", _checksum_once)
        service.load_modules(directory=MODULE_DIR)
        service.load_modules(directory=FIXTURE_MODULES)


@pytest.fixture
def modules(db):
    """The three seed modules and the test fixture module, loaded."""
    load_test_modules()


@pytest.fixture(scope="module")
def module_db(django_db_setup, django_db_blocker):
    """Data built once for a test module: it is written inside a transaction that stays
    open while the module's tests run (each test's ``db`` transaction is a savepoint in
    it, so what a test changes rolls back to the shared data) and that rolls back after
    the last one.  Yields a context manager to build the data in; for tests that use
    ``db``, not ``transactional_db`` (which commits), in a module whose every test
    starts from that data (the module's other tests would see it too)."""
    from contextlib import contextmanager

    from django.db import transaction

    with django_db_blocker.unblock():
        outer = transaction.atomic()
        outer.__enter__()

    @contextmanager
    def building():
        with django_db_blocker.unblock():
            yield

    try:
        yield building
    finally:
        with django_db_blocker.unblock():
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)


@pytest.fixture
def login(client):
    def do(user):
        client.force_login(user)
        return client

    return do


@pytest.fixture
def hosted(modules, make_user):
    """A skirmish campaign hosted by alice (red), bob invited and seated on blue."""
    from tests.walk import host_game

    alice, bob = make_user("alice"), make_user("bob")
    campaign = host_game("test-skirmish", "short", alice, bob, name="Bridge at dawn")
    campaign.refresh_from_db()
    return campaign, alice, bob


@pytest.fixture
def browser_login(asgi_server):
    """Sign a user into a browser context by session cookie (the sign-up UI has its
    own test)."""
    from django.test import Client

    def do(context, user):
        client = Client()
        client.force_login(user)
        context.add_cookies(
            [
                {
                    "name": "sessionid",
                    "value": client.cookies["sessionid"].value,
                    "url": asgi_server.url,
                }
            ]
        )
        return context

    return do


def pytest_unconfigure(config):
    shared = getattr(config, "refit_walk_share", None)
    if shared is not None:
        import shutil

        shutil.rmtree(shared, ignore_errors=True)
        os.environ.pop("REFIT_WALK_SHARE", None)


def pytest_sessionfinish(session):
    """REFIT_WALK_CACHE_STATS=<file>: each test process appends how many walks it
    copied, made (and kept) and made without the cache (tests/walk_cache.py)."""
    path = os.environ.get("REFIT_WALK_CACHE_STATS")
    if path:
        from tests import walk_cache

        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        with open(path, "a") as out:
            out.write(f"{worker} {walk_cache.STATS}\n")
