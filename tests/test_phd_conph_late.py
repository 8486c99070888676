"""Purple Heart Draw, Consolidation Phase C5.25-C5.41 and the TM start (C4.0-C4.2):
the sentences the sentence-level audit (issue 44,
``rules/ledger/sentences/purple-heart-draw-c5-late.yaml``) found the app getting
wrong, each tested through the services, plus the sentences it already kept that no
test cited."""

from __future__ import annotations

import pytest

from campaign.models import Purchase
from campaign.seat_views.campaign_page import campaign_view
from campaign.services import purchases
from campaign.services.errors import ActionRefused
from rules.loader import MODULE_DIR
from tests.test_rule_mechanisms import (
    add,
    fixed_dice,
    phd_with_chart,
    result_values,
    roll,
    start,
    supply_chart,
    users,
)

pytestmark = [pytest.mark.django_db, pytest.mark.rules]
__all__ = ["fixed_dice", "users"]  # the fixtures this file shares

OBA_P = {
    "id": "O1",
    "type": "105mm OBA Module",
    "units": "OBA",
    "cost": "6",
    "tags": "oba",
    "footnotes": "p",
}
OBA = {"id": "O2", "type": "81mm OBA Module", "units": "OBA", "cost": "5", "tags": "oba"}


def test_c5_31_footnote_p_an_oba_module_is_offered_with_one_or_two_pre_registered_hexes(
    users, modules
):
    """C5.31 RG footnote p: "Two additional TPs per pre-Registered hex (C1.73) purchased
    with a module ... Note there is a limit of two Pre-Registered hexes per OBA
    module": an RG marked p is bought at its printed cost, +2 TP with one Pre-Registered
    hex or +4 TP with two (no third is offered); its record line says which.  An RG
    without footnote p is refused the surcharge."""
    german, _ = users
    players, c = phd_with_chart(users, [OBA_P, OBA])
    with pytest.raises(ActionRefused, match="cannot be bought at that price"):
        purchases.purchase_rg(campaign_id=c.pk, user=german, group_id="O2", cost_variant="prereg1")
    bought = purchases.purchase_rg(
        campaign_id=c.pk, user=german, group_id="O1", cost_variant="prereg2"
    )
    assert (bought.cost, bought.cost_variant) == (10, "prereg2")
    (line,) = [x for x in campaign_view(german, c.pk).record if x.mine]
    assert line.bought_as == "With 2 Pre-Registered hexes (+4 TP)"
    seat = players.campaign.seats.get(side="german")
    assert seat.points == 20 - 10
    assert not Purchase.objects.filter(campaign=c, group_id="O2").exists()


def test_c5_27c_special_ammunition_for_each_non_captured_non_isolated_weapon_once(
    users, modules, fixed_dice
):
    """C5.27c: "Each non-captured, non-isolated weapon has all of its Depleted
    ammunition type(s) if any replenished to normal availability levels on a dr <4":
    the dr is made for a retained weapon, once; a captured or an Isolated one is
    refused it, with the reason."""
    players, module = start("purple-heart-draw", "tm", users, "us")
    players.results(**result_values(module))
    gun = add(players, "german", "7.5cm Pak 40", "gun")
    captured = add(players, "german", "57mm AT Gun", "gun", markers=("captured",))
    isolated = add(players, "german", "StuG IIIG", "vehicle", markers=("isolated",))
    players.until_step("C5.27")
    fixed_dice.extend([[4]])
    r = roll(players, "german", "special_ammunition", gun)
    assert r.result == "Depleted special ammunition restored to normal availability"
    with pytest.raises(ActionRefused, match="its one Special Ammunition"):
        roll(players, "german", "special_ammunition", gun)
    for unit in (captured, isolated):
        with pytest.raises(ActionRefused, match=r"not captured or isolated.*\(C5.27c\)"):
            roll(players, "german", "special_ammunition", unit)
    with pytest.raises(ActionRefused):
        roll(players, "german", "special_ammunition", item="any weapon")


def test_i2_german_rgs_set_up_on_board_at_no_extra_cost_in_the_initial_scenario(users, modules):
    """I2: "All German OB-Given and purchased RG may set up on board at no extra cost":
    for the Initial Scenario a German RG bought On-Map costs its printed 4 TP although
    the supplied chart gives its On-Map set-up 6 (C5.32); the US's RG costs the 6."""
    german, us = users
    gren = {"id": "I1", "type": "Gren Pl", "units": "4-6-7", "unit_kind": "squad"}
    players, c = phd_with_chart(users, [{**gren, "cost": "4", "cost-onmap": "6"}])
    supply_chart(players, "us", [{**gren, "type": "Rifle Pl", "cost": "4", "cost-onmap": "6"}])
    bought = purchases.purchase_rg(
        campaign_id=c.pk, user=german, group_id="I1", cost_variant="onmap"
    )
    assert bought.cost == 4
    assert (
        purchases.purchase_rg(campaign_id=c.pk, user=us, group_id="I1", cost_variant="onmap").cost
        == 6
    )


def test_i2_after_the_initial_scenario_the_on_map_cost_is_the_charts():
    """I2 speaks of the Initial Scenario only: at a later TM Scenario's C5.31 the German
    RG's On-Map set-up costs what the supplied chart gives (C5.32)."""
    from rules.loader import load_file
    from rules.purchase import cost_options
    from rules.schema import Module, ReinforcementGroup

    m = load_file(MODULE_DIR / "purple-heart-draw.yaml", overrides=False)
    data = m.model_dump(mode="json")
    group = ReinforcementGroup(
        id="I1", type="Gren Pl", units="4-6-7", unit_kind="squad", cost=4, costs={"onmap": 6}
    )
    data["rg_charts"][0]["groups"] = [group.model_dump(mode="json")]
    data["rg_charts"][0]["missing"] = False
    supplied = Module.model_validate(data)
    g = supplied.group("german", "I1")

    def onmap(initial):
        return next(
            o.cost
            for o in cost_options(supplied, "german", g, initial=initial)
            if o.variant == "onmap"
        )

    assert (onmap(True), onmap(False)) == (4, 6)
