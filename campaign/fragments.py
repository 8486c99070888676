"""The fragments htmx swaps: one template per page part, rendered for one seat from
its seat view.  The page, htmx answers and websocket pushes all render through here,
so every channel shows the same.

Each part's root carries its name and a fingerprint of what it shows
(``data-part``/``data-fp``).  A page's socket says, when it (re)connects, what each
part of the page shows; only the parts that differ are sent, so a part the player
is working in is not re-drawn for nothing."""

from __future__ import annotations

import hashlib
import pickle
import re
import secrets
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from types import SimpleNamespace
from typing import Any
from uuid import UUID

from django.http import HttpRequest
from django.middleware.csrf import get_token
from django.template import engines
from django.template.loader import render_to_string
from django.utils.safestring import mark_safe

from campaign.changes import Change
from campaign.memo import Memo
from campaign.seat_views.campaign_page import CampaignView
from campaign.seat_views.common import PurchaseLine
from campaign.seat_views.panels import ChartRow, StepPanel
from campaign.seat_views.roster import RosterView
from campaign.seat_views.supplements import PackageView, SupplyView


class Part(StrEnum):
    """A fragment of a live page (``campaign.live_pages``): the page side's own
    vocabulary; the write side names none (it says what changed, ``campaign.changes``)."""

    HEADER = "header"
    STEP = "step"
    SIDES = "sides"
    INVITATION = "invitation"
    RECORD = "record"
    SUPPLIES = "supplies"
    LOG = "log"
    MESSAGES = "messages"
    ROSTER = "roster"
    ROSTER_RECORD = "roster_record"
    FORCES = "forces"
    CHARTS = "charts"
    UNREAD = "unread"


EVERYTHING = frozenset(Part)
# Every part but the players' messages, which change only when one is sent (or a
# refusal's reason is said in the thread).
STATE_PARTS = EVERYTHING - {Part.MESSAGES}


CAMPAIGN_PARTS: dict[Part, str] = {
    Part.HEADER: "campaign/_header.html",
    Part.STEP: "campaign/_step.html",
    Part.SIDES: "campaign/_sides.html",
    Part.INVITATION: "campaign/_invitation.html",
    Part.RECORD: "campaign/_record.html",
    Part.SUPPLIES: "campaign/_supplies.html",
    Part.LOG: "campaign/_log.html",
    Part.MESSAGES: "campaign/_messages.html",
    Part.UNREAD: "campaign/_unread.html",
}

ROSTER_PARTS: dict[Part, str] = {
    Part.ROSTER: "campaign/_roster.html",
    Part.ROSTER_RECORD: "campaign/_roster_record.html",
    Part.FORCES: "campaign/_forces.html",
    Part.CHARTS: "campaign/_charts.html",
    Part.UNREAD: "campaign/_unread.html",
}


@dataclass(frozen=True)
class Unread:
    """How many of the opponent's messages the seat has not seen (``Seat.
    messages_unread``), said at the head of each page of the campaign."""

    campaign_id: Any
    count: int

    @classmethod
    def of(cls, seat: Any) -> Unread:
        return cls(seat.campaign_id, seat.messages_unread)


# What differs between renders of the same content: the per-request CSRF token (a
# socket's render has none) and the swap marker (a page's own parts have none).
_TOKEN_FIELD = 'name="csrfmiddlewaretoken" value="'
_TOKEN = re.compile(re.escape(_TOKEN_FIELD) + '[^"]*')
_SWAP_MARKER = 'hx-swap-oob="true"'
_ROOT = re.compile(r"<section\b")
_SHOWS = re.compile(r"([a-z_]+)\.([0-9a-f]{8})")


def per_render_removed(html: str) -> str:
    """``html`` without its CSRF tokens' values and its swap markers.  Two passes, each
    searching for a literal (a token's value cannot hold a swap marker: both end at a
    quote), instead of one alternation tried at every character: a tenth of the time on
    a 90 kB part."""
    return _TOKEN.sub(_TOKEN_FIELD, html).replace(_SWAP_MARKER, "")


def fingerprint(html: str) -> str:
    """What a part shows, in eight hex digits: equal for the page's render, an htmx
    answer and a socket's push of the same content."""
    return hashlib.sha256(per_render_removed(html).encode()).hexdigest()[:8]


def _stamped(part: Part, html: str) -> str:
    stamp = f'<section data-part="{part}" data-fp="{fingerprint(html)}"'
    stamped, found = _ROOT.subn(stamp, html, count=1)
    if not found:
        raise ValueError(f"the {part} part's template has no <section> root")
    return mark_safe(stamped)  # a rendered template, stamped with a name and hex digits


def shown(query: str | None) -> dict[str, str]:
    """A page's ``shows`` (``part.fingerprint`` pairs, comma-separated): what each of
    its parts shows.  Anything malformed is ignored (that part is sent)."""
    return {m.group(1): m.group(2) for m in map(_SHOWS.fullmatch, (query or "").split(",")) if m}


def unchanged(fragments: Iterable[tuple[Part, str]], shows: Mapping[str, str]) -> set[Part]:
    """The parts among ``fragments`` that show what the page already shows (their
    stamp carries the fingerprint the page reported)."""
    return {
        part
        for part, html in fragments
        if part in shows and f'<section data-part="{part}" data-fp="{shows[part]}"' in html
    }


# A table row a page may keep when a push re-draws its part (the RG chart's rows, the
# RG Purchase Records' lines): its start tag begins ``<tr data-keep`` and names its id.
# A row holds no other row, so it ends at the first ``</tr>``.
_KEPT_ROW = re.compile(r'<tr data-keep\b[^>]*\bid="([^"]+)"[^>]*>.*?</tr>', re.S)


def kept_rows(sent: str, html: str) -> str:
    """``html``, a part's new render, for a page whose part shows ``sent`` (what its
    socket last sent it): each row the page shows exactly as ``html`` has it is sent
    empty, marked for htmx to keep the page's own (``hx-preserve``, by id).  A
    purchase changes a row or two of a chart of dozens: the frame carries those (half
    a purchase's bytes), and the rows the page keeps stay as they were (an open note,
    a refusal beside a price).  The part's fingerprint is the whole render's: what the
    page shows once its rows are back in place."""
    before = {m.group(1): m.group(0) for m in _KEPT_ROW.finditer(sent)}
    if not before:
        return html

    def keep(row: re.Match[str]) -> str:
        if before.get(row.group(1)) != row.group(0):
            return row.group(0)
        return f'<tr data-keep id="{row.group(1)}" hx-preserve="true"></tr>'

    return _KEPT_ROW.sub(keep, html)


# The hot parts rendered by Jinja2 (``templates/jinja2/``, engine ``jinja2``; issue 49:
# Django's engine took two to four times the CPU for the same HTML,
# ``python bench/profiling.py --templates``); every other template is Django's.
JINJA2_TEMPLATES = frozenset({"campaign/steps/_chart_rows.html", "campaign/_roster.html"})


def render_template(template: str, context: dict[str, Any], request: Any = None) -> str:
    """``template`` rendered by its engine (``JINJA2_TEMPLATES``: Jinja2)."""
    if template in JINJA2_TEMPLATES:
        return str(engines["jinja2"].get_template(template).render(context, request))
    return render_to_string(template, context, request=request)


def _render(
    templates: Mapping[Part, str], parts: Iterable[Part], context: dict[str, Any], request: Any
) -> list[tuple[Part, str]]:
    wanted = set(parts)
    return [
        (part, _stamped(part, render_template(template, context, request)))
        for part, template in templates.items()
        if part in wanted
    ]


def campaign_fragments(
    view: CampaignView,
    parts: Iterable[Part],
    *,
    user: Any,
    origin: str,
    request: HttpRequest | None = None,
    oob: bool = True,
    token: str | None = None,
    earlier: Sequence[tuple[UUID, frozenset[Part]]] = (),
    changes: Sequence[Change] = (),
) -> list[tuple[Part, str]]:
    """(part, html) for each campaign-page part asked for, each marked for an
    out-of-band swap (``oob``; the page itself renders its parts without).  Every part
    but the invitation (its link names the page's origin) is rendered once per seat
    revision (``CAMPAIGN_MEMO``), the sides once per revision and presence, the rules
    data to supply and the RG Purchase Records once per their inputs (most changes
    leave them as they were: the revision changes, they do not).  ``earlier``: the
    seat's earlier revisions, newest first, each with the parts the changes since
    then touch (``live_pages.LivePage.earlier``): a part rendered at one of them that
    those changes do not touch is served as it was, without reading what it shows.
    ``token``: the CSRF token to put in the forms (by default the request's; none
    without a request).  ``changes``: the action's own, just committed (its answer):
    the log is the one the seat was shown before them with their lines added
    (``CampaignView.log_after``), the purchases those it was shown with the rows they
    wrote (``CampaignView.purchases_after_changes``), where they can be, not read again."""
    wanted = set(parts)
    if changes:
        view.purchases_after_changes(changes)
    if Part.LOG in wanted and changes:
        view.log_after(changes)
    token = _token(request, token)
    context = {
        "view": view,
        "oob": oob,
        "origin": origin,
        "user": user,
        "csrf_token": token,
        "unread": Unread.of(view.seat),
    }
    fresh = dict(_render(CAMPAIGN_PARTS, wanted - MEMOISED_PARTS, context, request))
    memo_context = {"view": view, "user": user, "csrf_token": PartMemo.TOKEN}
    *shown, online = shown_by(view)
    cid, side, _, players = shown

    def rendered(part: Part, template: str, key: tuple[Any, ...]) -> str:
        if part == Part.SUPPLIES:  # public data, unchanged by most changes
            inputs = supplies_inputs(view)
            shows: tuple[Any, ...] = (part, PartMemo.digest(inputs))
            supplies = {"view": inputs, "csrf_token": PartMemo.TOKEN}
            return _rendered(SHOWN_MEMO, shows, part, template, supplies)
        if part == Part.RECORD:  # its table's inputs: unchanged by most changes
            shows = (part, PartMemo.digest(record_inputs(view)))
            return _rendered(SHOWN_MEMO, shows, part, template, memo_context)
        if part in SHOWN_BY:
            # A new revision: the part as rendered for what it shows, if it was.
            shown_of = shown_inputs(view, part)
            shows = (part, view.viewer, user.get_username(), PartMemo.digest(shown_of))
            return _rendered(SHOWN_MEMO, shows, part, template, {**memo_context, "view": shown_of})
        return _rendered(CAMPAIGN_MEMO, key, part, template, memo_context)

    def memoised(part: Part, template: str) -> str:
        at = online if part == Part.SIDES else None
        key = (part, cid, side, view.seat.revision, players, at)
        html = CAMPAIGN_MEMO.get(key)
        if html is None:
            html = _carried(part, (cid, side, players, at), earlier) or rendered(
                part, template, key
            )
            CAMPAIGN_MEMO.put(key, html)
        return _finished(part, html, token, oob)

    return [
        (part, fresh[part] if part in fresh else memoised(part, template))
        for part, template in CAMPAIGN_PARTS.items()
        if part in wanted
    ]


def _carried(
    part: Part,
    of: tuple[Any, Any, Any, Any],
    earlier: Sequence[tuple[UUID, frozenset[Part]]],
) -> str | None:
    """``part`` as rendered at the newest of the ``earlier`` revisions since which no
    change touched it, if it was (``of``: the campaign, the side, the players and,
    for the sides, who is online)."""
    cid, side, players, at = of
    for revision, touched in earlier:
        if part in touched:  # and at every revision before it
            return None
        html = CAMPAIGN_MEMO.get((part, cid, side, revision, players, at))
        if html is not None:
            return html
    return None


# The campaign page's parts rendered from the few things they show: the attributes of
# the seat's view their templates read (``view.<name>``), each part rendered once per
# distinct value of those (and the viewer and its user), not per seat revision.  A
# change renews the revision of every seat that may see it, yet most changes leave
# the header, the sides, the thread and the log of a seat as they were (a purchase
# leaves the header and the thread; a message, the header, the sides and the log).
# The values are the view's, already cut down by the visibility gate; the template
# reads nothing else (``tests/test_fragments_memo.py`` holds each list to its
# template's ``view.`` names and each render to the view's).
SHOWN_BY: dict[Part, tuple[str, ...]] = {
    Part.HEADER: (
        "awaiting_answer",
        "campaign_id",
        "can_nudge",
        "date",
        "ended",
        "ended_date",
        "host",
        "in_play",
        "initiative",
        "module_title",
        "name",
        "outcome",
        "reveal_policy",
        "status",
        "step",
        "step_count",
        "step_number",
        "variant",
        "your_move",
    ),
    Part.SIDES: (
        "campaign_id",
        "can_export",
        "currency",
        "dice_seed",
        "dice_seed_hash",
        "ended",
        "fortification_currency",
        "host",
        "sides",
        "viewer",
    ),
    Part.MESSAGES: ("campaign_id", "messages"),
    Part.LOG: ("events", "log_days"),
}


def shown_inputs(view: CampaignView, part: Part) -> SimpleNamespace:
    """What ``part`` shows of ``view`` (``SHOWN_BY``), as the ``view`` its template
    reads."""
    return SimpleNamespace(**{name: getattr(view, name) for name in SHOWN_BY[part]})


def shown_by(view: CampaignView) -> tuple[object, ...]:
    """What the seat's campaign page shows is a function of, but the page's origin:
    the seat and its revision, the players' names (an administrator may rename a user
    without a change) and, last, who is online (the sides part only)."""
    seat = view.seat
    players = tuple(s.user.get_username() if s.user else "" for s in view.seats)
    online = tuple(bool(getattr(s, "online", False)) for s in view.seats)
    return seat.campaign_id, seat.side, seat.revision, players, online


class PartMemo(Memo[str]):
    """Rendered parts keyed by everything they are rendered from: the part, the swap
    marker and a digest of the seat's view, a plain-data tree already cut down to what
    the seat may see (the one visibility gate decided it).  Equal views render equal
    HTML, so nothing is ever invalidated: a change makes a new view, hence a new key,
    and the oldest entries go.  The CSRF token, which differs per request, is rendered
    as a placeholder (random per process: no text a player writes can match it) and
    put in after."""

    TOKEN = f"csrf-{secrets.token_hex(16)}"

    @staticmethod
    def digest(view: Any) -> bytes:
        return hashlib.blake2b(pickle.dumps(view, protocol=pickle.HIGHEST_PROTOCOL)).digest()


# About a roster page's worth of parts for each of 32 seats (a part is up to ~90 kB).
ROSTER_MEMO = PartMemo(size=128)

# The campaign page's parts that show nothing but what the seat's revision stands for
# (``Seat.revision``: every change the seat may see renews it), and for the sides who
# is online (presence has no revision): rendered once per revision, so a reload, a
# second tab, the socket a page opens at loading, a periodic resync or a heartbeat
# renders them again only after a change.  Not the invitation (its link names the
# page's origin).  About a campaign page's worth for each of 32 seats.
MEMOISED_PARTS = frozenset(
    {Part.HEADER, Part.STEP, Part.SIDES, Part.RECORD, Part.SUPPLIES, Part.LOG, Part.MESSAGES}
)
CAMPAIGN_MEMO = PartMemo(size=192)
# The parts shown by their inputs (``SHOWN_BY``, the RG Purchase Records and the rules
# data to supply), per what they show: about six parts for each of 32 seats.
SHOWN_MEMO = PartMemo(size=192)


def _from_inputs(memo: PartMemo, template: str, inputs: Any, csrf_token: Any) -> str:
    """``template`` rendered from ``inputs`` alone (a frozen dataclass of plain data,
    given to the template as ``c``, and as ``view`` and ``p``, where ``action_form``
    reads ``campaign_id`` and ``at``), once per distinct ``inputs`` (``memo``), with
    this render's CSRF token (lazy: read only if the table has a form) put in after.
    The enclosing part, rendered from ``ROSTER_MEMO`` or not, has its own token put in
    here already: the placeholder never reaches it."""
    key = (template, PartMemo.digest(inputs))
    html = memo.get(key)
    if html is None:
        context = {"c": inputs, "view": inputs, "p": inputs, "csrf_token": PartMemo.TOKEN}
        html = render_template(template, context)
        memo.put(key, html)
    if PartMemo.TOKEN in html:
        html = html.replace(PartMemo.TOKEN, str(csrf_token or ""))
    return mark_safe(html)  # rendered, and escaped, by the template


@dataclass(frozen=True)
class TableInputs:
    """What every table's forms read (``action_form``: from ``view`` and ``p``)."""

    campaign_id: str
    at: str  # the step's stale-form stamp ("" when the table has no form)


@dataclass(frozen=True)
class ChartInputs(TableInputs):
    """Everything the RG chart's template (``steps/_chart.html``) reads."""

    can_act: bool
    currency: str
    title: str
    columns: tuple[tuple[str, str], ...]
    legend: tuple[str, ...]  # each price column, in full
    rows: tuple[ChartRow, ...]
    notes: tuple[tuple[str, str], ...]  # the chart's notes (letter, text), once below it


@dataclass(frozen=True)
class RecordInputs(TableInputs):
    """Everything the RG Purchase Records' table (``_record_table.html``) reads."""

    states: tuple[tuple[str, str], ...]
    lines: tuple[PurchaseLine, ...]
    can_reveal: bool  # a line is the viewer's own secret: the table has a reveal form


@dataclass(frozen=True)
class SuppliesInputs(TableInputs):
    """Everything the rules data to supply (``_supplies.html``) read: public data (the
    same for both seats but for which proposals are the viewer's), so the part is
    rendered once while the supplements stay as they are, whatever else changes."""

    supplies: tuple[SupplyView, ...]
    packages: tuple[PackageView, ...]
    supplies_first: bool
    supplies_await_answer: bool
    supplies_open: bool
    supply_items_open: bool
    supplies_missing: int
    ended: bool

    @property
    def panel(self) -> SuppliesInputs:
        """What the part's forms take their stamp from (``action_form``'s ``p``)."""
        return self


def form_stamp(view: CampaignView) -> str:
    """The stale-form stamp of the step's panel (``StepPanel.at``: the campaign's
    position) without building the panel; "" once the CG has ended (no panel)."""
    return "" if view.ended else view.at


def supplies_inputs(view: CampaignView) -> SuppliesInputs:
    """The rules data to supply of ``view``.  Its forms' stale-form stamp is the step
    panel's (``form_stamp``), read without building the panel."""
    forms = bool(view.packages) or any(s.proposal is not None or s.takeback for s in view.supplies)
    return SuppliesInputs(
        campaign_id=str(view.campaign_id),
        at=form_stamp(view) if forms else "",
        supplies=tuple(view.supplies),
        packages=tuple(view.packages),
        supplies_first=view.supplies_first,
        supplies_await_answer=view.supplies_await_answer,
        supplies_open=view.supplies_open,
        supply_items_open=view.supply_items_open,
        supplies_missing=view.supplies_missing,
        ended=view.ended,
    )


@dataclass(frozen=True)
class MyPurchasesInputs(TableInputs):
    """Everything the list of the viewer's RGs (``steps/_my_purchases.html``) reads."""

    currency: str
    lines: tuple[PurchaseLine, ...]


# The largest things a campaign page shows, each rendered once while unchanged: a
# purchase step's RG chart (~35 kB on Sicily), the RG Purchase Records (~90 kB with
# 60 purchases) and the viewer's own RGs at a purchase or strength step.  A change
# the seat may see renders its parts again (a new revision: ``CAMPAIGN_MEMO``
# misses), yet most changes leave these tables as they were (a log line, the other
# side done, a roll).
TABLE_MEMO = PartMemo(size=128)


def purchase_chart(view: CampaignView, panel: StepPanel, csrf_token: Any) -> str:
    """The RG chart of ``panel`` (the viewer's purchase step)."""
    inputs = ChartInputs(
        campaign_id=str(view.campaign_id),
        at=panel.at,
        can_act=panel.can_act,
        currency=view.currency,
        title=panel.chart_title,
        columns=tuple(panel.price_columns),
        legend=tuple(panel.price_legend),
        rows=tuple(panel.chart),
        notes=tuple(panel.chart_notes),
    )
    return _from_inputs(TABLE_MEMO, "campaign/steps/_chart.html", inputs, csrf_token)


# Rows of the two largest tables, each rendered once per distinct row and what its
# table gives every row: the RG chart's (a purchase changes a few: the RG bought,
# those it puts out of reach or back in) and the RG Purchase Records' (a purchase adds
# one), so a table rendered again (``TABLE_MEMO`` misses) joins the rest from here.
# A row is about 1 kB: some 4 MB in all.
TABLE_ROWS: Memo[str] = Memo(size=4096)
# Where a render of several rows is cut apart: random per process (no text a player
# writes can match it), an HTML comment (harmless if it ever showed).
_ROW_END = mark_safe(f"<!--row-{secrets.token_hex(8)}-->")


def _rows(template: str, rows: Sequence[tuple[Hashable, Any]], context: dict[str, Any]) -> str:
    """Each of ``rows`` (key: all its HTML is made from; row) as ``template`` renders
    it, once per key: the rows not memoised yet are rendered together, in one render
    (as the whole table was: the tags' per-render caches serve them all), and cut
    apart where ``template`` puts ``row_end`` after each."""
    html = {key: TABLE_ROWS.get((template, key)) for key, _ in rows}
    missing = [(key, row) for key, row in rows if html[key] is None]
    if missing:
        rendered = render_template(
            template, {**context, "rows": [row for _, row in missing], "row_end": _ROW_END}
        ).split(_ROW_END)
        for (key, _), piece in zip(missing, rendered, strict=False):
            html[key] = piece
            TABLE_ROWS.put((template, key), piece)
    return mark_safe("".join(html[key] or "" for key, _ in rows))  # rendered and escaped


def chart_rows(chart: ChartInputs) -> str:
    """The rows of ``chart`` (``steps/_chart_rows.html``)."""
    shared = {"span": len(chart.columns), "can_act": chart.can_act, "currency": chart.currency}
    setting = tuple(shared.values())
    return _rows(
        "campaign/steps/_chart_rows.html", [((row, setting), row) for row in chart.rows], shared
    )


@dataclass(frozen=True)
class RecordLineInputs(TableInputs):
    """What a line of the RG Purchase Records reads besides the line: its form's
    campaign and stamp, and the RG states its select offers."""

    states: tuple[tuple[str, str], ...]


def record_rows(record: RecordInputs) -> str:
    """The lines of ``record`` (``_record_rows.html``), their CSRF tokens the
    placeholder the table's token replaces."""
    c = RecordLineInputs(campaign_id=record.campaign_id, at=record.at, states=record.states)
    context = {"c": c, "view": c, "p": c, "csrf_token": PartMemo.TOKEN}
    return _rows(
        "campaign/_record_rows.html", [((line, c), line) for line in record.lines], context
    )


def record_inputs(view: CampaignView) -> RecordInputs:
    """What the RG Purchase Records the viewer may see are rendered from (the record
    part shows nothing else).  Its forms' stale-form stamp is the step panel's
    (``form_stamp``), read without building the panel."""
    can_reveal = any(line.mine and (not line.revealed or line.held) for line in view.record)
    forms = can_reveal or any(line.can_change_state for line in view.record)
    return RecordInputs(
        campaign_id=str(view.campaign_id),
        at=form_stamp(view) if forms else "",
        states=tuple(view.rg_states),
        lines=tuple(view.record),
        can_reveal=can_reveal,
    )


def purchase_record(view: CampaignView, csrf_token: Any) -> str:
    """The RG Purchase Records the viewer may see, as a table."""
    inputs = record_inputs(view)
    return _from_inputs(TABLE_MEMO, "campaign/_record_table.html", inputs, csrf_token)


def my_purchases(view: CampaignView, panel: StepPanel, csrf_token: Any) -> str:
    """The viewer's RGs at a purchase or strength step (``panel``), with their forms."""
    inputs = MyPurchasesInputs(
        campaign_id=str(view.campaign_id),
        at=panel.at,
        currency=view.currency,
        lines=tuple(panel.purchases),
    )
    return _from_inputs(TABLE_MEMO, "campaign/steps/_my_purchases.html", inputs, csrf_token)


# The digests of the roster views met lately, by identity: a view memoised per
# revision (``roster.ROSTER_VIEWS``) is pickled and digested once, not at every load.
# An entry holds its view, so no other object can take its id while the entry lives.
_ROSTER_DIGESTS: Memo[tuple[RosterView, bytes]] = Memo(size=64)


def roster_digest(roster: RosterView) -> bytes:
    """What ``roster`` shows, in a digest: equal for equal views (the roster page is
    served once per it, ``views.pages.roster``)."""
    return _roster_digest(roster)


def _roster_digest(roster: RosterView) -> bytes:
    entry = _ROSTER_DIGESTS.get(id(roster))
    if entry is not None and entry[0] is roster:
        return entry[1]
    digest = PartMemo.digest(roster)
    _ROSTER_DIGESTS.put(id(roster), (roster, digest))
    return digest


def roster_fragments(
    roster: RosterView,
    parts: Iterable[Part],
    *,
    user: Any,
    request: HttpRequest | None = None,
    oob: bool = True,
    token: str | None = None,
    unread: Unread | None = None,
) -> list[tuple[Part, str]]:
    """As ``campaign_fragments``, for the roster page.  A roster view is plain data,
    so each part is rendered once per distinct view (``ROSTER_MEMO``): a reload, a
    second tab or a reconnecting socket of an unchanged roster renders nothing."""
    shows = _roster_digest(roster)
    token = _token(request, token)
    context = {"roster": roster, "csrf_token": PartMemo.TOKEN}
    wanted = set(parts)
    # The unread count is the seat's, not the roster's (``unread``: none asked, none).
    said = {"oob": oob, "unread": unread or Unread(roster.campaign_id, 0)}
    return [
        (
            part,
            _stamped(part, render_template(template, said, request))
            if part == Part.UNREAD
            else _memoised(
                ROSTER_MEMO, (part, user.pk, shows), part, template, context, token, oob
            ),
        )
        for part, template in ROSTER_PARTS.items()
        if part in wanted
    ]


def _token(request: HttpRequest | None, token: str | None) -> str:
    """The CSRF token a render puts in its forms: ``token`` if given, else the
    request's (none for a socket's render, which has no request)."""
    if token is not None:
        return token
    return str(get_token(request)) if request is not None else ""


def _rendered(
    memo: PartMemo, key: tuple[Any, ...], part: Part, template: str, context: dict[str, Any]
) -> str:
    """``part`` rendered from ``template`` once per ``key`` (everything it shows),
    stamped, with the placeholder token of ``context`` (``_finished`` puts in the
    render's own)."""
    html = memo.get(key)
    if html is None:
        html = _stamped(part, render_template(template, {**context, "oob": False}))
        memo.put(key, html)
    return html


def _finished(part: Part, html: str, token: str, oob: bool) -> str:
    """``html``, a part rendered with the placeholder token, with this render's CSRF
    token (letters and digits) put in and, for an out-of-band swap (``oob``), the swap
    marker put after the part's stamp: a page and its socket share one render."""
    html = html.replace(PartMemo.TOKEN, token)
    if oob:  # after the stamp's fingerprint (eight hex digits) and its closing quote
        head = f'<section data-part="{part}" data-fp="'
        end = html.index(head) + len(head) + 9
        html = f"{html[:end]} {_SWAP_MARKER}{html[end:]}"
    return mark_safe(html)  # rendered, and escaped


def _memoised(
    memo: PartMemo,
    key: tuple[Any, ...],
    part: Part,
    template: str,
    context: dict[str, Any],
    token: str,
    oob: bool,
) -> str:
    """``part`` rendered once per ``key`` (``_rendered``), finished for this render
    (``_finished``)."""
    return _finished(part, _rendered(memo, key, part, template, context), token, oob)
