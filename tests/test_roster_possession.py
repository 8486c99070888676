"""Issue 45: a SW and who possesses it.  A SW (or Gun) line of the retained forces
records the line that possesses it, or "not possessed" (its marker), one state: the
rules that move or drop possession act on it (APD 3.1 footnote *, 3.2; Sicily 3.6041;
PHD C5.1 then C5.15), and the tables that need a possessed weapon read it (APD 3.31,
PHD C5.26a)."""

from __future__ import annotations

import pytest

from campaign.models import Event, Purchase, Unit
from campaign.services import steps, units
from campaign.services.errors import ActionRefused
from tests import test_rule_mechanisms as mechanisms
from tests.test_rule_mechanisms import (
    add,
    apd_at,
    buy,
    campaign_at,
    edit,
    exchange,
    result_values,
    rg_roll,
    roll,
    start,
)

fixed_dice = mechanisms.fixed_dice
users = mechanisms.users

# The rules' tests run once, on PostgreSQL + Redis; the backup on both backends.
pytestmark = [pytest.mark.django_db]


def possess(players, side, sw, possessor, **kw) -> Unit:
    """``side`` names who possesses ``sw`` (None: none named) on its retained forces."""
    status = kw.pop("status", None)
    return edit(players, side, sw, status, possessor=possessor.ref if possessor else "", **kw)


def held(unit: Unit) -> tuple[str | None, list[str]]:
    """Who possesses ``unit`` now (its possessor's name) and its markers."""
    unit = Unit.objects.select_related("possessor").get(pk=unit.pk)
    return (unit.possessor.name if unit.possessor else None), unit.markers


def last_unit_line() -> str:
    return Event.objects.filter(kind="unit").order_by("-id").first().text


@pytest.mark.rules
def test_3_2_a_sw_possessed_by_an_eliminated_hero_goes_to_the_battle_hardened_mmc(users, modules):
    """APD 3.2: "Any SW Possessed by an eliminated Hero is considered Transferred to the
    Battle Hardened MMC": the Hero's BAR is possessed by the 7-4-7 Battle Hardened for
    him; the other squad's LMG stays its own.  A Hero eliminated at Done with no MMC
    marked for him leaves his SW unpossessed; one kept by the EXC ("remains onboard
    unwounded") keeps his."""
    players, _ = apd_at(users, "3.2")
    hero = add(players, "american", "1-4-9 Hero", "hero", "wounded")
    squad = add(players, "american", "7-4-7", "squad")
    other = add(players, "american", "6-6-6", "squad")
    bar = possess(players, "american", add(players, "american", "BAR", "sw"), hero)
    lmg = possess(players, "american", add(players, "american", "LMG", "sw"), other)
    assert held(bar) == ("1-4-9 Hero", [])
    exchange(players, "american", hero, squad)
    assert held(bar) == ("7-4-7", []) and held(lmg) == ("6-6-6", [])
    assert "BAR Transferred to 7-4-7" in last_unit_line()

    # A second Hero, eliminated at Done with an MMC he could have hardened: his SW stays
    # on the map, unpossessed.  The German's, with no MMC, stays and keeps his.
    hero2 = add(players, "american", "1-4-9 Hero", "hero")
    mmg = possess(players, "american", add(players, "american", "MMG", "sw"), hero2)
    g_hero = add(players, "german", "1-4-9 Hero", "hero", "wounded")
    add(players, "german", "PzIVH", "vehicle")
    psk = possess(players, "german", add(players, "german", "PSK", "sw"), g_hero)
    steps.finish_step(campaign_id=players.campaign_id, user=players.users["american"])
    assert held(mmg) == (None, ["unpossessed"])
    assert Event.objects.filter(text__contains="MMG left unpossessed").exists()
    steps.finish_step(campaign_id=players.campaign_id, user=players.users["german"])
    assert held(psk) == ("1-4-9 Hero", [])


@pytest.mark.rules
def test_3_1_footnote_the_sw_of_an_evacuated_leader_is_transferred_not_left(
    users, modules, fixed_dice
):
    """APD 3.1 footnote *: "Any SW Possessed by an Evacuated leader is considered
    Transferred to the MMC as well" — the MMC the owner places the 7-0 with (hex
    distances are his): the leader's LMG is not left unpossessed, so it may still
    attempt its Repair at 3.3 (3.31: "SW must be Possessed"), and the log asks the
    owner to name its possessor (he holds two MMC: which is nearest is the map's; with
    one, the app transfers it there, tests/test_apd_pass10.py)."""
    players, _ = apd_at(users, "3.1")
    leader = add(players, "american", "8-1 leader", "leader", "wounded", location="12K5")
    squad = add(players, "american", "7-4-7", "squad", location="12L6")
    add(players, "american", "3-4-7", "half_squad", location="12J2")
    lmg = add(players, "american", "LMG", "sw", "malfunctioned")
    possess(players, "american", lmg, leader)
    fixed_dice.append([6])
    said = roll(players, "american", "recovery", leader)
    assert held(lmg) == (None, ["malfunctioned"])
    text = Event.objects.filter(kind="roll").order_by("-id").first().text
    assert "LMG Transferred with it: name its possessor in your retained forces" in text, (
        text,
        said,
    )
    possess(players, "american", lmg, squad)  # pass 16: Done at 3.1 waits for it
    players.until_step("3.3")
    fixed_dice.append([1])
    assert roll(players, "american", "repair_sw", lmg).result == "Repaired"


@pytest.mark.rules
def test_3_6041_a_removed_units_sw_is_left_unpossessed_and_rolls_no_repair(
    users, modules, fixed_dice
):
    """Sicily 3.6041: "any Equipment that an Eliminated Encircled unit possessed is left
    in the Location unpossessed": a squad taken off the retained forces leaves its LMG
    marked not possessed (its line says so), and APD 3.31's "SW must be Possessed to
    attempt Repair" then refuses its Repair until a unit possesses it again — naming a
    possessor takes the marker off (one state)."""
    players, _ = apd_at(users, "3.3")
    squad = add(players, "american", "7-4-7", "squad")
    lmg = possess(
        players, "american", add(players, "american", "LMG", "sw", "malfunctioned"), squad
    )
    units.remove_unit(
        campaign_id=players.campaign_id, user=players.users["american"], unit_id=squad.ref
    )
    assert held(lmg) == (None, ["malfunctioned", "unpossessed"])
    assert "removes 7-4-7 from its retained forces; LMG left unpossessed" in last_unit_line()
    with pytest.raises(ActionRefused, match="unpossessed"):
        roll(players, "american", "repair_sw", lmg)
    hs = add(players, "american", "3-4-7", "half_squad")
    lmg.refresh_from_db()
    possess(players, "american", lmg, hs)
    assert held(lmg) == ("3-4-7", ["malfunctioned"])
    fixed_dice.append([1])
    assert roll(players, "american", "repair_sw", lmg).result == "Repaired"


@pytest.mark.rules
def test_c5_1_c5_15_a_recalled_squads_sw_is_left_unpossessed_and_then_eliminated(users, modules):
    """PHD C5.1: recalled units are eliminated; the MMG their squad possessed is left
    unpossessed, and C5.15 "every SW/Gun still unpossessed after Redeployment is
    eliminated" removes it; the BAR of a squad that stays is kept."""
    players, module = start("purple-heart-draw", "tm", users, "us")
    gone = add(players, "us", "6-6-6", "squad", "recalled")
    kept = add(players, "us", "6-6-7", "squad")
    mmg = possess(players, "us", add(players, "us", "MMG", "sw"), gone)
    bar = possess(players, "us", add(players, "us", "BAR", "sw"), kept)
    players.results(**result_values(module))
    players.until_step("C5.26")
    assert not Unit.objects.filter(pk__in=[gone.pk, mmg.pk]).exists()
    assert held(bar) == ("6-6-7", [])
    texts = list(Event.objects.filter(kind="unit").values_list("text", flat=True))
    assert any("6-6-6 leaves the retained forces; MMG left unpossessed (C5.1)" in t for t in texts)
    assert any("MMG leaves the retained forces (C5.15)" in t for t in texts)


@pytest.mark.rules
def test_3_31_possession_is_one_state_and_refused_in_words(users, modules):
    """APD 3.31 ("Guns/SW must be Possessed"): a SW or Gun is possessed by a unit, not
    possessed, or its possessor is not named — never two at once.  Refused in words,
    nothing changed: a possessor that is no Infantry, a SW possessing, a squad
    possessed, a SW possessed and ticked "not possessed" together, another side's unit."""
    players, _ = apd_at(users, "3.3")
    squad = add(players, "american", "7-4-7", "squad")
    tank = add(players, "american", "M4A3(75)W", "vehicle")
    mmg = add(players, "american", "MMG", "sw", markers=["unpossessed"])
    gun = add(players, "american", "57L AT", "gun")
    german = add(players, "german", "4-6-7", "squad")
    for possessor, words in (
        (tank, "M4A3\\(75\\)W cannot possess MMG: a squad, half-squad / crew, leader or Hero"),
        (gun, "57L AT cannot possess MMG"),
        (german, "You have no such unit"),
    ):
        with pytest.raises(ActionRefused, match=words):
            possess(players, "american", mmg, possessor, markers=[])
    with pytest.raises(ActionRefused, match="7-4-7 is not a SW or Gun"):
        possess(players, "american", squad, squad)
    with pytest.raises(ActionRefused, match="possessed by 7-4-7 and not possessed at once"):
        possess(players, "american", mmg, squad, markers=["unpossessed"])
    assert held(mmg) == (None, ["unpossessed"])
    possess(players, "american", gun, squad)
    possess(players, "american", mmg, squad, markers=[])
    assert held(mmg) == ("7-4-7", [])
    assert "marks MMG in good order, possessed by 7-4-7" in last_unit_line()
    with pytest.raises(ActionRefused, match="7-4-7 possesses a SW or Gun: only Infantry"):
        edit(players, "american", squad, "ok", kind="vehicle")
    # Ticking "not possessed" (no possessor given) takes the possessor off.
    edit(players, "american", gun, "ok", markers=["unpossessed"])
    assert held(gun) == (None, ["unpossessed"])


@pytest.mark.rules
def test_3_6182_an_rgs_sw_join_possessed_by_its_squads_and_never_across_a_secret(
    users, modules, fixed_dice
):
    """Sicily 3.6182: a Full-Strength "I" RG receives all its SW; they join the retained
    forces possessed by the RG's squads.  Until the RG is revealed its lines are
    secret: a public unit may not possess its SW, nor its squads a public SW (the
    record would tell the opponent of them), refused in words."""
    players, _ = campaign_at("sicily", "i", "jul14n", users)
    i3 = buy(players, "british", "I3")
    fixed_dice.extend([[1, 1], [6, 6]])  # Full; no leader
    rg_roll(players, "british", i3)
    lines = Unit.objects.filter(campaign_id=players.campaign_id, purchase=i3)
    squads = [u for u in lines if u.kind == "squad"]
    sw = [u for u in lines if u.kind == "sw"]
    assert squads and sw
    assert {held(u)[0] for u in sw} == {squads[0].name}
    # Sicily reveals an RG with its rolls; where its units are held still secret (the
    # non-interference suite's worlds), the same lines are of a secret RG:
    Purchase.objects.filter(pk=i3.pk).update(revealed_at=None)
    public = add(players, "british", "4-5-8", "squad")
    piat = add(players, "british", "PIAT", "sw")
    with pytest.raises(ActionRefused, match="not of the same RG, and one of them is still secret"):
        possess(players, "british", sw[0], public)
    with pytest.raises(ActionRefused, match="not of the same RG, and one of them is still secret"):
        possess(players, "british", piat, squads[0])


def test_a_sws_possessor_travels_in_the_campaigns_backup(hosted):
    """A SW's possessor is part of the campaign's record: exported, imported into an
    empty database (its possessor a line written after it) and exported again,
    identical, the SW still possessed by its squad."""
    from campaign.services.backup import export_campaign, import_campaign
    from tests.test_backup import _wipe

    campaign, *_ = hosted
    sw = Unit.objects.create(campaign=campaign, side="red", name="LMG", kind="sw")
    squad = Unit.objects.create(campaign=campaign, side="red", name="4-6-7", kind="squad")
    Unit.objects.filter(pk=sw.pk).update(possessor=squad)
    first = export_campaign(campaign_id=campaign.pk)
    _wipe()
    import_campaign(data=first)
    assert export_campaign(campaign_id=campaign.pk) == first
    assert Unit.objects.get(pk=sw.pk).possessor_id == squad.pk


def test_a_sw_shows_on_its_possessing_squads_roster_line_still_a_line_of_its_own(users, modules):
    """Issue 45 ("a squad's SW and who possesses it"), APD 3.31: the roster shows a SW
    on the line of the squad that possesses it, as a vehicle's weapons are shown on
    its line, with its own markers; the SW stays a line of its own (its own record, its
    own rolls), and the opponent, who sees both lines once public, reads the same."""
    from tests.purchase_helpers import roster_of

    players, _ = apd_at(users, "3.3")
    squad = add(players, "american", "7-4-7", "squad")
    lmg = possess(
        players, "american", add(players, "american", "LMG", "sw", "malfunctioned"), squad
    )
    for side in ("american", "german"):
        forces = {f.side: f for f in roster_of(players.campaign_id, side).forces}
        lines = {u.name: u for u in forces["American"].units}
        assert lines["7-4-7"].possesses == ((lmg.ref, "LMG", "malfunctioned"),)
        assert lines["LMG"].possessor == "7-4-7" and lines["LMG"].possesses == ()
    units.update_unit(
        campaign_id=players.campaign_id,
        user=players.users["american"],
        unit_id=lmg.ref,
        name="LMG",
        possessor="",
    )
    (mine,) = [f for f in roster_of(players.campaign_id, "american").forces if f.mine]
    assert {u.name: u.possesses for u in mine.units}["7-4-7"] == ()
