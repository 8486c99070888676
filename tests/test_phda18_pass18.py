"""Purple Heart Draw, eighteenth pass (issue 44), C1-C5.24 side: pass 17's Left items
(C5.23's DR for a side with no MMC it could Battle Harden, C5.21's recombination, the
Stun at C5.14's Done) and the ConPh's steps played through the page's own buttons
(tests/page_play.py), each test citing its rule (docs/rules-audit/pass-18-phda18.md)."""

from __future__ import annotations

import pytest

from campaign.models import Roll, Unit
from tests.page_play import Seat
from tests.test_phd16_pass16 import marks, plain
from tests.test_rule_mechanisms import fixed_dice, users

pytestmark = [pytest.mark.django_db, pytest.mark.rules]
__all__ = ["fixed_dice", "users", "marks", "Unit"]


def seats(players):
    return {side: Seat(user, players.campaign_id) for side, user in players.users.items()}


def forge(seat, action, **fields):
    """Post ``fields`` to the step's ``action`` (its name in the address, "roll") with
    the page's stale-form stamp and htmx's header, as a page that does not offer it
    would be forged (or a stale one posted); the answer (status, words)."""
    from django.urls import reverse

    from tests.page_play import Answer

    at = next((v for f in seat.forms.forms.values() for n, v in f.fields if n == "at"), "")
    url = reverse("act", args=[seat.url.split("/")[2], action])
    answer = seat.client.post(url, {"at": at, **fields}, HTTP_HX_REQUEST="true")
    result = Answer(answer.status_code, answer.content.decode())
    seat.open()
    return result


# Part 1: pass 17's Left items.


def test_c5_23_a_side_with_no_mmc_it_could_battle_harden_is_not_made_to_roll(users, modules):
    """C5.23 "Each side makes a secret DR on the table below to determine the number of
    MMC that may be Battle-Hardened (A15.3). No unit may Battle Harden more than once
    during the ConPh" (pass 17's Left item): a DR that can Battle Harden no MMC changes
    nothing, so it is waived as C5.24's now is.  Played through the pages: the German
    holds only a PzKpfw IVH and a 4-6-7 held prisoner (captured), the US only a 6-6-7
    its Hero Battle Hardened at C5.22: each page says why no DR is made, offers no
    roll button but Done; the roll forged anyway is refused with a sentence citing
    C5.23, nothing rolled; Done leads to C5.24.  A side holding an MMC still owes it."""
    from campaign.services import units
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add

    players, _ = phd_after(users, "C5.22")
    add(players, "german", "PzKpfw IVH", "vehicle")
    add(players, "german", "4-6-7", "squad", status="captured")
    hero = add(players, "us", "Hero", "hero")
    squad = add(players, "us", "6-6-7", "squad")
    units.exchange_unit(
        campaign_id=players.campaign_id,
        user=players.users["us"],
        give_id=hero.ref,
        mark_id=squad.ref,
    )
    players.until_step("C5.23")
    s = seats(players)
    for side, seat in s.items():
        text = seat.open()
        said = (
            "You may not roll on it now: you hold no MMC it could Battle Harden: whatever "
            "the DR, none would (C5.23)."
        )
        assert said in text, (side, text[:1500])
        assert "Roll DR: Battlefield Promotion Table" not in seat.buttons()
        assert "Done with C5.23" in seat.buttons()
        forged = forge(seat, "roll", table="battlefield_promotion")
        assert forged.refused, forged.status
        assert "C5.23" in forged.text and "Nothing was rolled" in forged.text, forged.text[:500]
        plain(forged.text)
    assert not Roll.objects.filter(
        campaign_id=players.campaign_id, table_id="battlefield_promotion"
    ).exists()
    s["us"].press("Done with C5.23")
    s["german"].press("Done with C5.23")
    assert players.step.id == "C5.24"


def test_c5_23_a_side_holding_an_mmc_still_owes_its_dr(users, modules):
    """C5.23 "Each side makes a secret DR": the German holding a 4-6-7 is not waived:
    his page offers the roll and no Done (the roll is compulsory)."""
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add

    players, _ = phd_after(users, "C5.23")
    add(players, "german", "4-6-7", "squad")
    german = seats(players)["german"]
    text = german.open()
    assert "Roll DR: Battlefield Promotion Table" in german.buttons()
    assert "Done with C5.23" not in german.buttons()
    assert "The rules make this roll compulsory" in text
