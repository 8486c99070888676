"""Sicily (seed 001), the twentieth pass of the sentence audit (issue 44): 3.615 to the
end, pass 19's Left, sentences drawn at random from the seed (random.Random(20)), the
ledger's `offered` and `computed` claims and what the other systems fixed in pass 19,
each tried through the page's own buttons (tests/page_play.py) on paths earlier passes
used little (docs/rules-audit/pass-20-sicb20.md)."""

from __future__ import annotations

import pytest

from tests import test_rule_mechanisms as mechanisms
from tests.purchase_helpers import campaign_at, keep_retained_units  # noqa: F401
from tests.test_sicb18_pass18 import _seats

users = mechanisms.users
fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.django_db, pytest.mark.rules]

AHEAD = "Done with 3.622 to 3.6223 Recon Inspection and Bombardment (declare no Recon Location)"


def _step_part(said: str) -> str:
    """The words of the step's panel (from the step's title to the amendment form)."""
    return said.split("Notification settings", 1)[1].split("Amend the scenario result")[0]


def _at_set_up(users, *, recon: bool):
    """CG I, July 17 AM: the British buy an M2 Recon (+5) and make its dr through the
    page (``recon``), or buy nothing; the Axis buy nothing; the British lock Attack, the
    Axis Idle (a British Assault: the Axis set up first, 3.6213c), at 3.622."""
    players, _ = campaign_at("sicily", "i", "jul17am", users, points=30)
    seats = _seats(players)
    british = seats["british"]
    if recon:
        british.open()
        assert british.press("Buy M2 Recon for 2 CPP").status == 200
        players.until_step("3.620")
        british.open()
        assert british.press("Recon dr for M2 (+5 drm)").status == 200
    players.until("initiative")
    players.chits(axis="idle", british="attack")
    assert players.step.id == "3.622"
    return players, seats


# ------------------------------------------------- 3.6223: Pass 19's Left L3


@pytest.mark.parametrize("recon", [True, False])
def test_3_6223_every_side_finishes_set_up_declaring_no_recon_location_in_one_click(
    users, modules, recon
):
    """3.6223: "After all setup is complete ... each side may declare the Location(s)
    they wish to reconnoiter (3.620), if any".  A side with no Recon Location to declare
    (and, for the British, no B1 to resolve) clicked Done at 3.622 and once more at
    3.6223 for nothing.  Every side, whatever it holds, is now offered one button that
    finishes 3.622 and 3.6223 for it, declaring no Recon Location; the side setting up
    first (3.6222) presses it first, then the other; the step goes on to 3.623 (and
    the scenario).  The British holding a Recon number (an M2's dr) or none: the Axis
    page reads the same (nothing told by the offer)."""
    players, seats = _at_set_up(users, recon=recon)
    axis, british = seats["axis"], seats["british"]
    assert AHEAD in axis.open() and AHEAD in axis.buttons()
    british.open()
    assert AHEAD not in british.buttons()  # the Axis set up first (3.6222)
    before = _step_part(axis.text)
    answer = axis.press(AHEAD)
    assert answer.status == 200, answer.text[:300]
    assert players.step.id == "3.622"
    waiting = _step_part(axis.text)
    assert "Waiting for your opponent." in waiting
    said = british.open()
    assert AHEAD in british.buttons() and "Done with 3.622" in british.buttons(), said[:2000]
    answer = british.press(AHEAD)
    assert answer.status == 200, answer.text[:300]
    assert players.step.id not in ("3.622", "3.6223"), players.step.id  # 3.623 passes
    log = axis.open()
    assert "British finished 3.622 Unit Set Up to 3.6223 Recon Inspection and Bombardment." in log
    assert "Axis finished 3.622 Unit Set Up to 3.6223 Recon Inspection and Bombardment." in log
    _seen[recon] = (before, waiting)
    if len(_seen) == 2:
        assert _seen[True] == _seen[False]


_seen: dict[bool, tuple[str, str]] = {}
