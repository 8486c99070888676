"""The benchmark's endpoints exist only when REFIT_BENCH_ECHO is set (never in
production); the empty request does nothing but what every request does."""

import pytest
from django.contrib.auth.models import AnonymousUser
from django.test import Client, RequestFactory

from campaign.views.bench import ceiling

pytestmark = pytest.mark.django_db


def test_the_empty_request_is_not_routed_by_default():
    assert Client().post("/bench/ceiling/").status_code == 404


def test_the_empty_request_answers_a_signed_in_post_only(make_user):
    factory = RequestFactory()
    request = factory.post("/bench/ceiling/")
    request.user = make_user()
    answer = ceiling(request)
    assert (answer.status_code, answer.content) == (200, b"ok")
    request = factory.post("/bench/ceiling/")
    request.user = AnonymousUser()
    assert ceiling(request).status_code == 403
    assert ceiling(factory.get("/bench/ceiling/")).status_code == 405
