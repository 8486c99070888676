"""Issue 46: takebacks.  A side takes back its last action until the opponent has acted
on it (a result it entered, a fortification, a Done), and afterwards by a request the
opponent accepts or refuses; each takeback is logged for both, except a secret one,
of which the opponent learns nothing."""

from __future__ import annotations

import html

import pytest

from campaign.models import Event, FortificationBuy, ScenarioResult, Seat, StepMark
from campaign.services import purchases, steps, takebacks, units
from campaign.services.errors import ActionRefused
from tests.purchase_helpers import campaign_at
from tests.test_rule_mechanisms import result_values, start

pytestmark = pytest.mark.django_db


@pytest.fixture
def users(modules, make_user):
    return make_user("first_p"), make_user("second_p")


def page(client, players, side):
    client.force_login(players.users[side])
    answer = client.get(f"/campaigns/{players.campaign_id}/")
    assert answer.status_code == 200
    return html.unescape(answer.content.decode())


def log_of(players, side):
    return list(
        Event.objects.visible_to(side)
        .filter(campaign_id=players.campaign_id)
        .values_list("text", "public_text", "secret_side")
    )


# ------------------------------------------------------------------ a result entered


def test_the_side_that_entered_a_result_takes_it_back_before_it_is_confirmed(users, client):
    """APD: the American enters the scenario result with a slip (63 VP for 36), takes it
    back before the German confirms; the form comes back with its figures; both logs
    say so; the German cannot take back a result he did not enter."""
    players, module = start("pleasant-diversion", "cg", users, "american")
    steps.enter_scenario_result(
        campaign_id=players.campaign_id,
        user=players.users["american"],
        values=result_values(module, vp_american=63),
    )
    with pytest.raises(ActionRefused, match="Your opponent entered this result"):
        takebacks.take_back_result(campaign_id=players.campaign_id, user=players.users["german"])
    assert "Take back the result I entered" in page(client, players, "american")
    assert "Take back the result I entered" not in page(client, players, "german")
    takebacks.take_back_result(campaign_id=players.campaign_id, user=players.users["american"])
    assert not ScenarioResult.objects.filter(campaign_id=players.campaign_id).exists()
    assert not StepMark.objects.filter(
        campaign_id=players.campaign_id,
        cycle=players.campaign.cycle,
        step_index=players.campaign.step_index,
    ).exists()
    shown = page(client, players, "american")
    assert 'value="63"' in shown and "Enter the result" in shown
    line = "American takes back the scenario result it entered; it is to be entered again."
    for side in ("american", "german"):
        assert any(text == line for text, _, _ in log_of(players, side))
    with pytest.raises(ActionRefused, match="no entered result to take back"):
        takebacks.take_back_result(campaign_id=players.campaign_id, user=players.users["american"])


def test_a_confirmed_result_is_not_taken_back_but_amended(users):
    players, module = start("pleasant-diversion", "cg", users, "american")
    players.results(**result_values(module, vp_american=63))
    with pytest.raises(ActionRefused):
        takebacks.take_back_result(campaign_id=players.campaign_id, user=players.users["american"])


# ------------------------------------------------------------------ a fortification


def at_3_619(users, fpp=40):
    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.619")
    Seat.objects.filter(campaign_id=players.campaign_id).update(fortification_points=fpp)
    return players


def opponent_view(players, client, side="british"):
    seat = Seat.objects.get(campaign_id=players.campaign_id, side=side)
    return seat.revision, log_of(players, side)


def test_3_619_the_last_fortification_is_taken_back_and_its_fpp_refunded(users, client):
    """The Axis buys two fortifications and takes back the last: its FPP come back,
    the record is gone, its own log says so — and the British, whose seat revision and
    log are unchanged from before the purchase, learn nothing of either."""
    players = at_3_619(users)
    axis = players.users["axis"]
    before = opponent_view(players, client)
    forts = players.campaign.module_data["fortifications"]["items"]
    cheap = next(i["id"] for i in forts if not i.get("tiers"))
    purchases.buy_fortification(campaign_id=players.campaign_id, user=axis, item_id=cheap)
    purchases.buy_fortification(campaign_id=players.campaign_id, user=axis, item_id=cheap)
    spent = Seat.objects.get(campaign_id=players.campaign_id, side="axis").fortification_points
    assert "Take back my last fortification" in page(client, players, "axis")
    takebacks.take_back_fortification(campaign_id=players.campaign_id, user=axis)
    seat = Seat.objects.get(campaign_id=players.campaign_id, side="axis")
    assert seat.fortification_points > spent
    assert FortificationBuy.objects.filter(campaign_id=players.campaign_id).count() == 1
    mine = [t for t, _, secret in log_of(players, "axis") if "takes back its" in t]
    assert len(mine) == 1 and "FPP refunded" in mine[0]
    assert opponent_view(players, client) == before
    assert "takes back" not in page(client, players, "british")


def test_nothing_to_take_back_is_a_sentence(users):
    players = at_3_619(users)
    with pytest.raises(ActionRefused, match="bought no fortification here"):
        takebacks.take_back_fortification(
            campaign_id=players.campaign_id, user=players.users["axis"]
        )


# ------------------------------------------------------------------ a Done, by consent


def done_then_opponent_acts(users):
    """3.617 July 15 AM: the Axis presses Done; the British then records a unit (a
    public act): the Axis Done stands unless the British lets it be taken back."""
    players, _ = campaign_at("sicily", "i", "jul15am", users)
    steps.finish_step(campaign_id=players.campaign_id, user=players.users["axis"])
    units.add_unit(campaign_id=players.campaign_id, user=players.users["british"], name="8-1")
    return players


def ask(players):
    takebacks.ask_takeback(campaign_id=players.campaign_id, user=players.users["axis"])


def answer(players, side, decision):
    takebacks.answer_takeback(
        campaign_id=players.campaign_id, user=players.users[side], decision=decision
    )


def test_a_done_the_opponent_acted_on_is_taken_back_by_consent(users, client):
    players = done_then_opponent_acts(users)
    with pytest.raises(ActionRefused, match="Your opponent has acted since"):
        steps.take_back_done(campaign_id=players.campaign_id, user=players.users["axis"])
    assert "Ask to take back my Done at 3.617" in page(client, players, "axis")
    ask(players)
    shown = page(client, players, "british")
    assert "Your answer is awaited:" in shown and "Axis's request to take back its Done" in shown
    assert "Accept the takeback" in shown
    assert "your opponent is to accept or refuse" in page(client, players, "axis")
    with pytest.raises(ActionRefused, match="asked to take back your Done"):
        ask(players)
    answer(players, "british", "accept")
    assert "axis" in players.waiting()
    assert Seat.objects.get(campaign_id=players.campaign_id, side="axis").takeback_asked == ""
    lines = [t for t, _, _ in log_of(players, "british")]
    assert "Axis asks to take back its Done at 3.617 Purchasing Reinforcement Groups; " in (
        "".join(lines)
    )
    assert any(t.startswith("British accepts: Axis takes back its Done at 3.617") for t in lines)
    purchases.purchase_rg(
        campaign_id=players.campaign_id, user=players.users["axis"], group_id="I1"
    )


def test_a_refused_takeback_leaves_the_done_standing(users):
    players = done_then_opponent_acts(users)
    ask(players)
    with pytest.raises(ActionRefused, match="no takeback request open"):
        answer(players, "axis", "accept")  # not his to accept
    answer(players, "british", "refuse")
    assert "axis" not in players.waiting()
    assert Event.objects.filter(text__contains="its Done at 3.617 Purchasing").exists()
    with pytest.raises(ActionRefused, match="no takeback request open"):
        answer(players, "british", "accept")


def test_a_takeback_request_is_withdrawn_and_lapses_when_the_step_moves_on(users):
    players = done_then_opponent_acts(users)
    ask(players)
    answer(players, "axis", "withdraw")
    assert Seat.objects.get(campaign_id=players.campaign_id, side="axis").takeback_asked == ""
    ask(players)
    steps.finish_step(campaign_id=players.campaign_id, user=players.users["british"])
    with pytest.raises(ActionRefused, match="no takeback request open"):
        answer(players, "british", "accept")


def test_a_takeback_request_for_a_done_that_forfeited_points_is_refused(users):
    """3.619: the Done that forfeited the unspent FPP stands, by consent too."""
    players = at_3_619(users)
    steps.finish_step(campaign_id=players.campaign_id, user=players.users["axis"])
    with pytest.raises(ActionRefused, match="cannot be taken back"):
        ask(players)


def test_takeback_posts_through_the_page(users, client):
    players = done_then_opponent_acts(users)
    client.force_login(players.users["axis"])
    url = f"/campaigns/{players.campaign_id}/act/"
    assert client.post(url + "take-back-ask/", HTTP_HX_REQUEST="true").status_code == 200
    client.force_login(players.users["british"])
    bad = client.post(url + "take-back-answer/", {"decision": "maybe"}, HTTP_HX_REQUEST="true")
    assert bad.status_code == 400 and "Accept, refuse or withdraw" in bad.content.decode()
    ok = client.post(url + "take-back-answer/", {"decision": "accept"}, HTTP_HX_REQUEST="true")
    assert ok.status_code == 200
    assert "axis" in players.waiting()


# ------------------------------------------------------------------ My campaigns


def answer_awaited(client, user) -> bool:
    """Whether My campaigns tells ``user`` that an answer of his is awaited."""
    client.force_login(user)
    return "your answer</strong> to your opponent's proposal or takeback" in html.unescape(
        client.get("/campaigns/").content.decode()
    )


def test_my_campaigns_says_an_answer_to_a_takeback_is_awaited(users, client):
    """Issue 46: My campaigns says what the header says: the British is to answer the
    Axis's request to take back its Done (the Axis is not); answered, it says so no
    more."""
    players = done_then_opponent_acts(users)
    assert not answer_awaited(client, players.users["british"])
    ask(players)
    assert answer_awaited(client, players.users["british"])
    assert not answer_awaited(client, players.users["axis"])
    answer(players, "british", "refuse")
    assert not answer_awaited(client, players.users["british"])


def test_my_campaigns_says_an_answer_to_a_proposal_is_awaited(users, modules, make_user, client):
    """A datum the rules lack (Sicily 3.61422's Captured Equipment table) and an
    amendment of the result (APD 2.1's melee CVP) proposed: the opponent's My campaigns
    says his answer is awaited, the proposer's does not."""
    from campaign.services import supplements
    from tests.test_amendments import amend, apd_in_the_clean_up
    from tests.test_supplements import CAPTURED, GOOD_ROWS
    from tests.walk import host_game, players_of

    axis, brit = users
    sicily = players_of(host_game("sicily", "i", axis, brit, through_start=False), axis, brit)
    supplements.propose_supplement(
        campaign_id=sicily.campaign_id, user=axis, path=CAPTURED, form=GOOD_ROWS
    )
    assert answer_awaited(client, brit) and not answer_awaited(client, axis)

    apd, module = apd_in_the_clean_up((make_user("am_p"), make_user("ge_p")))
    assert not answer_awaited(client, apd.users["german"])
    amend(apd, "american", module, vp_american=63, cvp_lost_american=45)
    assert answer_awaited(client, apd.users["german"])
    assert not answer_awaited(client, apd.users["american"])


# ------------------------------------------------------------------ a supplied value


def test_a_supplied_value_once_accepted_is_taken_back_by_consent(users, modules, client):
    """Sicily 3.61422's Captured Equipment table is lacking: the Axis supplies it, the
    British accepts; the Axis amends it (4 retained), the British accepts again; the
    Axis takes its amendment back: its earlier table is proposed again and comes back
    once the British accepts.  Before acceptance a proposal is withdrawn alone; a datum
    supplied once has nothing to go back to; the British may not take back the
    Axis's value."""
    from campaign.selectors import module_of
    from campaign.services import supplements
    from tests.test_supplements import CAPTURED, GOOD_ROWS
    from tests.walk import host_game, players_of

    axis, brit = users
    sicily = players_of(host_game("sicily", "i", axis, brit, through_start=False), axis, brit)
    cid = sicily.campaign_id

    def supplied(form):
        p = supplements.propose_supplement(campaign_id=cid, user=axis, path=CAPTURED, form=form)
        supplements.accept_supplement(campaign_id=cid, user=brit, ref=p.ref)

    def take_back(user):
        return supplements.propose_supplement_takeback(campaign_id=cid, user=user, path=CAPTURED)

    supplied(GOOD_ROWS)
    with pytest.raises(ActionRefused, match="supplied once"):
        take_back(axis)
    supplied({**GOOD_ROWS, "row-0-range": "≤4", "row-1-range": "≥5"})
    assert module_of(sicily.campaign).table("captured_equipment").lookup(4).result == "Retained"
    with pytest.raises(ActionRefused, match="Axis supplied the Captured Equipment"):
        take_back(brit)
    assert "Take back the value I supplied" in page(client, sicily, "axis")
    assert "Take back the value I supplied" not in page(client, sicily, "british")
    proposal = take_back(axis)
    assert "Your answer is awaited:" in page(client, sicily, "british")
    supplements.accept_supplement(campaign_id=cid, user=brit, ref=proposal.ref)
    sicily.campaign.refresh_from_db()
    assert module_of(sicily.campaign).table("captured_equipment").lookup(4).result == "Eliminated"
    lines = [t for t, _, _ in log_of(sicily, "british")]
    assert any(t.startswith("Axis asks to take back the Captured Equipment") for t in lines)
