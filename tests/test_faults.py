"""Issue 18: the fault suite.  A hosted stack — two daphne workers on a private
PostgreSQL cluster and a private Redis, so the shared servers are never touched — is
put under a burst of player actions while a fault strikes:

- a worker is killed (SIGKILL) mid-burst,
- Redis is stopped and started again (empty: nothing persisted),
- PostgreSQL is crashed and recovers (pg_ctl restart -m immediate).

Each test asserts that no acknowledged action is lost and none is applied twice, that
presence is right again within its expiry, that pushes resume, and that nothing
answers 5xx once the fault is over; and that no consumer raised (daphne's
"Exception inside application").  The figures (actions sent / acknowledged / applied
/ lost / duplicated, seconds until presence and pushes were right) are written to
test-artifacts/fault-figures.json for the record; no wall-clock time is asserted
beyond generous waiting limits.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import tempfile
import time
from pathlib import Path

import httpx
import pytest

from tests.conftest import ARTIFACTS
from tests.faults import (
    SECRET_KEY,
    Ledger,
    PrivatePostgres,
    PrivateRedis,
    Stack,
    Watcher,
    add_unit,
    applied_units,
    hosted_template,
    pg_bin,
)

# One process runs them all: the template cluster is made once (tests/faults.py).  make
# test-real runs them in a process of their own beside the rest (marker "faults").
pytestmark = [
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.faults,
    pytest.mark.xdist_group("faults"),
]

HEARTBEAT, TTL = 1.0, 3.0
FIGURES = ARTIFACTS / "fault-figures.json"


def record(fault: str, figures: dict) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    data = json.loads(FIGURES.read_text()) if FIGURES.exists() else {}
    data[fault] = figures
    FIGURES.write_text(json.dumps(data, indent=2, sort_keys=True))
    print(f"\n{fault}: {json.dumps(figures, sort_keys=True)}")


@pytest.fixture
def servers():
    if pg_bin() is None or shutil.which("redis-server") is None:
        pytest.fail("the fault suite needs PostgreSQL's binaries and redis-server (make services)")
    template, _ = hosted_template()
    root = Path(tempfile.mkdtemp(prefix="refit-faults-"))
    root.chmod(0o755)  # the postgres user reaches its cluster directory
    pg = PrivatePostgres(root, template)
    redis = PrivateRedis(root)
    yield pg, redis
    redis.stop()
    pg.stop()
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def stack(servers):
    pg, redis = servers
    stack = Stack(
        env={
            "DATABASE_URL": pg.url,
            "REDIS_URL": redis.url,
            "SECRET_KEY": SECRET_KEY,
            "DB_POOL_MAX": "4",
            "DB_POOL_TIMEOUT": "2",  # a request waits this long for the database
            "REFIT_PRESENCE_HEARTBEAT": str(HEARTBEAT),
            "REFIT_PRESENCE_TTL": str(TTL),
            "REFIT_PRESENCE_RESYNC_BEATS": "5",
            "LOG_LEVEL": "WARNING",
        },
        log_dir=ARTIFACTS / "faults",
    )
    stack.hosted(hosted_template()[1])  # the template's campaign, in the copy
    yield stack
    stack.stop()


def unhandled(stack: Stack) -> list[str]:
    """Tracebacks any worker logged: outages are one-line warnings, so a traceback is
    an exception that escaped (a consumer, a view, a background task, daphne)."""
    return stack.tracebacks()


async def burst(
    http, stack, names, route, ledger, *, concurrent: int = 4, between=None
) -> list[tuple[str, float, int | None]]:
    """Send the actions ``concurrent`` at a time; ``route(i)`` picks the worker of the
    i-th; ``between(i)`` runs before the i-th wave.  Returns (name, start, status)."""
    results = []
    for start in range(0, len(names), concurrent):
        if between is not None:
            await between(start)
        wave = names[start : start + concurrent]
        began = time.monotonic()
        statuses = await asyncio.gather(
            *(add_unit(http, stack, route(start + k), n, ledger) for k, n in enumerate(wave))
        )
        results += [(n, began, s) for n, s in zip(wave, statuses, strict=True)]
    return results


# --------------------------------------------------------------------------- a worker killed


async def test_a_worker_killed_mid_burst_loses_nothing_and_presence_heals(stack):
    one, two = stack.start_worker(), stack.start_worker()
    guest = await Watcher(stack, two, "guest").open()
    host = await Watcher(stack, one, "host").open()
    await guest.until_opponent(True)
    ledger = Ledger()
    names = [f"kill-{n:03d}" for n in range(60)]
    killed_at = 0.0

    def route(i: int):
        return one if one.proc.poll() is None and i % 2 == 0 else two

    async def kill_during_wave(i: int) -> None:
        nonlocal killed_at
        if i == 20:  # the sixth wave: its requests to the first worker are in flight
            asyncio.get_running_loop().call_later(0.01, one.kill)
            killed_at = time.monotonic() + 0.01

    async with httpx.AsyncClient(timeout=20) as http:
        await burst(http, stack, names, route, ledger, between=kill_during_wave)
        offline_at = await guest.until_opponent(False, timeout=30)
        last = max(ledger.acknowledged)
        await guest.until(f"adds {last} ")  # pushes kept flowing through the other worker
        # Recovery: the worker comes back, the host's page reconnects to it.
        one.restart()
        recovered_at = time.monotonic()
        await host.close()
        host = await Watcher(stack, one, "host").open()
        online_at = await guest.until_opponent(True, timeout=30)
        after = Ledger()
        await burst(
            http, stack, [f"after-kill-{n}" for n in range(10)], lambda i: (one, two)[i % 2], after
        )
        pages = [
            (
                await http.get(f"{w.url}/campaigns/{stack.campaign_id}/", headers=stack.headers(p))
            ).status_code
            for w in (one, two)
            for p in ("host", "guest")
        ]
    applied = applied_units(stack.env["DATABASE_URL"], stack.campaign_id)
    figures = ledger.figures(applied)
    figures |= {
        "presence_offline_after_kill_s": round(offline_at - killed_at, 2),
        "presence_online_after_restart_s": round(online_at - recovered_at, 2),
        "ttl_s": TTL,
        "heartbeat_s": HEARTBEAT,
        "after_recovery": after.figures(applied),
        "statuses": dict(ledger.statuses),
    }
    record("worker killed mid-burst", figures)
    assert figures["lost"] == 0 and figures["duplicated"] == 0
    assert figures["applied"] >= figures["acknowledged"]
    assert set(after.statuses) == {200} and pages == [200, 200, 200, 200]
    assert after.figures(applied)["lost"] == 0
    await host.close()
    await guest.close()
    assert not unhandled(stack)


# --------------------------------------------------------------------------- Redis


async def test_redis_stopped_and_restarted_actions_apply_and_pushes_resume(stack, servers):
    _, redis = servers
    one, two = stack.start_worker(), stack.start_worker()
    guest = await Watcher(stack, two, "guest").open()
    host = await Watcher(stack, one, "host").open()
    await guest.until_opponent(True)
    ledger = Ledger()

    def route(i: int):
        return (one, two)[i % 2]

    async with httpx.AsyncClient(timeout=30) as http:
        await burst(http, stack, [f"before-{n:02d}" for n in range(8)], route, ledger)
        await guest.until("adds before-07 ")
        redis.stop()
        down_at = time.monotonic()
        during = await burst(http, stack, [f"during-{n:02d}" for n in range(8)], route, ledger)
        slowest_during = max(ledger.seconds[n] for n, _, _ in during)
        # A page opened during the outage is accepted and shows the state.
        late = await Watcher(stack, two, "host").open()
        await late.until('id="campaign-header"')
        redis.start()
        up_at = time.monotonic()
        # Without any new action, the guest's page catches up by itself (resync).
        resynced_at = await guest.until("adds during-07 ", since=down_at)
        # New sockets on both workers right after the restart: accepted.
        fresh = [await Watcher(stack, w, "guest").open() for w in (one, two)]
        for watcher in fresh:
            await watcher.until('id="campaign-header"')
        # Pushes flow live again.
        pushed_from = time.monotonic()
        await burst(http, stack, [f"after-{n:02d}" for n in range(8)], route, ledger)
        live_at = await guest.until("adds after-07 ", since=pushed_from)
        await guest.until_opponent(True)
    applied = applied_units(stack.env["DATABASE_URL"], stack.campaign_id)
    figures = ledger.figures(applied)
    figures |= {
        "outage_s": round(up_at - down_at, 2),
        "page_resynced_after_restart_s": round(resynced_at - up_at, 2),
        "push_after_restart_s": round(live_at - pushed_from, 2),
        "actions_during_outage_status": sorted({s for _, _, s in during if s}),
        "slowest_action_during_outage_s": round(slowest_during, 2),
        "statuses": dict(ledger.statuses),
        "presence_correct": guest.opponent_online(),
    }
    record("Redis stopped and restarted", figures)
    assert figures["lost"] == 0 and figures["duplicated"] == 0
    assert figures["applied"] == figures["sent"] == figures["acknowledged"]
    assert set(ledger.statuses) == {200}  # HTTP never needed Redis
    for watcher in (guest, host, late, *fresh):
        await watcher.close()
    assert not unhandled(stack)


# --------------------------------------------------------------------------- PostgreSQL


async def test_postgresql_crash_and_recovery_loses_nothing_and_5xx_stop(stack, servers):
    pg, _ = servers
    one, two = stack.start_worker(), stack.start_worker()
    guest = await Watcher(stack, two, "guest").open()
    host = await Watcher(stack, one, "host").open()
    await guest.until_opponent(True)
    ledger = Ledger()
    crashed_at = recovered_at = 0.0
    restart: asyncio.Task[None] | None = None
    downtime = TTL + 1.5  # longer than presence's expiry and the pool's patience

    def route(i: int):
        return (one, two)[i % 2]

    async def crash_during_wave(i: int) -> None:
        nonlocal restart, crashed_at
        if i == 16:
            crashed_at = time.monotonic()
            restart = asyncio.create_task(asyncio.to_thread(pg.crash, downtime))

            def done(_):
                nonlocal recovered_at
                recovered_at = time.monotonic()

            restart.add_done_callback(done)

    async with httpx.AsyncClient(timeout=30) as http:
        results = await burst(
            http,
            stack,
            [f"pg-{n:03d}" for n in range(48)],
            route,
            ledger,
            between=crash_during_wave,
        )
        assert restart is not None
        await restart
        after = Ledger()
        await burst(http, stack, [f"after-pg-{n:02d}" for n in range(12)], route, after)
        last = max(after.acknowledged)
        pushed_at = await guest.until(f"adds {last} ")
        await guest.until_opponent(True, timeout=30)
    applied = applied_units(stack.env["DATABASE_URL"], stack.campaign_id)
    after_recovery = [s for _, began, s in results if began > recovered_at]
    changes = guest.presence_changes(since=crashed_at)
    offline = next((at for at, online in changes if not online), None)
    back = next((at for at, online in changes if online and offline and at > offline), None)
    figures = ledger.figures(applied)
    figures |= {
        "downtime_s": downtime,
        "statuses": dict(ledger.statuses),
        "answered_5xx_after_recovery": len([s for s in after_recovery if s is None or s >= 500]),
        "after_recovery": after.figures(applied),
        "push_after_recovery_s": round(pushed_at - recovered_at, 2),
        "presence_shown_offline_after_crash_s": offline and round(offline - crashed_at, 2),
        "presence_online_again_after_recovery_s": back and round(back - recovered_at, 2),
    }
    record("PostgreSQL crash and recovery", figures)
    assert figures["lost"] == 0 and figures["duplicated"] == 0
    assert figures["answered_5xx_after_recovery"] == 0
    assert set(after.statuses) == {200} and after.figures(applied)["lost"] == 0
    # A request that failed during the outage said so: 503 with a sentence, not 500.
    assert not {s for s in ledger.statuses if s >= 500} - {503}
    await host.close()
    await guest.close()
    assert not unhandled(stack)


# --------------------------------------------------------------------------- everything


async def test_everything_restarted_presence_and_pushes_come_right(stack, servers):
    """Both workers killed, Redis restarted empty, PostgreSQL crashed, then the stack
    comes back: pages reconnect, presence is right within its expiry, nothing acked
    is lost, pushes flow."""
    pg, redis = servers
    one, two = stack.start_worker(), stack.start_worker()
    guest = await Watcher(stack, two, "guest").open()
    host = await Watcher(stack, one, "host").open()
    await guest.until_opponent(True)
    ledger = Ledger()

    async with httpx.AsyncClient(timeout=30) as http:
        await burst(
            http,
            stack,
            [f"all-before-{n:02d}" for n in range(8)],
            lambda i: (one, two)[i % 2],
            ledger,
        )
        for worker in (one, two):
            worker.kill()
        redis.stop()
        await asyncio.to_thread(pg.crash, 1.0)
        redis.start()
        one, two = stack.start_worker(), stack.start_worker()
        back_at = time.monotonic()
        # Only the guest comes back: the host's row, left by a killed worker, expires.
        await guest.close()
        guest = await Watcher(stack, two, "guest").open()
        offline_at = await guest.until_opponent(False, timeout=30)
        host = await Watcher(stack, one, "host").open()
        online_at = await guest.until_opponent(True, timeout=30)
        pushed_from = time.monotonic()
        await burst(
            http,
            stack,
            [f"all-after-{n:02d}" for n in range(8)],
            lambda i: (one, two)[i % 2],
            ledger,
        )
        live_at = await guest.until("adds all-after-07 ", since=pushed_from)
    applied = applied_units(stack.env["DATABASE_URL"], stack.campaign_id)
    figures = ledger.figures(applied) | {
        "presence_offline_after_restart_s": round(offline_at - back_at, 2),
        "presence_online_after_host_returns_s": round(online_at - offline_at, 2),
        "push_after_restart_s": round(live_at - pushed_from, 2),
        "statuses": dict(ledger.statuses),
        "ttl_s": TTL,
    }
    record("everything restarted", figures)
    assert figures["lost"] == 0 and figures["duplicated"] == 0
    assert set(ledger.statuses) == {200}
    await host.close()
    await guest.close()
    assert not unhandled(stack)
