"""Issue 44 in real Chromium, Purple Heart Draw's ConPh (C5.1-C5.24): a condition that
lives only in a sub-clause, enforced with its refusal on screen (class 1: C5.24a's
Promotion out of the Ranks), and losses entered at a later step than the result, read
by a later computation (class 8: C5.1's ConPh losses, read by C5.23's DRM)."""

import pytest

from campaign.models import Roll, Unit
from tests.browser.at_step import back, park
from tests.browser.helpers import live_page, live_pages
from tests.purchase_helpers import add_unit
from tests.test_rule_mechanisms import add, result_values, start

# The rules on screen: run once, on PostgreSQL + Redis (the embedded run leaves them out).
pytestmark = [pytest.mark.browser, pytest.mark.rules, pytest.mark.django_db(transaction=True)]


def _pages(asgi_server, new_context, browser_login, players):
    pages = live_pages(asgi_server, new_context, browser_login, players)
    return pages["us"], pages["german"]


def _phd_after(make_user, step_id, **losses):
    players, module = start("purple-heart-draw", "tm", (make_user("us_p"), make_user("ge_p")), "us")
    players.results(**result_values(module, **losses))
    players.until_step(step_id)
    return players, module


def test_c5_24a_class_1_no_7_0_out_of_the_ranks_beyond_its_ratio_or_without_an_mmc(
    asgi_server, new_context, browser_login, modules, make_user
):
    """C5.24a: "Provided that a side does not have > one leader per four
    squad-equivalents ..., it may automatically create one 7-0 leader from any
    designated (non-crew) MMC": the German, holding no MMC, is told so where he would
    click; with an 8-0 and two squads (one leader per two squad-equivalents) he is
    refused by the ratio; with four squads the offer is a button, and the 7-0 joins his
    retained forces."""
    players, _ = _phd_after(make_user, "C5.24")
    ge = live_page(asgi_server, new_context, browser_login, players, "german")  # his alone
    roller = ge.locator("#table-leader_promotion")
    offer = "Instead of rolling: Promote a 7-0 leader out of the Ranks (C5.24a)"
    roller.get_by_text("You hold no MMC to create the 7-0 leader from (C5.24a)").wait_for()
    assert not ge.get_by_role("button", name=offer).count()
    add_unit(players, "german", "8-0 leader", "leader")
    add_unit(players, "german", "4-6-7", "squad", number=2)
    ge.reload()  # changed by the services here, not by a browser: no push to wait for
    roller.get_by_text(
        "Not with 1 leader for 2 squad-equivalents: no more than one leader per 4 (C5.24a)"
    ).wait_for()
    assert not ge.get_by_role("button", name=offer).count()
    add_unit(players, "german", "4-6-7", "squad", number=2)
    ge.reload()
    ge.once("dialog", lambda d: d.accept())  # the roll is given up: it asks first
    ge.get_by_role("button", name=offer).click()
    roller.get_by_text(f"{offer} — You have done so in this pass (C5.24a)").wait_for()
    assert Unit.objects.filter(
        campaign_id=players.campaign_id, side="german", name="7-0 leader"
    ).exists()


def test_c5_1_c5_23_class_8_conph_losses_amended_and_read_by_the_promotion_drm(
    asgi_server, new_context, browser_login, modules, make_user
):
    """C5.1: "All ConPh losses count for the previous scenario for all purposes"; C5.23:
    "-1 per 10 CVP (FRD) amassed by friendly side in this scenario".  The US entered 5
    CVP lost; at C5.14 a platoon behind the German FEBA fails to redeploy (C5.14 i) and
    the US, in its browser, adds the 20 CVP; the German accepts in his; at C5.23 the
    German's DR shows -2, computed from the 25 CVP agreed (from the 5 first entered it
    would have had none)."""
    players, _ = _phd_after(make_user, "C5.14", cvp_lost_us=5, cvp_lost_german=3)
    us, ge = _pages(asgi_server, new_context, browser_login, players)
    us.locator("#amend summary").click()
    us.locator("#amend-cvp_lost\\.us").fill("25")
    us.locator("#amend-reason").fill("1st Pltn behind the German FEBA failed to redeploy (C5.14 i)")
    us.get_by_role("button", name="Propose the amendment").click()
    ge.get_by_role("button", name="Accept the amendment").click()
    ge.get_by_role("button", name="Accept the amendment").wait_for(state="detached")
    park(us, ge)  # the walk to C5.23 is the services': no pushes to draw
    players.until_step("C5.23")
    add(players, "german", "4-6-7", "squad")  # an MMC the DR may Battle Harden
    back(ge, f"{asgi_server.url}/campaigns/{players.campaign_id}/")
    ge.locator("#step-title", has_text="C5.23").wait_for()
    ge.locator("#table-battlefield_promotion").get_by_role("button", name="Roll DR").click()
    rolled = ge.locator("#campaign-step .rolls li", has_text="Battlefield Promotion")
    rolled.wait_for()
    assert "-2 at -1 per 10 CVP (FRD) amassed by the friendly side in this scenario" in (
        rolled.inner_text()
    )
    r = Roll.objects.get(
        campaign_id=players.campaign_id, side="german", table_id="battlefield_promotion"
    )
    assert [d["value"] for d in r.drms] == [-2]
