"""The answer when a server behind Refit is briefly away (a PostgreSQL restart): a 503
with a sentence and Retry-After instead of a bare 500.  Installed as ``handler500``,
so it also covers errors raised before a view (sessions, authentication).  It renders
nothing that needs the database."""

from __future__ import annotations

import logging
import sys

from django.db import DatabaseError, InterfaceError
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.views.defaults import server_error as django_server_error

logger = logging.getLogger(__name__)

MESSAGE = "The database is unavailable for a moment (a restart?). Try again shortly."
PAGE = (
    "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>Back in a moment"
    "</title></head><body><main><h1>Back in a moment</h1><p>{}</p></main></body></html>"
)


class OneLineOutages(logging.Filter):
    """For django.request: a request that met a database outage is logged in one
    line (its 503 says the rest), not with a traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and isinstance(record.exc_info[1], DatabaseError | InterfaceError):
            record.exc_info = None
            record.exc_text = None
        return True


def server_error(request: HttpRequest) -> HttpResponse:
    exc = sys.exc_info()[1]
    if not isinstance(exc, DatabaseError | InterfaceError):
        return django_server_error(request)
    logger.warning("database unavailable: %s", exc)
    body: str = PAGE.format(MESSAGE)
    if request.headers.get("HX-Request") == "true":
        body = render_to_string("campaign/_refusal.html", {"message": MESSAGE})
    response = HttpResponse(body, status=503)
    response["Retry-After"] = "5"
    return response
