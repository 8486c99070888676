"""Purple Heart Draw, twelfth pass (issue 44): the Left items of passes 10-11 and
sentences of C1-C5, the TM rules and the RG chart's footnotes that no earlier pass doc
quotes, driven through the services as a player would (the wrong side, twice, skipped,
a result that should follow by itself), each test citing its rule
(docs/rules-audit/pass-12-phd12.md)."""

from __future__ import annotations

import pytest

from campaign.models import Roll, Unit
from campaign.services import purchases
from campaign.services.errors import ActionRefused
from tests.test_phd_pass9a import GREN
from tests.test_player_words import FORBIDDEN
from tests.test_rule_mechanisms import (
    fixed_dice,
    phd_with_chart,
    row_table,
    supply,
    users,
)

pytestmark = [pytest.mark.django_db, pytest.mark.rules]
__all__ = ["fixed_dice", "users"]


def plain(sentence: str) -> None:
    """What the player reads has no module or transcription words."""
    assert not FORBIDDEN.search(sentence), sentence


LEADERS = [("2-7", "8-1", "leader: 8-1"), ("8-12", "8-0", "leader: 8-0")]


def _offered(c, side, gid) -> bool:
    """Whether ``side``'s RG Purchase Record offers ``gid``'s rolls (its roll button)."""
    from campaign.models import Campaign
    from campaign.seat_views.common import record_lines, visible_purchases
    from campaign.selectors import module_of

    c = Campaign.objects.get(pk=c.pk)
    lines = record_lines(c, module_of(c), side, visible_purchases(c, side))
    return any(line.can_roll for line in lines if line.group_id == gid and line.mine)


def _leader_rg(users):
    """A PHD TM at I-C5.31, the German's I9 (marked l) bought and taken to I-C5.33,
    its Leader Table DR made while the rules text still lacks the table."""
    from tests.purchase_helpers import make_rolls

    players, c = phd_with_chart(users, [{**GREN, "footnotes": "l"}])
    german = players.users["german"]
    i9 = purchases.purchase_rg(campaign_id=c.pk, user=german, group_id="I9", cost_variant="onmap")
    i9 = make_rolls(players, "german", i9)
    (line,) = i9.details["rolls"]
    assert line["result"] == "not rolled: the printed rules leave out this table (C5.33)"
    return players, c, i9


def test_c5_33_a_leader_dr_made_before_the_table_is_supplied_is_kept(users, modules, fixed_dice):
    """C5.33 "For each requisitioned/OB given "I" or "A" type RG marked with an RG
    Footnote "l" make one secret DR on table below" (pass 11, Left): the DR of an RG
    whose rolls were made while the Leader Table was still lost is kept, not lost.
    Clicked again before the table is supplied, the player reads why (the table, supply
    it, C5.33), never "already made", and nothing is rolled; once the players supply
    the table, the same click makes that one DR (secret), its line reads the leader,
    and the RG's leader joins the retained forces; a third click is refused."""
    players, c, i9 = _leader_rg(users)
    german = players.users["german"]
    with pytest.raises(ActionRefused, match=r"Leader Table.*C5\.33.*supply it") as refused:
        purchases.roll_for_purchase(campaign_id=c.pk, user=german, purchase_id=i9.ref)
    plain(str(refused.value))
    assert "already made" not in str(refused.value)
    assert not Roll.objects.filter(campaign=c, table_id="leader_table").exists()
    assert not _offered(c, "german", "I9")
    supply(players, "tables.leader_table", row_table(LEADERS))
    assert _offered(c, "german", "I9")
    fixed_dice.append([3, 4])
    purchases.roll_for_purchase(campaign_id=c.pk, user=german, purchase_id=i9.ref)
    (r,) = Roll.objects.filter(campaign=c, table_id="leader_table")
    assert (r.final, r.result, r.secret, r.side) == (7, "8-1", True, "german")
    assert not Roll.objects.visible_to("us").filter(pk=r.pk).exists()
    i9.refresh_from_db()
    (line,) = i9.details["rolls"]
    assert line["result"] == "8-1" and line["roll"] == r.seq
    assert i9.details["leaders"] == ["8-1"]
    leader = Unit.objects.get(campaign=c, side="german", kind="leader", purchase=i9)
    assert leader.name.startswith("8-1")
    assert not _offered(c, "german", "I9")
    with pytest.raises(ActionRefused, match="already made"):
        purchases.roll_for_purchase(campaign_id=c.pk, user=german, purchase_id=i9.ref)
    assert Roll.objects.filter(campaign=c, table_id="leader_table").count() == 1


def test_c5_33_a_kept_leader_dr_is_made_by_done_once_the_table_is_supplied(
    users, modules, fixed_dice
):
    """C5.33 "make one secret DR" (a result that follows by itself): the Leader Table
    supplied after an RG's rolls were made without it, Done at the Leader Table's step
    makes the DR the RG still owes, as it makes every roll left there."""
    players, c, i9 = _leader_rg(users)
    supply(players, "tables.leader_table", row_table(LEADERS))
    fixed_dice.append([6, 6])
    players.finish_side("german")
    (r,) = Roll.objects.filter(campaign=c, table_id="leader_table")
    assert r.result == "8-0"
    i9.refresh_from_db()
    assert i9.details["leaders"] == ["8-0"]


def test_c5_13a_no_unit_may_overstack_during_redeployment(users, modules, fixed_dice):
    """C5.13a "No unit may overstack during Redeployment" (pass 10 A, Left): a stack the
    app holds is checked against a Location's stacking limit (three squads or their
    equivalent, ASL A5.1): four squads, or three squads and a HS, under one Redeployment
    DR are refused, in ASL words citing C5.13a, nothing rolled; three squads with two
    leaders (an SMC adds no HS-equivalent) redeploy together."""
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add, roll

    players, _ = phd_after(users, "C5.14")
    c = players.campaign
    squads = [add(players, "us", f"6-6-7 {x}", "squad") for x in "ABCD"]
    hs = add(players, "us", "3-3-7", "half_squad")
    leaders = [add(players, "us", q, "leader") for q in ("8-1", "7-0")]
    before = Roll.objects.filter(campaign=c).count()
    for extra in (squads[3], hs):
        with pytest.raises(ActionRefused, match=r"No unit may overstack.*C5\.13a") as refused:
            roll(
                players,
                "us",
                "redeployment",
                squads[0],
                stack=[u.ref for u in (*squads[1:3], extra)],
            )
        plain(str(refused.value))
    assert Roll.objects.filter(campaign=c).count() == before
    fixed_dice.extend([[3, 3], [1], [2], [3], [4], [5]])
    r = roll(
        players, "us", "redeployment", squads[0], stack=[u.ref for u in (*squads[1:3], *leaders)]
    )
    assert len(r.stack.split()) == 4


def test_c5_26a_a_weapon_possessed_by_an_isolated_unit_is_isolated(users, modules, fixed_dice):
    """C5.26a Weapon Repair Table "+1 If suffering from Ammunition shortage", "+1 If
    Isolated" for "each malfunctioned, non-captured Retained weapon that is possessed by
    a unit": a weapon is in its possessor's Location (C2.0 "Isolated Location"), so the
    malfunctioned LMG of a squad marked Isolated has both +1s by themselves, although
    only the squad's line carries the marker; the LMG of a squad not Isolated has none."""
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add, roll

    players, _ = phd_after(users, "C5.26")
    cut_off = add(players, "us", "6-6-7 A", "squad", markers=("isolated",))
    free = add(players, "us", "6-6-7 B", "squad")
    lmg_a = add(players, "us", "BAR A", "sw", "malfunctioned", possessor=cut_off.ref)
    lmg_b = add(players, "us", "BAR B", "sw", "malfunctioned", possessor=free.ref)
    fixed_dice.extend([[1], [1]])
    isolated = roll(players, "us", "weapon_repair", lmg_a)
    assert sorted(d["label"][:14] for d in isolated.drms) == ["+1 If Isolated", "+1 If sufferin"]
    assert isolated.final == 3 and isolated.result == "Eliminated"
    assert roll(players, "us", "weapon_repair", lmg_b).drms == []


def test_c5_27c_special_ammunition_not_for_a_weapon_of_an_isolated_unit(
    users, modules, fixed_dice, client
):
    """C5.27c "Each non-captured, non-isolated weapon has all of its Depleted ammunition
    type(s) if any replenished ... on a dr <4": a Gun whose crew is marked Isolated is in
    an Isolated Location, so it has no dr (refused, C5.27c, nothing rolled); the Gun of a
    crew not Isolated has its dr."""
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add, roll

    players, _ = phd_after(users, "C5.27")
    c = players.campaign
    cut_off = add(players, "german", "2-2-8 crew A", "half_squad", markers=("isolated",))
    free = add(players, "german", "2-2-8 crew B", "half_squad")
    gun_a = add(players, "german", "7.5cm PaK 40 A", "gun", possessor=cut_off.ref)
    gun_b = add(players, "german", "7.5cm PaK 40 B", "gun", possessor=free.ref)
    with pytest.raises(ActionRefused) as refused:
        roll(players, "german", "special_ammunition", gun_a)
    plain(str(refused.value))
    assert not Roll.objects.filter(campaign=c, table_id="special_ammunition").exists()
    options = _roll_choices(client, players, "german", "special_ammunition")
    assert any("PaK 40 B" in o for o in options), options
    assert not any("PaK 40 A" in o for o in options), options
    fixed_dice.append([2])
    assert roll(players, "german", "special_ammunition", gun_b).final == 2


def _roll_choices(client, players, side, table_id) -> list[str]:
    """The units the roll form of ``table_id`` offers ``side`` on the step's page."""
    import re

    client.force_login(players.users[side])
    page = client.get(f"/campaigns/{players.campaign_id}/").content.decode()
    form = page[page.index(f'value="{table_id}"') :]
    form = form[: form.index("</form>")]
    return re.findall(r"<option[^>]*>([^<]*)</option>", form)


def test_c5_25_a_san_above_4_is_lowered_to_4_and_c5_41_announces_it(users, modules):
    """C5.25 "Any side with a SAN that is > 4 has it reduced to "4" prior to making any
    requisitions (C5.31)"; "a SAN of < 2 has its SAN adjusted to "2"": a German SAN of 6
    and a US SAN of 1 at the end of the TM Scenario are 4 and 2 before C5.31, each
    change in the log with C5.25; C5.41 "Each side announces its current SAN": both
    read the adjusted SANs."""
    from campaign.models import Event, Seat
    from tests.test_phd_conph import phd_after

    players, _ = phd_after(users, "C5.31", san_german=6, san_us=1)
    c = players.campaign
    assert dict(Seat.objects.filter(campaign=c).values_list("side", "san")) == {
        "german": 4,
        "us": 2,
    }
    said = list(Event.objects.filter(campaign=c, kind="san").values_list("text", flat=True))
    assert "German SAN 6 is lowered to 4 (C5.25)." in said
    assert "American SAN 1 is raised to 2 (C5.25)." in said
    players.until("initiative")
    players.chits(german="idle", us="attack")
    players.until("results")  # C5.41 commences the TM Scenario, then C5.1
    said = list(Event.objects.filter(campaign=c, kind="san").values_list("text", flat=True))
    assert any("German 4" in t and "American 2" in t for t in said), said


def test_c2_0_a_side_that_requisitions_no_attack_option_is_idle(users, modules):
    """C2.0 "A side is assumed to be idle if they did not requisition an attack option
    during the ConPh": at C5.37 the US picks Attack and the German presses Done without
    picking a chit.  Before: "That is not part of the current step (C5.37 Initiative
    Determination)."; now his Done locks Idle for him (his log line says so, citing
    C2.0), and the chits revealed give US Attack (C5.37)."""
    from campaign.models import Event, InitiativeChit
    from campaign.services import initiative, steps
    from tests.test_phd_conph import phd_after

    players, _ = phd_after(users, "C5.37")
    c = players.campaign
    initiative.lock_initiative(campaign_id=c.pk, user=players.users["us"], chit="attack")
    steps.finish_step(campaign_id=c.pk, user=players.users["german"])
    chits = dict(
        InitiativeChit.objects.filter(campaign=c, cycle=c.cycle).values_list("side", "chit")
    )
    assert chits == {"german": "idle", "us": "attack"}
    mine = Event.objects.visible_to("german").filter(campaign=c, kind="chit", side="german")
    assert any(
        e.text == "German locked its initiative chit: Idle, having picked none (C2.0)."
        for e in mine
    ), [e.text for e in mine]
    assert "US Attack" in " ".join(
        Event.objects.visible_to("us").filter(campaign=c).values_list("text", flat=True)
    )


def _done(players, side):
    from campaign.services import steps

    steps.finish_step(campaign_id=players.campaign_id, user=players.users[side])


def test_c5_19_a_dr_for_each_wounded_leader_while_the_table_is_partly_lost(
    users, modules, fixed_dice
):
    """C5.19 "For each Wounded Leader a dr is made on the following table": the Leader
    Evacuation Table's rows 3-5 are lost, so no dr can be made until the players supply
    them.  Before: with a wounded leader retained, Done passed without a word and his dr
    was never made.  Now Done says the table must be supplied first (C5.19) or the step
    left knowingly without it; a side with no wounded leader is not stopped.  Once the
    table is supplied, Done is refused until the wounded leader's dr is made ("Roll
    first", C5.19); a leader not wounded has no dr (refused, nothing rolled); his dr of 1
    gives "Retained Unwounded", and Done then passes."""
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add, roll, supply_leader_evacuation

    players, _ = phd_after(users, "C5.19")
    c = players.campaign
    hurt = add(players, "german", "8-1 leader", "leader", "wounded")
    well = add(players, "german", "9-1 leader", "leader")
    with pytest.raises(
        ActionRefused, match=r"Leader Evacuation Table \(C5\.19\).*Supply"
    ) as refused:
        _done(players, "german")
    plain(str(refused.value))
    _done(players, "us")  # no wounded leader: nothing owed
    supply_leader_evacuation(players, "Retained Wounded", "none")
    with pytest.raises(ActionRefused, match=r"Roll first.*C5\.19") as refused:
        _done(players, "german")
    plain(str(refused.value))
    with pytest.raises(ActionRefused) as refused:
        roll(players, "german", "leader_evacuation", well)
    plain(str(refused.value))
    assert not Roll.objects.filter(campaign=c, table_id="leader_evacuation").exists()
    fixed_dice.append([1])
    assert roll(players, "german", "leader_evacuation", hurt).result == "Retained Unwounded"
    _done(players, "german")


def test_c5_23_a_secret_dr_each_side_must_make_and_c5_24_one_it_may(users, modules, fixed_dice):
    """C5.23 "Each side makes a secret DR on the table below to determine the number of
    MMC that may be Battle-Hardened": Done at C5.23 is refused until the DR is made, the
    DR is secret (the opponent sees no roll of it), a second DR is refused.  C5.24 "Each
    side has the option to make a secret DR to Battle Harden one Retained Non-Wounded
    Infantry Leader": Done at C5.24 without it passes."""
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add, roll

    players, _ = phd_after(users, "C5.23")
    c = players.campaign
    add(players, "us", "6-6-7", "squad")
    add(players, "us", "8-1 leader", "leader")
    with pytest.raises(ActionRefused, match=r"Roll first.*C5\.23") as refused:
        _done(players, "us")
    plain(str(refused.value))
    fixed_dice.append([3, 3])
    r = roll(players, "us", "battlefield_promotion")
    assert r.secret and r.result == "1 MMC may Battle Harden"
    assert not Roll.objects.visible_to("german").filter(pk=r.pk).exists()
    with pytest.raises(ActionRefused) as refused:
        roll(players, "us", "battlefield_promotion")
    plain(str(refused.value))
    assert Roll.objects.filter(campaign=c, table_id="battlefield_promotion").count() == 1
    _done(players, "us")
    players.finish_side("german")
    assert players.step.id == "C5.24"
    _done(players, "us")
    assert not Roll.objects.filter(campaign=c, table_id="leader_promotion").exists()


def test_c5_27a_each_non_abandoned_immobilized_vehicle_must_make_a_dr(users, modules, fixed_dice):
    """C5.27a "Each non-captured, non-abandoned, immobilized vehicle must make a dr on the
    following table": Done is refused while the US's immobilized Sherman has not rolled;
    an immobilized vehicle also Abandoned has no dr (refused, nothing rolled); a dr of 2
    makes the Sherman mobile (its Immobilized marker goes) and Done passes."""
    from tests.purchase_helpers import add_vehicle
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import roll

    players, _ = phd_after(users, "C5.27")
    c = players.campaign
    sherman, _ = add_vehicle(players, "us", "M4A1 Sherman", status="immobilized")
    left, _ = add_vehicle(
        players, "us", "M4A3 Sherman", status="immobilized", markers=("abandoned",)
    )
    with pytest.raises(ActionRefused, match=r"Roll first.*C5\.27a") as refused:
        _done(players, "us")
    plain(str(refused.value))
    with pytest.raises(ActionRefused) as refused:
        roll(players, "us", "immobilization_repair", left)
    plain(str(refused.value))
    assert not Roll.objects.filter(campaign=c, table_id="immobilization_repair").exists()
    fixed_dice.append([2])
    assert roll(players, "us", "immobilization_repair", sherman).result == "Becomes Mobile"
    sherman.refresh_from_db()
    assert "immobilized" not in (sherman.markers or [])
    _done(players, "us")


MAP_WORDS = {
    "C5.3": [
        "never into a hex that needs a Bog Check or can only be entered using Bypass",
        "marked with a CC counter if enemy units are there",
    ],
    "C5.6": ["still hidden fortifications need not be revealed now"],
    "C5.8": ["each unit in a location rolled for individually"],
    "C5.9": [
        "if the crew breaks, it is unloaded in Good Order into the minefield's Location",
        "never into a hex that needs a Bog Check, a change of VCA or Bypass",
        "a vehicle immobilized by that attack stays in the original hex",
        "a unit able to leave without a mine attack and without entering a minefield or "
        "enemy-Controlled Location takes none",
    ],
    "C5.13": [
        "the nearest hex is counted in hexes, not MF/MP",
        "a Stun counter comes off after redeploying only if the unit is not Isolated",
    ],
}


def test_c5_3_to_c5_13_the_map_steps_say_their_exc_clauses_where_the_player_acts(
    users, modules, client
):
    """The app keeps no Motion, Climb, Melee, minefield or Stun state (map play), so each
    of these steps' pages must say the sentence's condition to the player doing it on the
    map.  C5.3a "[EXC: Vehicles may not be moved if the new hex necessitates a Bog Check
    or can only be entered using Bypass ...]"; C5.3b "If the hex ... contains enemy
    units, it is marked with a CC counter"; C5.6 "Still hidden fortifications need not be
    revealed at this time"; C5.8 "Each unit in a location/hex is rolled for
    individually"; C5.9 "[EXC: if the crew breaks, it is unloaded in Good Order into the
    minefield's Location]", "[EXC: ... requires a change of VCA ...]", "Vehicles
    immobilized by the minefield's attack while exiting, remain in the original hex",
    "[EXC to both: A unit hypothetically able to exit the minefield hex without being
    attacked ... need not take the NTC]"; C5.13 "The number of hexes, not MF/MP, always
    determines the "nearest" hex", C5.13a "Units marked with a Stun counter may remove it
    after redeploying only if they are not Isolated".  None of these was said before."""
    import html

    from tests.test_phd_conph import phd_after

    players, _ = phd_after(users, "C5.3")
    for step, words in MAP_WORDS.items():
        players.until_step(step)
        client.force_login(players.users["us"])
        page = html.unescape(client.get(f"/campaigns/{players.campaign_id}/").content.decode())
        for w in words:
            assert w in page, (step, w)


def test_c5_38_neither_side_wins_or_loses_a_tm_scenario(users, modules, client):
    """C5.38 "In PHD, individual TM Scenarios do not have Victory Conditions ...
    neither side "wins" or "loses" a TM Scenario, only the TM itself": once the Initial
    TM Scenario's result is confirmed, no log line names a winner of it, the campaign
    goes on to its ConPh (not ended), and the C5.38 step's page says so to both."""
    import html

    from campaign.models import Event
    from tests.test_phd_conph import phd_after

    players, _ = phd_after(users, "C5.37")
    players.chits(german="idle", us="attack")
    players.until_step("C5.38")
    c = players.campaign
    assert c.ended_at is None
    said = " ".join(Event.objects.filter(campaign=c).values_list("text", flat=True))
    assert " wins" not in said and " loses" not in said
    for side in ("us", "german"):
        client.force_login(players.users[side])
        page = html.unescape(client.get(f"/campaigns/{c.pk}/").content.decode())
        assert "only the TM as a whole is won or lost" in page
