"""Accounts: sign up, log in, log out; CSRF on every form."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

pytestmark = pytest.mark.django_db


def test_root_serves_the_signup_page(client):
    response = client.get("/")
    assert response.status_code == 200
    assert b"Sign up" in response.content
    assert b"csrfmiddlewaretoken" in response.content


def test_signup_logs_the_new_user_in(client):
    response = client.post(
        "/signup/",
        {
            "username": "hans",
            "password1": "panzer-grenadier-44",
            "password2": "panzer-grenadier-44",
        },
    )
    assert response.status_code == 302 and response.url == "/campaigns/"
    assert client.get("/campaigns/").status_code == 200


def test_signup_with_mismatched_passwords_is_refused_and_creates_nothing(client):
    response = client.post(
        "/signup/", {"username": "hans", "password1": "panzer-grenadier-44", "password2": "x"}
    )
    assert response.status_code == 400
    assert b"didn" in response.content  # "The two password fields didn't match."
    assert not get_user_model().objects.filter(username="hans").exists()


def test_login_and_logout(client, make_user):
    make_user("alice")
    response = client.post("/login/", {"username": "alice", "password": "correct-horse-9"})
    assert response.status_code == 302
    assert client.get("/campaigns/").status_code == 200
    assert client.post("/logout/").status_code == 302
    assert client.get("/campaigns/").status_code == 302


def test_forms_need_the_csrf_token(make_user):
    make_user("alice")
    strict = Client(enforce_csrf_checks=True)
    response = strict.post("/login/", {"username": "alice", "password": "correct-horse-9"})
    assert response.status_code == 403


def test_dashboard_needs_login(client):
    response = client.get("/campaigns/")
    assert response.status_code == 302 and response.url.startswith("/login/")
