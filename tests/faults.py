"""The fault suite's machinery: a private PostgreSQL cluster and a private Redis that a
test may stop, kill and restart without touching the shared servers; a stack of
daphne workers on them; players who act over HTTP and watch over websockets; and the
ledger that counts actions sent, acknowledged, applied, lost and duplicated.

Run as a module (``python -m tests.faults setup``) it prepares a campaign on the
database named by DATABASE_URL and prints its id and the players' cookies.  That is
done once per test process, on a template cluster (``hosted_template``); each test's
cluster starts from a copy of it.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import websockets

from tests.servers import ROOT, AsgiWorker, free_port

PG_BIN = Path("/usr/lib/postgresql")
CSRF = "f" * 32
SECRET_KEY = "fault-suite-" + "k" * 50


def _as_postgres(command: str) -> subprocess.CompletedProcess[str]:
    """Run a PostgreSQL tool as the postgres user (the server refuses to run as root)."""
    argv = ["su", "postgres", "-c", command] if os.geteuid() == 0 else ["sh", "-c", command]
    return subprocess.run(argv, capture_output=True, text=True, check=True)


def pg_bin() -> Path | None:
    versions = sorted(PG_BIN.glob("*/bin/initdb"))
    return versions[-1].parent if versions else None


class PrivatePostgres:
    """A throw-away PostgreSQL cluster on a free loopback port, owned by the test: a new
    one, or a copy of a stopped cluster's data directory (``template``)."""

    def __init__(self, root: Path, template: Path | None = None):
        binary = pg_bin()
        assert binary is not None, "PostgreSQL is not installed"
        self.bin = binary
        self.root = root / "pg"
        self.root.mkdir(parents=True)
        self.data = self.root / "data"
        self.port = free_port()
        if os.geteuid() == 0:
            shutil.chown(self.root, "postgres", "postgres")
        if template is not None:
            _as_postgres(f"cp -a {template} {self.data}")
            self.start()
            return
        _as_postgres(f"{self.bin}/initdb -D {self.data} -U postgres --auth=trust -E UTF8 --no-sync")
        self.start()
        for sql in (
            "CREATE ROLE refit LOGIN CREATEDB PASSWORD 'refit'",
            "CREATE DATABASE refit OWNER refit",
        ):
            self.psql(sql)

    @property
    def url(self) -> str:
        return f"postgres://refit:refit@127.0.0.1:{self.port}/refit"

    def psql(self, sql: str) -> str:
        return _as_postgres(
            f'{self.bin}/psql -h 127.0.0.1 -p {self.port} -U postgres -qtA -c "{sql}"'
        ).stdout

    def _ctl(self, action: str, *extra: str) -> None:
        options = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off"
        _as_postgres(
            f"{self.bin}/pg_ctl -D {self.data} -l {self.root}/server.log -o '{options}' "
            f"-w {' '.join(extra)} {action}"
        )

    def start(self) -> None:
        self._ctl("start")

    def restart(self) -> None:
        """A crash and a recovery: every connection is cut, nothing is shut down
        cleanly (immediate mode), the server recovers from its WAL."""
        self._ctl("restart", "-m", "immediate")

    def crash(self, downtime: float) -> None:
        """Crash (immediate stop), stay down ``downtime`` seconds, recover."""
        self._ctl("stop", "-m", "immediate")
        time.sleep(downtime)
        self.start()

    def stop(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError):
            self._ctl("stop", "-m", "immediate")


class PrivateRedis:
    """A redis-server on a free loopback port, nothing persisted: a restart empties it."""

    def __init__(self, root: Path):
        self.port = free_port()
        self.dir = root
        self.proc: subprocess.Popen[bytes] | None = None
        self.start()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.dir),
            ],
            stdout=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while subprocess.run(
            ["redis-cli", "-p", str(self.port), "ping"], capture_output=True
        ).returncode:
            assert time.monotonic() < deadline, "redis did not start"
            time.sleep(0.05)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)


@functools.cache
def hosted_template() -> tuple[Path, dict]:
    """A stopped cluster's data directory holding Refit migrated, the modules loaded and
    a campaign hosted (``python -m tests.faults setup``), with what the setup printed.
    Made once per test process: each fault test starts from a copy (a new cluster and
    the setup cost ~4 s a test; the copy ~0.3 s)."""
    root = Path(tempfile.mkdtemp(prefix="refit-faults-template-"))
    root.chmod(0o755)  # the postgres user reaches its cluster directory
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    pg = PrivatePostgres(root)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "tests.faults", "setup"],
            cwd=ROOT,
            env={**os.environ, "DATABASE_URL": pg.url, "SECRET_KEY": SECRET_KEY},
            capture_output=True,
            text=True,
        )
    finally:
        pg.stop()
    assert done.returncode == 0, done.stderr[-3000:]
    return pg.data, json.loads(done.stdout.strip().splitlines()[-1])


@dataclass
class Stack:
    """Workers on a private database and Redis, and a campaign hosted on them."""

    env: dict[str, str]
    log_dir: Path
    workers: list[AsgiWorker] = field(default_factory=list)
    campaign_id: str = ""
    cookies: dict[str, str] = field(default_factory=dict)

    def hosted(self, data: dict) -> None:
        """The campaign and the players' cookies the setup printed."""
        self.campaign_id = data["campaign"]
        self.cookies = data["cookies"]

    def start_worker(self) -> AsgiWorker:
        worker = AsgiWorker(log_dir=self.log_dir, env=self.env).wait_ready()
        self.workers.append(worker)
        return worker

    def stop(self) -> None:
        for worker in self.workers:
            if worker.proc.poll() is None:
                worker.stop()
            else:
                worker.log.close()

    def tracebacks(self) -> list[str]:
        """Unhandled exceptions any worker logged (outages are one-line warnings)."""
        found = []
        for worker in self.workers:
            text = worker.log_path.read_text()
            found += [block[:400] for block in text.split("Traceback")[1:]]
        return found

    def headers(self, player: str) -> dict[str, str]:
        return {
            "Cookie": f"sessionid={self.cookies[player]}; csrftoken={CSRF}",
            "X-CSRFToken": CSRF,
            "HX-Request": "true",
        }


@dataclass
class Ledger:
    """What a burst of actions did.  An action is a unit with a unique name: it is
    applied if its unit exists, duplicated if it exists twice, lost if the server
    acknowledged it (2xx) and it does not exist."""

    sent: list[str] = field(default_factory=list)
    acknowledged: set[str] = field(default_factory=set)
    failed: dict[str, str] = field(default_factory=dict)  # name -> what the client saw
    statuses: Counter[int] = field(default_factory=Counter)
    seconds: dict[str, float] = field(default_factory=dict)  # how long each took

    def figures(self, applied_names: list[str]) -> dict[str, int]:
        counts = Counter(applied_names)
        burst = [n for n in counts if n in set(self.sent)]
        return {
            "sent": len(self.sent),
            "acknowledged": len(self.acknowledged),
            "failed_or_unanswered": len(self.failed),
            "applied": len(burst),
            "lost": len([n for n in self.acknowledged if counts[n] == 0]),
            "duplicated": len([n for n in burst if counts[n] > 1]),
            "unacknowledged_but_applied": len([n for n in self.failed if counts[n] == 1]),
        }


async def add_unit(
    http: httpx.AsyncClient, stack: Stack, worker: AsgiWorker, name: str, ledger: Ledger
) -> int | None:
    """The host adds a retained unit named ``name`` through ``worker``."""
    ledger.sent.append(name)
    began = time.monotonic()
    try:
        return await _add_unit(http, stack, worker, name, ledger)
    finally:
        ledger.seconds[name] = time.monotonic() - began


async def _add_unit(
    http: httpx.AsyncClient, stack: Stack, worker: AsgiWorker, name: str, ledger: Ledger
) -> int | None:
    try:
        response = await http.post(
            f"{worker.url}/campaigns/{stack.campaign_id}/units/",
            data={"do": "add", "name": name, "status": "ok"},
            headers=stack.headers("host"),
        )
    except httpx.HTTPError as exc:
        ledger.failed[name] = type(exc).__name__
        return None
    ledger.statuses[response.status_code] += 1
    if response.status_code == 200:
        ledger.acknowledged.add(name)
    else:
        ledger.failed[name] = str(response.status_code)
    return response.status_code


class Watcher:
    """A player's campaign page over a websocket: every frame it receives, with the
    time it arrived, and whether it shows the opponent online."""

    def __init__(self, stack: Stack, worker: AsgiWorker, player: str):
        self.stack, self.worker, self.player = stack, worker, player
        self.frames: list[tuple[float, str]] = []
        self.closed = asyncio.Event()
        self.ws: websockets.ClientConnection | None = None
        self.task: asyncio.Task[None] | None = None

    async def open(self) -> Watcher:
        url = (
            self.worker.url.replace("http://", "ws://") + f"/ws/campaigns/{self.stack.campaign_id}/"
        )
        self.ws = await websockets.connect(
            url,
            additional_headers={
                "Cookie": f"sessionid={self.stack.cookies[self.player]}",
                "Origin": self.worker.url,
            },
            max_size=2**22,
            open_timeout=20,
        )
        self.task = asyncio.create_task(self._listen())
        return self

    async def _listen(self) -> None:
        assert self.ws is not None
        try:
            async for frame in self.ws:
                self.frames.append((time.monotonic(), str(frame)))
        except websockets.ConnectionClosed:
            pass
        finally:
            self.closed.set()

    async def until(self, needle: str, timeout: float = 30, since: float = 0.0) -> float:
        """When a frame containing ``needle`` arrived (after ``since``)."""
        deadline = time.monotonic() + timeout
        while True:
            for at, frame in self.frames:
                if at >= since and needle in frame:
                    return at
            if time.monotonic() > deadline:
                raise AssertionError(f"{self.player}: no frame with {needle!r} in {timeout} s")
            await asyncio.sleep(0.05)

    def opponent_online(self) -> bool | None:
        """What the page's last sides fragment says of the opponent."""
        for _, frame in reversed(self.frames):
            if 'id="campaign-sides"' in frame:
                return 'class="presence online"' in frame
        return None

    def presence_changes(self, since: float) -> list[tuple[float, bool]]:
        """(when, online) for each sides fragment received after ``since``."""
        return [
            (at, 'class="presence online"' in frame)
            for at, frame in self.frames
            if at >= since and 'id="campaign-sides"' in frame
        ]

    async def until_opponent(self, online: bool, timeout: float = 30) -> float:
        deadline = time.monotonic() + timeout
        while self.opponent_online() is not online:
            if time.monotonic() > deadline:
                raise AssertionError(f"{self.player}: opponent never shown online={online}")
            await asyncio.sleep(0.05)
        return time.monotonic()

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self.task is not None:
            await asyncio.wait([self.task], timeout=5)


def applied_units(database_url: str, campaign_id: str) -> list[str]:
    import psycopg

    with psycopg.connect(database_url.replace("postgres://", "postgresql://")) as conn:
        rows = conn.execute(
            "SELECT name FROM campaign_unit WHERE campaign_id = %s", (campaign_id,)
        ).fetchall()
    return [r[0] for r in rows]


# --------------------------------------------------------------------------- setup


def _setup() -> None:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client

    from campaign.services.modules import load_modules
    from rules.loader import MODULE_DIR
    from tests.walk import host_game

    call_command("migrate", verbosity=0, interactive=False)
    load_modules(directory=MODULE_DIR)
    load_modules(directory=Path(__file__).parent / "fixtures" / "modules")
    users = get_user_model().objects
    host = users.create_user("host", password="correct-horse-9")
    guest = users.create_user("guest", password="correct-horse-9")
    campaign = host_game("test-skirmish", "short", host, guest, name="Faults")
    cookies = {}
    for name, user in (("host", host), ("guest", guest)):
        client = Client()
        client.force_login(user)
        cookies[name] = client.cookies["sessionid"].value
    print(json.dumps({"campaign": str(campaign.pk), "cookies": cookies}))


if __name__ == "__main__" and sys.argv[1:] == ["setup"]:
    _setup()
