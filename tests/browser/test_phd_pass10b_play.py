"""Issue 44, tenth PHD pass (B), in real Chromium: the 0930 Consolidation Phase from C5.26
to the Initiative (C5.37), each side's step text read at every step, the browsers opened
at the steps with something to click (tests/browser/at_step.py); at C5.34 the German,
who holds an OBA module, is refused Done until he has chosen it and made its DR (C5.34
"make a DR for each"). Both players clicking through the whole ConPh is the whole-
campaign browser runs' (tests/browser/test_play15_campaign.py)."""

from __future__ import annotations

import pytest

from campaign.models import Campaign, Purchase, Roll
from campaign.selectors import module_of
from campaign.services import purchases
from tests.browser.at_step import back, blank, panel, park
from tests.test_phd_conph_late import OBA
from tests.test_player_words import FORBIDDEN
from tests.test_rule_mechanisms import phd_with_chart, result_values

pytestmark = [pytest.mark.browser, pytest.mark.rules, pytest.mark.django_db(transaction=True)]

_MOVED = """([sid]) => {
    const title = document.querySelector('#step-title');
    const step = document.querySelector('#campaign-step');
    return (title && !title.textContent.includes(sid)) ||
        (step && step.textContent.includes('Waiting for your opponent'));
}"""


def _current(players) -> str:
    c = Campaign.objects.get(pk=players.campaign_id)
    return module_of(c).steps[c.step_index].id


def test_c5_26_to_c5_37_played_by_both_players_c5_34_owes_the_module_its_dr(
    asgi_server, new_context, browser_login, modules, make_user
):
    """The prefix through the services: the German's chart (an 81mm OBA module, O2)
    supplied, O2 requisitioned at the start (its I-C5.34 DR made), Initial TM Scenario
    played.  Then every step of the 0930 ConPh from C5.26 until the Initiative
    (C5.37): each side's step text, as his page has it, holds no transcription words;
    the steps are finished through the services (the US, whose chart is lost, going on
    knowingly without it at C5.31), but at C5.26 and C5.34, read and clicked in the
    players' browsers.  At
    C5.26 the US names an LMG on the Baz/Psk/FT/DC table and is refused where he
    clicked, citing C5.26b.  At C5.34 the German's step says, before any click, that
    the DR is owed (with the rule) and offers no Done; the form offers O2 by its RG ID
    (no typing); his DR is made and his Done then passes.  (The secrecy of a DR for a
    module still secret is proven in tests/test_phd_pass10b.py.)"""
    players, c = phd_with_chart((make_user("ge_p10"), make_user("us_p10")), [OBA])
    purchases.purchase_rg(campaign_id=c.pk, user=players.users["german"], group_id="O2")
    players.until("results")
    players.results(**result_values(module_of(c)))
    players.until_step("C5.26")
    cid = players.campaign_id
    url = f"{asgi_server.url}/campaigns/{cid}/"
    pages = {side: blank(new_context, browser_login, players, side) for side in ("german", "us")}
    walked = []
    while (sid := _current(players)) != "C5.37":
        assert sid not in walked[-3:] or walked.count(sid) < 3, walked  # no dead end
        walked.append(sid)
        for side in ("german", "us"):
            text = panel(players.users[side], cid)
            assert not FORBIDDEN.search(text), (sid, side, FORBIDDEN.search(text))
        if sid == "C5.26":
            # One refusal where he clicked: an LMG is not rolled for (C5.26b).
            page = pages["us"]
            back(page, url)
            us_table = page.locator("#table-baz_psk_ft_dc_repair")
            page.locator("#item-baz_psk_ft_dc_repair").fill("LMG at 12H3")
            us_table.get_by_role("button", name="Roll dr").click()
            said = page.locator(
                "#table-baz_psk_ft_dc_repair .refusal, #flash .refusal, #flash [role=alert]"
            ).first
            said.wait_for()
            assert "(C5.26b)" in said.inner_text(), said.inner_text()
            assert not Roll.objects.filter(campaign_id=c.pk, table_id="baz_psk_ft_dc_repair")
            park(page)
        if sid == "C5.34":
            page = pages["german"]
            back(page, url)
            # Before any click, the step says the DR is owed, with the rule, and
            # offers no Done; the form offers his module by its RG ID.
            owed = page.locator("#finish-lacking")
            assert owed.inner_text() == (
                "Roll first: the Offboard Artillery Table for O2 81mm OBA Module "
                "(C5.34). The rules make this roll compulsory."
            )
            assert not page.get_by_role("button", name=f"Done with {sid}", exact=True).count()
            assert not page.get_by_role("button", name="Go on without it").count()
            table = page.locator("#table-oba")
            assert table.locator("#item-oba option").all_inner_texts() == ["O2 81mm OBA Module"]
            table.get_by_role("button", name="Roll DR").click()
            page.locator("#table-oba", has_text="Each OBA module you hold has had").wait_for()
            # ... and his Done then passes.
            page.get_by_role("button", name=f"Done with {sid}", exact=True).click()
            page.wait_for_function(_MOVED, arg=[sid])
            park(page)
            page = pages["us"]
            back(page, url)
            assert "You hold no OBA module" in page.locator("#table-oba").inner_text()
            park(page)
        if _current(players) == sid:
            players.finish()
    assert "C5.34" in walked and "C5.31" in walked, walked
    (r,) = Roll.objects.filter(campaign_id=c.pk, table_id="oba", cycle=players.campaign.cycle)
    assert r.item == "O2 81mm OBA Module"
    # O2, bought at the start, was revealed when the Initial TM Scenario began (the
    # campaign's reveal policy): its DR is no secret, and the US's dice page shows it.
    o2 = Purchase.objects.get(campaign_id=c.pk, group_id="O2")
    assert o2.revealed_at is not None and not r.secret
    us = pages["us"]
    us.goto(f"{url}dice/")
    assert "O2 81mm OBA Module" in us.locator("body").inner_text()
