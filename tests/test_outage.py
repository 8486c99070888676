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
