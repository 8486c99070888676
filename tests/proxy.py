"""The hosted topology on this machine: the repository's ``deploy/Caddyfile`` (Debian's
Caddy) serving HTTPS in front of two workers, each started with the web image's
command (the Dockerfile's CMD, which docker-compose runs for every replica) and the
environment compose gives it, on the suite's PostgreSQL and Redis.

Caddy finds the workers as it does under compose: by asking DNS for the service's
name (``dynamic a web``), here a DNS server of the test's own that answers with two
loopback addresses (127.0.0.2 and 127.0.0.3, one port), as Docker's DNS answers with
one address per replica.  Workers are readied with the compose healthcheck's own
command (``/healthz``)."""

from __future__ import annotations

import os
import re
import secrets
import shutil
import ssl
import subprocess
import sys
import time
from pathlib import Path

import httpx
import yaml

from tests.servers import ROOT, AsgiWorker, LoopbackDNS, free_port, image_command

COMPOSE = ROOT / "docker-compose.yml"
ENV_EXAMPLE = ROOT / "deploy" / "env.example"
CADDYFILE = ROOT / "deploy" / "Caddyfile"
VARIABLE = re.compile(r"\$\{(\w+)(?::?[-?][^}]*)?\}")
WORKER_HOSTS = ("127.0.0.2", "127.0.0.3")


def env_example() -> dict[str, str]:
    pairs = (
        line.split("=", 1)
        for line in ENV_EXAMPLE.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    )
    return {k.strip(): v.strip() for k, v in pairs}


def compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text())


def _substitute(value: str, env: dict[str, str]) -> str:
    return VARIABLE.sub(lambda m: env[m.group(1)], value)


def compose_worker_env(**overrides: str) -> dict[str, str]:
    """What docker compose gives a web worker: .env (from env.example, with a fresh
    SECRET_KEY as its comment says) plus the service's own environment."""
    env = {**env_example(), "SECRET_KEY": secrets.token_urlsafe(50), **overrides}
    service = compose()["services"]["web"]
    worker = dict(env)
    for key, value in service["environment"].items():
        worker[key] = _substitute(str(value), env)
    return worker


def healthcheck_command(host: str, port: int) -> list[str]:
    """The compose healthcheck of a web replica, asking the worker at ``host:port``."""
    test = compose()["services"]["web"]["healthcheck"]["test"]
    assert test[0] == "CMD" and test[1] == "python", test
    return [
        sys.executable,
        *(part.replace("127.0.0.1:8000", f"{host}:{port}") for part in test[2:]),
    ]


def caddy() -> str | None:
    found = os.environ.get("REFIT_CADDY") or shutil.which("caddy")
    local = ROOT / "var" / "tools" / "caddy"
    if found is None and local.exists():
        found = str(local)
    return found


def caddy_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "CADDY_ADMIN": f"127.0.0.1:{free_port()}",
        "HTTP_PORT": str(free_port()),
        "HTTPS_PORT": str(free_port()),
        **extra,
    }


class ImageWorker(AsgiWorker):
    """A worker started as a web replica is: the image's command, bound to a loopback
    address of its own, readied by the compose healthcheck."""

    def command(self) -> list[str]:
        return image_command(self.host, self.port)

    def healthy(self) -> bool:
        # As in the container: with the environment the worker runs with.
        command = healthcheck_command(self.host, self.port)
        check = subprocess.run(command, capture_output=True, env=self.env)
        return check.returncode == 0

    def wait_ready(self, timeout: float = 30) -> ImageWorker:
        deadline = time.monotonic() + timeout
        while not self.healthy():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the worker did not start; see {self.log_path}")
            time.sleep(0.2)
        return self


class Stack:
    """Caddy with the repository's Caddyfile in front of two image workers."""

    def __init__(
        self, tmp_path: Path, log_dir: Path, *, database_url: str, redis_url: str, secret_key: str
    ):
        binary = caddy()
        assert binary, "no caddy binary: `make services` unpacks Debian's into var/tools"
        self.dns = LoopbackDNS("web", list(WORKER_HOSTS))
        env = caddy_env(tmp_path, DOMAIN="localhost", UPSTREAM_HOST="web")
        self.origin = f"https://localhost:{env['HTTPS_PORT']}"
        self.http_origin = f"http://localhost:{env['HTTP_PORT']}"
        port = free_port()
        env.update(UPSTREAM_PORT=str(port), UPSTREAM_DNS=self.dns.address)
        # The test process's SECRET_KEY: sessions it signs in are the workers' too.
        worker_env = compose_worker_env(DOMAIN="localhost", SECRET_KEY=secret_key)
        # This machine's servers, not compose's; the site's origin carries the test's
        # HTTPS port (compose serves 443).
        worker_env.update(
            DATABASE_URL=database_url,
            REDIS_URL=redis_url,
            DB_POOL_MAX="4",
            CSRF_TRUSTED_ORIGINS=self.origin,
            REFIT_BASE_URL=self.origin,
        )
        self.workers: list[ImageWorker] = []
        self.proxy: subprocess.Popen[bytes] | None = None
        log_dir.mkdir(parents=True, exist_ok=True)
        self.log_path = log_dir / "caddy-stack.log"
        self._log = self.log_path.open("w")
        self.root = tmp_path / "data" / "caddy" / "pki" / "authorities" / "local" / "root.crt"
        try:
            for host in WORKER_HOSTS:
                self.workers.append(
                    ImageWorker(host=host, port=port, log_dir=log_dir, env=worker_env)
                )
            for worker in self.workers:
                worker.wait_ready()
            self.proxy = subprocess.Popen(
                [binary, "run", "--adapter", "caddyfile", "--config", str(CADDYFILE)],
                env=env,
                stdout=self._log,
                stderr=subprocess.STDOUT,
            )
            self.tls = self._until_served()
        except BaseException:
            self.stop()  # nothing left running when the stack cannot start
            raise

    def _until_served(self) -> ssl.SSLContext:
        deadline = time.monotonic() + 30
        while True:
            try:
                context = ssl.create_default_context(cafile=str(self.root))
                httpx.get(f"{self.origin}/healthz", verify=context, timeout=2).raise_for_status()
                return context
            except (OSError, httpx.HTTPError, ssl.SSLError):
                assert self.proxy is not None
                if self.proxy.poll() is not None or time.monotonic() > deadline:
                    raise
                time.sleep(0.3)

    def kill(self, n: int) -> None:
        """Worker ``n`` dies (SIGKILL); DNS stops naming it, as Docker's DNS answers for
        running containers only (Caddy's next lookup, within ``refresh``, drops it)."""
        worker = self.workers[n]
        worker.kill()
        self.dns.addresses.remove(worker.host)

    def restart(self, n: int) -> None:
        """Worker ``n`` comes back (compose's ``restart: unless-stopped``)."""
        worker = self.workers[n]
        worker.restart()
        self.dns.addresses.append(worker.host)

    @property
    def url(self) -> str:  # as the browser helpers read a server's address
        return self.origin

    def spki_hashes(self) -> list[str]:
        """The public-key hashes of Caddy's local root and intermediate: what Chromium
        is told to trust (``--ignore-certificate-errors-spki-list``)."""
        import base64
        import hashlib

        from cryptography import x509
        from cryptography.hazmat.primitives import serialization

        hashes = []
        for name in ("root.crt", "intermediate.crt"):
            cert = x509.load_pem_x509_certificate((self.root.parent / name).read_bytes())
            spki = cert.public_key().public_bytes(
                serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
            )
            hashes.append(base64.b64encode(hashlib.sha256(spki).digest()).decode())
        return hashes

    def stop(self) -> None:
        if self.proxy is not None:
            self.proxy.terminate()
            try:
                self.proxy.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proxy.kill()
        self._log.close()
        for worker in self.workers:  # thrown away: nothing to wait for
            if worker.proc.poll() is None:
                worker.kill()
            worker.log.close()
        self.dns.close()
