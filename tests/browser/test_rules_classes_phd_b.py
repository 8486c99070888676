"""Issue 44 in real Chromium, Purple Heart Draw C5.25-C5.41: class 2, an option only a
footnote offers, now offered where the player acts (RG footnote p's Pre-Registered
hexes, note 4's Pillbox priced by a formula)."""

import pytest

from campaign.models import FortificationBuy, Purchase, Seat
from tests.test_phd_conph_late import OBA_P
from tests.test_rule_mechanisms import phd_with_chart
from tests.walk import host_game, players_of

# The rules on screen: run once, on PostgreSQL + Redis (the embedded run leaves them out).
pytestmark = [pytest.mark.browser, pytest.mark.rules, pytest.mark.django_db(transaction=True)]

GREN = {"id": "I1", "type": "Gren Pl", "units": "4-6-7", "unit_kind": "squad", "cost": "4"}


def test_class_2_c5_31_footnote_p_pre_registered_hexes_are_offered_on_the_rg_chart(
    asgi_server, new_context, browser_login, modules, make_user
):
    """C5.31 RG footnote p ("Two additional TPs per pre-Registered hex (C1.73) purchased
    with a module ... a limit of two Pre-Registered hexes per OBA module"): the German's
    RG chart offers the OBA module marked p at 6 TP, with one Pre-Registered hex at 8
    and with two at 10 (no third), the Gren Pl none of them; bought with two, its record
    line says so and 10 TP are spent."""
    users = (make_user("german_p"), make_user("us_p"))
    players, c = phd_with_chart(users, [OBA_P, GREN])
    german = browser_login(new_context(), users[0]).new_page()
    german.goto(f"{asgi_server.url}/campaigns/{c.pk}/")
    german.locator("#step-title", has_text="C5.31").wait_for()
    chart = german.locator("table.chart")
    assert "+1 Pre-Reg hex" in chart.inner_text() and "+2 Pre-Reg hexes" in chart.inner_text()
    oba = german.locator("#rg-O1")
    prices = [b.inner_text() for b in oba.get_by_role("button").all()]
    assert prices == ["6", "8", "10"]
    assert german.locator("#rg-I1").get_by_role("button", name="Pre-Registered").count() == 0
    oba.get_by_role(
        "button", name="Buy O1 105mm OBA Module for 10 TP, With 2 Pre-Registered hexes (+4 TP)"
    ).click()
    german.locator(".purchases li", has_text="105mm OBA Module").wait_for()
    german.locator("#campaign-record tr", has_text="With 2 Pre-Registered hexes").wait_for()
    assert "You have 10 TP" in german.locator("p.points").inner_text()
    bought = Purchase.objects.get(campaign=c, group_id="O1")
    assert (bought.cost, bought.cost_variant) == (10, "prereg2")
    assert Seat.objects.get(campaign=c, side="german").points == 10


def test_class_2_c5_35_note_4_a_pillbox_is_priced_by_its_counters_figures(
    asgi_server, new_context, browser_login, modules, make_user
):
    """C5.35 note 4 ("Add the Capacity, the CA DRM, and the NCA DRM together to
    determine the DSP cost"): the German's Fortification Table offers the Pillbox with
    its three figures to give; a 1+5+7 Pillbox costs 13 of his 60 DSP, and the line of
    what he bought names it."""
    a, b = make_user("german_f"), make_user("us_f")
    c = host_game("purple-heart-draw", "tm", a, b, side="german", through_start=False)
    players_of(c, a, b).until_step("I-C5.35")
    german = browser_login(new_context(), a).new_page()
    german.goto(f"{asgi_server.url}/campaigns/{c.pk}/")
    german.locator("#step-title", has_text="C5.35").wait_for()
    row = german.locator("#fort-pillbox")
    assert "Capacity + CA DRM + NCA DRM" in row.inner_text()
    for label, value in (("Capacity", "1"), ("CA DRM", "5"), ("NCA DRM", "7")):
        row.get_by_label(label, exact=True).fill(value)
    row.get_by_label("Where").fill("K5")
    row.get_by_role("button", name="Buy").click()
    german.locator(
        "li", has_text="1 × Pillbox (Capacity 1 + CA DRM 5 + NCA DRM 7) (13 DSP) at K5"
    ).wait_for()
    assert "You have 47 DSP" in german.locator("p.points").inner_text()
    assert FortificationBuy.objects.get(campaign=c).cost == 13
