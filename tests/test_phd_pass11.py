"""Purple Heart Draw, eleventh pass (issue 44): sentences of C1-C5, the TM rules and the
RG chart's footnotes that no earlier pass doc quotes, driven through the services as a
player would (the wrong side, the wrong date, twice, another unit kind), each test citing
its rule (docs/rules-audit/pass-11-phd11.md)."""

from __future__ import annotations

import pytest

from campaign.models import Purchase, Roll, Unit
from campaign.selectors import module_of
from campaign.services import purchases
from campaign.services.errors import ActionRefused
from tests.test_phd_conph_late import OBA
from tests.test_phd_pass9a import GREN
from tests.test_player_words import FORBIDDEN
from tests.test_rule_mechanisms import (
    fixed_dice,
    phd_with_chart,
    result_values,
    roll,
    users,
)

pytestmark = [pytest.mark.django_db, pytest.mark.rules]
__all__ = ["fixed_dice", "users"]


def plain(sentence: str) -> None:
    """What the player reads has no module or transcription words."""
    assert not FORBIDDEN.search(sentence), sentence


def test_tm20_the_us_player_makes_a_secret_dr_once_for_each_eligible_sherman(
    users, modules, fixed_dice
):
    """TM20 "The US player may make a secret dr, to determine if an eligible Sherman
    tank has a functioning Gyrostabilizer ... On a dr of < 3, the vehicle is equipped
    with a functioning Gyrostabilizer": the German may not roll (a German vehicle named
    a Sherman is refused too, with a sentence saying the step is the US player's
    alone, not "acts first"); an M10 is not a Sherman; a Sherman rolls once (a second
    dr refused, nothing rolled); the dr is secret (the German sees no roll); dr 3 (the
    module's reading of "< 3" as ≤3) gives the Gyrostabilizer."""
    from tests.purchase_helpers import add_vehicle

    players, c = phd_with_chart(users, [GREN])
    sherman, _ = add_vehicle(players, "us", "M4A1 Sherman")
    m10, _ = add_vehicle(players, "us", "M10 GMC")
    captured, _ = add_vehicle(players, "german", "M4A1 Sherman (captured)")
    players.until_step("I-TM20")
    seen = Roll.objects.visible_to("german").filter(campaign=c).count()
    # Before: "Not your turn: American acts first at I-TM20 ...", as if the German's
    # turn came after it.
    with pytest.raises(
        ActionRefused,
        match=r"Only American acts at I-TM20 Gyrostabilizers \(Initial TM Scenario\): "
        r"there is nothing for you to do here\.",
    ) as refused:
        roll(players, "german", "gyrostabilizer", captured)
    plain(str(refused.value))
    with pytest.raises(ActionRefused) as refused:
        roll(players, "us", "gyrostabilizer", m10)
    plain(str(refused.value))
    assert "TM20" in str(refused.value)
    fixed_dice.append([3])
    r = roll(players, "us", "gyrostabilizer", sherman)
    assert (r.final, r.result) == (3, "Functioning Gyrostabilizer (D11.1)")
    before = Roll.objects.filter(campaign=c).count()
    with pytest.raises(ActionRefused) as refused:
        roll(players, "us", "gyrostabilizer", sherman)
    plain(str(refused.value))
    assert Roll.objects.filter(campaign=c).count() == before
    assert Roll.objects.visible_to("german").filter(campaign=c).count() == seen


def test_c5_31b_only_a_g_hw_and_i_rgs_may_be_requisitioned_in_reserve(users, modules):
    """C5.31b "Any "A", "G", "HW", or "I" Reinforcement Group may be requisitioned "In
    Reserve"": an OBA module (O) and a vehicle RG (V) are refused In Reserve, with the
    rule and nothing spent; an I RG may be; the refusal is in ASL words."""
    from tests.test_phd_pass9a import STUG

    players, c = phd_with_chart(users, [GREN, STUG, OBA])
    german = players.users["german"]
    points = players.campaign.seats.get(side="german").points
    for gid in ("V1", "O2"):
        with pytest.raises(ActionRefused) as refused:
            purchases.purchase_rg(
                campaign_id=c.pk, user=german, group_id=gid, cost_variant="reserve"
            )
        plain(str(refused.value))
    assert not Purchase.objects.filter(campaign=c).exists()
    assert players.campaign.seats.get(side="german").points == points
    p = purchases.purchase_rg(campaign_id=c.pk, user=german, group_id="I9", cost_variant="reserve")
    assert p.cost_variant == "reserve"


def test_c5_31_footnote_x_not_before_tm_scenario_iii(users, modules):
    """RG footnote x "May only be requisitioned on/after TM Scenario III": at the
    Initial TM Scenario's requisition (before Scenario I) an RG marked x is refused,
    citing footnote x, nothing spent."""
    players, c = phd_with_chart(users, [{**GREN, "id": "I7", "footnotes": "x"}])
    german = players.users["german"]
    with pytest.raises(ActionRefused, match=r"footnote x") as refused:
        purchases.purchase_rg(campaign_id=c.pk, user=german, group_id="I7", cost_variant="onmap")
    plain(str(refused.value))
    assert not Purchase.objects.filter(campaign=c).exists()


def test_c4_2_tm_dates_five_tm_scenarios_from_0600_to_1930(users, modules):
    """C4.2 "TM-DATES: 0600-hours, 11 July 1944 to 1930-hours, 11 July 1944 (five TM
    Scenarios)": the TM's dates are five, the first 0600 (the Initial TM Scenario) and
    the last 1930."""
    players, c = phd_with_chart(users, [GREN])
    module = module_of(c)
    variant = next(v for v in module.variants if v.id == "tm")
    ids = [d.id for d in module.dates]
    first, last = ids.index(variant.start_date), ids.index(variant.last_date)
    dates = module.dates[first : last + 1]
    assert [d.label for d in dates] == ["0600 hrs", "0930 hrs", "1230 hrs", "1530 hrs", "1930 hrs"]
    assert dates[0].initial


def test_tm11_a_requisitioned_rg_is_retained_after_the_tm_scenario(users, modules):
    """TM11 "Irrespective of whether it was used during a TM Scenario, each
    requisitioned/OB-given RG is retained until eliminated in a TM Scenario": an RG
    bought before the Initial TM Scenario is still on the German's retained forces at
    the next requisition (C5.31), though nothing of it was lost."""
    players, c = phd_with_chart(users, [GREN])
    german = players.users["german"]
    purchases.purchase_rg(campaign_id=c.pk, user=german, group_id="I9", cost_variant="onmap")
    players.until("results")
    before = Unit.objects.filter(campaign=c, side="german").count()
    assert before
    players.results(**result_values(module_of(c)))
    players.until_step("C5.31")
    assert Unit.objects.filter(campaign=c, side="german").count() == before


def test_c5_36_note_n_one_tp_recon_has_no_plus_five(users, modules, fixed_dice):
    """RG footnote n "If purchased for 2 TP, the player receives a +5 drm to the
    Reconnaissance dr (C5.36)": Recon bought for 1 TP has no +5 (dr 2: 2 locations),
    1 TP spent."""
    from tests.purchase_helpers import campaign_at

    players, _ = campaign_at("purple-heart-draw", "tm", "t0930", users, kind="recon", points=5)
    fixed_dice.append([2])
    r = purchases.buy_recon(campaign_id=players.campaign_id, user=players.users["us"], option=0)
    assert (r.cost, r.locations) == (1, 2)
    assert players.campaign.seats.get(side="us").points == 4


def test_c5_0_each_step_in_the_numbered_order(users, modules, fixed_dice):
    """C5.0 "Each applicable step (and sub-step) must be carried out in the
    numbered/lettered order given": at C5.26 (Weapon Repair) the German may not yet
    make his C5.34 Offboard Artillery DR for the module he holds; nothing is rolled."""
    players, c = phd_with_chart(users, [OBA])
    german = players.users["german"]
    purchases.purchase_rg(campaign_id=c.pk, user=german, group_id="O2")
    players.until("results")
    players.results(**result_values(module_of(c)))
    players.until_step("C5.26")
    before = Roll.objects.filter(campaign=c).count()
    with pytest.raises(ActionRefused) as refused:
        roll(players, "german", "oba", item="O2 81mm OBA Module")
    plain(str(refused.value))
    assert Roll.objects.filter(campaign=c).count() == before


def test_c5_31_scen_max_is_per_tm_scenario_and_tm_max_over_the_whole_tm(users, modules):
    """C5.31 "Scen Max: Lists the maximum number of RG of this type that may be
    requisitioned per TM Scenario"; "TM Max: ... during the course of the TM" (across
    TM Scenarios, not within one): I1 (Scen Max 1) bought before the Initial TM
    Scenario may be bought again at the 0930 requisition; I2 (TM Max 1) may not, with a
    sentence naming the RG, the chart's own word ("TM Max") and the rule; nothing spent.
    Within one TM Scenario the chart's "Scen Max" is named so too."""
    german, _ = users
    gren = {"type": "Gren Pl", "units": "4-6-7", "unit_kind": "squad", "cost": "2"}
    players, c = phd_with_chart(
        users,
        [
            {**gren, "id": "I1", "date_max": "1"},
            {**gren, "id": "I2", "date_max": "3", "cg_max-tm": "1"},
        ],
    )
    for gid in ("I1", "I2"):
        purchases.purchase_rg(campaign_id=c.pk, user=german, group_id=gid, cost_variant="onmap")
    players.until("results")
    players.results(**result_values(module_of(c)))
    players.until_step("C5.31")
    from campaign.models import Seat

    Seat.objects.filter(campaign=c).update(points=20)
    # Before: "the CG maximum is reached": the PHD chart's word is "TM Max" (C5.31).
    with pytest.raises(
        ActionRefused,
        match=r"I2 Gren Pl cannot be bought: the TM Max is reached \(1 of 1 bought in "
        r"Purple Heart Draw Tactical Mission; C5\.31\)",
    ) as refused:
        purchases.purchase_rg(campaign_id=c.pk, user=german, group_id="I2", cost_variant="onmap")
    plain(str(refused.value))
    assert "C5.31" in str(refused.value)
    assert Seat.objects.get(campaign=c, side="german").points == 20
    purchases.purchase_rg(campaign_id=c.pk, user=german, group_id="I1", cost_variant="onmap")
    assert Purchase.objects.filter(campaign=c, group_id="I1").count() == 2
    with pytest.raises(
        ActionRefused, match=r"the Scen Max is reached \(1 of 1 on 0930 hrs; C5\.31\)"
    ):
        purchases.purchase_rg(campaign_id=c.pk, user=german, group_id="I1", cost_variant="onmap")


def test_c5_33_one_secret_leader_dr_for_each_i_rg_marked_l(users, modules):
    """C5.33 "For each requisitioned/OB given "I" or "A" type RG marked with an RG
    Footnote "l" make one secret DR": an I RG marked l bought at I-C5.31 has its Leader
    Table line at I-C5.33; a G RG marked l has none.  The Leader Table is lost from the
    rules text: the I RG's line says it was not rolled, citing C5.33, in ASL words (never
    a silent nothing).  Its rolls are then made: a second click is refused, nothing
    rolled (pass 12: the click says the DR waits for the table, which the players may
    supply: tests/test_phd12_pass12.py)."""
    from tests.purchase_helpers import make_rolls

    players, c = phd_with_chart(
        users,
        [
            {**GREN, "footnotes": "l"},
            {**GREN, "id": "G4", "type": "MG Section", "footnotes": "l"},
        ],
    )
    german = players.users["german"]
    i9 = purchases.purchase_rg(campaign_id=c.pk, user=german, group_id="I9", cost_variant="onmap")
    g4 = purchases.purchase_rg(campaign_id=c.pk, user=german, group_id="G4", cost_variant="onmap")
    i9 = make_rolls(players, "german", i9)
    (line,) = i9.details["rolls"]
    assert line["table"] == "Leader Table (RG leaders)"
    assert line["result"] == "not rolled: the printed rules leave out this table (C5.33)"
    plain(str(line["result"]))
    g4 = make_rolls(players, "german", g4)
    assert g4.details["rolls"] == []
    before = Roll.objects.filter(campaign=c).count()
    with pytest.raises(
        ActionRefused, match=r"leave out the Leader Table.*C5\.33\): I9's DR on it waits"
    ):
        make_rolls(players, "german", i9)
    assert Roll.objects.filter(campaign=c).count() == before


@pytest.mark.parametrize(("date_id", "allowed"), [("t0930", False), ("t1230", True)])
def test_c5_31_footnote_x_on_or_after_tm_scenario_iii_at_its_edge(users, modules, date_id, allowed):
    """RG footnote x "May only be requisitioned on/after TM Scenario III": at the 0930
    requisition (before Scenario II) it is refused, at the 1230 one (before Scenario
    III, "on") it is bought."""
    from tests.purchase_helpers import campaign_at
    from tests.test_rule_mechanisms import supply_chart

    players, _ = campaign_at("purple-heart-draw", "tm", date_id, users, kind="purchase")
    supply_chart(players, "german", [{**GREN, "id": "I7", "footnotes": "x"}])
    german = players.users["german"]

    def buy():
        return purchases.purchase_rg(
            campaign_id=players.campaign_id, user=german, group_id="I7", cost_variant="onmap"
        )

    if allowed:
        assert buy().group_id == "I7"
    else:
        with pytest.raises(ActionRefused, match=r"not before 1230 hrs \(C5\.31 RG footnote x\)"):
            buy()


def test_c5_31b_a_and_hw_rgs_in_reserve(users, modules):
    """C5.31b "Any "A", "G", "HW", or "I" Reinforcement Group may be requisitioned "In
    Reserve"": an A RG and an HW RG are bought In Reserve (the app reads the ID's
    type letters, HW as well as the one-letter types)."""
    players, c = phd_with_chart(
        users,
        [
            {"id": "A2", "type": "Aufkl Pl", "units": "4-4-7", "unit_kind": "squad", "cost": "3"},
            {
                "id": "HW1",
                "type": "MG Section",
                "units": "2-3-8",
                "unit_kind": "half_squad",
                "cost": "2",
            },
        ],
    )
    german = players.users["german"]
    for gid in ("A2", "HW1"):
        p = purchases.purchase_rg(
            campaign_id=c.pk, user=german, group_id=gid, cost_variant="reserve"
        )
        assert p.cost_variant == "reserve"


def test_tm20_a_sherman_has_its_dr_once_in_each_tm_scenario(users, modules, fixed_dice):
    """TM20 "The US player may make a secret dr, to determine if an eligible Sherman
    tank has a functioning Gyrostabilizer": the module's reading (TM20 names no step; C3.0
    "in all TM Scenarios"): a dr for each eligible Sherman before each TM Scenario, once
    there (`once: unit` in the pass).  A Sherman rolled at I-TM20 (dr 5: none) has its dr
    again at the 0930 TM20 step, and a second one there is refused, nothing rolled."""
    from tests.purchase_helpers import add_vehicle

    players, c = phd_with_chart(users, [GREN])
    sherman, _ = add_vehicle(players, "us", "M4A1 Sherman")
    players.until_step("I-TM20")
    fixed_dice.append([5])
    assert roll(players, "us", "gyrostabilizer", sherman).result == "No functioning Gyrostabilizer"
    players.until("results")
    players.results(**result_values(module_of(c)))
    players.until("initiative")
    players.chits(german="idle", us="attack")
    players.until_step("TM20")
    fixed_dice.append([2])
    r = roll(players, "us", "gyrostabilizer", sherman)
    assert r.result == "Functioning Gyrostabilizer (D11.1)"
    before = Roll.objects.filter(campaign=c).count()
    with pytest.raises(ActionRefused) as refused:
        roll(players, "us", "gyrostabilizer", sherman)
    plain(str(refused.value))
    assert Roll.objects.filter(campaign=c).count() == before
