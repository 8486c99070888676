"""Sicily (seed 001), the nineteenth pass of the sentence audit (issue 44): 3.615 to the
end, sentences drawn at random from the seed (random.Random(19)) and the ledger's weakest
claims, each tried through the page's own buttons (tests/page_play.py) on paths earlier
passes used little (docs/rules-audit/pass-19-sicb19.md)."""

from __future__ import annotations

import pytest

from campaign.models import Unit
from tests import test_rule_mechanisms as mechanisms
from tests.page_play import Seat
from tests.purchase_helpers import campaign_at, keep_retained_units  # noqa: F401
from tests.test_sicb18_pass18 import _press_through, _seats

users = mechanisms.users
fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


# ------------------------------------------------------------ 3.6181, 3.618: Record it


def test_3_6181_an_rg_with_no_secret_roll_says_what_recording_it_gives(users, modules):
    """3.6181: "Each RG whose ID begins with "I", "V", or "G" is subject to Depletion"
    (no secret DR for the others).  CG I, July 16 Night: the British buy an O2 (an OBA
    module, with its radio, chart footnote e), a B1 (British chart footnote i), an M1
    (a SAN +1, given with the purchase) and an O4; at 3.618 each button says whether
    recording it gives units, and which: the O2's, B1's and O4's name them, the M1's
    names none.  Pressed, the O2's line says what it received, and the units are in
    the retained forces."""
    players, _ = campaign_at("sicily", "i", "jul16n", users, points=80)
    seats = _seats(players)
    british = seats["british"]
    british.open()
    for price, typed in (
        ("Buy O2 Lgt Arty for 8 CPP", {}),
        ("Buy B1 Bombardment for 3 CPP", {"hex": "21C5"}),
        ("Buy M1 Sniper for 3 CPP", {}),
    ):
        assert british.press(price, **typed).status == 200, price
    british.open()
    assert british.press("Buy O4 Offboard Observer for 1 CPP").status == 200
    _press_through(seats, "3.617")
    british.open()
    record = {
        b.split(", ")[1].split(" ")[0]: b for b in british.buttons() if b.startswith("Record it: ")
    }
    assert "receive 80+mm OBA Module, radio" in record["O2"], record
    assert "receive Pregame Bombardment" in record["B1"], record
    assert "receive Offboard Observer" in record["O4"], record
    assert "receive" not in record["M1"], record
    assert "Record it and receive its units (no secret rolls)" in british.text
    assert british.press(record["O2"]).status == 200
    said = british.open()
    assert "O2 Lgt Arty — 8 CPP, July 16 Night · received: 80+mm OBA Module, radio" in said, said[
        :1500
    ]
    names = set(
        Unit.objects.filter(campaign_id=players.campaign_id, purchase__group_id="O2").values_list(
            "name", flat=True
        )
    )
    assert names == {"Lgt Arty: 80+mm OBA Module (O2)", "radio (O2)"}, names


# ------------------------------------------------------ 3.6213a, 3.623: the header's dr


def test_3_6213a_3_623_the_header_shows_the_dr_that_decided_who_sets_up_and_moves_first(
    users, modules, fixed_dice
):
    """3.6213a: "The British player makes a dr to determine which side sets up first: if
    <= 3 the British do; otherwise the Axis does"; 3.623's dr "<= 3 British, >= 4 Axis"
    decides who moves first.  CG II, July 16 Night, both sides lock Attack (a Night Dual
    Attack), dr 5: each side's header names the Axis setting up first with the dr and
    its rule beside it; after both Dones of 3.6223, dr 2: the British move first, the
    dr and rule shown again.  An Assault decided by no dr (3.6213c) shows none."""
    players, _ = campaign_at("sicily", "ii", "jul16n", users, kind="initiative")
    keep_retained_units(players)
    seats = _seats(players)
    seats["axis"].open()
    assert seats["axis"].press("Lock Attack").status == 200
    fixed_dice[:] = [[5]]
    seats["british"].open()
    assert seats["british"].press("Lock Attack").status == 200
    for seat in seats.values():
        said = seat.open()
        header = said.split("Step ·")[0]
        assert "→ Night Dual Attack; Axis sets up first." in header, header
        assert "British dr 5 → Axis sets up first (3.6213a: ≤3 British, ≥4 Axis)" in header, header
    _press_through(seats, "3.622")
    fixed_dice[:] = [[2]]
    _press_through(seats, "3.6223")
    for seat in seats.values():
        header = seat.open().split("Step ·")[0]
        assert "Axis sets up first; British moves first." in header, header
        assert "British dr 5 → Axis sets up first (3.6213a: ≤3 British, ≥4 Axis)" in header
        assert "British dr 2 → British moves first (3.623: ≤3 British, ≥4 Axis)" in header, header
    sheet = Seat(players.users["axis"], players.campaign_id, "sheet/").open()
    assert "British dr 5 → Axis sets up first (3.6213a: ≤3 British, ≥4 Axis); British dr 2" in sheet
    assert "Attacker: Axis, British." in sheet  # 3.6213b: both are Scenario Attackers


def test_3_6213c_an_assault_header_names_no_dr(users, modules):
    """3.6213c: "AXIS ASSAULT: ... The British set up first and the Axis moves first": no
    dr decides it, and the header names none."""
    players, _ = campaign_at("sicily", "ii", "jul16n", users, kind="initiative")
    keep_retained_units(players)
    players.chits(axis="attack", british="idle")
    header = Seat(players.users["axis"], players.campaign_id).open().split("Step ·")[0]
    assert "British sets up first; Axis moves first." in header, header
    assert " dr " not in header, header


# ------------------------------------------------- British chart footnote i, 3.6223


def test_footnote_i_a_british_side_holding_no_bombardment_is_not_told_a_dr_will_come(
    users, modules
):
    """British chart footnote i: "To resolve each bombardment, after all on-map setup is
    completed he ... makes a C1.31 error DR".  CG I, July 17 AM, the British hold no B1
    (an M2 and an I3 only); at 3.6223, before the Axis have finished, the British page
    said "the Bombardment error DR is rolled once they have" though no DR can come: it
    now says they hold no Bombardment, as it does once the Axis are done."""
    players, _ = campaign_at("sicily", "i", "jul17am", users, points=30)
    seats = _seats(players)
    british = seats["british"]
    british.open()
    assert british.press("Buy I3 Lgt Inf Assault Pltn for 7 CPP").status == 200
    players.until("initiative")
    players.chits(axis="idle", british="attack")
    players.until_step("3.6223")
    said = british.open()
    assert "You hold no Bombardment: there is nothing to roll for" in said, said[:3000]
    assert "is rolled once they have" not in said
    assert "Done with 3.6223" in british.buttons()


# ------------------------------------------------------------------ 3.6221, 3.6222 EXC


def test_3_6222_exc_3_6221_the_set_up_page_names_immobile_vehicles_and_isolated_units(
    users, modules
):
    """3.6222 EXC: "each Immobile vehicle must remain in its current Location and VCA
    (3.6071)"; 3.6221: the side setting up first sets up "all of its Retained units,
    Equipment, and new Fortifications which will go into an isolated Location", then
    the other side.  The app holds the markers: CG II, July 16 Night, the British hold
    an immobilized Sherman III(a) at 21C5, an Isolated 4-5-8 and a 4-5-7 in good order.
    At 3.622 the British page names the Sherman (immobilized, at 21C5) under the EXC and
    the 4-5-8 under 3.6221, never the 4-5-7; the Axis page names no British unit."""
    from tests.purchase_helpers import add_unit, add_vehicle

    players, _ = campaign_at("sicily", "ii", "jul16n", users, kind="initiative")
    add_vehicle(players, "british", "Sherman III(a)", status="immobilized", location="21C5")
    add_unit(players, "british", "4-5-8", "squad", status="isolated")
    add_unit(players, "british", "4-5-7", "squad")
    players.chits(axis="idle", british="attack")
    assert players.step.id == "3.622"
    seats = _seats(players)
    said = seats["british"].open()
    assert (
        "Each Immobile vehicle must remain in its current Location and VCA (3.6222 EXC; "
        "3.6071): your Sherman III(a) (immobilized; in Setup Area 21C5)." in said
    ), said[:2500]
    assert "(3.6221): your 4-5-8 (isolated)." in said, said[:2500]
    assert "your 4-5-7" not in said and "; 4-5-7" not in said, said[:2500]
    axis = seats["axis"].open()
    assert "(3.6222 EXC; 3.6071): your" not in axis and "(3.6221): your" not in axis, axis


# ---------------------------------------------------------------------- 3.619 fn d


def test_3_619_d_at_mines_through_the_page_with_the_airborne_squads_captured(users, modules):
    """3.619 footnote d: "May only be purchased by the British when >= 1 airborne MMC is
    currently retained."  CG I, July 14 PM, through the British page: an I2 Airborne
    Pltn bought and its rolls made by its button, then M3's FPP: "Buy AT Mines" is
    accepted.  Its 6-4-8 squads then marked captured (held by the Axis, not retained):
    a second "Buy AT Mines" is refused with the footnote where the British clicked, the
    FPP unchanged; the Axis page never offers AT Mines."""
    from campaign.models import Seat as SeatRow
    from campaign.services import units

    players, _ = campaign_at("sicily", "i", "jul14pm", users, points=60)
    seats = _seats(players)
    british = seats["british"]
    british.open()
    assert british.press("Buy I2 Airborne Pltn for 7 CPP").status == 200
    assert british.press("Buy M3 Fortification for 2 CPP").status == 200
    _press_through(seats, "3.617")
    british.open()
    (rolls,) = [b for b in british.buttons() if b.startswith("Make its secret rolls") and "I2" in b]
    assert british.press(rolls).status == 200
    _press_through(seats, "3.618")
    assert players.step.id == "3.619"
    said = british.open()
    assert british.press("Buy AT Mines").status == 200, said[:2000]
    squads = Unit.objects.filter(
        campaign_id=players.campaign_id, side="british", purchase__group_id="I2", kind="squad"
    )
    assert squads.exists()
    for squad in squads:
        units.update_unit(
            campaign_id=players.campaign_id,
            user=players.users["british"],
            unit_id=squad.ref,
            name=squad.name,
            markers=["captured"],
        )
    fpp = SeatRow.objects.get(campaign_id=players.campaign_id, side="british").fortification_points
    british.open()
    again = british.press("Buy AT Mines")
    assert again.refused and "3.619 footnote d" in again.text, again.text[:400]
    after = SeatRow.objects.get(campaign_id=players.campaign_id, side="british")
    assert after.fortification_points == fpp
    axis = seats["axis"]
    axis.open()
    assert not [b for b in axis.buttons() if "AT Mines" in b], axis.buttons()


# ---------------------------------------------------------- 3.6179 the OB's lines


def test_3_6179_an_initial_scenario_ob_line_is_not_a_purchase_to_cancel(users, modules):
    """3.6179: "If preparing for a CG Initial Scenario, one line is also filled out for
    each RG given in the Initial Scenario OB (but these latter do not apply towards RG
    purchase limits)".  CG I's start, the OB (supplied and accepted) gives the British
    an I2: at I-3.617 its line reads "OB" for #P and "—" for #R, and the page offered
    "Cancel" on it as on a purchase (its points "refunded": it cost none), which took
    the agreed OB's RG away.  Now no Cancel is offered on it and a cancel posted is
    refused with a sentence, the line kept."""
    from campaign.models import Purchase
    from tests.purchase_helpers import with_sicily_ob
    from tests.test_sicb18_pass18 import _forge

    c, players = with_sicily_ob(users, {"rgs.axis": "I5", "rgs.british": "I2"})
    players.until("purchase")
    assert players.step.id == "I-3.617"
    british = Seat(players.users["british"], c.pk)
    said = british.open()
    assert "British July 14 AM I2 Airborne Pltn OB —" in said, said[:3000]
    assert not [b for b in british.buttons() if b.startswith("Cancel")], british.buttons()
    line = Purchase.objects.get(campaign=c, side="british", initial=True)
    refused = _forge(british, "cancel", purchase=line.ref)
    assert refused.refused and "Initial-Scenario OB" in refused.text, refused.text[:300]
    line.refresh_from_db()
    assert line.status == Purchase.Status.ACTIVE


# ------------------------------------------------------------- 3.6162, British fn l


def _after_result(users, variant, date_id, cvp):
    """Both players past a CG scenario whose CVP lost were ``cvp`` (Axis, British), at
    3.617 of ``date_id``."""
    from campaign.models import Campaign
    from campaign.selectors import module_of
    from rules import machine
    from tests.walk import host_game, players_of

    alice, bob = users
    c = host_game("sicily", variant, alice, bob, policy="step_end", name="loss points")
    module = module_of(c)
    Campaign.objects.filter(pk=c.pk).update(date_index=machine.date_index(module, date_id) - 1)
    players = players_of(c, alice, bob)
    values = {
        f"{f.id}.{s}": (False if f.kind == "bool" else 0)
        for f in module.result_fields
        for s in ("axis", "british")
    }
    values["cvp_lost.axis"], values["cvp_lost.british"] = cvp
    players.results(**values)
    players.until_step("3.617")
    return players


@pytest.mark.parametrize(
    ("cvp", "british_words"),
    [
        ((7, 15), "lost 15 CVP vs 7 (≥ 2× and ≥ 8 more): loss-point dr 4 (3.6162) · total 69"),
        ((7, 14), "no loss points: lost 14 CVP vs 7 (3.6162) · total 65"),
    ],
)
def test_3_6162_loss_points_at_the_bound_on_each_sides_page(
    users, modules, fixed_dice, cvp, british_words
):
    """3.6162: "If the CVP lost by a player for the prior CG scenario (only) are >= two
    times, and >= 8 more than, the CVP lost by the other Player, that player may make a
    dr and add this value to the CPP Base Number".  CG II, July 15 PM (British base 65):
    15 CVP lost vs 7 gives the British a dr (4: 69 CPP), shown on their page with its
    rule; 14 vs 7 (7 more) gives none.  The Axis page never shows a loss-point dr."""
    fixed_dice[:] = [[4]]
    players = _after_result(users, "ii", "jul15pm", cvp)
    seats = _seats(players)
    said = seats["british"].open()
    assert british_words in said, said[said.find("3.6161") - 200 :][:600]
    axis = seats["axis"].open()
    assert "loss-point dr" not in axis and "no loss points" in axis


def test_british_fn_l_four_coys_a_calendar_day_through_two_idle_loops(users, modules):
    """British chart footnote l: "A total of no more than two coy type RG may be
    purchased on any given CG Date. Further, no more than 4 coy type RGs may be purchased
    on a given calendar day."  CG I: two I1 bought through the page on July 16 AM, both
    sides Idle, two more on July 16 PM, Idle again: on July 16 Night the I1 row reads
    the calendar-day limit instead of a price, and a buy posted is refused with it,
    nothing bought."""
    from campaign.models import Purchase
    from campaign.models import Seat as SeatRow
    from tests.test_sicb18_pass18 import _forge

    players, _ = campaign_at("sicily", "i", "jul16am", users, points=100)
    british = _seats(players)["british"]
    for date in ("jul16am", "jul16pm"):
        SeatRow.objects.filter(campaign_id=players.campaign_id).update(points=100)
        british.open()
        for _ in range(2):
            assert british.press("Buy I1 Lgt Inf Rifle Coy for 18 CPP").status == 200, date
        players.until("initiative")
        players.chits(axis="idle", british="idle")
        players.until("purchase")
    SeatRow.objects.filter(campaign_id=players.campaign_id).update(points=100)
    said = british.open()
    assert "no more than 4 per calendar day (July 16) (3.617 British chart footnote l)" in said
    assert not [b for b in british.buttons() if b.startswith("Buy I1")], british.buttons()
    refused = _forge(british, "buy", group="I1", variant="")
    assert refused.refused and "footnote l" in refused.text, refused.text[:300]
    assert "Nothing was changed" in refused.text
    bought = Purchase.objects.filter(campaign_id=players.campaign_id, group_id="I1")
    assert bought.count() == 4
