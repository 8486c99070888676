"""Purple Heart Draw, twenty-third pass (issue 44): twenty sentences of the whole
between-scenario text (C1-C3, C5.0-C5.41 with its tables, the RG chart notes, TM1-TM20)
drawn at random (``random.Random(23)``, passes 20-22's draws left out), each tried at its
edge through each side's page (tests/page_play.py) (docs/rules-audit/pass-23-phd23.md)."""

from __future__ import annotations

import pytest

from campaign.models import Roll, Unit
from tests.page_play import Seat
from tests.test_phdb17_pass17 import late_conph, plain
from tests.test_phdb18_pass18 import seats, step_part
from tests.test_rule_mechanisms import fixed_dice, users

pytestmark = [pytest.mark.django_db, pytest.mark.rules]
__all__ = ["fixed_dice", "users"]

ROLL_OBA = "Roll DR: Offboard Artillery Table"


def oba_module(n: int) -> dict[str, str]:
    return {"id": f"O{n}", "type": "81mm OBA Module", "units": "OBA", "cost": "1", "tags": "oba"}


def test_c5_34_each_columns_rows_at_their_edges_one_dr_per_module_on_both_pages(
    users, modules, fixed_dice
):
    """Drawn #4, C5.34 "US OFFBOARD ARTILLERY TABLE" (and the German's beside it): "make a
    DR for each" OBA module, "=6 Plentiful", "7-11 Normal", ">12 Scarce" for the US; the
    German's "4-9 Normal" read with its lost rows.  After the Initial TM Scenario the US
    buys four modules and the German two on their pages at C5.31; at C5.34 the US
    presses DR 6, 7, 11 and 12 (Plentiful, Normal, Normal, Scarce), the German 3 and 4
    (Plentiful, Normal): each row's edge and one past it.  A second DR for a module
    already rolled, forged while another is still to roll, is refused in words citing
    C5.34 and rolls nothing; with each module rolled the button goes.  (The walk's
    campaign reveals purchases when both finish the step, its host's policy, so the
    opponent's page reading the modules is that policy's, not a leak.)"""
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import supply_chart

    players, _ = phd_after(users, "C5.31")
    supply_chart(players, "us", [oba_module(n) for n in (1, 2, 3, 4)])
    supply_chart(players, "german", [oba_module(n) for n in (5, 6)])
    page = seats(players)
    us, de = page["us"], page["german"]
    for seat, ids in ((us, (1, 2, 3, 4)), (de, (5, 6))):
        for n in ids:
            buy = [b for b in seat.buttons() if b.startswith(f"Buy O{n} ")]
            assert buy, seat.buttons()
            answer = seat.press(buy[0])
            assert answer.status == 200, answer.text[:300]
    for seat in (us, de):
        seat.open()
        assert seat.press("Done with C5.31").status == 200, step_part(seat)
    players.until_step("C5.34")
    us.open()
    de.open()
    made = []
    for seat, pairs in (
        (us, ((1, [3, 3]), (2, [3, 4]), (3, [5, 6]), (4, [6, 6]))),
        (de, ((5, [1, 2]), (6, [2, 2]))),
    ):
        for n, faces in pairs:
            if n == 4:  # one past: O1 again, while the button is still there for O4
                offered = [words for _, words in us.options(ROLL_OBA, "item")]
                assert offered == ["O4 81mm OBA Module"], offered
                fixed_dice.append([1, 1])
                again = us.press(ROLL_OBA, item="O1 81mm OBA Module")
                assert again.refused, (again.status, again.text[:300])
                plain(again.text)
                assert "C5.34" in again.text, again.text[:300]
                assert (
                    Roll.objects.filter(campaign_id=players.campaign_id, step_id="C5.34").count()
                    == 3
                )
                fixed_dice.clear()
            fixed_dice.append(faces)
            answer = seat.press(ROLL_OBA, item=f"O{n} 81mm OBA Module")
            assert answer.status == 200, answer.text[:300]
    for side in ("us", "german"):
        made += [
            (r.side, r.item, r.final, r.result.split(" (")[0])
            for r in Roll.objects.filter(
                campaign_id=players.campaign_id, step_id="C5.34", side=side
            ).order_by("seq")
        ]
    assert made == [
        ("us", "O1 81mm OBA Module", 6, "US: Plentiful"),
        ("us", "O2 81mm OBA Module", 7, "US: Normal"),
        ("us", "O3 81mm OBA Module", 11, "US: Normal"),
        ("us", "O4 81mm OBA Module", 12, "US: Scarce"),
        ("german", "O5 81mm OBA Module", 3, "German: Plentiful"),
        ("german", "O6 81mm OBA Module", 4, "German: Normal"),
    ], made
    for seat in (us, de):
        seat.open()
        assert ROLL_OBA not in seat.buttons(), seat.buttons()


def test_c5_27b_the_american_afv_takes_a_possessed_us_mmg_only_on_the_us_roster(users, modules):
    """Drawn #7, C5.27b "Vehicular-MG Exchange: A disabled, non-captured, AFV MG may be
    automatically repaired ... by using ... US MMG if the AFV is American. In all cases,
    the MG to be eliminated must be possessed", on the other side than pass 18's page
    test (the German's LMG): after the 0930 hrs TM Scenario the US holds an M4A1 whose
    BMG is disabled, a captured PzKpfw IVH whose BMG is disabled, a possessed MMG, an
    unpossessed MMG, an LMG and a captured German MMG.  At C5.27 his roster offers the
    M4A1's BMG only (not the captured AFV's), its select the possessed MMG only; the
    LMG, the unpossessed MMG and the captured MMG, forged, are refused citing C5.27b and
    stay; the possessed MMG repairs the BMG and leaves.  The German's roster offers
    nothing."""
    from tests.purchase_helpers import add_vehicle
    from tests.test_rule_mechanisms import add

    players = late_conph(users, "C5.26")
    tank, (bmg, _) = add_vehicle(
        players, "us", "M4A1", ("mg", ["disabled"], "BMG"), ("ma", [], "75")
    )
    add_vehicle(players, "us", "PzKpfw IVH", ("mg", ["disabled"], "BMG"), markers=("captured",))
    players.until_step("C5.27")  # (C5.26c would roll for a captured MG added before)
    mmg = add(players, "us", "MMG", "sw")
    loose = add(players, "us", "MMG", "sw", markers=("unpossessed",))
    lmg = add(players, "us", "LMG", "sw")
    taken = add(players, "us", "MMG (German)", "sw", markers=("captured",))
    roster = Seat(players.users["us"], players.campaign_id, "roster/")
    roster.open()
    repair = [b for b in roster.buttons() if b.startswith("Repair BMG")]
    assert repair == ["Repair BMG (C5.27b)"], roster.buttons()
    offered = [words for _, words in roster.options(repair[0], "give")]
    assert offered == ["MMG"], offered
    assert roster.options(repair[0], "give")[0][0] == mmg.ref
    for forged in (lmg, loose, taken):
        answer = roster.press(repair[0], give=forged.ref)
        assert answer.refused and "C5.27b" in answer.text, (answer.status, answer.text[:300])
        plain(answer.text)
        assert Unit.objects.filter(pk=forged.pk).exists()
    tank.refresh_from_db()
    assert next(w for w in tank.weapons if w["ref"] == bmg)["markers"] == ["disabled"]
    answer = roster.press(repair[0])
    assert answer.status == 200, answer.text[:400]
    assert not Unit.objects.filter(pk=mmg.pk).exists()
    tank.refresh_from_db()
    assert not next(w for w in tank.weapons if w["ref"] == bmg)["markers"]
    assert not [b for b in roster.buttons() if b.startswith("Repair BMG")], roster.buttons()
    german = Seat(players.users["german"], players.campaign_id, "roster/")
    german.open()
    assert not [b for b in german.buttons() if b.startswith("Repair")], german.buttons()


def test_c5_36c_c5_29_exc_and_the_lull_the_initial_tm_scenario_has_no_recon_tp_dr_or_chit(
    users, modules, fixed_dice
):
    """Drawn #12 (C5.36 "b) Expended the required TP"; its c) "Is not the Initial TM
    Scenario"), #15 (C5.29 "[EXC: No roll is made for the Initial TM Scenario]") and #13
    (C2.0 Lull "The initial scenario can never be a Lull"), at the Initial TM Scenario
    and its complement after it, the German hosting.  Before the Initial TM Scenario:
    neither page reads a Recon, TP Replenishment or Initiative step; a Recon, a chit
    (Idle) and a TP DR forged from each seat are refused and roll nothing.  After it: at
    C5.29 each side rolls its TP DR; at C5.36 the US, holding TP, pays 1 TP and rolls
    (a second Recon forged is refused); the German, his TP set to 0, is refused the 1
    TP Recon in words, nothing rolled."""
    from campaign.models import Seat as SeatRow
    from tests.test_phdb18_pass18 import tp_shown
    from tests.test_rule_mechanisms import module_of, result_values
    from tests.walk import host_game, players_of

    a, b = users
    c = host_game("purple-heart-draw", "tm", a, b, side="german", through_start=False)
    players = players_of(c, a, b)
    read: set[str] = set()
    while True:
        c.refresh_from_db()
        step = module_of(c).steps[c.step_index]
        if not step.start:
            break
        page = seats(players)
        for seat in page.values():
            read.add(step_part(seat))
        if step.id == "I-C5.35":
            for side, seat in page.items():
                for act, data in (
                    ("recon", {"option": "0"}),
                    ("chit", {"chit": "idle"}),
                    ("roll", {"table": "tp_replenishment"}),
                ):
                    answer = seat.client.post(
                        f"/campaigns/{c.pk}/act/{act}/", data, HTTP_HX_REQUEST="true"
                    )
                    assert 400 <= answer.status_code < 500, (side, act, answer.status_code)
                    plain(answer.content.decode())
            assert not Roll.objects.filter(campaign_id=c.pk, step_id="I-C5.35").exists()
        players.until_step(module_of(c).steps[c.step_index + 1].id)
    words = " ".join(read)
    for absent in ("Requisitioning Reconnaissance", "TP Replenishment", "Initiative Determination"):
        assert absent not in words, absent
    assert not Roll.objects.filter(campaign_id=c.pk, purpose__startswith="Recon").exists()
    players.until("results")
    players.results(**result_values(module_of(c)))
    players.until_step("C5.36")
    tp_rolls = Roll.objects.filter(campaign_id=c.pk, step_id="C5.29")
    assert sorted(tp_rolls.values_list("side", flat=True)) == ["german", "us"]
    SeatRow.objects.filter(campaign_id=c.pk, side="german").update(points=0)
    page = seats(players)
    us, de = page["us"], page["german"]
    held = tp_shown(us)
    assert held >= 1, held
    recon = [x for x in us.buttons() if x.startswith("Recon for 1 TP")]
    assert recon, us.buttons()
    fixed_dice.append([3])
    assert us.press(recon[0]).status == 200
    assert "Recon dr: 3 Locations" in step_part(us), step_part(us)
    assert not [x for x in us.buttons() if x.startswith("Recon for")], us.buttons()
    assert SeatRow.objects.get(campaign_id=c.pk, side="us").points == held - 1
    again = us.client.post(f"/campaigns/{c.pk}/act/recon/", {"option": "0"}, HTTP_HX_REQUEST="true")
    assert 400 <= again.status_code < 500, again.status_code
    assert SeatRow.objects.get(campaign_id=c.pk, side="us").points == held - 1
    assert "not enough TP (1 needed, 0 left; C5.36)" in step_part(de), step_part(de)
    short = de.press([x for x in de.buttons() if x.startswith("Recon for 1 TP")][0])
    assert short.refused and "C5.36" in short.text, (short.status, short.text[:300])
    plain(short.text)
    recons = Roll.objects.filter(campaign_id=c.pk, step_id="C5.36")
    assert list(recons.values_list("side", flat=True)) == ["us"]


def test_rg_footnote_z_replacement_crews_at_none_lost_one_lost_and_one_past_on_the_page(
    users, modules
):
    """Drawn #18, RG footnote z "Replacement Crews are only requisitioned for Gun/Vehicle
    crews that were eliminated during play", played on the German's page (pass 5's test
    calls the service): before the Initial TM Scenario (none lost) the chart's row says
    why ("0 so far, 0 bought"), no Buy is offered, and the buy, forged, is refused
    citing footnote z, nothing spent; the Initial TM Scenario's result gives the German
    1 crew lost (the US 3): at C5.31 the row's Buy is offered (at each set-up price),
    one Replacement Crew is bought for its 2 TP, then the row says "1 so far, 1
    bought", no Buy is offered and the second, forged, is refused citing footnote z,
    nothing spent."""
    from campaign.models import Seat as SeatRow
    from tests.test_phd_pass5 import CREW
    from tests.test_rule_mechanisms import module_of, phd_with_chart, result_values

    players, c = phd_with_chart(users, [CREW | {"cost": "2", "footnotes": "z"}])
    de = seats(players)["german"]

    def tp() -> int:
        return SeatRow.objects.get(campaign_id=c.pk, side="german").points

    def forged_buy() -> str:
        before = tp()
        answer = de.client.post(
            f"/campaigns/{c.pk}/act/buy/", {"group": "R1", "variant": ""}, HTTP_HX_REQUEST="true"
        )
        text = answer.content.decode()
        assert 400 <= answer.status_code < 500, (answer.status_code, text[:300])
        plain(text)
        assert tp() == before
        return text

    def buys() -> list[str]:
        de.open()
        return [x for x in de.buttons() if x.startswith("Buy R1")]

    eliminated = "Gun/vehicle crews eliminated (incl. ConPh losses)"
    assert f"{eliminated}: 0 so far, 0 bought (C5.31 RG footnote z)" in step_part(de)
    assert buys() == [], de.buttons()
    assert "0 so far, 0 bought (C5.31 RG footnote z)" in forged_buy()
    players.until("results")
    players.results(**result_values(module_of(c), crews_lost_german=1, crews_lost_us=3))
    players.until_step("C5.31")
    before = tp()
    buy = buys()
    assert len(buy) == 3, de.buttons()  # its three set-up prices (C5.32)
    assert de.press("Buy R1 Replacement Crew for 2 TP, Enters as Reinforcements").status == 200
    assert tp() == before - 2
    assert f"{eliminated}: 1 so far, 1 bought (C5.31 RG footnote z)" in step_part(de)
    assert buys() == [], de.buttons()
    assert "1 so far, 1 bought (C5.31 RG footnote z)" in forged_buy()
    assert tp() == before - 2


def test_c5_26a_ammunition_shortage_and_isolation_at_the_repair_tables_edge(
    users, modules, fixed_dice
):
    """Drawn #8, C5.26a "+1 If suffering from Ammunition shortage" (with "+1 If
    Isolated" and "≤2 Repaired / ≥3 Eliminated"), on the US page after the 0930 hrs TM
    Scenario: four malfunctioned MMGs, the first two marked Low Ammo, the third
    Isolated, the fourth neither.  Low Ammo dr 1 +1 = 2: Repaired (the edge); Low Ammo
    dr 2 +1 = 3: Eliminated (one past); Isolated dr 1 +1 +1 = 3: Eliminated (both +1s by
    themselves); unmarked dr 2: Repaired with no DRM.  Each DRM is the app's, never
    ticked; the German page offers no roll for them."""
    from tests.test_phdb21_pass21 import rolls
    from tests.test_rule_mechanisms import add

    players = late_conph(users, "C5.26")
    made = [
        add(players, "us", "MMG", "sw", markers=("malfunctioned", "low_ammo")),
        add(players, "us", "MMG", "sw", markers=("malfunctioned", "low_ammo")),
        add(players, "us", "MMG", "sw", markers=("malfunctioned", "isolated")),
        add(players, "us", "MMG", "sw", markers=("malfunctioned",)),
    ]
    page = seats(players)
    us, de = page["us"], page["german"]
    repair = "Roll dr: Weapon Repair Table"
    assert {v for v, _ in us.options(repair, "unit")} >= {u.ref for u in made}
    assert repair not in de.buttons(), de.buttons()
    for unit, face in zip(made, (1, 2, 1, 2), strict=True):
        fixed_dice.append([face])
        answer = us.press(repair, unit=unit.ref)
        assert answer.status == 200, answer.text[:300]
    found = [
        (r.final, r.result.split(" (")[0], sorted(d["value"] for d in r.drms))
        for r in rolls(players, "C5.26", "us")
    ]
    assert found == [
        (2, "Repaired", [1]),
        (3, "Eliminated", [1]),
        (3, "Eliminated", [1, 1]),
        (2, "Repaired", []),
    ], found
    assert all(d["how"] == "auto" for r in rolls(players, "C5.26", "us") for d in r.drms)
    left = {u.ref for u in Unit.objects.filter(campaign_id=players.campaign_id, side="us")}
    assert [u.ref in left for u in made] == [True, False, False, True]


def test_c5_22_two_heroes_one_mmc_the_crew_and_the_heroic_leader_on_both_pages(users, modules):
    """Drawn #1, C5.22 "The result is that the affected unit immediately Battle Hardens
    (A15.3). Eliminate any Heroes that cannot combine", with its "[EXC: Heroic leader]"
    and "(non-crew) MMC", on the US page after the Initial TM Scenario: the US holds
    two 1-4-9 Heroes, a 6-6-7, a 2-2-7 crew and a Heroic 8-1.  The page offers the two
    Heroes (not the Heroic 8-1) to combine and the 6-6-7 only (not the crew); the crew,
    forged, is refused citing C5.22, nothing changed; the first Hero combined with the
    6-6-7 hardens it; the 6-6-7 is then not offered to the second Hero, and forged, is
    refused citing C5.23 ("No unit may Battle Harden more than once during the ConPh";
    on main it was accepted, the second Hero spent on a unit already hardened); at Done
    the second Hero, left with no MMC, is eliminated and the Heroic 8-1 stays.  The
    German page holds no Heroes."""
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add, unit_names

    players, _ = phd_after(users, "C5.22")
    first = add(players, "us", "1-4-9 Hero", "hero")
    second = add(players, "us", "1-4-9 Hero", "hero")
    squad = add(players, "us", "6-6-7", "squad")
    crew = add(players, "us", "2-2-7 crew", "half_squad")
    leader = add(players, "us", "8-1", "leader", status="heroic")
    page = seats(players)
    us, de = page["us"], page["german"]
    assert "You hold no Heroes" in step_part(de), step_part(de)
    mark = "Mark battle hardened"
    assert [v for v, _ in us.options(mark, "give")] == [first.ref, second.ref]
    assert [v for v, _ in us.options(mark, "mark")] == [squad.ref]
    action = us.form_of(mark).action
    forged = us.press(mark, give=first.ref, mark=crew.ref)
    assert forged.refused and "C5.22" in forged.text, (forged.status, forged.text[:300])
    plain(forged.text)
    heroic = us.press(mark, give=leader.ref, mark=squad.ref)
    assert heroic.refused, (heroic.status, heroic.text[:300])
    plain(heroic.text)
    assert [n for n, *_ in unit_names(players, "us")].count("1-4-9 Hero") == 2
    assert us.press(mark, give=first.ref, mark=squad.ref).status == 200
    # C5.23 "No unit may Battle Harden more than once during the ConPh": the 6-6-7
    # hardened by the first Hero is not offered to the second, and refused when forged.
    assert mark not in us.buttons(), (us.buttons(), step_part(us))
    twice = us.client.post(action, {"give": second.ref, "mark": squad.ref}, HTTP_HX_REQUEST="true")
    said = twice.content.decode()
    assert 400 <= twice.status_code < 500 and "C5.23" in said, (twice.status_code, said[:300])
    plain(said)
    us.open()
    assert [n for n, *_ in unit_names(players, "us")].count("1-4-9 Hero") == 1
    assert ("6-6-7", "squad", "battle_hardened", 1) in unit_names(players, "us")
    for seat in (us, de):
        seat.open()
        assert seat.press("Done with C5.22").status == 200, step_part(seat)
    left = unit_names(players, "us")
    assert [n for n, *_ in left].count("1-4-9 Hero") == 0, left
    assert ("8-1", "leader", "heroic", 1) in left, left
