"""Issue 5 acceptance: two users in two isolated browser contexts host, invite and
join; both see each other online; a third user gets 404 on the page, JSON and socket."""

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "campaign-pass-77"


def _sign_up(page, url, username):
    page.locator("#id_username").fill(username)
    page.locator("#id_password1").fill(PASSWORD)
    page.locator("#id_password2").fill(PASSWORD)
    page.get_by_role("button", name="Create account").click()


def test_host_invites_and_opponent_joins(asgi_server, new_context, modules):
    host = new_context().new_page()
    host.goto(asgi_server.url + "/")
    _sign_up(host, asgi_server.url, "monty")
    host.wait_for_url("**/campaigns/")
    host.get_by_role("link", name="Host a new campaign").click()
    host.locator("#id_name").fill("Primosole Bridge")
    host.locator("#id_cg").select_option("sicily/i")
    host.wait_for_load_state("networkidle")
    host.locator("#id_side").select_option("british")
    host.get_by_role("button", name="Create campaign").click()
    host.wait_for_url("**/campaigns/*-*/")
    campaign_url = host.url
    invite = host.locator("#invite-url").input_value()
    assert "/join/" in invite

    guest = new_context().new_page()
    guest.goto(invite)
    guest.wait_for_url(lambda url: "/signup/" in url and "next=" in url)
    _sign_up(guest, asgi_server.url, "kesselring")
    guest.wait_for_url("**/join/**")
    assert "play Axis" in guest.locator("main").inner_text()
    guest.get_by_role("button", name="Take the Axis side").click()
    guest.wait_for_url(campaign_url)

    # Both see each other online, live (no reload).
    host.locator("#campaign-sides .presence.online").wait_for()
    assert "kesselring" in host.locator("#campaign-sides").inner_text()
    guest.locator("#campaign-sides .presence.online").wait_for()
    assert "monty" in guest.locator("#campaign-sides").inner_text()
    # The host's invitation box went away live, once the side was taken.
    host.locator("#invite-url").wait_for(state="detached")

    # A third user: 404 on the page, the JSON and the websocket.
    third = new_context().new_page()
    third.goto(asgi_server.url + "/signup/")
    _sign_up(third, asgi_server.url, "stranger")
    third.wait_for_url("**/campaigns/")
    assert third.goto(campaign_url).status == 404
    assert third.goto(campaign_url + "state.json").status == 404
    ws_path = campaign_url.replace("http://", "ws://").replace("/campaigns/", "/ws/campaigns/")
    code = third.evaluate(
        """url => new Promise(resolve => {
            const ws = new WebSocket(url);
            ws.onopen = () => resolve('opened');
            ws.onclose = e => resolve(e.code);
        })""",
        ws_path,
    )
    assert code != "opened"
    # Dashboard of the host: the campaign, the opponent, who we wait for.
    host.goto(asgi_server.url + "/campaigns/")
    row = host.locator("table.list tbody tr").first.inner_text()
    assert "Primosole Bridge" in row and "kesselring" in row
