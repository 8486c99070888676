"""Purple Heart Draw, tenth pass, part A (issue 44): C1-C5.25 and the TM rules, driven
through the services as a player would, each test citing its rule
(``docs/rules-audit/pass-10-phd-a.md``)."""

from __future__ import annotations

import pytest

from campaign.models import Roll, Unit
from campaign.services.errors import ActionRefused
from rules.effects import hs_equivalents
from tests import test_rule_mechanisms as mechanisms
from tests.test_phd_conph import phd_after
from tests.test_rule_mechanisms import add, roll, unit_names

users = mechanisms.users
fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


def drms_of(r: Roll) -> list[tuple[str, int, str]]:
    return sorted((d["id"] if "id" in d else d["label"][:12], d["value"], d["how"]) for d in r.drms)


def stack_roll(players, side, first: Unit, *others: Unit, **kw) -> Roll:
    return roll(players, side, "redeployment", first, stack=[u.ref for u in others], **kw)


def test_c5_14_hs_equivalents_beyond_one_squad():
    """C5.14 "+1 per HS equivalent > one squad using the same Redeployment DR": a squad
    is two HS equivalents, a HS (or crew) one, an SMC or a vehicle none (the DRM counts
    those beyond the first two: ``offset: -2``)."""
    assert hs_equivalents(["squad"]) == 2
    assert hs_equivalents(["squad", "half_squad"]) == 3
    assert hs_equivalents(["squad", "squad", "half_squad", "leader"]) == 5
    assert hs_equivalents(["half_squad", "leader"]) == 1
    assert hs_equivalents(["vehicle", "vehicle"]) == 0


def test_c5_13_a_stack_redeploys_under_one_dr_result_by_random_selection(
    users, modules, fixed_dice
):
    """C5.13 "Units in the same location may during Redeployment: Redeploy as a stack";
    C5.14 "+1 per HS equivalent > one squad using the same Redeployment DR"; note 3 "Use
    random selection for a stack of units"; C5.13a "No unit may redeploy more than once
    per ConPh".  The US stacks two squads, a HS and a leader: the app's dice make the
    Random selection (a dr each: the squad B and the HS tie at 5 and roll again, the HS
    is selected), the DR has +3 by itself (5 HS equivalents less one squad's 2) and the
    8-1's -1 (C5.13a "leadership benefits ... apply to any unit that redeploy
    together"), its result falls on the HS alone, and the DR is each member's
    one Redeployment: a squad of the stack is refused its own DR, a unit not in it
    still makes one."""
    players, _ = phd_after(users, "C5.14")
    a = add(players, "us", "6-6-7 A", "squad", markers=("isolated",))
    b = add(players, "us", "6-6-7 B", "squad")
    hs = add(players, "us", "3-3-7", "half_squad")
    leader = add(players, "us", "8-1", "leader")
    alone = add(players, "us", "7-4-7", "squad")
    fixed_dice.extend([[2, 2], [2], [5], [5], [1], [3], [6]])
    r = stack_roll(players, "us", a, b, hs, leader)
    assert (r.unit_ref, sorted(r.stack.split())) == (a.ref, sorted([b.ref, hs.ref, leader.ref]))
    labels = sorted((d["label"][:12], d["value"], d["how"]) for d in r.drms)
    # the stack is in one location: the Isolated marker of one of its units counts
    assert labels == [
        ("+/- Leadersh", -1, "auto"),
        ("+1 Unit is I", 1, "auto"),
        ("+1 per HS eq", 3, "auto"),
    ]
    assert (r.final, r.result) == (7, "Infantry: Redeploys")
    selection = Roll.objects.filter(
        campaign_id=players.campaign_id, purpose__startswith="Random Selection"
    )
    assert [x.final for x in selection] == [2, 5, 5, 1, 3, 6]
    assert r.item == "6-6-7 A with 6-6-7 B, 3-3-7, 8-1"
    with pytest.raises(ActionRefused, match=r"6-6-7 B has made its one Redeployment Table roll"):
        roll(players, "us", "redeployment", b)
    with pytest.raises(ActionRefused, match=r"8-1 has made its one Redeployment Table roll"):
        stack_roll(players, "us", alone, leader)
    fixed_dice.append([5, 6])
    assert roll(players, "us", "redeployment", alone).final == 11
    assert ("7-4-7", "squad", "reduced", 1) in unit_names(players, "us")


def test_c5_13_the_result_of_a_stack_falls_on_the_selected_unit_only(users, modules, fixed_dice):
    """C5.14 note 3: the result of the stack's DR falls on the unit Random selection
    picks: a DR of 12 +1 (a squad and a HS: one HS equivalent beyond one squad) = 13
    "Remains in hex, Reduced" marks the squad picked Casualty Reduced, and the HS is
    unchanged.  Typing the HS DRM is refused: the app counts it."""
    players, _ = phd_after(users, "C5.14")
    sq = add(players, "us", "6-6-7", "squad")
    hs = add(players, "us", "3-3-7", "half_squad")
    with pytest.raises(ActionRefused):
        stack_roll(players, "us", sq, hs, typed={"extra_hs": 1})
    fixed_dice.extend([[6, 6], [6], [1]])
    r = stack_roll(players, "us", sq, hs)
    assert (r.unit_ref, r.final, r.result) == (sq.ref, 13, "Infantry: Remains in hex, Reduced")
    assert unit_names(players, "us") == [
        ("3-3-7", "half_squad", "ok", 1),
        ("6-6-7", "squad", "reduced", 1),
    ]


def test_c5_13_afvs_redeploy_as_a_platoon_with_random_selection(users, modules, fixed_dice):
    """C5.13 "AFVs may redeploy as a Platoon with Random selection for results": two
    Shermans make one DR on the Mobile Vehicle column, no HS DRM; DR 12 "Eliminated, CS
    NA" eliminates the one selected, the other stays and has had its Redeployment.  An
    AFV and a squad do not make one DR (two columns); a unit named twice is refused; a
    stack's refusal changes nothing (no dice rolled)."""
    players, _ = phd_after(users, "C5.14")
    m4a = add(players, "us", "M4A1 Sherman A", "vehicle")
    m4b = add(players, "us", "M4A1 Sherman B", "vehicle")
    sq = add(players, "us", "6-6-7", "squad")
    with pytest.raises(ActionRefused, match=r"Infantry and Mobile Vehicle units do not make it"):
        stack_roll(players, "us", m4a, sq)
    with pytest.raises(ActionRefused, match="named twice"):
        stack_roll(players, "us", m4a, m4a)
    assert not Roll.objects.filter(campaign_id=players.campaign_id).exists()
    fixed_dice.extend([[6, 6], [2], [4]])
    r = stack_roll(players, "us", m4a, m4b)
    assert (r.unit_ref, r.stack, r.result) == (
        m4a.ref,
        f" {m4b.ref} ",
        "Mobile Vehicle: Eliminated, CS NA",
    )
    assert [d["value"] for d in r.drms] == []
    assert unit_names(players, "us") == [
        ("6-6-7", "squad", "ok", 1),
        ("M4A1 Sherman A", "vehicle", "ok", 1),
    ]
    with pytest.raises(ActionRefused, match="has made its one Redeployment Table roll"):
        roll(players, "us", "redeployment", Unit.objects.get(pk=m4a.pk))


def test_c5_13a_an_armour_leader_rides_with_his_platoon_and_his_leadership_applies(
    users, modules, fixed_dice
):
    """C5.13a "leadership benefits (including Armour Leaders) apply to any unit that
    redeploy together"; C5.13 "AFVs may redeploy as a Platoon with Random selection for
    results".  A 9-2 Armour Leader with two Shermans: the DR has his -2 by itself, the
    Random selection is among the AFVs only (he rides in one), and he has had his
    Redeployment.  A leader whose line names no quality is refused, with the reason,
    rather than counted as 0.  A unit redeploying alone has no leadership DRM, and none
    may be typed."""
    players, _ = phd_after(users, "C5.14")
    m4a = add(players, "us", "M4A1 Sherman A", "vehicle")
    m4b = add(players, "us", "M4A1 Sherman B", "vehicle")
    armour = add(players, "us", "9-2 (V1)", "leader")
    nameless = add(players, "us", "Lt. Dawson", "leader")
    alone = add(players, "us", "6-6-7", "squad")
    with pytest.raises(ActionRefused, match=r"Lt. Dawson's line names no quality"):
        stack_roll(players, "us", alone, nameless)
    assert not Roll.objects.filter(campaign_id=players.campaign_id).exists()
    fixed_dice.extend([[4, 5], [1], [3]])
    r = stack_roll(players, "us", m4a, m4b, armour)
    assert (r.unit_ref, r.final, r.result) == (m4a.ref, 7, "Mobile Vehicle: Redeploys")
    assert [(d["value"], d["how"]) for d in r.drms] == [(-2, "auto")]
    with pytest.raises(ActionRefused, match="has made its one Redeployment Table roll"):
        roll(players, "us", "redeployment", armour)
    with pytest.raises(ActionRefused):
        roll(players, "us", "redeployment", alone, typed={"leadership": -1})
    fixed_dice.append([3, 3])
    assert roll(players, "us", "redeployment", alone).drms == []


def test_c5_13_only_a_table_rolled_once_per_unit_takes_stacks():
    """A stack's DR is every member's one Redeployment (C5.13a): ``stack`` is refused on
    a table not rolled once per unit."""
    from pydantic import ValidationError

    from rules.loader import MODULE_DIR, load_file

    module = load_file(MODULE_DIR / "purple-heart-draw.yaml")
    table = module.table("redeployment")
    assert table.stack is not None and table.stack.rule == "C5.13; C5.14 note 3"
    data = table.model_dump(exclude_defaults=True)
    with pytest.raises(ValidationError, match="'stack' is for a table rolled once for each unit"):
        type(table).model_validate({**data, "once": "side"})


# --------------------------------------------------------------------------- C1.2/C5.1


def test_c1_2_c5_1_a_redeployment_elimination_joins_the_cvp_lost_once_the_cvp_are_supplied(
    users, modules, fixed_dice
):
    """C1.2 "Casualties suffered ... during the subsequent ConPh must be placed aside
    since their CVP total is used to determine a DRM"; C5.1 "All ConPh losses count for
    the previous scenario for all purposes".  The CVP of a unit is ASL's (A26.2), not in
    the rules text: declared missing, per unit kind.  Before the players supply it, a
    squad the Redeployment DR eliminates is not counted, and the log says so (never a
    silent zero).  Once the US proposes 2 CVP a squad and the German accepts, the next
    squad eliminated adds its 2 CVP to the US's CVP lost in the scenario just played
    (5 → 7), on a log line both sides read; a vehicle, whose CVP are not supplied, is
    not counted either."""
    from campaign.models import Event, ScenarioResult
    from campaign.services import supplements

    players, module = phd_after(users, "C5.14", cvp_lost_us=5, cvp_lost_german=3)
    paths = [m.supply for m in module.missing if (m.supply or "").startswith("cvp_per_kind.")]
    assert paths == [
        f"cvp_per_kind.{k}" for k in ("squad", "half_squad", "leader", "hero", "vehicle")
    ]
    first = add(players, "us", "6-6-7 A", "squad")
    second = add(players, "us", "6-6-7 B", "squad")
    tank = add(players, "us", "M4A1 Sherman", "vehicle")
    fixed_dice.extend([[6, 6], [6, 6], [6, 6]])
    r = roll(players, "us", "redeployment", first, ticked=["enemy_feba"])
    assert r.result == "Infantry: Eliminated"

    def lost() -> dict:
        return ScenarioResult.objects.get(campaign_id=players.campaign_id).data["cvp_lost"]

    assert lost() == {"us": 5, "german": 3}
    line = Event.objects.filter(campaign_id=players.campaign_id, kind="roll").last()
    assert "CVP are not counted" in line.text and "(C5.1)" in line.text
    proposal = supplements.propose_supplement(
        campaign_id=players.campaign_id,
        user=players.users["us"],
        path="cvp_per_kind.squad",
        form={"value": "2"},
    )
    supplements.accept_supplement(
        campaign_id=players.campaign_id, user=players.users["german"], ref=proposal.ref
    )
    r = roll(players, "us", "redeployment", second, ticked=["enemy_feba"])
    assert r.result == "Infantry: Eliminated"
    assert lost() == {"us": 7, "german": 3}
    line = Event.objects.filter(campaign_id=players.campaign_id, kind="roll").last()
    assert line.secret_side == "" and "CVP lost 5 → 7 (C5.1)" in line.text
    r = roll(players, "us", "redeployment", tank)
    assert r.result == "Mobile Vehicle: Eliminated, CS NA" and lost()["us"] == 7


def test_c5_14_note_1_and_c5_15_a_stacks_original_2_and_the_sw_of_a_unit_it_eliminates(
    users, modules, fixed_dice
):
    """C5.14 note 1 "Original 2 DR always results in Redeployment and HoB", whatever the
    stack's DRMs (+2 HS equivalents): the unit selected redeploys.  C5.15 "any SW/Guns
    that are not possessed following all Redeployment is complete are eliminated": the
    MMG of a squad the Redeployment DR eliminates is left unpossessed, and leaves the
    retained forces when C5.15 is done (a result that follows by itself)."""
    from tests.test_roster_possession import possess

    players, _ = phd_after(users, "C5.14")
    a = add(players, "us", "6-6-7 A", "squad")
    b = add(players, "us", "6-6-7 B", "squad")
    lone = add(players, "us", "7-4-7", "squad")
    mmg = add(players, "us", ".30 cal MMG", "sw")
    possess(players, "us", mmg, lone)
    fixed_dice.extend([[1, 1]])
    r = stack_roll(players, "us", a, b)
    assert (r.unit_ref, r.final, r.result) == (
        a.ref,
        4,
        "Infantry: Redeploys and Heat of Battle [1]",
    )
    fixed_dice.append([6, 6])
    r = roll(players, "us", "redeployment", lone, ticked=["enemy_feba"])
    assert r.result == "Infantry: Eliminated"
    assert (".30 cal MMG", "sw", "unpossessed", 1) in unit_names(players, "us")
    players.until_step("C5.16")
    assert [n for n, *_ in unit_names(players, "us")] == ["6-6-7 A", "6-6-7 B"]
