"""Issue 8: secret RG purchases under every limit of the module, their secret rolls,
cancel, reveal, fortifications and recon."""

import threading
from fractions import Fraction
from html.parser import HTMLParser
from typing import Any

import pytest
from django.db import connection

from campaign.models import Event, FortificationBuy, Purchase, ReconBuy, Roll, Seat
from campaign.services import purchases, steps
from campaign.services.errors import ActionRefused
from rules.purchase import cost_options, unavailable
from rules.snapshot import Bought
from tests.purchase_helpers import campaign_at, make_rolls

pytestmark = pytest.mark.django_db


@pytest.fixture
def users(make_user):
    return make_user("axis_player"), make_user("british_player")


def buy(players, side, group, variant=""):
    return purchases.purchase_rg(
        campaign_id=players.campaign_id,
        user=players.users[side],
        group_id=group,
        cost_variant=variant,
    )


def refused(players, side, group, match, variant=""):
    """The purchase is refused with ``match`` and changes nothing."""
    before = (
        list(Seat.objects.filter(campaign_id=players.campaign_id).values_list("points", flat=True)),
        Purchase.objects.count(),
        Event.objects.count(),
        players.campaign.step_index,
    )
    with pytest.raises(ActionRefused, match=match):
        buy(players, side, group, variant)
    after = (
        list(Seat.objects.filter(campaign_id=players.campaign_id).values_list("points", flat=True)),
        Purchase.objects.count(),
        Event.objects.count(),
        players.campaign.step_index,
    )
    assert before == after


def points(players, side):
    return Seat.objects.get(campaign_id=players.campaign_id, side=side).points


# ------------------------------------------------------------------ Sicily (seed 001)


def test_3_6175_reserve_costs_20_percent_less_frd_and_on_map_20_percent_more_fru(modules):
    from campaign.models import ModuleRecord
    from rules.registry import parse_module

    rec = ModuleRecord.objects.get(id="sicily")
    module = parse_module(rec.checksum, rec.data)
    i1 = next(g for g in module.chart("axis").groups if g.id == "I1")
    costs = {o.variant: o.cost for o in cost_options(module, "axis", i1)}
    assert costs == {"": 21, "reserve": 16, "on_map": 26}
    assert int(21 * Fraction(4, 5)) == 16  # the hand-worked arithmetic of the issue
    g1 = next(g for g in module.chart("axis").groups if g.id == "G1")
    assert {o.variant for o in cost_options(module, "axis", g1)} == {"", "reserve"}
    british_i1 = next(g for g in module.chart("british").groups if g.id == "I1")
    assert {o.variant for o in cost_options(module, "british", british_i1)} == {"", "on_map"}


def test_buying_spends_points_secretly(modules, users):
    """Rules: 3.617."""
    players, _ = campaign_at("sicily", "i", "jul14pm", users)
    p = buy(players, "axis", "I4", "reserve")  # 15 × 4/5 = 12
    assert p.cost == 12 and points(players, "axis") == 188
    event = Event.objects.get(kind="purchase")
    assert event.secret_side == "axis" and event.public_text == ""


def test_not_enough_points(modules, users):
    players, _ = campaign_at("sicily", "i", "jul14pm", users, points=14)
    refused(
        players,
        "axis",
        "I4",
        r"I4 Fallschirmjäger Signal Coy cannot be bought at 15 CPP"
        r".*not enough CPP \(15 needed, 14 left\)",
    )


def test_date_window_footnote_k(modules, users):
    """Rules: 3.6178."""
    players, _ = campaign_at("sicily", "i", "jul14pm", users)
    refused(players, "axis", "I1", r"not before July 14 Night \(3.617 Axis chart footnote k\)")


def test_date_window_footnote_l(modules, users):
    players, _ = campaign_at("sicily", "i", "jul14n", users)
    refused(players, "axis", "I4", r"not after July 14 PM \(3.617 Axis chart footnote l\)")


def test_date_maximum(modules, users):
    """Rules: 3.6176."""
    players, _ = campaign_at("sicily", "i", "jul14pm", users)
    buy(players, "axis", "I4")
    refused(players, "axis", "I4", r"the CG date maximum is reached \(1 of 1 on July 14 PM")


def test_coy_limit_two_per_cg_date_footnote_m(modules, users):
    players, _ = campaign_at("sicily", "i", "jul14pm", users)
    buy(players, "axis", "I4")
    buy(players, "axis", "I5")
    refused(
        players,
        "axis",
        "I5",
        r"no more than 2 per CG date \(July 14 PM\) \(3.617 Axis chart footnote m\)",
    )


def test_cg_maximum(modules, users):
    """Rules: 3.6177."""
    players, _ = campaign_at("sicily", "i", "jul14pm", users)
    buy(players, "axis", "F1")
    steps.finish_step(campaign_id=players.campaign_id, user=players.users["axis"])
    steps.finish_step(campaign_id=players.campaign_id, user=players.users["british"])
    players.until("initiative")
    players.chits(axis="idle", british="idle")
    players.until("purchase")
    refused(players, "axis", "F1", r"the CG maximum is reached \(1 of 1 bought in CG I")


def test_prerequisite_footnote_n_and_per_day_and_held_limits(modules):
    """Pure checks of the limits a short walk cannot reach.  Rules: 3.617."""
    from campaign.models import ModuleRecord
    from rules.registry import parse_module

    rec = ModuleRecord.objects.get(id="sicily")
    m = parse_module(rec.checksum, rec.data)
    axis = {g.id: g for g in m.chart("axis").groups}
    british = {g.id: g for g in m.chart("british").groups}
    jul14n, jul15am = 2, 3
    # n: I3 not until every I1 (3 in CG I, 2 in CG II) is bought.
    two_i1 = [Bought("I1", 2), Bought("I1", 3)]
    assert any(
        "not until 3 I1" in r
        for r in unavailable(
            m, variant="i", side="axis", group=axis["I3"], date_index=4, bought=two_i1
        )
    )
    assert not any(
        "not until" in r
        for r in unavailable(
            m, variant="ii", side="axis", group=axis["I3"], date_index=4, bought=two_i1
        )
    )
    # m: no more than 4 coy RG per calendar day (July 14 AM, PM and Night).
    four = [Bought("I5", 0), Bought("I4", 1), Bought("I5", 1), Bought("I1", jul14n)]
    reasons = unavailable(
        m, variant="i", side="axis", group=axis["I1"], date_index=jul14n, bought=four[:3]
    )
    assert not any("calendar day" in r for r in reasons)
    reasons = unavailable(
        m, variant="i", side="axis", group=axis["I1"], date_index=jul14n, bought=four
    )
    assert any("no more than 4 per calendar day (July 14)" in r for r in reasons)
    # e: no more than 1 O4 in a side's OB at a time.
    assert any(
        "no more than 1 in the OB at a time" in r
        for r in unavailable(
            m,
            variant="i",
            side="british",
            group=british["O4"],
            date_index=jul15am,
            bought=[Bought("O4", jul14n)],
        )
    )


def test_secret_rolls_strength_and_leader_with_automatic_drms(modules, users):
    """3.6181: a DR on the RG Strength Table, −1 for "G" and "V" RGs; 3.6183 leader dr."""
    players, module = campaign_at("sicily", "i", "jul14n", users)
    g = buy(players, "british", "V5")  # Daimler AC Pltn: a V RG
    i1 = buy(players, "british", "I1")
    make_rolls(players, "british", g)
    strength = Roll.objects.get(table_id="rg_strength")
    assert strength.secret and strength.side == "british"
    assert any(d["value"] == -1 and d["how"] == "auto" for d in strength.drms)
    assert g.strength == ("full" if strength.final <= 9 else "depleted")
    v5 = next(x for x in module.chart("british").groups if x.id == "V5")
    assert g.units == (v5.full if g.strength == "full" else v5.depleted)
    make_rolls(players, "british", i1)
    leader = Roll.objects.get(table_id="leader_allotment")
    assert leader.result.startswith("Personnel Leader: ")


def test_cancel_refunds_until_the_rolls_are_made(modules, users):
    players, _ = campaign_at("sicily", "i", "jul14pm", users)
    p = buy(players, "axis", "I4")
    purchases.cancel_purchase(
        campaign_id=players.campaign_id, user=players.users["axis"], purchase_id=p.ref
    )
    assert points(players, "axis") == 200
    p2 = buy(players, "axis", "I4")  # the cancelled one no longer counts
    # Its rolls wait for the strength step, once every RG is selected (3.6181) ...
    with pytest.raises(ActionRefused, match="secret rolls are made at 3.618"):
        purchases.roll_for_purchase(
            campaign_id=players.campaign_id, user=players.users["axis"], purchase_id=p2.ref
        )
    make_rolls(players, "axis", p2)
    # ... and a rolled RG is never cancelled.
    with pytest.raises(ActionRefused):
        purchases.cancel_purchase(
            campaign_id=players.campaign_id, user=players.users["axis"], purchase_id=p2.ref
        )


def test_no_cancel_after_finishing_the_step(modules, users):
    players, _ = campaign_at("sicily", "i", "jul14pm", users)
    p = buy(players, "axis", "I4")
    steps.finish_step(campaign_id=players.campaign_id, user=players.users["axis"])
    with pytest.raises(ActionRefused, match="already done"):
        purchases.cancel_purchase(
            campaign_id=players.campaign_id, user=players.users["axis"], purchase_id=p.ref
        )


def test_forged_or_foreign_purchase_ids(modules, users):
    players, _ = campaign_at("sicily", "i", "jul14pm", users)
    p = buy(players, "axis", "I4")
    for pid in (p.ref, p.pk, str(p.pk), "abc", 999999, None):
        with pytest.raises(ActionRefused) as exc:
            purchases.cancel_purchase(
                campaign_id=players.campaign_id, user=players.users["british"], purchase_id=pid
            )
        assert exc.value.status == 404
    assert Purchase.objects.get().status == "active"


def test_unknown_rg_and_unknown_price(modules, users):
    players, _ = campaign_at("sicily", "i", "jul14pm", users)
    refused(players, "axis", "Z9", "There is no RG 'Z9' on your chart")
    refused(players, "axis", "I4", "cannot be bought at that price", variant="on_sale")


def test_buying_out_of_turn(modules, users):
    players, _ = campaign_at("sicily", "i", "jul14pm", users, step="3.615")
    refused(players, "axis", "I4", r"not part of the current step \(3.615")


def test_unrolled_rgs_are_rolled_when_the_strength_step_ends(modules, users):
    players, _ = campaign_at("sicily", "i", "jul14pm", users)
    buy(players, "axis", "I4")
    players.until("strength")
    steps.finish_step(campaign_id=players.campaign_id, user=players.users["axis"])
    assert Purchase.objects.get().rolled_at is not None


def test_fortification_points_from_m3_then_fortifications_and_caps(modules, users):
    """M3 gives 20 FPP (3.617); Axis roadblocks ≤ 5 per CG (3.619f); unspent FPP are
    forfeit (3.619); AT mines are British-only and need airborne units (3.619d)."""
    players, _ = campaign_at("sicily", "i", "jul14pm", users)
    buy(players, "axis", "M3")
    buy(players, "axis", "M3")
    assert Seat.objects.get(campaign_id=players.campaign_id, side="axis").fortification_points == 40
    # The British hold FPP too (3.619 waits for both: FPP may come from a secret M3).
    Seat.objects.filter(campaign_id=players.campaign_id, side="british").update(
        fortification_points=20
    )
    players.until("fortify")
    axis = players.users["axis"]
    purchases.buy_fortification(
        campaign_id=players.campaign_id, user=axis, item_id="roadblock", count=3
    )
    with pytest.raises(
        ActionRefused, match=r"Roadblock cannot be bought: no more than 5 per CG .*3 bought so far"
    ):
        purchases.buy_fortification(
            campaign_id=players.campaign_id, user=axis, item_id="roadblock", count=3
        )
    with pytest.raises(ActionRefused, match="Axis cannot buy AT Mines"):
        purchases.buy_fortification(campaign_id=players.campaign_id, user=axis, item_id="at_mines")
    with pytest.raises(ActionRefused, match="not enough FPP"):
        purchases.buy_fortification(
            campaign_id=players.campaign_id, user=axis, item_id="trench", count=2
        )
    with pytest.raises(ActionRefused, match=r"AT Mines cannot be bought: only with one of I2, I4"):
        purchases.buy_fortification(
            campaign_id=players.campaign_id, user=players.users["british"], item_id="at_mines"
        )
    steps.finish_step(campaign_id=players.campaign_id, user=axis)
    assert Seat.objects.get(campaign_id=players.campaign_id, side="axis").fortification_points == 0
    assert Event.objects.filter(kind="forfeit", text__contains="forfeits 10 unspent FPP").exists()
    assert FortificationBuy.objects.get().count == 3


def test_recon_is_the_m2_rg_bought_then_rolled_once_at_3_620(modules, users):
    """3.620 and chart footnote r: an M2 Recon RG costs 1 CPP, or 2 for a +5 drm on its
    Recon dr; Date Max 2; each one bought is rolled once at 3.620, secretly."""
    players, _ = campaign_at("sicily", "i", "jul14n", users)
    cid, axis = players.campaign_id, players.users["axis"]
    plus5 = purchases.purchase_rg(
        campaign_id=cid, user=axis, group_id="M2", cost_variant="recon_plus5"
    )
    purchases.purchase_rg(campaign_id=cid, user=axis, group_id="M2")
    assert points(players, "axis") == 197
    with pytest.raises(ActionRefused, match="M2"):
        purchases.purchase_rg(campaign_id=cid, user=axis, group_id="M2")  # Date Max 2
    players.until("recon")
    r = purchases.buy_recon(campaign_id=cid, user=axis, purchase_id=plus5.ref)
    roll = Roll.objects.get(purpose__startswith="Recon")
    assert r.locations == roll.faces[0] + 5 and roll.secret
    assert points(players, "axis") == 197  # paid at the purchase step
    with pytest.raises(ActionRefused, match="awaits its Recon dr"):
        purchases.buy_recon(campaign_id=cid, user=axis, purchase_id=plus5.ref)
    assert ReconBuy.objects.count() == 1


# ------------------------------------------------------------------ reveal and secrecy


def secret_texts(purchase):
    return [purchase.group_type, f"purchase-{purchase.ref}", f"record-{purchase.ref}"]


def opponent_sees(login, user, campaign_id) -> str:
    client = login(user)
    return "".join(
        client.get(path.format(id=campaign_id)).content.decode()
        for path in ("/campaigns/{id}/", "/campaigns/{id}/state.json", "/campaigns/{id}/dice/")
    )


def test_purchases_are_secret_until_both_finish_the_step(modules, users, login):
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    p = buy(players, "british", "V6")  # AC Pltn II: the Axis chart has no such RG
    seen = opponent_sees(login, players.users["axis"], players.campaign_id)
    for text in secret_texts(p):
        assert text not in seen
    assert "CPP: 95" not in seen and '"points": 95' not in seen  # points left
    # The British player sees it all.
    own = opponent_sees(login, players.users["british"], players.campaign_id)
    assert p.group_type in own
    # Both finish the purchase step: revealed (policy "step_end").
    for side in ("axis", "british"):
        steps.finish_step(campaign_id=players.campaign_id, user=players.users[side])
    seen = opponent_sees(login, players.users["axis"], players.campaign_id)
    assert p.group_type in seen


def test_owner_policy_keeps_secret_until_the_owner_reveals_one(modules, users, login):
    players, _ = campaign_at("sicily", "i", "jul14n", users, policy="owner")
    a = buy(players, "british", "V6")  # AC Pltn II
    b = buy(players, "british", "V5")  # AC Pltn I
    for side in ("axis", "british"):
        steps.finish_step(campaign_id=players.campaign_id, user=players.users[side])
    seen = opponent_sees(login, players.users["axis"], players.campaign_id)
    assert f"record-{a.ref}" not in seen and f"record-{b.ref}" not in seen
    purchases.reveal_purchase(
        campaign_id=players.campaign_id, user=players.users["british"], purchase_id=a.ref
    )
    seen = opponent_sees(login, players.users["axis"], players.campaign_id)
    assert f"record-{a.ref}" in seen and a.group_type in seen and f"record-{b.ref}" not in seen


# ------------------------------------------------------------------ concurrency


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_fifty_simultaneous_purchases_never_overspend_or_pass_a_maximum(modules, users):
    players, module = campaign_at("sicily", "i", "jul14n", users, points=60)
    british = players.users["british"]
    groups = ["I1", "M1", "V5", "G3", "O4"] * 10  # 18 (max 2/date), 3, 4 (max 3), 6, 1
    barrier = threading.Barrier(len(groups))
    outcomes = []

    def attempt(group, barrier=barrier, outcomes=outcomes):
        try:
            barrier.wait(timeout=20)
            purchases.purchase_rg(campaign_id=players.campaign_id, user=british, group_id=group)
            outcomes.append("ok")
        except ActionRefused as exc:
            outcomes.append(exc.message)
        finally:
            connection.close()

    threads = [threading.Thread(target=attempt, args=(g,)) for g in groups]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(outcomes) == 50
    seat = Seat.objects.get(campaign_id=players.campaign_id, side="british")
    bought = Purchase.objects.filter(campaign_id=players.campaign_id, status="active")
    assert seat.points >= 0
    assert seat.points + sum(p.cost for p in bought) == 60
    assert outcomes.count("ok") == bought.count()
    chart = {g.id: g for g in module.chart("british").groups}
    for gid in set(groups):
        n = bought.filter(group_id=gid).count()
        assert n <= chart[gid].date_max and n <= chart[gid].cg_max["i"]


# ------------------------------------------------------------------ Purple Heart Draw (seed 000)


def test_c5_35_dsp_fortifications_from_the_initial_ob(modules, users):
    """C4.2: the German starts with 60 DSP; before the Initial TM Scenario, C5.35
    fortifications are bought with them; unspent DSP are forfeit when the step ends."""
    from campaign.models import Seat as S
    from tests.walk import host_game, players_of

    german, us = users
    c = host_game("purple-heart-draw", "tm", german, us, side="german", through_start=False)
    players = players_of(c, german, us)
    players.until_step("I-C5.35")
    assert S.objects.get(campaign_id=players.campaign_id, side="german").fortification_points == 60
    purchases.buy_fortification(
        campaign_id=players.campaign_id, user=german, item_id="booby_traps", location="O4"
    )
    with pytest.raises(
        ActionRefused,
        match=r"2 × Booby Traps cannot be bought: not enough DSP \(60 needed, 30 left\)",
    ):
        purchases.buy_fortification(
            campaign_id=players.campaign_id, user=german, item_id="booby_traps", count=2
        )
    steps.finish_step(campaign_id=players.campaign_id, user=german)
    assert S.objects.get(campaign_id=players.campaign_id, side="german").fortification_points == 0


def test_c5_31_a_missing_rg_chart_refuses_plainly(modules, users):
    players, _ = campaign_at("purple-heart-draw", "tm", "t0930", users)
    refused(
        players,
        "us",
        "I1",
        r"The printed rules leave out the American RG chart \(C5.31\): supply it and have "
        "your opponent accept it",
    )


def test_c5_36_recon_costs_one_tp_or_two_for_plus_five(modules, users):
    players, _ = campaign_at("purple-heart-draw", "tm", "t0930", users, kind="recon", points=1)
    us = players.users["us"]
    with pytest.raises(
        ActionRefused, match="Recon cannot be bought: not enough TP \\(2 needed, 1 left; C5\\.36\\)"
    ):
        purchases.buy_recon(campaign_id=players.campaign_id, user=us, option=1)
    r = purchases.buy_recon(campaign_id=players.campaign_id, user=us, option=0)
    assert r.cost == 1 and points(players, "us") == 0


def test_3_4_pleasant_diversion_purchase_needs_the_host_supplied_table(modules, users):
    players, _ = campaign_at("pleasant-diversion", "cg", "dec6midday", users)
    refused(players, "american", "A1", r"The printed rules leave out the American RG chart")


def buy_from_the_page(client, url: str, html: str, group: str) -> None:
    """Buy ``group`` with the CSRF token and the stale-form stamp of the page ``html``
    (its form, as the browser posts it)."""
    import re

    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)[1]
    at = re.search(r'name="at" value="([^"]+)"', html)[1]
    bought = client.post(
        url + "act/buy/",
        {"csrfmiddlewaretoken": token, "group": group, "variant": "", "at": at},
        headers={"HX-Request": "true", "X-Refit-Page": "campaign"},
    )
    assert bought.status_code == 200, bought.content[:300]


def test_a_campaign_page_renders_its_parts_once_per_seat_revision(modules, users):
    """The campaign page's parts that show only what the seat's revision stands for
    (``fragments.MEMOISED_PARTS``) are rendered once per revision: a reload renders none
    of them again, nor does the opponent's secret purchase (his seat alone takes a new
    revision), yet every page has a CSRF token of its own that works, and the seat's
    own purchase shows at once on the next load."""
    import re

    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from campaign.fragments import CAMPAIGN_MEMO, MEMOISED_PARTS, PartMemo, campaign_fragments
    from campaign.seat_views.campaign_page import campaign_view

    players, _ = campaign_at("sicily", "i", "jul14n", users)
    client = Client(enforce_csrf_checks=True)
    client.force_login(players.users["axis"])
    url = f"/campaigns/{players.campaign_id}/"

    def load():
        with CaptureQueriesContext(connection) as ctx:
            html = client.get(url).content.decode()
        return html, len(ctx.captured_queries)

    def same(html):
        return re.sub(r'(csrfmiddlewaretoken" value="|"X-CSRFToken": ")[^"]+', "", html)

    CAMPAIGN_MEMO.clear()
    first, read = load()
    assert len(CAMPAIGN_MEMO) == len(MEMOISED_PARTS)
    # The page's socket (connecting, or a push) shares the page's renders: each part
    # out of band, with the same fingerprint.
    axis = players.users["axis"]
    frames = campaign_fragments(
        campaign_view(axis, players.campaign_id), MEMOISED_PARTS, user=axis, origin=""
    )
    assert len(CAMPAIGN_MEMO) == len(MEMOISED_PARTS)
    for part, html in frames:
        root = re.match(r"<section [^>]*>", html)[0]
        assert f'data-part="{part}"' in root and 'hx-swap-oob="true"' in root
        fp = re.search(r'data-fp="([0-9a-f]{8})"', root)[1]
        assert f'data-part="{part}" data-fp="{fp}"' in first
    again, reread = load()
    assert same(again) == same(first) and reread < read
    buy(players, "british", "I1")  # the opponent's secret: nothing to render again
    again, _ = load()
    assert same(again) == same(first) and len(CAMPAIGN_MEMO) == len(MEMOISED_PARTS)
    assert PartMemo.TOKEN not in first + again
    group = re.search(r'name="group" value="([^"]+)"', again)[1]
    buy_from_the_page(client, url, again, group)
    after, _ = load()
    assert after.count('id="purchase-') == first.count('id="purchase-') + 1


def test_a_page_reloaded_unchanged_is_served_whole_with_a_token_and_messages_of_its_own(
    modules, users
):
    """A campaign or roster page reloaded at the same seat revision is served from one
    render (``views.pages.PAGE_MEMO``), yet each answer has a CSRF token of its own
    that works and a one-time message is shown (the page rendered afresh, then
    served whole again); another player's page is his own."""
    import re

    from django.test import Client

    from campaign.views.pages import PAGE_MEMO

    players, _ = campaign_at("sicily", "i", "jul14n", users)
    axis = Client(enforce_csrf_checks=True)
    axis.force_login(players.users["axis"])
    url = f"/campaigns/{players.campaign_id}/"
    PAGE_MEMO.clear()
    pages = [axis.get(url + path).content.decode() for path in ("", "roster/", "", "roster/")]
    assert len(PAGE_MEMO) == 2
    tokens = [re.search(r'"X-CSRFToken": "([^"]+)"', page)[1] for page in pages]
    assert len(set(tokens)) == 4  # each answer its own (masked) token
    assert re.sub(r'"X-CSRFToken": "[^"]+"', "", pages[0]).count("csrfmiddlewaretoken") > 0
    # A message waits (the settings saved, their page not shown yet): it is shown once.
    saved = axis.post(
        "/settings/",
        {"csrfmiddlewaretoken": tokens[2], "email": "", "frequency": "off"},
    )
    assert saved.status_code == 302
    shown = axis.get(url).content.decode()
    assert "Your notification settings are saved." in shown
    assert "Your notification settings are saved." not in axis.get(url).content.decode()
    british = Client()
    british.force_login(players.users["british"])
    theirs = british.get(url).content.decode()
    assert 'class="me" data-side="british"' in theirs
    assert 'class="me" data-side="axis"' in pages[2]
    assert len(PAGE_MEMO) == 3
    group = re.search(r'name="group" value="([^"]+)"', pages[2])[1]
    buy_from_the_page(axis, url, pages[2], group)


def test_unchanged_tables_are_rendered_once_and_a_purchase_shows_at_once(modules, users):
    """The purchase step's RG chart, the seat's own RGs and the RG Purchase Records
    are rendered once while unchanged (``fragments.TABLE_MEMO``): a reload or the
    opponent's secret purchase renders none again, yet every page carries a CSRF token
    of its own that works, and a purchase shows in the next chart, list and record.
    The chart and the record rendered again after the purchase render only the rows
    that changed (``fragments.TABLE_ROWS``)."""
    import re

    from django.test import Client

    from campaign.fragments import TABLE_MEMO, TABLE_ROWS, PartMemo, per_render_removed

    players, _ = campaign_at("sicily", "i", "jul14n", users)
    client = Client(enforce_csrf_checks=True)
    client.force_login(players.users["axis"])
    url = f"/campaigns/{players.campaign_id}/"
    TABLE_MEMO.clear()
    TABLE_ROWS.clear()
    first = client.get(url).content.decode()
    assert len(TABLE_MEMO) == 3  # this seat's chart, own RGs and record
    # The chart's rows and the record's lines, CSRF tokens aside (they differ per page).
    rows = re.compile(r'<tr[^>]*id="(?:rg|record)-[^"]+"[^>]*>.*?</tr>', re.S)

    def shown(page: str) -> set[str]:
        return set(rows.findall(per_render_removed(page)))

    assert len(TABLE_ROWS) == len(shown(first)) > 10
    group = re.search(r'name="group" value="([^"]+)"', first)[1]  # the first one buyable
    buy(players, "british", "I1")  # the opponent's purchase: the Axis chart is the same
    again = client.get(url).content.decode()
    assert len(TABLE_MEMO) == 3
    assert PartMemo.TOKEN not in first + again
    before = points(players, "axis")
    buy_from_the_page(client, url, again, group)
    assert points(players, "axis") < before
    assert len(TABLE_MEMO) == 6  # the answer's parts: all three after the purchase
    after = client.get(url).content.decode()
    assert len(TABLE_MEMO) == 6
    changed = shown(after) - shown(first)
    assert 2 <= len(changed) < len(shown(after))  # the RG's chart row and record line at least
    assert len(TABLE_ROWS) == len(shown(first)) + len(changed)
    row = rf'<tr[^>]*id="rg-{group}">.*?</tr>'
    assert re.search(row, after, re.S)[0] != re.search(row, first, re.S)[0]
    assert after.count('id="record-') == first.count('id="record-') + 1
    assert after.count('id="purchase-') == first.count('id="purchase-') + 1


class _PageForms(HTMLParser):
    """A page's forms and submit buttons as a browser sees them: each form's action and
    fields, each button with the form it submits (its ``form`` attribute, else the
    form around it)."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: dict[str, dict[str, Any]] = {}
        self.buttons: list[dict[str, Any]] = []
        self.open: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form":
            key = a.get("id") or f"#{len(self.forms)}"
            self.forms[key] = {"action": a["action"], "fields": []}
            self.open.append(key)
        elif tag == "input" and self.open and a.get("name"):
            self.forms[self.open[-1]]["fields"].append((a["name"], a.get("value", "")))
        elif tag == "button":
            a["owner"] = a.get("form") or (self.open[-1] if self.open else None)
            self.buttons.append(a)

    def handle_endtag(self, tag: str) -> None:
        if tag == "form" and self.open:
            self.open.pop()


def test_a_chart_price_is_one_button_that_posts_its_column_form_without_javascript(modules, users):
    """The RG chart's prices are buttons of one form per price column (their ``form``
    attribute): a cell holds no form of its own, and a button posts, as a browser
    without JavaScript does, its column's form (CSRF token, stale-form stamp, cost
    variant) with its RG.  The chart's notes are written once, below it, each row
    naming its notes' letters."""
    from django.test import Client

    players, _ = campaign_at("sicily", "i", "jul14pm", users)
    client = Client(enforce_csrf_checks=True)
    client.force_login(players.users["axis"])
    url = f"/campaigns/{players.campaign_id}/"
    page = client.get(url).content.decode()
    table = page[page.index('<table class="list chart">') : page.index("</table>")]
    assert "<form" not in table and "<input" not in table
    forms = _PageForms()
    forms.feed(page)
    columns = [key for key in forms.forms if key.startswith("buy-col-")]
    assert len(columns) == table.count('class="price-col"') >= 2  # printed, Reserve, ...
    prices = [b for b in forms.buttons if b.get("aria-label", "").startswith("Buy ")]
    assert prices and all(b["owner"] in columns and b["name"] == "group" for b in prices)
    reserve = next(
        b for b in prices if b["aria-label"].startswith("Buy I4 ") and "Reserve" in b["aria-label"]
    )
    form = forms.forms[reserve["owner"]]
    before = points(players, "axis")
    posted = client.post(form["action"], dict([*form["fields"], ("group", reserve["value"])]))
    assert posted.status_code in (302, 303), posted.content[:300]
    bought = Purchase.objects.get(campaign_id=players.campaign_id, side="axis", group_id="I4")
    assert bought.cost_variant == "reserve"
    cost = int(reserve["aria-label"].split(" for ")[1].split()[0])
    assert before - points(players, "axis") == cost == bought.cost
    # The notes: once each, after the table; the row names the letters.
    assert page.count("b: SW and Leader types") == 1
    assert page.index("b: SW and Leader types") > page.index("</table>")
    assert 'aria-label="chart notes b c l m"' in page


def test_your_dice_show_beside_your_rgs_results(modules, users, login):
    """Issue 47: a purchase's secret strength roll shows its dice and DRMs where the
    player rolled, beside the result; the opponent sees none of it."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, policy="owner")
    p = buy(players, "british", "I1")
    make_rolls(players, "british", p)
    roll = Roll.objects.filter(purpose="RG Strength").get()
    faces = "+".join(str(f) for f in roll.faces)
    mine = login(players.users["british"]).get(f"/campaigns/{players.campaign_id}/")
    assert f"RG Strength: {roll.result} (DR {faces}" in mine.content.decode()
    theirs = login(players.users["axis"]).get(f"/campaigns/{players.campaign_id}/")
    assert "RG Strength: " not in theirs.content.decode()
