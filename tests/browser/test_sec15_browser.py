"""Pass 15 (sec15) in real Chromium: PHD C5.24's secret Leader Promotion DR Battle
Hardens the German's 8-1; his open roster shows the 9-1 at once, the US player's open
roster the 8-1 as he was; when the German reveals him (his roster's "Reveal it now"),
both show the 9-1, live.  The release at the scenario's end: ``tests/test_sec15.py``."""

import pytest

from tests import test_rule_mechanisms as mechanisms
from tests.test_phd_conph import phd_after
from tests.test_rule_mechanisms import add, roll

fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.browser, pytest.mark.rules, pytest.mark.django_db(transaction=True)]


def test_c5_24_the_owner_sees_the_promotion_the_opponent_the_leader_as_he_was_until_revealed(
    asgi_server, new_context, browser_login, modules, make_user, fixed_dice
):
    """C5.24 "Each side has the option to make a secret DR to Battle Harden one Retained
    Non-Wounded Infantry Leader": a DR 6 names an 8-1; the German's roster reads "9-1
    leader", the US's still "8-1 leader" (no 9-1 on his pages, no log line of it); the
    German reveals him on his roster, and the US roster reads the 9-1 too, live."""
    players, _ = phd_after((make_user("german_s15"), make_user("us_s15")), "C5.24")
    add(players, "german", "8-1 leader", "leader", location="12B4")
    base = f"{asgi_server.url}/campaigns/{players.campaign_id}/"
    german = browser_login(new_context(), players.users["german"]).new_page()
    us = browser_login(new_context(), players.users["us"]).new_page()
    for page in (german, us):
        page.goto(base + "roster/")
        page.locator("body[data-live]").wait_for()
        page.locator("#retained-forces", has_text="8-1 leader").wait_for()

    fixed_dice.append([3, 3])
    assert roll(players, "german", "leader_promotion").result == "8-1"
    german.locator("#retained-forces", has_text="9-1 leader").wait_for()
    us.wait_for_timeout(800)
    assert "9-1 leader" not in us.locator("#retained-forces").inner_text()
    us.reload()
    us.locator("#retained-forces", has_text="8-1 leader").wait_for()
    assert "9-1 leader" not in us.content()
    us.goto(base)
    us.locator("body[data-live]").wait_for()
    assert "9-1 leader" not in us.content() and "Battle Hardens" not in us.content()
    assert "made a secret roll (Leader Promotion Table)" in us.content()
    us.goto(base + "roster/")
    us.locator("body[data-live]").wait_for()
    us.locator("#retained-forces", has_text="8-1 leader").wait_for()

    # The German reveals him on his roster: the US roster shows the 9-1, live.
    line = german.locator("#retained-forces li.unit", has_text="9-1 leader")
    assert "Your opponent sees it as 8-1 leader — in good order" in line.inner_text()
    german.once("dialog", lambda d: d.accept())
    line.get_by_role("button", name="Reveal it now").click()
    us.locator("#retained-forces", has_text="9-1 leader").wait_for()
    assert "8-1 leader" not in us.locator("#retained-forces").inner_text()
    german.locator("#retained-forces li.unit", has_text="9-1 leader").get_by_role(
        "button", name="Reveal it now"
    ).wait_for(state="detached")
