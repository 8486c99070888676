"""Issue 10: the secrecy suite.  Every URL pattern of the app, every fragment, the JSON
view and the websocket frames, fetched as the opponent and as a stranger, in several
reveal states: no unrevealed secret appears, and strangers get 404.

A new URL pattern fails ``test_every_url_pattern_is_covered`` until it is added here.
"""

import re

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

from campaign.fragments import campaign_fragments, roster_fragments
from campaign.seat_views.campaign_page import campaign_view
from campaign.services import initiative, purchases
from campaign.services.push import Part
from campaign.views.actions import ACTIONS as VIEW_ACTIONS
from tests.purchase_helpers import campaign_at, roster_of

pytestmark = pytest.mark.django_db

# How each named pattern is fetched: GET pages/JSON, or a POST action.
GET_CAMPAIGN = [
    "campaign",
    "state_json",
    "dice",
    "roster",
    "export",
    "supply",
    "start_sheet",
    "digest",
    "sheet",
    "sheet_txt",
    "sheet_json",
]
POST_CAMPAIGN = [
    "act",
    "unit",
    "invitation_new",
    "invitation_revoke",
    "message",
    "messages_seen",
    "nudge",
]
PUBLIC = [
    "home",
    "healthz",
    "signup",
    "login",
    "logout",
    "dashboard",
    "create",
    "join",
    "settings",
    "modules",
]
COVERED = set(GET_CAMPAIGN + POST_CAMPAIGN + PUBLIC)
ACTIONS = [*VIEW_ACTIONS, "nonsense"]  # every action the app has, and one it has not


def _names(patterns, prefix=""):
    for p in patterns:
        if isinstance(p, URLResolver):
            if str(p.pattern).startswith("admin/"):
                continue  # the Django admin: operators only (staff), not players
            yield from _names(p.url_patterns, prefix)
        elif isinstance(p, URLPattern):
            yield p.name


def test_every_url_pattern_is_covered():
    names = set(_names(get_resolver().url_patterns))
    assert names == COVERED, f"uncovered: {names - COVERED}; stale: {COVERED - names}"


class Secrets:
    """What the British side holds secret, and what the Axis player must never see."""

    def __init__(self):
        self.texts: list[str] = []
        self.patterns: list[str] = []

    def check(self, body: str, where: str) -> None:
        for text in self.texts:
            assert text not in body, f"{text!r} leaked in {where}"
        for pattern in self.patterns:
            assert not re.search(pattern, body), f"{pattern!r} leaked in {where}"


def _state_purchase(users):
    """The British bought and rolled two RGs, made a Recon and hold a secret unit; the
    campaign's policy reveals only what the owner reveals."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=187, policy="owner")
    brit = players.users["british"]
    secrets = Secrets()
    bought = [
        purchases.purchase_rg(campaign_id=players.campaign_id, user=brit, group_id=gid)
        for gid in ("V6", "G3")
    ]
    players.until("strength")  # the rolls come once every RG is selected (3.6181)
    for p in bought:
        purchases.roll_for_purchase(campaign_id=players.campaign_id, user=brit, purchase_id=p.ref)
        p.refresh_from_db()
        secrets.texts += [p.group_type, f"record-{p.ref}", f"purchase-{p.ref}"]
        secrets.texts += [f"{r['table']}: {r['result']}" for r in p.details["rolls"]]
    left = 187 - 5 - 6
    secrets.patterns += [rf"\b{left}\b", r"RG Strength: ", r"Carrier 3"]
    return players, secrets


def _state_chit(users):
    players, _ = campaign_at("sicily", "i", "jul14n", users, kind="initiative")
    initiative.lock_initiative(
        campaign_id=players.campaign_id, user=players.users["british"], chit="idle"
    )
    secrets = Secrets()
    secrets.texts += ['class="chit">Idle', "chit: Idle", '"chit": "Idle"']
    return players, secrets


def _state_after_reveal(users):
    """One RG revealed by its owner, one still secret."""
    players, secrets = _state_purchase(users)
    brit = players.users["british"]
    from campaign.models import Purchase

    shown = Purchase.objects.get(group_id="V6")
    purchases.reveal_purchase(campaign_id=players.campaign_id, user=brit, purchase_id=shown.ref)
    hidden = Purchase.objects.get(group_id="G3")
    secrets.patterns = []
    secrets.texts = [hidden.group_type, f"record-{hidden.ref}"] + [
        f"{r['table']}: {r['result']}"
        for r in hidden.details["rolls"]
        if f"{r['table']}: {r['result']}"
        not in [f"{x['table']}: {x['result']}" for x in shown.details["rolls"]]
    ]
    return players, secrets


def _state_secret_replenishment(users):
    """The British received CPP in secret (3.616) and hold them."""
    # 3.616 is the server's and passes by itself: the campaign rests at 3.617.
    players, _ = campaign_at("sicily", "i", "jul14n", users, kind="purchase", points=0)
    from campaign.models import Event

    text = Event.objects.get(kind="replenish", side="british").text
    secrets = Secrets()
    secrets.texts += [text, "British CPP:", "base for July 14 Night 4 "]
    return players, secrets


STATES = {
    "purchases": _state_purchase,
    "chit locked": _state_chit,
    "one revealed": _state_after_reveal,
    "replenishment": _state_secret_replenishment,
}


@pytest.mark.parametrize("state", STATES)
def test_opponent_and_stranger_see_no_secret(state, modules, make_user, login, client):
    users = (make_user("axis_p"), make_user("brit_p"))
    players, secrets = STATES[state](users)
    cid = players.campaign_id
    axis = login(players.users["axis"])
    for name in GET_CAMPAIGN:
        response = axis.get(
            f"/campaigns/{cid}/"
            + {
                "campaign": "",
                "state_json": "state.json",
                "dice": "dice/",
                "roster": "roster/",
                "export": "export/",
                "supply": "supply/tables.captured_equipment/",
                "start_sheet": "start-sheet/",
                "digest": "digest/",
                "sheet": "sheet/",
                "sheet_txt": "sheet.txt",
                "sheet_json": "sheet.json",
            }[name]
        )
        assert response.status_code in (200, 403), name
        secrets.check(response.content.decode(), f"{name} ({state})")
    for action in ACTIONS:
        response = axis.post(
            f"/campaigns/{cid}/act/{action}/", {"purchase": "1", "chit": "x", "at": "999.9"}
        )
        assert 400 <= response.status_code < 500, (action, response.status_code)
        secrets.check(response.content.decode(), f"act/{action} ({state})")
    for name in ("unit", "invitation_new", "invitation_revoke"):
        path = {
            "unit": "units/",
            "invitation_new": "invitation/",
            "invitation_revoke": "invitation/revoke/",
        }[name]
        response = axis.post(f"/campaigns/{cid}/{path}", {"do": "remove", "unit": "1"})
        assert 400 <= response.status_code < 500, name
        secrets.check(response.content.decode(), f"{name} ({state})")
    # The websocket frames are these fragments, rendered for the Axis seat.
    c = players.campaign
    view = campaign_view(users[0], c.pk)
    frames = [html for _, html in campaign_fragments(view, Part, user=users[0], origin="http://x")]
    frames += [html for _, html in roster_fragments(roster_of(c, "axis"), Part, user=users[0])]
    for html in frames:
        secrets.check(html, f"websocket frame ({state})")
    # A stranger: 404 on everything of the campaign.
    stranger = login(make_user("mallory"))
    pages = ("", "state.json", "dice/", "roster/", "export/", "supply/tables.escape/")
    pages += ("start-sheet/", "digest/")
    for path in (*pages, "sheet/", "sheet.txt", "sheet.json"):
        assert stranger.get(f"/campaigns/{cid}/{path}").status_code == 404
    for path in (
        "act/finish/",
        "units/",
        "invitation/",
        "invitation/revoke/",
        "messages/",
        "nudge/",
    ):
        response = stranger.post(f"/campaigns/{cid}/{path}", {"do": "add", "name": "x"})
        assert response.status_code == 404
        secrets.check(response.content.decode(), "stranger post")


def test_public_pages_carry_no_campaign_data(hosted, client, make_user, login):
    campaign, alice, bob = hosted
    for path in ("/", "/signup/", "/login/"):
        body = client.get(path).content.decode()
        assert campaign.name not in body
    other = login(make_user("mallory"))
    assert campaign.name not in other.get("/campaigns/").content.decode()
    assert campaign.name not in other.get("/campaigns/new/").content.decode()
    token = campaign.invitations.get().token
    body = other.get(f"/join/{token}/").content.decode()
    assert campaign.name not in body and other.post(f"/join/{token}/").status_code == 410
    assert client.post("/logout/").status_code == 302


@pytest.mark.parametrize("state", STATES)
def test_no_notice_carries_a_secret(state, modules, make_user, django_capture_on_commit_callbacks):
    """Issue 20: every notice the Axis player got while the state was built, and those
    the British player's further actions bring (finishing the step, revealing an RG),
    e-mailed: no subject or body holds a British secret."""
    from django.core import mail

    from campaign.models import Notification, Purchase
    from campaign.services import steps
    from campaign.services.notifications import deliver_due

    users = (make_user("axis_p"), make_user("brit_p"))
    for user in users:
        user.email = f"{user.username}@example.org"
        user.save()
    players, secrets = STATES[state](users)
    brit = players.users["british"]
    with django_capture_on_commit_callbacks(execute=True):
        if "british" in players.waiting():
            steps.finish_step(campaign_id=players.campaign_id, user=brit)
    with django_capture_on_commit_callbacks(execute=True):
        for p in Purchase.objects.filter(side="british", revealed_at__isnull=True, initial=True):
            purchases.reveal_purchase(campaign_id=players.campaign_id, user=brit, purchase_id=p.ref)
    deliver_due()
    axis = players.users["axis"]
    notices = list(Notification.objects.filter(user=axis))
    assert notices, "the Axis player was told something"
    for n in notices:
        secrets.check(f"{n.subject}\n{n.body}", f"notice {n.kind} ({state})")
    to_axis = [m for m in mail.outbox if m.to == [axis.email]]
    assert to_axis
    for m in to_axis:
        secrets.check(f"{m.subject}\n{m.body}", f"e-mail ({state})")


# --------------------------------------------------------------------------- counting (issue 18)


def test_record_counts_only_the_lines_the_viewer_sees(modules, make_user):
    """#P and #R of a revealed line count the owner's lines the viewer may see: with
    one V1 secret and one revealed, the Axis player's V1 line says #P 1, #R 14."""
    from campaign.models import Purchase

    users = (make_user("axis_p"), make_user("brit_p"))
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=187, policy="owner")
    brit = players.users["british"]
    for _ in range(2):
        purchases.purchase_rg(campaign_id=players.campaign_id, user=brit, group_id="V1")
    second = Purchase.objects.filter(group_id="V1").order_by("id").last()
    purchases.reveal_purchase(campaign_id=players.campaign_id, user=brit, purchase_id=second.ref)
    lines = campaign_view(users[0], players.campaign_id).record
    assert [(ln.group_id, ln.number_purchased, ln.number_remaining) for ln in lines] == [
        ("V1", 1, "14")
    ]
    own = campaign_view(brit, players.campaign_id).record
    assert [(ln.number_purchased, ln.number_remaining) for ln in own] == [(1, "14"), (2, "13")]


def test_the_log_window_is_filled_with_what_the_viewer_may_read(modules, make_user):
    """The newest 200 lines of the log the seat may read: 300 secret lines of the
    opponent after them do not push the older public lines out of the Axis log."""
    from campaign.models import Event, EventKind
    from campaign.seat_views.common import LOG_WINDOW

    users = (make_user("axis_p"), make_user("brit_p"))
    players, _ = campaign_at("sicily", "i", "jul14n", users)
    c = players.campaign
    public = list(
        Event.objects.visible_to("axis").filter(campaign=c).values_list("shown", flat=True)
    )
    Event.objects.bulk_create(
        Event(
            campaign=c,
            kind=EventKind.PURCHASE,
            side="british",
            secret_side="british",
            date_index=c.date_index,
            text=f"British secret no. {n}",
        )
        for n in range(300)
    )
    axis_log = [e.text for e in campaign_view(users[0], c.pk).events]
    assert len(public) < LOG_WINDOW
    assert axis_log == public[::-1]
    brit_log = campaign_view(players.users["british"], c.pk).events
    assert len(brit_log) == LOG_WINDOW and brit_log[0].text == "British secret no. 299"
