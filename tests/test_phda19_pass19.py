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
    the Stun off the Isolated Panzer is refused (C5.13a); its Isolated marker then
    corrected off (a mistake), the Stun the app put back comes off again."""
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
    # Its Isolated marker corrected off (a mistake): the Stun the app put back goes too.
    answer = save_line(page, panzer, ["low_ammo", "stunned"])
    assert not answer.refused, answer.text[:500]
    assert marks(panzer) == {"low_ammo"}


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


def test_c5_20_c5_23_the_cvp_drm_is_shown_computed_with_its_source_before_the_dr(
    users, modules, fixed_dice
):
    """C5.20 "Record CVP from the previous scenario for DRM for TP Replenishment, and
    Bravery and Battlefield Promotion" (drawn); C5.23's "-1 per 10 CVP (FRD) amassed by
    friendly side in this scenario".  The result says the German lost 22 CVP and the
    US 8: before its DR the US page shows the DRM computed, -2, from the 22 CVP the
    German lost (the scenario's result), the German's 0 from the US's 8; the figure is
    never typed; the US DR pressed through the page applies the -2 it showed."""
    from campaign.models import Roll
    from tests.test_phd_conph import phd_after

    players, _ = phd_after(users, "C5.23", cvp_lost_german=22, cvp_lost_us=8)
    from tests.test_rule_mechanisms import add

    add(players, "us", "6-6-7", "squad")
    add(players, "german", "4-6-7", "squad")
    s = seats(players)
    us, german = s["us"].open(), s["german"].open()
    label = "-1 per 10 CVP (FRD) amassed by the friendly side in this scenario"
    assert label in us
    assert "-2 now: 22 CVP German lost in the scenario just played (its result)" in us, us[
        us.find(label) - 100 : us.find(label) + 400
    ]
    assert "0 now: 8 CVP American lost in the scenario just played (its result)" in german
    plain(us[us.find(label) : us.find(label) + 300])
    fixed_dice.append([4, 4])
    assert s["us"].press("Roll DR: Battlefield Promotion Table").status == 200
    r = Roll.objects.get(
        campaign_id=players.campaign_id, side="us", table_id="battlefield_promotion"
    )
    assert [d["value"] for d in r.drms] == [-2]


def step_words(seat: Seat) -> str:
    """The step's part of the page (its summary, tables, forms), as the player reads it."""
    text = seat.open()
    start = text.find("Notification settings")
    end = text.find("RG Purchase Records", start)
    return text[start:end]


def test_drawn_sentences_played_after_the_1230_scenario_from_both_seats(users, modules, fixed_dice):
    """The sentences drawn at random (docs/rules-audit/pass-19-phda19.md) on a path the
    named tests use little: the ConPh after the 1230 hrs TM Scenario (the third),
    both sides having chosen Attack, each step's page read from both seats.

    C5.1 "Recalled units are eliminated but do not count for CVP purposes": a German
    4-6-7 marked recalled leaves when the result is confirmed, the CVP as entered.
    C5.14 v "The Defender may secretly redeploy any of his units after the Attacker":
    the Defender's page offers no DR until the Attacker is done, then does.  C5.13
    "Any unit attempting to redeploy must make a DR on the suitable table, applying
    any applicable DRM, and immediately applying the results": the German 4-6-7's DR
    of 11 (Infantry: "Redeploys, Reduced") marks it reduced at once, before Done;
    C5.13a "No unit may redeploy more than once per ConPh": a second DR forged for it
    is refused citing C5.13a.
    C5.15 "any SW/Guns that are not possessed ... are eliminated": the German page
    names the LMG and the guarded 2-4-7 that leave at Done, and they do.  C5.21 EXC
    "(even if Malfunctioned)": a US 3-3-7 possessing a malfunctioned MMG does not
    recombine.  C5.24 "No SMC may Battle Harden more than once during the ConPh": the
    US DR selecting a 9-1 passes over its Heroic 9-1 (Battle Hardened by its Hero at
    Done) to the 8-0; at Done the 9-1 becomes a 9-2 once."""
    import re

    from campaign.models import Event, ScenarioResult
    from tests.test_phda18_pass18 import forge, press_unpicked
    from tests.test_rule_mechanisms import add, result_values, start, unit_names

    players, module = start("purple-heart-draw", "tm", users, "us")
    players.results(**result_values(module, cvp_lost_us=8, cvp_lost_german=22))
    for n in range(2):
        players.until("initiative")
        players.chits(us="attack", german="attack")
        players.until_step("C5.1")
        if n == 0:  # the 0930 hrs scenario's result; the 1230 hrs one is entered below
            players.results(**result_values(module, cvp_lost_us=8, cvp_lost_german=22))
    s = seats(players)
    recalled = add(players, "german", "4-6-7", "squad", markers=("recalled",))
    assert "recalled units are eliminated without CVP" in step_words(s["german"])
    players.results(**result_values(module, cvp_lost_us=8, cvp_lost_german=22))
    assert players.step.id == "C5.2"
    assert not Unit.objects.filter(pk=recalled.pk).exists()
    last = ScenarioResult.objects.filter(campaign_id=players.campaign_id).order_by("-cycle")[0]
    assert last.data["cvp_lost"] == {"us": 8, "german": 22}
    assert "4-6-7 leaves the retained forces (C5.1)" in s["german"].open()

    squad = add(players, "german", "4-6-7", "squad")
    add(players, "german", "LMG", "sw", markers=("unpossessed",))
    add(players, "german", "2-4-7", "half_squad", markers=("captured",))
    add(players, "us", "9-1 leader", "leader", markers=("heroic",))
    add(players, "us", "8-0 leader", "leader")
    a = add(players, "us", "3-3-7", "half_squad")
    b = add(players, "us", "3-3-7", "half_squad")
    add(players, "us", "MMG", "sw", markers=("malfunctioned",), possessor=a.ref)

    players.until_step("C5.14")
    first = re.findall(
        r"Attacker \(C5\.3\): (\w+), the side that moved first in the 1230 hrs", s["us"].open()
    )
    assert first, s["us"].text[:3000]
    attacker = {"American": "us", "German": "german"}[first[0]]
    defender = "german" if attacker == "us" else "us"
    step_words(s[defender])
    assert "Roll DR: Redeployment Table" not in s[defender].buttons()
    assert "Not yet" in s[defender].text or "You may not roll on it now" in s[defender].text

    def german_redeploys():
        s["german"].open()
        fixed_dice.append([5, 6])
        rolled = press_unpicked(s["german"], "Roll DR: Redeployment Table", unit=squad.ref)
        assert rolled.status == 200, rolled.text[:500]
        assert marks(squad) == {"reduced"}  # at once, before Done
        again = forge(s["german"], "roll", table="redeployment", unit=squad.ref)
        assert again.refused and "C5.13a" in again.text, again.text[:400]
        s["german"].press("Done with C5.14")

    if attacker == "german":
        german_redeploys()
        s["us"].open()
        assert "Roll DR: Redeployment Table" in s["us"].buttons()
        s["us"].press("Done with C5.14")
    else:
        s["us"].open()
        s["us"].press("Done with C5.14")
        s["german"].open()
        assert "Roll DR: Redeployment Table" in s["german"].buttons()
        german_redeploys()
    assert players.step.id == "C5.15"

    words = step_words(s["german"])
    assert "2-4-7 leaves your retained forces (C5.15)" in words, words
    assert "LMG leaves your retained forces (C5.15)" in words
    plain(words)
    step_words(s["us"])
    s["us"].press("Done with C5.15")
    s["german"].press("Done with C5.15")
    names = [n for n, *_ in unit_names(players, "german")]
    assert "LMG" not in names and "2-4-7" not in names

    players.until_step("C5.21")
    said = step_words(s["us"])
    # Not offered since pass 20 (the page says why); a forged post is refused.
    assert "Recombine the two HS" not in s["us"].buttons()
    assert "Not offered: 3-3-7 possesses MMG" in said, said
    exc = forge(s["us"], "exchange", give=a.ref, mark=b.ref, forms="6-6-7")
    assert exc.refused and "C5.21 EXC" in exc.text and "MMG" in exc.text, exc.text[:400]
    plain(exc.text)

    players.until_step("C5.24")
    step_words(s["us"])
    fixed_dice.append([2, 2])  # 4: a 9-1 selected
    assert s["us"].press("Roll DR: Leader Promotion Table").status == 200
    said = [
        t
        for t in Event.objects.filter(campaign_id=players.campaign_id).values_list(
            "text", flat=True
        )
        if "Battle Hardens" in t
    ]
    assert any("8-0 leader" in t for t in said), said
    s["us"].press("Done with C5.24")
    step_words(s["german"])
    s["german"].press("Done with C5.24")
    names = [n for n, *_ in unit_names(players, "us")]
    assert "9-2 leader" in names and "8-1 leader" in names, names
    assert "10-2 leader" not in names and "9-1 leader" not in names
