"""Purple Heart Draw, seventh pass, part B (issue 44): C5.26 to the end of C5, the RG
chart's footnotes and the forms.  Each test drives a sentence of
``rules/ledger/sentences/purple-heart-draw-c5-late.yaml`` (or ``-forms.yaml``) through
the services, as a player would, and cites its rule."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from campaign.models import (
    AddedLater,
    Campaign,
    Event,
    ModuleRecord,
    Purchase,
    Roll,
    Seat,
    Unit,
)
from campaign.seat_views.campaign_page import campaign_view
from campaign.selectors import module_of
from campaign.services import purchases, steps
from campaign.services.backup import export_campaign, import_campaign
from campaign.services.errors import ActionRefused
from tests.purchase_helpers import add_vehicle, campaign_at
from tests.test_phd_conph_late import OBA, OBA_P
from tests.test_roster_rules import exchange
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
from tests.walk import host_game, players_of

pytestmark = [pytest.mark.django_db, pytest.mark.rules]
__all__ = ["fixed_dice", "users"]  # the fixtures this file shares


def _points(players, side: str) -> int:
    return Seat.objects.get(campaign_id=players.campaign_id, side=side).points


def _add(players, side: str, purchase: Purchase, *, affirmed: bool = True) -> AddedLater:
    return purchases.buy_added_later(
        campaign_id=players.campaign_id,
        user=players.users[side],
        purchase_id=purchase.ref,
        item="prereg_hex",
        affirmed=affirmed,
    )


def _line(players, side: str, purchase: Purchase):
    view = campaign_view(players.users[side], players.campaign_id)
    return next((x for x in view.record if x.id == purchase.ref), None)


def oba_bought_at_the_start(users, variant: str = "prereg1"):
    """A PHD TM whose German bought O1 (an OBA module marked p) at I-C5.31 with
    ``variant``'s Pre-Registered hexes, and O2 (not marked p); then the Initial TM
    Scenario played and the campaign at the 0930 TM Scenario's C5.31."""
    players, c = phd_with_chart(users, [OBA_P, OBA])
    supply_chart(players, "us", [{**OBA, "type": "81mm OBA Module"}])
    german = players.users["german"]
    o1 = purchases.purchase_rg(campaign_id=c.pk, user=german, group_id="O1", cost_variant=variant)
    o2 = purchases.purchase_rg(campaign_id=c.pk, user=german, group_id="O2")
    players.until("results")
    players.results(**result_values(module_of(c)))
    players.until_step("C5.31")
    return players, o1, o2


def test_rg_footnote_p_a_further_pre_registered_hex_for_a_module_bought_earlier(users, modules):
    """C5.31 RG footnote p, second sentence: "If the OBA module is unused during
    current TM Scenario, an additional two TP expenditure may be made to requisition
    each additional Pre-Registered hex.  Note there is a limit of two Pre-Registered
    hexes per OBA module": at the 0930 purchase step the German buys, for 2 TP, a
    second hex for O1 (bought at the start with one); a third is refused (the limit
    counts the one bought with it); the player must affirm the module was unused (the
    map's); O2 (no footnote p) is refused.  The purchase is secret, although O1 is
    revealed: the US sees nothing of it, not even a log line, until the purchases of
    that step are revealed."""
    players, o1, o2 = oba_bought_at_the_start(users)
    line = _line(players, "german", o1)
    assert [label for _, label, _ in line.can_add_later] == ["A further Pre-Registered hex (2 TP)"]
    assert "unused during the current TM Scenario (C5.31 RG footnote p)" in line.can_add_later[0][2]
    before = _points(players, "german")
    with pytest.raises(ActionRefused, match=r"Only if: The OBA module was unused.*footnote p"):
        _add(players, "german", o1, affirmed=False)
    with pytest.raises(
        ActionRefused, match=r"O2 81mm OBA Module cannot have this: A further Pre-Registered hex"
    ):
        _add(players, "german", o2)
    assert _points(players, "german") == before
    added = _add(players, "german", o1)
    assert (added.cost, added.revealed_at) == (2, None)
    assert _points(players, "german") == before - 2
    line = _line(players, "german", o1)
    assert line.added_later == ("A further Pre-Registered hex (2 TP) bought on 0930 hrs",)
    assert line.can_add_later == ()  # two now: none offered
    with pytest.raises(ActionRefused, match=r"already has 2, the most it may have"):
        _add(players, "german", o1)
    assert _points(players, "german") == before - 2
    # secret: the US sees no such record, no log line naming it
    assert not AddedLater.objects.visible_to("us").exists()
    assert not Event.objects.visible_to("us").filter(data__added_later=added.pk).exists()
    # O1 itself was revealed when the start's purchase step ended (reveal policy "step
    # end"): its line shows the US the hex bought with it, not the one bought now
    assert _line(players, "us", o1).added_later == ()
    players.finish()  # both done with C5.31: this purchase step's purchases are revealed
    assert AddedLater.objects.visible_to("us").count() == 1
    # The log says whose purchases are revealed (only the German bought at this step).
    shown = Event.objects.filter(campaign_id=players.campaign_id, kind="reveal").last()
    assert shown is not None and shown.text == "German purchases of 0930 hrs are revealed."
    assert Event.objects.visible_to("us").filter(data__added_later=added.pk).exists()
    assert _line(players, "us", o1).added_later == line.added_later


def test_rg_footnote_p_no_further_hex_at_purchase_nor_for_a_module_no_longer_held(users, modules):
    """C5.31 RG footnote p: the further hexes are for a module bought earlier (the
    ones bought with it are its price: +2/+4 TP) and still held (a module that placed
    an FFE is eliminated, TM13): refused at the step that bought it, and once it is
    marked eliminated; a module bought with none may take two later."""
    players, c = phd_with_chart(users, [OBA_P, OBA])
    german = players.users["german"]
    o1 = purchases.purchase_rg(campaign_id=c.pk, user=german, group_id="O1", cost_variant="prereg1")
    with pytest.raises(ActionRefused, match=r"was bought at this step"):
        _add(players, "german", o1)
    other = purchases.purchase_rg(campaign_id=c.pk, user=german, group_id="O1")
    players.until("results")
    players.results(**result_values(module_of(c)))
    players.until_step("C5.31")
    purchases.change_rg_state(campaign_id=c.pk, user=german, purchase_id=o1.ref, state="eliminated")
    with pytest.raises(ActionRefused, match=r"no longer in your OB"):
        _add(players, "german", o1)
    _add(players, "german", other)
    _add(players, "german", other)
    with pytest.raises(ActionRefused, match=r"already has 2"):
        _add(players, "german", other)


# ------------------------------------------------------------ the verification sample


def test_c5_34_no_ffe_drm_before_the_initial_tm_scenario(users, modules, fixed_dice):
    """C5.34 "+1 If module placed a FFE counter in prior TM Scenario": before the
    Initial TM Scenario (I-C5.34) there is no prior TM Scenario, so the +1 cannot be
    claimed; at the 0930 TM Scenario's C5.34 it applies by itself where the module's
    RG was marked as having placed an FFE (pass 9, ``test_phd_pass9a.py``): O2, not
    so marked, rolls without it."""
    players, c = phd_with_chart(users, [OBA_P, OBA])
    german = players.users["german"]
    purchases.purchase_rg(campaign_id=c.pk, user=german, group_id="O2")
    players.until_step("I-C5.34")
    fixed_dice.append([3, 4])
    with pytest.raises(ActionRefused, match=r"FFE.*\(C5.34\)|C5.34.*FFE"):
        roll(players, "german", "oba", item="O2 81mm OBA", ticked=["ffe_prior"])
    r = roll(players, "german", "oba", item="O2 81mm OBA")
    assert r.final == 7
    players.until("results")
    players.results(**result_values(module_of(c)))
    players.until_step("C5.34")
    fixed_dice.append([3, 4])
    r = roll(players, "german", "oba", item="O2 81mm OBA")
    assert r.final == 7


def test_c5_27a_the_isolated_drm_applies_by_itself(users, modules, fixed_dice):
    """C5.27a "+1 If Isolated": an immobilized StuG marked Isolated gets the +1 by
    itself (a dr of 2 becomes 3: No Change); one not Isolated does not (2: Becomes
    Mobile)."""
    players, module = start("purple-heart-draw", "tm", users, "us")
    players.results(**result_values(module))
    players.until_step("C5.27")
    isolated = add(players, "german", "StuG IIIG", "vehicle", "immobilized", markers=["isolated"])
    other = add(players, "german", "PzIVH", "vehicle", "immobilized")
    fixed_dice.extend([[2], [2]])
    r = roll(players, "german", "immobilization_repair", isolated)
    assert (r.final, r.result) == (3, "No Change")
    r = roll(players, "german", "immobilization_repair", other)
    assert (r.final, r.result) == (2, "Becomes Mobile")


def test_c5_35_any_unspent_dsp_are_lost(users, modules):
    """C5.35 "Any unspent DSP are lost": the German spends 5 of his 60 DSP (C4.2) on a
    Trench at I-C5.35; when he is done, the 55 left are gone, with a log line."""
    a, b = users
    c = host_game("purple-heart-draw", "tm", a, b, side="german", through_start=False)
    players = players_of(c, a, b)
    players.until_step("I-C5.35")
    german = players.users["german"]
    module = module_of(c)
    trench = next(i for i in module.fortifications.items if i.label == "Trench")
    purchases.buy_fortification(campaign_id=c.pk, user=german, item_id=trench.id, count=1)
    assert Seat.objects.get(campaign=c, side="german").fortification_points == 55
    steps.finish_step(campaign_id=c.pk, user=german)
    assert Seat.objects.get(campaign=c, side="german").fortification_points == 0
    assert Event.objects.filter(campaign=c, text__contains="55 unspent DSP").exists()


def test_c5_36_one_recon_per_tm_scenario_paid_from_the_tp_held(users, modules):
    """C5.36 "provided it has: a) Requisitioned a reconnaissance ... b) Expended the
    required TP": a second Recon on the same TM Scenario is refused, and a side
    holding 1 TP cannot buy the 2 TP Recon (+5): nothing is spent."""
    players, _ = campaign_at("purple-heart-draw", "tm", "t0930", users, kind="recon", points=1)
    us, german = players.users["us"], players.users["german"]
    with pytest.raises(ActionRefused, match=r"TP"):
        purchases.buy_recon(campaign_id=players.campaign_id, user=us, option=1)
    assert Seat.objects.get(campaign_id=players.campaign_id, side="us").points == 1
    purchases.buy_recon(campaign_id=players.campaign_id, user=german, option=0)
    with pytest.raises(ActionRefused):
        purchases.buy_recon(campaign_id=players.campaign_id, user=german, option=0)
    assert Seat.objects.get(campaign_id=players.campaign_id, side="german").points == 0


def test_c5_31_footnote_x_only_on_or_after_tm_scenario_iii_through_the_services(users, modules):
    """C5.31 RG footnote x "May only be requisitioned on/after TM Scenario III": an RG
    the players mark x is refused at the start (I) with the footnote named, nothing
    spent."""
    row = {"id": "G9", "type": "StuG Section", "units": "StuG IIIG", "unit_kind": "vehicle"}
    players, c = phd_with_chart(users, [{**row, "cost": "6", "footnotes": "x"}])
    with pytest.raises(ActionRefused, match=r"footnote x|III"):
        purchases.purchase_rg(
            campaign_id=c.pk, user=players.users["german"], group_id="G9", cost_variant="onmap"
        )
    assert _points(players, "german") == 20


def test_c5_34_one_oba_dr_for_each_oba_module_held(users, modules, fixed_dice):
    """C5.34 "To determine the Ammunition of each OBA Module requisitioned, make a DR
    for each": the German, who bought one OBA module (O2), makes one DR; a second, for
    any other name, is refused with the count; the US, who holds none, may not roll."""
    players, c = phd_with_chart(users, [OBA_P, OBA])
    purchases.purchase_rg(campaign_id=c.pk, user=players.users["german"], group_id="O2")
    players.until_step("I-C5.34")
    fixed_dice.append([3, 4])
    roll(players, "german", "oba", item="O2 81mm OBA")
    with pytest.raises(
        ActionRefused, match=r"one of the OBA modules you hold \(O2 81mm OBA Module\).*\(C5.34\)"
    ):
        roll(players, "german", "oba", item="another module")
    with pytest.raises(ActionRefused, match=r"You hold no OBA module"):
        roll(players, "us", "oba", item="a module")


def test_c5_26b_a_repair_dr_for_a_baz_psk_ft_or_dc_of_its_nationality(users, modules, fixed_dice):
    """C5.26b "Each side makes a separate dr on the table below for each Baz, Psk, FT,
    and DC of its nationality that was removed from play": the US rolls for a Bazooka,
    not for a Psk nor for an LMG (not on the table); the German for a Panzerschreck, not
    for a Baz.  Nothing is rolled when refused."""
    players, module = start("purple-heart-draw", "tm", users, "us")
    players.results(**result_values(module))
    players.until_step("C5.26")
    for side, item in (("us", "Psk in 12H3"), ("us", "LMG in 12H3"), ("german", "Baz at 23K4")):
        with pytest.raises(ActionRefused, match=r"roll is for a .* only.*\(C5.26b\)"):
            roll(players, side, "baz_psk_ft_dc_repair", item=item)
    assert not Roll.objects.filter(table_id="baz_psk_ft_dc_repair").exists()
    fixed_dice.extend([[1], [1]])
    roll(players, "us", "baz_psk_ft_dc_repair", item="Bazooka at 12H3")
    roll(players, "german", "baz_psk_ft_dc_repair", item="Panzerschreck at 23K4")


def test_c5_27b_the_mg_given_up_must_be_possessed_and_the_afv_not_captured(users, modules):
    """C5.27b "A disabled, non-captured, AFV MG may be automatically repaired ... by
    using ... US MMG if the AFV is American.  In all cases, the MG to be eliminated must
    be possessed": an MMG marked not possessed is refused, and so is a captured
    Sherman's BMG; a possessed MMG repairs the BMG and leaves the retained forces.
    (The same or adjacent location is judged on the map.)"""
    players, module = start("purple-heart-draw", "tm", users, "us")
    players.results(**result_values(module))
    players.until_step("C5.27")  # added here: C5.26's Captured Equipment dr comes first
    tank, (bmg,) = add_vehicle(players, "us", "M4A1", ("mg", ["disabled"], "BMG"))
    taken, (taken_bmg,) = add_vehicle(
        players, "us", "M4A3", ("mg", ["disabled"], "BMG"), markers=["captured"]
    )
    loose = add(players, "us", "MMG", "sw", markers=["unpossessed"])
    mmg = add(players, "us", "MMG", "sw")
    with pytest.raises(ActionRefused, match=r"\(C5.27b\)"):
        exchange(players, "us", tank, bmg, loose)
    with pytest.raises(ActionRefused, match=r"\(C5.27b\)"):
        exchange(players, "us", taken, taken_bmg, mmg)
    exchange(players, "us", tank, bmg, mmg)
    assert not Unit.objects.filter(pk=mmg.pk).exists()
    assert Unit.objects.filter(pk=loose.pk).exists()


def test_rg_footnote_p_the_further_hex_travels_in_the_campaign_backup(users, modules):
    """C5.31 RG footnote p: the further Pre-Registered hex bought later is part of the
    campaign's record: exported, imported into an empty database, exported again
    identical, still secret and still O1's."""
    players, o1, _ = oba_bought_at_the_start(users)
    _add(players, "german", o1)
    cid = players.campaign_id
    first = export_campaign(campaign_id=cid)
    Campaign.objects.all().delete()
    ModuleRecord.objects.all().delete()
    get_user_model().objects.all().delete()
    import_campaign(data=first)
    assert export_campaign(campaign_id=cid) == first
    (added,) = AddedLater.objects.filter(campaign_id=cid)
    assert (added.purchase.group_id, added.revealed_at) == ("O1", None)
