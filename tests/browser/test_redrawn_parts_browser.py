"""Issue 49: a page re-draws only the parts its change touches.  A buy's change
(``PurchaseAdded``) touches, on the campaign page, the parts the page registry
declares for it (``campaign.live_pages``); a MutationObserver on the pages' parts
records every part the buy re-drew.  The buyer's page re-draws none outside the
declared parts; the opponent's page, which may not see the secret purchase (RePh
3.617: an RG is bought in secret), re-draws none at all."""

import pytest

from campaign.changes import PurchaseAdded
from campaign.live_pages import CAMPAIGN
from tests.purchase_helpers import campaign_at

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Every part whose section (``section[data-part]``) is replaced, or in which anything
# changes, once the observer starts.
OBSERVE = """() => {
  window.redrawn = [];
  const partOf = (node) => {
    const el = node.nodeType === 1 ? node : node.parentElement;
    const part = el && el.closest('[data-part]');
    return part ? part.dataset.part : null;
  };
  new MutationObserver((records) => {
    for (const r of records) {
      for (const n of r.addedNodes) {
        if (n.nodeType === 1 && n.dataset && n.dataset.part) window.redrawn.push(n.dataset.part);
      }
      const p = partOf(r.target);
      if (p) window.redrawn.push(p);
    }
  }).observe(document.body, {childList: true, subtree: true, attributes: true,
                             characterData: true});
}"""


def test_a_buy_redraws_only_the_parts_its_change_touches(
    asgi_server, new_context, browser_login, modules, make_user
):
    players, _ = campaign_at(
        "sicily", "i", "jul14n", (make_user("axis_r"), make_user("brit_r")), policy="owner"
    )
    url = f"{asgi_server.url}/campaigns/{players.campaign_id}/"
    brit = browser_login(new_context(), players.users["british"]).new_page()
    axis = browser_login(new_context(), players.users["axis"]).new_page()
    for page in (brit, axis):
        page.goto(url)
        page.locator("#step-title", has_text="3.617").wait_for()
        page.wait_for_function("document.body.dataset.live === '1'")
        page.evaluate(OBSERVE)

    brit.get_by_role("button", name="Buy I1 Lgt Inf Rifle Coy for 18 CPP", exact=True).click()
    brit.locator("#campaign-record tr", has_text="Lgt Inf Rifle Coy").wait_for()
    brit.locator("#campaign-log", has_text="Lgt Inf Rifle Coy").wait_for()
    # A later frame of the same change (its second batch) has landed too: the record
    # and the log are in it.  Let any stray frame arrive before reading.
    brit.wait_for_timeout(1000)

    touched = {str(p) for p in CAMPAIGN.touched([PurchaseAdded()])}
    redrawn = set(brit.evaluate("window.redrawn"))
    assert redrawn, "the buy re-drew nothing on the buyer's page"
    assert redrawn <= touched, f"re-drawn but not touched by the buy: {redrawn - touched}"
    assert {"record", "log"} <= redrawn
    # The opponent's page heard nothing of a secret purchase.
    assert axis.evaluate("window.redrawn") == []


def test_a_frame_for_other_parts_rewrites_nothing_in_a_part(
    asgi_server, new_context, browser_login, modules, make_user
):
    """The page's own handlers of a socket frame (cards for phones, the title's badge,
    the focus) write only what is missing: the frame that says the page is live
    arrives after the page is drawn, and it re-wrote the step's RG chart (its table's
    class) on a page that had heard of no change.  Seen failing first."""
    players, _ = campaign_at(
        "sicily", "i", "jul14n", (make_user("axis_f"), make_user("brit_f")), policy="owner"
    )
    page = browser_login(new_context(), players.users["axis"]).new_page()
    page.goto(f"{asgi_server.url}/campaigns/{players.campaign_id}/")
    page.wait_for_function("document.body.dataset.live === '1'")
    assert page.locator("[data-part=step] table thead").count() >= 1
    page.evaluate(OBSERVE)
    page.evaluate("document.dispatchEvent(new CustomEvent('htmx:wsAfterMessage', {detail: {}}))")
    page.wait_for_timeout(300)
    assert page.evaluate("window.redrawn") == []
