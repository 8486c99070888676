"""Issue 46: "dice already rolled ... are never taken back (a roll's *write-back* to the
roster can be corrected by consent)".  APD 3.31: a malfunctioned Gun that rolls a 6 on
its Repair dr is removed; the roll stands, but its write-back to the retained forces is
corrected when the opponent accepts the side's proposal; both logs say so."""

from __future__ import annotations

import html

import pytest

from campaign.models import Event, Purchase, Roll, RollCorrection, Unit
from campaign.services import corrections, units
from campaign.services.errors import ActionRefused
from tests import test_rule_mechanisms as mechanisms
from tests.test_rule_mechanisms import add, apd_at, roll

fixed_dice = mechanisms.fixed_dice
users = mechanisms.users

pytestmark = pytest.mark.django_db


def page(client, players, side):
    client.force_login(players.users[side])
    answer = client.get(f"/campaigns/{players.campaign_id}/")
    assert answer.status_code == 200
    return html.unescape(answer.content.decode())


def propose(players, unit_ref, side="american", **line):
    line = {"name": "57L AT", "kind": "gun", "markers": ["malfunctioned"], **line}
    return corrections.propose_roll_correction(
        campaign_id=players.campaign_id,
        user=players.users[side],
        unit_id=unit_ref,
        reason=line.pop("reason", "I rolled for the wrong Gun: the 57L stays"),
        **line,
    )


def answer(players, side, correction, decision, reason=""):
    corrections.answer_roll_correction(
        campaign_id=players.campaign_id,
        user=players.users[side],
        ref=correction.ref,
        decision=decision,
        reason=reason,
    )


def removed_gun(users, fixed_dice):
    """APD 3.31: the American's malfunctioned 57L AT rolls a 6 on the MA/Gun Repair
    table: "a Gun is removed from the board"."""
    players, _ = apd_at(users, "3.3")
    gun = add(players, "american", "57L AT", "gun", "malfunctioned")
    fixed_dice.append([6])
    roll(players, "american", "repair_ma_gun", gun)
    assert not Unit.objects.filter(pk=gun.pk).exists()
    return players, gun


def test_3_31_a_roll_that_removed_a_gun_is_corrected_by_consent(users, modules, fixed_dice, client):
    """The dice stand (one roll, its 6 unchanged); the American proposes that the Gun
    stays, malfunctioned; the German's page says his answer is awaited; accepted, the
    Gun is back on the American's retained forces under its own reference (the roll
    still names it) and both logs say what was corrected."""
    players, gun = removed_gun(users, fixed_dice)
    shown = page(client, players, "american")
    assert "Correct what the MA/Gun Repair" in shown or "Correct what the" in shown
    proposal = propose(players, gun.ref)
    german = page(client, players, "german")
    assert "Your answer is awaited:" in german and "the correction of American's" in german
    assert "Accept the correction" in german and "I rolled for the wrong Gun" in german
    assert "Accept the correction" not in page(client, players, "american")
    with pytest.raises(ActionRefused, match="Your opponent answers the correction"):
        answer(players, "american", proposal, "accept")
    answer(players, "german", proposal, "accept")
    back = Unit.objects.get(campaign_id=players.campaign_id, ref=gun.ref)
    assert (back.name, back.kind, back.markers) == ("57L AT", "gun", ["malfunctioned"])
    (r,) = Roll.objects.filter(campaign_id=players.campaign_id, table_id="repair_ma_gun")
    assert r.faces == [6] and r.unit_ref == gun.ref
    lines = list(
        Event.objects.filter(campaign_id=players.campaign_id).values_list("text", flat=True)
    )
    assert any(
        t.startswith("German accepts American's correction of what its")
        and "gone from the retained forces → 57L AT (Gun), malfunctioned" in t
        for t in lines
    )
    assert RollCorrection.objects.get().status == "accepted"
    assert "Your answer is awaited" not in page(client, players, "german")


def test_a_refused_correction_leaves_the_unit_as_the_roll_left_it(users, modules, fixed_dice):
    players, gun = removed_gun(users, fixed_dice)
    proposal = propose(players, gun.ref)
    with pytest.raises(ActionRefused, match="say why"):
        answer(players, "german", proposal, "refuse", reason="  ")
    answer(players, "german", proposal, "refuse", reason="You chose that Gun yourself")
    assert not Unit.objects.filter(campaign_id=players.campaign_id, ref=gun.ref).exists()
    assert Event.objects.filter(text__contains="“You chose that Gun yourself”").exists()
    with pytest.raises(ActionRefused, match="no such open correction"):
        answer(players, "german", proposal, "accept")


def test_a_correction_is_withdrawn_and_lapses_when_the_step_moves_on(users, modules, fixed_dice):
    players, gun = removed_gun(users, fixed_dice)
    proposal = propose(players, gun.ref)
    with pytest.raises(ActionRefused, match="Only its proposer withdraws"):
        answer(players, "german", proposal, "withdraw")
    with pytest.raises(ActionRefused, match="proposed a correction of this roll already"):
        propose(players, gun.ref)
    answer(players, "american", proposal, "withdraw")
    again = propose(players, gun.ref)
    players.until_step("3.4")
    with pytest.raises(ActionRefused, match="no such open correction"):
        answer(players, "german", again, "accept")


def test_what_is_not_a_roll_of_the_side_here_is_refused_with_a_sentence(users, modules, fixed_dice):
    """A unit no roll was made for, the opponent's roll, a line unchanged, no reason,
    a bad status: each refused in words, nothing recorded."""
    players, gun = removed_gun(users, fixed_dice)
    other = add(players, "american", "MMG", "sw", "malfunctioned")
    with pytest.raises(ActionRefused, match="no roll for that unit at this step"):
        propose(players, other.ref)
    with pytest.raises(ActionRefused, match="no roll for that unit at this step"):
        propose(players, gun.ref, side="german")
    with pytest.raises(ActionRefused, match="say why"):
        propose(players, gun.ref, reason="")
    with pytest.raises(ActionRefused, match="markers among those listed"):
        propose(players, gun.ref, markers=["invincible"])
    with pytest.raises(ActionRefused, match="as it stands"):
        propose(players, gun.ref, gone=True)
    assert not RollCorrection.objects.exists()


def test_a_secret_roll_is_not_corrected_before_its_reveal(users, modules, fixed_dice):
    """A roll for a unit of a still-secret RG is the side's secret: the opponent could
    not see what he would consent to, so the proposal is refused, and nothing of it is
    recorded."""
    players, _ = apd_at(users, "3.3")
    c = players.campaign
    bought = Purchase.objects.create(
        campaign=c,
        side="american",
        cycle=c.cycle,
        date_index=c.date_index,
        group_id="X1",
        group_type="Secret group",
        cost=1,
        ordinal=1,
        date_ordinal=1,
    )
    gun = add(players, "american", "37L AT", "gun", "malfunctioned")
    Unit.objects.filter(pk=gun.pk).update(purchase=bought)
    gun.refresh_from_db()
    assert units.is_secret(gun)
    fixed_dice.append([6])
    roll(players, "american", "repair_ma_gun", gun)
    events = Event.objects.count()
    with pytest.raises(ActionRefused, match="still your secret"):
        propose(players, gun.ref, name="37L AT")
    assert Event.objects.count() == events and not RollCorrection.objects.exists()


def test_corrections_post_through_the_page(users, modules, fixed_dice, client):
    players, gun = removed_gun(users, fixed_dice)
    url = f"/campaigns/{players.campaign_id}/act/"
    client.force_login(players.users["american"])
    bad = client.post(
        url + "correct/",
        {"unit": gun.ref, "name": "57L AT", "kind": "gun"},
        HTTP_HX_REQUEST="true",
    )
    assert bad.status_code == 400 and "say why" in bad.content.decode()
    ok = client.post(
        url + "correct/",
        {
            "unit": gun.ref,
            "name": "57L AT",
            "kind": "gun",
            "markers": "malfunctioned",
            "reason": "wrong Gun",
        },
        HTTP_HX_REQUEST="true",
    )
    assert ok.status_code == 200
    proposal = RollCorrection.objects.get()
    client.force_login(players.users["german"])
    junk = client.post(url + "correct-answer/", {"correction": proposal.ref, "decision": "maybe"})
    assert junk.status_code == 400
    done = client.post(
        url + "correct-answer/",
        {"correction": proposal.ref, "decision": "accept"},
        HTTP_HX_REQUEST="true",
    )
    assert done.status_code == 200
    assert Unit.objects.filter(campaign_id=players.campaign_id, ref=gun.ref).exists()


def test_my_campaigns_says_a_correction_awaits_an_answer(users, modules, fixed_dice, client):
    from tests.test_takebacks import answer_awaited

    players, gun = removed_gun(users, fixed_dice)
    proposal = propose(players, gun.ref)
    assert answer_awaited(client, players.users["german"])
    assert not answer_awaited(client, players.users["american"])
    answer(players, "german", proposal, "accept")
    assert not answer_awaited(client, players.users["german"])
