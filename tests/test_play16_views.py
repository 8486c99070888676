"""Playtest 16 (``docs/playtest-16.md``): what the second round of play in two
browsers met (and the two frictions playtest 15 left), each pinned below the browser."""

from __future__ import annotations

import html
import re

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from campaign.services import messages
from config.asgi import application
from tests.test_rule_mechanisms import apd_at, supply_german
from tests.test_rule_mechanisms import users as users  # noqa: F401 (a fixture)

HEADERS = [(b"origin", b"http://127.0.0.1"), (b"host", b"127.0.0.1")]


def _text(page: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def _button_names(page: str) -> list[str]:
    """Each button's name as a screen reader says it: its aria-label, else its text."""
    names = []
    for attrs, text in re.findall(r"<button([^>]*)>(.*?)</button>", page, re.S):
        label = re.search(r'aria-label="([^"]*)"', attrs)
        names.append(html.unescape(label.group(1)) if label else _text(text).strip())
    return names


async def _socket(campaign_id, user, page: str = "campaign") -> WebsocketCommunicator:
    client = Client()
    await sync_to_async(client.force_login)(user)
    cookie = f"sessionid={client.cookies['sessionid'].value}".encode()
    comm = WebsocketCommunicator(
        application,
        f"/ws/campaigns/{campaign_id}/?page={page}",
        headers=[*HEADERS, (b"cookie", cookie)],
    )
    connected, _ = await comm.connect(timeout=10)
    assert connected
    return comm


async def _until(comm: WebsocketCommunicator, needle: str) -> str:
    while True:
        frame = await comm.receive_from(timeout=10)
        if needle in frame:
            return frame


@pytest.mark.django_db(transaction=True)
async def test_since_your_last_visit_counts_from_when_the_player_left_the_page(hosted):
    """Issue 46 / playtest 15's item 7: the digest lists what happened since the player
    last *had* the campaign page, not since he last loaded it: a message that reached
    his open page live is not news when he comes back from the roster; one written
    after he left is.  A roster page's socket closing is no visit of the campaign
    page."""
    campaign, alice, bob = hosted
    client = Client()
    await sync_to_async(client.force_login)(alice)
    url = f"/campaigns/{campaign.pk}/digest/"
    get = sync_to_async(client.get)
    await get(url, {"page": "1.5"})  # the page loads
    page = await _socket(campaign.pk, alice)
    await _until(page, 'id="campaign-header"')
    await sync_to_async(messages.send_message)(
        campaign_id=campaign.pk, user=bob, text="Seen it live"
    )
    await _until(page, "Seen it live")  # it reached the open page
    await page.disconnect()  # he goes to the roster
    roster = await _socket(campaign.pk, alice, page="roster")
    await roster.receive_from(timeout=10)  # its first parts: it is open
    await sync_to_async(messages.send_message)(
        campaign_id=campaign.pk, user=bob, text="Written while away"
    )
    await roster.disconnect()
    back = (await get(url, {"page": "2.5"})).content.decode()
    assert "Written while away" in back
    assert "Seen it live" not in back


def test_3_5_each_roll_button_of_a_step_names_its_table(users, modules, client):  # noqa: F811
    """APD 3.5 (Rows A-C of the German Reinforcement Table): a screen reader hears each
    *Roll dr* with its table, not three buttons all named "Roll dr" (playtest 15's
    item 8); what the page shows on the button is unchanged."""
    players, _ = apd_at(users, "3.4")
    supply_german(players)
    players.until_step("3.5")
    client.force_login(players.users["german"])
    page = client.get(f"/campaigns/{players.campaign_id}/").content.decode()
    rolls = [n for n in _button_names(page) if n.startswith("Roll ")]
    assert len(rolls) == 3, rolls
    assert len(set(rolls)) == 3, rolls
    assert all("Row" in n for n in rolls), rolls
    assert page.count(">Roll dr</button>") == 3


@pytest.mark.django_db
def test_an_ended_cg_says_so_in_the_header_not_a_step_to_wait_for(hosted, client):
    """The CG's end (conceded here, or after its last date): the header said "step 1 of
    N: <a step>" and "Waiting for: — the CG has ended"; it says the CG has ended and
    that no one has anything more to do, still with the roster's link."""
    from campaign.services import conceding

    campaign, alice, bob = hosted
    conceding.concede_campaign(campaign_id=campaign.pk, user=alice, confirmed=True)
    client.force_login(bob)
    page = client.get(f"/campaigns/{campaign.pk}/").content.decode()
    header = _text(page[page.index('id="campaign-header"') : page.index("</section>")])
    assert "the CG has ended" in header and "No one has anything more to do" in header, header
    assert "Waiting for" not in header and " of " not in header.split("—")[1][:30], header
    assert "CG Roster and retained forces" in header


@pytest.mark.django_db
def test_c4_2_a_refused_start_sheet_comes_back_filled_in_to_change_what_was_wrong(
    modules, make_user, client
):
    """PHD C4.2/C5.31/C5.33: the German refuses the US player's start sheet ("Our
    German I1 costs 7"); the US player opens the sheet again and finds his figures
    there (it came back empty: twenty cells to type again for one wrong figure); the
    data he did not propose come as the rules give them."""
    from campaign.models import Supplement
    from campaign.services import supplements
    from tests.test_play15_views import PHD_SHEET
    from tests.walk import host_game, players_of

    german, us = make_user("ger_p"), make_user("us_p")
    c = host_game("purple-heart-draw", "tm", german, us, through_start=False)
    phd = players_of(c, german, us)
    client.force_login(phd.users["us"])
    url = f"/campaigns/{phd.campaign_id}/start-sheet/"
    assert client.post(url, PHD_SHEET).status_code == 302
    package = Supplement.objects.filter(status="proposed").first().package
    supplements.refuse_start_sheet(
        campaign_id=phd.campaign_id,
        user=phd.users["german"],
        package=package,
        reason="Our German I1 costs 7",
    )
    page = client.get(url).content.decode()
    assert 'value="3 x 4-6-7"' in page or ">3 x 4-6-7<" in page, page[:2000]
    assert "What you proposed last time is filled in again" in page
    # The German's own sheet (another browser) is not filled with the US player's.
    client.force_login(phd.users["german"])
    assert "3 x 4-6-7" not in client.get(url).content.decode()


@pytest.mark.django_db
def test_c4_2_each_datums_accept_refuse_and_withdraw_names_its_datum(modules, make_user, client):
    """The start sheet's data answered one by one: a screen reader heard four *Accept*
    and four *Refuse* (and the proposer four *Withdraw*); each now names its datum,
    the visible words unchanged."""
    from tests.test_play15_views import PHD_SHEET
    from tests.walk import host_game, players_of

    german, us = make_user("ger_p"), make_user("us_p")
    c = host_game("purple-heart-draw", "tm", german, us, through_start=False)
    phd = players_of(c, german, us)
    client.force_login(phd.users["us"])
    assert client.post(f"/campaigns/{phd.campaign_id}/start-sheet/", PHD_SHEET).status_code == 302
    for side, verbs in (("german", ("Accept", "Refuse")), ("us", ("Withdraw",))):
        client.force_login(phd.users[side])
        page = client.get(f"/campaigns/{phd.campaign_id}/").content.decode()
        supplies = page[page.index('id="campaign-supplies"') :]
        names = _button_names(supplies[: supplies.index("</section>")])
        for verb in verbs:
            named = [n for n in names if n.split(":")[0] == verb]
            assert len(named) >= 2 and len(set(named)) == len(named), (verb, names)
