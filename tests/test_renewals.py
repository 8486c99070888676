"""A seat's renewals (issue 49): with its revision each seat keeps the kinds of the
latest changes that renewed it (``Seat.renewed_by``, written by ``writes.commit`` in
the statement that renews it), so a page memoised at an earlier revision re-draws
only the parts those kinds touch (``live_pages.LivePage.earlier``) and serves the
others as they were, without their reads.  A seat records only what it may see: the
opponent's secret purchase is not even a kind on his seat (Sicily 3.617: RGs are
bought secretly)."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from campaign import changes as ch
from campaign.fragments import CAMPAIGN_MEMO, SHOWN_MEMO, TABLE_MEMO, Part
from campaign.live_pages import CAMPAIGN, ROSTER
from campaign.memo import Memo
from campaign.models import Campaign, EventKind, Purchase, Seat
from campaign.seat_views.campaign_page import SHOWN_LOGS, SHOWN_PURCHASES
from campaign.seat_views.common import RECORD_LINES
from campaign.seat_views.roster import ROSTER_VIEWS
from campaign.services import events, messages, purchases, steps
from campaign.views.pages import PAGE_MEMO, SHELLS
from tests.purchase_helpers import add_unit, campaign_at

SIDES = ("axis", "british")


@pytest.fixture
def users(make_user):
    return make_user("axis_rn"), make_user("brit_rn")


def _seat(cid, side: str) -> Seat:
    return Seat.objects.get(campaign_id=cid, side=side)


@pytest.mark.django_db
def test_a_seat_records_the_kinds_of_the_changes_it_may_see_3_617(modules, users):
    players, _ = campaign_at("sicily", "i", "jul14pm", users)
    cid = players.campaign_id
    before = {side: _seat(cid, side) for side in SIDES}
    messages.send_message(campaign_id=cid, user=players.users["british"], text="Good luck")
    after = {side: _seat(cid, side) for side in SIDES}
    for side in SIDES:
        assert ch.renewals(after[side].renewed_by)[0] == (
            before[side].revision,
            frozenset({ch.MessageSent}),
        )
    purchases.purchase_rg(campaign_id=cid, user=players.users["axis"], group_id="M1")
    axis, british = _seat(cid, "axis"), _seat(cid, "british")
    assert ch.renewals(axis.renewed_by)[:2] == [
        (after["axis"].revision, frozenset({ch.PurchaseAdded})),
        (before["axis"].revision, frozenset({ch.PurchaseAdded, ch.MessageSent})),
    ]
    # The buyer's secret: the opponent's seat neither renewed nor told its kind.
    assert (british.revision, british.renewed_by) == (
        after["british"].revision,
        after["british"].renewed_by,
    )
    # What the page registry makes of them: the parts touched since each revision.
    assert CAMPAIGN.earlier(axis)[0][1] == CAMPAIGN.touches[ch.PurchaseAdded]
    assert ROSTER.unchanged_since(british)[0] == before["british"].revision
    assert ROSTER.unchanged_since(axis) == []


def test_renewals_cut_short_or_unknown_end_the_list():
    a, b = "0" * 31 + "1", "0" * 31 + "2"
    full = f"MessageSent@{a};OpponentNudged@{b};"
    assert [str(r.int) for r, _ in ch.renewals(full)] == ["1", "2"]
    assert len(ch.renewals(full[:-5])) == 1, "an entry cut short is no entry"
    assert ch.renewals(f"NoSuchKind@{a};MessageSent@{b};") == []
    assert ch.renewals("") == []


_TOKEN = re.compile(r"[A-Za-z0-9]{64}")


def _page(client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200
    return _TOKEN.sub("", response.content.decode())


def _fresh(client, url: str, *more: Memo) -> str:
    """The page as read and rendered with no memo of any earlier revision: the
    revision-keyed memos (and ``more``) emptied for the render, then put back."""
    memos = (CAMPAIGN_MEMO, ROSTER_VIEWS, PAGE_MEMO, SHELLS, *more)
    kept = [dict(memo._entries) for memo in memos]
    for memo in memos:
        memo.clear()
    try:
        return _page(client, url)
    finally:
        for memo, entries in zip(memos, kept, strict=True):
            memo.clear()
            for key, value in entries.items():
                memo.put(key, value)


@pytest.mark.django_db
def test_pages_after_each_kind_of_change_are_what_a_fresh_render_gives_3_617(modules, users):
    """After each action (a message, a purchase by each side, its cancelling, a unit
    added, a Done and its takeback), each seat's campaign and roster pages, served
    from what was rendered at the seat's earlier revisions where the change's kinds
    touch no part of it, are what a fresh render gives; a page after a message reads
    less than a fresh one (its record, step and sides come from the memo)."""
    players, _ = campaign_at("sicily", "i", "jul14pm", users)
    cid = players.campaign_id
    clients = {side: Client() for side in SIDES}
    for side, client in clients.items():
        client.force_login(players.users[side])
    urls = (f"/campaigns/{cid}/", f"/campaigns/{cid}/roster/")
    user = players.users

    def buy(side: str) -> object:
        return purchases.purchase_rg(campaign_id=cid, user=user[side], group_id="M1")

    def cancel() -> None:
        ref = Purchase.objects.filter(campaign_id=cid, side="axis", status="active")[0].ref
        purchases.cancel_purchase(campaign_id=cid, user=user["axis"], purchase_id=ref)

    def say(side: str, text: str) -> object:
        return messages.send_message(campaign_id=cid, user=user[side], text=text)

    actions: list[tuple[str, Callable[[], object]]] = [
        ("message", lambda: say("british", "Hi")),
        ("axis buys", lambda: buy("axis")),
        ("british buys", lambda: buy("british")),
        ("unit", lambda: add_unit(players, "axis", "4-6-7", "squad")),
        ("cancel", cancel),
        ("done", lambda: steps.finish_step(campaign_id=cid, user=user["axis"])),
        ("take back", lambda: steps.take_back_done(campaign_id=cid, user=user["axis"])),
        ("message again", lambda: say("axis", "Go")),
    ]
    for side in SIDES:
        for url in urls:
            _page(clients[side], url)
    for what, action in actions:
        action()
        for side in SIDES:
            for url in urls:
                with CaptureQueriesContext(connection) as carried_reads:
                    carried = _page(clients[side], url)
                with CaptureQueriesContext(connection) as fresh_reads:
                    fresh = _fresh(clients[side], url)
                assert carried == fresh, f"{side}'s {url} after {what}"
                if what == "message":
                    assert len(carried_reads) < len(fresh_reads), f"{side}'s {url}: nothing carried"


# The players' thread's loop, as ``_messages.html`` had it before ``thread_lines``.
_THREAD_LOOP = (
    '{% for m in messages %}<li class="{% if m.mine %}mine{% else %}theirs{% endif %}">'
    '<span class="who">{% if m.mine %}You{% else %}{{ m.who }}{% endif %}</span> '
    '<time datetime="{{ m.when|date:\'c\' }}">{{ m.when|date:"j M, H:i" }}</time>'
    "<p>{{ m.said|linebreaksbr }}</p></li>{% endfor %}"
)


@pytest.mark.parametrize("zone", ["UTC", "America/New_York"])
def test_the_thread_lines_are_the_loop_they_replace(zone):
    """A message renews both seats' pages; their thread's lines are each rendered once
    (``thread_lines``), the same HTML as the template loop they replace, in any time
    zone, with markup and line breaks in the text."""
    from datetime import UTC, datetime

    from django.template import engines
    from django.utils import timezone

    from campaign.seat_views.campaign_page import MessageView

    when = datetime(2026, 11, 29, 23, 30, tzinfo=UTC)
    messages = [
        MessageView(who="Axis & <Allies>", said='Hi "you"\nsee <b>this</b>', when=when, mine=False),
        MessageView(who="British", said="Fine.\r\nGo & buy", when=when, mine=True),
    ]
    django = engines["django"]
    with timezone.override(zone):
        loop = django.from_string(_THREAD_LOOP).render({"messages": messages})
        tag = django.from_string("{% load refit %}{% thread_lines messages %}").render(
            {"messages": messages}
        )
        again = django.from_string("{% load refit %}{% thread_lines messages %}").render(
            {"messages": messages}
        )
    assert tag == loop == again


def test_the_campaign_pages_shell_reads_only_what_its_declared_parts_show():
    """The campaign page around its parts (its title, its links: ``campaign.html`` and
    ``base.html``, which reads no view) is served from an earlier revision unless a
    change touched ``SHELL_SHOWS``: what it reads of the view is what those parts
    show (the header's inputs, the rules data's, the campaign's id)."""
    from dataclasses import fields

    from campaign.fragments import SHOWN_BY, SuppliesInputs
    from campaign.views.pages import SHELL_SHOWS
    from tests.test_fragments_memo import _view_names

    assert {Part.HEADER, Part.SUPPLIES} == SHELL_SHOWS
    shown = set(SHOWN_BY[Part.HEADER]) | {f.name for f in fields(SuppliesInputs)}
    assert _view_names("campaign/campaign.html") <= shown
    assert _view_names("base.html") == set()


_LOG_PART = re.compile(
    r'<section data-part="log" data-fp="([0-9a-f]{8})"(?: hx-swap-oob="true")?(.*?)</section>', re.S
)


def _log_part(html: str) -> tuple[str, str]:
    found = _LOG_PART.search(html)
    assert found, "no log part"
    return found.group(1), found.group(2)


def _log_read(ctx: CaptureQueriesContext) -> bool:
    """Whether the log was read (``campaign_page._LOG_AND_THREAD``, or the log alone)."""
    return any(
        '"campaign_event"' in q["sql"] and 'AS "shown"' in q["sql"] for q in ctx.captured_queries
    )


# Buys and cancels answered to the Axis's page (a cancel: of its first active line).
_BUYS_AND_CANCELS = (
    ("buy", {"group": "M1"}),
    ("cancel", {}),
    ("buy", {"group": "M1"}),
    ("buy", {"group": "I4"}),
)


def _answering(users):
    """Sicily at 3.617 (RGs bought secretly), the Axis player's client and page, and
    ``post``: an action answered to that page as to one whose socket is down (its
    HTML, CSRF tokens cut out, and the statements it ran)."""
    players, _ = campaign_at("sicily", "i", "jul14pm", users)
    cid = players.campaign_id
    client = Client()
    client.force_login(players.users["axis"])
    at = f"{players.campaign.cycle}.{players.campaign.step_index}"

    def post(action: str, **data: str) -> tuple[str, CaptureQueriesContext]:
        if action == "cancel":
            active = Purchase.objects.filter(campaign_id=cid, side="axis", status="active")
            data = {"purchase": active[0].ref}
        with CaptureQueriesContext(connection) as ctx:
            response = client.post(
                f"/campaigns/{cid}/act/{action}/", {**data, "at": at}, HTTP_HX_REQUEST="true"
            )
        assert response.status_code == 200, response.content[:300]
        return _TOKEN.sub("", response.content.decode()), ctx

    return players, client, f"/campaigns/{cid}/", post


@pytest.mark.django_db
def test_an_answer_adds_its_changes_lines_to_the_log_its_seat_was_shown_3_617(modules, users):
    """A buy's and a cancel's answer to a page whose socket is down (3.617: RGs bought
    secretly) carries the log part made from the change: the lines it recorded
    (``Change.logged``), as the gate shows them to the buyer, added to the log his
    seat was shown at the revision before it, without reading the log; the same part
    as a fresh render.  After a change of the opponent's the seat was not shown (his
    message), the log is read as before."""
    players, client, page, post = _answering(users)

    def answer(action: str, **data: str) -> tuple[str, bool]:
        html, ctx = post(action, **data)
        return html, _log_read(ctx)

    def fresh_log() -> tuple[str, str]:
        """The log part of a fresh render, nothing it memoises kept."""
        return _log_part(_fresh(client, page, SHOWN_LOGS, SHOWN_MEMO))

    _page(client, page)  # the log the seat is shown
    for step, (action, data) in enumerate(_BUYS_AND_CANCELS):
        html, read = answer(action, **data)
        assert not read, f"{action} #{step}: the log was read"
        assert "bought M1" in html or "cancelled M1" in html
        assert _log_part(html) == fresh_log(), f"{action} #{step}"
    messages.send_message(campaign_id=players.campaign_id, user=players.users["british"], text="Hi")
    html, read = answer("cancel")
    assert read, "a change the seat was not shown since: the log is read"
    assert _log_part(html) == fresh_log()
    html, read = answer("cancel")
    assert not read
    assert _log_part(html) == fresh_log()


@pytest.mark.django_db
def test_each_line_a_transaction_records_is_said_by_one_change(modules, users):
    """``events.logged``: the lines recorded since the last change that said its own,
    so two changes committed in one transaction never carry the same line twice."""
    players, _ = campaign_at("sicily", "i", "jul14pm", users)
    campaign = Campaign.objects.get(pk=players.campaign_id)

    def line(text: str) -> None:
        events.record_event(campaign, kind=EventKind.MESSAGE, text=text, side="axis")

    line("one")
    line("two")
    assert [entry.text for entry in events.logged(campaign)] == ["one", "two"]
    line("three")
    assert [entry.text for entry in events.logged(campaign)] == ["three"]
    assert events.logged(campaign) == ()


_STAMP = re.compile(r'<section data-part="([a-z-]+)" data-fp="([0-9a-f]{8})"')


def _purchases_read(ctx: CaptureQueriesContext) -> bool:
    """Whether the purchases were read through the gate (``visible_purchases``)."""
    return any(
        '"campaign_purchase"' in q["sql"] and '"outcome_shown"' in q["sql"]
        for q in ctx.captured_queries
    )


@pytest.mark.django_db
def test_an_answer_adds_the_rows_its_change_wrote_to_the_purchases_its_seat_was_shown_3_617(
    modules, users
):
    """A buy's and a cancel's answer to a page whose socket is down (3.617: RGs bought
    secretly) takes the purchases from the change: the row it wrote (``Change.purchases``)
    through the gate in memory (``PURCHASE.shown``), added to or taken out of those the
    seat was shown at the revision before it, without reading them; each part it
    carries (the step, the sides, the RG Purchase Records, the log) is a fresh render's.
    After a change of the opponent's the seat was not shown (his message), they are
    read as before."""
    players, client, page, post = _answering(users)
    memos = (SHOWN_LOGS, SHOWN_MEMO, SHOWN_PURCHASES, RECORD_LINES, TABLE_MEMO)

    def answer(action: str, **data: str) -> tuple[dict[str, str], bool]:
        html, ctx = post(action, **data)
        parts = dict(_STAMP.findall(html))
        assert {"step", "sides", "record", "log"} <= parts.keys(), parts
        return parts, _purchases_read(ctx)

    def fresh(parts: dict[str, str]) -> dict[str, str]:
        """The same parts of a fresh render, nothing they memoise kept."""
        shown = dict(_STAMP.findall(_fresh(client, page, *memos)))
        return {part: shown[part] for part in parts}

    _page(client, page)  # the purchases the seat is shown
    for step, (action, data) in enumerate([*_BUYS_AND_CANCELS, ("cancel", {})]):
        parts, read = answer(action, **data)
        assert not read, f"{action} #{step}: the purchases were read"
        assert parts == fresh(parts), f"{action} #{step}"
    messages.send_message(campaign_id=players.campaign_id, user=players.users["british"], text="Hi")
    parts, read = answer("cancel")
    assert read, "a change the seat was not shown since: the purchases are read"
    assert parts == fresh(parts)
    parts, read = answer("buy", group="M1")
    assert not read
    assert parts == fresh(parts)
