"""Playtest 15 (``docs/playtest-15.md``): whole campaigns in two browsers, one of them
a 390 px phone, from hosting to the second scenario's start, for each of the three
systems.  The host hosts and invites; the guest joins on the phone; the start is
agreed in one go (the start sheet, *Accept all*); the first scenario's result is
entered and confirmed; every between-scenario step is walked by its forms, each roll
the page owes made through the page whatever the dice give (the walk branches on what
the page says); each side buys an RG; initiative chits are locked and the reveal is
seen on both pages; the roster is read and a message is sent.

At each step each page is read as a player reads it: no sideways scroll on the phone,
no module, schema or transcription word, every field labelled.  What is found is
gathered and reported together at the end, so one run names every friction."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from tests.browser.helpers import PHONE, accessibility_problems, horizontal_overflow
from tests.browser.play import (
    PASSWORD,
    asks,
    confirm,
    enter_result,
    fill,
    press,
    sign_up,
    title,
)
from tests.browser.test_start_sheet_browser import SICILY_START

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1366, "height": 900}
assert PASSWORD  # the players' password (play.sign_up)

# Words a player should never read: the module's keys (snake_case), the author's
# vocabulary, Python's values.
JARGON = re.compile(
    r"\b[a-z]+_[a-z_]+\b|\b(?:schema|yaml|transcription|transcribed|None|True|False)\b"
    # the app's "module" (an OBA module, "a second module", is ASL's own word)
    r"|\b(?:the|this|a|each) module\b|\bmodules?(?:'s| data| files?)\b"
)

# Buttons of the step a screen reader names alike (the step's own Roll buttons aside:
# each is the one of its table, under the table's heading).
SAME_NAMES = """() => {
    const names = [...document.querySelectorAll('#campaign-step button')]
        .filter(b => b.offsetParent !== null)
        .map(b => (b.getAttribute('aria-label') || b.innerText).trim())
        .filter(n => !n.startsWith('Roll '));
    return [...new Set(names.filter((n, i) => names.indexOf(n) !== i))];
}"""

# Fields that have no label a screen reader or a player can read.
UNLABELLED = """() => [...document.querySelectorAll('input, select, textarea')]
    .filter(e => e.type !== 'hidden' && e.offsetParent !== null)
    .filter(e => !(e.labels && e.labels.length) && !e.getAttribute('aria-label')
        && !e.getAttribute('aria-labelledby') && !e.title)
    .map(e => e.name || e.id || e.outerHTML.slice(0, 60))"""


DUMP = False
BUTTONS = """() => [...document.querySelectorAll('#campaign-step button')]
    .map(b => ((b.getAttribute('aria-label') || b.innerText).trim() || b.outerHTML).slice(0, 120)
        + (b.form && b.form.hasAttribute('hx-confirm') ? ' [asks]' : ''))"""


# Past the start, with no proposal to answer, the step leads: its title is on the
# phone's first screen, below at most what happened since the last visit (which leads
# on coming back, its newest three lines).
STEP_TOP = """() => Math.round(document.getElementById('step-title')
    .getBoundingClientRect().top + window.scrollY)"""
STEP_BURIED = """() => {
    const step = document.getElementById('campaign-step');
    const supplies = document.getElementById('campaign-supplies');
    if (!step || step.dataset.start !== '0') return false;
    if (supplies && supplies.dataset.answer === '1') return false;
    const top = document.getElementById('step-title').getBoundingClientRect().top;
    const digest = document.getElementById('digest');
    const since = digest ? digest.getBoundingClientRect().height : 0;
    return top + window.scrollY - since > window.innerHeight;
}"""


class Reader:
    """Reads each page at each new step as a player would, and keeps what it finds."""

    def __init__(self) -> None:
        self.found: list[str] = []
        self.seen: set[tuple[int, str]] = set()
        self.order: list[str] = []
        self.audited: set[str] = set()

    def read(self, page, where: str = "") -> None:
        where = where or title(page)
        key = (id(page), where)
        if key in self.seen:
            return
        self.seen.add(key)
        self.order.append(where)
        width = page.viewport_size["width"] if page.viewport_size else 0
        over = horizontal_overflow(page)
        if over > 0:
            self.found.append(f"{where} at {width} px: the page scrolls sideways by {over} px")
        text = page.locator("main").first.inner_text() if page.locator("main").count() else ""
        if DUMP:
            buttons = page.evaluate(BUTTONS)
            print(f"== {where} @{width}", buttons)
        for word in sorted(set(m.group(0) for m in JARGON.finditer(text))):
            self.found.append(f"{where} at {width} px: the page shows the word {word!r}")
        for name in page.evaluate(UNLABELLED):
            self.found.append(f"{where} at {width} px: the field {name!r} has no label")
        if width == PHONE["width"] and page.evaluate(STEP_BURIED):
            top = page.evaluate(STEP_TOP)
            self.found.append(f"{where} at {width} px: the step starts {top} px down the page")
        for name in page.evaluate(SAME_NAMES):
            self.found.append(f"{where} at {width} px: several buttons are named {name!r}")
        # axe-core where the page is richest (a chart, a table, a form of its own).
        rich = "#chart-box, .table-roller, form.supply-form, #cg-roster"
        kind = next((k for k in rich.split(", ") if page.locator(k).count()), "")
        if kind and width == PHONE["width"] and kind not in self.audited:
            self.audited.add(kind)
            for problem in accessibility_problems(page):
                self.found.append(f"{where} at {width} px: {problem}")

    def report(self) -> None:
        assert not self.found, "frictions:\n" + "\n".join(self.found)


def host_and_join_on_a_phone(asgi_server, new_context, cg: str, host_side: str, guest: str):
    """The host, at a desktop's width, hosts ``cg``; the guest opens the invitation on
    a 390 px phone, signs up there and takes the other side."""
    host = new_context(viewport=DESKTOP).new_page()
    sign_up(host, asgi_server.url + "/signup/", "host")
    host.wait_for_url("**/campaigns/")
    host.get_by_role("link", name="Host a new campaign").click()
    host.locator("#id_name").fill(f"Play 15 {cg}")
    host.locator("#id_cg").select_option(cg)
    host.wait_for_load_state("networkidle")
    host.locator("#id_side").select_option(host_side)
    host.get_by_role("button", name="Create campaign").click()
    host.wait_for_url(re.compile(r".*/campaigns/[0-9a-f-]{36}/$"))
    invite = host.locator("#invite-url").input_value()
    phone = new_context(viewport=PHONE).new_page()
    phone.goto(invite)
    phone.wait_for_url(lambda url: "/signup/" in url)
    sign_up(phone, phone.url, "guest")
    phone.wait_for_url(lambda url: "/join/" in url)
    phone.get_by_role("button", name=f"Take the {guest} side").click()
    phone.wait_for_url(host.url)
    host.locator("#campaign-sides .presence.online").wait_for()
    phone.locator("body[data-live]").wait_for(state="attached")
    return host, phone


def agree_start(proposer, accepter, values: dict[str, str], reader: Reader) -> None:
    """The start sheet, filled in by one player, proposed as one package; the other
    accepts it with one click (asked first)."""
    proposer.get_by_role("link", name="Fill in the start sheet").click()
    proposer.locator("form.supply-form").wait_for()
    reader.read(proposer, "the start sheet")
    fill(proposer, "form.supply-form", values)
    proposer.get_by_role("button", name="Propose the start sheet to my opponent").click()
    waiting = proposer.locator("#campaign-supplies .package", has_text="Waiting for your opponent")
    try:
        waiting.wait_for()
    except PlaywrightTimeoutError:
        said = proposer.locator(".error, .refusal, .errorlist").all_inner_texts()
        raise AssertionError(f"the start sheet was not proposed: {said}") from None
    package = accepter.locator("#campaign-supplies .package", has_text="Start sheet proposed by")
    package.wait_for()
    accepter.once("dialog", lambda d: d.accept())
    package.get_by_role("button", name=re.compile(r"^Accept all")).click()
    package.wait_for(state="detached")


OWED = ("Make its secret rolls", "Roll DR", "Roll dr")


def owed_roll(page) -> bool:
    """A roll the page says is owed ("Roll first: ..."), made by the first form that
    offers one, whatever its dice give; the page then says what is still owed, or
    offers Done."""
    lacking = page.locator("#finish-lacking")
    if not lacking.count() or "Roll" not in lacking.inner_text():
        return False
    said = lacking.inner_text()
    for name in OWED:
        button = page.locator("#campaign-step").get_by_role("button", name=name)
        if button.count() and button.first.is_enabled():
            button.first.click()
            try:
                page.wait_for_function(
                    """said => {
                        const l = document.querySelector('#finish-lacking');
                        return !l || l.innerText !== said
                            || document.querySelector('#campaign-step .refusal');
                    }""",
                    arg=said,
                )
            except PlaywrightTimeoutError:
                raise AssertionError(
                    f"{title(page)}: the owed roll ({name}) changed nothing: "
                    + page.locator("#campaign-step").inner_text()[:2000]
                ) from None
            refusal = page.locator("#campaign-step .refusal")
            if refusal.count():
                raise AssertionError(f"{title(page)}: {name} refused: {refusal.inner_text()}")
            return True
    return False


def buy_one(page) -> bool:
    """The first RG the chart offers this side now, bought at its first price."""
    chart = page.locator("#chart-box")
    if not chart.count():
        return False
    button = chart.locator("button[aria-label^='Buy ']:not([disabled]):visible").first
    if not button.count():
        return False
    listed = page.locator(".purchases li").count()
    button.click()
    page.wait_for_function("n => document.querySelectorAll('.purchases li').length > n", arg=listed)
    return True


class Walk:
    """Both players act on what their pages show, as players do: the owed rolls, one
    RG bought at each purchase step by each side, their initiative chits, then Done."""

    def __init__(self, pages: dict[str, object], chits: dict[str, str], reader: Reader):
        self.pages = pages
        self.chits = chits
        self.reader = reader
        self.bought: set[tuple[str, str]] = set()
        self.tried: set[tuple[str, str]] = set()
        self.did: list[str] = []

    def extra(self, page) -> bool:
        side = next(s for s, p in self.pages.items() if p is page)
        self.reader.read(page)
        step = title(page)
        if owed_roll(page):
            self.did.append(f"{side} {step}: rolled")
            return True
        if (side, step) not in self.tried and page.locator("#chart-box").count():
            self.tried.add((side, step))
            if buy_one(page):
                self.bought.add((side, step))
                self.did.append(f"{side} {step}: bought")
                return True
        lock = page.get_by_role("button", name=f"Lock {self.chits.get(side, 'Idle')}")
        if lock.count() and lock.is_enabled():
            page.once("dialog", lambda d: d.accept())
            lock.click()
            lock.wait_for(state="detached")
            self.did.append(f"{side} {step}: locked {self.chits.get(side, 'Idle')}")
            return True
        return False

    def until(self, goal, limit: int = 200) -> None:
        host, guest = self.pages.values()
        for _ in range(limit):
            if goal(host) and goal(guest):
                return
            if not act(host, self.extra, goal) and not act(guest, self.extra, goal):
                host.wait_for_timeout(50)
        raise AssertionError(
            "the walk did not reach its goal: "
            + title(host)
            + "\n"
            + host.locator("#campaign-step").inner_text()[:1500]
            + "\n--- guest ---\n"
            + title(guest)
            + "\n"
            + guest.locator("#campaign-step").inner_text()[:1500]
        )


def act(page, extra, goal) -> bool:
    """The action the page offers for its step, one step at a time (the step's own
    Done before any "Done with ... to ..." that finishes several at once); False if
    it offers none now or shows the goal."""
    if goal(page):
        return False
    if extra(page):
        return True
    step_id = title(page).split(" ")[0]
    for button in (
        page.get_by_role("button", name="Confirm the result", exact=True),
        page.get_by_role("button", name=f"Done with {step_id}", exact=True),
        page.get_by_role("button", name="Go on without it", exact=True),
    ):
        if button.count():
            press(page, button.first, dialog=asks(button.first))
            return True
    return False


def in_play(page) -> bool:
    return page.locator("#campaign-header .badge", has_text="scenario in play").count() > 0


def result_form(page) -> bool:
    return page.locator("[name^='cvp_lost']").count() > 0


def talk(sender, receiver, text: str) -> None:
    sender.get_by_label("Message to your opponent").fill(text)
    sender.get_by_role("button", name="Send").click()
    receiver.locator("#campaign-messages .theirs", has_text=text).wait_for()


def read_roster(page, reader: Reader, *shown: str) -> None:
    page.get_by_role("link", name="CG Roster and retained forces").first.click()
    page.locator("#cg-roster").wait_for()
    reader.read(page, "the CG Roster")
    text = page.locator("main").inner_text()
    for s in shown:
        assert s in text, (s, text[:2000])
    page.go_back()
    page.locator("body[data-live]").wait_for(state="attached")


def reveal_on_both(pages, expected: str) -> None:
    for page in pages:
        page.locator("#initiative-result").wait_for()
        assert expected in page.locator("#initiative-result").inner_text()


def play(
    asgi_server, new_context, *, cg, host_side, guest, start, result, chits, second, buyers=None
):
    """The whole run of one system (module docstring); returns the two pages, the
    walk and the reader, the second scenario in play on both pages."""
    began = time.monotonic()
    reader = Reader()
    host, phone = host_and_join_on_a_phone(asgi_server, new_context, cg, host_side, guest)
    reader.read(host)
    reader.read(phone)
    agree_start(host, phone, start, reader)
    guest_side = guest.lower() if guest != "Axis" else "axis"
    walk = Walk({host_side: host, guest_side: phone}, chits, reader)
    if not result_form(host):
        walk.until(result_form)
    enter_result(host, result)
    confirm(phone)
    # A reply half typed on the phone while the whole phase is played: no push of
    # either side's actions loses it.
    draft = phone.get_by_label("Message to your opponent")
    draft.fill("Half a reply, typed before the phase")
    walk.until(in_play)
    assert draft.input_value() == "Half a reply, typed before the phase"
    draft.fill("")
    for page in (host, phone):
        page.locator("#campaign-header .position", has_text=second).wait_for()
    assert {s for s, _ in walk.bought} == (buyers or {host_side, guest_side}), walk.did
    read_roster(phone, reader, second)
    read_roster(host, reader, second)
    talk(phone, host, f"Good game so far. Sunday for {second}?")
    talk(host, phone, "Sunday it is.")
    reader.read(phone, "messages")
    print(f"{cg}: {time.monotonic() - began:.0f} s", *walk.did, sep="\n")
    return host, phone, walk, reader


def test_sicily_hosted_to_the_second_scenario_on_a_desktop_and_a_phone(
    asgi_server, new_context, modules
):
    """Sicily CG I: the start sheet (3.51's data, missing from the seed) agreed in one
    go; I-3.617's purchases and I-3.618's secret rolls; the Initial Scenario's
    result (3.6); 3.601-3.623 walked by the forms (3.617 an RG each, 3.621 the chits
    revealed on both pages); the roster; a message from the phone."""
    host, phone, walk, reader = play(
        asgi_server,
        new_context,
        cg="sicily/i",
        host_side="british",
        guest="Axis",
        start=SICILY_START,
        result={"cvp_lost.axis": 5, "cvp_lost.british": 3, "san.axis": 3, "san.british": 3},
        chits={"british": "Attack", "axis": "Idle"},
        second="July 14 PM",
    )
    reveal_on_both((host, phone), "British Attack")
    reader.report()


def chart_row(side: str, rg: str, kind: str, units: str, cost: str, **more: str) -> dict:
    fields = {"id": rg, "type": kind, "units": units, "cost": cost, **more}
    return {f"rg_charts.{side}|row-0-{k}": v for k, v in fields.items()}


PHD_START = {
    **chart_row(
        "us", "I1", "Rifle Pl", "3 x 6-6-6", "8", full="3", depleted="2", **{"cg_max-tm": "4"}
    ),
    **chart_row(
        "german", "I1", "Gren Pl", "3 x 4-6-7", "8", full="3", depleted="2", **{"cg_max-tm": "4"}
    ),
    "variants.tm.start.ob|rgs.us": "I1, I1",
    "variants.tm.start.ob|rgs.german": "I1, I1",
    "tables.leader_table|row-0-range": "≤9",
    "tables.leader_table|row-0-result": "No leader",
    "tables.leader_table|row-0-effect": "none",
    "tables.leader_table|row-1-range": "≥10",
    "tables.leader_table|row-1-result": "8-0 leader",
    "tables.leader_table|row-1-effect": "leader: 8-0 leader",
}


# What each page says and how it fits (presentation): once, on PostgreSQL + Redis.  The
# Sicily run above walks the same pages and pushes on both backends (its richest
# system, as tests/browser/test_start_browser.py does).
@pytest.mark.presentation
def test_purple_heart_draw_hosted_to_the_second_scenario_on_a_desktop_and_a_phone(
    asgi_server, new_context, modules
):
    """Purple Heart Draw TM: the start sheet (the lost RG charts, C4.2's OB, C5.33's
    Leader Table) agreed in one go; I-C5.12-I-C5.35; TM1's result (C5.1); C5.2-C5.41
    walked by the forms (C5.23's compulsory DR and any other owed roll made by the
    page, C5.31 an RG each, C5.37 the chits revealed on both pages); the roster; a
    message from the phone."""
    host, phone, walk, reader = play(
        asgi_server,
        new_context,
        cg="purple-heart-draw/tm",
        host_side="us",
        guest="German",
        start=PHD_START,
        result={
            "cvp_lost.us": 25,
            "cvp_lost.german": 8,
            "san.us": 3,
            "san.german": 3,
            "crews_lost.us": 0,
            "crews_lost.german": 0,
        },
        chits={"us": "Attack", "german": "Idle"},
        second="0930",
    )
    reveal_on_both((host, phone), "US Attack")
    reader.report()


APD_START = {
    "variants.cg.start.ob|rgs.american": "A1",
    "variants.cg.start.ob|units.american": "Lt Hayes 8-1",
    "variants.cg.start.ob|units.german": "9-1 leader",
    "variants.cg.start.san|value.american": "3",
    "variants.cg.start.san|value.german": "4",
    "variants.cg.start.elr|value.american": "4",
    "variants.cg.start.elr|value.german": "3",
    "variants.cg.start.sets_up_first|value": "german",
    "variants.cg.start.moves_first|value": "american",
    "dates.dec6midday.vp_required|value": "90",
    **chart_row(
        "american",
        "A1",
        "Armored Infantry Platoon",
        "4 x 6-6-6",
        "10",
        date_max="2",
        tags="armored_infantry",
    ),
    **chart_row("german", "G1", "Grenadier Platoon", "3 x 4-6-7", "8", date_max="2"),
    # 3.5: the German's RGs come from his secret drs on Rows A-C (not printed).
    "tables.german_reinforcement_row_a|row-0-range": "1-6",
    "tables.german_reinforcement_row_a|row-0-result": "Grenadier Platoon",
    "tables.german_reinforcement_row_a|row-0-effect": "group: G1",
    "tables.german_reinforcement_row_b|row-0-range": "1-6",
    "tables.german_reinforcement_row_b|row-0-result": "Nothing",
    "tables.german_reinforcement_row_b|row-0-effect": "none",
    "tables.german_reinforcement_row_c|row-0-range": "1-6",
    "tables.german_reinforcement_row_c|row-0-result": "HE (only)",
    "tables.german_reinforcement_row_c|row-0-effect": "none",
}


# What each page says and how it fits (presentation): once, on PostgreSQL + Redis.  The
# Sicily run above walks the same pages and pushes on both backends (its richest
# system, as tests/browser/test_start_browser.py does).
@pytest.mark.presentation
def test_pleasant_diversion_hosted_to_the_second_scenario_on_a_desktop_and_a_phone(
    asgi_server, new_context, modules
):
    """A Pleasant Diversion: the start sheet (SG1's OB, SAN, ELR, who sets up and moves
    first, 2.91's VP required, both RG charts) agreed in one go; SG1's result (1.2);
    the Clean-Up (2.1-2.9) and Setup (3.1-4.0) walked by the forms, an RG each; the
    Midday scenario in play (APD has no initiative chits: 1.2 fixes who attacks); the
    roster; a message from the phone."""
    host, phone, walk, reader = play(
        asgi_server,
        new_context,
        cg="pleasant-diversion/cg",
        host_side="american",
        guest="German",
        start=APD_START,
        result={"vp.american": 63, "cvp_lost.american": 41, "cvp_lost.german": 5},
        chits={},
        second="Midday",
        buyers={"american"},
    )
    # The German's RG is the one his Row A dr gave (3.5), on his Purchase Record.
    phone.locator("#campaign-record tr.mine", has_text="G1").first.wait_for()
    assert any("3.5" in d and "rolled" in d for d in walk.did), walk.did
    reader.report()


def test_the_rules_data_give_the_step_back_the_top_once_the_start_sheet_is_agreed(
    asgi_server, new_context, modules
):
    """Sicily 3.51 (the start sheet): while it awaits an answer, and while data are
    missing before the Initial Scenario, the rules data lead each page; the start
    played, the step leads again on both pages without a reload (the phone's step was
    2 000 px down the page, below the two tables still missing, for the whole Refit
    Phase: the data moved up and never moved back)."""
    host, phone = host_and_join_on_a_phone(asgi_server, new_context, "sicily/i", "british", "Axis")
    reader = Reader()
    agree_start(host, phone, SICILY_START, reader)
    Walk({"british": host, "axis": phone}, {}, reader).until(result_form)
    for page in (host, phone):
        page.locator(".side-col #campaign-supplies").wait_for(state="attached")
        tops = page.evaluate(
            """() => ['campaign-step', 'campaign-supplies'].map(
                id => document.getElementById(id).getBoundingClientRect().top)"""
        )
        assert tops[0] < tops[1], tops
