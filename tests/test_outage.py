"""Issue 18: a request that meets a database outage is answered 503 with a sentence
and Retry-After (not a bare 500), and logged in one line, without a traceback."""

import logging
from unittest import mock

import pytest
from django.db import OperationalError
from django.test import Client

pytestmark = pytest.mark.django_db
OUTAGE = OperationalError("connection to server at 127.0.0.1 failed: Connection refused")


@pytest.mark.parametrize("htmx", [False, True], ids=["page", "htmx"])
def test_a_database_outage_is_a_503_sentence_logged_in_one_line(htmx, caplog):
    client = Client(raise_request_exception=False)
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    with (
        mock.patch("django.contrib.auth.views.LoginView.get", side_effect=OUTAGE),
        caplog.at_level(logging.WARNING),
    ):
        response = client.get("/login/", **headers)
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert "The database is unavailable for a moment" in response.content.decode()
    request_logs = [r for r in caplog.records if r.name == "django.request"]
    assert request_logs and all(r.exc_info is None for r in request_logs)


def test_other_errors_stay_500():
    client = Client(raise_request_exception=False)
    with mock.patch("django.contrib.auth.views.LoginView.get", side_effect=ValueError("bug")):
        assert client.get("/login/").status_code == 500


def _real_error(sql: str) -> Exception:
    """The error PostgreSQL itself raises for ``sql`` (as Django wraps it)."""
    from django.db import connection, transaction

    try:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(sql)
    except Exception as exc:  # noqa: BLE001 - the error is the datum
        return exc
    raise AssertionError(f"{sql} raised nothing")


def _answer(error: Exception, caplog, **headers):
    client = Client(raise_request_exception=False)
    with (
        mock.patch("django.contrib.auth.views.LoginView.get", side_effect=error),
        caplog.at_level(logging.WARNING),
    ):
        return client.get("/login/", **headers)


@pytest.mark.postgres
def test_a_value_the_database_refuses_is_a_400_sentence_logged_with_its_traceback(caplog):
    """Issue 48: a data error is not an outage — a 400 that says so, and a bug logged
    with its traceback (a check should have refused the value earlier)."""
    error = _real_error("select 'x'::int")
    response = _answer(error, caplog)
    assert response.status_code == 400
    assert "too large or not valid" in response.content.decode()
    assert "Retry-After" not in response
    request_logs = [r for r in caplog.records if r.name == "django.request"]
    assert request_logs and request_logs[0].exc_info is not None
    assert not [r for r in caplog.records if "database unavailable" in r.getMessage()]


@pytest.mark.postgres
def test_a_lost_race_on_a_constraint_is_a_409_sentence(caplog):
    error = _real_error(
        "create temporary table t (n int primary key); insert into t values (1), (1)"
    )
    response = _answer(error, caplog, HTTP_HX_REQUEST="true")
    assert response.status_code == 409
    assert "Another move changed this campaign meanwhile" in response.content.decode()
    assert "<html" not in response.content.decode()  # beside the click


@pytest.mark.postgres
@pytest.mark.parametrize(
    ("sqlstate", "status"),
    [("08006", 503), ("57P01", 503), ("40P01", 409), ("40001", 409), ("57014", 500)],
    ids=["connection-lost", "admin-shutdown", "deadlock", "serialization", "query-canceled"],
)
def test_only_a_lost_connection_is_an_outage(sqlstate, status, caplog):
    import psycopg
    from django.db import OperationalError

    cause = psycopg.errors.lookup(sqlstate)("from the server")
    error = OperationalError(str(cause))
    error.__cause__ = cause
    assert _answer(error, caplog).status_code == status
