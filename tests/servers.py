"""One launcher for real ASGI worker processes, shared by the test suite and the
benchmarks: a worker serving ``config.asgi`` on a loopback port, started with the
given environment, waited for until it answers, and stopped; and how both launch
Debian's Chromium."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


class ServerLog:
    """The lines a worker logged since this was made: no request may end in a 5xx."""

    def __init__(self, path: Path):
        self.path = path
        self.start = path.stat().st_size if path.exists() else 0

    def new_lines(self) -> list[str]:
        with self.path.open() as fh:
            fh.seek(self.start)
            return fh.read().splitlines()

    def server_errors(self) -> list[str]:
        return [
            line
            for line in self.new_lines()
            if ('" 5' in line and " - - [" in line)
            or "Traceback" in line
            or "Internal Server Error" in line
        ]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class AsgiWorker:
    """A daphne process serving Refit on 127.0.0.1:``port``."""

    def __init__(
        self,
        *,
        port: int | None = None,
        log_dir: Path,
        env: dict[str, str],
        args: tuple[str, ...] = (),
    ):
        self.args = args  # more daphne options, e.g. ("--proxy-headers",)
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        log_dir.mkdir(parents=True, exist_ok=True)
        self.log_path = log_dir / f"worker-{self.port}.log"
        self.log = self.log_path.open("w")
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "PYTHONUNBUFFERED": "1",  # the log is read while the worker runs
            **env,
        }
        if self.env.get("REFIT_HTTPS") != "1":
            # The test process's cheap password hashes (tests/conftest.py).
            self.env.setdefault("REFIT_TEST_FAST_PASSWORDS", "1")
        self.proc = self._spawn()

    def command(self) -> list[str]:
        """The worker's command line, without the application (daphne here)."""
        command = [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(self.port)]
        return command + list(self.args)

    def _spawn(self) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [*self.command(), "config.asgi:application"],
            cwd=ROOT,
            env=self.env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )

    def wait_ready(self, timeout: float = 30) -> AsgiWorker:
        deadline = time.monotonic() + timeout
        while True:
            try:
                # As the TLS proxy would ask (a worker with REFIT_HTTPS=1 redirects
                # plain requests; others ignore the header).
                request = urllib.request.Request(
                    self.url + "/login/", headers={"X-Forwarded-Proto": "https"}
                )
                urllib.request.urlopen(request, timeout=1).read()
                return self
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"the worker did not start; see {self.log_path}") from None
                time.sleep(0.2)

    def restart(self) -> AsgiWorker:
        self.stop(close_log=False)
        self.proc = self._spawn()
        return self.wait_ready()

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=10)

    def stop(self, *, close_log: bool = True) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        if close_log:
            self.log.close()
