"""What a request that failed in the database or before its view is answered, and how
it is logged.

Database errors are classified (``kind``): only a lost or refused connection (or a
server shutting down) is an *outage*, answered 503 with a sentence and Retry-After and
logged in one line; a value the database refuses (a *data* error) is a 400 and a lost
race on a constraint (a *conflict*) a 409, each with a sentence, nothing changed (the
request's transaction rolled back), and logged with its traceback, for both are bugs
of a check that should have refused earlier.  Anything else stays Django's 500.
Installed as ``handler500``, so it also covers errors raised before a view (sessions,
authentication).  It renders nothing that needs the database."""

from __future__ import annotations

import logging
import sys
from enum import StrEnum

from django.core.exceptions import BadRequest, SuspiciousOperation
from django.db import DatabaseError, DataError, IntegrityError, InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse
from django.http.multipartparser import MultiPartParserError
from django.template.loader import render_to_string
from django.views.defaults import server_error as django_server_error

logger = logging.getLogger(__name__)


class Kind(StrEnum):
    OUTAGE = "outage"
    DATA = "data"
    CONFLICT = "conflict"
    BUG = "bug"


MESSAGES = {
    Kind.OUTAGE: "The database is unavailable for a moment (a restart?). Try again shortly.",
    Kind.DATA: "A value in this request is too large or not valid, so nothing was changed. "
    "Check what you typed and try again.",
    Kind.CONFLICT: "Another move changed this campaign meanwhile, so nothing was changed. "
    "Reload the page and try again.",
}
STATUS = {Kind.OUTAGE: 503, Kind.DATA: 400, Kind.CONFLICT: 409}
MESSAGE = MESSAGES[Kind.OUTAGE]
PAGE = (
    "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{title}"
    "</title></head><body><main><h1>{title}</h1><p>{message}</p></main></body></html>"
)
TITLES = {Kind.OUTAGE: "Back in a moment", Kind.DATA: "Not possible", Kind.CONFLICT: "Not possible"}
# SQLSTATE classes of a connection that is lost or refused (08) and of a server that is
# shutting down or starting (57P); a connection that never opened has no SQLSTATE.
_OUTAGE_STATES = ("08", "57P")


def kind(exc: BaseException | None) -> Kind:
    """What a database error means for the request that met it."""
    if isinstance(exc, InterfaceError):
        return Kind.OUTAGE
    if isinstance(exc, DataError):
        return Kind.DATA
    if isinstance(exc, IntegrityError):
        return Kind.CONFLICT
    if isinstance(exc, OperationalError):
        state = getattr(exc.__cause__, "sqlstate", None)
        if state is None or state.startswith(_OUTAGE_STATES):
            return Kind.OUTAGE
        if state.startswith("40"):  # a serialization failure or a deadlock: a lost race
            return Kind.CONFLICT
    return Kind.BUG


def client_error(exc: BaseException | None) -> bool:
    """A request Django refused before any view (too many fields, an unreadable body,
    a forged host): the client's doing, answered 400 with a sentence."""
    return isinstance(exc, SuspiciousOperation | BadRequest | MultiPartParserError)


class OneLineOutages(logging.Filter):
    """For django.request and django.security: a request that met a database outage,
    or that Django refused as unreadable, is logged in one line (its answer says the
    rest), not with a traceback.  Data errors and conflicts keep theirs: they are bugs."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if exc is not None and (
            client_error(exc) or (isinstance(exc, DatabaseError) and kind(exc) is Kind.OUTAGE)
        ):
            record.exc_info = None
            record.exc_text = None
        return True


def server_error(request: HttpRequest) -> HttpResponse:
    exc = sys.exc_info()[1]
    if not isinstance(exc, DatabaseError):
        return django_server_error(request)
    found = kind(exc)
    if found is Kind.BUG:
        return django_server_error(request)
    if found is Kind.OUTAGE:
        logger.warning("database unavailable: %s", exc)
    message = MESSAGES[found]
    body: str = PAGE.format(title=TITLES[found], message=message)
    if request.headers.get("HX-Request") == "true":
        body = render_to_string("campaign/_refusal.html", {"message": message})
    response = HttpResponse(body, status=STATUS[found])
    if found is Kind.OUTAGE:
        response["Retry-After"] = "5"
    return response
