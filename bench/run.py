"""Refit benchmarks (``make bench``): they print figures, they assert nothing.

One run of one ASGI server at one scale (``--one``) measures, on two workers sharing
PostgreSQL and Redis:

1. The floor: a bare Channels ``group_send`` through Redis to one socket on each worker.
2. The reveal: 200 campaigns, 400 campaign sockets (one player on each worker); from
   sending the 2nd initiative lock (and from its HTTP response) until both sockets
   hold the reveal.  Floor and reveal samples alternate, so both see the same load.
3. Server time and SQL queries per request, in-process (Django's test client on the
   same PostgreSQL and Redis): the 1st and the 2nd (revealing) lock, buy, cancel,
   roster page (reloaded; after the opponent's secret change, which leaves the
   seat's revision as it was; and its first load after a change, i.e. at a new
   revision: the opponent's message in the players' thread, a real change both
   seats see) and campaign page (reloaded, and after that change) — for a page whose
   socket is open (the answer carries no fragments: the push brings them) and for
   one without (the answer renders the changed fragments); with the garbage
   collector's pauses meanwhile (collections, full ones, the longest), the process
   set up as a worker is.
4. The stack ceiling: 50 concurrent clients posting an empty signed-in request
   (``campaign.views.bench``: session, user, CSRF, nothing else), to read the
   purchases against; then purchase throughput: 50 concurrent clients buying and
   cancelling over HTTP, each answer rendering the buyer's changed fragments; then
   the same purchases answered as to a live page with no socket open, so nothing is
   rendered anywhere: the bound the service and the stack set.  Each client has one
   keep-alive connection (``bench/loadclient.py``: a lean client, so the load costs
   the shared cores little).  For each load, the CPU per request of the workers,
   PostgreSQL, Redis and the clients, read from ``/proc``: where the two cores go.
5. Peak resident memory of each worker.

``--scale 10`` runs the same with ten times the campaigns in the database (the same
number of open sockets and clients: how the cost of one action grows with the data).

Without ``--one`` the bench is the driver: for each repeat, server and scale it runs
one such run in a fresh process and a fresh database, then the in-browser reveal
(``bench/browser.py``: 2nd lock's request -> reveal painted in the other browser, on
the embedded default and on PostgreSQL + Redis; then a buy and a cancel from the RG
chart, request -> painted, with Chromium's CPU time per change), and prints every
figure in one table.
Runs of several servers are interleaved (d, u, d, u): the machine may be shared.

Everything runs on loopback against the servers ``make services`` starts, in
databases of its own (``$BENCH_DB``, default ``bench_refit``, never a ``test_*``
name), on free ports, and stops by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
PG = os.environ.get("BENCH_PG", "postgres://refit:refit@127.0.0.1:5432")
DB = os.environ.get("BENCH_DB", "bench_refit")
if not re.fullmatch(r"[a-z][a-z0-9_]{0,40}", DB) or DB.startswith("test"):
    raise SystemExit(f"BENCH_DB={DB!r}: a plain name that does not start with 'test'")
os.environ["DATABASE_URL"] = f"{PG}/{DB}"
os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6390/1")
os.environ["REFIT_BENCH_ECHO"] = "1"
os.environ.setdefault("DB_POOL_MAX", "20")  # per worker process, as docker-compose sets it
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"  # the bench drives the ORM from asyncio

CAMPAIGNS = int(os.environ.get("BENCH_CAMPAIGNS", 200))
CLIENTS = int(os.environ.get("BENCH_CLIENTS", 50))
THROUGHPUT_SECONDS = float(os.environ.get("BENCH_SECONDS", 15))
CEILING_SECONDS = max(2.0, THROUGHPUT_SECONDS / 3)
SAMPLES = int(os.environ.get("BENCH_SAMPLES", 100))  # in-process requests per figure
DEFAULT_SERVER = "uvicorn"  # chosen by this bench (README "Performance")
LOG_DIR = ROOT / "var" / "bench"
CSRF = "b" * 32
MARK = "BENCH-JSON "
SLOW_MS = 5000  # a request slower than this is counted apart under load (its tail)
LATE = 30  # seconds: a reveal later than this is counted as missed
# The reveal's two conditions (``reveal_and_floor``), the idle time before a "paused"
# sample, and each condition's label in what the bench prints.
CONDITIONS = ("paused", "busy")
PAUSE = float(os.environ.get("BENCH_PAUSE", 0.05))
LABELS = {"paused": f"after {PAUSE * 1000:.0f} ms idle", "busy": "back to back"}


# --------------------------------------------------------------------------- figures


def process_cpu(classify: Callable[[int, str], str | None]) -> dict[int, tuple[str, float]]:
    """User + system CPU seconds so far of every live process ``classify(pid, name)``
    names a class for, by pid (a process's own time: not its children's)."""
    hz = os.sysconf("SC_CLK_TCK")
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        kind = classify(int(entry), stat[stat.index("(") + 1 : stat.rindex(")")])
        if kind is not None:
            fields = stat.rsplit(")", 1)[1].split()
            found[int(entry)] = (kind, (int(fields[11]) + int(fields[12])) / hz)
    return found


# Where a load's CPU goes: the two workers, PostgreSQL's processes (its pooled
# backends among them), Redis, and the bench's own clients (this process).
CPU_CLASSES = ("workers", "PostgreSQL", "Redis", "clients")


def serving_cpu(worker_pids: list[int]) -> dict[int, tuple[str, float]]:
    def classify(pid: int, name: str) -> str | None:
        if pid in worker_pids:
            return "workers"
        if pid == os.getpid():
            return "clients"
        if name == "postgres":
            return "PostgreSQL"
        return "Redis" if name.startswith("redis-server") else None

    return process_cpu(classify)


def cpu_spent(
    before: dict[int, tuple[str, float]], after: dict[int, tuple[str, float]]
) -> dict[str, float]:
    """CPU seconds each class spent between two ``process_cpu`` readings (a process
    started in between counts from its start)."""
    spent = dict.fromkeys(CPU_CLASSES, 0.0)
    for pid, (kind, seconds) in after.items():
        spent[kind] = spent.get(kind, 0.0) + seconds - before.get(pid, (kind, 0.0))[1]
    return spent


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1))))
    return ordered[k]


def summary(values_ms: list[float]) -> dict[str, float]:
    return {
        "n": len(values_ms),
        "p50": pct(values_ms, 50),
        "p95": pct(values_ms, 95),
        "p99": pct(values_ms, 99),
        "max": max(values_ms),
    }


def line(name: str, s: dict[str, float]) -> str:
    return (
        f"{name}: n={s['n']} p50={s['p50']:.1f} ms p95={s['p95']:.1f} ms "
        f"p99={s['p99']:.1f} ms max={s['max']:.1f} ms"
    )


def say(text: str) -> None:
    print(text, flush=True)


# --------------------------------------------------------------------------- set-up


def fresh_database(name: str) -> None:
    import psycopg

    with psycopg.connect(f"{PG}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    fixtures = ["loadmodules", "--dir", "tests/fixtures/modules"]
    for cmd in (["migrate", "-v0"], ["loadmodules"], fixtures):
        subprocess.run(
            [sys.executable, "manage.py", *cmd], cwd=ROOT, check=True, stdout=subprocess.DEVNULL
        )


def drop_database(name: str) -> None:
    import psycopg

    with psycopg.connect(f"{PG}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def players() -> tuple[dict[str, Any], dict[str, str]]:
    """alice and bob, signed in: their users and their cookie headers."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    users, cookies = {}, {}
    for name in ("alice", "bob"):
        users[name] = get_user_model().objects.create_user(name, password="bench-pass-1")
        client = Client()
        client.force_login(users[name])
        cookies[name] = f"sessionid={client.cookies['sessionid'].value}; csrftoken={CSRF}"
    return users, cookies


def _copies(
    users: dict[str, Any],
    n: int,
    prefix: str,
    *,
    module_id: str,
    variant_id: str,
    side: str,
    reveal_policy: str,
    step_id: str,
    **position: Any,
) -> list[str]:
    """n campaigns of alice (host, ``side``) and bob, placed at ``step_id`` (the
    position is set directly: the walk there is not what is measured), each side with
    points to spare.  One is made by the services, the others are its copies."""
    from campaign.models import Campaign, Seat
    from campaign.selectors import module_of
    from campaign.services import hosting
    from rules import machine

    c = hosting.create_campaign(
        host=users["alice"],
        module_id=module_id,
        variant_id=variant_id,
        side=side,
        name=prefix,
        reveal_policy=reveal_policy,
    )
    hosting.join_campaign(token=c.invitations.get().token, user=users["bob"])
    step = machine.step_index(module_of(c), step_id)
    Campaign.objects.filter(pk=c.pk).update(step_index=step, **position)
    Seat.objects.filter(campaign=c).update(points=10**6)
    return [str(c.pk), *clone_campaigns([str(c.pk)], n - 1)]


def initiative_campaigns(users: dict[str, Any], n: int, prefix: str) -> list[str]:
    """n skirmish campaigns with alice (red) and bob (blue) at the initiative step."""
    return _copies(
        users,
        n,
        prefix,
        module_id="test-skirmish",
        variant_id="short",
        side="red",
        reveal_policy="step_end",
        step_id="T4.0",
        date_index=1,
        cycle=1,
        in_play=False,
    )


def purchase_campaigns(users: dict[str, Any], n: int, prefix: str) -> list[str]:
    """n Sicily campaigns (alice Axis, bob British) at 3.617 Purchasing RGs."""
    return _copies(
        users,
        n,
        prefix,
        module_id="sicily",
        variant_id="i",
        side="axis",
        reveal_policy="owner",
        step_id="3.617",
        date_index=1,
        cycle=1,
    )


def roster_campaign(users: dict[str, Any]) -> str:
    """Sicily on its 11th CG date with 60 purchases and 30 units (the roster's data)."""
    from campaign.models import Campaign, Purchase, Unit
    from campaign.services import hosting

    c = hosting.create_campaign(
        host=users["alice"],
        module_id="sicily",
        variant_id="i",
        side="axis",
        name="roster bench",
        reveal_policy="owner",
    )
    hosting.join_campaign(token=c.invitations.get().token, user=users["bob"])
    Campaign.objects.filter(pk=c.pk).update(date_index=10, step_index=1)
    groups = c.module_data["rg_charts"][0]["groups"]
    Purchase.objects.bulk_create(
        Purchase(
            campaign=c,
            side="axis",
            cycle=i % 11,
            date_index=i % 11,
            group_id=groups[i % len(groups)]["id"],
            group_type=groups[i % len(groups)]["type"],
            cost=5,
            ordinal=i + 1,
            date_ordinal=i + 1,
            details={"rolls": [], "sw": {}},
        )
        for i in range(60)
    )
    Unit.objects.bulk_create(Unit(campaign=c, side="axis", name=f"unit {i}") for i in range(30))
    return str(c.pk)


def clone_campaigns(template_ids: list[str], copies: int) -> list[str]:
    """``copies`` more of every template campaign, with their seats, log, purchases,
    units, rolls, chits and marks (bulk inserts: more data, not what is measured)."""
    import uuid

    from django.db import transaction

    from campaign import models as m

    related = [
        m.Seat,
        m.Event,
        m.Purchase,
        m.Unit,
        m.Roll,
        m.StepMark,
        m.InitiativeChit,
        m.InitiativeOutcome,
        m.ScenarioResult,
    ]
    templates = list(m.Campaign.objects.filter(pk__in=template_ids))
    rows = {model: list(model.objects.filter(campaign_id__in=template_ids)) for model in related}
    fields = {
        model: [f.attname for f in model._meta.concrete_fields if not f.primary_key]
        for model in [m.Campaign, *related]
    }
    new_ids: list[dict[Any, uuid.UUID]] = []
    clones = []
    for k in range(copies):
        new_ids.append({})
        for c in templates:
            clone = m.Campaign(**{name: getattr(c, name) for name in fields[m.Campaign]})
            clone.pk = new_ids[k][c.pk] = uuid.uuid4()
            clone.name = f"{c.name} (copy {k + 1})"
            clones.append(clone)
    with transaction.atomic():
        m.Campaign.objects.bulk_create(clones, batch_size=100)
        for model, objs in rows.items():
            copied = []
            for k in range(copies):
                for obj in objs:
                    copy = model(**{name: getattr(obj, name) for name in fields[model]})
                    copy.campaign_id = new_ids[k][obj.campaign_id]
                    copied.append(copy)
            model.objects.bulk_create(copied, batch_size=1000)
    return [str(clone.pk) for clone in clones]


def analyze() -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")


# --------------------------------------------------------------------------- in-process


# SQL statements run by any connection of this process: all of them, and those that
# are not transaction control (savepoints; tests/test_queries.py counts these).
QUERIES = [0, 0]
TRANSACTION_CONTROL = ("SAVEPOINT", "RELEASE SAVEPOINT", "ROLLBACK TO SAVEPOINT")


def statements(figures: dict[str, Any]) -> str:
    """A request's SQL statements: one number, or the fewest and the most made."""
    low, high = figures["q_min"], figures["queries"]
    return str(high) if low == high else f"{low}-{high}"


def count_queries() -> None:
    """Count every statement of every connection (requests run in asgiref's thread)."""
    from django.db.backends.signals import connection_created

    def counted(execute, sql, params, many, context):
        QUERIES[0] += 1
        if not sql.startswith(TRANSACTION_CONTROL):
            QUERIES[1] += 1
        return execute(sql, params, many, context)

    def hook(sender, connection, **kwargs):
        if counted not in connection.execute_wrappers:
            connection.execute_wrappers.append(counted)

    connection_created.connect(hook, weak=False)


def worker_client() -> Any:
    """Django's ``AsyncClient`` with the worker's middleware chain (``config.handler``:
    built sync, entered once), not the test client's own async chain."""
    from django.test import AsyncClient
    from django.test.client import AsyncClientHandler

    from config.handler import SyncChainMixin

    class Handler(SyncChainMixin, AsyncClientHandler):
        pass

    client = AsyncClient()
    client.handler = Handler(enforce_csrf_checks=False)
    return client


class Timed:
    """Requests through Django's ASGI handler (``AsyncClient``) in one event loop, as a
    worker serves them: the sync view in asgiref's thread, the push's ``group_send``
    back on the loop through the worker's own Redis connections.  Timed, and their SQL
    statements counted."""

    def __init__(self, user: Any) -> None:
        self.client = worker_client()
        self.client.force_login(user)
        self.times: dict[str, list[float]] = {}
        self.cpu: dict[str, list[float]] = {}
        self.queries: dict[str, list[int]] = {}
        self.statements: dict[str, list[int]] = {}

    async def request(self, name: str, method: str, url: str, *args: Any, **kwargs: Any) -> Any:
        before, before_statements = QUERIES
        cpu = time.process_time()
        start = time.perf_counter()
        response = await getattr(self.client, method)(url, *args, **kwargs)
        elapsed = (time.perf_counter() - start) * 1000
        self.cpu.setdefault(name, []).append((time.process_time() - cpu) * 1000)
        assert response.status_code == 200, (name, response.status_code, response.content[:300])
        self.times.setdefault(name, []).append(elapsed)
        self.queries.setdefault(name, []).append(QUERIES[0] - before)
        self.statements.setdefault(name, []).append(QUERIES[1] - before_statements)
        return response

    def figures(self) -> dict[str, dict[str, Any]]:
        return {
            name: {
                **summary(t),
                "cpu_p50": pct(self.cpu[name], 50),
                "queries": max(self.queries[name]),
                "q_min": min(self.queries[name]),
                "statements": max(self.statements[name]),
            }
            for name, t in self.times.items()
        }


def in_process(users: dict[str, Any], lock_ids: list[str], buy_ids: list[str], roster: str):
    """Server time of lock, buy, cancel, roster and campaign page, in-process."""
    from asgiref.sync import sync_to_async

    from campaign.models import Purchase, Seat

    live = {"HX-Request": "true", "X-Refit-Live": "1", "X-Refit-Page": "campaign"}
    answer = {"HX-Request": "true", "X-Refit-Page": "campaign"}
    from django.conf import settings

    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]  # the test client's host
    import config.asgi  # noqa: F401  (set up as a worker is, its collector settings included)

    red, blue = Timed(users["alice"]), Timed(users["bob"])
    count_queries()

    @sync_to_async
    def active(cid: str) -> str:
        return Purchase.objects.filter(campaign_id=cid, status="active").values_list(
            "ref", flat=True
        )[0]

    @sync_to_async
    def a_secret_change(cid: str, secret_of: str) -> None:
        """What the opponent's secret change does to the seats (``writes.commit``), the
        data left as it is: his seat alone takes a new revision."""
        Seat.objects.filter(campaign_id=cid, side=secret_of).update(revision=uuid.uuid4())

    async def run() -> None:
        half = len(lock_ids) // 2
        for k, cid in enumerate(lock_ids):
            mode, headers = ("live", live) if k < half else ("answer", answer)
            url = f"/campaigns/{cid}/act/chit/"
            await red.request(f"lock 1st ({mode})", "post", url, {"chit": "idle"}, headers=headers)
            await blue.request(
                f"lock 2nd, reveals ({mode})", "post", url, {"chit": "attack"}, headers=headers
            )
        for cid, (mode, headers) in zip(
            buy_ids, (("live", live), ("answer", answer)), strict=False
        ):
            url = f"/campaigns/{cid}/act/"
            for _ in range(SAMPLES):
                await red.request(
                    f"buy ({mode})", "post", url + "buy/", {"group": "I4"}, headers=headers
                )
                ref = await active(cid)
                await red.request(
                    f"cancel ({mode})", "post", url + "cancel/", {"purchase": ref}, headers=headers
                )
        await red.client.get(f"/campaigns/{roster}/roster/")  # its first load, not timed
        for _ in range(SAMPLES):
            await red.request("roster page", "get", f"/campaigns/{roster}/roster/")
            await a_secret_change(roster, secret_of="british")
            await red.request(
                "roster page, after the opponent's secret change",
                "get",
                f"/campaigns/{roster}/roster/",
            )
            # A real change both seats see (not a bare new revision): the opponent writes
            # in the players' thread, answered as to his live page; untimed.
            said = {"text": f"Message {len(red.times.get('roster page', []))}"}
            sent = await blue.client.post(f"/campaigns/{roster}/messages/", said, headers=live)
            assert sent.status_code == 200, sent.content[:300]
            await red.request("roster page, after a change", "get", f"/campaigns/{roster}/roster/")
            await red.request("campaign page, after a change", "get", f"/campaigns/{roster}/")
            await red.request("campaign page", "get", f"/campaigns/{roster}/")

    with collector_pauses() as gc_figures:
        asyncio.run(run())
    figures = red.figures()
    figures.update(blue.figures())
    return figures, gc_figures


@contextlib.contextmanager
def collector_pauses() -> Iterator[dict[str, float]]:
    """Python's cyclic garbage collector while the block runs: how many collections,
    how many of them full (generation 2), and the longest pause (every request of the
    worker waits it out), in wall time and in the collecting thread's CPU time (a
    collection's wall time also counts the other processes the 2 cores ran meanwhile:
    the workers, PostgreSQL)."""
    figures = {
        "collections": 0,
        "full": 0,
        "longest_ms": 0.0,
        "longest_cpu_ms": 0.0,
        "longest_full_cpu_ms": 0.0,
        "total_ms": 0.0,
    }
    began = [0.0, 0.0]

    def timed(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            began[:] = time.perf_counter(), time.thread_time()
            return
        pause = (time.perf_counter() - began[0]) * 1000
        cpu = (time.thread_time() - began[1]) * 1000
        full = info["generation"] == 2
        figures["collections"] += 1
        figures["full"] += full
        figures["total_ms"] += pause
        figures["longest_ms"] = max(figures["longest_ms"], pause)
        figures["longest_cpu_ms"] = max(figures["longest_cpu_ms"], cpu)
        if full:
            figures["longest_full_cpu_ms"] = max(figures["longest_full_cpu_ms"], cpu)

    gc.callbacks.append(timed)
    try:
        yield figures
    finally:
        gc.callbacks.remove(timed)


# --------------------------------------------------------------------------- sockets


async def connect(url: str, cookie: str):
    import websockets

    return await websockets.connect(
        url,
        additional_headers={
            "Cookie": cookie,
            "Origin": url.replace("ws://", "http://").split("/ws/")[0],
        },
        max_size=2**22,
        open_timeout=60,
        ping_interval=None,
    )


class Inbox:
    """Frames of many sockets; a test waits for the first frame holding a needle."""

    def __init__(self) -> None:
        self.waiting: dict[tuple[Any, str], tuple[str, asyncio.Future[float]]] = {}
        self.tasks: list[asyncio.Task[None]] = []

    def expect(self, key: Any, who: str, needle: str) -> asyncio.Future[float]:
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self.waiting[(key, who)] = (needle, future)
        return future

    def listen(self, ws: Any, key: Any, who: str) -> None:
        async def run() -> None:
            async for frame in ws:
                now = time.perf_counter()
                wanted = self.waiting.get((key, who))
                if wanted and wanted[0] in frame and not wanted[1].done():
                    wanted[1].set_result(now)

        self.tasks.append(asyncio.create_task(run()))


async def reveal_and_floor(ports: list[int], ids: list[str], cookies: dict[str, str]):
    from channels.layers import get_channel_layer

    from bench.loadclient import Connection

    a, b = ports
    inbox = Inbox()
    sockets = []
    # Campaign sockets: alice (red) on worker A, bob (blue) on worker B; each gets its
    # page's parts when it opens.
    opened = []
    for cid in ids:
        for who, port in (("alice", a), ("bob", b)):
            ws = await connect(f"ws://127.0.0.1:{port}/ws/campaigns/{cid}/", cookies[who])
            sockets.append(ws)
            opened.append(inbox.expect(cid, who, "campaign-step"))
            inbox.listen(ws, cid, who)
    await asyncio.wait_for(asyncio.gather(*opened), 120)
    # Echo sockets for the floor: one group per campaign, one socket on each worker.
    for n in range(len(ids)):
        for who, port in (("alice", a), ("bob", b)):
            ws = await connect(f"ws://127.0.0.1:{port}/ws/bench-echo/{n}/", cookies["alice"])
            sockets.append(ws)
            inbox.listen(ws, f"echo-{n}", who)
    lines = [f"{len(sockets)} sockets open on 2 workers ({len(ids)} campaigns + echo)"]

    # A page with its socket open says so; its answer then carries no fragments.
    headers = {"X-CSRFToken": CSRF, "HX-Request": "true", "X-Refit-Live": "1"}
    layer = get_channel_layer()
    # Two conditions, interleaved sample by sample: "paused", each floor-and-reveal pair
    # after the workers have been idle PAUSE seconds (players act seconds apart), and
    # "busy", right after the previous reveal, while the workers still render the rest
    # of its change (its record and log frames).
    samples: dict[str, dict[str, list[float]]] = {
        cond: {"floor": [], "reveal": [], "reveal_after_response": []} for cond in CONDITIONS
    }
    missed = 0  # reveals that did not reach both sockets within LATE seconds
    red = Connection(a, {**headers, "Cookie": cookies["alice"]})
    blue = Connection(b, {**headers, "Cookie": cookies["bob"]})
    try:
        # The first locks (Red), one after another; both pages show them.
        shown = []
        for cid in ids:
            shown.append(inbox.expect(cid, "alice", "Your chit is locked"))
            shown.append(inbox.expect(cid, "bob", "has chosen"))
            status, body = await red.post(f"/campaigns/{cid}/act/chit/", {"chit": "idle"})
            assert status == 200, body[:200]
        await asyncio.wait_for(asyncio.gather(*shown), 120)
        await asyncio.sleep(1)
        for n, cid in enumerate(ids):
            cond = CONDITIONS[n % 2]
            got = samples[cond]
            if cond == "paused":
                await asyncio.sleep(PAUSE)
            # The floor ...
            echoes = [inbox.expect(f"echo-{n}", who, "x") for who in ("alice", "bob")]
            start = time.perf_counter()
            await layer.group_send(f"bench-echo-{n}", {"type": "bench.echo", "text": "x"})
            arrived = await asyncio.wait_for(asyncio.gather(*echoes), 10)
            got["floor"].append((max(arrived) - start) * 1000)
            # ... then the 2nd lock (Blue) and its reveal on both sockets: the result in
            # the page's header (the first frame of the change; the log line follows).
            reveals = [inbox.expect(cid, who, 'id="initiative-result"') for who in ("alice", "bob")]
            start = time.perf_counter()
            status, body = await blue.post(f"/campaigns/{cid}/act/chit/", {"chit": "attack"})
            responded = time.perf_counter()
            assert status == 200, body[:200]
            try:
                both = max(await asyncio.wait_for(asyncio.gather(*reveals), LATE))
            except TimeoutError:
                missed += 1
                continue
            got["reveal_after_response"].append(max(0.0, both - responded) * 1000)
            got["reveal"].append((both - start) * 1000)
    finally:
        red.close()
        blue.close()
    for task in inbox.tasks:
        task.cancel()
    for ws in sockets:
        await ws.close()
    paused = {name: summary(values) for name, values in samples["paused"].items()}
    busy = {name: summary(values) for name, values in samples["busy"].items()}
    figures: dict[str, Any] = {"missed": missed, **paused, "busy": busy}
    for label, f in ((LABELS["paused"], paused), (LABELS["busy"], busy)):
        lines += [
            f"{label}:",
            line("  floor: bare group_send echo to 2 sockets, one on each worker", f["floor"]),
            line("  reveal, from sending the 2nd lock to both sockets", f["reveal"]),
            line(
                "  reveal, from the 2nd lock's HTTP response to both sockets",
                f["reveal_after_response"],
            ),
            f"  reveal / floor (p50): {f['reveal']['p50'] / f['floor']['p50']:.1f}x",
        ]
    if missed:
        lines.append(f"{missed} reveals did not reach both sockets within {LATE} s (not counted)")
    return figures, lines


# --------------------------------------------------------------------------- throughput

REF = re.compile(r'name="purchase" value="([a-z0-9]+)"')


def active_purchase(campaign_id: str) -> str | None:
    from campaign.models import Purchase

    return (
        Purchase.objects.filter(campaign_id=campaign_id, status="active")
        .values_list("ref", flat=True)
        .first()
    )


Post = Callable[[str, dict[str, str]], Awaitable[tuple[int, bytes]]]


@dataclass(frozen=True)
class Served:
    """The workers a load is sent to: their ports, and their pids (whose CPU it reads)."""

    ports: list[int]
    pids: list[int]


async def under_load(
    served: Served,
    cookie: str,
    clients: int,
    seconds: float,
    work: Callable[[int, Post], Awaitable[None]],
    headers: dict[str, str] | None = None,
) -> dict[str, Any]:
    """``clients`` clients, each on its own keep-alive connection (alternately to each
    worker), running ``work(k, post)`` again and again for ``seconds``: every request
    ``post`` makes is timed, and one that is not answered 200 counted as refused; and
    the CPU the workers, PostgreSQL, Redis and the clients spent per request."""
    from bench.loadclient import Connection

    ports = served.ports
    headers = {"X-CSRFToken": CSRF, "HX-Request": "true", "Cookie": cookie, **(headers or {})}
    latencies: list[float] = []
    refused = 0
    refused_ms: list[float] = []  # how long each refused request took (a timeout shows)
    deadline = time.perf_counter() + seconds

    async def client(k: int) -> None:
        http = Connection(ports[k % len(ports)], headers)

        async def post(path: str, data: dict[str, str]) -> tuple[int, bytes]:
            nonlocal refused
            start = time.perf_counter()
            status, body = await http.post(path, data)
            took = (time.perf_counter() - start) * 1000
            latencies.append(took)
            if status != 200:
                refused += 1
                refused_ms.append(took)
            return status, body

        try:
            while time.perf_counter() < deadline:
                await work(k, post)
        finally:
            http.close()

    began, cpu = time.perf_counter(), serving_cpu(served.pids)
    await asyncio.gather(*[client(k) for k in range(clients)])
    elapsed = time.perf_counter() - began
    spent = cpu_spent(cpu, serving_cpu(served.pids))
    requests = max(1, len(latencies))
    return {
        "clients": clients,
        "rps": len(latencies) / elapsed,
        "requests": len(latencies),
        "seconds": elapsed,
        "refused": refused,
        "refused_statuses_ms": summary(refused_ms) if refused_ms else None,
        # The tail's own count: requests slower than SLOW_MS (the quiet run of
        # 2026-11-28 had a purchase p99 of ~10.4 s, a 10 s timeout's mark).
        "slow": sum(1 for t in latencies if t >= SLOW_MS),
        "latency": summary(latencies),
        "cpu_ms": {kind: t / requests * 1000 for kind, t in spent.items()},
        "busy_cores": sum(spent.values()) / elapsed,
    }


def cpu_cell(figures: dict[str, Any]) -> str:
    """CPU ms per request of each class, and how many of the cores the load kept busy."""
    per = figures["cpu_ms"]
    return (
        " / ".join(f"{per[kind]:.2f}" for kind in CPU_CLASSES)
        + f" ({figures['busy_cores']:.2f} cores busy)"
    )


def _load_lines(what: str, figures: dict[str, Any]) -> list[str]:
    return [
        f"{what}, {figures['clients']} concurrent clients on 2 workers: "
        f"{figures['rps']:.0f} requests/s ({figures['requests']} requests in "
        f"{figures['seconds']:.1f} s, {figures['refused']} refused, "
        f"{figures['slow']} slower than {SLOW_MS / 1000:.0f} s)",
        line(f"{what}, request latency", figures["latency"]),
        f"{what}, CPU ms per request, {' / '.join(CPU_CLASSES)}: {cpu_cell(figures)}",
    ]


async def stack_ceiling(served: Served, cookies: dict[str, str]):
    """CLIENTS clients posting the bench's empty request (``campaign.views.bench``):
    what the server stack alone (ASGI server, middleware, session and user) allows."""

    async def empty(k: int, post: Post) -> None:
        await post("/bench/ceiling/", {})

    figures = await under_load(served, cookies["alice"], CLIENTS, CEILING_SECONDS, empty)
    return figures, _load_lines("stack ceiling: an empty signed-in POST", figures)


# The purchases' two answers: a page without a socket gets the buyer's changed
# fragments rendered in the answer (the purchase's whole cost: ``purchase_throughput``);
# a page whose socket is open gets an empty answer and the fragments through its
# socket.  With no socket open, the second renders nothing at all: the bound that the
# service and the stack alone set (``BOUND``).
ANSWERED = "purchase throughput (buy and cancel)"
BOUND = "the same purchases with nothing rendered (a live page's answer, no socket open)"


async def purchase_throughput(
    served: Served, ids: list[str], cookies: dict[str, str], *, rendered: bool = True
):
    """CLIENTS clients, each on its own campaign at 3.617, buy and cancel I4 in a loop
    (no socket open: each answer renders the buyer's changed fragments; or, not
    ``rendered``, answers as to a live page, so nothing is rendered anywhere)."""

    async def buy_and_cancel(k: int, post: Post) -> None:
        cid = ids[k]
        status, body = await post(f"/campaigns/{cid}/act/buy/", {"group": "I4", "variant": ""})
        if status != 200:
            return
        found = REF.search(body.decode())
        ref = found.group(1) if found else await asyncio.to_thread(active_purchase, cid)
        await post(f"/campaigns/{cid}/act/cancel/", {"purchase": str(ref)})

    figures = await under_load(
        served,
        cookies["alice"],
        len(ids),
        THROUGHPUT_SECONDS,
        buy_and_cancel,
        headers={} if rendered else {"X-Refit-Live": "1"},
    )
    return figures, _load_lines(ANSWERED if rendered else BOUND, figures)


# --------------------------------------------------------------------------- one run


def run_one(server: str, scale: int) -> dict[str, Any]:
    import django

    say(f"== {server}, x{scale} campaigns ==")
    began = time.perf_counter()
    fresh_database(DB)
    django.setup()
    from django.db import connections

    from bench.servers import Workers
    from campaign.models import Campaign

    users, cookies = players()
    reveal_ids = initiative_campaigns(users, CAMPAIGNS, "reveal")
    buy_ids = purchase_campaigns(users, CLIENTS, "buy")
    lock_ids = initiative_campaigns(users, 2 * SAMPLES, "lock")
    own_buy = purchase_campaigns(users, 2, "own buy")
    roster = roster_campaign(users)
    if scale > 1:
        templates = reveal_ids + buy_ids + lock_ids + own_buy + [roster]
        clone_campaigns(templates, scale - 1)
    analyze()
    total = Campaign.objects.count()
    say(f"{total} campaigns in the database (set up in {time.perf_counter() - began:.0f} s)")
    result: dict[str, Any] = {"server": server, "scale": scale, "campaigns": total}
    result["machine"] = {"before": reference_work()}

    result["requests"], result["gc"] = in_process(users, lock_ids, own_buy, roster)
    for name, f in result["requests"].items():
        cpu = f", CPU p50 {f['cpu_p50']:.1f} ms"
        say(line(f"in-process {name}, {statements(f)} queries{cpu}", f))
    say(
        "in-process garbage collections: {collections} ({full} full), longest pause "
        "{longest_ms:.1f} ms (CPU {longest_cpu_ms:.1f} ms; of a full one "
        "{longest_full_cpu_ms:.1f} ms), {total_ms:.0f} ms in all".format(**result["gc"])
    )
    connections.close_all()

    LOG_DIR.mkdir(parents=True, exist_ok=True)
    workers = Workers(server, 2, log_dir=LOG_DIR)
    try:
        result["reveal"], lines = asyncio.run(reveal_and_floor(workers.ports, reveal_ids, cookies))
        for text in lines:
            say(text)
        served = Served(workers.ports, workers.pids)
        result["ceiling"], lines = asyncio.run(stack_ceiling(served, cookies))
        for text in lines:
            say(text)
        result["throughput"], lines = asyncio.run(purchase_throughput(served, buy_ids, cookies))
        for text in lines:
            say(text)
        result["bound"], lines = asyncio.run(
            purchase_throughput(served, buy_ids, cookies, rendered=False)
        )
        for text in lines:
            say(text)
        result["rss_mib"] = workers.peak_rss_mib()
        say("peak RSS per worker: " + ", ".join(f"{r:.0f} MiB" for r in result["rss_mib"] if r))
    finally:
        workers.stop()
    connections.close_all()
    result["machine"]["after"] = reference_work()
    say(
        "reference work (machine speed, lower is faster), CPU p50 ms before / after: "
        "{:.2f} / {:.2f}".format(*(result["machine"][k]["p50"] for k in ("before", "after")))
    )
    result["seconds"] = time.perf_counter() - began
    return result


def reference_work() -> dict[str, float]:
    """How fast the machine is right now: a fixed piece of work that is not Refit's
    code (Django's template engine rendering a 200-row table from a template string,
    as a page does), the p50 of 30 runs in ms of CPU.  On the shared 2-core machine the
    same work takes 6.5 or 13 ms from one second to the next; the other figures move
    with it, so two runs can be compared through it (lower is faster)."""
    from django.template import Context, Engine

    template = Engine().from_string(
        '<table>{% for r in rows %}<tr id="r-{{ r.id }}"><td>{{ r.name|upper }}</td>'
        "<td>{{ r.cost }}</td><td>{% if r.mine %}{{ r.notes|default:'—' }}{% endif %}"
        "</td></tr>{% endfor %}</table>"
    )
    rows = [
        {"id": i, "name": f"rg {i}", "cost": i % 7, "mine": i % 2, "notes": ""} for i in range(200)
    ]
    times = []
    for _ in range(30):
        began = time.process_time()
        template.render(Context({"rows": rows}))
        times.append((time.process_time() - began) * 1000)
    return {"p50": pct(times, 50)}


# --------------------------------------------------------------------------- the driver


def child(args: list[str], env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run one part of the bench in its own process; its figures are its last line."""
    proc = subprocess.Popen(
        [sys.executable, *args],
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    found: dict[str, Any] = {}
    for text in proc.stdout:
        if text.startswith(MARK):
            found = json.loads(text[len(MARK) :])
        else:
            print("  " + text, end="", flush=True)
    if proc.wait() != 0:
        raise SystemExit(f"bench part failed: {' '.join(args)}")
    return found


P3 = ("p50", "p95", "p99")


def ms(s: dict[str, float] | None, *keys: str) -> str:
    if not s:
        return "—"
    return " / ".join(f"{s[k]:.1f}" for k in keys)


def cpu_p50(run: dict[str, Any], name: str) -> float:
    return float(run["requests"][name]["cpu_p50"])


def table(runs: list[dict[str, Any]]) -> list[str]:
    """Every figure of every run, one column per run."""
    heads = [f"{r['server']} x{r['scale']} #{r['repeat']}" for r in runs]
    rows: list[tuple[str, list[str]]] = []

    def row(name: str, get: Any) -> None:
        values = []
        for r in runs:
            try:
                values.append(get(r))
            except (KeyError, TypeError, ZeroDivisionError):
                values.append("—")
        rows.append((name, values))

    row("campaigns in the database", lambda r: str(r["campaigns"]))
    row(
        "reference work, CPU p50 ms before / after (machine speed: lower is faster)",
        lambda r: f"{r['machine']['before']['p50']:.2f} / {r['machine']['after']['p50']:.2f}",
    )
    for label, get in (
        (LABELS["paused"], lambda r: r["reveal"]),
        (LABELS["busy"], lambda r: r["reveal"]["busy"]),
    ):
        row(f"floor p50 / p95 / p99 ms, {label}", lambda r, g=get: ms(g(r)["floor"], *P3))
        row(
            f"reveal from sending the 2nd lock p50 / p95 / p99 ms, {label}",
            lambda r, g=get: ms(g(r)["reveal"], *P3),
        )
        row(
            f"reveal / floor (p50; p99), {label}",
            lambda r, g=get: (
                f"{g(r)['reveal']['p50'] / g(r)['floor']['p50']:.1f}x; "
                f"{g(r)['reveal']['p99'] / g(r)['floor']['p99']:.1f}x"
            ),
        )
        row(
            f"reveal after the 2nd lock's response p50 / p99 ms, {label}",
            lambda r, g=get: ms(g(r)["reveal_after_response"], "p50", "p99"),
        )
    row("reveals missed (later than 30 s)", lambda r: str(r["reveal"].get("missed", 0)))
    row(
        f"purchases, {CLIENTS} clients on 2 workers: requests/s",
        lambda r: f"{r['throughput']['rps']:.0f}",
    )
    row(
        "purchase latency p50 / p95 / p99 ms",
        lambda r: ms(r["throughput"]["latency"], "p50", "p95", "p99"),
    )
    row(
        f"purchases: CPU ms per request, {' / '.join(CPU_CLASSES)}",
        lambda r: cpu_cell(r["throughput"]),
    )
    row(
        f"under load, refused / slower than {SLOW_MS / 1000:.0f} s: purchases; bound; ceiling",
        lambda r: "; ".join(
            f"{r[k].get('refused', 0)} / {r[k].get('slow', 0)}"
            for k in ("throughput", "bound", "ceiling")
        ),
    )
    for label, key in (
        (BOUND, "bound"),
        (f"stack ceiling (an empty signed-in POST), {CLIENTS} clients", "ceiling"),
    ):
        row(
            f"{label}: requests/s; p50 / p99 ms",
            lambda r, k=key: f"{r[k]['rps']:.0f}; " + ms(r[k]["latency"], "p50", "p99"),
        )
        row(f"... CPU ms per request, {' / '.join(CPU_CLASSES)}", lambda r, k=key: cpu_cell(r[k]))
    names = list(runs[0].get("requests", {})) if runs else []
    for name in names:
        row(
            f"{name}: server p50 / p99 ms (CPU p50)",
            lambda r, n=name: (
                ms(r["requests"][n], "p50", "p99") + f" ({r['requests'][n]['cpu_p50']:.1f})"
            ),
        )
        row(f"{name}: SQL queries", lambda r, n=name: statements(r["requests"][n]))
    row(
        "in-process garbage collections (full); longest pause ms (CPU; a full one's CPU)",
        lambda r: (
            f"{r['gc']['collections']} ({r['gc']['full']}); {r['gc']['longest_ms']:.1f} "
            f"({r['gc']['longest_cpu_ms']:.1f}; {r['gc']['longest_full_cpu_ms']:.1f})"
        ),
    )
    row(
        "peak RSS per worker MiB",
        lambda r: " / ".join(f"{x:.0f}" for x in r["rss_mib"] if x is not None),
    )
    for backend in ("embedded", "real"):
        row(
            f"in-browser reveal ({backend}) p50 / p95 ms",
            lambda r, b=backend: (
                ms(r["browser"][b]["other"], "p50", "p95") + f" (n={r['browser'][b]['other']['n']})"
            ),
        )
    for backend in ("embedded", "real"):
        row(
            f"... its stages in the other browser p50 ms ({backend}): 1st frame in; in the "
            "DOM; painted",
            lambda r, b=backend: stage_line(r["browser"][b]["stages"]["other"], named=False),
        )
    for backend in ("embedded", "real"):
        row(
            f"in-browser buy or cancel ({backend}) p50 / p95 ms; Chromium CPU ms; step elements; "
            "kB pushed",
            lambda r, b=backend: _buying(r["browser"][b]["buy"]),
        )
    for backend in ("embedded", "real"):
        row(
            f"... its stages p50 ms ({backend}): answered; 1st frame in; in the DOM; painted",
            lambda r, b=backend: stage_line(r["browser"][b]["buy"]["stages"], named=False),
        )
    # Issue 49's goals, each a ratio of two figures of the same run (above).
    row(
        f"ratio: purchases at {CLIENTS} clients / stack ceiling (requests/s; goal >= 0.5)",
        lambda r: f"{r['throughput']['rps'] / r['ceiling']['rps']:.2f}",
    )
    row(
        "ratio: buy answering with fragments / live buy (CPU p50; goal <= 1.5)",
        lambda r: f"{cpu_p50(r, 'buy (answer)') / cpu_p50(r, 'buy (live)'):.2f}x",
    )
    row(
        f"ratio: reveal from sending the 2nd lock / floor, {LABELS['paused']} (p50; goal <= 3)",
        lambda r: f"{r['reveal']['reveal']['p50'] / r['reveal']['floor']['p50']:.1f}x",
    )
    row(
        "lock 2nd, reveals (live): SQL statements but savepoints (goal <= 8)",
        lambda r: str(r["requests"]["lock 2nd, reveals (live)"]["statements"]),
    )
    width = max(len(n) for n, _ in rows)
    out = ["| figure | " + " | ".join(heads) + " |", "|---|" + "---|" * len(heads)]
    out += [f"| {n:<{width}} | " + " | ".join(v) + " |" for n, v in rows]
    return out


# The stages of a change in the browser (``bench/browser.py``), each timed from the
# request leaving the acting page: that page's request answered (first byte), the
# page's socket's first frame in, the change in the DOM, the change painted.
STAGES = {"answered": "answered", "frame": "1st frame in", "dom": "in the DOM"}
STAGES["painted"] = "painted"


def stage_line(stages: dict[str, dict[str, float]], *, named: bool = True) -> str:
    """The p50 of each stage a page has (a page that sent nothing was not answered)."""
    return "; ".join(
        (f"{STAGES[stage]} " if named else "") + f"{stages[stage]['p50']:.1f}"
        for stage in STAGES
        if stage in stages
    )


def _buying(buy: dict[str, Any]) -> str:
    """The in-browser purchase's cell: request -> painted, Chromium CPU, elements, the
    frames pushed to the page."""
    return (
        f"{ms(buy['change'], 'p50', 'p95')}; {buy['chromium_ms']:.0f}; {buy['elements']}; "
        f"{buy['pushed_kb']:.1f}"
    )


def medians(runs: list[dict[str, Any]]) -> list[str]:
    """Per server and scale: the median over repeats of the headline figures."""
    out = []
    keys = sorted({(r["server"], r["scale"]) for r in runs})
    for server, scale in keys:
        mine = [r for r in runs if r["server"] == server and r["scale"] == scale]
        if len(mine) < 2:
            continue
        med = statistics.median
        out.append(
            f"{server} x{scale}, median of {len(mine)} runs: "
            f"reveal p50 {med(r['reveal']['reveal']['p50'] for r in mine):.1f} ms, "
            f"p99 {med(r['reveal']['reveal']['p99'] for r in mine):.1f} ms; "
            f"floor p50 {med(r['reveal']['floor']['p50'] for r in mine):.1f} ms; "
            f"purchases {med(r['throughput']['rps'] for r in mine):.0f} requests/s, "
            f"p99 {med(r['throughput']['latency']['p99'] for r in mine):.0f} ms"
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--servers", default=os.environ.get("BENCH_SERVERS", DEFAULT_SERVER))
    parser.add_argument("--repeat", type=int, default=int(os.environ.get("BENCH_REPEAT", 1)))
    parser.add_argument("--scales", default=os.environ.get("BENCH_SCALES", "1,10"))
    parser.add_argument("--no-browser", action="store_true")
    parser.add_argument("--json", help="also write every run's figures to this file")
    parser.add_argument("--one", action="store_true", help="one run in this process")
    parser.add_argument("--server", default=DEFAULT_SERVER)
    parser.add_argument("--scale", type=int, default=1)
    args = parser.parse_args()
    if args.one:
        result = run_one(args.server, args.scale)
        print(MARK + json.dumps(result), flush=True)
        return

    began = time.perf_counter()
    servers = [s.strip() for s in args.servers.split(",") if s.strip()]
    scales = [int(s) for s in args.scales.split(",") if s.strip()]
    say(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, {date.today().isoformat()}; "
        f"servers {', '.join(servers)}; scales {scales}; {args.repeat} repeat(s), interleaved"
    )
    runs: list[dict[str, Any]] = []
    try:
        for repeat in range(1, args.repeat + 1):
            for server in servers:
                for scale in scales:
                    run = child(
                        ["bench/run.py", "--one", "--server", server, "--scale", str(scale)]
                    )
                    run["repeat"] = repeat
                    if scale == 1 and not args.no_browser:
                        run["browser"] = {
                            backend: child(
                                ["bench/browser.py", "--backend", backend, "--server", server]
                            )
                            for backend in ("embedded", "real")
                        }
                    runs.append(run)
    finally:
        drop_database(DB)
        if args.json:
            Path(args.json).write_text(json.dumps(runs, indent=1))
    say("")
    for text in table(runs) + [""] + medians(runs):
        say(text)
    say(f"bench finished in {time.perf_counter() - began:.0f} s")


if __name__ == "__main__":
    main()
