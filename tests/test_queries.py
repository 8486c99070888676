"""Query budgets (issue 14): a purchase POST runs at most ten SQL queries, session and
user included, and every page runs the same number of queries whatever the number of
CG dates, purchases, units, rolls and log lines (×1 vs ×10 data)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from campaign.models import Event, EventKind, Purchase, Roll, Unit
from tests.purchase_helpers import campaign_at

HTMX = {"HTTP_HX_REQUEST": "true"}
TRANSACTION_CONTROL = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE SAVEPOINT")


def statements(ctx: CaptureQueriesContext) -> list[str]:
    """The SQL statements run, without transaction control (SQLite logs its explicit
    BEGIN IMMEDIATE / COMMIT; PostgreSQL's are implicit)."""
    return [q["sql"] for q in ctx.captured_queries if not q["sql"].startswith(TRANSACTION_CONTROL)]


@pytest.fixture
def users(make_user):
    return make_user("axis_q"), make_user("brit_q")


@pytest.mark.django_db(transaction=True)
def test_a_purchase_post_runs_at_most_ten_queries(modules, users, client):
    players, _ = campaign_at("sicily", "i", "jul14pm", users)
    client.force_login(players.users["axis"])
    url = f"/campaigns/{players.campaign_id}/act/buy/"
    at = f"{players.campaign.cycle}.{players.campaign.step_index}"
    with CaptureQueriesContext(connection) as ctx:
        response = client.post(url, {"group": "I4", "variant": "", "at": at}, **HTMX)
    assert response.status_code == 200, response.content
    assert Purchase.objects.filter(group_id="I4").count() == 1
    assert len(statements(ctx)) <= 10, "\n".join(statements(ctx))


def _grow(players, factor: int, start: int = 1000) -> None:
    """Ten times the records of one kind each: purchases of both sides (some revealed),
    units, rolls, log lines, and later CG dates with results."""
    c = players.campaign
    for side in ("axis", "british"):
        Purchase.objects.bulk_create(
            Purchase(
                campaign=c,
                side=side,
                cycle=c.cycle,
                date_index=c.date_index,
                group_id="M1",
                group_type="Sniper",
                cost=1,
                ordinal=start + n,
                date_ordinal=start + n,
                revealed_at=c.created_at if n % 2 else None,
            )
            for n in range(3 * factor)
        )
        Unit.objects.bulk_create(
            Unit(campaign=c, side=side, name=f"4-6-7 no. {n}") for n in range(3 * factor)
        )
    Roll.objects.bulk_create(
        Roll(
            campaign=c,
            seq=start + n,
            side="axis",
            date_index=c.date_index,
            step_id="3.617",
            purpose="test",
            dice="dr",
            faces=[3],
            final=3,
            secret=bool(n % 2),
        )
        for n in range(5 * factor)
    )
    Event.objects.bulk_create(
        Event(campaign=c, kind=EventKind.UNIT, date_index=c.date_index, text=f"line {n}")
        for n in range(5 * factor)
    )


PAGES = ["", "state.json", "roster/", "dice/", "sheet/", "sheet.json"]


def _counts(client, campaign_id) -> dict[str, int]:
    counts = {}
    for page in PAGES + ["dashboard"]:
        url = "/campaigns/" if page == "dashboard" else f"/campaigns/{campaign_id}/{page}"
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(url).status_code == 200, url
        counts[page or "campaign"] = len(statements(ctx))
    return counts


@pytest.mark.django_db
def test_every_page_runs_the_same_queries_with_ten_times_the_records(modules, users, client):
    small, _ = campaign_at("sicily", "i", "jul14pm", users)
    _grow(small, 1)
    client.force_login(small.users["axis"])
    one = _counts(client, small.campaign_id)
    _grow(small, 10, start=5000)
    ten = _counts(client, small.campaign_id)
    assert one == ten
    assert max(one.values()) <= 20, one


@pytest.mark.django_db
def test_pages_run_the_same_queries_on_a_later_cg_date(modules, make_user, client):
    early, _ = campaign_at("sicily", "i", "jul14pm", (make_user("a1"), make_user("b1")))
    late, _ = campaign_at("sicily", "i", "jul17am", (make_user("a2"), make_user("b2")))
    client.force_login(early.users["axis"])
    one = _counts(client, early.campaign_id)
    client.force_login(late.users["axis"])
    assert _counts(client, late.campaign_id) == one
