"""What a page after a change computes once per distinct input (issue 49): the RG
Purchase Records' lines (Sicily 3.6179) per what the seat sees of the purchases, the
result of the pass read by a compiled read.  A memoised line
is never another seat's: the key holds the side and what the gate let it read."""

from __future__ import annotations

import uuid

import pytest

from campaign.models import Campaign, Purchase, ScenarioResult, Seat
from campaign.seat_views import common
from campaign.seat_views.common import RECORD_LINES, record_lines, visible_purchases
from campaign.selectors import module_of, pass_result
from tests.purchase_helpers import campaign_at


@pytest.fixture
def users(make_user):
    return make_user("axis_m"), make_user("brit_m")


def _purchase(c: Campaign, side: str, n: int, *, revealed: bool) -> Purchase:
    return Purchase.objects.create(
        campaign=c,
        side=side,
        cycle=c.cycle,
        date_index=c.date_index,
        group_id="M1",
        group_type="Sniper",
        cost=1,
        ordinal=100 + n,
        date_ordinal=100 + n,
        revealed_at=c.created_at if revealed else None,
    )


def _lines(c: Campaign, side: str) -> list[common.PurchaseLine]:
    c = Campaign.objects.get(pk=c.pk)
    return record_lines(c, module_of(c), side, visible_purchases(c, side))


def _fresh(c: Campaign, side: str) -> list[common.PurchaseLine]:
    c = Campaign.objects.get(pk=c.pk)
    module = module_of(c)
    added = common._added_later(c, module, side)
    return common._record_lines(c, module, side, visible_purchases(c, side), added)


@pytest.mark.django_db
def test_the_rg_purchase_records_lines_are_computed_once_per_what_the_seat_sees_3_6179(
    modules, users
):
    players, _ = campaign_at("sicily", "i", "jul14pm", users)
    c = players.campaign
    secret = _purchase(c, "axis", 1, revealed=False)
    _purchase(c, "british", 2, revealed=True)
    RECORD_LINES.clear()

    axis = _lines(c, "axis")
    assert len(RECORD_LINES) == 1
    assert _lines(c, "axis") == axis == _fresh(c, "axis")
    assert len(RECORD_LINES) == 1, "the same purchases, position and side: one entry"

    # The opponent's record is its own entry, made from what the gate lets it read:
    # the axis's secret line is not in it, whatever the axis seat memoised.
    british = _lines(c, "british")
    assert len(RECORD_LINES) == 2
    assert secret.ref in {line.id for line in axis}
    assert secret.ref not in {line.id for line in british}
    assert british == _fresh(c, "british")

    # A purchase changes what the seat sees: a new entry, the new line in it.
    added = _purchase(c, "axis", 3, revealed=False)
    again = _lines(c, "axis")
    assert added.ref in {line.id for line in again}
    assert again == _fresh(c, "axis")

    # Its reveal changes the opponent's: its line appears there, from a fresh entry.
    Purchase.objects.filter(pk=secret.pk).update(revealed_at=c.created_at)
    assert secret.ref in {line.id for line in _lines(c, "british")}

    # A move of the campaign (another step) is another entry too.
    Campaign.objects.filter(pk=c.pk).update(step_index=c.step_index + 1)
    assert _lines(c, "axis") == _fresh(c, "axis")


@pytest.mark.django_db
def test_the_compiled_read_of_the_pass_result_answers_as_the_orm(modules, users):
    """``pass_result`` (the result an amendment reads) runs a compiled read: the
    result confirmed in the campaign's pass, as the ORM query it replaces."""
    players, _ = campaign_at("sicily", "i", "jul14pm", users)
    c = Campaign.objects.get(pk=players.campaign.pk)
    orm = ScenarioResult.objects.filter(
        campaign=c, cycle=c.cycle, confirmed_at__isnull=False
    ).first()
    assert orm is not None
    assert pass_result(c) == orm
    Campaign.objects.filter(pk=c.pk).update(cycle=c.cycle + 1)
    assert pass_result(Campaign.objects.get(pk=c.pk)) is None


@pytest.mark.django_db
def test_the_roster_page_is_served_once_per_what_it_shows_3_617(modules, users, client):
    """The CG Roster page (3.617) is rendered once per what its view shows: a new
    revision whose view is unchanged serves the page already rendered; a purchase the
    seat sees renders it again, with the purchase in it."""
    from campaign.views.pages import PAGE_MEMO

    players, _ = campaign_at("sicily", "i", "jul14pm", users)
    c = players.campaign
    client.force_login(players.users["axis"])
    url = f"/campaigns/{c.pk}/roster/"
    PAGE_MEMO.clear()
    first = client.get(url)
    assert first.status_code == 200
    assert len(PAGE_MEMO) == 1
    Seat.objects.filter(campaign=c).update(revision=uuid.uuid4())  # nothing it shows
    assert client.get(url).status_code == 200
    assert len(PAGE_MEMO) == 1, "the same view: the page already rendered"
    bought = _purchase(c, "axis", 4, revealed=False)
    Seat.objects.filter(campaign=c).update(revision=uuid.uuid4())  # as writes.commit does
    again = client.get(url)
    assert len(PAGE_MEMO) == 2
    row = f'id="roster-record-{bought.ref}"'.encode()
    assert row in again.content and row not in first.content


@pytest.mark.django_db
def test_the_owed_rolls_and_the_exchanges_ahead_read_the_units_once_3_611(modules, users):
    """Before the RePh's unit tables and its exchange (Sicily 3.606-3.614, 3.611 with
    its Retained Heroes), the campaign page reads the viewer's units once for both
    (two statements before)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from campaign.models import Unit
    from campaign.seat_views.campaign_page import campaign_view

    players, _ = campaign_at("sicily", "i", "jul14pm", users, step="3.601")
    c = Campaign.objects.get(pk=players.campaign.pk)
    module = module_of(c)
    ahead = module.steps[c.step_index :]
    assert any(s.exchange is not None for s in ahead)
    assert any(
        t.required and t.once == "unit" for s in ahead for t in module.tables if t.id in s.tables
    )
    view = campaign_view(players.users["axis"], c.pk)
    table = Unit._meta.db_table
    with CaptureQueriesContext(connection) as ctx:
        owed, held = view.owed_rolls, view.exchanges_held
    reads = [q["sql"] for q in ctx.captured_queries if f'FROM "{table}"' in q["sql"]]
    assert len(reads) == 1, reads
    assert isinstance(owed, tuple) and isinstance(held, frozenset)


def fresh(view) -> list:
    """The chart's rows computed afresh for the view's seat (no memo read)."""
    from campaign.seat_views import panels

    own = [p for p in view.purchases if p.side == view.viewer]
    snap = view.snapshot(
        panels.Holdings(
            bought=tuple(panels.bought_of(p) for p in own),
            result_totals=panels.result_totals(view.campaign, view.viewer),
            setup_areas=panels.own_setup_areas(view.campaign, view.viewer),
        )
    )
    return list(panels._chart_figures(view.module, snap).rows)


def _chart(c: Campaign, user) -> tuple[list, object]:
    from campaign.seat_views.campaign_page import campaign_view

    view = campaign_view(user, c.pk)
    panel = view.panel
    assert panel is not None
    return panel.chart, view


@pytest.mark.django_db
def test_the_rg_chart_is_computed_once_per_the_sides_snapshot_3_617(modules, users):
    """The RG chart (Sicily 3.617: each RG's prices, Date/CG Max left and why it may not
    be bought) is computed by the engine once per the side's snapshot: the same
    holdings, points and position give the entry met before; another side, its points
    or what it holds, another entry, equal to what the engine gives afresh."""
    from campaign.seat_views import panels

    players, _ = campaign_at("sicily", "i", "jul14pm", users)
    c = players.campaign
    axis_user, british_user = users
    panels.CHART_FIGURES.clear()

    axis, view = _chart(c, axis_user)
    assert len(panels.CHART_FIGURES) == 1
    assert axis == fresh(view)
    Seat.objects.filter(campaign=c).update(revision=uuid.uuid4())  # a change: new revisions
    again, _ = _chart(c, axis_user)
    assert again == axis and len(panels.CHART_FIGURES) == 1, "the same snapshot: one entry"

    # The opponent's chart is its own entry (its side, its points, its holdings).
    british, view = _chart(c, british_user)
    assert len(panels.CHART_FIGURES) == 2
    assert british == fresh(view)

    # Fewer points: a new entry, computed afresh (the RGs priced above them refused).
    Seat.objects.filter(campaign=c, side="axis").update(points=1)
    poorer, view = _chart(c, axis_user)
    assert len(panels.CHART_FIGURES) == 3
    assert poorer == fresh(view) != axis

    # An RG bought: a new entry, its row's counts from the purchase.
    Seat.objects.filter(campaign=c, side="axis").update(points=200)
    _purchase(c, "axis", 1, revealed=False)
    bought, view = _chart(c, axis_user)
    assert len(panels.CHART_FIGURES) == 4
    assert bought == fresh(view)


@pytest.mark.django_db
def test_the_rg_chart_of_a_line_bought_again_is_the_entry_met_before_3_617(modules, users):
    """Sicily 3.617: the chart's limits count a side's lines by RG, date, price and
    state, never by a line's reference, so buying an RG again after cancelling it (the
    same holdings, another reference) gives the chart's entry met before, equal to what
    the engine gives afresh for the new line."""
    from campaign.seat_views import panels

    players, _ = campaign_at("sicily", "i", "jul14pm", users)
    c = players.campaign
    axis_user, _ = users
    Seat.objects.filter(campaign=c, side="axis").update(points=200)
    panels.CHART_FIGURES.clear()
    first = _purchase(c, "axis", 1, revealed=False)
    bought, view = _chart(c, axis_user)
    assert len(panels.CHART_FIGURES) == 1
    first.delete()  # cancelled
    again = _purchase(c, "axis", 2, revealed=False)
    assert again.ref != first.ref
    rebought, view = _chart(c, axis_user)
    assert len(panels.CHART_FIGURES) == 1, "the same holdings but a reference: one entry"
    assert rebought == bought == fresh(view)


def _view_names(template: str) -> set[str]:
    """The ``view.<name>`` a campaign template reads, its includes' too."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent / "templates"
    text = (root / template).read_text()
    names = set(re.findall(r"\bview\.(\w+)", text))
    for included in re.findall(r'{%\s*include\s+"([^"]+)"', text):
        names |= _view_names(included)
    return names


def test_each_part_shown_by_its_inputs_declares_what_its_template_reads():
    """``fragments.SHOWN_BY`` lists exactly the view's attributes each part's template
    reads: a name missing would render empty, a name too many would only miss."""
    from campaign.fragments import CAMPAIGN_PARTS, SHOWN_BY

    for part, names in SHOWN_BY.items():
        assert set(names) == _view_names(CAMPAIGN_PARTS[part]), part


@pytest.mark.django_db
def test_a_new_revision_renders_the_header_sides_thread_and_log_once_per_what_they_show(
    modules, users
):
    """Issue 49: a change gives the seats that may see it a new revision, yet the
    header, the sides, the players' thread and the log mostly show what they showed:
    each is rendered once per what it shows (``fragments.SHOWN_BY``: the gate's values
    of the view), the same HTML as rendered from the view, never another seat's; a
    message the seat may see renders the thread again (Sicily 3.617)."""
    import re

    from campaign import fragments
    from campaign.fragments import CAMPAIGN_MEMO, CAMPAIGN_PARTS, SHOWN_BY, SHOWN_MEMO, Part
    from campaign.seat_views.campaign_page import campaign_view
    from campaign.services import messages

    players, _ = campaign_at("sicily", "i", "jul14pm", users)
    cid = players.campaign_id
    rendered: list[str] = []
    render = fragments.render_template

    def counted(template, context, request=None):
        rendered.append(template)
        return render(template, context, request)

    def parts(side: str) -> dict[Part, str]:
        user = players.users[side]
        view = campaign_view(user, cid)
        return dict(fragments.campaign_fragments(view, SHOWN_BY, user=user, origin="", oob=False))

    def from_view(side: str) -> dict[Part, str]:
        """Each part rendered from the whole view, as before ``SHOWN_BY``."""
        user = players.users[side]
        view = campaign_view(user, cid)
        context = {"view": view, "user": user, "csrf_token": "t", "oob": False}
        return {p: fragments.render_template(CAMPAIGN_PARTS[p], context) for p in SHOWN_BY}

    def token_free(html: str) -> str:
        html = re.sub(r'csrfmiddlewaretoken" value="[^"]*"', "", html)
        return re.sub(r'<section data-part="\w+" data-fp="\w+"', "<section", html)

    CAMPAIGN_MEMO.clear()
    SHOWN_MEMO.clear()
    fragments.render_template = counted
    try:
        first = {side: parts(side) for side in ("axis", "british")}
        assert len(rendered) == 2 * len(SHOWN_BY)
        rendered.clear()
        Seat.objects.filter(campaign_id=cid).update(revision=uuid.uuid4())
        again = {side: parts(side) for side in ("axis", "british")}
        assert rendered == [], "a new revision showing the same: nothing rendered again"
        assert again == first
        messages.send_message(campaign_id=cid, user=players.users["axis"], text="Hello")
        after = {side: parts(side) for side in ("axis", "british")}
        assert rendered.count("campaign/_messages.html") == 2  # each seat's own thread
        assert "Hello" in after["british"][Part.MESSAGES]
        assert after["axis"][Part.MESSAGES] != after["british"][Part.MESSAGES]  # "You"
    finally:
        fragments.render_template = render
    for side in ("axis", "british"):
        whole = from_view(side)
        for part in SHOWN_BY:
            assert token_free(after[side][part]) == token_free(whole[part]), (side, part)


@pytest.mark.django_db
def test_the_log_and_the_players_thread_are_one_read_of_the_events(modules, users):
    """The campaign log and the players' thread (issue 46: messages and the reasons
    given) are two windows of one table: a page after a change reads them in one
    statement through the gate, and shows what the two reads gave."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from campaign.models import Event
    from campaign.seat_views.campaign_page import campaign_view
    from campaign.services import messages

    players, _ = campaign_at("sicily", "i", "jul14pm", users)
    c = players.campaign
    axis_user, british_user = users
    messages.send_message(campaign_id=c.pk, user=british_user, text="Ready when you are.")
    view = campaign_view(axis_user, c.pk)
    assert view.seat.side == "axis"  # the seats read before the count
    table = Event._meta.db_table
    with CaptureQueriesContext(connection) as ctx:
        log, thread = view.events, view.messages
    reads = [q["sql"] for q in ctx.captured_queries if f'FROM "{table}"' in q["sql"]]
    assert len(reads) == 1, reads
    assert [m.said for m in thread] == ["Ready when you are."]
    assert log and all("Ready when you are." not in e.text for e in log)


@pytest.mark.django_db
@pytest.mark.parametrize("messages_first", [True, False])
def test_the_one_read_of_log_and_thread_shows_what_two_reads_show(modules, users, messages_first):
    """The log's newest 200 lines and the thread's newest 50 lines, read in one window
    of the events, are what the two reads of old give through the gate: a flood of
    messages after the log (or of log lines after the messages) cuts neither short,
    and the opponent's secret lines stay out of both."""
    from campaign.models import Event, EventKind
    from campaign.seat_views import campaign_page
    from campaign.seat_views.campaign_page import campaign_view
    from campaign.seat_views.common import LOG_WINDOW, event_views

    players, _ = campaign_at("sicily", "i", "jul14pm", users)
    c = players.campaign

    def said(n: int, side: str) -> Event:
        return Event(
            campaign=c,
            kind=EventKind.MESSAGE,
            side=side,
            date_index=c.date_index,
            text=f"m{n}",
            public_text=f"m{n}",
            data={"said": f"m{n}"},
        )

    def line(n: int, secret: bool) -> Event:
        return Event(
            campaign=c,
            kind=EventKind.PURCHASE,
            side="british",
            secret_side="british" if secret else "",
            date_index=c.date_index,
            text=f"line {n}",
            public_text="" if secret else f"line {n}",
        )

    floods = [
        [said(n, ("axis", "british")[n % 2]) for n in range(260)],
        [line(n, secret=n % 3 == 0) for n in range(320)],
    ]
    for flood in floods if messages_first else floods[::-1]:
        Event.objects.bulk_create(flood)
    for user, side in ((users[0], "axis"), (users[1], "british")):
        view = campaign_view(user, c.pk)
        assert [e.text for e in view.events] == [e.text for e in event_views(c, side, view.module)]
        assert len(view.events) == LOG_WINDOW
        thread = campaign_page._MESSAGES(side=side, campaign=c.pk)
        assert [m.said for m in view.messages] == [
            campaign_page._thread_line(kind, data) for _, kind, data, _ in reversed(thread)
        ]
        assert len(view.messages) == campaign_page.MESSAGES_SHOWN


@pytest.mark.django_db
def test_the_set_up_pages_entries_are_the_seats_purchases_already_read_apd_3_8(modules, users):
    """APD 3.8: the set-up page names where each of the viewer's held RGs enters, as
    its record holds it.  Those are lines of the purchases the page already read
    through the gate (``view.purchases``): no read of their own, and the opponent's
    lines, a line with no entry and one no longer held stay out, in date order."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from campaign.seat_views import panels
    from campaign.seat_views.campaign_page import campaign_view

    players, _ = campaign_at("sicily", "i", "jul14pm", users)
    c = players.campaign
    axis_user, _ = users
    lines = [
        _purchase(c, side, n, revealed=False) for n, side in enumerate(["axis"] * 4 + ["british"])
    ]
    for n, p in enumerate(lines):
        p.entry_area = f"edge {n}"
    lines[2].entry_area = ""
    lines[3].state = Purchase.State.ELIMINATED
    Purchase.objects.bulk_update(lines, ["entry_area", "state"])
    view = campaign_view(axis_user, c.pk)
    assert all(p.campaign_id == c.pk for p in view.purchases)  # the page's read
    panel = panels.StepPanel(at=view.at, can_act=True)
    table = Purchase._meta.db_table
    with CaptureQueriesContext(connection) as ctx:
        panels._entries(view, panel)
    assert [q["sql"] for q in ctx.captured_queries if f'FROM "{table}"' in q["sql"]] == []
    assert panel.entries == [f"M1 Sniper: edge {n}" for n in (0, 1)]


@pytest.mark.django_db
def test_no_part_but_the_step_builds_the_step_panel_3_617(modules, users, monkeypatch):
    """Issue 49: the header's "your answer is awaited", the RG Purchase Records' and the
    rules data's forms read their own inputs, not the whole step panel: a change that
    touches the header and not the step (a nudge) builds no panel; each part is the
    same HTML as rendered beside the step (Sicily 3.617)."""
    from campaign import fragments
    from campaign.fragments import CAMPAIGN_MEMO, CAMPAIGN_PARTS, SHOWN_MEMO, TABLE_MEMO, Part
    from campaign.seat_views import campaign_page
    from campaign.seat_views.campaign_page import campaign_view

    players, _ = campaign_at("sicily", "i", "jul14pm", users)
    cid = players.campaign_id
    _purchase(players.campaign, "axis", 1, revealed=False)  # a line with forms
    built: list[str] = []
    build = campaign_page.build_panel

    def counted(view):
        built.append(view.viewer)
        return build(view)

    monkeypatch.setattr(campaign_page, "build_panel", counted)
    others = set(CAMPAIGN_PARTS) - {Part.STEP}
    for side in ("axis", "british"):
        user = players.users[side]
        for memo in (CAMPAIGN_MEMO, SHOWN_MEMO, TABLE_MEMO):
            memo.clear()
        view = campaign_view(user, cid)
        alone = dict(fragments.campaign_fragments(view, others, user=user, origin="", oob=False))
        assert built == [], "no part but the step builds the panel"
        for memo in (CAMPAIGN_MEMO, SHOWN_MEMO, TABLE_MEMO):
            memo.clear()
        view = campaign_view(user, cid)
        every = dict(
            fragments.campaign_fragments(view, CAMPAIGN_PARTS, user=user, origin="", oob=False)
        )
        assert built == [side]
        built.clear()
        for part in others:
            assert alone[part] == every[part], (side, part)
