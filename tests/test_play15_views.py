"""Playtest 15 (``docs/playtest-15.md``): what the whole-campaign runs in two browsers
met, each friction pinned below the browser."""

from __future__ import annotations

import pytest

from campaign.models import Supplement
from campaign.selectors import module_of
from campaign.services import supplements
from tests.test_rule_mechanisms import apd_at, roll, supply_german
from tests.test_rule_mechanisms import users as users  # noqa: F401 (a fixture)
from tests.walk import host_game, players_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def phd(modules, make_user):
    german, us = make_user("ger_p"), make_user("us_p")
    c = host_game("purple-heart-draw", "tm", german, us, through_start=False)
    return players_of(c, german, us)


def _row(side: str, rg: str, kind: str, units: str) -> dict[str, str]:
    cells = {"id": rg, "type": kind, "units": units, "cost": "8", "full": "3", "depleted": "2"}
    return {f"rg_charts.{side}|row-0-{k}": v for k, v in cells.items()}


# C4.2's OB names RGs (Rifle Pl x 2, Gren Pl x 2) of the RG charts the OCR lost (C5.31):
# the start sheet supplies both at once.
PHD_SHEET = {
    **_row("us", "I1", "Rifle Pl", "3 x 6-6-6"),
    **_row("german", "I1", "Gren Pl", "3 x 4-6-7"),
    "variants.tm.start.ob|rgs.us": "I1, I1",
    "variants.tm.start.ob|rgs.german": "I1, I1",
}


def test_c4_2_an_ob_naming_rgs_of_the_charts_on_the_same_start_sheet_is_agreed_in_one_go(
    phd, client
):
    """C4.2 / C5.31: the Initial-Scenario OB names RGs of the RG charts supplied on the
    same start sheet: the sheet is proposed (it was refused, "side us has no RG 'I1'",
    because the OB was checked before the charts it names) and accepted in one go."""
    client.force_login(phd.users["us"])
    response = client.post(f"/campaigns/{phd.campaign_id}/start-sheet/", PHD_SHEET)
    assert response.status_code == 302, response.content.decode()[:3000]
    package = Supplement.objects.filter(status="proposed").first().package
    supplements.accept_start_sheet(
        campaign_id=phd.campaign_id, user=phd.users["german"], package=package
    )
    module = module_of(phd.campaign)
    assert module.variant("tm").start.ob["us"].rgs == ["I1", "I1"]
    assert not Supplement.objects.filter(status="proposed").exists()


def _text(page: str) -> str:
    """What the player reads of a page: its text, without the markup."""
    import html
    import re

    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def test_c4_2_an_ob_naming_an_rg_no_chart_has_is_refused_in_players_words(phd, client):
    """An OB naming an RG that no chart (supplied or on the sheet) has is refused with
    the datum and the side named as players name them, not the module's path
    ("variants[0] (tm).start.ob.us", "side us"), each problem once; nothing proposed."""
    client.force_login(phd.users["us"])
    sheet = {**PHD_SHEET, "variants.tm.start.ob|rgs.us": "I7, I7"}
    response = client.post(f"/campaigns/{phd.campaign_id}/start-sheet/", sheet)
    assert response.status_code == 400
    said = _text(response.content.decode())
    assert "variants[" not in said and ".start.ob" not in said and "side us" not in said, said
    assert "OB per side: the American side has no RG 'I7'" in said, said
    assert said.count("no RG") == 2, said  # in the summary, and beside the datum
    assert not Supplement.objects.exists()


def test_3_5_a_row_rolled_in_this_pass_is_offered_no_second_roll(users, modules, client):
    """APD 3.5: "one each on Rows A-C": once the German has made his Row A dr, the page
    offers no second Row A roll (clicked, it was refused: "You have made your ...
    roll in this pass") and says why; Rows B and C still offer theirs."""
    players, _ = apd_at(users, "3.4")
    supply_german(players)
    players.until_step("3.5")
    roll(players, "german", "german_reinforcement_row_a", item="Row A")
    client.force_login(players.users["german"])
    page = client.get(f"/campaigns/{players.campaign_id}/").content.decode()
    boxes = {
        row: page[page.index(f'id="table-german_reinforcement_row_{row}"') :].split(
            'class="table-roller"'
        )[0]
        for row in "abc"
    }
    assert 'value="german_reinforcement_row_a"' not in boxes["a"]
    assert "you have made your roll on it in this pass (3.5)" in _text(boxes["a"])
    for row in "bc":
        assert f'value="german_reinforcement_row_{row}"' in boxes[row]


def _button_names(page: str) -> list[str]:
    """Each button's name as a screen reader says it: its aria-label, else its text."""
    import re

    names = []
    for attrs, text in re.findall(r"<button([^>]*)>(.*?)</button>", page, re.S):
        label = re.search(r'aria-label="([^"]*)"', attrs)
        names.append(label.group(1) if label else _text(text).strip())
    return names


def test_3_617_to_3_619_each_buy_cancel_and_roll_button_names_what_it_acts_on(
    modules, make_user, login
):
    """Sicily 3.617-3.619: two RGs bought, then the fortification
    step: a screen reader hears each *Cancel*, *Make its secret rolls* and a
    fortification's *Buy* with the RG or fortification it acts on, not six buttons
    all named "Buy"."""
    from campaign.models import Seat
    from tests.purchase_helpers import campaign_at
    from tests.test_purchases import buy

    players, _ = campaign_at("sicily", "i", "jul14n", (make_user("a"), make_user("b")))
    buy(players, "axis", "M1")
    buy(players, "axis", "M2")
    client = login(players.users["axis"])
    url = f"/campaigns/{players.campaign_id}/"
    names = _button_names(client.get(url).content.decode())
    cancels = [n for n in names if n.startswith("Cancel")]
    assert (
        len(cancels) == 2 and len(set(cancels)) == 2 and "M1" in cancels[0] and "M2" in cancels[1]
    ), cancels
    players.until_step("3.618")
    names = _button_names(client.get(url).content.decode())
    rolls = [n for n in names if n.startswith("Make its secret rolls")]
    assert len(set(rolls)) == len(rolls), rolls
    Seat.objects.filter(campaign_id=players.campaign_id).update(fortification_points=20)
    players.until("fortify")
    names = _button_names(client.get(url).content.decode())
    buys = [n for n in names if n.startswith("Buy")]
    assert len(buys) > 1 and len(set(buys)) == len(buys), buys
    assert any("Foxhole" in n for n in buys), buys


def test_a_long_digest_leads_with_its_newest_three_lines_and_folds_the_rest(
    modules, make_user, login
):
    """Issue 46's "since your last visit", read on a phone: twelve of the opponent's
    messages no longer push the step a thousand pixels down; the newest three lead, the
    other nine (and the log's count beyond) are one click away."""
    from campaign.services import messages
    from tests.purchase_helpers import campaign_at

    players, _ = campaign_at("sicily", "i", "jul14n", (make_user("ax"), make_user("br")))
    axis = login(players.users["axis"])
    url = f"/campaigns/{players.campaign_id}/digest/"
    axis.get(url)
    for n in range(14):
        messages.send_message(
            campaign_id=players.campaign_id, user=players.users["british"], text=f"Note {n}"
        )
    page = axis.get(url).content.decode()
    lead, _, folded = page.partition("<details")
    assert lead.count("<li>") == 3 and "Note 13" in lead and "Note 11" in lead, lead
    assert "11 more since your last visit" in folded, folded
    assert folded.count("<li>") == 9 and "And 2 more" in folded
