"""The suite's own isolation: what a transactional test commits is gone before the
next test starts (tests/conftest.py empties PostgreSQL's tables with DELETE)."""

from __future__ import annotations

import pytest
from django.apps import apps
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_flush_after_a_transactional_test_empties_every_table(hosted):
    assert apps.get_model("campaign", "Seat").objects.exists()
    with CaptureQueriesContext(connection) as run:
        # What pytest-django's teardown of a transactional test runs (reset_sequences
        # and the post-migrate signal aside).
        call_command(
            "flush",
            verbosity=0,
            interactive=False,
            reset_sequences=False,
            inhibit_post_migrate=True,
        )
    statements = [q["sql"] for q in run.captured_queries]
    assert any(sql.startswith("DELETE FROM") for sql in statements)
    assert not any("TRUNCATE" in sql for sql in statements)
    left = [m.__name__ for m in apps.get_models() if m.objects.exists()]
    assert left == []
