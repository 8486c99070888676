"""Purple Heart Draw, nineteenth pass (issue 44), C1-C5.24 side: pass 18's Left items
(the Stun a late Isolated mark restores, C5.13a; HS recorded as half-squad lines,
C5.21) and sentences of C1.1-C5.24 drawn at random (random.Random(19)) and tried in
play through the pages (tests/page_play.py), each test citing its rule
(docs/rules-audit/pass-19-phda19.md)."""

from __future__ import annotations

import pytest

from campaign.models import Unit
from tests.page_play import Answer, Seat
from tests.test_phd16_pass16 import marks, plain
from tests.test_rule_mechanisms import fixed_dice, users

pytestmark = [pytest.mark.django_db, pytest.mark.rules]
__all__ = ["fixed_dice", "users", "Unit"]


def seats(players):
    return {side: Seat(user, players.campaign_id) for side, user in players.users.items()}


def roster(players, side) -> Seat:
    return Seat(players.users[side], players.campaign_id, "roster/")


def save_line(seat: Seat, unit: Unit, markers: list[str]) -> Answer:
    """Tick ``markers`` (only those) in the roster's Edit form of ``unit`` and press its
    Save, as the browser does (tests/page_play.py finds a button by its words, and
    each line's is "Save": the form is found by the line it edits)."""
    seat.open()
    form = next(
        f
        for f in seat.forms.forms.values()
        if ("unit", unit.ref) in f.fields and "markers" in f.choices
    )
    offered = form.choices["markers"]
    assert all(m in offered for m in markers), (markers, offered)
    data: dict[str, list[str]] = {}
    for name, value in form.fields:
        if name != "markers":
            data.setdefault(name, []).append(value)
    data["markers"] = list(markers)
    data["do"] = ["save"]
    answer = seat.client.post(form.action, data, HTTP_HX_REQUEST="true")
    seat.open()
    return Answer(answer.status_code, answer.content.decode())


# Part 1: pass 18's Left items.


def test_c5_13a_a_unit_marked_isolated_after_c5_14_keeps_its_stun(users, modules):
    """C5.13a "Units marked with a Stun counter may remove it after redeploying only if
    they are not Isolated at that time" (pass 18's Left item): the German's stunned
    PzKpfw IVH, not marked Isolated when C5.14 was done, had its Stun taken off then;
    its owner marks it Isolated at C5.19 through the roster page (a correction: it
    ended the Redeployment Isolated), so it was Isolated "at that time" and keeps the
    Stun: the app puts the counter back (with its Low Ammo, C5.13a's late shortage),
    the log citing C5.13a; the StuG that was never stunned gets no Stun; and taking
    the Stun off the Isolated Panzer is refused (C5.13a)."""
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add

    players, _ = phd_after(users, "C5.14")
    panzer = add(players, "german", "PzKpfw IVH", "vehicle", markers=("stunned",))
    stug = add(players, "german", "StuG IIIG", "vehicle")
    players.until_step("C5.19")
    assert marks(panzer) == set()
    page = roster(players, "german")
    answer = save_line(page, panzer, ["isolated"])
    assert not answer.refused, answer.text[:500]
    assert marks(panzer) == {"isolated", "low_ammo", "stunned"}
    said = [t for t in log_texts(players) if "PzKpfw IVH" in t and "stunned again" in t]
    assert said and "C5.13a" in said[-1], log_texts(players)[-4:]
    plain(said[-1])
    assert "stunned" in page.text.split("PzKpfw IVH", 1)[1][:300], page.text[:2000]
    answer = save_line(page, stug, ["isolated"])
    assert not answer.refused, answer.text[:500]
    assert marks(stug) == {"isolated", "low_ammo"}
    refused = save_line(page, panzer, ["isolated", "low_ammo"])
    assert refused.refused and "C5.13a" in refused.text, refused.text[:500]
    assert marks(panzer) == {"isolated", "low_ammo", "stunned"}


def log_texts(players) -> list[str]:
    from campaign.models import Event

    return list(
        Event.objects.filter(campaign_id=players.campaign_id)
        .order_by("pk")
        .values_list("text", flat=True)
    )


def test_c5_21_two_half_squad_lines_recombine_into_the_squad_their_owner_names(users, modules):
    """C5.21 "All retained same-class HS with the same strength factors ... must
    recombine in the location of one or the other HS [EXC: A HS in possession of a
    MMG/HMG/Lt. MTR/Gun (even if Malfunctioned)]" (pass 18's Left item): HS recorded
    as half-squad lines ("3-3-7", the US side; the named tests play the German) name
    no squad: which squad two of them form is ASL's counter data, which the rules
    text does not print, so the owner names it, helped by his own squad lines.  On the
    US page the two 3-3-7 lines are offered (the lone 2-4-7 and the 2-2-8 crew are
    not: no partner, not a HS); pressed without the squad named, refused with a
    sentence citing C5.21, nothing changed; a 3-3-7 with the 2-4-7 (forged) refused;
    named "6-6-7", the two lines become one 6-6-7 squad in the location of one of
    them, what the other possessed Transferred to it, the log citing C5.21."""
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add, unit_names

    players, _ = phd_after(users, "C5.21")
    a = add(players, "us", "3-3-7", "half_squad", location="c4")
    b = add(players, "us", "3-3-7", "half_squad", location="c5")
    lone = add(players, "us", "2-4-7", "half_squad")
    crew = add(players, "us", "2-2-8 crew", "half_squad")
    add(players, "us", "6-6-7", "squad")
    add(players, "us", "BAR", "sw", possessor=a.ref)
    s = seats(players)
    us = s["us"]
    us.open()
    assert "Recombine the two HS" in us.buttons(), us.buttons()
    offered = [ref for ref, _ in us.options("Recombine the two HS", "give")]
    assert a.ref in offered and b.ref in offered, offered
    assert lone.ref not in offered and crew.ref not in offered
    assert "6-6-7" in us.html.split('id="exchange-squads"', 1)[1][:300], us.html[-3000:]

    unnamed = us.press("Recombine the two HS", give=a.ref, mark=b.ref)
    assert unnamed.refused and "C5.21" in unnamed.text, unnamed.text[:400]
    assert "Nothing was changed" in unnamed.text
    plain(unnamed.text)
    wrong = us.press("Recombine the two HS", give=a.ref, mark=lone.ref, forms="6-6-7")
    assert wrong.refused and "C5.21" in wrong.text, wrong.text[:400]
    assert Unit.objects.filter(pk__in=[a.pk, b.pk]).count() == 2

    made = us.press("Recombine the two HS", give=a.ref, mark=b.ref, forms="6-6-7")
    assert made.status == 200, made.text[:400]
    assert not Unit.objects.filter(pk=a.pk).exists()
    b.refresh_from_db()
    assert (b.name, b.kind, b.location) == ("6-6-7", "squad", "c5")
    assert Unit.objects.get(name="BAR", campaign_id=players.campaign_id).possessor_id == b.pk
    line = [t for t in log_texts(players) if "(C5.21)" in t][-1]
    assert "3-3-7" in line and "6-6-7 squad" in line, line
    plain(line)
    us.press("Done with C5.21")
    s["german"].open()
    s["german"].press("Done with C5.21")
    assert players.step.id == "C5.22"
    names = unit_names(players, "us")
    assert ("2-4-7", "half_squad", "ok", 1) in names


# Part 2: the drawn sentences and the ledger's weakest claims, in play.


def test_c5_24a_the_7_0_is_created_from_a_designated_mmc_with_no_leader_in_its_location(
    users, modules
):
    """C5.24a "it may automatically create one 7-0 leader from any designated (non-crew)
    MMC, provided there is no leader in that location. The leader must set up in the
    same location as the designated MMC" (drawn).  The roster records each line's
    Location: the US holds an 8-1 in d5 with a 6-6-7, and 6-6-7s in e6 and f2 and a
    2-2-8 crew (one leader for four squad-equivalents: allowed).  Its page offers the
    promotion with a select of the MMC it may designate: those in e6 and f2, not the
    one in d5 (a leader there), not the crew; the d5 squad forged is refused with a
    sentence citing C5.24a, nothing created; pressed with the e6 squad, a 7-0 leader
    joins the retained forces in e6, the log naming the MMC."""
    from campaign.models import Unit
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add

    players, _ = phd_after(users, "C5.24")
    add(players, "us", "8-1 leader", "leader", location="d5")
    with_leader = add(players, "us", "6-6-7", "squad", location="d5")
    free = add(players, "us", "6-6-7", "squad", location="e6")
    other = add(players, "us", "6-6-7", "squad", number=2, location="f2")
    crew = add(players, "us", "2-2-8 crew", "half_squad", location="g1")
    us = seats(players)["us"]
    us.open()
    words = "Instead of rolling: Promote a 7-0 leader out of the Ranks (C5.24a)"
    assert words in us.buttons(), us.buttons()
    offered = dict(us.options(words, "mmc"))
    assert free.ref in offered and other.ref in offered, offered
    assert with_leader.ref not in offered and crew.ref not in offered, offered
    assert "e6" in offered[free.ref], offered
    refused = us.press(words, mmc=with_leader.ref)
    assert refused.refused and "C5.24a" in refused.text, refused.text[:500]
    assert "Nothing was changed" in refused.text
    plain(refused.text)
    assert not Unit.objects.filter(campaign_id=players.campaign_id, name="7-0 leader").exists()
    made = us.press(words, mmc=free.ref)
    assert made.status == 200, made.text[:500]
    leader = Unit.objects.get(campaign_id=players.campaign_id, name="7-0 leader")
    assert (leader.kind, leader.location) == ("leader", "e6")
    line = [t for t in log_texts(players) if "7-0 leader" in t][-1]
    assert "6-6-7" in line and "e6" in line and "C5.24a" in line, line
    plain(line)
