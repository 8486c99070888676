"""Issue 44, tenth PHD pass (A), in real Chromium, two players: C5.14's Redeployment
played by the forms: a stack's one DR (C5.13, note 3's Random selection by the app's
dice, the HS DRM counted), a refusal shown where the player clicked, and the Defender
waiting for the Attacker (``docs/rules-audit/pass-10-phd-a.md``)."""

import pytest
from playwright.sync_api import expect

from campaign.models import Roll, ScenarioResult, Unit
from tests.browser.test_rules_classes_sicily import _open, _refusal
from tests.test_phd_conph import phd_after
from tests.test_rule_mechanisms import add, supply

# The rules on screen: run once, on PostgreSQL + Redis (the embedded run leaves them out).
pytestmark = [pytest.mark.browser, pytest.mark.rules, pytest.mark.django_db(transaction=True)]


def test_c5_13_c5_14_a_stack_redeploys_by_the_form_and_the_defender_waits(
    asgi_server, new_context, browser_login, modules, make_user
):
    """The US (the Attacker, C5.3) and the German open C5.14.  The German's table says
    the Attacker goes first (C5.14 "In turn, Attacker first").  The US names a squad
    twice in one stack: refused beside the form, nothing rolled.  He then rolls one DR
    for a squad with another squad and a HS in the same stack (C5.13 "Redeploy as a
    stack"): the roll line names the Random selection (C5.14 note 3) and the +1 per HS
    equivalent beyond one squad, computed (+3); none of the three is offered for a DR
    of its own any more (C5.13a).  The table says that a unit its result eliminates
    counts for the scenario just played (C5.1).  The German, after the US's Done, may
    roll."""
    players, _ = phd_after((make_user("us_p"), make_user("ge_p")), "C5.14", cvp_lost_us=5)
    supply(players, "cvp_per_kind.squad", {"value": "2"})
    a = add(players, "us", "6-6-7 A", "squad")
    b = add(players, "us", "6-6-7 B", "squad")
    hs = add(players, "us", "3-3-7", "half_squad")
    add(players, "german", "4-6-8", "squad")
    german = _open(asgi_server, new_context, browser_login, players, "german")
    german.locator(
        "#table-redeployment .reason", has_text="Attacker (American, C5.3) goes first"
    ).wait_for()
    us = _open(asgi_server, new_context, browser_login, players, "us")
    table = us.locator("#table-redeployment")
    table.locator(".help", has_text="its CVP join your CVP lost in the result (C5.1)").wait_for()
    us.select_option("#unit-redeployment", a.ref)
    us.select_option("#stack-redeployment", [a.ref])
    table.get_by_role("button", name="Roll DR").click()
    assert "named twice in the stack" in _refusal(us, "#table-redeployment")
    assert not Roll.objects.filter(campaign_id=players.campaign_id).exists()
    us.select_option("#unit-redeployment", a.ref)
    us.select_option("#stack-redeployment", [b.ref, hs.ref])
    table.get_by_role("button", name="Roll DR").click()
    # the Random selection's drs are on the step's rolls, then the stack's DR
    line = us.locator("#campaign-step .rolls li", has_text="with 6-6-7 B, 3-3-7")
    line.wait_for()
    picks = us.locator("#campaign-step .rolls li", has_text="Random Selection for a stack")
    assert picks.count() >= 3
    assert "+3" in line.inner_text() and "HS equivalent" in line.inner_text()
    (r,) = Roll.objects.filter(campaign_id=players.campaign_id, table_id="redeployment")
    assert {r.unit_ref, *r.stack.split()} == {a.ref, b.ref, hs.ref}
    offered = us.locator("#unit-redeployment option").all_inner_texts()
    assert not any(n in " ".join(offered) for n in ("6-6-7", "3-3-7"))
    lost = ScenarioResult.objects.get(campaign_id=players.campaign_id).data["cvp_lost"]["us"]
    held = set(Unit.objects.filter(campaign_id=players.campaign_id).values_list("ref", flat=True))
    assert lost == (7 if {a.ref, b.ref} - held else 5)  # a squad eliminated: its 2 CVP
    us.get_by_role("button", name="Done").first.click()
    # the German's page follows the US's Done by itself (its push): now he may roll
    german.locator("#table-redeployment").get_by_role("button", name="Roll DR").wait_for()
    expect(german.locator("#table-redeployment .reason", has_text="goes first")).to_have_count(0)
