"""One Chromium for the browser tests of a test process, and every browser test ends
with the worker's log free of 5xx answers and tracebacks: no click is ever lost to a
server error."""

from __future__ import annotations

import os

import pytest

from tests.browser.helpers import ServerLog
from tests.servers import CHROMIUM, CHROMIUM_ARGS


@pytest.fixture(scope="package")
def chromium():
    """Debian's Chromium driven by Playwright (its own browser download cannot work
    here), launched once while a test process runs this package's tests (starting
    Playwright and Chromium costs ~1.7 s; each test has contexts of its own).
    Playwright's sync API runs an event loop, so the Django ORM must be told that the
    test code around it is synchronous; the package's teardown, before any test
    outside it runs in the process, puts that back."""
    from playwright.sync_api import sync_playwright

    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield browser
        browser.close()
    if previous is None:
        os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)


@pytest.fixture(autouse=True)
def no_server_errors(request: pytest.FixtureRequest):
    if "asgi_server" not in request.fixturenames:
        yield
        return
    server = request.getfixturevalue("asgi_server")
    log = ServerLog(server.log_path)
    yield
    errors = log.server_errors()
    assert not errors, "the server answered with an error:\n" + "\n".join(errors)
