"""Sicily (seed 001), the sixteenth pass of the sentence audit (issue 44): the Left
items of pass 15 (British chart footnote i's secret Pre-Registered hex under the host's
reveal policy "step end"; 3.6212 footnote * for a unit added by hand), then the ledger's
map/recorded entries of 3.615 to the end challenged and sentences tried in play
(docs/rules-audit/pass-16-sicb16.md)."""

from __future__ import annotations

import pytest

from campaign.models import Event, Purchase, Roll
from campaign.services import purchases, steps
from campaign.services.errors import ActionRefused
from tests import test_rule_mechanisms as mechanisms
from tests.purchase_helpers import campaign_at, keep_retained_units, roster_of
from tests.test_sicb15_pass15 import _b1, _bombard

users = mechanisms.users
fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


def _page(client, players, side, path=""):
    client.force_login(players.users[side])
    return client.get(f"/campaigns/{players.campaign_id}/{path}").content.decode()


def _axis_reads(client, players):
    """Everything the Axis seat reads: the campaign page, the roster, the log."""
    return " ".join(_page(client, players, "axis", p) for p in ("", "roster/", "state.json"))


def _log_of(players, side):
    return " ".join(
        e.shown for e in Event.objects.filter(campaign_id=players.campaign_id).visible_to(side)
    )


# --------------------------------------------------------------------------- Left: footnote i's hex


def test_british_footnote_i_the_pre_registered_hex_stays_secret_after_the_step_end_reveal(
    users, modules, client
):
    """3.617 British chart footnote i: "he records a secret Pre-Registered hex for it".
    Reveal policy "step end": the British B1 bought on July 14 N with hex 23G5 is
    revealed to the Axis when 3.617 ends, its line (B1 Bombardment) and not its hex:
    neither the roster nor the log the Axis read names 23G5; the British still read it."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100, policy="step_end")
    p = _b1(players)
    players.finish()
    p.refresh_from_db()
    assert p.revealed_at is not None  # the policy revealed the line
    axis = _axis_reads(client, players)
    assert "B1" in axis and "Bombardment" in axis
    assert "23G5" not in axis and "23G5" not in _log_of(players, "axis")
    assert "23G5" in _page(client, players, "british", "roster/")
    assert "23G5" in _log_of(players, "british")


def test_british_footnote_i_the_bombardment_roll_reveals_the_pre_registered_hex(
    users, modules, client
):
    """3.617 British chart footnote i: "after all on-map setup is completed he places an AR
    counter in the Pre-Reg hex": the hex is the Axis's to read once the British roll the
    Bombardment error DR at 3.622 (reveal policy "step end"), not before."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100, policy="step_end")
    _b1(players)
    players.until("initiative")
    keep_retained_units(players)
    players.chits(axis="idle", british="attack")
    players.until_step("3.6223")  # after 3.622 (3.6222)
    players.finish_side("axis")
    assert "23G5" not in _axis_reads(client, players)
    _bombard(players)
    assert "23G5" in _log_of(players, "axis")
    assert "Pre-Registered hex 23G5" in _page(client, players, "axis", "roster/")


def test_british_footnote_j_a_hex_recorded_with_the_purchase_survives_the_strength_step(
    users, modules
):
    """3.617 British chart footnote j: "Secretly record the hex prior to German setup."
    The O4 bought with an O2 on July 15 AM records its hex 33B10 with the purchase: the
    3.618 strength DRs written on its line keep it, so at 3.622 the British finish
    without recording it again, and the Axis never read it."""
    players, _ = campaign_at("sicily", "i", "jul15am", users)
    from tests.test_rule_mechanisms import buy

    buy(players, "british", "O2")
    purchases.purchase_rg(
        campaign_id=players.campaign_id,
        user=players.users["british"],
        group_id="O4",
        recorded_hex="33b10",
    )
    players.until("initiative")
    players.chits(axis="idle", british="attack")
    assert players.step.id == "3.622"
    o4 = next(ln for ln in roster_of(players.campaign, "british").record if ln.group_id == "O4")
    assert o4.recorded_hex == "Offboard Observer hex 33B10 for July 15 AM", o4.recorded_hex
    assert all("33B10" not in ln.recorded_hex for ln in roster_of(players.campaign, "axis").record)
    players.finish_side("axis")  # a British Assault: the Axis set up first (3.6222)
    steps.finish_step(campaign_id=players.campaign_id, user=players.users["british"])


def test_3_617_the_cpp_remaining_stay_secret_when_the_purchases_are_revealed(
    users, modules, client
):
    """3.617: "The CPP expended, those remaining, and the RG(s) purchased may all be kept
    secret."  Reveal policy "step end" reveals the RGs bought (the host's choice), not
    the CPP the buyer has left: the British buy a B1 (3 CPP) and an M3 with 100 CPP;
    once 3.617 ends the Axis read both lines and no "CPP left" figure."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100, policy="step_end")
    _b1(players)
    from tests.test_rule_mechanisms import buy

    buy(players, "british", "M3")
    players.finish()
    axis = _log_of(players, "axis")
    assert "bought B1 Bombardment" in axis and "bought M3" in axis, axis
    assert "CPP left" not in axis and " left." not in axis, axis


def test_british_footnote_i_no_bombardment_on_an_idle_date(users, modules):
    """3.617 British chart footnote i: "No Bombardment is resolved on an Idle Date.": a B1
    bought on July 14 N, both sides choose Idle (3.6212 note 2: no scenario): the
    Bombardment error DR is refused at every step of the RePh repeated for July 15 AM up
    to its 3.621 (3.622 is not reached), and the B1 stays held."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    p = _b1(players)
    players.until("initiative")
    keep_retained_units(players)
    players.chits(axis="idle", british="idle")
    seen = set()
    while players.step.kind != "initiative" or not seen:
        seen.add(players.step.id)
        with pytest.raises(ActionRefused):
            _bombard(players)
        players.finish()
    assert "3.622" not in seen and "3.617" in seen, seen
    p.refresh_from_db()
    assert p.state == Purchase.State.HELD
    assert not Roll.objects.filter(table_id="bombardment").exists()


# --------------------------------------------------------------------------- Left: 3.6212 *


def test_3_6212_star_the_british_read_where_they_add_a_unit_that_it_counts_as_on_the_map(
    users, modules, client
):
    """3.6212 matrix footnote *: "The Attack Chit cannot be selected by the Axis player if
    the British player currently has no on-map Retained units."  A unit the British add
    by hand counts as on the map unless marked withdrawn: their roster's "Add a unit"
    form says so, with the footnote; the Axis form (whose units decide no chit) does
    not."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, kind="initiative")
    british = _page(client, players, "british", "roster/")
    said = "A unit you add counts as on the map for 3.6212"
    assert said in british and "unless you mark it withdrawn" in british
    assert said not in _page(client, players, "axis", "roster/")


# --------------------------------------------------------------------------- tried in play


def _cancel(players, side, p):
    purchases.cancel_purchase(
        campaign_id=players.campaign_id, user=players.users[side], purchase_id=p.ref
    )


def test_axis_footnote_m_a_coy_rg_cancelled_frees_its_place(users, modules):
    """3.617 Axis chart footnote m: "A total of no more than two coy type RG may be
    purchase on any given CG Date."  After a correction: I1 and I7 on July 14 N, the I7
    cancelled (refunded), then I10 is accepted; a further I7 is refused."""
    from tests.test_rule_mechanisms import buy

    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    buy(players, "axis", "I1")
    i7 = buy(players, "axis", "I7")
    _cancel(players, "axis", i7)
    buy(players, "axis", "I10")
    with pytest.raises(ActionRefused, match="footnote m"):
        buy(players, "axis", "I7")


def test_3_6179_a_cancelled_purchase_is_not_counted_in_p_or_r(users, modules):
    """3.6179: "#P (Number Purchased): The total number of friendly RG of this Group Type
    purchased thus far during the CG." and "#R ... subtracting ... #P ... from the
    "Maximum" column": the Axis I7 bought twice, the first cancelled: the line left
    reads #P 1, #R 2 (CG I max 3)."""
    from tests.test_rule_mechanisms import buy

    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    first = buy(players, "axis", "I7")
    _cancel(players, "axis", first)
    p = buy(players, "axis", "I7")
    lines = [ln for ln in roster_of(players.campaign, "axis").record if ln.group_id == "I7"]
    assert [(ln.id, ln.number_purchased, str(ln.number_remaining)) for ln in lines] == [
        (p.ref, 1, "2")
    ], lines


def test_3_619_d_no_at_mines_without_an_airborne_mmc(users, modules):
    """3.619 footnote d (the other side of the condition): AT mines may be bought "when
    >= 1 airborne MMC is currently retained": the British hold no airborne MMC (an M3
    only): an AT mine is refused with the footnote, no FPP spent."""
    from campaign.models import Seat
    from tests.test_rule_mechanisms import buy
    from tests.test_sicb15_pass15 import _fortify

    players, _ = campaign_at("sicily", "i", "jul14pm", users, points=100)
    buy(players, "british", "M3")
    Seat.objects.filter(campaign_id=players.campaign_id, side="british").update(
        fortification_points=60
    )
    players.until("fortify")
    with pytest.raises(ActionRefused) as refused:
        _fortify(players, "british", "at_mines")
    assert "footnote d" in str(refused.value) or "airborne" in str(refused.value), refused.value
    seat = Seat.objects.get(campaign_id=players.campaign_id, side="british")
    assert seat.fortification_points == 60


def test_british_footnote_i_a_b1_on_another_date_after_one_used(users, modules):
    """3.617 British chart B1, CG Date Max 1, tried on another date: a B1 bought and used
    on July 14 N; on July 15 AM a new B1 is bought (the Date Max counts per date) and its
    Bombardment rolled (one new CG Date since the last scenario)."""
    from tests.test_sicb15_pass15 import _play, _to_setup

    players, module = campaign_at("sicily", "i", "jul14n", users, points=100)
    _b1(players)
    _to_setup(players)
    players.finish_side("axis")
    _bombard(players)
    _play(players, module)
    players.until("purchase")
    from campaign.models import Seat

    Seat.objects.filter(campaign_id=players.campaign_id, side="british").update(points=100)
    second = _b1(players, "24H6")
    with pytest.raises(ActionRefused):
        _b1(players, "25H6")  # Date Max 1
    _to_setup(players)
    players.finish_side("axis")
    r = _bombard(players)
    assert "24H6" in " ".join(
        e.text for e in Event.objects.filter(campaign_id=players.campaign_id, data__roll=r.seq)
    )
    second.refresh_from_db()
    assert second.state == Purchase.State.ELIMINATED


def test_3_617_exc_cpp_left_after_july_14_pm_are_lost_in_play_and_kept_on_july_14_n(users, modules):
    """3.617 EXC: "Any CPP remaining after this step on the 14 PM date are lost."  Tried in
    play, not on the data: on July 14 PM both sides finish 3.617 with 20 CPP each: both
    hold 0 at 3.618, and the British are told (their log).  On July 14 N (another date)
    20 CPP left at 3.617 are still there at 3.618."""
    from campaign.models import Seat

    def points(players):
        return sorted(
            Seat.objects.filter(campaign_id=players.campaign_id).values_list("side", "points")
        )

    players, _ = campaign_at("sicily", "i", "jul14pm", users, points=20)
    players.finish()
    assert players.step.id == "3.618", players.step.id
    assert points(players) == [("axis", 0), ("british", 0)]
    assert "3.617 EXC" in _log_of(players, "british")
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=20)
    players.finish()
    assert points(players) == [("axis", 20), ("british", 20)]


def test_3_6175_an_axis_g_rg_in_reserve_costs_20_percent_less_frd(users, modules):
    """3.6175: "If an Axis "I" or "G" type RG is purchased for Reserve ... 20% less (FRD)",
    tried on another group type than its named test: the Axis G3 MTR Section (7 CPP) in
    Reserve costs 5 (7 x 4/5 = 5.6, FRD); its line says it must set up in Reserve; the
    British have no such price (their I3 in Reserve is refused)."""
    from tests.test_rule_mechanisms import buy

    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    p = buy(players, "axis", "G3", "reserve")
    assert p.cost == 5
    line = next(ln for ln in roster_of(players.campaign, "axis").record if ln.id == p.ref)
    assert "Reserve" in str(line.__dict__)
    with pytest.raises(ActionRefused):
        buy(players, "british", "I3", "reserve")


def test_british_footnote_p_and_cg_iii_no_bombardment_or_observer_before_july_14_n(users, modules):
    """3.617 British chart footnote p: "May only be purchased on or after July 14 N.", on
    another RG and another CG: the O4 Offboard Observer on July 14 PM of CG I, and the
    B1 on July 14 PM of CG III (its CG Max 0; CG III ends that date) are refused in
    words, nothing spent."""
    from campaign.models import Seat

    players, _ = campaign_at("sicily", "i", "jul14pm", users, points=100)
    with pytest.raises(ActionRefused) as refused:
        purchases.purchase_rg(
            campaign_id=players.campaign_id,
            user=players.users["british"],
            group_id="O4",
            recorded_hex="33B10",
        )
    assert "footnote p" in str(refused.value), refused.value
    players, _ = campaign_at("sicily", "iii", "jul14pm", users, points=100)
    with pytest.raises(ActionRefused) as refused:
        _b1(players)
    assert "B1" in str(refused.value), refused.value
    assert Seat.objects.get(campaign_id=players.campaign_id, side="british").points == 100


def test_british_footnote_i_an_unused_b1_keeps_its_hex_secret_past_the_scenario(
    users, modules, client
):
    """3.617 British chart footnote i, "a secret Pre-Registered hex", skipped: the B1
    bought on July 14 N (reveal policy "step end") is not used at 3.622 (the British
    finish without the roll); after the scenario's end, which reveals what was held
    back of the revealed lines, the Axis still read no hex, and on July 15 AM too."""
    from tests.test_sicb15_pass15 import _play, _to_setup

    players, module = campaign_at("sicily", "i", "jul14n", users, points=100, policy="step_end")
    _b1(players)
    _to_setup(players)
    _play(players, module)
    players.until("purchase")
    assert "23G5" not in _axis_reads(client, players)
    assert "23G5" not in _log_of(players, "axis")
    assert "23G5" in _page(client, players, "british", "roster/")
