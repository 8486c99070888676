"""Issue 15: every CG variant starts where its CG starts, before its Initial Scenario."""

from __future__ import annotations

import pytest

from campaign.models import InitiativeChit, Purchase, Seat
from campaign.selectors import module_of
from campaign.services import purchases, supplements
from tests.walk import host_game, players_of

pytestmark = pytest.mark.django_db


def _points(c) -> dict[str, int]:
    return dict(Seat.objects.filter(campaign=c).values_list("side", "points"))


@pytest.mark.parametrize(
    "variant,initial,first_refit",
    [("i", "jul14am", "jul14pm"), ("ii", "jul14n", "jul15am"), ("iii", "jul14am", "jul14pm")],
)
def test_3_51_to_3_53_each_sicily_cg_starts_before_its_initial_scenario(
    modules, make_user, variant, initial, first_refit
):
    """3.51-3.53 (not in the seed): each CG opens at its Initial Scenario's date with the
    start steps of 3.617-3.619 (purchases with the initial CPP, their secret rolls,
    fortifications), never Recon (3.620) nor a chit (3.6211) before an Initial Scenario;
    the CPP left carry into the first Refit Phase with the new date's base (3.616)."""
    axis, british = make_user("axis_p"), make_user("brit_p")
    c = host_game("sicily", variant, axis, british, side="axis", through_start=False)
    players, module = players_of(c, axis, british), module_of(c)
    assert players.step.id == "I-3.617" and not c.in_play
    assert module.dates[c.date_index].id == initial == module.variant(variant).start_date
    start_kinds = [s.kind for s in module.steps if s.start]
    assert start_kinds == ["purchase", "strength", "fortify"]  # no recon, no initiative
    assert _points(c) == {"axis": 0, "british": 0}  # nothing until the CPP are supplied
    proposal = supplements.propose_supplement(
        campaign_id=c.pk,
        user=british,
        path=f"variants.{variant}.start.points",
        form={"value.axis": "39", "value.british": "17"},
    )
    supplements.accept_supplement(campaign_id=c.pk, user=axis, ref=proposal.ref)
    bought = purchases.purchase_rg(campaign_id=c.pk, user=axis, group_id="M1")
    assert _points(c) == {"axis": 39 - bought.cost, "british": 17}
    while players.step.start:
        players.finish()
    c = players.campaign
    assert c.in_play and module.dates[c.date_index].id == initial
    assert not InitiativeChit.objects.filter(campaign=c).exists()
    assert Purchase.objects.get(campaign=c).date_index == c.date_index
    players.results(
        **{
            f"{f.id}.{s.id}": (False if f.kind == "bool" else (0 if f.id == "cvp_lost" else 2))
            for f in module.result_fields
            for s in module.sides
        }
    )
    players.until("purchase")
    c = players.campaign
    date = module.dates[c.date_index]
    assert date.id == first_refit
    base = date.base_points or {}
    assert _points(c) == {
        "axis": 39 - bought.cost + base["axis"],
        "british": 17 + base["british"],
    }
