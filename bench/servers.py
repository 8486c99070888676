"""The bench's ASGI workers: the test suite's launcher (``tests.servers.AsgiWorker``)
with a choice of server, so the same Channels app is measured on daphne and on
uvicorn (uvloop + httptools), and the worker's peak resident memory."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.servers import APP, AsgiWorker, image_command

SERVERS = ("daphne", "uvicorn")


def server_command(server: str, host: str, port: int) -> list[str]:
    """The command line of one worker process of ``server``: for uvicorn, the
    Dockerfile's (what docker-compose runs), bound to loopback."""
    if server == "daphne":
        return [sys.executable, "-m", "daphne", "-b", host, "-p", str(port), APP]
    if server == "uvicorn":
        return image_command(host, port)
    raise ValueError(f"unknown server {server!r}; one of {', '.join(SERVERS)}")


class BenchWorker(AsgiWorker):
    """One worker process of ``server`` serving ``config.asgi`` on loopback."""

    def __init__(self, *, server: str, log_dir: Path, env: dict[str, str]):
        self.server = server
        server_command(server, "127.0.0.1", 0)  # refuse an unknown server at once
        super().__init__(log_dir=log_dir, env=env)

    def command(self) -> list[str]:
        return server_command(self.server, "127.0.0.1", self.port)

    def peak_rss_mib(self) -> float | None:
        """The worker's peak resident set (VmHWM), while it runs."""
        try:
            status = Path(f"/proc/{self.proc.pid}/status").read_text()
        except OSError:
            return None
        for line in status.splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        return None


class Workers:
    """``n`` workers of one server on free loopback ports, sharing one environment."""

    def __init__(self, server: str, n: int, *, log_dir: Path, env: dict[str, str] | None = None):
        self.server = server
        self.workers = [
            BenchWorker(server=server, log_dir=log_dir, env=env or {}) for _ in range(n)
        ]
        for worker in self.workers:
            worker.wait_ready(timeout=60)
        self.ports = [w.port for w in self.workers]

    @property
    def pids(self) -> list[int]:
        return [w.proc.pid for w in self.workers]

    def peak_rss_mib(self) -> list[float | None]:
        return [w.peak_rss_mib() for w in self.workers]

    def stop(self) -> None:
        for worker in self.workers:
            worker.stop()


__all__ = ["SERVERS", "BenchWorker", "Workers", "server_command"]
