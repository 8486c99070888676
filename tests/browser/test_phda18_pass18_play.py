"""Issue 44, pass 18, Purple Heart Draw in two browsers: C5.21 "All retained same-class
HS with the same strength factors ... must recombine ... [EXC: A HS in possession of a
MMG/HMG/Lt. MTR/Gun]".  The German (the seat the named tests do not play) picks his
4-6-7 HS possessing a MMG and another 4-6-7 HS in the step's "Recombine … with …" form
and reads the refusal citing C5.21 EXC where he clicked, nothing changed; then the two
free 4-6-7 HS recombine into one squad.  The US page offers no recombination.  The
prefix (the Initial TM Scenario's result) and the units are walked through the
services."""

from __future__ import annotations

import pytest

from campaign.models import Unit
from tests.browser.helpers import live_page
from tests.test_phd_conph import phd_after
from tests.test_rule_mechanisms import add

pytestmark = [pytest.mark.browser, pytest.mark.rules, pytest.mark.django_db(transaction=True)]


def test_c5_21_two_hs_recombine_and_a_hs_with_a_mmg_is_refused(
    asgi_server, new_context, browser_login, modules, make_user
):
    """C5.21 in the German's browser: the HS possessing the MMG is not offered, and the
    page says why citing C5.21 EXC (since pass 20: a forged post is refused, in
    tests/test_phda20_pass20.py); the two other 4-6-7 HS recombine into one squad."""
    players, _ = phd_after((make_user("us_r"), make_user("de_r")), "C5.21")
    a = add(players, "german", "4-6-7", "squad", status="reduced")
    b = add(players, "german", "4-6-7", "squad", status="reduced")
    gunner = add(players, "german", "4-6-7", "squad", status="reduced")
    add(players, "german", "MG42 MMG", "sw", possessor=gunner.ref)
    de = live_page(asgi_server, new_context, browser_login, players, "german")
    us = live_page(asgi_server, new_context, browser_login, players, "us")
    us.locator("#exchange", has_text="You hold no HS").wait_for()
    assert us.get_by_role("button", name="Recombine the two HS").count() == 0

    form = de.locator("#exchange")
    form.get_by_role("button", name="Recombine the two HS").wait_for()
    for select in ("#exchange-give", "#exchange-mark"):
        offered = form.locator(f"{select} option").evaluate_all("os => os.map(o => o.value)")
        assert gunner.ref not in offered and a.ref in offered, offered
    said = form.inner_text()
    assert "Not offered" in said and "MG42 MMG" in said and "C5.21 EXC" in said, said

    form.locator("#exchange-give").select_option(a.ref)
    form.locator("#exchange-mark").select_option(b.ref)
    with de.expect_response(lambda r: "/act/exchange/" in r.url):
        form.get_by_role("button", name="Recombine the two HS").click()
    de.locator("#exchange", has_text="You hold no HS").wait_for()
    assert not Unit.objects.filter(pk=a.pk).exists()
    assert Unit.objects.get(pk=b.pk).markers == []
