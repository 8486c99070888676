"""Issue 18: hostile input at the edge.  Control characters (NUL first: PostgreSQL
cannot store it) are refused with a 400 and a sentence on every endpoint; every
free-text field has a limit in the model and the form, and a longer text is refused
with a message that names the limit; full-width digits are read as digits everywhere;
unknown websocket paths and foreign origins are refused cleanly (scheme, host and
port compared)."""

from __future__ import annotations

import asyncio

import pytest
import websockets
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client, override_settings

from campaign.models import (
    Campaign,
    Event,
    FortificationBuy,
    Purchase,
    Roll,
    ScenarioResult,
    Seat,
    Unit,
)
from campaign.origin import origin_allowed
from campaign.services import purchases, steps
from campaign.services.errors import ActionRefused
from campaign.services.text import DISPUTE_REASON_LIMIT
from config.asgi import application
from tests.purchase_helpers import campaign_at
from tests.servers import ServerLog

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
CONTROLS = ["\x00", "\x07", "\x1b", "\x7f", "\x85"]


@pytest.fixture
def sicily(modules, make_user, login):
    """Sicily at the purchase step, owner policy; the Axis player has bought an RG."""
    players, _ = campaign_at(
        "sicily", "i", "jul14n", (make_user("a"), make_user("b")), points=100, policy="owner"
    )
    p = purchases.purchase_rg(
        campaign_id=players.campaign_id, user=players.users["axis"], group_id="M1"
    )
    return players, p, login(players.users["axis"])


def _state(cid) -> tuple:
    return (
        Event.objects.filter(campaign_id=cid).count(),
        tuple(Unit.objects.filter(campaign_id=cid).values_list("name", "location")),
        tuple(Purchase.objects.filter(campaign_id=cid).values_list("entry_area", "notes")),
        Roll.objects.filter(campaign_id=cid).count(),
        FortificationBuy.objects.filter(campaign_id=cid).count(),
    )


def _posts(cid, purchase_ref, unit_ref):
    """The campaign's free-text endpoints: (path, form, the field that gets the text)."""
    base = f"/campaigns/{cid}/"
    return [
        (base + "units/", {"do": "add", "name": "4-6-8", "location": ""}, "name"),
        (base + "units/", {"do": "add", "name": "4-6-8", "location": ""}, "location"),
        (base + "units/", {"do": "save", "unit": unit_ref, "name": "x", "status": "ok"}, "name"),
        (base + "act/entry-area/", {"purchase": purchase_ref, "entry_area": ""}, "entry_area"),
        (base + "act/entry-area/", {"purchase": purchase_ref, "notes": ""}, "notes"),
        (base + "act/roll/", {"table": "escape", "item": ""}, "item"),
        (base + "act/dispute/", {"reason": ""}, "reason"),
        (base + "act/fortify/", {"item": "x", "location": ""}, "location"),
    ]


@pytest.mark.parametrize("char", CONTROLS, ids=lambda c: f"U+{ord(c):04X}")
def test_a_control_character_in_any_free_text_field_is_a_400_sentence(sicily, char):
    players, p, client = sicily
    unit = Unit.objects.create(campaign_id=players.campaign_id, side="axis", name="8-1 leader")
    before = _state(players.campaign_id)
    for path, form, field in _posts(players.campaign_id, p.ref, unit.ref):
        for htmx in (HTMX, {}):
            body = {**form, field: f"Hill{char}621"}
            response = client.post(path, body, **htmx)
            assert response.status_code == 400, (path, field, response.status_code)
            text = response.content.decode()
            assert "plain text only" in text and f"U+{ord(char):04X}" in text, text
            assert _state(players.campaign_id) == before


@pytest.mark.parametrize("char", CONTROLS, ids=lambda c: f"U+{ord(c):04X}")
def test_control_characters_in_addresses_and_public_forms_are_400_not_500(sicily, char, make_user):
    players, _, client = sicily
    campaign = players.campaign
    token = "tok" + char + "en"
    assert client.get(f"/join/{token}/").status_code == 400
    assert client.post(f"/join/{token}/").status_code == 400
    assert client.get(f"/campaigns/new/?cg=sicily{char}/i").status_code == 400
    response = client.post(
        "/campaigns/new/", {"name": f"Bad{char}name", "cg": "sicily/i", "side": "axis"}
    )
    assert response.status_code == 400 and Campaign.objects.count() == 1
    anonymous = Client()
    response = anonymous.post("/login/", {"username": f"a{char}", "password": "x"})
    assert response.status_code == 400
    response = anonymous.post(
        "/signup/", {"username": f"m{char}", "password1": "x", "password2": "x"}
    )
    assert response.status_code == 400
    assert campaign.name in client.get(f"/campaigns/{campaign.pk}/").content.decode()


def test_a_control_character_in_a_field_name_is_refused_too(sicily):
    players, _, client = sicily
    response = client.post(f"/campaigns/{players.campaign_id}/act/finish/", {"at\x00": "1"})
    assert response.status_code == 400
    assert "a field name" in response.content.decode()


def test_tabs_and_line_breaks_are_plain_text(sicily):
    players, _, client = sicily
    response = client.post(
        f"/campaigns/{players.campaign_id}/units/",
        {"do": "add", "name": "4-6-8\tsquad", "location": "hex\r\n4N3"},
        **HTMX,
    )
    assert response.status_code == 200
    assert Unit.objects.filter(name="4-6-8\tsquad").exists()


# --------------------------------------------------------------------------- lengths

LIMITS = {"name": 120, "location": 120, "entry_area": 120, "notes": 500, "item": 200}


def test_every_free_text_field_is_limited_in_the_model():
    assert Unit._meta.get_field("name").max_length == LIMITS["name"]
    assert Unit._meta.get_field("location").max_length == LIMITS["location"]
    assert Purchase._meta.get_field("entry_area").max_length == LIMITS["entry_area"]
    assert Purchase._meta.get_field("notes").max_length == LIMITS["notes"]
    assert Roll._meta.get_field("item").max_length == LIMITS["item"]
    assert FortificationBuy._meta.get_field("location").max_length == 200
    assert Campaign._meta.get_field("name").max_length == 120


def test_a_text_one_character_over_its_limit_is_refused_with_the_limit(sicily):
    players, p, client = sicily
    unit = Unit.objects.create(campaign_id=players.campaign_id, side="axis", name="8-1 leader")
    limits = {**LIMITS, "reason": DISPUTE_REASON_LIMIT}
    for path, form, field in _posts(players.campaign_id, p.ref, unit.ref):
        if path.endswith("/act/fortify/"):
            continue  # not the fortify step: refused for that first (see below)
        limit = limits[field]
        before = _state(players.campaign_id)
        response = client.post(path, {**form, field: "x" * (limit + 1)}, **HTMX)
        text = response.content.decode()
        assert response.status_code == 400, (field, response.status_code, text)
        assert f"at most {limit} characters" in text, (field, text)
        assert _state(players.campaign_id) == before
        # At the limit it is taken (where the step allows the action at all).
        response = client.post(path, {**form, field: "x" * limit}, **HTMX)
        assert "at most" not in response.content.decode()


def test_a_fortification_location_over_its_limit_is_refused(modules, make_user, login):
    players, _ = campaign_at("sicily", "i", "jul14n", (make_user("a"), make_user("b")))
    # FPP in hand to spend at 3.619 (which waits for the players: FPP may come from M3).
    Seat.objects.filter(campaign_id=players.campaign_id).update(fortification_points=20)
    players.until("fortify")
    client = login(players.users["axis"])
    response = client.post(
        f"/campaigns/{players.campaign_id}/act/fortify/",
        {"item": "foxhole", "count": "1", "location": "x" * 201},
        **HTMX,
    )
    assert response.status_code == 400 and "at most 200 characters" in response.content.decode()
    assert not FortificationBuy.objects.exists()


def test_a_megabyte_unit_name_is_refused_and_never_stored_or_rendered(sicily):
    players, _, client = sicily
    response = client.post(
        f"/campaigns/{players.campaign_id}/units/",
        {"do": "add", "name": "x" * 1_000_000},
        **HTMX,
    )
    assert response.status_code == 400
    assert "too large" in response.content.decode()
    assert len(response.content) < 2000
    assert not Unit.objects.exists()


def test_campaign_name_limit_is_in_the_form_message(modules, make_user, login):
    client = login(make_user("host"))
    response = client.post(
        "/campaigns/new/",
        {"name": "n" * 121, "cg": "sicily/i", "side": "axis", "reveal_policy": "step_end"},
    )
    assert response.status_code == 400
    assert "at most 120 characters" in response.content.decode()
    assert not Campaign.objects.exists()


def test_a_dispute_reason_over_its_limit_is_refused_at_the_service(hosted):
    campaign, alice, bob = hosted
    values = {"cvp_lost.red": 1, "cvp_lost.blue": 0, "san.red": 2, "san.blue": 2}
    steps.enter_scenario_result(campaign_id=campaign.pk, user=alice, values=values)
    with pytest.raises(ActionRefused, match="at most 500 characters"):
        steps.dispute_scenario_result(campaign_id=campaign.pk, user=bob, reason="r" * 501)
    assert ScenarioResult.objects.exists()


# --------------------------------------------------------------------------- full-width digits


def test_full_width_digits_are_read_as_digits_in_every_field(hosted, login):
    campaign, alice, bob = hosted
    client = login(alice)
    response = client.post(
        f"/campaigns/{campaign.pk}/act/result/",
        {"cvp_lost.red": "１２", "cvp_lost.blue": "０", "san.red": "２", "san.blue": "３"},
        **HTMX,
    )
    assert response.status_code == 200, response.content
    data = ScenarioResult.objects.get().data
    assert data["cvp_lost"]["red"] == 12 and data["san"]["blue"] == 3
    response = client.post(
        f"/campaigns/{campaign.pk}/units/", {"do": "add", "name": "４-６-８ squad"}, **HTMX
    )
    assert Unit.objects.filter(name="4-6-8 squad").exists()


def test_full_width_numbers_in_counts_and_options(modules, make_user, login):
    players, _ = campaign_at("sicily", "i", "jul14n", (make_user("a"), make_user("b")))
    # FPP in hand to spend at 3.619 (which waits for the players: FPP may come from M3).
    Seat.objects.filter(campaign_id=players.campaign_id).update(fortification_points=20)
    players.until("fortify")
    client = login(players.users["axis"])
    cid = players.campaign_id
    response = client.post(
        f"/campaigns/{cid}/act/fortify/", {"item": "foxhole", "count": "２", "tier": "２"}, **HTMX
    )
    assert response.status_code == 200, response.content
    bought = FortificationBuy.objects.get()
    assert (bought.count, bought.tier) == (2, "1S")  # two 1S Foxholes (3.619 footnote c)


def test_names_are_folded_but_passwords_are_compared_as_typed(make_user):
    make_user("alice", password="ｐａｎｚｅｒ-grenadier-44")
    client = Client()
    response = client.post(
        "/login/", {"username": "ａｌｉｃｅ", "password": "ｐａｎｚｅｒ-grenadier-44"}
    )
    assert response.status_code == 302
    response = Client().post("/login/", {"username": "alice", "password": "panzer-grenadier-44"})
    assert response.status_code == 200  # refused: not the password that was set


def test_numbers_in_other_scripts_or_words_are_refused(hosted):
    campaign, alice, _ = hosted
    for raw in ("١٢", "1_000", "12.0", "twelve", " "):
        values = {"cvp_lost.red": raw, "cvp_lost.blue": 0, "san.red": 2, "san.blue": 2}
        with pytest.raises(ActionRefused, match="enter a whole number"):
            steps.enter_scenario_result(campaign_id=campaign.pk, user=alice, values=values)


# --------------------------------------------------------------------------- websockets


def _scope(origin: str | None, host: str = "127.0.0.1:8000", scheme: str = "ws", **extra):
    headers = [(b"host", host.encode())]
    if origin is not None:
        headers.append((b"origin", origin.encode()))
    headers += [(k.encode(), v.encode()) for k, v in extra.items()]
    return {"type": "websocket", "scheme": scheme, "headers": headers}


def test_the_origin_must_match_scheme_host_and_port():
    assert origin_allowed(_scope("http://127.0.0.1:8000"))
    assert origin_allowed(_scope("HTTP://127.0.0.1:8000"))
    assert not origin_allowed(_scope("http://127.0.0.1:8001"))  # another port
    assert not origin_allowed(_scope("http://127.0.0.1"))  # port 80
    assert not origin_allowed(_scope("https://127.0.0.1:8000"))  # another scheme
    assert not origin_allowed(_scope("http://localhost:8000"))  # another host
    assert not origin_allowed(_scope(None))
    assert not origin_allowed(_scope("null"))
    assert not origin_allowed(_scope("http://127.0.0.1:8000", host="evil.example:8000"))
    assert origin_allowed(_scope("http://127.0.0.1", host="127.0.0.1"))
    assert origin_allowed(_scope("https://127.0.0.1", host="127.0.0.1", scheme="wss"))


@override_settings(
    ALLOWED_HOSTS=["refit.example"],
    SECURE_PROXY_SSL_HEADER=("HTTP_X_FORWARDED_PROTO", "https"),
    CSRF_TRUSTED_ORIGINS=["https://play.refit.example"],
)
def test_behind_the_tls_proxy_the_origin_is_https_on_port_443():
    forwarded = {"x-forwarded-proto": "https"}
    assert origin_allowed(_scope("https://refit.example", host="refit.example", **forwarded))
    assert not origin_allowed(_scope("http://refit.example", host="refit.example", **forwarded))
    assert not origin_allowed(_scope("https://refit.example", host="refit.example"))
    assert not origin_allowed(
        _scope("https://refit.example:8443", host="refit.example", **forwarded)
    )
    assert origin_allowed(_scope("https://play.refit.example", host="refit.example"))


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "path", ["/ws/nope/", "/ws/campaigns/not-a-uuid/", "/ws/campaigns/", "/", "/ws/live/x/"]
)
async def test_an_unknown_websocket_path_is_refused_without_an_error(path, caplog):
    comm = WebsocketCommunicator(
        application, path, headers=[(b"origin", b"http://127.0.0.1"), (b"host", b"127.0.0.1")]
    )
    connected, _ = await comm.connect(timeout=10)
    assert not connected
    await comm.disconnect()  # as the server does after refusing: the consumer ends here
    assert not [r for r in caplog.records if r.levelname in ("ERROR", "CRITICAL")]


@pytest.mark.django_db(transaction=True)
async def test_a_real_server_answers_403_to_unknown_paths_and_foreign_origins(
    asgi_server, make_user
):
    log = ServerLog(asgi_server.log_path)  # the worker serves other tests too
    user = await sync_to_async(make_user)()
    client = Client()
    await sync_to_async(client.force_login)(user)
    cookie = f"sessionid={client.cookies['sessionid'].value}"
    ws_url = asgi_server.url.replace("http://", "ws://")
    port = asgi_server.port
    cases = [
        ("/ws/nope/", asgi_server.url),
        ("/ws/campaigns/123/", asgi_server.url),
        ("/ws/live/", f"http://127.0.0.1:{port + 1}"),  # another port
        ("/ws/live/", f"https://127.0.0.1:{port}"),  # another scheme
        ("/ws/live/", "http://127.0.0.1"),  # no port: 80
    ]
    for path, origin in cases:
        with pytest.raises(websockets.InvalidStatus) as refused:
            await websockets.connect(
                ws_url + path, additional_headers={"Cookie": cookie, "Origin": origin}
            )
        assert refused.value.response.status_code == 403, (path, origin)
    ws = await websockets.connect(
        ws_url + "/ws/live/", additional_headers={"Cookie": cookie, "Origin": asgi_server.url}
    )
    assert "live-status" in await asyncio.wait_for(ws.recv(), 5)
    await ws.close()
    lines = "\n".join(log.new_lines())
    assert "Traceback" not in lines and "No route found" not in lines


def test_the_notification_settings_form_takes_plain_addresses_within_the_limit(make_user):
    """Issue 20: the e-mail address of the notification settings — a control character
    is a 400 sentence, an address over auth's 254 characters is refused (never cut),
    full-width forms are folded; the service checks again with the field's limit."""
    from django.contrib.auth import get_user_model

    from campaign.services import notifications

    user = make_user("mailer")
    client = Client()
    client.force_login(user)
    for char in CONTROLS:
        r = client.post("/settings/", {"email": f"a{char}@example.org", "frequency": "hourly"})
        assert r.status_code == 400 and "control character" in r.content.decode()
    long = "a" * 250 + "@example.org"
    r = client.post("/settings/", {"email": long, "frequency": "hourly"})
    assert r.status_code == 400 and "254" in r.content.decode()
    r = client.post("/settings/", {"email": "ｃａｒｏｌ@example.org", "frequency": "ｏｆｆ"})
    assert r.status_code == 302
    user.refresh_from_db()
    assert user.email == "carol@example.org"
    with pytest.raises(ActionRefused, match="at most 254 characters"):
        notifications.change_notification_settings(user=user, email=long, frequency="hourly")
    assert get_user_model().objects.get(pk=user.pk).email == "carol@example.org"


@pytest.mark.django_db
def test_a_sign_in_with_a_name_of_ten_thousand_characters_is_a_plain_refusal(client):
    """Issue 48: the throttle records a name cut to 150 characters: a forged 10,000-
    character name is a failed sign-in (200, the form with its sentence), never a 503."""
    response = client.post("/login/", {"username": "x" * 10_000, "password": "nope"})
    assert response.status_code == 200
    assert "Please enter a correct" in response.content.decode() or "correct" in (
        response.content.decode()
    )


def test_every_supplied_datum_shows_its_caps_in_the_form(modules, make_user, client):
    """Issue 48: each cap on supplied data is one a player can read where he types
    (and the browser enforces the characters): an OB's lines, a text, a grid's rows."""
    from django.urls import reverse

    from rules import supply
    from tests.walk import host_game

    axis, brit = make_user("cap_a"), make_user("cap_b")
    c = host_game("sicily", "i", axis, brit, through_start=False)
    client.force_login(axis)
    page = client.get(reverse("start_sheet", args=[c.pk])).content.decode()
    assert f"At most {supply.MAX_LINES} lines of at most {supply.MAX_LINE} characters." in page
    assert f'maxlength="{supply.MAX_TEXT}"' in page  # the OB as printed, the weather
    phd = host_game("purple-heart-draw", "tm", axis, brit, through_start=False)
    page = client.get(reverse("start_sheet", args=[phd.pk])).content.decode()
    assert f"At most {supply.MAX_ROWS} rows, each cell at most {supply.MAX_LINE}" in page
    assert f'maxlength="{supply.MAX_LINE}"' in page
