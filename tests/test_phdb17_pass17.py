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
    # The select offers the Engineer only (pass 20: the order above it names the classes).
    chosen = offer[offer.index("The MMC it falls on:") :]
    assert "4-4-7 (I8" in chosen and "4-6-7" not in chosen, offer
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
    is refused; the Elite one is reduced; a HS reduced is eliminated (A7.302), a loss
    of the scenario just played (C5.1)."""
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
    # Pass 20: a 7-4-7 is Elite by its counter's figures, marked or not; the line is
    # renamed to a class the HS shares.
    Unit.objects.filter(pk=elite.pk).update(markers=[], name="6-6-6")
    reduce(players, "us", hs)
    assert not Unit.objects.filter(pk=hs.pk).exists()
    assert "C5.28" in logged(c)
    # C5.1 "All ConPh losses count for the previous scenario": the HS it eliminated is a
    # loss of the 0600 hrs scenario (its CVP not supplied here: the log says so).
    last = Event.objects.filter(campaign=c).order_by("pk").last()
    assert "CVP are not counted" in last.text and "(C5.1)" in last.text, last.text


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


def late_conph(users, step_id, **losses):
    """The ConPh after the 0930 hrs TM Scenario (the US attacked, the German stood
    Idle), walked to ``step_id``: a later date than the named tests use."""
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import module_of, result_values

    players, _ = phd_after(users, "C5.37")
    players.chits(us="attack", german="idle")
    players.until("results")
    assert players.campaign.date_index == 1
    players.results(**result_values(module_of(players.campaign), **losses))
    players.until_step(step_id)
    return players


def test_c5_25_to_c5_29_walked_after_the_0930_scenario_with_unusual_holdings(
    users, modules, fixed_dice, client
):
    """C5.25-C5.29 in rule order after the 0930 hrs TM Scenario, the US holding what the
    named tests seldom give it (a captured German LMG, a captured malfunctioned MMG, an
    abandoned immobilized Sherman, a squad short of ammunition): C5.25 a SAN of 0 is
    set to 2 and one of 7 to 4 before any requisition; C5.26c the captured LMG owes its
    roll (Done refused until made), once; the malfunctioned captured MMG owes none and
    leaves when the step is done; C5.27a the abandoned Sherman is not rolled for;
    C5.27d the US squad's Low Ammo goes, the German's Isolated one keeps it; C5.28 one
    attempt per item and location; C5.29 the US DR reads -2 for 21 CVP lost and +1 for
    its Attack chit, and the German's page shows none of the US TP."""
    from campaign.models import Roll, Seat
    from tests.test_rule_mechanisms import add, roll

    players = late_conph(users, "C5.24", cvp_lost_us=21)
    c = players.campaign
    Seat.objects.filter(campaign=c, side="us").update(san=0)
    Seat.objects.filter(campaign=c, side="german").update(san=7)
    players.until_step("C5.26")
    sans = dict(Seat.objects.filter(campaign=c).values_list("side", "san"))
    assert sans == {"us": 2, "german": 4}, sans
    assert "C5.25" in logged(c)
    lmg = add(players, "us", "LMG (German)", "sw", markers=("captured",))
    mmg = add(players, "us", "MMG (German)", "sw", markers=("captured", "malfunctioned"))
    with pytest.raises(ActionRefused, match=r"Roll first.*Captured Equipment.*C5\.26c"):
        done(players, "us")
    text = step_text(client, players, "us")
    assert "LMG (German) (captured)" in text and "MMG (German)" not in text.split("Captured")[-1]
    fixed_dice.append([2])
    r = roll(players, "us", "captured_equipment", lmg)
    assert r.result.startswith("Retained")
    with pytest.raises(ActionRefused, match=r"one Captured Equipment Table roll.*C5\.26c"):
        roll(players, "us", "captured_equipment", lmg)
    done(players, "us")
    done(players, "german")
    assert not Unit.objects.filter(pk=mmg.pk).exists()
    assert Unit.objects.filter(pk=lmg.pk).exists()
    # C5.27
    assert players.step.id == "C5.27"
    add(players, "us", "M4A1 Sherman", "vehicle", markers=("immobilized", "abandoned"))
    short = add(players, "us", "6-6-7", "squad", markers=("low_ammo",))
    cut = add(players, "german", "4-6-7", "squad", markers=("isolated", "low_ammo"))
    text = step_text(client, players, "us")
    assert "You have no immobilized vehicles (not captured or abandoned) to roll for" in text
    done(players, "us")
    done(players, "german")
    assert set(Unit.objects.get(pk=short.pk).markers) == set()
    assert set(Unit.objects.get(pk=cut.pk).markers) == {"isolated", "low_ammo"}
    # C5.28
    assert players.step.id == "C5.28"
    roll(players, "us", "fortification_clearance", item="Wire in K5")
    with pytest.raises(ActionRefused, match=r"C5\.28"):
        roll(players, "us", "fortification_clearance", item="wire in  K5")
    done(players, "us")
    done(players, "german")
    # C5.29 (done by the server) then C5.30
    assert players.step.id == "C5.30"
    tp = Roll.objects.get(campaign=c, side="us", cycle=c.cycle, step_id="C5.29")
    labels = {d["label"]: d["value"] for d in tp.drms}
    assert sorted(labels.values()) == [-2, 1], labels
    assert "American TP" in page(client, players, "us")
    german = page(client, players, "german")
    assert "American TP" not in german and f"DR {tp.faces[0]}+{tp.faces[1]}" not in german


def test_c5_36_to_c5_41_walked_by_the_german_with_one_tp_left(users, modules, fixed_dice, client):
    """C5.36-C5.41 in rule order after the 0930 hrs TM Scenario, the German holding 1 TP
    (the named tests give each side plenty): C5.36 "The Reconnaissance dr is modified by
    +5 if the side has spent 1 additional TP" — the 2 TP Recon is refused in words citing
    C5.36 (it cited no rule), the
    1 TP one bought (no +5), once; "The TP cost ... is now deducted" (0 TP left); C5.37
    the chits lock once; the C5.39 page names who sets up first (C5.37 German Attack: the
    US); C5.40 "alternating (German first)" — the US may not finish before the German;
    C5.41 each side's current SAN announced to both."""
    from campaign.models import Seat
    from campaign.services import purchases

    players = late_conph(users, "C5.36")
    c = players.campaign
    Seat.objects.filter(campaign=c, side="german").update(points=1)
    german = players.users["german"]
    # Before: "Recon cannot be bought: not enough TP (2 needed, 1 left)." cited no rule.
    with pytest.raises(
        ActionRefused, match=r"not enough TP \(2 needed, 1 left; C5\.36\)"
    ) as refused:
        purchases.buy_recon(campaign_id=c.pk, user=german, option=1)
    plain(str(refused.value))
    fixed_dice.append([4])
    buy = purchases.buy_recon(campaign_id=c.pk, user=german, option=0)
    assert buy.locations == 4 and buy.cost == 1
    assert Seat.objects.get(campaign=c, side="german").points == 0
    with pytest.raises(ActionRefused):
        purchases.buy_recon(campaign_id=c.pk, user=german, option=0)
    assert "4 Locations" not in page(client, players, "us")
    players.until_step("C5.37")
    players.chits(german="attack", us="idle")
    with pytest.raises(ActionRefused):
        players.chits(german="idle")
    players.until_step("C5.39")
    assert "American sets up first; German moves first" in page(client, players, "german")
    players.until_step("C5.40")
    with pytest.raises(ActionRefused, match=r"German"):
        done(players, "us")
    sans = dict(Seat.objects.filter(campaign=c).values_list("side", "san"))
    done(players, "german")
    done(players, "us")
    said = logged(c)
    assert f"American {sans['us']}, German {sans['german']}" in said, said[-800:]


def test_c5_26b_and_c5_27b_walked_by_the_german_after_the_0930_scenario(users, modules, fixed_dice):
    """C5.26b "for each Baz, Psk, FT, and DC of its nationality", tried both ways after
    the 0930 hrs TM Scenario: the German's roll for a Baz and the US's for a Psk are
    refused citing C5.26b, nothing rolled; the German's Psk is rolled for.  C5.27b
    "A disabled, non-captured, AFV MG may be automatically repaired ... by using a German
    LMG if the AFV is German", on the German side (the named test: a US Sherman): a
    German MMG is refused; an MG not disabled is refused; a possessed German LMG
    repairs the disabled BMG and leaves the retained forces."""
    from campaign.models import Roll
    from tests.purchase_helpers import add_vehicle
    from tests.test_roster_rules import exchange
    from tests.test_rule_mechanisms import add, roll

    players = late_conph(users, "C5.26")
    c = players.campaign
    with pytest.raises(ActionRefused, match=r"C5\.26b"):
        roll(players, "german", "baz_psk_ft_dc_repair", item="Baz in 23K4")
    with pytest.raises(ActionRefused, match=r"C5\.26b"):
        roll(players, "us", "baz_psk_ft_dc_repair", item="Psk in 12B3")
    assert not Roll.objects.filter(campaign=c, table_id="baz_psk_ft_dc_repair").exists()
    fixed_dice.append([5])
    roll(players, "german", "baz_psk_ft_dc_repair", item="Psk in 23K4")
    players.until_step("C5.27")
    tank, (bmg, ma) = add_vehicle(
        players, "german", "PzKpfw IVH", ("mg", ["disabled"], "BMG"), ("ma", [], "75L")
    )
    mmg = add(players, "german", "MMG", "sw")
    lmg = add(players, "german", "LMG", "sw")
    with pytest.raises(ActionRefused, match=r"C5\.27b"):
        exchange(players, "german", tank, bmg, mmg)
    with pytest.raises(ActionRefused):
        exchange(players, "german", tank, ma, lmg)
    exchange(players, "german", tank, bmg, lmg)
    assert not Unit.objects.filter(pk=lmg.pk).exists()
    assert Unit.objects.filter(pk=mmg.pk).exists()
    tank.refresh_from_db()
    assert not next(w for w in tank.weapons if w["ref"] == bmg)["markers"]
