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
    players.until("setup")
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
