"""Issues 44 (losses where they happen) and 46 (amend with consent): the confirmed
scenario result is amended by a proposal the opponent accepts, until a step reads it.
APD: "CVP are recorded normally throughout this phase" (2. Clean-Up): the losses of
melee, encirclement and blazes (2.1-2.8) join the result before 2.9 and 2.92 read it."""

from __future__ import annotations

import pytest

from campaign.models import Event, ScenarioResult, Seat
from campaign.services import steps
from campaign.services.errors import ActionRefused
from tests.test_rule_mechanisms import result_values, start

pytestmark = pytest.mark.django_db


@pytest.fixture
def users(make_user):
    return make_user("american_p"), make_user("german_p")


def amend(players, side, module, reason="4 CVP lost in the Clean-Up melee (2.1)", **figures):
    steps.propose_result_amendment(
        campaign_id=players.campaign_id,
        user=players.users[side],
        values=result_values(module, **figures),
        reason=reason,
    )


def answer(players, side, accept):
    steps.answer_result_amendment(
        campaign_id=players.campaign_id, user=players.users[side], accept=accept
    )


def result(players):
    return ScenarioResult.objects.get(campaign_id=players.campaign_id)


def apd_in_the_clean_up(users):
    players, module = start("pleasant-diversion", "cg", users, "american")
    players.results(**result_values(module, vp_american=63, cvp_lost_american=41))
    players.until_step("2.1")
    return players, module


def test_2_clean_up_losses_join_the_result_by_consent_and_2_92_reads_them(users, modules):
    """2.92 EX: 55 required - 63 scored + 41 CVP suffered = 33 PP; with the 4 CVP the
    American lost in the Clean-Up's melee (2.1), agreed by the German, 37."""
    players, module = apd_in_the_clean_up(users)
    amend(players, "american", module, vp_american=63, cvp_lost_american=45)
    assert result(players).data["cvp_lost"]["american"] == 41  # not until accepted
    proposed = Event.objects.filter(kind="amendment").last().text
    assert "CVP lost in the scenario (American) 41 → 45" in proposed
    answer(players, "german", accept=True)
    assert result(players).data["cvp_lost"]["american"] == 45
    assert result(players).amendment is None
    players.until("purchase")
    assert Seat.objects.get(campaign_id=players.campaign_id, side="american").points == 37


def test_a_refused_or_withdrawn_amendment_leaves_the_agreed_figures(users, modules):
    players, module = apd_in_the_clean_up(users)
    amend(players, "american", module, vp_american=63, cvp_lost_american=50)
    with pytest.raises(ActionRefused, match="Your opponent accepts or refuses your amendment"):
        answer(players, "american", accept=True)
    with pytest.raises(ActionRefused, match="American has proposed an amendment"):
        amend(players, "german", module, vp_american=60, cvp_lost_american=41)
    answer(players, "german", accept=False)
    assert result(players).data["cvp_lost"]["american"] == 41
    amend(players, "american", module, vp_american=63, cvp_lost_american=44)
    answer(players, "american", accept=False)  # withdrawn by its author
    assert result(players).data["cvp_lost"]["american"] == 41
    texts = [e.text for e in Event.objects.filter(kind="amendment")]
    assert any("German refuses the amendment" in t for t in texts)
    assert any("American withdraws its amendment" in t for t in texts)


def test_bad_amendments_are_refused_and_change_nothing(users, modules):
    players, module = apd_in_the_clean_up(users)
    with pytest.raises(ActionRefused, match="Say why the result changes"):
        amend(players, "american", module, reason="", vp_american=63, cvp_lost_american=45)
    with pytest.raises(ActionRefused, match="already agreed"):
        amend(players, "american", module, vp_american=63, cvp_lost_american=41)
    with pytest.raises(ActionRefused, match="must be between 0 and 9999"):
        amend(players, "american", module, vp_american=63, cvp_lost_american=10**6)
    assert result(players).amendment is None
    assert not Event.objects.filter(kind="amendment").exists()


def test_2_92_an_amendment_after_the_purchase_points_recomputes_them(users, modules):
    """2.92 EX: 55 - 63 + 41 CVP = 33 PP, computed at 2.92.  Amended afterwards (the 4
    CVP of the melee remembered late), by consent: 55 - 63 + 45 = 37, the difference
    added to the PP on hand; the American's log says so in figures, the German's that
    the PP were recomputed (secret)."""
    players, module = apd_in_the_clean_up(users)
    players.until("purchase")
    american = Seat.objects.get(campaign_id=players.campaign_id, side="american")
    assert american.points == 33
    amend(players, "american", module, vp_american=63, cvp_lost_american=45)
    answer(players, "german", accept=True)
    assert Seat.objects.get(campaign_id=players.campaign_id, side="american").points == 37
    mine = Event.objects.visible_to("american").filter(kind="amendment", secret_side="american")
    mine = mine.last()
    assert "recomputed from the amended result: 33 → 37 replenished; 33 → 37" in mine.shown
    theirs = Event.objects.visible_to("german").filter(kind="amendment", secret_side="american")
    theirs = theirs.last()
    assert theirs.shown == (
        "American's PP of 2.92 Purchase Points are recomputed from the amended result (secret)."
    )
    assert "33" not in theirs.shown


def test_2_9_an_amendment_after_the_winner_was_recorded_records_it_again(users, modules):
    """2.9: the winner is recorded from the result; an amendment that changes it, made
    after 2.9, records the new winner in the log."""
    players, module = apd_in_the_clean_up(users)
    players.until("purchase")
    before = result(players).winner
    amend(players, "american", module, vp_american=0, cvp_lost_american=41)
    answer(players, "german", accept=True)
    after = result(players).winner
    if before != after:
        assert Event.objects.filter(kind="winner").count() == 2


def test_points_recomputed_never_go_below_zero(users, modules):
    """The PP already spent stay spent: fewer PP from the amended result leave 0."""
    players, module = apd_in_the_clean_up(users)
    players.until("purchase")
    Seat.objects.filter(campaign_id=players.campaign_id, side="american").update(points=2)
    amend(players, "american", module, vp_american=63, cvp_lost_american=30)  # 22 PP
    answer(players, "german", accept=True)
    assert Seat.objects.get(campaign_id=players.campaign_id, side="american").points == 0
    mine = Event.objects.visible_to("american").filter(kind="amendment", secret_side="american")
    mine = mine.last()
    assert "only 2 were left" in mine.shown


def test_3_616_an_amendment_that_would_call_for_a_loss_point_dr_not_rolled_is_refused(
    users, modules
):
    """3.6162: after 3.616 made no loss-point DR (10 CVP vs 5), losses amended to 20 vs
    5 would call for one: dice are not rolled again, so the amendment is refused as it
    is proposed (where the proposer clicked, not at the opponent's acceptance), with the
    reason, and nothing changes."""
    players, module = start("sicily", "i", users, "axis")
    players.results(**result_values(module, cvp_lost_axis=10, cvp_lost_british=5))
    players.until("purchase")
    points = sorted(Seat.objects.filter(campaign_id=players.campaign_id).values_list("points"))
    with pytest.raises(ActionRefused, match="dice are not rolled again"):
        amend(players, "axis", module, reason="late losses", cvp_lost_axis=20, cvp_lost_british=5)
    assert result(players).amendment is None
    assert result(players).data["cvp_lost"]["axis"] == 10
    assert points == sorted(
        Seat.objects.filter(campaign_id=players.campaign_id).values_list("points")
    )


def test_the_page_offers_the_agreed_figures_and_shows_the_proposal(users, modules, client):
    players, module = apd_in_the_clean_up(users)
    client.force_login(players.users["german"])
    page = client.get(f"/campaigns/{players.campaign_id}/").content.decode()
    assert "Amend the scenario result" in page
    assert 'id="amend-cvp_lost.american"' in page and 'value="41"' in page
    amend(players, "american", module, vp_american=63, cvp_lost_american=45)
    page = client.get(f"/campaigns/{players.campaign_id}/").content.decode()
    assert "American proposes to amend the scenario result" in page
    assert "Accept the amendment" in page


def test_sicily_3_616_loss_points_read_the_amended_losses(users, modules):
    """3.6162: a side that lost at least twice the CVP of the other, and 8 more, rolls
    for loss points at 3.616; losses agreed during 3.601-3.615 count."""
    from campaign.models import Roll

    players, module = start("sicily", "i", users, "axis")
    players.results(**result_values(module, cvp_lost_axis=10, cvp_lost_british=5))
    players.until_step("3.601")
    amend(
        players,
        "axis",
        module,
        reason="the encircled 4-6-8s eliminated at 3.604",
        cvp_lost_axis=20,
        cvp_lost_british=5,
    )
    answer(players, "british", accept=True)
    players.until("purchase")
    assert Roll.objects.filter(purpose__startswith="CPP loss points", side="axis").exists()


def test_a_disputed_result_comes_back_with_its_figures_and_the_reason(users, modules, client):
    """Issue 46: the re-entry form of a disputed result is not blank: it holds the
    figures disputed, and says who disputed them and why."""
    players, module = start("pleasant-diversion", "cg", users, "american")
    steps.enter_scenario_result(
        campaign_id=players.campaign_id,
        user=players.users["american"],
        values=result_values(module, vp_american=63, cvp_lost_american=41),
    )
    steps.dispute_scenario_result(
        campaign_id=players.campaign_id,
        user=players.users["german"],
        reason="You lost 43 CVP, not 41",
    )
    client.force_login(players.users["american"])
    page = client.get(f"/campaigns/{players.campaign_id}/").content.decode()
    assert "German disputed the result entered: “You lost 43 CVP, not 41”" in page
    assert 'id="f-cvp_lost.american" name="cvp_lost.american" min="0" max="9999"' in page
    assert 'value="41"' in page and 'value="63"' in page


def test_a_dispute_reason_is_said_in_the_players_thread(users, modules, client):
    players, module = start("pleasant-diversion", "cg", users, "american")
    steps.enter_scenario_result(
        campaign_id=players.campaign_id,
        user=players.users["american"],
        values=result_values(module, vp_american=63, cvp_lost_american=41),
    )
    steps.dispute_scenario_result(
        campaign_id=players.campaign_id, user=players.users["german"], reason="43 CVP, not 41"
    )
    client.force_login(players.users["american"])
    page = client.get(f"/campaigns/{players.campaign_id}/").content.decode()
    thread = page.split('id="campaign-messages"')[1].split("</section>")[0]
    assert "(disputing the scenario result) 43 CVP, not 41" in thread


def test_an_amendment_cannot_undo_the_san_adjustment(users, modules):
    """Sicily 3.6122 adjusts the SANs the result gave: past it, a SAN in the result is
    no longer amended, and amending the CVP leaves the adjusted SANs as they are."""
    players, module = start("sicily", "i", users, "axis")
    players.results(**result_values(module, cvp_lost_axis=10, san_axis=3, san_british=3))
    players.until_step("3.613")
    Seat.objects.filter(campaign_id=players.campaign_id, side="axis").update(san=2)  # as adjusted
    with pytest.raises(ActionRefused, match="The SANs were adjusted at 3.6122"):
        amend(players, "axis", module, cvp_lost_axis=10, san_axis=5, san_british=3)
    amend(players, "axis", module, cvp_lost_axis=14, san_axis=3, san_british=3)
    answer(players, "british", accept=True)
    assert Seat.objects.get(campaign_id=players.campaign_id, side="axis").san == 2


def test_an_amendment_is_not_changed_under_its_answer_and_lapses_if_unanswered(users, modules):
    players, module = apd_in_the_clean_up(users)
    amend(players, "american", module, vp_american=63, cvp_lost_american=45)
    with pytest.raises(ActionRefused, match="withdraw it first to change it"):
        amend(players, "american", module, vp_american=63, cvp_lost_american=99)
    players.until("purchase")  # 2.9 reads the result as agreed
    assert result(players).amendment is None
    assert result(players).data["cvp_lost"]["american"] == 41
    assert Event.objects.filter(kind="amendment", text__contains="lapses unanswered").exists()


def test_the_header_says_an_answer_is_awaited(users, modules, client):
    """Issue 46: the header tells the player whose answer a proposal awaits (and only
    him) before anything else of the campaign."""
    players, module = apd_in_the_clean_up(users)
    amend(players, "american", module, vp_american=63, cvp_lost_american=45)
    client.force_login(players.users["german"])
    page = client.get(f"/campaigns/{players.campaign_id}/").content.decode()
    header = page.split('id="campaign-header"')[1].split("</section>")[0]
    assert "Your answer is awaited:" in header
    assert "the amendment of the result American proposed" in header
    client.force_login(players.users["american"])
    page = client.get(f"/campaigns/{players.campaign_id}/").content.decode()
    assert (
        "Your answer is awaited" not in page.split('id="campaign-header"')[1].split("</section>")[0]
    )


def test_a_figure_of_thousands_of_digits_is_a_sentence_not_a_500(users, modules, client):
    """A result (or an amendment, a forgo, a typed DRM) of 5,000 digits, ASCII or
    full-width: a 4xx with a sentence, the campaign unchanged (Python would refuse to
    parse it: its integer-string limit)."""
    players, module = start("pleasant-diversion", "cg", users, "american")
    client.force_login(players.users["american"])
    for digits in ("9" * 5000, "９" * 5000):
        values = {**result_values(module, vp_american=63), "cvp_lost.american": digits}
        answer = client.post(
            f"/campaigns/{players.campaign_id}/act/result/", values, HTTP_HX_REQUEST="true"
        )
        assert answer.status_code == 400
        assert "at most 9 digits" in answer.content.decode()
    assert not ScenarioResult.objects.filter(campaign_id=players.campaign_id).exists()


def test_a_recomputation_tells_the_opponent_the_same_whatever_the_points_spent(users, modules):
    """Non-interference: the German's log after an amendment recomputed the American's
    PP is the same whether the American had spent none of them or all (a clamp at 0
    included)."""
    from django.db import transaction

    players, module = apd_in_the_clean_up(users)
    players.until("purchase")
    seen = []
    for points in (33, 0):
        mark = transaction.savepoint()
        Seat.objects.filter(campaign_id=players.campaign_id, side="american").update(points=points)
        amend(players, "american", module, vp_american=63, cvp_lost_american=30)
        answer(players, "german", accept=True)
        seen.append(
            list(
                Event.objects.visible_to("german")
                .filter(campaign_id=players.campaign_id)
                .values_list("shown", flat=True)
            )
        )
        transaction.savepoint_rollback(mark)
    assert seen[0] == seen[1]
