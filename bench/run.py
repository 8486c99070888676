"""Refit benchmarks (``make bench``): they print figures, they assert nothing.

1. Reveal latency: 200 campaigns, 400 sockets on two ASGI workers sharing PostgreSQL
   and Redis; from the second initiative lock's HTTP response to both sockets holding
   the reveal — beside a bare Channels group-send echo on the same workers (the floor).
2. Roster page: SQL queries and server time with 11 CG dates and 60 purchases.
3. Purchase throughput: 50 concurrent clients buying and cancelling over HTTP.

Everything runs on loopback against the servers ``make services`` starts, in a
database of its own (``refit_bench``), and stops by itself.
"""

from __future__ import annotations

import asyncio
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
PG = os.environ.get("BENCH_PG", "postgres://refit:refit@127.0.0.1:5432")
os.environ["DATABASE_URL"] = f"{PG}/refit_bench"
os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6390/1")
os.environ["REFIT_BENCH_ECHO"] = "1"
os.environ.setdefault("DB_POOL_MAX", "20")  # per worker process, as docker-compose sets it
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"  # the bench drives the ORM from asyncio

CAMPAIGNS = int(os.environ.get("BENCH_CAMPAIGNS", 200))
CLIENTS = int(os.environ.get("BENCH_CLIENTS", 50))
THROUGHPUT_SECONDS = float(os.environ.get("BENCH_SECONDS", 15))
CSRF = "b" * 32


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1))))
    return ordered[k]


def report(name: str, values_ms: list[float]) -> str:
    return (
        f"{name}: n={len(values_ms)} p50={pct(values_ms, 50):.1f} ms "
        f"p95={pct(values_ms, 95):.1f} ms p99={pct(values_ms, 99):.1f} ms "
        f"max={max(values_ms):.1f} ms"
    )


def fresh_database() -> None:
    import psycopg

    with psycopg.connect(f"{PG}/postgres", autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS refit_bench WITH (FORCE)")
        conn.execute("CREATE DATABASE refit_bench")
    fixtures = ["loadmodules", "--dir", "tests/fixtures/modules"]
    for cmd in (["migrate", "-v0"], ["loadmodules"], fixtures):
        subprocess.run(
            [sys.executable, "manage.py", *cmd], cwd=ROOT, check=True, stdout=subprocess.DEVNULL
        )


class Workers:
    """The bench's two ASGI workers (the launcher the test suite uses too)."""

    def __init__(self, n: int = 2):
        from tests.servers import AsgiWorker

        self.ports = [8701 + i for i in range(n)]
        self.workers = [
            AsgiWorker(port=port, log_dir=ROOT / "var" / "bench", env={}) for port in self.ports
        ]
        for worker in self.workers:
            worker.wait_ready()

    def stop(self) -> None:
        for worker in self.workers:
            worker.stop()


def setup_campaigns(n: int):
    """n skirmish campaigns with alice (red) and bob (blue), placed at the initiative
    step (the position is set directly: the walk there is not what is measured)."""
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.test import Client

    from campaign.models import Campaign, Seat
    from campaign.selectors import module_of
    from campaign.services import hosting
    from rules import machine

    users = {}
    for name in ("alice", "bob"):
        users[name] = get_user_model().objects.create_user(name, password="bench-pass-1")
    ids = []
    for i in range(n):
        c = hosting.create_campaign(
            host=users["alice"],
            module_id="test-skirmish",
            variant_id="short",
            side="red",
            name=f"bench {i}",
            reveal_policy="step_end",
        )
        hosting.join_campaign(token=c.invitations.get().token, user=users["bob"])
        module = module_of(c)
        Campaign.objects.filter(pk=c.pk).update(
            step_index=machine.step_index(module, "T4.0"), date_index=1, cycle=1, in_play=False
        )
        ids.append(str(c.pk))
    Seat.objects.update(points=10**6)
    cookies = {}
    for name, user in users.items():
        client = Client()
        client.force_login(user)
        cookies[name] = f"sessionid={client.cookies['sessionid'].value}; csrftoken={CSRF}"
    return ids, cookies


async def reveal_latency(workers: Workers, ids: list[str], cookies: dict[str, str]) -> list[str]:
    import httpx
    import websockets
    from channels.layers import get_channel_layer

    a, b = workers.ports
    arrivals: dict[tuple[str, str], float] = {}
    sockets = []

    async def listen(ws, key, needle):
        async for frame in ws:
            if needle in frame and key not in arrivals:
                arrivals[key] = time.perf_counter()

    async def connect(url, cookie):
        return await websockets.connect(
            url,
            additional_headers={
                "Cookie": cookie,
                "Origin": url.replace("ws://", "http://").split("/ws/")[0],
            },
            max_size=2**22,
            open_timeout=30,
        )

    tasks = []
    for cid in ids:
        for who, port in (("alice", a), ("bob", b)):
            ws = await connect(f"ws://127.0.0.1:{port}/ws/campaigns/{cid}/", cookies[who])
            sockets.append(ws)
            tasks.append(asyncio.create_task(listen(ws, (cid, who), "Initiative revealed")))
    lines = [f"connected {len(sockets)} campaign sockets on 2 workers"]

    headers = {"X-CSRFToken": CSRF, "HX-Request": "true"}
    async with httpx.AsyncClient(timeout=30) as http:
        # First locks (Red), all campaigns; then the second lock (Blue), one at a time.
        await asyncio.gather(
            *[
                http.post(
                    f"http://127.0.0.1:{a}/campaigns/{cid}/act/chit/",
                    data={"chit": "idle"},
                    headers={**headers, "Cookie": cookies["alice"]},
                )
                for cid in ids
            ]
        )
        await asyncio.sleep(2)
        after_response, after_request = [], []
        for cid in ids:
            start = time.perf_counter()
            r = await http.post(
                f"http://127.0.0.1:{b}/campaigns/{cid}/act/chit/",
                data={"chit": "attack"},
                headers={**headers, "Cookie": cookies["bob"]},
            )
            responded = time.perf_counter()
            assert r.status_code == 200, r.text[:200]
            while not ((cid, "alice") in arrivals and (cid, "bob") in arrivals):
                await asyncio.sleep(0.0005)
                if time.perf_counter() - start > 10:
                    raise RuntimeError(f"no reveal for {cid}")
            both = max(arrivals[(cid, "alice")], arrivals[(cid, "bob")])
            after_response.append(max(0.0, both - responded) * 1000)
            after_request.append((both - start) * 1000)
    lines.append(
        report("reveal, from the 2nd lock's HTTP response to both sockets", after_response)
    )
    lines.append(report("reveal, from sending the 2nd lock to both sockets", after_request))
    for t in tasks:
        t.cancel()
    for ws in sockets:
        await ws.close()

    # The floor: a bare group_send through Redis to one socket on each worker.
    layer = get_channel_layer()
    echo_arrivals: dict[tuple[int, int], float] = {}
    echo = []

    async def listen_echo(ws, key):
        async for _ in ws:
            echo_arrivals[key] = time.perf_counter()

    for n in range(len(ids)):
        for k, port in enumerate((a, b)):
            ws = await connect(f"ws://127.0.0.1:{port}/ws/bench-echo/{n}/", cookies["alice"])
            echo.append((ws, asyncio.create_task(listen_echo(ws, (n, k)))))
    await asyncio.sleep(1)
    floor = []
    for n in range(len(ids)):
        start = time.perf_counter()
        await layer.group_send(f"bench-echo-{n}", {"type": "bench.echo", "text": "x"})
        while not ((n, 0) in echo_arrivals and (n, 1) in echo_arrivals):
            await asyncio.sleep(0.0005)
        floor.append((max(echo_arrivals[(n, 0)], echo_arrivals[(n, 1)]) - start) * 1000)
    name = f"floor: bare Channels group_send echo to 2 sockets ({len(echo)} open)"
    lines.append(report(name, floor))
    for ws, t in echo:
        t.cancel()
        await ws.close()
    return lines


def roster_page() -> list[str]:
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client

    from campaign.models import Campaign, Purchase, Unit
    from campaign.services import hosting

    users = get_user_model().objects
    host = users.create_user("roster_host", password="x-pass-123")
    guest = users.create_user("roster_guest", password="x-pass-123")
    c = hosting.create_campaign(
        host=host,
        module_id="sicily",
        variant_id="i",
        side="axis",
        name="roster bench",
        reveal_policy="owner",
    )
    hosting.join_campaign(token=c.invitations.get().token, user=guest)
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
    client = Client(HTTP_HOST="127.0.0.1")
    client.force_login(host)
    url = f"/campaigns/{c.pk}/roster/"
    queries = []

    def count(execute, sql, params, many, context):
        queries.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(count):
        assert client.get(url).status_code == 200
    times = []
    for _ in range(200):
        start = time.perf_counter()
        assert client.get(url).status_code == 200
        times.append((time.perf_counter() - start) * 1000)
    return [
        f"roster page, 11 dates + 60 purchases + 30 units: {len(queries)} queries",
        report("roster page server time (in-process, PostgreSQL)", times),
    ]


def active_purchase(campaign_id: str) -> str | None:
    from campaign.models import Purchase

    return (
        Purchase.objects.filter(campaign_id=campaign_id, status="active")
        .values_list("ref", flat=True)
        .first()
    )


async def purchase_throughput(workers: Workers, cookies: dict[str, str]) -> list[str]:
    """CLIENTS clients, each on its own campaign at 3.617, buy and cancel I4 in a loop."""
    import httpx
    from django.contrib.auth import get_user_model

    from campaign.models import Campaign
    from campaign.services import hosting

    users = get_user_model().objects
    alice, bob = users.get(username="alice"), users.get(username="bob")
    ids = []
    for i in range(CLIENTS):
        c = hosting.create_campaign(
            host=alice,
            module_id="sicily",
            variant_id="i",
            side="axis",
            name=f"buy {i}",
            reveal_policy="owner",
        )
        hosting.join_campaign(token=c.invitations.get().token, user=bob)
        Campaign.objects.filter(pk=c.pk).update(date_index=1, step_index=18, cycle=1)
        c.seats.update(points=10**6)
        ids.append(str(c.pk))
    headers = {
        "X-CSRFToken": CSRF,
        "HX-Request": "true",
        "Cookie": cookies["alice"],
    }
    latencies: list[float] = []
    refused = 0
    deadline = time.perf_counter() + THROUGHPUT_SECONDS

    async def client(k: int, http):
        nonlocal refused
        port = workers.ports[k % 2]
        cid = ids[k]
        while time.perf_counter() < deadline:
            start = time.perf_counter()
            r = await http.post(
                f"http://127.0.0.1:{port}/campaigns/{cid}/act/buy/",
                data={"group": "I4", "variant": ""},
                headers=headers,
            )
            latencies.append((time.perf_counter() - start) * 1000)
            if r.status_code != 200:
                refused += 1
                continue
            pid = await asyncio.to_thread(active_purchase, cid)
            start = time.perf_counter()
            r = await http.post(
                f"http://127.0.0.1:{port}/campaigns/{cid}/act/cancel/",
                data={"purchase": str(pid)},
                headers=headers,
            )
            latencies.append((time.perf_counter() - start) * 1000)
            refused += r.status_code != 200

    began = time.perf_counter()
    limits = httpx.Limits(max_connections=CLIENTS, max_keepalive_connections=CLIENTS)
    async with httpx.AsyncClient(timeout=60, limits=limits) as http:
        await asyncio.gather(*[client(k, http) for k in range(CLIENTS)])
    elapsed = time.perf_counter() - began
    return [
        f"purchase throughput, {CLIENTS} concurrent clients on 2 workers: "
        f"{len(latencies) / elapsed:.0f} requests/s ({len(latencies)} buy/cancel requests in "
        f"{elapsed:.1f} s, {refused} refused)",
        report("purchase request latency", latencies),
    ]


def main() -> None:
    began = time.perf_counter()
    py = platform.python_version()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {py}")
    fresh_database()
    ids, cookies = setup_campaigns(CAMPAIGNS)
    workers = Workers(2)
    try:
        for line in asyncio.run(reveal_latency(workers, ids, cookies)):
            print(line, flush=True)
        for line in roster_page():
            print(line, flush=True)
        for line in asyncio.run(purchase_throughput(workers, cookies)):
            print(line, flush=True)
    finally:
        workers.stop()
    print(f"bench finished in {time.perf_counter() - began:.0f} s")


if __name__ == "__main__":
    main()
