"""May this side do X now, and why not: the engine's answers, rule by rule, from plain
data.  The purchase page and the refused action show these same sentences."""

from __future__ import annotations

import pytest

from rules import availability
from rules.errors import Refused
from rules.kinds import Action
from rules.purchase import purchase_counts
from rules.schema import Module
from rules.snapshot import Bought, FortificationBought, Holdings, SideState
from tests.engine.conftest import at

pytestmark = pytest.mark.rules


def group(m: Module, side: str, rg: str):
    chart = m.chart(side)
    assert chart is not None
    return next(g for g in chart.groups if g.id == rg)


def test_3_617_date_max_refuses_a_second_i1_on_the_same_date(sicily: Module) -> None:
    snap = at(
        sicily,
        side="axis",
        date="jul14n",
        step="3.617",
        holdings=Holdings(bought=(Bought("I1", 2),)),
    )
    reasons = availability.group_reasons(sicily, snap, group(sicily, "axis", "I1"))
    assert any("CG date maximum is reached (1 of 1 on July 14 Night" in r for r in reasons)


def test_3_617_the_charts_counts_left_are_the_limits_the_refusal_names(sicily: Module) -> None:
    """The chart's "Left" cells and the refusal count the same purchases: the RG's own,
    its Initial-Scenario OB aside (3.6179), on this date and in the CG."""
    i1 = group(sicily, "axis", "I1")
    held = (Bought("I1", 1), Bought("I1", 2, initial=True), Bought("I7", 2))
    n = purchase_counts(i1, variant="i", date_index=2, bought=held)
    assert (n.in_cg, n.on_date, n.date_left) == (1, 0, i1.date_max)
    snap = at(sicily, side="axis", date="jul14n", step="3.617", holdings=Holdings(bought=held))
    assert not any("maximum" in r for r in availability.group_reasons(sicily, snap, i1))
    held += (Bought("I1", 2),)
    n = purchase_counts(i1, variant="i", date_index=2, bought=held)
    assert (n.in_cg, n.on_date, n.date_left) == (2, 1, 0)
    snap = at(sicily, side="axis", date="jul14n", step="3.617", holdings=Holdings(bought=held))
    assert any(
        "CG date maximum is reached (1 of 1" in r
        for r in availability.group_reasons(sicily, snap, i1)
    )


def test_3_617_footnote_m_no_more_than_two_coy_rgs_per_date(sicily: Module) -> None:
    bought = (Bought("I7", 2), Bought("I10", 2))
    snap = at(sicily, side="axis", date="jul14n", step="3.617", holdings=Holdings(bought=bought))
    reasons = availability.group_reasons(sicily, snap, group(sicily, "axis", "I1"))
    assert "no more than 2 per CG date (July 14 Night) (3.617 Axis chart footnote m)" in reasons


def test_3_617_footnote_k_axis_pioneers_only_after_july_14_pm(sicily: Module) -> None:
    snap = at(sicily, side="axis", date="jul14pm", step="3.617")
    reasons = availability.group_reasons(sicily, snap, group(sicily, "axis", "I1"))
    assert "not before July 14 Night (3.617 Axis chart footnote k)" in reasons


def test_the_page_and_the_action_give_the_same_budget_sentence(sicily: Module) -> None:
    snap = at(sicily, side="axis", date="jul14pm", step="3.617", points=11)
    page = availability.group_reasons(sicily, snap, group(sicily, "axis", "I4"))
    assert page == ["not enough CPP (12 needed, 11 left)"]  # its cheapest, Reserve price
    with pytest.raises(Refused) as refused:
        availability.check_purchase(sicily, snap, "I4", "reserve")
    assert page[0] in refused.value.message


@pytest.mark.parametrize(
    "side, date, held",
    [
        ("axis", "jul14pm", ()),
        ("axis", "jul14n", (Bought("I7", 2), Bought("I10", 2), Bought("I1", 2))),
        ("british", "jul14n", (Bought("V5", 2),)),
    ],
)
def test_a_charts_offers_are_each_rgs_prices_and_reasons(sicily: Module, side, date, held) -> None:
    """The whole chart at once (what the purchase page shows) says, for every RG, what
    ``cost_options`` and ``group_reasons`` say of it alone."""
    from rules.purchase import cost_options

    snap = at(sicily, side=side, date=date, step="3.617", points=12, holdings=Holdings(held))
    offers = availability.chart_offers(sicily, snap)
    chart = sicily.chart(side)
    assert chart is not None
    assert [g.id for g, _, _ in offers] == [g.id for g in chart.groups]
    for g, options, reasons in offers:
        assert options == cost_options(sicily, side, g)
        assert reasons == availability.group_reasons(sicily, snap, g), g.id
    assert any(reasons for _, _, reasons in offers)  # some refused, so the check says something


def test_3_6175_reserve_price_passes_where_the_printed_price_is_too_dear(sicily: Module) -> None:
    snap = at(sicily, side="axis", date="jul14pm", step="3.617", points=12)
    g, option = availability.check_purchase(sicily, snap, "I4", "reserve")
    assert (g.id, option.cost) == ("I4", 12)


def test_3_6212_axis_attack_is_refused_when_the_british_declare_no_on_map_units(
    sicily: Module,
) -> None:
    british = SideState(side="british", joined=True, no_on_map_units=True)
    snap = at(sicily, side="axis", step="3.621", opponent=british)
    assert "3.6212" in availability.chit_refusal(sicily, snap, "attack")
    assert availability.chit_refusal(sicily, snap, "idle") == ""


def test_3_620_no_recon_before_an_initial_scenario(sicily: Module) -> None:
    """3.620: a Recon dr "provided it first expends the required CPP for this purpose and
    the players are not preparing to play an Initial Scenario": an M2 Recon RG bought on
    July 14 AM (the Initial Scenario's date) gives no dr; one bought on July 14 PM does."""
    m2_am = Holdings(bought=(Bought("M2", 0, ref="am"),))
    snap = at(sicily, side="axis", date="jul14am", step="3.620", holdings=m2_am)
    assert "no Recon before an Initial Scenario (3.620)" in availability.recon_reasons(
        sicily, snap, 0
    )
    m2_pm = Holdings(bought=(Bought("M2", 1, ref="pm"),))
    later = at(sicily, side="axis", date="jul14pm", step="3.620", holdings=m2_pm)
    assert availability.recon_reasons(sicily, later, 0) == []
    nothing = at(sicily, side="axis", date="jul14pm", step="3.620")
    assert availability.recon_reasons(sicily, nothing, 0) == [
        "no M2 Recon RG bought on this date awaits its dr"
    ]


def test_3_619_footnote_f_five_roadblocks_per_cg_bind_the_axis_only(sicily: Module) -> None:
    forts = sicily.fortifications
    assert forts is not None
    roadblock = next(i for i in forts.items if i.id == "roadblock")
    held = Holdings(fortifications=(FortificationBought("roadblock", 1, 5),))
    axis = at(sicily, side="axis", fortification_points=100, holdings=held)
    british = at(sicily, side="british", fortification_points=100, holdings=held)
    assert any(
        "no more than 5 per CG" in r
        for r in availability.fortification_reasons(sicily, axis, roadblock)
    )
    assert availability.fortification_reasons(sicily, british, roadblock) == []


def test_a_step_refuses_actions_that_are_not_its_own(sicily: Module) -> None:
    snap = at(sicily, side="axis", step="3.601")
    refusal = availability.turn_refusal(sicily, snap, "axis", Action.BUY)
    assert refusal is not None and refusal.status == 409
    assert "not part of the current step (3.601" in refusal.message


def test_apd_in_order_step_the_american_acts_first(apd: Module) -> None:
    """Rules: 1.2."""
    step = next(s for s in apd.steps if s.acts == "in_order")
    first, second = apd.flow.order or []
    snap = at(apd, side=second, step=step.id)
    refusal = availability.turn_refusal(apd, snap, second, Action.FINISH)
    assert refusal is not None and "Not your turn" in refusal.message
    assert availability.turn_refusal(apd, snap, first, Action.FINISH) is None


def test_a_side_that_is_done_is_told_whom_it_waits_for(phd: Module) -> None:
    snap = at(phd, side="us", step="C5.2", done=("us",))
    refusal = availability.turn_refusal(phd, snap, "us", Action.FINISH)
    assert refusal is not None
    assert refusal.message.startswith("You have already done C5.2")
    assert "waiting for German" in refusal.message


# --------------------------------------------------------------------------- passing


def passes(m: Module, side: str, step_id: str, date: str, variant: str | None = None) -> str:
    step = next(s for s in m.steps if s.id == step_id)
    date_index = next(i for i, d in enumerate(m.dates) if d.id == date)
    return availability.passes_by_itself(m, variant or m.variants[0].id, side, step, date_index)


def test_a_step_passes_by_itself_on_public_facts_only(sicily: Module, phd: Module) -> None:
    """Both seats see a pass, so it never reads a side's points, FPP or records (it is
    given none): a side that may hold something to spend or roll waits for its Done."""
    # Sicily: FPP come from M3, a secret purchase; every RG of the charts has rolls.
    for side in ("axis", "british"):
        assert passes(sicily, side, "3.619", "jul14n") == ""
        assert passes(sicily, side, "3.618", "jul14n") == ""
        assert passes(sicily, side, "3.617", "jul14n") == ""
        assert passes(sicily, side, "3.620", "jul14n") == ""
        assert passes(sicily, side, "3.616", "jul14n") == "the server does this step"
    assert passes(sicily, "axis", "3.620", "jul14am") == (
        "no Recon before an Initial Scenario (3.620)"
    )
    # Purple Heart Draw: DSP only from the start (the German's 60, forfeit at I-C5.35);
    # its RG charts are lost, so there is nothing to roll.
    assert passes(phd, "german", "I-C5.35", "t0600") == ""
    # The US has no DSP, but its OB is still to be supplied (its RG IDs are on the lost
    # charts): a start step waits for each side's Done while start data is missing.
    assert passes(phd, "us", "I-C5.35", "t0600") == ""
    for side in ("german", "us"):
        assert passes(phd, side, "C5.35", "t0930").startswith("no DSP to spend")
        assert passes(phd, side, "C5.33", "t0930") == "no RG of its chart has secret rolls to make"
        assert passes(phd, side, "C5.31", "t0930") == ""  # its chart may be supplied
        assert passes(phd, side, "C5.36", "t0930") == ""


def test_what_a_side_alone_knows_lets_it_finish_ahead_but_never_passes(sicily: Module) -> None:
    snap = at(sicily, side="axis", date="jul14n", step="3.617", fortification_points=0)
    fortify = next(s for s in sicily.steps if s.id == "3.619")
    assert availability.nothing_to_do(sicily, snap, fortify) == "no FPP to spend"
    assert passes(sicily, "axis", "3.619", "jul14n") == ""
    run = [s.id for s in availability.finish_ahead(sicily, snap)]
    assert run == ["3.617", "3.618", "3.619", "3.620"]


def test_a_step_each_side_does_waits_for_the_side_with_no_player(
    sicily: Module, apd: Module
) -> None:
    """Before his opponent has joined, the host prepares what is his alone and undone at
    will (at 3.617: buy in secret, cancel; at I-3.617, the start's points missing, fill
    in the start sheet; at APD 1.2: enter the result, which the opponent confirms):
    finishing the step, a roll or a chit waits for the opponent (3.6: "performed
    simultaneously by each side")."""
    away = SideState(side="axis", joined=False)
    snap = at(sicily, side="british", step="I-3.617", opponent=away)
    refused = availability.turn_refusal(sicily, snap, "british", Action.FINISH)
    assert refused is not None and refused.status == 409
    assert str(refused).startswith("Not yet: the Axis side has no player yet."), str(refused)
    # The start's points are missing from the rules text: nothing to buy with yet.
    assert "Meanwhile you may fill in the start sheet" in str(refused), str(refused)
    for alone in (Action.BUY, Action.CANCEL):
        assert availability.turn_refusal(sicily, snap, "british", alone) is None
    later = at(sicily, side="british", date="jul14n", step="3.617", opponent=away)
    refused = availability.turn_refusal(sicily, later, "british", Action.FINISH)
    assert refused is not None
    assert "Meanwhile you may buy RGs in secret and cancel them." in str(refused)
    joined = at(sicily, side="british", step="I-3.617")
    assert availability.turn_refusal(sicily, joined, "british", Action.FINISH) is None
    assert availability.unjoined_reason(sicily, joined, sicily.steps[0]) == ""
    result = at(apd, side="american", step="1.2", opponent=SideState(side="german", joined=False))
    assert availability.turn_refusal(apd, result, "american", Action.RESULT) is None
