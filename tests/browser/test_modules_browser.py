"""Issue 50 in real Chromium: a player uploads a CG module of his own.  A broken file
shows its problems by line and column; a good one hosts a campaign that both players
play; a third player neither sees it nor can host it; the campaign keeps its module
version after the owner uploads a new one."""

import re
from pathlib import Path

import pytest

from campaign.models import Campaign, ModuleRecord

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
HILL = Path(__file__).parent.parent / "fixtures" / "authored" / "modules" / "hill-621.yaml"


def _upload(page, url, text: str) -> None:
    page.goto(f"{url}/modules/")
    page.locator("#id_file").set_input_files(
        files=[{"name": "hill-621.yaml", "mimeType": "application/x-yaml", "buffer": text.encode()}]
    )
    page.get_by_role("button", name="Check and add the module").click()


def test_upload_host_play_and_privacy(asgi_server, new_context, browser_login, make_user):
    author, guest, third = make_user("author"), make_user("guest"), make_user("third")
    page = browser_login(new_context(), author).new_page()
    _upload(page, asgi_server.url, HILL.read_text().replace("do: eliminate}", "do: eliminat}"))
    alert = page.locator("[role=alert]")
    alert.wait_for()
    assert re.search(
        r"hill-621\.yaml:\d+:\d+: tables\[0\]\.rows\[1\]\.effect\.do", alert.inner_text()
    )
    assert "did you mean 'eliminate'?" in alert.inner_text()

    _upload(page, asgi_server.url, HILL.read_text())
    page.wait_for_url(re.compile(r".*/campaigns/new/\?cg=hill-621-[0-9a-f]{8}/cg$"))
    page.locator("#id_name").fill("On the hill")
    page.locator("#id_side").select_option("german")
    page.get_by_role("button", name="Create campaign").click()
    page.wait_for_url(re.compile(r".*/campaigns/[0-9a-f-]{36}/$"))
    invite = page.locator("#invite-url").input_value()
    other = browser_login(new_context(), guest).new_page()
    other.goto(invite)
    other.get_by_role("button", name="Take the Russian side").click()
    other.wait_for_url(page.url)
    for p in (page, other):  # both play it: the Initial Scenario's result is asked for
        p.locator("#step-title", has_text="H3.0").wait_for()

    stranger = browser_login(new_context(), third).new_page()
    stranger.goto(f"{asgi_server.url}/campaigns/new/")
    assert "Hill 621" not in stranger.locator("main").inner_text()
    record = ModuleRecord.objects.get(owner=author)
    forged = stranger.goto(f"{asgi_server.url}/campaigns/new/?cg={record.id}/cg")
    assert forged.status == 200 and "Hill 621" not in stranger.locator("main").inner_text()

    _upload(page, asgi_server.url, HILL.read_text().replace("russian: 15}", "russian: 16}", 1))
    page.wait_for_url(re.compile(r".*/campaigns/new/\?cg=hill-621-[0-9a-f]{8}/cg$"))
    assert ModuleRecord.objects.filter(owner=author).count() == 2
    campaign = Campaign.objects.get(name="On the hill")
    assert campaign.module_id == record.id and campaign.module_checksum == record.checksum
