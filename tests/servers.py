"""One launcher for real ASGI worker processes, shared by the test suite and the
benchmarks: a worker serving ``config.asgi`` on a loopback port, started with the
given environment, waited for until it answers, and stopped; and how both launch
Debian's Chromium."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APP = "config.asgi:application"
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


def image_command(host: str, port: int) -> list[str]:
    """The web image's command line (the Dockerfile's CMD, which docker-compose runs
    for every web replica) with this machine's Python, bound to ``host:port``."""
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    found = re.search(r"^CMD\s+(\[.*\])\s*$", text, re.MULTILINE)
    assert found, "the Dockerfile has no CMD in exec form"
    command = [str(part) for part in json.loads(found.group(1))]
    assert command[0] == "uvicorn" and APP in command, command
    bound = {"--host": host, "--port": str(port)}
    for n, part in enumerate(command):
        flag = part.split("=", 1)[0]
        if flag in bound:
            command[n] = f"{flag}={bound.pop(flag)}"
    assert not bound, f"the Dockerfile's CMD does not set {', '.join(bound)}"
    return [sys.executable, "-m", *command]


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
        host: str = "127.0.0.1",
    ):
        self.args = args  # more daphne options, e.g. ("--proxy-headers",)
        self.host = host  # a loopback address (127.0.0.0/8: several workers, one port)
        self.port = port or free_port()
        self.url = f"http://{host}:{self.port}"
        log_dir.mkdir(parents=True, exist_ok=True)
        self.log_path = log_dir / f"worker-{host}-{self.port}.log"
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
        """The worker's command line (daphne here)."""
        command = [sys.executable, "-m", "daphne", "-b", self.host, "-p", str(self.port)]
        return [*command, *self.args, APP]

    def _spawn(self) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            self.command(),
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


class LoopbackDNS:
    """A DNS server on a loopback port (UDP and TCP) that answers one name with several
    A records, as Docker's DNS answers a compose service's name with one address per
    replica (``addresses`` may change while it runs).  Other names and types get an
    empty answer."""

    def __init__(self, name: str, addresses: list[str]):
        self.name = name.lower().rstrip(".")
        self.addresses = list(addresses)
        while True:  # one port number free for both UDP and TCP
            self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            self.udp.bind(("127.0.0.1", 0))
            self.port = int(self.udp.getsockname()[1])
            self.tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            try:
                self.tcp.bind(("127.0.0.1", self.port))
                break
            except OSError:
                self.udp.close()
                self.tcp.close()
        self.tcp.listen()
        self.address = f"127.0.0.1:{self.port}"
        threading.Thread(target=self._serve_udp, daemon=True).start()
        threading.Thread(target=self._serve_tcp, daemon=True).start()

    def _serve_udp(self) -> None:
        while True:
            try:
                query, client = self.udp.recvfrom(512)
                self.udp.sendto(self.answer(query), client)
            except OSError:
                return  # closed

    def _serve_tcp(self) -> None:
        while True:
            try:
                conn, _ = self.tcp.accept()
            except OSError:
                return  # closed
            with conn:
                try:
                    size = int.from_bytes(conn.recv(2), "big")
                    answer = self.answer(conn.recv(size))
                    conn.sendall(len(answer).to_bytes(2, "big") + answer)
                except OSError:
                    pass

    def answer(self, query: bytes) -> bytes:
        labels, at = [], 12
        while at < len(query) and query[at]:
            labels.append(query[at + 1 : at + 1 + query[at]].decode("ascii", "replace"))
            at += 1 + query[at]
        qtype = int.from_bytes(query[at + 1 : at + 3], "big")
        found = ".".join(labels).lower() == self.name
        records = self.addresses if found and qtype == 1 else []
        header = query[:2] + (0x8180 if found else 0x8183).to_bytes(2, "big")
        header += (1).to_bytes(2, "big") + len(records).to_bytes(2, "big") + bytes(4)
        body = b"".join(
            b"\xc0\x0c\x00\x01\x00\x01"
            + (1).to_bytes(4, "big")
            + b"\x00\x04"
            + socket.inet_aton(address)
            for address in records
        )
        return header + query[12 : at + 5] + body

    def close(self) -> None:
        self.udp.close()
        self.tcp.close()
