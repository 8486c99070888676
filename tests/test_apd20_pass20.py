"""Issue 44, pass 20, A Pleasant Diversion (seed 002): the Left items of pass 19 (2.5
EXC's Eliminated PRC and their CVP, A26.2; the last CG date and the CG's end read on
both sides' pages), then 25 sentences drawn at random from the seed's Clean-Up and
Setup text (random.Random(20)), the ledger's ``offered``/``computed`` claims and the
kinds of sentence the other systems fixed in pass 19, each read through the pages
(tests/page_play.py) on a path other passes used little.  Each test cites its rule;
docs/rules-audit/pass-20-apd20.md lists what was tried."""

from __future__ import annotations

import pytest

from campaign.models import Campaign, Event
from tests import test_rule_mechanisms
from tests.page_play import Answer, Seat
from tests.test_apd12_pass12 import apd, lost, supply_value
from tests.test_apd17_pass17 import midday
from tests.test_apd18_pass18 import fresh, seats
from tests.test_apd_pass5 import done
from tests.test_rule_mechanisms import add, result_values

pytestmark = [pytest.mark.django_db, pytest.mark.rules]

users = test_rule_mechanisms.users
fixed_dice = test_rule_mechanisms.fixed_dice

ABANDON = "Its Vulnerable PRC are Eliminated: mark it Abandoned (2.5 EXC)"


def forge(seat: Seat, url: str, **data: str) -> Answer:
    """A post the page does not offer this seat, sent as htmx would (``url`` relative
    to the campaign's); the page is read again.  (tests/page_play.py presses only the
    buttons a page shows.)"""
    answer = seat.client.post(seat.url + url, data, HTTP_HX_REQUEST="true")
    result = Answer(answer.status_code, answer.content.decode())
    seat.open()
    return result


def roster(players, side: str) -> Seat:
    seat = Seat(players.users[side], players.campaign_id, "roster/")
    seat.open()
    return seat


def log(players) -> str:
    return " ".join(
        Event.objects.filter(campaign_id=players.campaign_id).values_list("text", flat=True)
    )


# ------------------------------------------------------------ Left of pass 19: 2.5 EXC's CVP


def test_2_5_exc_the_abandoned_vehicles_eliminated_crew_adds_its_cvp_as_supplied_a26_2(
    users, modules
):
    """2.5 EXC "the Encircled Vulnerable PRC of an Immobile vehicle are Eliminated,
    leaving the vehicle Abandoned" with 2 Note "CVP are recorded normally throughout
    this phase": the Eliminated PRC are at least its Inherent crew, a loss of the
    scenario just played.  A crew's CVP are ASL's (A26.2), not the seed's: the module
    declares them missing (cvp_per_kind.half_squad, "a half-squad or crew") and the
    players supply them.  The Morning, the American (41 CVP lost) with 1 supplied: the
    press's confirmation names the crew's CVP and their source; pressed, his CVP lost
    read 41 → 42 on both sides' logs and 2.92's figure at 3.4 reads -8 + 42 CVP
    suffered = 34 PP.  On main the crew added nothing by itself (pass 19's Left)."""
    players, _ = apd(users, "2.5")
    supply_value(players, "cvp_per_kind.half_squad", "1")
    tank = add(players, "american", "M4A3(75)W", "vehicle", "encircled", markers=["immobilized"])
    american = roster(players, "american")
    button = american.button(f"{ABANDON} (M4A3(75)W)")
    confirm = button.attrs.get("hx-confirm", "")
    assert "crew" in confirm and "1 CVP" in confirm and "A26.2" in confirm, confirm
    assert american.press(f"{ABANDON} (M4A3(75)W)").status == 200
    assert "abandoned" in fresh(tank).markers
    assert lost(players)["american"] == 42, lost(players)
    assert "American's CVP lost 41 → 42" in log(players), log(players)[-600:]
    _, german = seats(players)
    assert "American's CVP lost 41 → 42 (2 Note; 2.5 EXC; A26.2)." in german.text, german.text[
        -3000:
    ]
    done(players, "american")
    done(players, "german")
    players.until_step("3.4")
    page, _ = seats(players)
    assert "-8 + 42 CVP suffered = 34" in page.text, page.text[-2000:]


def test_2_5_exc_a_crews_cvp_not_supplied_are_named_missing_never_zero(users, modules):
    """2.5 EXC with 2 Note, the German's side at the Midday, no crew CVP supplied: the
    press's confirmation and its log line say that the crew's CVP are not in the rules
    text (A26.2) and have not been supplied, to amend the result with them; nothing is
    counted silently."""
    players, _ = midday(users, "2.5")
    done(players, "american")
    add(players, "german", "PzIVH", "vehicle", "encircled", markers=["immobilized"])
    german = roster(players, "german")
    before = dict(lost(players))
    confirm = german.button(f"{ABANDON} (PzIVH)").attrs.get("hx-confirm", "")
    assert "not supplied" in confirm and "A26.2" in confirm, confirm
    assert german.press(f"{ABANDON} (PzIVH)").status == 200
    assert lost(players) == before
    assert "have not been supplied; amend the result with them" in log(players)


# ------------------------------------------------ Left of pass 19: the last date and the CG's end


def test_cg_vc_the_cg_end_after_the_afternoon_names_the_figures_the_german_wins_by(users, modules):
    """CG VC "Provided the Germans have not amassed ≥ 105 CVP, the Americans win if
    their VP total is ≥ 150 at any CG-Scenario end and/or if they control all existing
    CGV Buildings" and CG DATES (the Afternoon the last), read at the CG's end on both
    sides' pages: Morning 63, Midday 40, Afternoon 20 VP (123); 41 + 10 + 5 = 56 CVP;
    no CGV Buildings.  Both pages read that the CG has ended, that the German wins, and
    why, with the figures and their source: 123 < 150, not all CGV Buildings (on main
    only "no CG victory condition was met").  Neither offers a step's button any more."""
    players, module = midday(users, "3.9")
    players.until("results")
    players.results(**result_values(module, vp_american=20, cvp_lost_american=5))
    assert Campaign.objects.get(pk=players.campaign_id).ended_at is not None
    for seat in seats(players):
        text = seat.text
        assert "The CG ends after its last date, December 6 Afternoon. German wins" in text
        why = text.split("German wins", 1)[1][:400]
        assert "(CG total) 123 < 150" in why, why
        assert "not: American controls all existing CGV buildings" in why, why
        assert "CG VC" in why, why
        assert not [b for b in seat.buttons() if b.startswith(("Done", "Roll", "Enter"))]
