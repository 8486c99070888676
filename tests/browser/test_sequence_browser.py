"""Issues 6 and 7 in real Chromium: two players go through steps and see each other's
progress live; both lock initiative chits and see the reveal at once."""

import pytest

from tests.walk import Players, host_game, players_of

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _sicily(make_user):
    alice, bob = make_user("alice"), make_user("bob")
    return host_game("sicily", "i", alice, bob, name="Primosole"), alice, bob


def _pages(new_context, browser_login, asgi_server, campaign, *users):
    pages = []
    for user in users:
        page = browser_login(new_context(), user).new_page()
        page.goto(f"{asgi_server.url}/campaigns/{campaign.pk}/")
        page.locator("#campaign-header").wait_for()
        pages.append(page)
    return pages


def test_results_checklist_and_table_steps_with_live_progress(
    asgi_server, new_context, browser_login, modules, make_user
):
    campaign, alice, bob = _sicily(make_user)
    axis, british = _pages(new_context, browser_login, asgi_server, campaign, alice, bob)

    # Scenario results: the Axis player enters, the British player confirms.
    axis.locator("#f-cvp_lost\\.axis").fill("12")
    axis.locator("#f-cvp_lost\\.british").fill("4")
    axis.locator("#f-san\\.axis").fill("3")
    axis.locator("#f-san\\.british").fill("4")
    axis.get_by_role("button", name="Enter the result").click()
    british.get_by_role("button", name="Confirm the result").wait_for()
    assert "Result entered by Axis" in british.locator("#campaign-step").inner_text()
    british.get_by_role("button", name="Confirm the result").click()

    # A checklist step: each sees the other's progress without reload.
    for page in (axis, british):
        page.locator("#step-title", has_text="3.601 Conclusion of Melee").wait_for()
    axis.get_by_role("button", name="Done with 3.601", exact=True).click()
    british.locator("#campaign-header .status-you").wait_for()  # the Axis is done
    axis.locator("#campaign-step .waiting").wait_for()
    british.get_by_role("button", name="Done with 3.601", exact=True).click()

    # On to the first table step (3.606 Escape): the checklists between are finished
    # below the browser (clicking through steps is the whole-campaign runs' subject,
    # test_play15_campaign.py), and the pages opened again there.
    for page in (axis, british):
        page.locator("#step-title", has_text="3.602").wait_for()
    players = players_of(campaign, alice, bob)
    players.until_step("3.606")

    # The Axis player rolls an Escape DR for a retained squad (issue 45: for a named
    # unit) with a ticked DRM and one that applies by itself; both see the roll live.
    from campaign.services import units

    units.add_unit(
        campaign_id=campaign.pk,
        user=players.users["axis"],
        name="4-6-8",
        kind="squad",
        markers=["isolated"],
    )
    for page in (axis, british):  # moved by the services here: no push to wait for
        page.reload()
        page.locator("#step-title", has_text="3.606 Escape").wait_for()
    roller = axis.locator("#table-escape")
    squad = roller.locator("select[name=unit] option", has_text="4-6-8").first
    squad.wait_for(state="attached")
    roller.locator("select[name=unit]").select_option(label=squad.inner_text().strip())
    # "+2 If Isolated" applies by itself to the squad marked isolated (3.606).
    roller.locator("fieldset label", has_text="If unarmed").locator("input").check()
    roller.get_by_role("button", name="Roll DR").click()
    axis.locator(".rolls .roll").wait_for()
    text = british.locator(".rolls .roll").inner_text()
    assert "4-6-8" in text and "+2 If Isolated" in text and "+1 If unarmed" in text, text
    final = int(british.locator(".rolls .roll .final").inner_text())
    faces = [int(f) for f in british.locator(".rolls .roll .faces").inner_text().split("+")]
    assert final == sum(faces) + 4  # and +1: a squad is two HS-equivalents (3.606)
    axis.get_by_role("button", name="Done with 3.606", exact=True).click()
    british.locator("#campaign-header .status-you").wait_for()  # the Axis is done
    british.get_by_role("button", name="Done with 3.606", exact=True).click()
    for page in (axis, british):
        page.locator("#step-title", has_text="3.607").wait_for()


def test_initiative_chits_revealed_at_once_in_both_browsers(
    asgi_server, new_context, browser_login, hosted
):
    campaign, alice, bob = hosted
    players = Players(campaign, {"red": alice, "blue": bob})
    players.results(**{"cvp_lost.red": 0, "cvp_lost.blue": 0, "san.red": 2, "san.blue": 2})
    players.until("initiative")
    red, blue = _pages(new_context, browser_login, asgi_server, campaign, alice, bob)
    blue_frames = []
    blue.on("websocket", lambda ws: ws.on("framereceived", lambda f: blue_frames.append(f)))
    blue.reload()
    blue.locator("#step-title", has_text="T4.0").wait_for()

    red.once("dialog", lambda d: d.accept())  # "Lock Idle? You may take it back …"
    red.get_by_role("button", name="Lock Idle").click()
    red.locator(".waiting", has_text="Your chit is locked: Idle").wait_for()
    blue.locator(".chits", has_text="Red: has chosen").wait_for()
    # Nothing the waiting side received carries Red's choice.
    before = blue.content() + "".join(str(f) for f in blue_frames)
    assert 'class="chit">Idle' not in before and "chit: Idle" not in before

    blue.once("dialog", lambda d: d.accept())
    blue.get_by_role("button", name="Lock Attack").click()
    for page in (red, blue):
        reveal = page.locator("#initiative-result")
        reveal.wait_for()
        text = reveal.inner_text()
        assert "Red Idle, Blue Attack → Blue Attack" in text and "Red sets up first" in text
