"""Purple Heart Draw, ninth pass, part A (issue 44): C1-C5.25 and the TM rules (TM1-TM20),
driven through the services as a player would, each test citing its rule."""

from __future__ import annotations

import pytest

from campaign.models import Purchase, Roll, Unit
from campaign.seat_views.campaign_page import campaign_view
from campaign.selectors import module_of
from campaign.services import purchases
from campaign.services.errors import ActionRefused
from rules import availability
from rules.loader import MODULE_DIR, load_file
from tests.test_phd_conph_late import OBA
from tests.test_rule_mechanisms import (
    add,
    fixed_dice,
    phd_with_chart,
    result_values,
    roll,
    unit_names,
    users,
)

pytestmark = [pytest.mark.django_db, pytest.mark.rules]
__all__ = ["fixed_dice", "users"]

GREN = {
    "id": "I9",
    "type": "Gren Pl",
    "units": "4-6-8",
    "unit_kind": "squad",
    "full": "3",
    "cost": "4",
}
STUG = {"id": "V1", "type": "StuG IIIG", "units": "StuG", "unit_kind": "vehicle", "cost": "6"}


def drms_of(r: Roll) -> list[tuple[str, int, str]]:
    return [(d["label"][:9], d["value"], d["how"]) for d in r.drms]


def mark(players, side, purchase: Purchase, state: str) -> Purchase:
    return purchases.change_rg_state(
        campaign_id=players.campaign_id,
        user=players.users[side],
        purchase_id=purchase.ref,
        state=state,
    )


def test_c5_34_tm13_an_oba_module_that_placed_an_ffe_gives_its_rg_the_plus_one(
    users, modules, fixed_dice
):
    """TM13 "OBA modules that have placed an FFE in the just-played TM Scenario are
    eliminated, as are any radios, fieldphones ... associated with that module"; C5.34
    "+1 If module placed a FFE counter in prior TM Scenario" (pass 7/8's Left: ticked).
    The German's O2 rolls at I-C5.34 without it.  After the Initial TM Scenario he marks
    O2 eliminated having placed an FFE: its Radio or Fieldphone leaves the retained
    forces with it.  He requisitions O2 again at C5.31, and its C5.34 DR has the +1 by
    itself (never ticked); a roll that does not name its RG is refused, citing the
    rule; an infantry RG cannot be marked as having placed an FFE, nor any RG before
    a TM Scenario is played ("in the just-played TM Scenario").  TM11: the RG not
    marked eliminated is retained, with its units."""
    players, c = phd_with_chart(users, [OBA, GREN])
    german = players.users["german"]
    first = purchases.purchase_rg(campaign_id=c.pk, user=german, group_id="O2")
    gren = purchases.purchase_rg(campaign_id=c.pk, user=german, group_id="I9", cost_variant="onmap")
    players.until_step("I-C5.34")
    with pytest.raises(ActionRefused, match=r"No TM Scenario has been played.*\(TM13\)"):
        mark(players, "german", first, "fired")  # before the Initial TM Scenario
    fixed_dice.append([3, 4])
    r = roll(players, "german", "oba", item="O2 81mm OBA")
    assert (r.final, drms_of(r)) == (7, [])
    players.until("results")
    players.results(**result_values(module_of(c)))
    assert ("Radio or Fieldphone (O2)", "sw", "ok", 1) in unit_names(players, "german")
    with pytest.raises(ActionRefused, match=r"Only an OBA module places an FFE: I9 Gren Pl"):
        mark(players, "german", gren, "fired")
    mark(players, "german", first, "fired")
    first.refresh_from_db()
    assert first.state == "fired"
    assert not any(n.startswith("Radio") for n, *_ in unit_names(players, "german"))
    players.until_step("C5.31")
    purchases.purchase_rg(campaign_id=c.pk, user=german, group_id="O2")
    players.until_step("C5.34")
    with pytest.raises(
        ActionRefused, match=r"not one of the OBA modules you hold \(O2 .*\(C5\.34\)"
    ):
        roll(players, "german", "oba", item="81mm OBA")
    with pytest.raises(ActionRefused, match="applies by itself"):
        roll(players, "german", "oba", item="O2 81mm OBA", ticked=["ffe_prior"])
    fixed_dice.append([3, 4])
    r = roll(players, "german", "oba", item="O2 81mm OBA")
    assert (r.final, drms_of(r)) == (8, [("+1 If mod", 1, "auto")])
    assert r.result == "German: Normal"
    # TM11 "each requisitioned/OB-given RG is retained until eliminated in a TM
    # Scenario": the Gren Pl, never marked otherwise, is still in the OB with its squads.
    gren.refresh_from_db()
    assert gren.state == "held"
    names = unit_names(players, "german")
    assert any("(I9" in n for n, *_ in names), names


def test_c5_34_no_ffe_no_plus_one_and_the_state_offered_only_where_read(
    users, modules, fixed_dice, client
):
    """C5.34: a module whose RG placed no FFE (marked plainly eliminated, or still held)
    rolls without the +1; the RG Purchase Record offers "eliminated (placed an FFE)" in
    PHD, whose C5.34 reads it (not in Sicily, where no table reads it); the roll form
    asks for the module by its RG ID."""
    players, c = phd_with_chart(users, [OBA])
    german = players.users["german"]
    purchases.purchase_rg(campaign_id=c.pk, user=german, group_id="O2")
    players.until("results")
    players.results(**result_values(module_of(c)))
    players.until_step("C5.34")
    view = campaign_view(german, c.pk)
    assert ("fired", "eliminated (placed an FFE)") in view.rg_states
    # What the roll form asks for: the module by its RG ID (C5.34), before any click.
    assert view.panel is not None
    oba = next(t for t in view.panel.tables if t.id == "oba")
    assert oba.item_label == "Which OBA module"  # a choice of the modules held (pass 10)
    assert oba.item_choices == (("O2 81mm OBA Module", "O2 81mm OBA Module"),)
    client.force_login(german)
    page = client.get(f"/campaigns/{c.pk}/").content.decode()
    assert "Which OBA module" in page and '<option value="O2 81mm OBA Module"' in page
    assert "eliminated (placed an FFE)" in page  # the RG Purchase Record's choice
    sicily = load_file(MODULE_DIR / "sicily.yaml", overrides=False)
    assert not availability.fired_tables(sicily)  # no table of Sicily reads it: not offered
    fixed_dice.append([3, 4])
    r = roll(players, "german", "oba", item="O2 81mm OBA")
    assert (r.final, drms_of(r)) == (7, [])


def test_c5_24_a_leader_of_an_afv_rg_is_an_armour_leader(users, modules, fixed_dice):
    """C5.24 "Battle Harden one Retained Non-Wounded Infantry Leader" (pass 7's Left:
    Armour Leader known by name only): a 9-2 that came with the German's StuG RG (V1,
    its leader written as C5.33's roll writes it, "9-2 (V1)") is an Armour Leader
    though its line does not say so: a DR 3 (9-2) passes it over and Battle Hardens
    the next lower Infantry leader, the 8-1."""
    players, c = phd_with_chart(users, [STUG])
    stug = purchases.purchase_rg(
        campaign_id=c.pk, user=players.users["german"], group_id="V1", cost_variant="onmap"
    )
    Unit.objects.create(campaign=c, side="german", name="9-2 (V1)", kind="leader", purchase=stug)
    add(players, "german", "8-1 leader", "leader")
    players.until("results")
    players.results(**result_values(module_of(c)))
    players.until_step("C5.24")
    fixed_dice.append([1, 2])
    assert roll(players, "german", "leader_promotion").result == "9-2"
    leaders = [u for u in unit_names(players, "german") if u[1] == "leader"]
    assert sorted(leaders) == [("9-1 leader", "leader", "ok", 1), ("9-2 (V1)", "leader", "ok", 1)]


def test_c5_24_a_heroic_leader_loses_his_hero_and_battle_hardens_once(users, modules, fixed_dice):
    """C5.24 "Each Heroic leader has its Hero counter removed and is then Battle
    Hardened (A15.3) ... No SMC may Battle Harden more than once during the ConPh" (the
    ledger said: the owner edits it): the German's 8-1 marked heroic becomes a 9-1,
    unmarked, when C5.24 is done; his DR of 5 (8-1) does not select the heroic 8-1 as
    well, so the next lower, the 8-0, Battle Hardens."""
    from tests.test_phd_conph import done, phd_after

    players, _ = phd_after(users, "C5.24")
    add(players, "german", "8-1 leader", "leader", status="heroic")
    add(players, "german", "8-0 leader", "leader")
    fixed_dice.append([2, 3])
    r = roll(players, "german", "leader_promotion")
    assert (r.final, r.result) == (5, "8-1")
    assert sorted(unit_names(players, "german")) == [
        ("8-1 leader", "leader", "heroic", 1),
        ("8-1 leader", "leader", "ok", 1),
    ]
    for side in ("us", "german"):
        done(players, side)  # C5.24 is done: its Heroic leaders Battle Harden
    assert sorted(unit_names(players, "german")) == [
        ("8-1 leader", "leader", "ok", 1),
        ("9-1 leader", "leader", "ok", 1),
    ]


def test_c5_34_the_dr_for_a_secret_oba_module_is_kept_with_it_until_revealed(
    users, modules, fixed_dice
):
    """C5.31 "secretly use TP to requisition reinforcements"; C5.34 "make a DR for each"
    OBA module requisitioned.  The DR names its module by its RG ID (TM13's +1), so a
    roll for a module still secret is that module's secret: the US sees nothing of it
    (no log line, no roll, not that one was made), the German reads it on O2's line of
    his RG Purchase Record; when he reveals O2 the roll is revealed with it (purchases
    revealed when the scenario ends, one of the campaign's reveal policies)."""
    from campaign.models import Campaign, Event

    players, c = phd_with_chart(users, [OBA])
    Campaign.objects.filter(pk=c.pk).update(reveal_policy="scenario_end")
    german = players.users["german"]
    players.until("results")
    players.results(**result_values(module_of(c)))
    players.until_step("C5.31")
    o2 = purchases.purchase_rg(campaign_id=c.pk, user=german, group_id="O2")
    players.until_step("C5.34")
    o2.refresh_from_db()
    assert o2.revealed_at is None, o2.revealed_at
    before_events = Event.objects.visible_to("us").filter(campaign=c).count()
    before_rolls = Roll.objects.visible_to("us").filter(campaign=c).count()
    fixed_dice.append([3, 4])
    r = roll(players, "german", "oba", item="O2 81mm OBA")
    assert r.secret and r.revealed_at is None
    assert Event.objects.visible_to("us").filter(campaign=c).count() == before_events
    assert Roll.objects.visible_to("us").filter(campaign=c).count() == before_rolls
    assert any("Offboard Artillery" in e.text for e in Event.objects.visible_to("german"))
    o2.refresh_from_db()
    assert [x["table"] for x in o2.details["rolls"]] == ["Offboard Artillery Table"]
    purchases.reveal_purchase(campaign_id=c.pk, user=german, purchase_id=o2.ref)
    r.refresh_from_db()
    assert r.revealed_at is not None
    assert any(
        "Offboard Artillery" in e.text for e in Event.objects.visible_to("us").filter(campaign=c)
    )
