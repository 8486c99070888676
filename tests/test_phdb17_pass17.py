"""Purple Heart Draw, seventeenth pass, second half (issue 44): pass 16's Left items of
C5.25-C5.41 (C5.28 note 2's Casualty Reduction, C5.26b's possession guarded) and the
between-scenario steps C5.25-C5.41 walked as a player, in rule order, on paths the
named tests use little (the other side, a late date, no engineers, twice, after an
undo), each test citing its rule (docs/rules-audit/pass-17-phdb17.md)."""

from __future__ import annotations

import html
import re

import pytest

from campaign.models import Event, Unit
from campaign.services import steps
from campaign.services.errors import ActionRefused
from tests.test_player_words import FORBIDDEN
from tests.test_rule_mechanisms import fixed_dice, users

pytestmark = [pytest.mark.django_db, pytest.mark.rules]
__all__ = ["fixed_dice", "users"]


def plain(sentence: str) -> None:
    """What the player reads has no module or transcription words."""
    assert not FORBIDDEN.search(sentence), sentence


def done(players, side):
    steps.finish_step(campaign_id=players.campaign_id, user=players.users[side])


def page(client, players, side, path="") -> str:
    """The text of ``side``'s campaign page (or its ``path``: "roster/")."""
    client.force_login(players.users[side])
    body = client.get(f"/campaigns/{players.campaign_id}/{path}").content.decode()
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", body)))


def logged(c) -> str:
    return " ".join(Event.objects.filter(campaign=c).order_by("pk").values_list("text", flat=True))


def reduce(players, side, unit, table="fortification_clearance"):
    return steps.reduce_mmc(
        campaign_id=players.campaign_id, user=players.users[side], table_id=table, unit_id=unit.ref
    )


# --------------------------------------------------------------------------- Part 1


def test_c5_28_note_2_an_original_6_casualty_reduces_an_engineer_first(
    users, modules, fixed_dice, client
):
    """C5.28 Fortification Clearance Table note 2 "vs a Known Minefield, an original dr
    of 6 results in Casualty Reduction for one MMC (Engineer if possible, otherwise
    owner's choice of Elite MMC, or next highest class ...)" (pass 15's and 16's Left):
    after the German's original 6 the page offers the Casualty Reduction of one MMC;
    a squad of no engineer RG is refused while a Pionier squad (RG footnote e) is held;
    the Pionier squad is reduced to a HS, the log says so; a second one for the same 6
    is refused, and a 5 (no original 6) gives none."""
    from tests.test_phd_pass6 import with_pioneers
    from tests.test_rule_mechanisms import add, roll

    players, c = with_pioneers(users, 1, "C5.28")
    pionier = Unit.objects.get(campaign=c, side="german", kind="squad")
    grens = add(players, "german", "4-6-7", "squad")
    with pytest.raises(ActionRefused, match=r"original 6.*C5\.28"):
        reduce(players, "german", pionier)
    fixed_dice.append([5])
    roll(players, "german", "fortification_clearance", item="Wire in K5")
    with pytest.raises(ActionRefused, match=r"original 6.*C5\.28"):
        reduce(players, "german", pionier)
    fixed_dice.append([6])
    roll(players, "german", "fortification_clearance", item="A-P mines in K6")
    text = page(client, players, "german")
    offer = text[text.index("Your original 6") : text.index("Casualty Reduce this MMC") + 30]
    assert "4-4-7 (I8" in offer and "4-6-7" not in offer, offer
    plain(offer)
    assert "Casualty Reduction" in text and "Known Minefield" in text, text[-3000:]
    assert "Casualty Reduce this MMC" in text
    with pytest.raises(ActionRefused, match=r"Engineer.*C5\.28") as refused:
        reduce(players, "german", grens)
    plain(str(refused.value))
    assert set(Unit.objects.get(pk=grens.pk).markers) == set()
    reduce(players, "german", pionier)
    assert "reduced" in Unit.objects.get(pk=pionier.pk).markers
    assert "Casualty Reduction" in logged(c) and "C5.28" in logged(c)
    with pytest.raises(ActionRefused, match=r"C5\.28"):
        reduce(players, "german", grens)
    # The opponent's page offers him nothing of it.
    assert "Casualty Reduce this MMC" not in page(client, players, "us")


def test_c5_28_note_2_with_no_engineer_an_elite_mmc_first(users, modules, fixed_dice):
    """C5.28 note 2 "... otherwise owner's choice of Elite MMC, or next highest class",
    tried on the US side with no Engineer: while an Elite squad is held a 1st Line squad
    is refused; the Elite one is reduced; a HS reduced is eliminated (A7.302)."""
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add, roll

    players, _ = phd_after(users, "C5.28")
    c = players.campaign
    elite = add(players, "us", "7-4-7", "squad", markers=("elite",))
    line = add(players, "us", "6-6-6", "squad")
    fixed_dice.extend([[6], [6]])
    roll(players, "us", "fortification_clearance", item="A-P mines in M12")
    with pytest.raises(ActionRefused, match=r"Elite.*C5\.28"):
        reduce(players, "us", line)
    reduce(players, "us", elite)
    assert "reduced" in Unit.objects.get(pk=elite.pk).markers
    # A second original 6 gives a second one; with the Elite squad now reduced, the
    # owner chooses (no Engineer, no other Elite MMC... the reduced Elite is one still).
    roll(players, "us", "fortification_clearance", item="A-P mines in M13")
    hs = add(players, "us", "3-3-6 HS", "half_squad")
    Unit.objects.filter(pk=elite.pk).update(markers=[])
    reduce(players, "us", hs)
    assert not Unit.objects.filter(pk=hs.pk).exists()
    assert "C5.28" in logged(c)


def test_c5_26b_a_repaired_ft_may_not_be_given_to_a_non_engineer(users, modules, fixed_dice):
    """C5.26b "An Assault Engineer MMC must possess any repaired FT/DC" (pass 16's Left:
    given, not guarded): a repaired FT rejoins with the Pionier squad; naming a 4-4-7 of
    no engineer RG as its possessor on the retained forces is refused with a sentence
    citing C5.26b, nothing changed; a second Pionier line may take it; an FT never
    repaired (added by hand) may go to the 4-4-7."""
    from tests.test_phd_pass6 import with_pioneers
    from tests.test_rule_mechanisms import add, edit, roll

    players, c = with_pioneers(users, 1, "C5.26")
    pionier = Unit.objects.get(campaign=c, side="german", kind="squad")
    grens = add(players, "german", "4-4-7", "squad")
    fixed_dice.append([2])
    roll(players, "german", "baz_psk_ft_dc_repair", item="FT in 23K4")
    (ft,) = Unit.objects.filter(campaign=c, side="german", kind="sw", name="FT")
    assert ft.possessor_id == pionier.pk
    with pytest.raises(ActionRefused, match=r"Assault Engineer.*C5\.26b") as refused:
        edit(players, "german", ft, None, possessor=grens.ref)
    plain(str(refused.value))
    assert Unit.objects.get(pk=ft.pk).possessor_id == pionier.pk
    hs = Unit.objects.create(
        campaign=c,
        side="german",
        name="2-3-8 HS (I8)",
        kind="half_squad",
        purchase=pionier.purchase,
    )
    edit(players, "german", ft, None, possessor=hs.ref)
    assert Unit.objects.get(pk=ft.pk).possessor_id == hs.pk
    other = add(players, "german", "FT", "sw")
    edit(players, "german", other, None, possessor=grens.ref)
    assert Unit.objects.get(pk=other.pk).possessor_id == grens.pk


# --------------------------------------------------------------------------- Part 2


def step_text(client, players, side) -> str:
    """The text of the step part of ``side``'s campaign page."""
    client.force_login(players.users[side])
    body = client.get(f"/campaigns/{players.campaign_id}/").content.decode()
    found = re.search(r'<section[^>]*id="campaign-step".*?</section>', body, re.S)
    assert found, body[:300]
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", found.group(0))))


def test_c5_30_the_step_shows_the_weather_of_the_tm_scenario_being_set_up(users, modules, client):
    """C5.30 Historical Weather Determination with TM3 "The EC, Weather, and Wind for
    each TM Scenario are listed in ConPh C5.30": at C5.30 before the 0930 hrs TM
    Scenario each side's step reads that date's row of the Weather Table (EC Moderate,
    Overcast, no wind), not only the CG Roster; after a Lull, at C5.30 before 1230 hrs,
    the next row (Clear)."""
    from tests.test_phd_conph import phd_after

    players, _ = phd_after(users, "C5.30")
    for side in ("us", "german"):
        text = step_text(client, players, side)
        assert "0930 hrs: EC Moderate; Overcast; no wind (C5.30)" in text, text[:1500]
        plain(text)
    players.until_step("C5.37")
    players.chits(us="idle", german="idle")
    players.until_step("C5.30")
    assert "1230 hrs: EC Moderate; Clear; no wind (C5.30)" in step_text(client, players, "german")
