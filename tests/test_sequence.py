"""Issue 6: the phase machine walks both players through the module's steps in rule
order; turns, scenario results, computations, Idle loops and CG end."""

import pytest

from campaign.models import Event, Roll, ScenarioResult, StepMark
from campaign.selectors import position_token
from campaign.services import steps, units
from campaign.services.errors import ActionRefused
from tests.purchase_helpers import keep_retained_units
from tests.walk import Players, host_game, players_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def skirmish(hosted):
    campaign, alice, bob = hosted
    return Players(campaign, {"red": alice, "blue": bob})


def result(red_cvp=0, blue_cvp=0, red_san=3, blue_san=3):
    return {
        "cvp_lost.red": red_cvp,
        "cvp_lost.blue": blue_cvp,
        "san.red": red_san,
        "san.blue": blue_san,
    }


def test_campaign_starts_in_play_waiting_for_the_initial_results(skirmish):
    c = skirmish.campaign
    assert c.in_play and skirmish.step.kind == "results"
    assert set(skirmish.waiting()) == {"red", "blue"}


def test_one_enters_the_result_and_the_other_confirms(skirmish):
    alice, bob = skirmish.users["red"], skirmish.users["blue"]
    steps.enter_scenario_result(campaign_id=skirmish.campaign_id, user=alice, values=result(5))
    assert skirmish.waiting() == ["blue"]
    with pytest.raises(ActionRefused, match="already done"):
        steps.confirm_scenario_result(campaign_id=skirmish.campaign_id, user=alice)
    steps.confirm_scenario_result(campaign_id=skirmish.campaign_id, user=bob)
    c = skirmish.campaign
    assert not c.in_play and skirmish.step.id == "T3.1"
    assert c.seats.get(side="red").san == 3
    assert ScenarioResult.objects.get().confirmed_at is not None


def test_a_disputed_result_is_withdrawn_and_nothing_moves_on(skirmish):
    alice, bob = skirmish.users["red"], skirmish.users["blue"]
    steps.enter_scenario_result(campaign_id=skirmish.campaign_id, user=alice, values=result(5))
    steps.dispute_scenario_result(
        campaign_id=skirmish.campaign_id, user=bob, reason="Red lost 7 CVP, not 5"
    )
    assert not ScenarioResult.objects.exists() and not StepMark.objects.exists()
    assert skirmish.step.kind == "results"
    assert "Red lost 7 CVP, not 5" in Event.objects.last().text


def test_bad_result_values_are_refused_and_change_nothing(skirmish):
    alice = skirmish.users["red"]
    for values, message in [
        ({**result(), "cvp_lost.red": "many"}, "enter a whole number"),
        ({**result(), "cvp_lost.blue": -3}, "between 0 and 9999"),
    ]:
        before = (Event.objects.count(), skirmish.campaign.step_index)
        with pytest.raises(ActionRefused, match=message):
            steps.enter_scenario_result(campaign_id=skirmish.campaign_id, user=alice, values=values)
        assert (Event.objects.count(), skirmish.campaign.step_index) == before


def test_steps_for_both_wait_for_both(skirmish):
    skirmish.results(**result())
    alice, bob = skirmish.users["red"], skirmish.users["blue"]
    steps.finish_step(campaign_id=skirmish.campaign_id, user=alice)
    assert skirmish.step.id == "T3.1" and skirmish.waiting() == ["blue"]
    with pytest.raises(ActionRefused, match="already done T3.1"):
        steps.finish_step(campaign_id=skirmish.campaign_id, user=alice)
    steps.finish_step(campaign_id=skirmish.campaign_id, user=bob)
    assert skirmish.step.id == "T3.2"


def test_fixed_order_steps_let_the_second_act_only_after_the_first(skirmish):
    """T4.1 is done in flow order: Blue first."""
    skirmish.results(**result())
    skirmish.until("initiative")
    skirmish.chits(red="attack", blue="idle")
    assert skirmish.step.id == "T4.1"
    with pytest.raises(ActionRefused, match="Not your turn: Blue acts first"):
        steps.finish_step(campaign_id=skirmish.campaign_id, user=skirmish.users["red"])
    steps.finish_step(campaign_id=skirmish.campaign_id, user=skirmish.users["blue"])
    steps.finish_step(campaign_id=skirmish.campaign_id, user=skirmish.users["red"])
    # T4.2 Commence is the server's (who moves first): it passes by itself, and the
    # scenario is in play at its results step.
    assert skirmish.step.id == "T3.0" and skirmish.campaign.in_play
    assert Event.objects.filter(step_id="T4.2", text__contains="passes T4.2").count() == 2


def test_a_stale_form_is_refused(skirmish):
    at = position_token(skirmish.campaign)
    skirmish.results(**result())
    with pytest.raises(ActionRefused, match="moved on"):
        steps.finish_step(campaign_id=skirmish.campaign_id, user=skirmish.users["red"], at=at)


def test_strangers_cannot_act(skirmish, make_user):
    with pytest.raises(ActionRefused) as exc:
        steps.finish_step(campaign_id=skirmish.campaign_id, user=make_user("mallory"))
    assert exc.value.status == 404


def wounded_leader(skirmish, side="red", name="8-1 leader"):
    return units.add_unit(
        campaign_id=skirmish.campaign_id,
        user=skirmish.users[side],
        name=name,
        kind="leader",
        markers=["wounded"],
        location="H5",
    )


def test_table_step_rolls_with_auto_ticked_and_shown_drms(skirmish):
    skirmish.results(**result())
    skirmish.until("table")
    leader = wounded_leader(skirmish)
    r = steps.roll_on_table(
        campaign_id=skirmish.campaign_id,
        user=skirmish.users["red"],
        table_id="wounded",
        unit_id=leader.ref,
        ticked=["isolated"],
    )
    assert r.dice == "dr" and len(r.faces) == 1
    assert r.drms == [{"label": "if Isolated", "value": 1, "how": "ticked"}]
    assert r.final == r.faces[0] + 1
    assert r.result in {"Recovers", "Stays wounded", "Evacuated"}
    assert "8-1 leader" in Event.objects.filter(kind="roll").last().text


def test_table_roll_refusals(skirmish):
    skirmish.results(**result())
    skirmish.until("table")
    red = skirmish.users["red"]
    leader = wounded_leader(skirmish)
    fit = units.add_unit(
        campaign_id=skirmish.campaign_id, user=red, name="9-1 leader", kind="leader"
    )
    theirs = wounded_leader(skirmish, "blue", "7-0 leader")
    for kwargs, message in [
        ({"table_id": "strength"}, r"is not rolled at"),  # another step's table
        ({"table_id": "wounded", "unit_id": leader.ref, "ticked": ["nope"]}, "has no DRM 'nope'"),
        # T3.2 is rolled for each wounded leader, named: never for words.
        ({"table_id": "wounded"}, "Choose which of your wounded leaders"),
        ({"table_id": "wounded", "unit_id": fit.ref}, "9-1 leader is not one of your wounded"),
        ({"table_id": "wounded", "unit_id": theirs.ref}, "not one of your units|no such unit"),
    ]:
        with pytest.raises(ActionRefused, match=message):
            steps.roll_on_table(campaign_id=skirmish.campaign_id, user=red, **kwargs)
    assert not Roll.objects.exists()


def test_replenishment_shows_its_arithmetic_and_is_secret(skirmish):
    """T3.5: base for the new date + loss-point dr when ≥ 2× and ≥ 8 more CVP lost."""
    skirmish.results(**result(red_cvp=20, blue_cvp=6))
    skirmish.until("purchase")  # T3.5 is the server's: it passes by itself
    c = skirmish.campaign
    red, blue = c.seats.get(side="red"), c.seats.get(side="blue")
    loss = Roll.objects.get(purpose__startswith="CP loss points")
    assert loss.side == "red" and loss.secret
    # Red: 10 initial carried over + 4 base (Day 1 Night) + loss dr; Blue: 8 + 4.
    assert red.points == 10 + 4 + loss.final
    assert blue.points == 8 + 4
    event = Event.objects.get(kind="replenish", side="red")
    assert event.secret_side == "red" and "base for Day 1 Night 4" in event.text
    assert "lost 20 CVP vs 6" in event.text
    assert event.public_text == "Red received its CP (secret)."


def test_unspent_points_are_lost_after_the_named_date(skirmish):
    """The fixture's carry-over rule (as Sicily 3.617 EXC): points left when the purchase
    step of Day 1 Night ends are lost then, not a date later."""
    skirmish.results(**result())
    skirmish.until("purchase")
    assert skirmish.campaign.date_index == 1
    blue = skirmish.campaign.seats.get(side="blue")
    assert blue.points == 12
    skirmish.finish()
    assert skirmish.campaign.seats.get(side="blue").points == 0
    lost = Event.objects.get(kind="forfeit", side="blue")
    assert "12 unspent CP lost after the purchase step of Day 1 Night" in lost.text
    assert lost.public_text == "Blue loses its unspent CP (T3.6)."
    skirmish.until("initiative")
    skirmish.chits(red="idle", blue="idle")
    skirmish.until("purchase")
    assert skirmish.campaign.date_index == 2
    assert skirmish.campaign.seats.get(side="blue").points == 12  # Day 2 AM's base


def test_walk_two_dates_with_an_idle_loop_to_the_end(skirmish):
    skirmish.results(**result())
    skirmish.until("initiative")
    assert skirmish.campaign.date_index == 1
    skirmish.chits(red="idle", blue="idle")
    c = skirmish.campaign
    # Looped to the new date; T3.3 (the date) and T3.5 (replenishment) are the
    # server's and pass by themselves.
    assert c.date_index == 2 and skirmish.step.id == "T3.6"
    assert Event.objects.filter(step_id="T3.3", text__contains="passes T3.3").count() == 4
    assert "No scenario on Day 1 Night" in Event.objects.filter(kind="idle").get().text
    skirmish.until("initiative")
    skirmish.chits(red="attack", blue="idle")
    skirmish.until("results")
    c = skirmish.campaign
    assert c.in_play and c.date_index == 2
    skirmish.results(**result(red_cvp=3))
    c = skirmish.campaign
    assert c.ended_at is not None
    assert "last date, Day 2 AM" in c.outcome
    assert c.dice_seed in Event.objects.last().text
    with pytest.raises(ActionRefused, match="has ended"):
        steps.finish_step(campaign_id=c.pk, user=skirmish.users["red"])


@pytest.mark.parametrize("module_id,variant", [("sicily", "i"), ("purple-heart-draw", "tm")])
def test_seed_module_walks_through_two_dates(modules, make_user, module_id, variant):
    """Rules: 3.6, 3.6121, 3.6212, C5.0."""
    from campaign.selectors import module_of

    alice, bob = make_user("alice"), make_user("bob")
    c = host_game(module_id, variant, alice, bob)
    module = module_of(c)
    sides = [s.id for s in module.sides]
    players = players_of(c, alice, bob)
    values = {
        f"{f.id}.{s}": (True if f.kind == "bool" else 2)
        for f in module.result_fields
        for s in sides
    }
    start = c.date_index
    players.results(**values)
    players.until("initiative")
    players.chits(**{sides[0]: "idle", sides[1]: "idle"})
    assert players.campaign.date_index == start + 2
    players.until("initiative")
    keep_retained_units(players)  # Sicily 3.6212*: the Axis Attack needs British units
    players.chits(**{sides[0]: "attack", sides[1]: "attack"})
    players.until("results")
    assert players.campaign.in_play
    players.results(**values)
    # The between-scenario sequence begins again (its results step follows the start's).
    from rules import machine

    assert players.campaign.step_index == machine.results_index(module) + 1


@pytest.mark.parametrize(
    "module_id,variant,last", [("sicily", "i", "jul17pm"), ("purple-heart-draw", "tm", "t1930")]
)
def test_seed_module_walks_through_its_last_date_to_cg_end(
    modules, make_user, module_id, variant, last
):
    """From the last-but-one date: a scenario on the last date, then the CG ends."""
    from tests.purchase_helpers import campaign_at

    players, module = campaign_at(
        module_id, variant, last, (make_user("a"), make_user("b")), kind="initiative"
    )
    sides = [s.id for s in module.sides]
    assert module.dates[players.campaign.date_index].id == last
    keep_retained_units(players)  # Sicily 3.6212*: the Axis Attack needs British units
    players.chits(**{sides[0]: "attack", sides[1]: "idle"})
    players.until("results")
    values = {
        f"{f.id}.{s}": (False if f.kind == "bool" else 1)
        for f in module.result_fields
        for s in sides
    }
    players.results(**values)
    c = players.campaign
    assert c.ended_at is not None and "The CG ends after its last date" in c.outcome
    assert Event.objects.filter(campaign=c, kind="end").exists()


@pytest.mark.parametrize("module_id,variant", [("sicily", "i"), ("purple-heart-draw", "tm")])
def test_idle_on_the_last_date_ends_the_cg(modules, make_user, module_id, variant):
    """Rules: 3.612."""
    from tests.purchase_helpers import campaign_at

    last = {"sicily": "jul17pm", "purple-heart-draw": "t1930"}[module_id]
    players, module = campaign_at(
        module_id, variant, last, (make_user("a"), make_user("b")), kind="initiative"
    )
    sides = [s.id for s in module.sides]
    players.chits(**{sides[0]: "idle", sides[1]: "idle"})
    c = players.campaign
    assert c.ended_at is not None and "was its last date" in c.outcome


def test_a_new_step_kind_needs_only_its_registration(modules, make_user, client):
    """ARCHITECTURE.md's worked example: a kind registered in the engine is accepted by
    the schema, walked by the machine and drawn by its template, with no other code."""
    import yaml

    from rules.kinds import KINDS, Action, Show, StepKind, register
    from rules.loader import validate_data
    from tests.conftest import FIXTURE_MODULES

    register(
        StepKind(
            name="briefing",
            summary="each side reads the scenario's special rules; weather is rolled",
            template="campaign/steps/table.html",
            actions=frozenset({Action.ROLL}),
            shows=(Show.TABLES, Show.ROLLS),
        )
    )
    try:
        data = yaml.safe_load((FIXTURE_MODULES / "skirmish.yaml").read_text())
        data["id"] = "briefed-skirmish"
        data["steps"].insert(
            1, {"id": "T3.05", "title": "Briefing", "kind": "briefing", "tables": ["weather"]}
        )
        data["tables"].append(
            {
                "id": "weather",
                "title": "Weather",
                "rule": "T3.05",
                "dice": "dr",
                "rows": [
                    {"range": "≤3", "result": "Clear", "effect": {"do": "none"}},
                    {"range": "≥4", "result": "Mist", "effect": {"do": "none"}},
                ],
            }
        )
        module, errors = validate_data(data, "briefed-skirmish.yaml")
        assert not errors and module is not None
        from campaign.models import ModuleRecord
        from campaign.services.modules import checksum
        from rules.schema import as_dict

        ModuleRecord.objects.create(
            id=module.id, title=module.title, data=as_dict(module), checksum=checksum(module)
        )
        alice, bob = make_user("alice"), make_user("bob")
        c = host_game("briefed-skirmish", "short", alice, bob, side="red")
        players = players_of(c, alice, bob)
        players.results(**result())
        assert players.step.kind == "briefing"
        with pytest.raises(ActionRefused, match="not part of the current step"):
            from campaign.services import purchases

            purchases.purchase_rg(campaign_id=c.pk, user=alice, group_id="G1")
        steps.roll_on_table(campaign_id=c.pk, user=alice, table_id="weather")
        client.force_login(alice)
        page = client.get(f"/campaigns/{c.pk}/").content.decode()
        assert "T3.05 Briefing" in page and "Roll dr" in page
        players.finish()
        assert players.step.id == "T3.1"
    finally:
        KINDS.pop("briefing")
