"""Issue 44, pass 19, A Pleasant Diversion (seed 002): the Left items of pass 18 (the
7-0 an Evacuated leader's dr placed from the 3.1 page, 3.1 footnote *; the correction
form of a line the roll took away keeping its kind; a leader's own 1TC while another
leader in his Location still owes, 2.5/A10.7), then sentences drawn at random from the
seed's Clean-Up and Setup text (random.Random(19)) and the ledger's weakest claims,
each read through the pages (tests/page_play.py) on a path other passes used little.
Each test cites its rule; docs/rules-audit/pass-19-apd19.md lists what was tried."""

from __future__ import annotations

import pytest

from campaign.models import Roll, Unit
from tests import test_rule_mechanisms
from tests.page_play import Answer, Seat
from tests.test_apd12_pass12 import apd
from tests.test_apd17_pass17 import midday
from tests.test_apd_pass5 import done
from tests.test_rule_mechanisms import add

pytestmark = [pytest.mark.django_db, pytest.mark.rules]

users = test_rule_mechanisms.users
fixed_dice = test_rule_mechanisms.fixed_dice

ROLL_1TC = "Roll DR: Encirclement 1TC"
RECOVERY = "Roll dr: Recovery Table"


def seats(players) -> tuple[Seat, Seat]:
    """The American's and the German's browsers, each at the campaign page."""
    american = Seat(players.users["american"], players.campaign_id)
    german = Seat(players.users["german"], players.campaign_id)
    american.open()
    german.open()
    return american, german


def rolls(players) -> int:
    return Roll.objects.filter(campaign_id=players.campaign_id).count()


def fresh(unit: Unit) -> Unit:
    return Unit.objects.get(pk=unit.pk)


def forge(seat: Seat, url: str, **data: str) -> Answer:
    """A post the page does not offer this seat, sent as htmx would (``url`` relative
    to the campaign's); the page is read again.  (tests/page_play.py presses only the
    buttons a page shows.)"""
    answer = seat.client.post(seat.url + url, data, HTTP_HX_REQUEST="true")
    result = Answer(answer.status_code, answer.content.decode())
    seat.open()
    return result


# ------------------------------------------------------------ Left of pass 18: 3.1 footnote *


def test_3_1_footnote_the_7_0_is_placed_from_the_step_page_with_a_select_of_mmc_locations(
    users, modules, fixed_dice
):
    """3.1 footnote *: "immediately replaced with a 7-0 leader in the same location as
    the friendly MMC nearest (in hexes) ... The owning player may choose which location
    in the event of a tie".  The Midday, the American's 3.1 page: his wounded 9-1 at
    14A1 rolls dr 6 (Evacuated).  The page now offers "Place the 7-0 leader" with a
    select of his MMC Locations only (not the German's, not his Captured squad's), the
    German's page offers nothing of it; a forged Location with none of his MMC is
    refused in words and nothing changes; the offered one places him."""
    players, _ = midday(users, "3.1")
    leader = add(players, "american", "9-1 leader", "leader", "wounded", location="14A1")
    add(players, "american", "6-6-6", "squad", location="14B2")
    add(players, "american", "4-6-6", "half_squad", location="15C3")
    add(players, "american", "6-6-6", "squad", "captured", location="16D4")
    add(players, "german", "4-6-7", "squad", location="14A2")
    american, german = seats(players)
    fixed_dice.append([6])
    assert american.press(RECOVERY, unit=leader.ref).status == 200
    seven = Unit.objects.get(campaign_id=players.campaign_id, name="7-0 leader")
    assert seven.location == ""
    offered = [v for v, _ in american.options("Place the 7-0 leader", "location")]
    assert offered == ["14B2", "15C3"], offered
    german.open()
    assert not [b for b in german.buttons() if b.startswith("Place")]
    answer = american.press("Place the 7-0 leader", location="16D4")
    assert answer.refused and "none of your MMC is at 16D4" in answer.text, answer.text[:300]
    assert fresh(seven).location == ""
    assert american.press("Place the 7-0 leader", location="15C3").status == 200
    assert fresh(seven).location == "15C3"
    assert not [b for b in american.buttons() if b.startswith("Place")]


# ------------------------------------------------ Left of pass 18: the correction form's kind


def test_3_1_after_an_evacuated_dr_the_correction_form_keeps_the_leaders_kind(
    users, modules, fixed_dice
):
    """3.1 Recovery Table "4-6 Evacuated*": the 8-1's line is gone.  His owner's page
    offers "Correct what the Recovery Table roll ... wrote"; its kind select reads
    "leader" for the line that has gone (on main it fell back to "other").  The German's
    side, the Morning's sequence."""
    players, _ = apd(users, "3.1")
    done(players, "american")
    leader = add(players, "german", "8-1 leader", "leader", "wounded", location="20A1")
    _, german = seats(players)
    fixed_dice.append([4])
    assert german.press(RECOVERY, unit=leader.ref).status == 200
    assert not Unit.objects.filter(pk=leader.pk).exists()
    form = german.form_of("Propose the correction")
    kind = dict(form.fields)["kind"]
    assert kind == "leader", kind


# ------------------------------------------------ Left of pass 18: 2.5, two leaders who owe


def test_2_5_a10_7_a_leaders_1tc_while_another_leader_there_owes_is_owed_typed_never_zero(
    users, modules, fixed_dice
):
    """2.5 "(leadership applies normally)": two Encircled leaders in one Location, each
    owing his 1TC.  Whether the one leads the other's check before both have rolled is
    not in the CG text (A10.7 is the rulebook's): the module declares it missing, the
    page says the DRM is to be typed and why; a press with it blank is refused in words
    (on main it rolled with no DRM, i.e. 0); typed, it rolls.  The German at the
    Midday."""
    players, module = midday(users, "2.5")
    assert any("A10.7" in m.rule for m in module.missing)
    done(players, "american")
    one = add(players, "german", "9-2 leader", "leader", "encircled", location="22C4")
    add(players, "german", "8-0 leader", "leader", "encircled", location="22C4")
    _, german = seats(players)
    offered = dict(german.options(ROLL_1TC, "unit"))
    assert "leadership to type" in offered[one.ref], offered
    before = rolls(players)
    answer = german.press(ROLL_1TC, unit=one.ref)
    assert answer.refused and "A10.7" in answer.text, answer.text[:300]
    assert "not made without it" in answer.text
    assert rolls(players) == before
    fixed_dice.append([1, 1])
    assert german.press(ROLL_1TC, **{"unit": one.ref, "typed.leadership": "0"}).status == 200
    assert rolls(players) == before + 1
