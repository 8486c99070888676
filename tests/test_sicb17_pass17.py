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
