"""Sicily (seed 001), the seventeenth pass of the sentence audit (issue 44): the Left
items of pass 16 (the set-up order of 3.6221/3.6222 on the sides' Done, with the
Bombardment after all set-up; a British RG bought for printed value on an Idle Date),
then 3.615 to the end walked step by step as a player meets them, on paths the earlier
tests use little (docs/rules-audit/pass-17-sicb17.md)."""

from __future__ import annotations

import pytest

from campaign.models import Purchase, Roll
from campaign.services import steps
from campaign.services.errors import ActionRefused
from tests import test_rule_mechanisms as mechanisms
from tests.purchase_helpers import campaign_at, keep_retained_units
from tests.test_sicb15_pass15 import _b1, _bombard

users = mechanisms.users
fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


def _page(client, players, side, path=""):
    client.force_login(players.users[side])
    return client.get(f"/campaigns/{players.campaign_id}/{path}").content.decode()


def _done(players, side):
    steps.finish_step(campaign_id=players.campaign_id, user=players.users[side])


def _to_setup(players, **chits):
    players.until("initiative")
    keep_retained_units(players)  # 3.6212*: the British roster lists a unit
    players.chits(**chits)
    assert players.step.id == "3.622", players.step.id


# --------------------------------------------------------------------------- Left: set-up order


def test_3_6222_the_british_setting_up_first_finish_3_622_before_the_axis(users, modules, client):
    """3.6221/3.6222: "The side which sets up first now sets up ... Once the side setting
    up first has completed its setup, the other side follows the same (3.622)
    procedure."  An Axis Assault on a late date (July 16 PM): the British set up first
    (3.6213c).  The Axis Done at 3.622 is refused citing 3.6222 and changes nothing, the
    Axis page says why; the British Done is accepted, then the Axis's."""
    players, _ = campaign_at("sicily", "i", "jul16pm", users, kind="initiative")
    _to_setup(players, axis="attack", british="idle")
    with pytest.raises(ActionRefused, match=r"3\.6222") as refused:
        _done(players, "axis")
    assert "British" in str(refused.value), refused.value
    assert players.step.id == "3.622"
    axis = _page(client, players, "axis")
    assert "set up first" in axis and "3.6222" in axis, "the Axis page does not say why"
    _done(players, "british")
    _done(players, "axis")
    assert players.step.id != "3.622"


def test_3_6222_the_axis_setting_up_first_finish_3_622_before_the_british(users, modules):
    """3.6222, the other side: a British Assault on the last date of CG I (July 17 PM):
    the Axis set up first (3.6213d); the British Done waits for the Axis's."""
    players, _ = campaign_at("sicily", "i", "jul17pm", users, kind="initiative")
    _to_setup(players, axis="idle", british="attack")
    with pytest.raises(ActionRefused, match=r"3\.6222"):
        _done(players, "british")
    _done(players, "axis")
    _done(players, "british")
    assert players.step.id != "3.622"


def test_british_footnote_i_bombardment_after_all_set_up_when_the_british_set_up_first(
    users, modules
):
    """British chart footnote i: "after all on-map setup is completed he places an AR
    counter in the Pre-Reg hex and makes a C1.31 error DR"; 3.6223: Recon Inspection
    "After all setup is complete (but prior to Bombardment, if any)".  The B1 bought on
    July 14 N, an Axis Assault: the British set up first and finish 3.622 first; the
    Axis then set up; the Bombardment error DR is refused until then, and made at 3.6223
    once the Axis have finished it; the B1 is eliminated."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    p = _b1(players)
    _to_setup(players, axis="attack", british="idle")
    with pytest.raises(ActionRefused):
        _bombard(players)  # nobody has set up yet
    _done(players, "british")
    with pytest.raises(ActionRefused):
        _bombard(players)  # the Axis are setting up
    _done(players, "axis")
    assert players.step.id == "3.6223", players.step.id
    with pytest.raises(ActionRefused, match="Axis"):
        _bombard(players)  # the Axis declare their Recon Inspection first
    _done(players, "axis")
    _bombard(players)
    p.refresh_from_db()
    assert p.state == Purchase.State.ELIMINATED
    assert Roll.objects.filter(campaign_id=players.campaign_id, table_id="bombardment").count() == 1
    _done(players, "british")
    assert players.step.id not in ("3.622", "3.6223")


# --------------------------------------------------------------------------- walked in rule order


def _record_observer_hex(players, o4, where):
    from campaign.services import purchases

    purchases.record_entry_area(
        campaign_id=players.campaign_id,
        user=players.users["british"],
        purchase_id=o4.ref,
        entry_area="",
        recorded_hex=where,
    )


def test_british_footnote_j_the_observer_hex_is_recorded_before_the_german_set_up(
    users, modules, client
):
    """3.617 British chart footnote j: "Secretly record the hex prior to German setup."
    A late date (July 16 AM), an O2 with its Offboard Observer (O4) bought without a
    hex: an Attack chit may have the Axis set up first (a British Assault, 3.6213d; a
    Dual Attack's dr) and finish 3.622 before the British may (3.6222), so the British
    Attack chit at 3.621 is refused citing the footnote until the hex is recorded for
    the date, then locked; the Axis set up first, the British finish 3.622 after them
    asked nothing more; the Axis never read the hex."""
    from tests.test_rule_mechanisms import buy

    players, _ = campaign_at("sicily", "i", "jul16am", users)
    buy(players, "british", "O2")
    o4 = buy(players, "british", "O4")
    players.until("initiative")
    keep_retained_units(players)
    players.chits(axis="idle")
    with pytest.raises(ActionRefused, match="footnote j") as refused:
        players.chits(british="attack")
    assert "Offboard Observer hex of O4" in str(refused.value), refused.value
    assert players.step.id == "3.621"
    _record_observer_hex(players, o4, "41A2")
    players.chits(british="attack")
    assert players.step.id == "3.622"
    _done(players, "axis")
    _done(players, "british")  # nothing more asked of the British at 3.622
    assert "41A2" not in _page(client, players, "axis", "roster/")


def test_british_footnote_j_with_an_idle_chit_the_hex_is_asked_at_the_british_set_up(
    users, modules
):
    """3.617 British chart footnote j, the other order: an Idle British chit leaves no
    scenario or an Axis Assault, where the British set up first (3.6213c): the chit is
    locked without the hex; at 3.622 the British Done is refused citing the footnote
    until it is recorded, and the Axis Done waits for the British's (3.6222)."""
    from tests.test_rule_mechanisms import buy

    players, _ = campaign_at("sicily", "i", "jul16am", users)
    buy(players, "british", "O2")
    o4 = buy(players, "british", "O4")
    _to_setup(players, axis="attack", british="idle")
    with pytest.raises(ActionRefused, match="footnote j"):
        _done(players, "british")
    with pytest.raises(ActionRefused, match=r"3\.6222"):
        _done(players, "axis")
    _record_observer_hex(players, o4, "41A2")
    _done(players, "british")
    _done(players, "axis")
    assert players.step.id == "3.6223"


# ----------------------------------------------------------------- Left: printed value, Idle


def test_3_6175_a_british_rg_bought_at_printed_value_on_an_idle_date_enters_with_the_next_scenario(
    users, modules
):
    """3.6175: "If an Axis or British RG is purchased for its printed value it enters
    play during the course of the scenario"; 3.6212 matrix footnote *: "The Attack Chit
    cannot be selected by the Axis player if the British player currently has no on-map
    Retained units." (pass 15's Left).  The British hold only an I3 bought on July 14 N
    at its printed value; both choose Idle (no scenario, 3.6212 note 2): on July 15 AM
    the I3 has still not entered, so the Axis Attack is refused again; a scenario is
    played (a British Assault); on July 15 PM its units are on the map and the Axis
    may choose Attack."""
    from tests.purchase_helpers import make_rolls
    from tests.test_rule_mechanisms import buy
    from tests.test_sicb15_pass15 import _play, _reveal

    players, module = campaign_at("sicily", "i", "jul14n", users, points=100)
    p = buy(players, "british", "I3")
    make_rolls(players, "british", p)
    _reveal(players, "british", p)
    players.until("initiative")
    players.chits(axis="idle", british="idle")
    players.until("initiative")
    assert module.dates[players.campaign.date_index].id == "jul15am"
    with pytest.raises(ActionRefused, match=r"3\.6175"):
        players.chits(axis="attack")
    players.chits(axis="idle", british="attack")
    _play(players, module)
    players.until("initiative")
    assert module.dates[players.campaign.date_index].id == "jul15pm"
    players.chits(axis="attack")  # accepted: the I3 entered during the July 15 AM scenario


def test_british_footnote_i_the_axis_read_only_that_the_bombardment_is_the_britishs(
    users, modules, client
):
    """British chart footnote i: "he places an AR counter ... and makes a C1.31 error DR":
    the British player's roll.  At 3.6223 on the last date of CG II (July 17 PM) the Axis
    page says the Bombardment error DR is the British's, and not that the Axis wait for
    the British to finish the step before they may roll it (no such roll of theirs)."""
    players, _ = campaign_at("sicily", "ii", "jul17pm", users, kind="initiative")
    _to_setup(players, axis="idle", british="attack")
    players.until_step("3.6223")
    axis = _page(client, players, "axis")
    assert "only the British roll on it (3.617 British chart footnote i)" in axis
    assert "the British have not finished 3.6223" not in axis, "the Axis are told to wait"


def test_3_6223_each_side_reads_its_recon_number_where_it_declares_the_locations(
    users, modules, client, fixed_dice
):
    """3.6223: "each side may declare the Location(s) they wish to reconnoiter (3.620)";
    3.620: "The number recorded for each Idle CG Date is cumulative with the number
    recorded for each succeeding CG Date, but not beyond the next CG scenario."  The
    Axis buy an M2 on July 16 AM (Recon dr 3), both go Idle, an M2 for 2 CPP on July 16
    PM (dr 1, +5: 6): at 3.6223 of July 16 PM the Axis page gives their 9 Locations with
    the rule, the British page none of it (a secret of the Axis)."""
    from campaign.services import purchases
    from tests.test_rule_mechanisms import buy

    players, _ = campaign_at("sicily", "i", "jul16am", users)
    axis = players.users["axis"]
    m2 = buy(players, "axis", "M2")
    players.until("recon")
    fixed_dice[:] = [[3]]
    purchases.buy_recon(campaign_id=players.campaign_id, user=axis, purchase_id=m2.ref)
    players.until("initiative")
    keep_retained_units(players)
    players.chits(axis="idle", british="idle")
    players.until("purchase")
    m2 = buy(players, "axis", "M2", "recon_plus5")
    players.until("recon")
    fixed_dice[:] = [[1]]
    purchases.buy_recon(campaign_id=players.campaign_id, user=axis, purchase_id=m2.ref)
    players.until("initiative")
    players.chits(axis="attack", british="idle")
    players.until_step("3.6223")
    said = "Recon Locations for your next scenario, adding up over Idle dates: 9 (3.620)"
    assert said in _page(client, players, "axis")
    assert "Recon Locations" not in _page(client, players, "british")


def test_3_6213a_a_dual_attack_dr_of_3_has_the_british_set_up_and_finish_first(
    users, modules, fixed_dice
):
    """3.6213a: "The British player makes a dr to determine which side sets up first: if
    <= 3 the British do"; 3.6222: the side setting up first completes its set-up first.
    A Dual Attack on July 15 N (a night date), the dr 3: the Axis Done at 3.622 is
    refused, the British's accepted, then the Axis's."""
    players, _ = campaign_at("sicily", "i", "jul15n", users, kind="initiative")
    keep_retained_units(players)
    fixed_dice[:] = [[3]]
    players.chits(axis="attack", british="attack")
    assert players.step.id == "3.622"
    with pytest.raises(ActionRefused, match="the British set up first"):
        _done(players, "axis")
    _done(players, "british")
    _done(players, "axis")
    assert players.step.id == "3.6223"


def _after_result(users, date_id, variant="i", **cvp):
    """Both sides walk from a scenario result with these CVP lost to 3.617 of
    ``date_id`` (3.616 computed on the way)."""
    from campaign.models import Campaign
    from campaign.selectors import module_of
    from rules import machine
    from tests.walk import host_game, players_of

    a, b = users
    c = host_game("sicily", variant, a, b, name="cpp")
    module = module_of(c)
    Campaign.objects.filter(pk=c.pk).update(date_index=machine.date_index(module, date_id) - 1)
    players = players_of(c, a, b)
    values = {
        f"{f.id}.{s.id}": (False if f.kind == "bool" else 0)
        for f in module.result_fields
        for s in module.sides
    }
    values.update({f"cvp_lost.{side}": n for side, n in cvp.items()})
    players.results(**values)
    players.until("purchase")
    return players


def _log(players, side):
    from campaign.models import Event

    return [
        e.shown
        for e in Event.objects.filter(campaign_id=players.campaign_id).visible_to(side)
        if "3.6162" in e.shown or "3.6161" in e.shown
    ]


def test_3_6162_loss_points_at_the_bounds_on_the_last_date(users, modules, fixed_dice):
    """3.6162: "If the CVP lost by a player for the prior CG scenario (only) are >= two
    times, and >= 8 more than, the CVP lost by the other Player, that player may make a
    dr and add this value to the CPP Base Number"; 3.6161: July 17 PM, Axis 12, British
    16.  The last date of CG I, the British the loser at the bounds (16 CVP vs 8: twice
    and 8 more): their dr 4 gives 20 CPP; the Axis none, 12.  Each side reads its own
    arithmetic only (the CPP are secret, 3.617)."""
    fixed_dice[:] = [[4]]
    players = _after_result(users, "jul17pm", british=16, axis=8)
    from campaign.models import Seat

    seats = {s.side: s.points for s in Seat.objects.filter(campaign_id=players.campaign_id)}
    assert seats == {"british": 20, "axis": 12}, seats
    british, axis = " ".join(_log(players, "british")), " ".join(_log(players, "axis"))
    assert "loss-point dr 4 (3.6162)" in british and "base for July 17 PM 16 (3.6161)" in british
    assert "total 20 (3.616)" in british
    assert "loss-point" not in axis and "16 (3.6161)" not in axis, axis


def test_3_6162_no_loss_points_one_short_of_8_more(users, modules):
    """3.6162, the other side and the other bound: the Axis lost 7 CVP, the British 0
    (more than twice, but 1 short of 8 more) on July 16 N: no dr; the Axis receive
    their base, 31."""
    players = _after_result(users, "jul16n", axis=7, british=0)
    from campaign.models import Seat

    assert Seat.objects.get(campaign_id=players.campaign_id, side="axis").points == 31
    assert any("no loss points: lost 7 CVP vs 0 (3.6162)" in t for t in _log(players, "axis"))


def test_3_619_b_the_hip_limit_is_read_on_day_dates_only(users, modules, client):
    """3.619 footnote b: "No more than 10% (FRU) of a side's Retained Infantry squads may
    use HIP in a daytime Scenario."  The Axis with no retained squad: on July 17 AM (day)
    their 3.619 page gives "≤ 0 HIP" with the footnote; on July 16 N (night) no limit."""
    day, _ = campaign_at("sicily", "i", "jul17am", users, step="3.619")
    assert "≤ 0 HIP (1/10 FRU of your squads, 3.619 footnote b)" in _page(client, day, "axis")
    night, _ = campaign_at("sicily", "i", "jul16n", users, step="3.619")
    assert "HIP (1/10 FRU" not in _page(client, night, "axis")
