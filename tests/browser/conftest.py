"""Every browser test ends with the worker's log free of 5xx answers and tracebacks:
no click is ever lost to a server error."""

from __future__ import annotations

import pytest

from tests.browser.helpers import ServerLog


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
