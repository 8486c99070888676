"""Issue 46: a way to talk.  The two players' messages in their campaign: plain text,
length-limited, escaped, live to the other page, a notice to an opponent who is away,
never seen by a stranger, carried by the log (and so the backup)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from campaign.models import Event, Notification, Presence, Seat
from campaign.services import messages
from campaign.services.errors import ActionRefused, NotFound
from tests.walk import Players

pytestmark = pytest.mark.django_db


@pytest.fixture
def players(hosted):
    campaign, alice, bob = hosted
    for user in (alice, bob):
        user.email = f"{user.username}@example.org"
        user.save()
    Notification.objects.all().delete()
    return Players(campaign, {"red": alice, "blue": bob})


def say(players, side, text):
    return messages.send_message(
        campaign_id=players.campaign_id, user=players.users[side], text=text
    )


def page(client, players, side):
    client.force_login(players.users[side])
    answer = client.get(f"/campaigns/{players.campaign_id}/")
    assert answer.status_code == 200
    return answer.content.decode()


def test_a_message_is_shown_to_both_players_escaped(players, client):
    say(players, "red", "See you Sunday <b>8pm</b>?")
    for side in ("red", "blue"):
        shown = page(client, players, side)
        assert "See you Sunday &lt;b&gt;8pm&lt;/b&gt;?" in shown
        assert "<b>8pm</b>" not in shown
    assert "You</span>" in page(client, players, "red").split('id="campaign-messages"')[1]


def test_bad_messages_are_refused_with_a_sentence_and_change_nothing(players):
    before = Event.objects.count()
    with pytest.raises(ActionRefused, match="Your message is empty"):
        say(players, "red", "   ")
    with pytest.raises(ActionRefused, match="at most 1000 characters"):
        say(players, "red", "x" * 1001)
    with pytest.raises(ActionRefused, match="plain text only"):
        say(players, "red", "bell \x07")
    assert Event.objects.count() == before


def test_a_stranger_can_neither_post_nor_read(players, client, make_user):
    say(players, "red", "our secret plan")
    with pytest.raises(NotFound):
        messages.send_message(campaign_id=players.campaign_id, user=make_user("mallory"), text="hi")
    client.force_login(make_user("eve"))
    answer = client.post(f"/campaigns/{players.campaign_id}/messages/", {"text": "hi"})
    assert answer.status_code == 404
    assert client.get(f"/campaigns/{players.campaign_id}/").status_code == 404
    assert Event.objects.filter(kind="message").count() == 1


def test_posting_through_the_page_answers_htmx_and_logs_it(players, client):
    client.force_login(players.users["blue"])
    answer = client.post(
        f"/campaigns/{players.campaign_id}/messages/",
        {"text": "Dispute: I had 12 CVP, not 10."},
        HTTP_HX_REQUEST="true",
    )
    assert answer.status_code == 200
    assert "Dispute: I had 12 CVP, not 10." in answer.content.decode()  # the part, not live
    line = Event.objects.get(kind="message")
    assert line.text == "Blue: Dispute: I had 12 CVP, not 10." and line.side == "blue"


def test_an_opponent_away_gets_a_notice_one_looking_does_not(players):
    say(players, "red", "Your turn to buy.")
    notice = Notification.objects.get()
    assert notice.user == players.users["blue"]
    assert "Red: Your turn to buy." in notice.body
    Notification.objects.all().delete()
    blue_seat = players.campaign.seats.get(side="blue")
    Presence.objects.create(
        socket="s-1", seat=blue_seat, expires_at=timezone.now() + timedelta(minutes=1)
    )
    say(players, "red", "Are you there?")
    assert not Notification.objects.exists()


def test_players_may_still_talk_after_the_cg_has_ended(players):
    type(players.campaign).objects.filter(pk=players.campaign_id).update(ended_at=timezone.now())
    say(players, "blue", "Good game!")
    assert Event.objects.filter(kind="message", side="blue").exists()


# --------------------------------------------------------------------------- reminders


def nudge(players, side):
    return messages.nudge_opponent(campaign_id=players.campaign_id, user=players.users[side])


def test_the_waiting_player_reminds_the_awaited_one_once_a_day(players, client):
    """Red has done T3.1 and waits for Blue: Red's header offers a reminder, which
    notifies Blue; a second one the same day is refused with the time of the first."""
    from campaign.services import steps

    players.results(**{"cvp_lost.red": 0, "cvp_lost.blue": 0, "san.red": 2, "san.blue": 2})
    steps.finish_step(campaign_id=players.campaign_id, user=players.users["red"])
    Notification.objects.all().delete()
    client.force_login(players.users["red"])
    assert (
        "Remind your opponent" in client.get(f"/campaigns/{players.campaign_id}/").content.decode()
    )
    nudge(players, "red")
    notice = Notification.objects.get()
    assert notice.user == players.users["blue"]
    assert "Red reminds Blue that the campaign waits for them at T3.1" in notice.body
    with pytest.raises(ActionRefused, match="one reminder a day per campaign"):
        nudge(players, "red")
    # The button stays (a header is drawn once per change, the limit runs by the
    # clock): a second press is answered with the sentence above.
    Seat.objects.filter(campaign_id=players.campaign_id, side="red").update(
        nudged_at=timezone.now() - timedelta(days=1, minutes=1)
    )
    nudge(players, "red")  # a day later


def test_a_reminder_is_refused_to_the_awaited_player(players):
    players.results(**{"cvp_lost.red": 0, "cvp_lost.blue": 0, "san.red": 2, "san.blue": 2})
    with pytest.raises(ActionRefused, match="waits for you too"):
        nudge(players, "blue")  # T3.1 waits for both
    assert not Event.objects.filter(kind="nudge").exists()


def test_a_refusal_reason_is_said_in_the_players_thread(modules, make_user, client):
    """Issue 46: "dispute and refusal reasons appear in it": the British refuses the
    Captured Equipment table the Axis proposed (3.61422), and his reason is in both
    players' thread, escaped."""
    from campaign.services import supplements
    from tests.test_supplements import CAPTURED, GOOD_ROWS
    from tests.walk import host_game, players_of

    axis, brit = make_user("axis_p"), make_user("brit_p")
    sicily = players_of(host_game("sicily", "i", axis, brit, through_start=False), axis, brit)
    proposal = supplements.propose_supplement(
        campaign_id=sicily.campaign_id, user=axis, path=CAPTURED, form=GOOD_ROWS
    )
    supplements.refuse_supplement(
        campaign_id=sicily.campaign_id, user=brit, ref=proposal.ref, reason="a 4 <b>retains</b>"
    )
    for side in ("axis", "british"):
        shown = page(client, sicily, side)
        thread = shown.split('id="campaign-messages"')[1].split("</section>")[0]
        assert "(refusing the Captured Equipment table) a 4 &lt;b&gt;retains&lt;/b&gt;" in thread


def test_the_unread_count_is_the_readers_and_seeing_it_tells_the_writer_nothing(
    players, client, make_user
):
    """Playtest 26: each message sent is one more unread for the opponent's seat; the
    writer counts none of his own.  Seeing them (the campaign page posts it) clears the
    reader's count and renews his seat alone: the writer's pages stay as they were.  A
    stranger's post is not found and changes nothing."""

    def seat(side):
        return Seat.objects.get(campaign_id=players.campaign_id, side=side)

    say(players, "red", "Sunday?")
    say(players, "red", "Or Monday.")
    assert (seat("blue").messages_unread, seat("red").messages_unread) == (2, 0)
    client.force_login(players.users["blue"])
    roster = client.get(f"/campaigns/{players.campaign_id}/roster/").content.decode()
    assert "2 new messages from your opponent" in roster
    writer = seat("red").revision
    url = f"/campaigns/{players.campaign_id}/messages/seen/"
    client.force_login(make_user("stranger26"))
    assert client.post(url).status_code == 404
    assert seat("blue").messages_unread == 2
    client.force_login(players.users["blue"])
    assert client.post(url).status_code in (200, 204, 302)
    assert seat("blue").messages_unread == 0
    assert seat("red").revision == writer  # the writer hears nothing of it
    roster = client.get(f"/campaigns/{players.campaign_id}/roster/").content.decode()
    assert "new message" not in roster
