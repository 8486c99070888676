"""Whole campaigns in two browsers, one of them a 390 px phone (issues 10 and 15,
playtest 15 ``docs/playtest-15.md``), from hosting to the second scenario's result,
for each of the three systems: one walk per system carries what the two former walks
checked (pass 21, ``docs/test-time.md``).  The host hosts and invites; the guest
joins on the phone; what the rules documents lack is supplied through the campaign
page, some data one at a time (each proposed by one player, accepted by the other),
the rest on the start sheet agreed in one go (*Accept all*), and the scenario sheet
shows it; the first scenario's result is entered and confirmed; every
between-scenario step is walked by its forms, each roll the page owes made through
the page whatever the dice give (the walk branches on what the page says); each side
buys an RG; initiative chits are locked and the reveal is seen on both pages; the
second scenario's result is entered; the roster is read and a message is sent.

At each step each page is read as a player reads it: no sideways scroll on the phone,
no module, schema or transcription word, every field labelled.  What is found is
gathered and reported together at the end, so one run names every friction.

Sicily's run (the richest: secret purchases, the initiative reveal) runs on both
backends; PHD's and APD's walk their systems' data, which the backend only stores,
and check what the pages say: once, on PostgreSQL + Redis (the three systems walk
through their steps on both backends below the browser: test_sequence, test_start,
test_noninterference)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from tests.browser.helpers import PHONE, accessibility_problems, horizontal_overflow
from tests.browser.play import (
    PASSWORD,
    accept,
    asks,
    confirm,
    enter_result,
    fill,
    press,
    sheet,
    sign_up,
    supply,
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


def on_step(page, shown: str):
    """The page's step panel while it still shows the step ``shown`` (its title as the
    walk read it): a push that brings another step re-draws the panel, and nothing
    of the step read before is found in it any more, so no press lands on a step the
    walk has not looked at."""
    return page.locator("#campaign-step").filter(
        has=page.locator("#step-title").filter(has_text=re.compile(rf"^{re.escape(shown)}$"))
    )


def owed_roll(page, step) -> bool:
    """A roll the ``step`` panel says is owed ("Roll first: ..."), made by the first
    form that offers one, whatever its dice give; the page then says what is still
    owed, or offers Done."""
    lacking = step.locator("#finish-lacking")
    if not lacking.count():
        return False
    try:  # a push may have moved the page on since: that step's panel is gone
        said = lacking.inner_text(timeout=2000)
    except PlaywrightTimeoutError:
        return False
    if "Roll" not in said:
        return False
    for name in OWED:
        button = step.get_by_role("button", name=name)
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


def buy_one(page, step, rg: str = "") -> bool:
    """The first RG the ``step`` panel's chart offers this side now (or the RG ``rg``,
    by its chart row's id), bought at its first price."""
    chart = step.locator("#chart-box")
    if not chart.count():
        return False
    row = step.locator(f"#rg-{rg}") if rg else chart
    button = row.locator("button[aria-label^='Buy ']:not([disabled]):visible").first
    if not button.count():
        return False
    listed = page.locator(".purchases li").count()
    button.click()
    page.wait_for_function("n => document.querySelectorAll('.purchases li').length > n", arg=listed)
    return True


class Walk:
    """Both players act on what their pages show, as players do: the owed rolls, one
    RG bought at each purchase step by each side (``buys``: the RG a step's purchase
    is, by the step's id; else the first the chart offers), their initiative chits,
    then Done."""

    def __init__(
        self,
        pages: dict[str, object],
        chits: dict[str, str],
        reader: Reader,
        buys: dict[str, str] | None = None,
    ):
        self.pages = pages
        self.chits = chits
        self.reader = reader
        self.buys = buys or {}
        self.bought: set[tuple[str, str]] = set()
        self.tried: set[tuple[str, str]] = set()
        self.did: list[str] = []

    def extra(self, page, shown: str) -> bool:
        """What the side does at the step ``shown`` before its Done (``on_step``: on
        that step's panel only)."""
        side = next(s for s, p in self.pages.items() if p is page)
        self.reader.read(page, shown)
        step = on_step(page, shown)
        if owed_roll(page, step):
            self.did.append(f"{side} {shown}: rolled")
            return True
        if (side, shown) not in self.tried and step.locator("#chart-box").count():
            self.tried.add((side, shown))
            if buy_one(page, step, self.buys.get(shown.split(" ")[0], "")):
                self.bought.add((side, shown))
                self.did.append(f"{side} {shown}: bought")
                return True
        lock = step.get_by_role("button", name=f"Lock {self.chits.get(side, 'Idle')}")
        if lock.count() and lock.is_enabled():
            page.once("dialog", lambda d: d.accept())
            lock.click()
            lock.wait_for(state="detached")
            self.did.append(f"{side} {shown}: locked {self.chits.get(side, 'Idle')}")
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
    it offers none now or shows the goal.  The step is read first and the goal after
    it, on the page as it is then (a push may bring the goal at any moment: read
    before the step, a goal that came in between was missed and the goal's own step
    pressed), and every press below is looked for on the panel of the step read
    (``on_step``): a step that came after the goal check is never pressed, so the
    walk cannot pass its goal."""
    shown = title(page)
    if goal(page):
        return False
    if extra(page, shown):
        return True
    step = on_step(page, shown)
    step_id = shown.split(" ")[0]
    for button in (
        step.get_by_role("button", name="Confirm the result", exact=True),
        step.get_by_role("button", name=f"Done with {step_id}", exact=True),
        step.get_by_role("button", name="Go on without it", exact=True),
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


def read_roster(page, reader: Reader, *shown: str, first_row: tuple[str, ...] = ()) -> None:
    """The CG Roster, read; it shows each of ``shown``, and its first date's row each
    of ``first_row``."""
    page.get_by_role("link", name="CG Roster and retained forces").first.click()
    page.locator("#cg-roster").wait_for()
    reader.read(page, "the CG Roster")
    text = page.locator("main").inner_text()
    for s in shown:
        assert s in text, (s, text[:2000])
    first = page.locator("#cg-roster tbody tr").first.inner_text() if first_row else ""
    for s in first_row:
        assert s in first, (s, first)
    page.go_back()
    page.locator("body[data-live]").wait_for(state="attached")


def reveal_on_both(pages, expected: str) -> None:
    for page in pages:
        page.locator("#initiative-result").wait_for()
        assert expected in page.locator("#initiative-result").inner_text()


def begin(asgi_server, new_context, cg: str, host_side: str, guest: str):
    """The host hosts ``cg`` on a desktop, the guest joins on a phone; each page read."""
    reader = Reader()
    host, phone = host_and_join_on_a_phone(asgi_server, new_context, cg, host_side, guest)
    reader.read(host)
    reader.read(phone)
    return host, phone, reader


def through_the_phase(host, phone, walk: Walk, result, second: str, buyers: set, midway=None):
    """The first scenario's result (entered on the desktop, confirmed on the phone),
    then the between-scenario phase walked by the forms until the next scenario,
    ``second``, is in play on both pages (``midway``: a goal on the way, and what is
    checked there).  A reply half typed on the phone while the whole phase is played:
    no push of either side's actions loses it."""
    if not result_form(host):
        walk.until(result_form)
    enter_result(host, result)
    confirm(phone)
    draft = phone.get_by_label("Message to your opponent")
    draft.fill("Half a reply, typed before the phase")
    if midway:
        goal, check = midway
        walk.until(goal)
        check()
    walk.until(in_play)
    assert draft.input_value() == "Half a reply, typed before the phase"
    draft.fill("")
    for page in (host, phone):
        page.locator("#campaign-header .position", has_text=second).wait_for()
    assert {s for s, _ in walk.bought} == buyers, walk.did


def second_result(host, phone, result, step: str) -> None:
    """The second scenario's result; both pages move on to the phase's first step."""
    enter_result(host, result)
    confirm(phone)
    for page in (host, phone):
        page.locator("#step-title", has_text=step).wait_for()


def finish(host, phone, walk: Walk, reader: Reader, second: str, first_row=()) -> None:
    """The roster read on both pages, messages both ways; what the reader found."""
    read_roster(phone, reader, second)
    read_roster(host, reader, second, first_row=first_row)
    talk(phone, host, f"Good game so far. Sunday for {second}?")
    talk(host, phone, "Sunday it is.")
    reader.read(phone, "messages")
    print(*walk.did, sep="\n")
    reader.report()


def without(values: dict[str, str], *supplied: str) -> dict[str, str]:
    """The start sheet's values but those of the data already supplied one by one."""
    return {k: v for k, v in values.items() if not k.startswith(supplied)}


def test_sicily_hosted_to_the_second_refit_phase_on_a_desktop_and_a_phone(
    asgi_server, new_context, modules
):
    """Sicily CG I: 3.51's data (missing from the seed) supplied, two one at a time (one
    proposed by each player, accepted by the other), the rest on the start sheet agreed
    in one go; the scenario sheet shows them; I-3.617's purchases and I-3.618's secret
    rolls; the Initial Scenario's result (3.6); 3.601-3.623 walked by the forms (3.617
    a Sniper each, in secret, 3.621 the chits revealed on both pages); the second
    scenario's result; the roster names the supplied weather; a message from the
    phone.  Rules: 3.51, 3.6, 3.617, 3.618, 3.619, 3.621."""
    host, phone, reader = begin(asgi_server, new_context, "sicily/i", "british", "Axis")
    assert title(host).startswith("I-3.617")  # the start comes first
    supply(host, "Initial CPP per side", {"value.axis": "39", "value.british": "17"})
    accept(phone, "Initial CPP per side")
    assert "CPP: 39" in phone.locator("#campaign-sides").inner_text()
    supply(phone, "Initial FPP per side", {"value.axis": "6", "value.british": "3"})
    accept(host, "Initial FPP per side")
    assert "FPP: 3" in host.locator("#campaign-sides").inner_text()
    rest = without(SICILY_START, "variants.i.start.points|", "variants.i.start.fortification_")
    agree_start(host, phone, rest, reader)
    ob = host.locator("#campaign-record tr.mine").get_by_role("cell", name="OB", exact=True)
    ob.first.wait_for()
    assert ob.count() == 1  # I2 on the British Purchase Record, not counted as a purchase
    text = sheet(host)
    assert "SAN 2 · ELR 3" in text, text
    for shown in ("British sets up first.", "Axis moves first.", "EC: Dry", "Clear, no wind"):
        assert shown in text, (shown, text)
    chits = {"british": "Attack", "axis": "Idle"}
    # 3.617: each side buys a Sniper (M1: SAN +1), in secret.
    walk = Walk({"british": host, "axis": phone}, chits, reader, buys={"3.617": "M1"})
    walk.until(result_form)
    # The start played, the step leads each page again without a reload, above the
    # data still missing (the phone's step was 2 000 px down the page for the whole
    # Refit Phase: the data moved up and never moved back).
    for page in (host, phone):
        page.locator(".side-col #campaign-supplies").wait_for(state="attached")
        tops = page.evaluate(
            """() => ['campaign-step', 'campaign-supplies'].map(
                id => document.getElementById(id).getBoundingClientRect().top)"""
        )
        assert tops[0] < tops[1], tops
    # The log comes in the change's second frame, after the step's.
    host.locator(
        "#campaign-log", has_text="The Initial Scenario (July 14 AM) is in play"
    ).wait_for()
    values = {"cvp_lost.axis": 5, "cvp_lost.british": 3, "san.axis": 3, "san.british": 3}
    through_the_phase(host, phone, walk, values, "July 14 PM", {"british", "axis"})
    for page in (host, phone):  # both pages, live: the new date's scenario is in play
        page.locator("#initiative-result").wait_for()
        page.locator("#campaign-record", has_text="Sniper").wait_for()
        header = page.locator("#campaign-header").inner_text()
        assert "British Attack" in header and "Axis Idle" in header  # the reveal, on both
    reveal_on_both((host, phone), "British Attack")
    # Each side sees its own Sniper; the opponent's too, revealed at the step's end.
    assert phone.locator("#campaign-record").inner_text().count("Sniper") == 2, walk.did
    host.locator("#campaign-log", has_text="purchases of July 14 PM are revealed").wait_for()
    assert "New CG date: July 14 PM" in (host.locator("#campaign-log").text_content() or "")
    second_result(host, phone, values, "3.601")
    # The roster names each date's EC/weather as far as the CG knows it: the supplied
    # start weather for July 14 AM.
    finish(host, phone, walk, reader, "July 14 PM", first_row=("July 14 AM", "Clear, no wind"))


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


# PHD's and APD's runs walk their systems' data, which the backend only stores (rules),
# and check what each page says and how it fits (presentation): once, on PostgreSQL +
# Redis.  The Sicily run above walks the same pages and pushes on both backends (its
# richest system), and the three systems walk through their steps on both backends
# below the browser (test_sequence, test_start, test_noninterference).
@pytest.mark.rules
@pytest.mark.presentation
def test_purple_heart_draw_hosted_to_the_second_conph_on_a_desktop_and_a_phone(
    asgi_server, new_context, modules
):
    """Purple Heart Draw TM: I-C5.12 done by both; the lost RG charts (C5.31) supplied
    one at a time, each side its own, accepted by the other; C4.2's OB and C5.33's
    Leader Table on the start sheet agreed in one go; I-C5.13-I-C5.35; TM1's result
    (C5.1); C5.2-C5.41 walked by the forms (C5.23's compulsory DR and any other owed
    roll made by the page, C5.29's TP in each side's log, C5.31 an RG each, C5.37 the
    chits revealed on both pages); the second result; the roster; a message from the
    phone.  Rules: C4.2, C5.1, C5.12, C5.23, C5.29, C5.31, C5.33, C5.37."""
    host, phone, reader = begin(asgi_server, new_context, "purple-heart-draw/tm", "us", "German")
    assert title(host).startswith("I-C5.12")  # C5.12: control before the Initial TM Scenario
    for page in (host, phone):
        press(page, page.get_by_role("button", name="Done with I-C5.12", exact=True))
    host.locator("#step-title", has_text="I-C5.31").wait_for()
    row = {
        "row-0-type": "Rifle Pl",
        "row-0-units": "3 x 6-6-6",
        "row-0-full": "3",
        "row-0-depleted": "2",
        "row-0-cost": "8",
        "row-0-cg_max-tm": "4",
    }
    # C5.31: both RG charts are lost: each side supplies its own, the other accepts.
    supply(
        host, "US TM Reinforcement Group Chart", {"row-0-id": "I1", **row}, ("row-0-depletable",)
    )
    supply(
        phone,
        "German TM Reinforcement Group Chart",
        {**row, "row-0-id": "I1", "row-0-type": "Gren Pl", "row-0-units": "3 x 4-6-7"},
    )
    accept(phone, "US TM Reinforcement Group Chart")
    accept(host, "German TM Reinforcement Group Chart")
    # C4.2 names the OB's RGs (Gren Pl x 2, Rifle Pl x 2), whose IDs were on the lost
    # charts, and C5.33's Leader Table is lost too: the start sheet, in one go.
    agree_start(host, phone, without(PHD_START, "rg_charts."), reader)
    ob = host.locator("#campaign-record tr.mine").get_by_role("cell", name="OB", exact=True)
    ob.nth(1).wait_for()
    assert ob.count() == 2  # on the US Purchase Record, not counted as purchases
    values = {
        "cvp_lost.us": 25,
        "cvp_lost.german": 8,
        "san.us": 3,
        "san.german": 3,
        # C5.31 RG footnote z: the Gun/vehicle crews each side lost (none here).
        "crews_lost.us": 0,
        "crews_lost.german": 0,
    }
    walk = Walk({"us": host, "german": phone}, {"us": "Attack", "german": "Idle"}, reader)
    through_the_phase(host, phone, walk, values, "0930", {"us", "german"})
    reveal_on_both((host, phone), "US Attack")
    # C5.29 is the server's: it passes by itself and its arithmetic is in each side's log.
    host.locator("#campaign-log", has_text="American TP:").wait_for()
    log = host.locator("#campaign-log").text_content() or ""
    assert "American TP:" in log and "-2 " in log  # −1 per 10 CVP lost (FRD)
    assert "German TP:" not in log  # the other side's TP are not on this page
    assert "German received its TP (secret)" in log
    second_result(host, phone, values, "C5.2 ")
    finish(host, phone, walk, reader, "0930")


@pytest.mark.rules
@pytest.mark.presentation
def test_pleasant_diversion_hosted_to_the_second_clean_up_on_a_desktop_and_a_phone(
    asgi_server, new_context, modules
):
    """A Pleasant Diversion: the American Reinforcement Table (3.4) and SG1's OB
    supplied one at a time (one proposed by each player, accepted by the other); SG1's
    SAN, ELR, who sets up and moves first, 2.91's VP required and the German chart and
    Rows A-C (3.5) on the start sheet agreed in one go; the scenario sheet shows them;
    SG1's result (1.2); the Clean-Up (2.1-2.9) and Setup (3.1-4.0) walked by the
    forms, the American's PP (2.92) his alone, an RG bought (3.4), the German's from
    his drs (3.5); the Midday scenario in play (APD has no initiative chits: 1.2 fixes
    who attacks); its result, and the next Setup's PP (2.91-2.92 with the supplied VP
    required); the roster; a message from the phone.  Rules: 1.2, 2.91, 2.92, 3.4, 3.5."""
    host, phone, reader = begin(
        asgi_server, new_context, "pleasant-diversion/cg", "american", "German"
    )
    assert title(host).startswith("1.2")  # SG1 is the Initial Scenario: no start steps
    # 3.4: the American Reinforcement Table is missing: the American supplies it.
    supply(
        host,
        "American Reinforcement Table",
        {
            "row-0-id": "A1",
            "row-0-type": "Armored Infantry Platoon",
            "row-0-units": "4 x 6-6-6",
            "row-0-cost": "10",
            "row-0-date_max": "2",
            "row-0-tags": "armored_infantry",
        },
    )
    accept(phone, "American Reinforcement Table")
    # SG1's OB is not in the seed either: the German proposes it.
    supply(
        phone,
        "Initial-Scenario OB per side",
        {"rgs.american": "A1", "units.american": "Lt Hayes 8-1", "units.german": "9-1 leader"},
    )
    accept(host, "Initial-Scenario OB per side")
    rest = without(APD_START, "rg_charts.american|", "variants.cg.start.ob|")
    agree_start(host, phone, rest, reader)
    text = sheet(host)
    assert "SAN 3 · ELR 4" in text and "Lt Hayes 8-1" in text, text
    values = {"vp.american": 63, "cvp_lost.american": 41, "cvp_lost.german": 5}

    def the_american_points():
        assert "You have 33 PP" in host.locator("#campaign-step").inner_text()  # 2.92 EX
        assert "PP: 33" in host.locator("#campaign-sides").inner_text()
        assert "PP: 33" not in phone.locator("#campaign-sides").inner_text()  # the American's

    def at_3_4(page) -> bool:
        return title(page).startswith("3.4 ")

    walk = Walk({"american": host, "german": phone}, {}, reader, buys={"3.4": "A1"})
    midway = (at_3_4, the_american_points)
    through_the_phase(host, phone, walk, values, "Midday", {"american"}, midway=midway)
    assert "Midday" in host.locator("#campaign-header").inner_text()
    # The German's RG is the one his Row A dr gave (3.5), on his Purchase Record.
    phone.locator("#campaign-record tr.mine", has_text="G1").first.wait_for()
    assert any("3.5" in d and "rolled" in d for d in walk.did), walk.did
    second_result(host, phone, {**values, "vp.american": 20}, "2.1 ")
    # 2.91-2.92 with the supplied 90: 90 − (63 + 20) = 7; 7 + (41 + 41) CVP = 89 PP,
    # beside the 33 − 10 = 23 retained (3.4).
    walk.until(at_3_4)
    assert "You have 112 PP" in host.locator("#campaign-step").inner_text(), walk.did
    finish(host, phone, walk, reader, "Midday")
