"""Sicily 3.60741-3.60742 (unit withdrawal) and 3.6141c (AFV Recall), played through
the services as two players meet them: the "not yet" sentences of the fourth pass,
now enforced (docs/rules-audit/pass-5-sicily.md)."""

from __future__ import annotations

import pytest

from campaign.models import Campaign, Event, Unit
from campaign.selectors import module_of
from campaign.services import steps, units
from campaign.services.errors import ActionRefused
from rules import machine
from tests import test_rule_mechanisms as mechanisms
from tests.purchase_helpers import add_vehicle, campaign_at, keep_retained_units, make_rolls
from tests.test_rule_mechanisms import add, buy
from tests.walk import host_game, players_of

users = mechanisms.users
fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


def answers(module, **yes):
    """A scenario result: no losses, SAN 0, and the yes/no answers given."""
    values = {}
    for f in module.result_fields:
        for s in (x.id for x in module.sides):
            values[f"{f.id}.{s}"] = yes.get(f.id, False) if f.kind == "bool" else 0
    return values


def at_step_after(date_id, step_id, users, **yes):
    """Both players enter the result of the CG scenario played on ``date_id`` with the
    answers ``yes`` and walk to ``step_id`` of the RePh that follows it."""
    alice, bob = users
    c = host_game("sicily", "i", alice, bob, name="withdrawal")
    players = players_of(c, alice, bob)
    module = module_of(c)
    Campaign.objects.filter(pk=c.pk).update(date_index=machine.date_index(module, date_id))
    players.results(**answers(module, **yes))
    players.until_step(step_id)
    return players


def finish(players, side):
    steps.finish_step(campaign_id=players.campaign_id, user=players.users[side])


def keep(players, line, number):
    """The Axis keeps ``number`` of a line withdrawn off map, the rest leaving play (its
    choice, 3.60742 EXC)."""
    units.update_unit(
        campaign_id=players.campaign_id,
        user=players.users["axis"],
        unit_id=line.ref,
        name=line.name,
        markers=["withdrawn"],
        number=number,
    )


def lines(players, side, **kw):
    return list(Unit.objects.filter(campaign_id=players.campaign_id, side=side, **kw))


# ------------------------------------------------------------------------- 3.60742


def test_3_60742_non_isolated_i4_i5_units_are_withdrawn_after_july_14_pm(
    users, modules, fixed_dice
):
    """3.60742: "When British units are removed pursuant to 3.60741 the Axis player must
    remove all remaining elements of RGs I4 and I5 ... [EXC: Isolated portions of these
    RGs are exempt from withdrawal]. Withdrawn Axis units ... are retained by the Axis off
    map".  The July 14 PM result says the British units were removed (3.60741, the
    players' answer): completing 3.607 marks the Axis I4's squads and SW Withdrawn; the
    Axis I5 line marked Isolated stays; another Axis unit and the British I4 (the
    British chart's own I4) stay.  EXC "No more than ... nine squad-equivalents of MMC
    ... any excess units, owners choice, are removed from play": the Axis's Done waits
    at the next step until it has removed the excess, then goes."""
    players, module = campaign_at("sicily", "i", "jul14pm", users)
    cid, axis = players.campaign_id, players.users["axis"]
    fixed_dice.extend([[1, 1]])  # the I4's strength DR: Full (12 squads)
    i4 = buy(players, "axis", "I4")
    i5 = buy(players, "axis", "I5")
    british_i4 = buy(players, "british", "I4")
    make_rolls(players, "axis", i4)
    make_rolls(players, "axis", i5)
    make_rolls(players, "british", british_i4)
    for line in lines(players, "axis", purchase=i5):
        units.update_unit(
            campaign_id=cid, user=axis, unit_id=line.ref, name=line.name, markers=["isolated"]
        )
    other = add(players, "axis", "8-1 leader", "leader", "wounded")
    players.until("initiative")
    keep_retained_units(players)  # 3.6212 footnote *: the Axis Attack needs British units
    players.chits(axis="attack", british="attack")
    players.until("results")
    players.results(**answers(module, british_withdrawal=True))
    players.until_step("3.607")
    players.finish()
    i4_lines = lines(players, "axis", purchase=i4)
    assert i4_lines and all(u.markers == ["withdrawn"] for u in i4_lines)
    assert {u.kind for u in i4_lines} >= {"squad", "sw"}
    assert all(u.markers == ["isolated"] for u in lines(players, "axis", purchase=i5))
    other.refresh_from_db()
    assert other.markers == ["wounded"]
    assert all(u.markers == [] for u in lines(players, "british", purchase=british_i4))
    assert Event.objects.filter(campaign_id=cid, text__contains="(3.60742)").exists()
    # 12 squads withdrawn, nine may be kept: Done waits for the Axis's choice.
    squads = next(u for u in i4_lines if u.kind == "squad")
    assert squads.count == 12
    with pytest.raises(ActionRefused, match=r"no more than 9 squad-equivalents.*remove 3\b"):
        finish(players, "axis")
    keep(players, squads, 9)  # the Axis's choice: three squads leave play
    finish(players, "axis")


def test_3_60742_no_withdrawal_without_the_answer_or_after_another_date(users, modules):
    """3.60741-3.60742 hold only "During the RePh following the July 14 PM
    CG-scenario" and only "When British units are removed pursuant to 3.60741": after
    July 14 PM with the answer no, and after July 15 AM with the answer yes, an Axis
    unit of I4 stays in play."""
    for date_id, said in (("jul14pm", False), ("jul15am", True)):
        players = at_step_after(date_id, "3.607", users, british_withdrawal=said)
        squad = add(players, "axis", "4-6-7", "squad", number=3)
        Unit.objects.filter(pk=squad.pk).update(purchase=_purchase(players, "axis", "I4", date_id))
        players.finish()
        squad.refresh_from_db()
        assert squad.markers == [], date_id


def _purchase(players, side, group_id, date_id):
    """An RG line on ``side``'s record (bought and revealed), for units to come from."""
    from campaign.models import Purchase

    module = module_of(players.campaign)
    return Purchase.objects.create(
        campaign_id=players.campaign_id,
        side=side,
        cycle=0,
        date_index=machine.date_index(module, date_id),
        group_id=group_id,
        group_type="Coy",
        cost=0,
        ordinal=1,
        date_ordinal=1,
        initial=True,
    )


@pytest.mark.parametrize(
    ("held", "refused"),
    [
        (
            [("8-1 leader", "leader", 4)],
            r"no more than 3 leaders withdrawn off map \(3\.60742 EXC\): remove 1",
        ),
        ([("4-6-7", "squad", 8), ("2-4-7", "half_squad", 3)], r"9 squad-equivalents .*remove 0\.5"),
        ([("LMG", "sw", 2)], r"1 non-captured support weapon .*remove 1"),
    ],
)
def test_3_60742_exc_caps_three_leaders_nine_squad_equivalents_one_sw(
    users, modules, held, refused
):
    """3.60742 EXC: "No more than three leaders, nine squad-equivalents of MMC, and one
    non-captured support weapon may be retained in this fashion; any excess units,
    owners choice, are removed from play".  Counted from the retained forces (a
    half-squad is half a squad-equivalent): over a cap, Done is refused with the rule
    and nothing changes; the Axis removes the excess of its choice and goes on.  At the
    cap (3 leaders; 8 squads + 2 HS = 9; 1 LMG, a captured MMG besides) Done goes."""
    players = at_step_after("jul15am", "3.608", users)
    cid = players.campaign_id
    made = [add(players, "axis", name, kind, "withdrawn", n) for name, kind, n in held]
    add(players, "axis", "MMG", "sw", "withdrawn", markers=["captured"])
    before = Event.objects.filter(campaign_id=cid).count()
    with pytest.raises(ActionRefused, match=refused) as refusal:
        finish(players, "axis")
    assert refusal.value.status == 409
    assert Event.objects.filter(campaign_id=cid).count() == before
    keep(players, made[-1], made[-1].count - 1)
    finish(players, "axis")


def test_3_60742_withdrawn_units_return_when_the_british_control_five_hexes_north(users, modules):
    """3.60742: withdrawn units "may be returned to play after a CG Date ends with the
    British player in control of >= 5 hexes North of the river(s)".  A result that says
    so: completing 3.607 clears the Withdrawn marker (the unit keeps its others); a
    result that does not leaves it."""
    for said in (False, True):
        players = at_step_after("jul15am", "3.607", users, british_control_north=said)
        leader = add(players, "axis", "9-1 leader", "leader", "withdrawn", markers=["wounded"])
        players.finish()
        leader.refresh_from_db()
        assert ("withdrawn" in leader.state.marked) is not said
        assert "wounded" in leader.state.marked


# ------------------------------------------------------------------------- 3.6141c


def test_3_6141c_a_mobile_non_isolated_afv_leaves_recall_an_isolated_one_keeps_it(users, modules):
    """3.6141c: "Each Mobile, non-Isolated Retained AFV under Recall [is no longer under
    Recall: the verb is lost in the OCR, the module declares its reading]. If Mobile,
    under Recall, and Isolated, such an AFV begins the next scenario under Recall".  As
    3.614 begins (3.613 completed): the Mobile, non-Isolated Recalled StuG is in good
    order; the Isolated one and the Immobilized one stay Recalled."""
    players = at_step_after("jul15am", "3.613", users)
    free, _ = add_vehicle(players, "axis", "StuG IIIG", status="recalled")
    isolated, _ = add_vehicle(players, "axis", "StuG IIIG", status="recalled", markers=["isolated"])
    stuck, _ = add_vehicle(players, "axis", "StuG IIIG", status="recalled", markers=["immobilized"])
    players.finish()
    assert players.step.id == "3.614"
    for unit in (free, isolated, stuck):
        unit.refresh_from_db()
    assert "recalled" not in free.state.marked
    assert "recalled" in isolated.state.marked and "isolated" in isolated.state.marked
    assert "recalled" in stuck.state.marked
    assert Event.objects.filter(campaign_id=players.campaign_id, text__contains="3.6141c").exists()
