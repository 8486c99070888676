"""Sicily (seed 001), RePh 3.6-3.623 with both RG charts, the twenty-fourth pass of the
sentence audit (issue 44): what carries from one CG Date (or scenario) to the next,
what resets, and the order of the steps of one date, played over two or three dates
through the pages (tests/page_play.py), each figure read on both seats' pages against
a hand computation from the rules text (docs/rules-audit/pass-24-sic24.md)."""

from __future__ import annotations

import re

import pytest

from campaign.models import Seat as SeatModel
from tests import test_rule_mechanisms as mechanisms
from tests.purchase_helpers import campaign_at
from tests.test_sica18_pass18 import _forge, _seat
from tests.test_sica21_pass21 import _dones
from tests.test_sica22_pass22 import _rolled
from tests.test_sicb18_pass18 import _seats

users = mechanisms.users
fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.django_db, pytest.mark.rules]

_HASHES = re.compile(
    r"\b[0-9a-f]{64}\b|\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b"
)


def _same(text: str) -> str:
    """A page's words without what differs between two campaigns by construction (the
    dice seed's hash, the campaign's id)."""
    return _HASHES.sub("#", text)


def _idle(players) -> None:
    players.until("initiative")
    players.chits(axis="idle", british="idle")


# --------------------------------------------------------------------------- secrets


def _sniper_world(users, fixed_dice, sniper: bool):
    """CG I, July 15 AM, purchases kept until their owner reveals them: the Axis SAN 3
    (entered with the result), the Axis buy an M1 Sniper (SAN 3 → 4) or nothing on
    their page; both sides Idle; the walk stops at the repeated 3.6122 of July 15 PM."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, points=100, policy="owner")
    SeatModel.objects.filter(campaign_id=players.campaign_id).update(san=3)
    seats = _seats(players)
    if sniper:
        seats["axis"].open()
        _rolled(seats["axis"], "Buy M1 Sniper for 2 CPP")
    _idle(players)
    players.until_step("3.6122")
    return players, seats


def test_3_6122_after_an_idle_date_the_san_roll_tells_nothing_of_a_secret_sniper(
    users, modules, fixed_dice
):
    """3.617: "The CPP expended, those remaining, and the RG(s) purchased may all be kept
    secret"; Axis M1 "Sniper | SAN Increase +1"; 3.6122: "If a side has a SAN ≥ 4, a SAN
    adjustment dr must be made"; 3.623: "Each side announces its current SAN"; 3.6212
    footnote 2: an Idle date repeats 3.612-3.6212.  Two worlds of CG I, the purchases
    kept by their owner: the Axis SAN 3 (the result's) buy an M1 on July 15 AM (SAN 3 + 1
    = 4) or nothing; both Idle.  At the repeated 3.6122 of July 15 PM the Axis owe a SAN
    dr in the first world (4 ≥ 4) and none in the second (3 < 4), but the British page
    reads word for word the same in both: the Axis not passed by the server in either
    (a pass read the secret SAN: "Axis passes 3.6122: SAN 3 is below 4" named it and
    told the Sniper by its absence), and nothing of the Axis dr (dr 5 +0: SAN 4 − 2 = 2)
    after it, only "Axis finished 3.6122" in both.  The Axis page owes the roll in the
    first world and offers Done in the second.  The British (SAN 3, < 4: "If a side has
    a SAN ≥ 4, a SAN adjustment dr must be made"), now pressing their own Done, are
    offered no SAN dr, and one forged is refused citing 3.6122, the SAN unchanged."""
    pages = {}
    for sniper in (True, False):
        players, seats = _sniper_world(users, fixed_dice, sniper)
        axis, british = seats["axis"], seats["british"]
        axis.open()
        if sniper:
            assert "Roll dr: SAN Adjustment" in axis.buttons() and not _dones(axis), axis.buttons()
            before = _same(british.open())
            fixed_dice.append([5])
            _rolled(axis, "Roll dr: SAN Adjustment")
            assert SeatModel.objects.get(campaign_id=players.campaign_id, side="axis").san == 2
            assert _same(british.open()) == before
            axis.open()
        else:
            assert "Roll dr: SAN Adjustment" not in axis.buttons(), axis.buttons()
            before = _same(british.open())
        _rolled(axis, "Done with 3.6122")
        after = _same(british.open())
        dice = _same(_seat(players, "british", "dice/").text)
        pages[sniper] = (before, after, dice)
        assert "Waiting for: both of you" in before, before[:800]
        today = after[after.index("July 15 PM (") : after.index("July 15 AM (")]
        assert "Axis finished 3.6122 SAN Adjustment" in today, today
        assert "Axis passes 3.6122" not in today and "Axis SAN" not in today, today
    assert pages[True] == pages[False]
    # The British SAN 3 (< 4): its page offers no SAN dr, and a forged one is refused.
    british = seats["british"]
    british.open()
    assert "Roll dr: SAN Adjustment" not in british.buttons(), british.buttons()
    forged = _forge(british, "roll", table="san_adjustment")
    assert forged.refused and "your SAN is 3, below 4 (3.6122)" in forged.text, forged.text[:400]
    assert SeatModel.objects.get(campaign_id=players.campaign_id, side="british").san == 3
