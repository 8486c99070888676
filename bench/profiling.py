"""Profile the lock, buy and roster paths (``python bench/profiling.py``).

The same campaigns as ``make bench`` (its database, ``$BENCH_DB``), the same
requests in-process through Django's ASGI handler (``AsyncClient``) on PostgreSQL +
Redis; each path is warmed up, then run ``--n`` times under cProfile, started in the
thread that runs the sync views (the event loop's own work is not in the profile).
Prints, per path, the functions with the most time of their own and the project's
functions with the most time including their callees.  ``--pyinstrument`` prints
pyinstrument's call tree instead.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import pstats
import re
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import run as bench  # noqa: E402  (sets the bench's environment)

LIVE = {"HX-Request": "true", "X-Refit-Live": "1", "X-Refit-Page": "campaign"}
ANSWER = {"HX-Request": "true", "X-Refit-Page": "campaign"}
Path_ = Callable[[], Awaitable[None]]
# What a path needs done before each of its runs, outside its timing and profile (the
# change a page "after a change" is loaded after).
UNTIMED: dict[Path_, Path_] = {}


async def prepare(run: Path_) -> None:
    """What ``run`` needs done first, untimed."""
    if run in UNTIMED:
        await UNTIMED[run]()


def paths(n: int) -> dict[str, Path_]:
    """Each path: a coroutine function doing one request (or one pair)."""
    from asgiref.sync import sync_to_async
    from django.conf import settings

    from campaign.models import Purchase

    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    users, _ = bench.players()
    red, blue = bench.worker_client(), bench.worker_client()
    red.force_login(users["alice"])
    blue.force_login(users["bob"])
    locks = iter(bench.initiative_campaigns(users, 2 * (n + 5), "lock"))
    buy, buy_answer = bench.purchase_campaigns(users, 2, "buy")
    roster = bench.roster_campaign(users)

    def ok(response: Any) -> None:
        assert response.status_code == 200, response.content[:300]

    @sync_to_async
    def active(cid: str) -> str:
        return Purchase.objects.filter(campaign_id=cid, status="active").values_list(
            "ref", flat=True
        )[0]

    def lock_pair(headers: dict[str, str]) -> Path_:
        async def run() -> None:
            url = f"/campaigns/{next(locks)}/act/chit/"
            ok(await red.post(url, {"chit": "idle"}, headers=headers))
            ok(await blue.post(url, {"chit": "attack"}, headers=headers))

        return run

    def buy_cancel(cid: str, headers: dict[str, str]) -> Path_:
        async def run() -> None:
            ok(await red.post(f"/campaigns/{cid}/act/buy/", {"group": "I4"}, headers=headers))
            ref = await active(cid)
            ok(await red.post(f"/campaigns/{cid}/act/cancel/", {"purchase": ref}, headers=headers))

        return run

    async def roster_page() -> None:
        ok(await red.get(f"/campaigns/{roster}/roster/"))

    async def campaign_page() -> None:
        ok(await red.get(f"/campaigns/{roster}/"))

    said = iter(range(1, 1_000_000))

    async def a_change() -> None:
        """A real change both seats see, made before the page is timed (``UNTIMED``):
        the opponent writes in the players' thread (``MessageSent``: a log line and a
        message, both seats renewed), answered as to his live page."""
        url = f"/campaigns/{roster}/messages/"
        ok(await blue.post(url, {"text": f"Message {next(said)}"}, headers=LIVE))

    async def campaign_page_after_a_change() -> None:
        ok(await red.get(f"/campaigns/{roster}/"))

    async def roster_page_after_a_change() -> None:
        ok(await red.get(f"/campaigns/{roster}/roster/"))

    UNTIMED[campaign_page_after_a_change] = a_change
    UNTIMED[roster_page_after_a_change] = a_change

    return {
        "lock, 1st + 2nd (live page)": lock_pair(LIVE),
        "lock, 1st + 2nd (answer with fragments)": lock_pair(ANSWER),
        "buy + cancel (live page)": buy_cancel(buy, LIVE),
        "buy + cancel (answer with fragments)": buy_cancel(buy_answer, ANSWER),
        "roster page": roster_page,
        "campaign page": campaign_page,
        "campaign page, after a change": campaign_page_after_a_change,
        "roster page, after a change": roster_page_after_a_change,
    }


def in_view_thread(fn: Callable[[], Any]) -> Any:
    """Run ``fn`` in the thread where Django's ASGI handler runs sync views (a
    profiler started there sees the views, the ORM and the templates)."""
    from asgiref.sync import SyncToAsync

    return SyncToAsync.single_thread_executor.submit(fn).result()


def report(stats: pstats.Stats, top: int) -> str:
    out = io.StringIO()
    stats.stream = out  # type: ignore[attr-defined]
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats(r"/(campaign|rules|config)/", top)
    text = out.getvalue()
    return "\n".join(
        ln
        for ln in text.splitlines()
        if ln.strip() and not ln.startswith(("   Ordered by", "   List reduced"))
    )


async def paired(run: Path_, n: int) -> None:
    """``run`` n times with compiled reads and n times without, alternating."""
    from campaign.prepared import PreparedRead

    times: dict[bool, tuple[list[float], list[float]]] = {True: ([], []), False: ([], [])}
    try:
        for _ in range(n):
            for once in (True, False):
                PreparedRead.compile_once = once
                await prepare(run)
                wall, cpu = time.perf_counter(), time.process_time()
                await run()
                times[once][0].append((time.perf_counter() - wall) * 1000)
                times[once][1].append((time.process_time() - cpu) * 1000)
    finally:
        PreparedRead.compile_once = True
    for once, label in ((False, "compiled at every call"), (True, "compiled once")):
        wall, cpu = (bench.pct(values, 50) for values in times[once])
        print(f"{label:>24}: p50 {wall:6.1f} ms, CPU p50 {cpu:6.1f} ms", flush=True)


async def timed(run: Path_, n: int) -> None:
    """``run`` n times: p50 of its wall and CPU time (the process's, every thread), and
    the SQL statements it ran, transaction control excluded (``bench.count_queries``;
    a buy + cancel pair counts the bench's own read of the reference it cancels)."""
    walls: list[float] = []
    cpus: list[float] = []
    statements: list[int] = []
    for _ in range(n):
        await prepare(run)
        before = bench.QUERIES[1]
        wall, cpu = time.perf_counter(), time.process_time()
        await run()
        walls.append((time.perf_counter() - wall) * 1000)
        cpus.append((time.process_time() - cpu) * 1000)
        statements.append(bench.QUERIES[1] - before)
    print(
        f"p50 {bench.pct(walls, 50):6.1f} ms, CPU p50 {bench.pct(cpus, 50):6.1f} ms, "
        f"SQL statements {min(statements)}-{max(statements)}",
        flush=True,
    )


def templates_only(n: int) -> None:
    """Django's template engine against Jinja2 on the hot parts (issue 49)."""
    from django.conf import settings

    from bench import templates

    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    users, _ = bench.players()
    (buy,) = bench.purchase_campaigns(users, 1, "tpl")
    roster = bench.roster_campaign(users)
    parts = templates.hot_parts(users["alice"], buy, roster)
    for line in templates.compare(parts, n=max(n, 50) * 4):
        print(line, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=50)
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--only", default="", help="a substring of the path names")
    parser.add_argument("--pyinstrument", action="store_true")
    parser.add_argument(
        "--cpu", action="store_true", help="cProfile timed by the views' thread's CPU time"
    )
    parser.add_argument("--dump", default="", help="also write each path's stats to DUMP.<path>")
    parser.add_argument(
        "--templates",
        action="store_true",
        help="no profiler: the hot parts (RG chart rows, CG Roster) rendered by Django's "
        "template engine and by Jinja2 (bench/templates.py), CPU p50 of each",
    )
    parser.add_argument(
        "--timed",
        action="store_true",
        help="no profiler: each path n times, p50 wall and CPU time of the process (compare "
        "two commits by running this alternately in each, on the same machine and hour)",
    )
    parser.add_argument(
        "--paired",
        action="store_true",
        help="no profiler: each path alternately with its reads compiled once and compiled "
        "at every call (campaign.prepared), p50 wall and CPU time of each",
    )
    args = parser.parse_args()
    bench.fresh_database(bench.DB)
    import django

    django.setup()
    if args.templates:
        templates_only(args.n)
        bench.drop_database(bench.DB)
        return
    bench.count_queries()  # every connection opened from here on (the views' thread's)
    todo = paths(args.n * (2 if args.paired else 1))  # a pair runs each path twice

    async def run_all() -> None:
        for name, run in todo.items():
            if args.only and args.only not in name:
                continue
            for _ in range(3):
                await prepare(run)
                await run()  # warm: templates, the parsed module, the pool
            print(f"\n===== {name}: {args.n} times =====", flush=True)
            if args.paired:
                await paired(run, args.n)
                continue
            if args.timed:
                await timed(run, args.n)
                continue
            if args.pyinstrument:
                from pyinstrument import Profiler

                profiler = Profiler(interval=0.0005, async_mode="disabled")
                for _ in range(args.n):
                    await prepare(run)
                    in_view_thread(profiler.start)
                    await run()
                    in_view_thread(profiler.stop)
                print(profiler.output_text(unicode=False, color=False))
                continue
            # --cpu: each function's CPU time in the views' thread, not its wall time
            # (on a shared machine the wall time is mostly waiting for PostgreSQL).
            prof = cProfile.Profile(time.thread_time) if args.cpu else cProfile.Profile()
            elapsed = 0.0
            for _ in range(args.n):
                await prepare(run)
                in_view_thread(prof.enable)
                began = time.perf_counter()
                await run()
                elapsed += time.perf_counter() - began
                in_view_thread(prof.disable)
            print(f"{elapsed / args.n * 1000:.1f} ms each under the profiler")
            if args.dump:
                prof.dump_stats(f"{args.dump}.{re.sub(r'[^a-z0-9]+', '-', name).strip('-')}")
            print(report(pstats.Stats(prof), args.top), flush=True)

    asyncio.run(run_all())
    bench.drop_database(bench.DB)


if __name__ == "__main__":
    main()
