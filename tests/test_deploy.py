"""Issue 18: internet hosting is HTTPS by default, and sign-in is throttled.

``docker compose up`` with DOMAIN in .env puts Caddy in front (automatic HTTPS) and
runs every worker with REFIT_HTTPS=1: ``manage.py check --deploy`` is clean with
exactly the environment the compose file gives the workers.  Where Caddy is
available (``make services`` unpacks Debian's), the real Caddyfile is validated and
run in front of a real worker: HTTPS with a certificate, HTTP redirected, secure
cookies and HSTS, websockets through the proxy from the page's own origin only.
"""

from __future__ import annotations

import asyncio
import os
import re
import secrets
import shutil
import ssl
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import httpx
import pytest
import websockets
import yaml
from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib.auth.hashers import make_password
from django.test import Client

from tests.conftest import ARTIFACTS, BASE_DIR, _database_url
from tests.servers import AsgiWorker, free_port

COMPOSE = BASE_DIR / "docker-compose.yml"
ENV_EXAMPLE = BASE_DIR / "deploy" / "env.example"
CADDYFILE = BASE_DIR / "deploy" / "Caddyfile"
VARIABLE = re.compile(r"\$\{(\w+)(?::?[-?][^}]*)?\}")


def _env_example() -> dict[str, str]:
    pairs = (
        line.split("=", 1)
        for line in ENV_EXAMPLE.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    )
    return {k.strip(): v.strip() for k, v in pairs}


def _compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text())


def _substitute(value: str, env: dict[str, str]) -> str:
    return VARIABLE.sub(lambda m: env[m.group(1)], value)


def compose_worker_env(**overrides: str) -> dict[str, str]:
    """What docker compose gives a web worker: .env (from env.example, with a fresh
    SECRET_KEY as its comment says) plus the service's own environment."""
    env = {**_env_example(), "SECRET_KEY": secrets.token_urlsafe(50), **overrides}
    service = _compose()["services"]["web"]
    worker = dict(env)
    for key, value in service["environment"].items():
        worker[key] = _substitute(str(value), env)
    return worker


def test_every_variable_the_compose_file_needs_is_in_env_example():
    needed = set(VARIABLE.findall(COMPOSE.read_text()))
    optional = {"WEB_WORKERS"}  # has a default
    assert needed - optional <= set(_env_example()), needed - set(_env_example())


def test_only_caddy_is_published_and_every_worker_runs_behind_https():
    services = _compose()["services"]
    published = {name for name, s in services.items() if s.get("ports")}
    assert published == {"proxy"}
    proxy = services["proxy"]
    assert proxy["image"].startswith("caddy:")
    assert {p.split(":")[0] for p in proxy["ports"]} == {"80", "443"}
    assert "./deploy/Caddyfile:/etc/caddy/Caddyfile:ro" in proxy["volumes"]
    assert any(v.startswith("caddy_data:") for v in proxy["volumes"])  # certificates kept
    worker = compose_worker_env()
    assert worker["REFIT_HTTPS"] == "1"
    assert worker["ALLOWED_HOSTS"] == "refit.example.org"
    assert worker["CSRF_TRUSTED_ORIGINS"] == "https://refit.example.org"
    assert "--proxy-headers" in (BASE_DIR / "Dockerfile").read_text()


def test_check_deploy_is_clean_with_the_compose_settings(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL", "DEBUG"}}
    env.update(compose_worker_env())
    env.update({"REFIT_VAR_DIR": str(tmp_path), "STATIC_ROOT": str(tmp_path / "static")})
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_plain_http_for_a_public_host_is_a_deploy_warning(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    env.update(
        {"REFIT_HTTPS": "0", "ALLOWED_HOSTS": "refit.example.org", "REFIT_VAR_DIR": str(tmp_path)}
    )
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy"],
        cwd=BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
    )
    assert "refit.W001" in result.stderr + result.stdout
    env["ALLOWED_HOSTS"] = "127.0.0.1,localhost"
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy"],
        cwd=BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
    )
    assert "refit.W001" not in result.stderr + result.stdout


def _docker_compose() -> list[str] | None:
    docker = shutil.which("docker")
    if docker is None:
        return None
    probe = subprocess.run([docker, "compose", "version"], capture_output=True)
    return [docker, "compose"] if probe.returncode == 0 else None


def test_the_compose_file_validates_with_docker_compose(tmp_path):
    compose = _docker_compose()
    if compose is None:
        pytest.skip("docker compose is not installed here (the file's structure is tested above)")
    env_file = tmp_path / ".env"
    env_file.write_text(ENV_EXAMPLE.read_text())
    result = subprocess.run(
        [*compose, "--env-file", str(env_file), "-f", str(COMPOSE), "config", "--quiet"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr


# --------------------------------------------------------------------------- Caddy


def _caddy() -> str | None:
    found = os.environ.get("REFIT_CADDY") or shutil.which("caddy")
    local = Path(settings.VAR_DIR) / "tools" / "caddy"
    if found is None and local.exists():
        found = str(local)
    return found


def _caddy_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "CADDY_ADMIN": f"127.0.0.1:{free_port()}",
        "HTTP_PORT": str(free_port()),
        "HTTPS_PORT": str(free_port()),
        **extra,
    }


def test_the_caddyfile_is_valid(tmp_path):
    caddy = _caddy()
    if caddy is None:
        pytest.skip("no caddy binary (make services unpacks Debian's into var/tools)")
    result = subprocess.run(
        [caddy, "validate", "--adapter", "caddyfile", "--config", str(CADDYFILE)],
        env=_caddy_env(tmp_path, DOMAIN="refit.example.org"),
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.django_db(transaction=True)
async def test_through_caddy_refit_is_https_with_secure_cookies_hsts_and_websockets(
    tmp_path, make_user
):
    caddy = _caddy()
    if caddy is None:
        pytest.skip("no caddy binary (make services unpacks Debian's into var/tools)")
    from django.db import connection

    user = await sync_to_async(make_user)("alice")
    # The worker runs as in production (REFIT_HTTPS): the tests' cheap hash is not
    # among its hashers, so this user's password gets the real one.
    user.password = make_password("correct-horse-9", hasher="pbkdf2_sha256")
    await sync_to_async(user.save)(update_fields=["password"])
    worker = AsgiWorker(
        log_dir=ARTIFACTS,
        env={
            "DATABASE_URL": _database_url(connection.settings_dict),
            "SECRET_KEY": settings.SECRET_KEY,
            "REFIT_HTTPS": "1",
            "ALLOWED_HOSTS": "localhost,127.0.0.1",
        },
        args=("--proxy-headers",),
    ).wait_ready()
    env = _caddy_env(
        tmp_path, DOMAIN="localhost", UPSTREAM_HOST="127.0.0.1", UPSTREAM_PORT=str(worker.port)
    )
    https, http = env["HTTPS_PORT"], env["HTTP_PORT"]
    log = (ARTIFACTS / "caddy.log").open("w")
    proxy = subprocess.Popen(
        [caddy, "run", "--adapter", "caddyfile", "--config", str(CADDYFILE)],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        origin = f"https://localhost:{https}"
        root = tmp_path / "data" / "caddy" / "pki" / "authorities" / "local" / "root.crt"
        tls = await _until_served(origin, root)
        async with httpx.AsyncClient(verify=tls, timeout=10) as client:
            page = await client.get(f"{origin}/login/")
            assert page.status_code == 200
            assert page.headers["strict-transport-security"].startswith("max-age=31536000")
            assert "Secure" in page.headers["set-cookie"]  # the CSRF cookie
            # Plain HTTP is only a redirect to HTTPS.
            plain = await client.get(f"http://localhost:{http}/login/")
            assert plain.status_code in (301, 308)
            assert plain.headers["location"].startswith("https://localhost")
            # Signing in works through the proxy (CSRF sees https), cookie Secure.
            token = client.cookies["csrftoken"]
            signed_in = await client.post(
                f"{origin}/login/",
                data={
                    "username": "alice",
                    "password": "correct-horse-9",
                    "csrfmiddlewaretoken": token,
                },
                headers={"Referer": f"{origin}/login/", "X-Forwarded-For": "203.0.113.9"},
            )
            assert signed_in.status_code == 302, signed_in.text[:500]
            assert "Secure" in signed_in.headers["set-cookie"]
            session = client.cookies["sessionid"]
        # Throttling counts the real client: Caddy drops the address the client claimed.
        from axes.models import AccessLog

        logged = await sync_to_async(AccessLog.objects.get)(username="alice")
        assert logged.ip_address == "127.0.0.1"
        # The websocket through Caddy: accepted from the page's own https origin ...
        wss = f"wss://localhost:{https}/ws/live/"
        context = ssl.create_default_context(cafile=str(root))
        headers = {"Cookie": f"sessionid={session}", "Origin": origin}
        ws = await websockets.connect(wss, additional_headers=headers, ssl=context)
        assert "live" in await asyncio.wait_for(ws.recv(), 10)
        await ws.close()
        # ... and refused from the same host over plain http.
        with pytest.raises(websockets.InvalidStatus) as refused:
            await websockets.connect(
                wss,
                additional_headers={**headers, "Origin": f"http://localhost:{https}"},
                ssl=context,
            )
        assert refused.value.response.status_code == 403
    finally:
        proxy.terminate()
        proxy.wait(timeout=10)
        log.close()
        worker.stop()
    assert user.username == "alice"


async def _until_served(origin: str, root: Path) -> ssl.SSLContext:
    deadline = time.monotonic() + 30
    while True:
        try:
            context = ssl.create_default_context(cafile=str(root))
            async with httpx.AsyncClient(verify=context, timeout=2) as client:
                await client.get(f"{origin}/login/")
            return context
        except (OSError, httpx.HTTPError, ssl.SSLError):
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.3)


# --------------------------------------------------------------------------- throttling


@pytest.fixture
def alice(make_user):
    return make_user("alice")


def _sign_in(client: Client, password: str, address: str = "198.51.100.7"):
    return client.post("/login/", {"username": "alice", "password": password}, REMOTE_ADDR=address)


@pytest.mark.django_db
def test_five_failed_sign_ins_pause_the_name_from_that_address_with_a_sentence(alice):
    client = Client()
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert _sign_in(client, "wrong").status_code == 200  # the form again, with its error
    response = _sign_in(client, "wrong")
    assert response.status_code == 429
    text = response.content.decode()
    assert "Too many failed sign-ins" in text and "paused for 15 minutes" in text
    # Even the right password waits out the pause ...
    assert _sign_in(client, "correct-horse-9").status_code == 429
    # ... but only from that address: a stranger cannot lock the player out.
    other = Client()
    assert _sign_in(other, "correct-horse-9", address="192.0.2.1").status_code == 302


@pytest.mark.django_db
def test_the_pause_ends_after_its_cool_off(alice):
    from axes.models import AccessAttempt

    client = Client()
    for _ in range(settings.AXES_FAILURE_LIMIT):
        _sign_in(client, "wrong")
    assert _sign_in(client, "correct-horse-9").status_code == 429
    AccessAttempt.objects.update(
        attempt_time=AccessAttempt.objects.get().attempt_time - timedelta(minutes=16)
    )
    assert _sign_in(client, "correct-horse-9").status_code == 302


@pytest.mark.django_db
def test_a_successful_sign_in_resets_the_count(alice):
    client = Client()
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        _sign_in(client, "wrong")
    assert _sign_in(client, "correct-horse-9").status_code == 302
    client.post("/logout/")
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert _sign_in(client, "wrong").status_code == 200
    assert _sign_in(client, "correct-horse-9").status_code == 302


@pytest.mark.django_db
def test_sign_up_and_sessions_are_not_throttled(client):
    for n in range(settings.AXES_FAILURE_LIMIT + 2):
        response = client.post(
            "/signup/",
            {"username": f"p{n}", "password1": "panzer-grenadier-44", "password2": "x"},
        )
        assert response.status_code == 400
    response = client.post(
        "/signup/",
        {
            "username": "hans",
            "password1": "panzer-grenadier-44",
            "password2": "panzer-grenadier-44",
        },
    )
    assert response.status_code == 302
