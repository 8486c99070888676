"""Whole campaigns in real Chromium (issues 10 and 15): for each of the three systems,
two players sign up, host and join, supply through the campaign page what the rules
documents lack (the other accepts it), play the steps before the Initial Scenario, its
result, the whole between-scenario phase (Sicily: a secret purchase each and the
initiative reveal on both pages), the next scenario's result, and reach the second
between-scenario phase — without touching the server.

All three run on PostgreSQL + Redis; on the embedded default (SQLite + in-memory
layer) Sicily's walk runs, the richest (secret purchases, the initiative reveal): the
other two walk their systems' data, which the backend only stores, and the three
systems walk through their steps on both backends below the browser (test_sequence,
test_start, test_noninterference)."""

from __future__ import annotations

import re

import pytest

from tests.browser.play import (
    confirm,
    enter_result,
    fill,
    host_and_join,
    press,
    title,
    unfold,
    walk,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def supply(page, label: str, values: dict[str, str], checks: tuple[str, ...] = ()) -> None:
    """The player opens the form of a missing datum, fills it in and proposes it."""
    unfold(page)
    item = page.locator("#campaign-supplies li", has_text=label).first
    item.get_by_role("link", name="Supply it").click()
    page.locator("form.supply-form").wait_for()
    fill(page, "form.supply-form", values)
    for name in checks:
        page.locator(f"form.supply-form [name='{name}']").check()
    page.get_by_role("button", name="Propose it to my opponent").click()
    page.locator("#campaign-supplies li", has_text=label).get_by_text(
        "Waiting for your opponent to accept it"
    ).wait_for()


def accept(page, label: str) -> None:
    item = page.locator("#campaign-supplies li", has_text=label).first
    # The opponent's proposal has reached this page (its push unfolds the list) before
    # the player looks for its Accept: a fold opened by hand as the push lands is not
    # folded again by a second click.
    item.get_by_role("button", name="Accept").wait_for(state="attached")
    unfold(page)
    page.once("dialog", lambda d: d.accept())
    item.get_by_role("button", name="Accept").click()
    page.locator("#campaign-supplies li", has_text=label).get_by_text("supplied by").wait_for()


def agree(proposer, accepter, label: str, values: dict[str, str]) -> None:
    """One player supplies a datum the rules lack; the other accepts it."""
    supply(proposer, label, values)
    accept(accepter, label)


def sheet(page) -> str:
    """The player's scenario sheet, as plain text (what he pastes into VASL)."""
    campaign = re.search(r"/campaigns/([0-9a-f-]{36})/", page.url)
    assert campaign, page.url
    url = page.url[: campaign.end()] + "sheet.txt"
    return page.request.get(url).text()


def buy(page, name: str) -> None:
    """Buy, and wait until the purchase is listed among the side's RGs (an OB line may
    already be there: the list must grow, else the next Done may overtake the buy)."""
    listed = page.locator(".purchases li").count()
    page.get_by_role("button", name=name, exact=True).click()
    page.wait_for_function("n => document.querySelectorAll('.purchases li').length > n", arg=listed)


def chits(host_chit: str, guest_chit: str):
    def extra(page, *, host):
        button = page.get_by_role("button", name=f"Lock {host_chit if host else guest_chit}")
        if button.count() and button.is_enabled():
            page.once("dialog", lambda d: d.accept())
            button.click()
            button.wait_for(state="detached")
            return True
        return False

    return extra


def owed_roll(page) -> bool:
    """A roll the step makes compulsory (PHD C5.23: "Each side makes a secret DR"),
    made as the page asks ("Roll first: ...")."""
    if "Roll first:" not in page.locator("#campaign-step").inner_text():
        return False
    for name in ("Roll DR", "Roll dr"):
        # Each is named with its table ("Roll DR: Battlefield Promotion Table").
        button = page.get_by_role("button", name=re.compile(rf"^{name}(?::|$)"))
        if button.count():
            button.first.click()
            page.locator("#campaign-step", has_text="Roll first:").wait_for(state="detached")
            return True
    return False


def second_phase(page, first_step: str) -> bool:
    return title(page).startswith(first_step + " ")


def to_the_next_scenario(host, guest, host_chit: str, guest_chit: str):
    """Both players walk the rest of the between-scenario phase, each locking its
    initiative chit, until the next scenario is in play."""
    pick = chits(host_chit, guest_chit)

    def extra(page):
        return pick(page, host=page is host) or owed_roll(page)

    walk(
        host,
        guest,
        lambda p: p.locator("#campaign-header .badge", has_text="scenario in play").count() > 0,
        extra=extra,
    )


def play_date(host, guest, results: dict[str, object], host_chit: str, guest_chit: str):
    """The scenario's result, then the between-scenario phase to the next scenario."""
    enter_result(host, results)
    confirm(guest)
    to_the_next_scenario(host, guest, host_chit, guest_chit)


def test_sicily_from_sign_up_to_the_second_refit_phase(asgi_server, new_context, modules):
    """Rules: 3.618, 3.619."""
    host, guest = host_and_join(asgi_server, new_context, "sicily/i", "british", "Axis")
    assert title(host).startswith("I-3.617")  # the start comes first
    # 3.51 is not in the seed: the host supplies the initial CPP, the Axis accepts.
    supply(host, "Initial CPP per side", {"value.axis": "39", "value.british": "17"})
    accept(guest, "Initial CPP per side")
    assert "CPP: 39" in guest.locator("#campaign-sides").inner_text()
    # The rest of what 3.51 would give, supplied the same way, each by one player and
    # accepted by the other.
    agree(guest, host, "Initial FPP per side", {"value.axis": "6", "value.british": "3"})
    agree(host, guest, "Initial-Scenario OB per side", {"rgs.axis": "I5", "rgs.british": "I2"})
    agree(guest, host, "Initial SAN per side", {"value.axis": "3", "value.british": "2"})
    agree(host, guest, "ELR per side", {"value.axis": "4", "value.british": "3"})
    agree(guest, host, "Who sets up first in the Initial Scenario", {"value": "british"})
    agree(host, guest, "Who moves first in the Initial Scenario", {"value": "axis"})
    agree(guest, host, "Initial Scenario special rules (one per line)", {"value": "EC: Dry"})
    agree(host, guest, "Initial Scenario EC and weather", {"value": "Clear, no wind"})
    agree(
        guest,
        host,
        "Attack chits each side may choose in the CG",
        {"value.axis": "3", "value.british": "2"},
    )
    assert "FPP: 3" in host.locator("#campaign-sides").inner_text()
    ob = host.locator("#campaign-record tr.mine").get_by_role("cell", name="OB", exact=True)
    ob.first.wait_for()
    assert ob.count() == 1  # I2 on the British Purchase Record, not counted as a purchase
    text = sheet(host)
    assert "SAN 2 · ELR 3" in text, text
    for shown in ("British sets up first.", "Axis moves first.", "EC: Dry", "Clear, no wind"):
        assert shown in text, (shown, text)
    buy(guest, "Buy I4 Fallschirmjäger Signal Coy for 15 CPP")
    # Both finish the start; the OB/purchase strength rolls are made on the way.
    walk(host, guest, lambda p: p.locator("[name^='cvp_lost']").count() > 0)
    # The log comes in the change's second frame, after the step's.
    in_play = "The Initial Scenario (July 14 AM) is in play"
    host.locator("#campaign-log", has_text=in_play).wait_for()
    values = {"cvp_lost.axis": 5, "cvp_lost.british": 3, "san.axis": 3, "san.british": 3}
    enter_result(host, values)
    confirm(guest)
    walk(host, guest, lambda p: title(p).startswith("3.617"))
    for page in (host, guest):  # each side buys a Sniper (M1: SAN +1), in secret
        page.locator("#step-title", has_text="3.617").wait_for()
        page.locator("#rg-M1 button").first.click()
        page.locator(".purchases li", has_text="Sniper").wait_for()
    to_the_next_scenario(host, guest, "attack", "idle")
    for page in (host, guest):  # both pages, live: the new date's scenario is in play
        page.locator("#campaign-header .position", has_text="July 14 PM").wait_for()
        page.locator("#initiative-result").wait_for()
        page.locator("#campaign-record", has_text="Sniper").wait_for()
        header = page.locator("#campaign-header").inner_text()
        assert "British Attack" in header and "Axis Idle" in header  # the reveal, on both
    # Each side sees its own Sniper; the opponent's too, revealed at the step's end.
    assert guest.locator("#campaign-record").inner_text().count("Sniper") == 2
    host.locator("#campaign-log", has_text="Purchases of July 14 PM are revealed").wait_for()
    assert "New CG date: July 14 PM" in (host.locator("#campaign-log").text_content() or "")
    enter_result(host, values)
    confirm(guest)
    for page in (host, guest):
        page.locator("#step-title", has_text="3.601").wait_for()
    # The roster names each date's EC/weather as far as the CG knows it: the supplied
    # start weather for July 14 AM.
    host.get_by_role("link", name="CG Roster").first.click()
    first = host.locator("#cg-roster tbody tr").first
    assert "July 14 AM" in first.inner_text() and "Clear, no wind" in first.inner_text()


@pytest.mark.rules  # Sicily's walk runs on both backends (module docstring)
def test_purple_heart_draw_from_sign_up_to_the_second_conph(asgi_server, new_context, modules):
    host, guest = host_and_join(asgi_server, new_context, "purple-heart-draw/tm", "us", "German")
    assert title(host).startswith("I-C5.12")  # C5.12: control before the Initial TM Scenario
    for page in (host, guest):
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
        guest,
        "German TM Reinforcement Group Chart",
        {**row, "row-0-id": "I1", "row-0-type": "Gren Pl", "row-0-units": "3 x 4-6-7"},
    )
    accept(guest, "US TM Reinforcement Group Chart")
    accept(host, "German TM Reinforcement Group Chart")
    # C5.33's Leader Table is lost too: the German supplies one, the US accepts.
    agree(
        guest,
        host,
        "Leader Table for RG leaders (C5.33)",
        {
            "row-0-range": "≤9",
            "row-0-result": "No leader",
            "row-0-effect": "none",
            "row-1-range": "≥10",
            "row-1-result": "8-0 leader",
            "row-1-effect": "leader: 8-0 leader",
        },
    )
    # C4.2 names the OB's RGs (Gren Pl x 2, Rifle Pl x 2), whose IDs were on the lost
    # charts: with the charts supplied, the German supplies the OB; the form starts from
    # the OB as printed.
    supply(guest, "Initial-Scenario OB per side", {"rgs.german": "I1, I1", "rgs.us": "I1, I1"})
    accept(host, "Initial-Scenario OB per side")
    ob = host.locator("#campaign-record tr.mine").get_by_role("cell", name="OB", exact=True)
    ob.nth(1).wait_for()
    assert ob.count() == 2  # on the US Purchase Record, not counted as purchases
    buy(host, "Buy I1 Rifle Pl for 8 TP")
    walk(host, guest, lambda p: p.locator("[name^='cvp_lost']").count() > 0)
    values = {
        "cvp_lost.us": 25,
        "cvp_lost.german": 8,
        "san.us": 3,
        "san.german": 3,
        # C5.31 RG footnote z: the Gun/vehicle crews each side lost (none here).
        "crews_lost.us": 0,
        "crews_lost.german": 0,
    }
    play_date(host, guest, values, "attack", "idle")
    # C5.29 is the server's: it passes by itself and its arithmetic is in each side's log.
    host.locator("#campaign-log", has_text="American TP:").wait_for()
    log = host.locator("#campaign-log").text_content() or ""
    assert "American TP:" in log and "-2 " in log  # −1 per 10 CVP lost (FRD)
    assert "German TP:" not in log  # the other side's TP are not on this page
    assert "German received its TP (secret)" in log
    enter_result(host, values)
    confirm(guest)
    for page in (host, guest):
        page.locator("#step-title", has_text="C5.2 ").wait_for()


@pytest.mark.rules  # Sicily's walk runs on both backends (module docstring)
def test_pleasant_diversion_from_sign_up_to_the_second_clean_up(asgi_server, new_context, modules):
    host, guest = host_and_join(
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
    accept(guest, "American Reinforcement Table")
    # SG1's OB, SAN and ELR are not in the seed either.
    agree(
        guest,
        host,
        "Initial-Scenario OB per side",
        {"rgs.american": "A1", "units.american": "Lt Hayes 8-1", "units.german": "9-1 leader"},
    )
    agree(host, guest, "Initial SAN per side", {"value.american": "3", "value.german": "4"})
    agree(guest, host, "ELR per side", {"value.american": "4", "value.german": "3"})
    assert "SAN 3 · ELR 4" in sheet(host)
    assert "Lt Hayes 8-1" in sheet(host)
    # The Midday scenario's VP required (2.91) are cut from the text too.
    agree(guest, host, "VP required to win the Midday scenario", {"value": "90"})
    values = {"vp.american": 63, "cvp_lost.american": 41, "cvp_lost.german": 5}
    enter_result(host, values)
    confirm(guest)
    walk(host, guest, lambda p: title(p).startswith("3.4 "))
    assert "You have 33 PP" in host.locator("#campaign-step").inner_text()  # 2.92 EX
    assert "PP: 33" in host.locator("#campaign-sides").inner_text()
    assert "PP: 33" not in guest.locator("#campaign-sides").inner_text()  # the American's
    buy(host, "Buy A1 Armored Infantry Platoon for 10 PP")
    walk(
        host,
        guest,
        lambda p: p.locator("#campaign-header .badge", has_text="scenario in play").count() > 0,
    )
    assert "Midday" in host.locator("#campaign-header").inner_text()
    enter_result(host, {**values, "vp.american": 20})
    confirm(guest)
    for page in (host, guest):
        page.locator("#step-title", has_text="2.1 ").wait_for()
    # 2.91-2.92 with the supplied 90: 90 − (63 + 20) = 7; 7 + (41 + 41) CVP = 89 PP,
    # beside the 33 − 10 = 23 retained (3.4).
    walk(host, guest, lambda p: title(p).startswith("3.4 "))
    assert "You have 112 PP" in host.locator("#campaign-step").inner_text()
