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


def press_unpicked(seat, words, unpicked=("stack",), **typed):
    """``seat.press`` as a browser sends a ``<select multiple>`` nothing is picked in:
    not at all (tests/page_play.py sends its first option, as for a single select: a
    stack's first unit, which the Redeployment Table then reads as named twice)."""
    from tests.page_play import Answer

    button = seat.button(words)
    form = seat.forms.forms.get(button.owner or "")
    action = button.attrs.get("formaction") or (form.action if form else "")
    data: dict[str, list[str]] = {}
    for name, value in form.fields if form else []:
        if name not in unpicked:
            data.setdefault(name, []).append(value)
    data |= {name: [value] for name, value in typed.items()}
    answer = seat.client.post(action, data, HTTP_HX_REQUEST="true")
    seat.open()
    return Answer(answer.status_code, answer.content.decode())


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


def test_c5_21_two_hs_of_one_squads_line_recombine_through_the_page(users, modules):
    """C5.21 "All retained same-class HS with the same strength factors behind the
    friendly FEBA and < 6 hexes of each other must recombine in the location of one or
    the other HS [EXC: A HS in possession of a MMG/HMG/Lt. MTR/Gun (even if
    Malfunctioned)]" (pass 17's Left item).  A squad Casualty Reduced stays on its line
    marked reduced: two such lines of one name are two HS of that squad, and the squad
    they form is the line's own.  Played on the German's page (the named tests play
    the US): the two 4-6-7 HS are offered, the lone 5-4-8 HS is not; recombining a
    4-6-7 HS with the 5-4-8 one (forged) is refused, as is one whose HS possesses a
    MMG (the EXC), nothing changed; the two 4-6-7 HS become one 4-6-7 squad, the log
    citing C5.21.  The US, holding none, reads so; Done leaves the 5-4-8 HS as it is
    (the FEBA and the 6 hexes are the map's)."""
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add, unit_names

    players, _ = phd_after(users, "C5.21")
    a = add(players, "german", "4-6-7", "squad", status="reduced")
    b = add(players, "german", "4-6-7", "squad", status="reduced")
    lone = add(players, "german", "5-4-8", "squad", status="reduced")
    gunner = add(players, "german", "4-6-7", "squad", status="reduced")
    add(players, "german", "MG42 MMG", "sw", possessor=gunner.ref)
    add(players, "german", "LMG", "sw", possessor=b.ref)
    s = seats(players)
    german, us = s["german"], s["us"]
    text = german.open()
    assert "Recombine the two HS" in german.buttons(), german.buttons()
    offered = [ref for ref, _ in german.options("Recombine the two HS", "give")]
    assert a.ref in offered and b.ref in offered and lone.ref not in offered
    assert "(C5.21)" in text
    assert "You hold no" in us.open() and "Recombine the two HS" not in us.buttons()

    wrong = german.press("Recombine the two HS", give=a.ref, mark=lone.ref)
    assert wrong.refused and "C5.21" in wrong.text and "Nothing was changed" in wrong.text
    plain(wrong.text)
    exc = german.press("Recombine the two HS", give=a.ref, mark=gunner.ref)
    assert exc.refused and "C5.21 EXC" in exc.text and "MMG" in exc.text, exc.text[:400]
    other = forge(us, "exchange", give=a.ref, mark=b.ref)
    assert other.refused
    assert marks(a) == {"reduced"} and marks(b) == {"reduced"}

    made = german.press("Recombine the two HS", give=a.ref, mark=b.ref)
    assert made.status == 200, made.text[:400]
    assert not Unit.objects.filter(pk=a.pk).exists()
    assert marks(b) == set()  # the 4-6-7 squad, whole
    line = [t for t in log_texts(players) if "(C5.21)" in t][-1]
    assert "recombine" in line and "4-6-7" in line, line
    plain(line)
    us.press("Done with C5.21")
    german.press("Done with C5.21")
    assert players.step.id == "C5.22"
    names = unit_names(players, "german")
    assert ("5-4-8", "squad", "reduced", 1) in names
    assert ("4-6-7", "squad", "ok", 1) in names


def log_texts(players) -> list[str]:
    from campaign.models import Event

    return list(
        Event.objects.filter(campaign_id=players.campaign_id)
        .order_by("pk")
        .values_list("text", flat=True)
    )


# Part 2: the steps played through the page's own buttons.


def test_c5_19_finishing_ahead_stops_where_a_wounded_leaders_dr_is_owed(users, modules):
    """C5.19 "For each Wounded Leader a dr is made on the following table" (its rows are
    lost: the players supply them or go on without, knowingly, at C5.19).  The German
    holding a wounded 8-1 at C5.15 was offered "Done with C5.15 to C5.30 ... (no
    rolls)", which finished C5.19 unseen: his dr skipped, and never made if the table
    were supplied meanwhile.  Now the ways to finish ahead stop before C5.19; a forged
    post through C5.30 is refused, nothing changed; at C5.19 the page says the table is
    missing and offers to go on without it."""
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add

    players, _ = phd_after(users, "C5.15")
    add(players, "german", "8-1 leader", "leader", markers=("wounded",))
    german = seats(players)["german"]
    german.open()
    ahead = [b for b in german.buttons() if b.startswith("Done with C5.15 to ")]
    assert ahead == ["Done with C5.15 to C5.18 Flames/Blazes/Burning Wrecks (no rolls)"], ahead
    forged = forge(german, "finish", through="C5.30")
    assert forged.refused and "C5.30" in forged.text, forged.text[:300]
    assert players.step.id == "C5.15" and "german" in players.waiting()
    assert "Done with C5.15" in german.buttons()  # still his to finish
    german.press("Done with C5.15 to C5.18 Flames/Blazes/Burning Wrecks (no rolls)")
    players.until_step("C5.19")
    text = german.open()
    assert "the printed rules leave out the Leader Evacuation Table (C5.19)" in text
    assert "Go on without it" in german.buttons()


def test_the_conph_played_through_the_pages_from_the_german_seat(users, modules, fixed_dice):
    """The ConPh after the Initial TM Scenario, the German hosting (the named tests host
    the US), played through the page's own buttons by both seats, with what the rules
    forbid pressed or forged: C5.1 "Losses ... count for the previous scenario" (a
    negative CVP typed into the result form is refused, nothing entered; the side that
    entered it may not confirm it); C5.14 "In turn, Attacker first" (the Defender's
    forged DR refused), the Redeployment Table's "Mobile Vehicle" column (an
    Immobilized Sherman's forged DR refused), "No unit may redeploy more than once per
    ConPh" (a second DR for the same unit refused); C5.22 "(non-crew) MMC" (a Hero
    forged onto a crew refused); C5.23 "Each side makes a secret DR" (a second DR
    refused); C5.24 "OR promote a leader out of the Ranks" (the promotion after the DR
    refused) — each refusal a sentence citing its rule, in ASL words, nothing
    changed."""
    from tests.test_rule_mechanisms import add, start

    players, module = start("purple-heart-draw", "tm", users, "german")
    s = seats(players)
    german, us = s["german"], s["us"]
    german.open()
    us.open()
    # C5.1: a negative loss typed into the form is refused; nothing entered.
    fields = {"cvp_lost.us": "12", "cvp_lost.german": "-31", "san.us": "2", "san.german": "3"}
    fields |= {"crews_lost.us": "0", "crews_lost.german": "0"}
    bad = german.press("Enter the result", **fields)
    assert bad.refused and bad.text, bad.status
    plain(bad.text)
    assert "Enter the result" in german.buttons()
    fields["cvp_lost.german"] = "31"
    assert german.press("Enter the result", **fields).status == 200
    own = forge(german, "confirm")
    assert own.refused, own.status
    us.open()
    confirm = next(b for b in us.buttons() if b.startswith("Confirm"))
    assert us.press(confirm).status == 200
    assert players.step.id != "C5.1"

    panzer = add(players, "german", "PzKpfw IVH", "vehicle", markers=("stunned",))
    sherman = add(players, "us", "M4A1 Sherman", "vehicle", markers=("immobilized",))
    squad = add(players, "us", "6-6-7", "squad")
    crew = add(players, "us", "2-2-8 crew", "half_squad")
    hero = add(players, "us", "Hero", "hero")
    add(players, "german", "4-6-7", "squad")
    add(players, "german", "8-0 leader", "leader")
    players.until_step("C5.14")
    # The Attacker is the US (it moved first in 0600 hrs): the German waits.
    early = forge(german, "roll", table="redeployment", unit=panzer.ref)
    assert early.refused and "C5.14" in early.text, early.text[:300]
    assert "Roll DR: Redeployment Table" not in german.buttons()
    us.open()
    offered = [ref for ref, _ in us.options("Roll DR: Redeployment Table", "unit")]
    assert squad.ref in offered and sherman.ref not in offered
    immobile = forge(us, "roll", table="redeployment", unit=sherman.ref)
    assert immobile.refused, immobile.status
    plain(immobile.text)
    fixed_dice.append([3, 3])
    rolled = press_unpicked(us, "Roll DR: Redeployment Table", unit=squad.ref)
    assert rolled.status == 200, rolled.text[:300]
    again = forge(us, "roll", table="redeployment", unit=squad.ref)
    assert again.refused, again.status
    plain(again.text)
    assert (
        Roll.objects.filter(campaign_id=players.campaign_id, table_id="redeployment").count() == 1
    )

    players.until_step("C5.22")
    us.open()
    onto_crew = us.press("Mark battle hardened", give=hero.ref, mark=crew.ref)
    assert onto_crew.refused and "C5.22" in onto_crew.text, onto_crew.text[:300]
    plain(onto_crew.text)
    assert us.press("Mark battle hardened", give=hero.ref, mark=squad.ref).status == 200

    players.until_step("C5.23")
    for seat in (german, us):
        seat.open()
        fixed_dice.append([4, 4])
        assert seat.press("Roll DR: Battlefield Promotion Table").status == 200
        twice = forge(seat, "roll", table="battlefield_promotion")
        assert twice.refused and "C5.23" in twice.text, twice.text[:300]
    players.until_step("C5.24")
    german.open()
    fixed_dice.append([5, 5])
    assert german.press("Roll DR: Leader Promotion Table").status == 200
    instead = forge(german, "instead", table="leader_promotion")
    assert instead.refused and "C5.24" in instead.text, instead.text[:300]
    plain(instead.text)


def test_c5_21_a_line_of_two_hs_recombines_with_itself(users, modules):
    """C5.21 "must recombine in the location of one or the other HS": a line of the US
    retained forces recording two identical Casualty Reduced 6-6-7 (two HS of one
    squad) is offered, and recombined by picking it twice: one 6-6-7 squad; a line of
    one HS picked twice is refused (it has no partner), nothing changed."""
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add, unit_names

    players, _ = phd_after(users, "C5.21")
    pair = add(players, "us", "6-6-7", "squad", status="reduced", number=2)
    lone = add(players, "us", "7-4-7", "squad", status="reduced")
    us = seats(players)["us"]
    us.open()
    offered = [ref for ref, _ in us.options("Recombine the two HS", "give")]
    assert offered == [pair.ref], offered
    alone = us.press("Recombine the two HS", give=lone.ref, mark=lone.ref)
    assert alone.refused and "C5.21" in alone.text, alone.text[:300]
    assert us.press("Recombine the two HS", give=pair.ref, mark=pair.ref).status == 200
    assert unit_names(players, "us") == [
        ("6-6-7", "squad", "ok", 1),
        ("7-4-7", "squad", "reduced", 1),
    ]
