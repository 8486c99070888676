"""Purple Heart Draw, nineteenth pass, second half (issue 44): pass 18's Left items of
C5.25-C5.41 (C5.32's set-up prices pressed one by one, C5.35 with DSP held, C5.39's
set-up order), then sentences of C5.25-C5.41, the RG chart notes and C2-C3 drawn at
random (``random.Random(19)``) and tried in play through each side's page
(tests/page_play.py), on paths the named tests use little: the US buying before the
last TM Scenario (1930 hrs), a DSP RG, an Attack after two Lulls
(docs/rules-audit/pass-19-phdb19.md)."""

from __future__ import annotations

import re

import pytest

from tests.page_play import Seat
from tests.test_phdb17_pass17 import plain
from tests.test_phdb18_pass18 import seats, step_part
from tests.test_rule_mechanisms import fixed_dice, users

pytestmark = [pytest.mark.django_db, pytest.mark.rules]
__all__ = ["fixed_dice", "users"]

SHERMANS = {
    "id": "A1",
    "type": "Sherman Pl",
    "units": "M4A1",
    "unit_kind": "vehicle",
    "full": "2",
    "cost": "6",
    "cost-onmap": "8",
    "cost-reserve": "5",
    "cost-reinforcement": "4",
}
RIFLES = {"id": "I2", "type": "Rifle Pl", "units": "6-6-6", "unit_kind": "squad", "cost": "3"}
STORES = {"id": "D1", "type": "Defensive Stores", "units": "DSP", "cost": "2", "grants": "10"}
GRENS = {"id": "I1", "type": "Gren Pl", "units": "4-6-7", "unit_kind": "squad", "cost": "4"}


def us_attacks_last(users, step_id):
    """The ConPh before the last TM Scenario (1930 hrs) after Lulls at 0930 and 1230 hrs
    and a US Attack at 1530 hrs (the German lost 14 CVP); the US chart supplied with a
    Sherman Pl priced for each set-up (8 On-Map, 5 In Reserve, 4 as Reinforcements), a
    Rifle Pl at its printed 3 and Defensive Stores giving 10 DSP for 2 TP; the German's
    with a Gren Pl.  Walked to ``step_id``."""
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import module_of, result_values, supply_chart

    players, _ = phd_after(users, "C5.37")
    for _ in range(2):
        players.chits(us="idle", german="idle")
        players.until_step("C5.37")
    players.chits(us="attack", german="idle")
    players.until("results")
    players.results(**result_values(module_of(players.campaign), cvp_lost_german=14))
    supply_chart(players, "us", [SHERMANS, RIFLES, STORES])
    supply_chart(players, "german", [GRENS])
    players.until_step(step_id)
    return players


def points(seat: Seat) -> tuple[int, int]:
    found = re.search(r"You have (\d+) TP and (\d+) DSP", seat.text)
    assert found, seat.text[:600]
    return int(found.group(1)), int(found.group(2))


def your_rgs(seat: Seat) -> str:
    found = re.search(r"Your RGs.*", step_part(seat))
    assert found, step_part(seat)[:600]
    return found.group(0)


# --------------------------------------------------------------------------- Part 1


def test_c5_32_each_set_up_price_pressed_and_named_on_your_rgs_before_the_last_scenario(
    users, modules
):
    """C5.32 "Any reinforcement group may be requisitioned for On-Map set up; In Reserve
    set up; or enter as Reinforcements ... A Requisitioned RG has its TP cost increased
    or decreased by the following cumulative totals" and its row "Set up <2 hexes from
    enemy FEBA" (+1), each price pressed on the US page before the 1930 hrs TM Scenario
    (pass 18 pressed On-Map only): the Shermans at 9 (the chart's On-Map 8, +1 within 2
    hexes), Rifle Pls In Reserve and as Reinforcements at 3, the DSP at 2: the TP fall
    by each price.  C5.31 "at the player's choice (see C5.32)": the player's list of
    his RGs names the set-up each was bought for (two Rifle Pls, one In Reserve, one as
    Reinforcements, read alike before).  The German page shows none of it."""
    players = us_attacks_last(users, "C5.31")
    page = seats(players)
    us, de = page["us"], page["german"]
    tp, dsp = points(us)
    for words, price in (
        ("Buy A1 Sherman Pl for 9 TP, On-Map set up within 2 hexes of the enemy FEBA", 9),
        ("Buy I2 Rifle Pl for 3 TP, In Reserve", 3),
        ("Buy I2 Rifle Pl for 3 TP, Enters as Reinforcements", 3),
        ("Buy D1 Defensive Stores for 2 TP", 2),
    ):
        answer = us.press(words)
        assert answer.status == 200, (words, answer.text[:300])
        tp -= price
        assert points(us)[0] == tp, (words, us.text[:400])
    assert points(us)[1] == dsp + 10
    mine = your_rgs(us)
    near = "On-Map set up within 2 hexes of the enemy FEBA (+1 TP)"
    assert f"A1 Sherman Pl — 9 TP, 1930 hrs · {near}" in mine, mine
    assert "I2 Rifle Pl — 3 TP, 1930 hrs · In Reserve" in mine, mine
    assert "I2 Rifle Pl — 3 TP, 1930 hrs · Enters as Reinforcements" in mine, mine
    assert "D1 Defensive Stores — 2 TP, 1930 hrs Cancel" in mine, mine
    plain(mine)
    de.open()
    assert "Sherman" not in de.text and "Rifle Pl" not in de.text
