"""Issue 46 in real Chromium: nothing irreversible by accident, and a way to talk.  A
double-click on a price buys one RG; a Done that forfeits CPP asks first with the
figure, and dismissing it changes nothing; a Done is taken back until the opponent
acts; a message appears live in the other browser."""

import pytest
from playwright.sync_api import expect

from campaign.models import Event, Purchase, Roll, Seat, StepMark, Unit
from campaign.services import purchases
from tests.browser.helpers import PHONE, live_pages
from tests.purchase_helpers import campaign_at

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


# Issue 47: the double-click and keep-your-place tests at both widths a player uses.
WIDTHS = {"desktop": {"width": 1366, "height": 768}, "phone": PHONE}


def _pages(asgi_server, new_context, browser_login, players, viewport=None):
    pages = live_pages(asgi_server, new_context, browser_login, players, viewport)
    return pages["axis"], pages["british"]


def _page(asgi_server, new_context, browser_login, players, side, viewport=None):
    """``side``'s campaign page alone, for a test that reads no other."""
    pages = live_pages(asgi_server, new_context, browser_login, players, viewport, sides=(side,))
    return pages[side]


def done_here(players):
    """The marks of the sides done with the current step."""
    c = players.campaign
    return set(
        StepMark.objects.filter(campaign=c, cycle=c.cycle, step_index=c.step_index).values_list(
            "side", flat=True
        )
    )


@pytest.mark.parametrize("width", WIDTHS)
def test_a_double_click_on_a_price_buys_one_rg(
    asgi_server, new_context, browser_login, modules, make_user, width
):
    """The British M2 Recon RG may be bought twice on a date (Date Max 2): a
    double-click on its price is still one purchase."""
    players, _ = campaign_at("sicily", "i", "jul15am", (make_user("a"), make_user("b")))
    brit = _page(asgi_server, new_context, browser_login, players, "british", WIDTHS[width])
    answers: list[int] = []
    brit.on("response", lambda r: answers.append(r.status) if "/act/buy/" in r.url else None)
    price = brit.get_by_role("button", name="Buy M2 Recon for 1 CPP", exact=True)
    price.dblclick()
    brit.locator(".purchases li", has_text="Recon").first.wait_for()
    brit.wait_for_timeout(1500)  # a second purchase, were there one, would be in by now
    assert Purchase.objects.filter(campaign_id=players.campaign_id, group_id="M2").count() == 1
    assert brit.locator(".purchases li", has_text="Recon").count() == 1
    # No refusal goes unseen: the second click is not posted, or is answered as the
    # first; a refused one would say why beside the price.
    assert answers and (
        all(a < 400 for a in answers) or brit.locator("#rg-M2 .refusal").is_visible()
    ), answers
    # The page has the answer: the price may be clicked again, on purpose.
    price.click()
    brit.locator(".purchases li", has_text="Recon").nth(1).wait_for()
    assert Purchase.objects.filter(campaign_id=players.campaign_id, group_id="M2").count() == 2


def _double_click_with_the_answers_held(brit, between: str = ""):
    """Buy M2 Recon twice at 3.617: the first click's push reaches the page while its
    answer is held back, the price is clickable again (``between``: a script the page
    runs before the second click), the second click is made, then both answers are
    let through.  The price button."""
    held = []
    brit.route("**/act/buy/", lambda route: held.append((route, route.fetch())))
    price = brit.get_by_role("button", name="Buy M2 Recon for 1 CPP", exact=True)
    price.click()
    brit.locator(".purchases li", has_text="Recon").first.wait_for()  # pushed; answer held
    if between:
        brit.evaluate(between)
    expect(price).to_be_enabled()
    price.click()
    while len(held) < 2:
        brit.wait_for_timeout(50)
    for route, response in held:
        route.fulfill(response=response)
    brit.unroute("**/act/buy/")
    brit.wait_for_timeout(500)
    return price


def test_a_second_click_the_push_lets_through_is_answered_as_the_first(
    asgi_server, new_context, browser_login, modules, make_user
):
    """3.617, M2 Date Max 2: the buy's push reaches the page before its answer (held
    back here) and the price is clickable again; a second click then posts the same
    form with the same page token, and the server answers it as the first: one
    purchase.  Once the answers are in, a click is a new purchase."""
    players, _ = campaign_at("sicily", "i", "jul15am", (make_user("a"), make_user("b")))
    brit = _page(asgi_server, new_context, browser_login, players, "british")
    price = _double_click_with_the_answers_held(brit)
    assert Purchase.objects.filter(campaign_id=players.campaign_id, group_id="M2").count() == 1
    assert brit.locator(".purchases li", has_text="Recon").count() == 1
    assert brit.locator(".refusal .error").count() == 0
    price.click()
    brit.locator(".purchases li", has_text="Recon").nth(1).wait_for()
    assert Purchase.objects.filter(campaign_id=players.campaign_id, group_id="M2").count() == 2


def test_a_page_read_between_two_clicks_does_not_make_the_second_a_new_purchase(
    asgi_server, new_context, browser_login, modules, make_user
):
    """The same double click, with a read of the page's own (a GET, as the digest's or a
    resync's) answered between the two clicks: the page token is renewed by the answer
    to a post, not by any answer, so the second click still carries the first's token
    and is answered as the first: one purchase (was two: the GET renewed the token)."""
    players, _ = campaign_at("sicily", "i", "jul15am", (make_user("a"), make_user("b")))
    brit = _page(asgi_server, new_context, browser_login, players, "british")
    _double_click_with_the_answers_held(
        brit, between="() => htmx.ajax('GET', window.location.pathname, {swap: 'none'})"
    )
    assert Purchase.objects.filter(campaign_id=players.campaign_id, group_id="M2").count() == 1
    assert brit.locator(".purchases li", has_text="Recon").count() == 1


def test_a_done_that_forfeits_cpp_asks_first_and_is_taken_back(
    asgi_server, new_context, browser_login, modules, make_user
):
    """3.617 EXC on July 14 PM: Done names the CPP it forfeits before anything is sent;
    dismissed, nothing happened.  Accepted, the step waits for the opponent, and the
    Done is taken back while the opponent has not acted."""
    players, _ = campaign_at("sicily", "i", "jul14pm", (make_user("a"), make_user("b")), points=21)
    axis = _page(asgi_server, new_context, browser_login, players, "axis")
    done = axis.get_by_role("button", name="Done with 3.617", exact=True)
    said = []

    def dismiss(dialog):
        said.append(dialog.message)
        dialog.dismiss()

    axis.once("dialog", dismiss)
    done.click()
    axis.wait_for_timeout(500)
    assert said and "21 unspent CPP lost after the purchase step of July 14 PM (3.617" in said[0]
    assert done_here(players) == set()
    assert "21 unspent CPP lost" in axis.locator("#finish-warnings").inner_text()

    axis.once("dialog", lambda d: d.accept())
    done.click()
    take_back = axis.get_by_role("button", name="Take back my Done at 3.617")
    take_back.wait_for()
    assert done_here(players) == {"axis"}
    take_back.click()
    axis.get_by_role("button", name="Done with 3.617", exact=True).wait_for()
    assert done_here(players) == set()
    # The log comes in the change's second frame (the step, read first, in the first).
    axis.locator("#campaign-log", has_text="Axis takes back its Done at 3.617").wait_for()


def test_a_message_appears_live_in_the_other_browser(
    asgi_server, new_context, browser_login, modules, make_user
):
    players, _ = campaign_at("sicily", "i", "jul15am", (make_user("a"), make_user("b")))
    axis, brit = _pages(asgi_server, new_context, browser_login, players)
    axis.locator("#message-text").fill("See you Sunday at 8? <b>bold</b>")
    axis.get_by_role("button", name="Send").click()
    brit.locator("#campaign-messages li", has_text="See you Sunday at 8?").wait_for()
    assert "<b>bold</b>" in brit.locator("#campaign-messages").inner_text()  # shown as text
    expect(axis.locator("#message-text")).to_have_value("")  # the sent text is gone
    assert Event.objects.filter(kind="message").count() == 1
    empty = brit.get_by_role("button", name="Send")
    empty.click()  # an empty message: the browser's own check keeps it
    assert Event.objects.filter(kind="message").count() == 1


def apd_played(make_user, walk):
    """APD: the Morning scenario's result agreed (American 63 VP, 41 CVP lost), then
    ``walk`` on."""
    from tests.test_rule_mechanisms import result_values, start

    players, module = start(
        "pleasant-diversion", "cg", (make_user("am"), make_user("ge")), "american"
    )
    players.results(**result_values(module, vp_american=63, cvp_lost_american=41))
    walk(players)
    return players


def melee_cvp_amended(asgi_server, new_context, browser_login, players):
    """Both pages live; the American proposes the 4 CVP of the Clean-Up melee (45
    lost), the German accepts; returns the pages."""
    pages = live_pages(asgi_server, new_context, browser_login, players)
    am, ge = pages["american"], pages["german"]
    am.locator("#amend summary").click()
    am.locator("#amend-cvp_lost\\.american").fill("45")
    am.locator("#amend-reason").fill("4 CVP lost in the Clean-Up melee (2.1)")
    am.get_by_role("button", name="Propose the amendment").click()
    ge.get_by_role("button", name="Accept the amendment").click()
    return am, ge


def test_an_amended_result_is_proposed_and_accepted_live(
    asgi_server, new_context, browser_login, modules, make_user
):
    """APD 2.: "CVP are recorded normally throughout this phase": during the Clean-Up
    the American adds the 4 CVP its melee cost; the German, live, accepts; 2.92 reads
    the amended total (55 - 63 + 45 = 37 PP)."""
    players = apd_played(make_user, lambda p: p.until_step("2.1"))
    am, ge = melee_cvp_amended(asgi_server, new_context, browser_login, players)
    ge.locator("#campaign-log", has_text="The result is amended").wait_for()
    players.until("purchase")
    assert Seat.objects.get(campaign_id=players.campaign_id, side="american").points == 37


# Where the RG's row is on the screen: what the player sees stays put, the page and the
# chart's own scrolling box alike (lines added above it are compensated by the
# browser's scroll anchoring, which moves scrollY instead).
ON_SCREEN = "() => Math.round(document.getElementById('rg-M2').getBoundingClientRect().top)"


@pytest.mark.parametrize("width", WIDTHS)
def test_a_buy_keeps_the_page_in_place_and_a_refusal_shows_where_clicked(
    asgi_server, new_context, browser_login, modules, make_user, width
):
    """Issue 47: after a buy (its answer and its push) the page has not moved; a price
    the rules refuse (3.617: Date Max reached) says why beside the click."""
    players, _ = campaign_at("sicily", "i", "jul15am", (make_user("a"), make_user("b")))
    brit = _page(asgi_server, new_context, browser_login, players, "british", WIDTHS[width])
    price = brit.get_by_role("button", name="Buy M2 Recon for 1 CPP", exact=True)
    price.scroll_into_view_if_needed()
    brit.evaluate("() => window.scrollBy(0, 120)")
    assert brit.evaluate("() => window.scrollY") > 0
    price.hover()  # where the click will be: Playwright scrolls a button into view first
    before = brit.evaluate(ON_SCREEN)
    price.click()
    brit.locator(".purchases li", has_text="Recon").first.wait_for()
    brit.wait_for_timeout(800)  # the change's second frame (the log) is in by now
    assert abs(brit.evaluate(ON_SCREEN) - before) <= 2
    # The second Recon of the date is bought in another tab whose push this page
    # misses: this page still offers the price, and the click is refused beside it.
    held = []
    brit.route_web_socket("**/ws/campaigns/**", lambda ws: _holding(ws, held))
    brit.reload()
    brit.locator("body[data-live]").wait_for(state="attached")
    held.append(True)
    purchases.purchase_rg(
        campaign_id=players.campaign_id, user=players.users["british"], group_id="M2"
    )
    price.hover()
    before = brit.evaluate(ON_SCREEN)
    price.click()
    refusal = brit.locator("#rg-M2 .refusal")
    refusal.wait_for()
    assert "3.617" in refusal.inner_text(), refusal.inner_text()
    assert abs(brit.evaluate(ON_SCREEN) - before) <= 2
    assert Purchase.objects.filter(campaign_id=players.campaign_id, group_id="M2").count() == 2


def _holding(ws, held):
    """A page's socket whose pushes from the server stop once ``held`` is set."""
    server = ws.connect_to_server()
    server.on_message(lambda message: None if held else ws.send(message))


def test_conceding_asks_first_and_ends_the_cg_for_both(
    asgi_server, new_context, browser_login, modules, make_user
):
    """A side may concede (PHD C2.0: "TM End ... if one side concedes"): behind a fold
    and a confirmation; dismissed, nothing happens; accepted, both pages show the CG
    ended with the opponent the winner."""
    players, _ = campaign_at("sicily", "i", "jul15am", (make_user("a"), make_user("b")))
    axis, brit = _pages(asgi_server, new_context, browser_login, players)
    axis.locator("#concede-fold > summary").click()
    button = axis.get_by_role("button", name="I concede: my opponent wins the CG")
    axis.once("dialog", lambda d: d.dismiss())
    button.click()
    axis.wait_for_timeout(500)
    assert players.campaign.ended_at is None
    axis.once("dialog", lambda d: d.accept())
    button.click()
    for page in (axis, brit):
        page.locator("#campaign-log", has_text="Axis concedes the CG: British wins.").wait_for()


def test_a_done_the_opponent_acted_on_is_taken_back_by_consent(
    asgi_server, new_context, browser_login, modules, make_user
):
    """3.617 July 15 AM: the Axis presses Done; the British then records a unit (he
    has acted on it): the Axis asks to take its Done back, the British page says his
    answer is awaited, he accepts, and the Axis page offers Done again — live."""
    from campaign.services import units

    players, _ = campaign_at("sicily", "i", "jul15am", (make_user("a"), make_user("b")))
    axis, brit = _pages(asgi_server, new_context, browser_login, players)
    axis.on("dialog", lambda d: d.accept())  # Done names what it gives up: accepted
    axis.get_by_role("button", name="Done with 3.617", exact=True).click()
    axis.get_by_role("button", name="Take back my Done at 3.617").wait_for()
    units.add_unit(campaign_id=players.campaign_id, user=players.users["british"], name="8-1")
    # (made here, past the browsers: on the embedded backend its push stays in this
    # process) the Axis page as it is now:
    axis.reload()
    axis.locator("body[data-live]").wait_for(state="attached")
    ask = axis.get_by_role("button", name="Ask to take back my Done at 3.617")
    ask.click()
    axis.get_by_role("button", name="Withdraw my request").wait_for()
    header = brit.locator("#campaign-header")
    expect(header).to_contain_text("Your answer is awaited: Axis's request to take back its Done")
    brit.get_by_role("button", name="Accept the takeback").click()
    axis.get_by_role("button", name="Done with 3.617", exact=True).wait_for()
    assert done_here(players) == set()
    for page in (axis, brit):
        page.locator(
            "#campaign-log", has_text="British accepts: Axis takes back its Done at 3.617"
        ).wait_for()
    expect(header).not_to_contain_text("Your answer is awaited")


def test_the_early_done_at_the_start_requisition_says_what_is_missing(
    asgi_server, new_context, browser_login, modules, make_user
):
    """3.51's CPP for the Initial Scenario are not in the rules text: at the start's
    purchase step (I-3.617) the page offers no Done, says what is missing, and going on
    without it asks first; dismissed, nothing happened."""
    from tests.walk import host_game, players_of

    a, b = make_user("a"), make_user("b")
    players = players_of(host_game("sicily", "i", a, b, through_start=False), a, b)
    axis = _page(asgi_server, new_context, browser_login, players, "axis")
    lacking = axis.locator("#finish-lacking")
    expect(lacking).to_contain_text("Nothing can be bought at I-3.617 yet")
    expect(axis.get_by_role("button", name="Done with I-3.617", exact=True)).to_have_count(0)
    said = []

    def dismiss(dialog):
        said.append(dialog.message)
        dialog.dismiss()

    axis.once("dialog", dismiss)
    axis.get_by_role("button", name="Go on without it", exact=True).click()
    axis.wait_for_timeout(500)
    assert said and "You buy nothing at I-3.617" in said[0]
    assert done_here(players) == set()


def test_the_header_before_the_opponent_joins_and_a_nudge_once_a_day(
    asgi_server, new_context, browser_login, modules, make_user
):
    """The header says the campaign waits for the opponent to join (not "both of
    you"); once he has joined, live, it says what it waits for.  The waiting player
    reminds him once; a second reminder the same day is refused beside the button."""
    from campaign.services import hosting

    a, b = make_user("a"), make_user("b")
    c = hosting.create_campaign(
        host=a, module_id="sicily", variant_id="i", side="axis", name="x", reveal_policy="owner"
    )
    page = browser_login(new_context(), a).new_page()
    page.goto(f"{asgi_server.url}/campaigns/{c.pk}/")
    page.locator("body[data-live]").wait_for(state="attached")
    waiting = page.locator("#campaign-header .waiting-for")
    expect(waiting).to_contain_text("your opponent to join")
    assert "both of you" not in waiting.inner_text()
    guest = browser_login(new_context(), b).new_page()
    guest.goto(f"{asgi_server.url}/join/{c.invitations.get().token}/")
    guest.get_by_role("button", name="Take the British side").click()
    guest.wait_for_url(f"**/campaigns/{c.pk}/")
    expect(waiting).not_to_contain_text("to join")
    expect(waiting).to_contain_text("both of you")
    page.once("dialog", lambda d: d.accept())
    page.get_by_role("button", name="Go on without it", exact=True).click()
    expect(waiting).to_contain_text("your opponent")
    remind = page.get_by_role("button", name="Remind your opponent")
    remind.click()
    page.locator("#campaign-log", has_text="Axis reminds British").wait_for()
    page.get_by_role("button", name="Remind your opponent").click()
    refusal = page.locator("#campaign-header .refusal")
    expect(refusal).to_contain_text("one reminder a day per campaign")
    assert Event.objects.filter(campaign_id=c.pk, kind="nudge").count() == 1


def test_an_amended_result_recomputes_the_purchase_points_live(
    asgi_server, new_context, browser_login, modules, make_user
):
    """APD 2.92 EX: 55 - 63 + 41 CVP = 33 PP, computed; then the American proposes the
    4 CVP of the melee forgotten, the German accepts, and the American's page shows
    37 PP and the recomputation in its log, live."""
    players = apd_played(make_user, lambda p: p.until("purchase"))
    assert Seat.objects.get(campaign_id=players.campaign_id, side="american").points == 33
    am, ge = melee_cvp_amended(asgi_server, new_context, browser_login, players)
    am.locator("#campaign-log", has_text="recomputed from the amended result: 33 → 37").wait_for()
    ge.locator("#campaign-log", has_text="PP of 2.92 Purchase Points are recomputed").wait_for()
    assert "33 → 37" not in ge.locator("#campaign-log").inner_text()
    assert Seat.objects.get(campaign_id=players.campaign_id, side="american").points == 37


def test_a_rolls_write_back_is_corrected_by_consent_live(
    asgi_server, new_context, browser_login, modules, make_user, monkeypatch
):
    """APD 3.31: the American's 57L AT rolls a 6 on its Repair dr and is removed; he
    meant the roll for another Gun.  The dice stand; he proposes the Gun's line as it
    should be; the German's header and My campaigns say his answer is awaited; he
    accepts, and the Gun is back on the American's retained forces — live on both
    pages, logged for both."""
    import rules.dice
    from tests.test_rule_mechanisms import add, apd_at, roll

    real = rules.dice.faces
    sixes = [[6]]
    monkeypatch.setattr(
        rules.dice, "faces", lambda *a, **k: list(sixes.pop()) if sixes else real(*a, **k)
    )
    players, _ = apd_at((make_user("am"), make_user("ge")), "3.3")
    gun = add(players, "american", "57L AT", "gun", "malfunctioned")
    roll(players, "american", "repair_ma_gun", gun)
    assert not Unit.objects.filter(campaign_id=players.campaign_id, ref=gun.ref).exists()
    pages = live_pages(asgi_server, new_context, browser_login, players)
    am, ge = pages["american"], pages["german"]
    fold = am.locator(f"#correct-{gun.ref}")
    fold.locator("summary").click()
    expect(fold.locator("input[name=name]")).to_have_value("57L AT")
    fold.locator("select[name=kind]").select_option("gun")
    fold.locator(f"#correct-marker-{gun.ref}-malfunctioned").check()
    fold.get_by_label("The unit should be gone from the retained forces").uncheck()
    fold.get_by_label("Why", exact=True).fill("I meant the roll for the other Gun")
    fold.get_by_role("button", name="Propose the correction").click()
    am.get_by_role("button", name="Withdraw my correction").wait_for()
    expect(ge.locator("#campaign-header")).to_contain_text(
        "Your answer is awaited: the correction of American's"
    )
    mine = browser_login(new_context(), players.users["german"]).new_page()
    mine.goto(f"{asgi_server.url}/campaigns/")
    expect(mine.locator(".answer-awaited")).to_have_count(1)
    ge.get_by_role("button", name="Accept the correction").click()
    for page in (am, ge):
        page.locator("#campaign-log", has_text="German accepts American's correction").wait_for()
    expect(ge.locator("#campaign-header")).not_to_contain_text("Your answer is awaited")
    back = Unit.objects.get(campaign_id=players.campaign_id, ref=gun.ref)
    assert (back.kind, back.markers) == ("gun", ["malfunctioned"])
    assert Roll.objects.get(campaign_id=players.campaign_id, table_id="repair_ma_gun").faces == [6]
