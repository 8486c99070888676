"""Issue 46: nothing irreversible by accident.  Done is not offered where the step's
data are missing (the page says what, and offers to go on knowingly); a Done that
gives something up says so, with the figures, before it is sent."""

import html

import pytest

from campaign.models import Event, Roll, Seat, StepMark, Unit
from campaign.services import purchases, steps, units
from campaign.services.errors import ActionRefused
from tests.purchase_helpers import campaign_at
from tests.walk import host_game, players_of

pytestmark = pytest.mark.django_db


def state(players):
    c = players.campaign
    return (
        c.step_index,
        c.cycle,
        StepMark.objects.filter(campaign=c).count(),
        Event.objects.filter(campaign=c).count(),
        sorted(Seat.objects.filter(campaign=c).values_list("side", "points")),
    )


def page(client, players, user):
    client.force_login(user)
    answer = client.get(f"/campaigns/{players.campaign_id}/")
    assert answer.status_code == 200
    return html.unescape(answer.content.decode())


@pytest.fixture
def sicily_start(modules, make_user):
    axis, brit = make_user("axis_p"), make_user("brit_p")
    c = host_game("sicily", "i", axis, brit, through_start=False)
    return players_of(c, axis, brit)


def test_done_at_the_start_requisition_is_refused_while_its_cpp_are_missing(sicily_start, client):
    """3.51 is not in the rules text: the CPP the CG gives for the Initial Scenario
    are to be supplied.  Done at the start's purchase step (I-3.617) is refused with
    what is missing, and changes nothing; the page offers no Done there, only a
    guarded "Go on without it"."""
    players = sicily_start
    assert players.step.id == "I-3.617"
    before = state(players)
    with pytest.raises(ActionRefused, match=r"the CPP the CG gives each side at its start"):
        steps.finish_step(campaign_id=players.campaign_id, user=players.users["axis"])
    assert state(players) == before
    shown = page(client, players, players.users["axis"])
    assert "Done with I-3.617</button>" not in shown
    assert "Nothing can be bought at I-3.617 yet" in shown
    assert 'hx-confirm="Go on without it? You buy nothing at I-3.617' in shown


def test_going_on_without_the_data_is_knowing_and_logged(sicily_start, client):
    """The players may go on without the missing start data (no dead end): the step
    is finished for that side, and the log says it bought nothing there knowingly."""
    players = sicily_start
    client.force_login(players.users["axis"])
    answer = client.post(
        f"/campaigns/{players.campaign_id}/act/finish/",
        {"without": "data"},
        HTTP_HX_REQUEST="true",
    )
    assert answer.status_code == 200
    line = Event.objects.get(kind="step-done", side="axis")
    assert "without the data it lacks, buying nothing there" in line.text


def test_a_forged_plain_done_at_the_start_requisition_is_a_409_sentence(sicily_start, client):
    players = sicily_start
    client.force_login(players.users["british"])
    before = state(players)
    answer = client.post(
        f"/campaigns/{players.campaign_id}/act/finish/", {}, HTTP_HX_REQUEST="true"
    )
    assert answer.status_code == 409
    assert "the printed rules leave out" in html.unescape(answer.content.decode())
    assert state(players) == before


def test_done_on_july_14_pm_asks_first_with_the_cpp_that_will_be_lost(modules, make_user, client):
    """3.617 EXC: "Any CPP remaining after this step on the 14 PM date are lost".  The
    Done button's confirmation names the figure before the click sends anything."""
    players, _ = campaign_at("sicily", "i", "jul14pm", (make_user("a"), make_user("b")), points=21)
    assert players.step.id == "3.617"
    shown = page(client, players, players.users["axis"])
    assert "21 unspent CPP lost after the purchase step of July 14 PM (3.617" in shown
    done = shown.index(">Done with 3.617</button>")
    form = shown.rindex("<form", 0, done)
    assert "hx-confirm=" in shown[form:done]
    assert "21 unspent CPP lost" in shown[form:done]


def test_done_at_a_purchase_step_with_nothing_bought_says_so(modules, make_user, client):
    """A purchase step left with nothing bought is confirmed first; once an RG is
    bought, only what the rules forfeit is asked about."""
    players, _ = campaign_at("sicily", "i", "jul15am", (make_user("a"), make_user("b")), points=50)
    shown = page(client, players, players.users["british"])
    assert "You have bought no RG at 3.617; your 50 CPP stay unspent." in shown
    purchases.purchase_rg(
        campaign_id=players.campaign_id, user=players.users["british"], group_id="I1"
    )
    shown = page(client, players, players.users["british"])
    assert "You have bought no RG" not in shown
    done = shown.index(">Done with 3.617</button>")
    assert "hx-confirm=" not in shown[shown.rindex("<form", 0, done) : done]


def test_done_at_the_fortification_step_names_the_fpp_forfeit(modules, make_user, client):
    """3.619: unspent FPP are forfeit when a side finishes the step."""
    players, module = campaign_at(
        "sicily", "i", "jul15am", (make_user("a"), make_user("b")), step="3.619"
    )
    Seat.objects.filter(campaign_id=players.campaign_id, side="axis").update(fortification_points=7)
    shown = page(client, players, players.users["axis"])
    assert f"7 unspent FPP will be forfeit ({module.fortifications.rule})." in shown


def test_an_optional_once_per_side_roll_not_made_is_named_in_the_confirmation():
    """A roll the side makes once and may skip (here Sicily's SAN dr made optional in
    a copy of the module) is named in Done's confirmation until it is made; at a SAN
    below the threshold there is no roll to name."""
    from dataclasses import replace

    from rules import availability
    from rules.loader import MODULE_DIR, load_file
    from tests.engine.conftest import at

    sicily = load_file(MODULE_DIR / "sicily.yaml", overrides=False)
    tables = [
        t.model_copy(update={"required": False}) if t.id == "san_adjustment" else t
        for t in sicily.tables
    ]
    module = sicily.model_copy(update={"tables": tables})
    step = next(s for s in module.steps if s.id == "3.6122")
    snap = at(module, side="axis", date="jul15am", step="3.6122")
    at_four = replace(snap, sides={**snap.sides, "axis": replace(snap.me, san=4)})
    said = availability.finish_warnings(module, at_four, step)
    assert "You have not rolled on the SAN Adjustment (3.6122)." in said
    assert not availability.finish_warnings(module, at_four, step, rolled_tables={"san_adjustment"})
    at_three = replace(snap, sides={**snap.sides, "axis": replace(snap.me, san=3)})
    assert not availability.finish_warnings(module, at_three, step)


def test_3_6142_done_waits_for_each_malfunctioned_weapons_dr(modules, make_user, client):
    """3.6142: "Each side now makes a separate dr on the table below for each
    malfunctioned, non-Captured, Retained Weapon": Done is refused (409, the weapon
    named) and not offered until the dr is made; then it is accepted."""
    players, _ = campaign_at(
        "sicily", "i", "jul15am", (make_user("a"), make_user("b")), step="3.614"
    )
    axis = players.users["axis"]
    units.add_unit(
        campaign_id=players.campaign_id, user=axis, name="MMG", kind="sw", markers=["malfunctioned"]
    )
    before = state(players)
    with pytest.raises(ActionRefused, match=r"Roll first: the Weapon Repair for MMG \(3.6142\)"):
        steps.finish_step(campaign_id=players.campaign_id, user=axis)
    assert state(players) == before
    shown = page(client, players, axis)
    assert "Roll first: the Weapon Repair for MMG (3.6142)" in shown
    assert ">Done with 3.614</button>" not in shown and "Go on without it" not in shown
    weapon = Unit.objects.get(campaign_id=players.campaign_id, name="MMG")
    steps.roll_on_table(
        campaign_id=players.campaign_id,
        user=axis,
        table_id="weapon_repair",
        unit_id=weapon.ref,
        typed={"repair_number": -2},
    )
    assert Roll.objects.filter(table_id="weapon_repair").count() == 1
    steps.finish_step(campaign_id=players.campaign_id, user=axis)
    assert StepMark.objects.filter(campaign_id=players.campaign_id, side="axis").exists()


def test_the_opponents_owed_roll_is_not_his_concern(modules, make_user, client):
    """The British page at 3.614 does not ask the Axis weapon's roll of the British,
    and their Done goes through: what a side owes is its own."""
    players, _ = campaign_at(
        "sicily", "i", "jul15am", (make_user("a"), make_user("b")), step="3.614"
    )
    units.add_unit(
        campaign_id=players.campaign_id,
        user=players.users["axis"],
        name="Secret MMG",
        kind="sw",
        markers=["malfunctioned"],
    )
    shown = page(client, players, players.users["british"])
    assert "Roll first" not in shown
    steps.finish_step(campaign_id=players.campaign_id, user=players.users["british"])


def test_3_620_a_paid_recon_dr_is_made_before_done(modules, make_user, client):
    """3.620 with footnote r: an M2 Recon RG is paid for its Recon dr.  Finishing ahead
    from the purchase step stops before 3.620, and Done there waits for the dr."""
    players, _ = campaign_at("sicily", "i", "jul15am", (make_user("a"), make_user("b")))
    axis = players.users["axis"]
    m2 = purchases.purchase_rg(campaign_id=players.campaign_id, user=axis, group_id="M2")
    shown = page(client, players, axis)
    assert "Done with 3.617 to 3.620" not in shown
    players.until("recon")
    assert players.step.id == "3.620"
    with pytest.raises(ActionRefused, match=r"Roll first: the Recon dr of your M2 bought"):
        steps.finish_step(campaign_id=players.campaign_id, user=axis)
    assert "Roll first: the Recon dr of your M2" in page(client, players, axis)
    purchases.buy_recon(campaign_id=players.campaign_id, user=axis, purchase_id=m2.ref)
    steps.finish_step(campaign_id=players.campaign_id, user=axis)


def test_3_620_no_m2_while_preparing_the_initial_scenario():
    """3.620: a Recon dr is made "provided ... the players are not preparing to play an
    Initial Scenario": the M2 Recon RG, whose one use is that dr, is not sold at the
    start's purchase step (CG I: July 14 AM; CG II: July 14 N), and is sold after."""
    from rules.loader import MODULE_DIR, load_file
    from rules.purchase import unavailable

    m = load_file(MODULE_DIR / "sicily.yaml", overrides=False)
    m2 = m.group("axis", "M2")
    dates = [d.id for d in m.dates]

    def why(variant, date):
        return unavailable(
            m, variant=variant, side="axis", group=m2, date_index=dates.index(date), bought=()
        )

    assert any(
        "no Recon while preparing the Initial Scenario (3.620)" in r for r in why("i", "jul14am")
    )
    assert any("Initial Scenario" in r for r in why("ii", "jul14n"))
    assert not any("Initial Scenario" in r for r in why("i", "jul14pm"))


# --------------------------------------------------------------------------- take-backs


def take_back(players, side):
    steps.take_back_done(campaign_id=players.campaign_id, user=players.users[side])


def test_a_done_is_taken_back_until_the_opponent_acts(modules, make_user, client):
    """A side that pressed Done at 3.617 by mistake takes it back: the step waits for it
    again and it buys; both logs say so."""
    players, _ = campaign_at("sicily", "i", "jul15am", (make_user("a"), make_user("b")))
    axis = players.users["axis"]
    steps.finish_step(campaign_id=players.campaign_id, user=axis)
    assert "axis" not in players.waiting()
    shown = page(client, players, axis)
    assert "Take back my Done at 3.617" in shown
    take_back(players, "axis")
    assert "axis" in players.waiting()
    purchases.purchase_rg(campaign_id=players.campaign_id, user=axis, group_id="I1")
    line = Event.objects.get(kind="takeback")
    assert (
        line.text
        == "Axis takes back its Done at 3.617 Purchasing Reinforcement Groups; "
        "the step waits for it again."
        and line.secret_side == ""
    )
    with pytest.raises(ActionRefused, match="there is no Done to take back"):
        take_back(players, "axis")


def test_the_opponents_public_act_makes_the_done_stand(modules, make_user, client):
    players, _ = campaign_at("sicily", "i", "jul15am", (make_user("a"), make_user("b")))
    steps.finish_step(campaign_id=players.campaign_id, user=players.users["axis"])
    units.add_unit(campaign_id=players.campaign_id, user=players.users["british"], name="8-1")
    before = state(players)
    with pytest.raises(ActionRefused, match="Your opponent has acted since"):
        take_back(players, "axis")
    assert state(players) == before
    assert "Take back my Done" not in page(client, players, players.users["axis"])


def test_the_opponents_secret_purchase_does_not_show_through_a_take_back(modules, make_user):
    """The opponent's unrevealed purchase after the Done is not 'acting on it' as far as
    the side may know: the take-back is allowed exactly as if nothing had happened, so
    its answer says nothing of the secret."""
    players, _ = campaign_at("sicily", "i", "jul15am", (make_user("a"), make_user("b")))
    steps.finish_step(campaign_id=players.campaign_id, user=players.users["axis"])
    purchases.purchase_rg(
        campaign_id=players.campaign_id, user=players.users["british"], group_id="I1"
    )
    take_back(players, "axis")
    assert "axis" in players.waiting()


def test_a_done_that_forfeited_fpp_stands(modules, make_user):
    """3.619: unspent FPP are forfeit as the side finishes: that Done cannot be taken
    back (the points are gone)."""
    players, _ = campaign_at(
        "sicily", "i", "jul15am", (make_user("a"), make_user("b")), step="3.619"
    )
    Seat.objects.filter(campaign_id=players.campaign_id, side="axis").update(fortification_points=7)
    steps.finish_step(campaign_id=players.campaign_id, user=players.users["axis"])
    with pytest.raises(
        ActionRefused, match="cannot be taken back: finishing it forfeits the unspent"
    ):
        take_back(players, "axis")


def test_3_61424_one_special_ammo_dr_per_weapon_and_ammunition_type(modules, make_user):
    """3.61424: a weapon "may make a dr ... for each type of special ammunition which is
    depleted": one dr per weapon of the retained forces and type named in a pass; the
    type must be named; another type rolls (tests/test_sicily_pass7a.py: the weapon)."""
    players, _ = campaign_at(
        "sicily", "i", "jul15am", (make_user("a"), make_user("b")), step="3.614"
    )
    axis = players.users["axis"]
    stug = units.add_unit(
        campaign_id=players.campaign_id, user=axis, name="StuG IIIG", kind="vehicle"
    )

    def ammo(item):
        return steps.roll_on_table(
            campaign_id=players.campaign_id,
            user=axis,
            table_id="special_ammo",
            unit_id=stug.ref,
            item=item,
        )

    ammo("smoke")
    with pytest.raises(ActionRefused, match=r"has had its Special Ammo roll in this pass"):
        ammo("  SMOKE")
    with pytest.raises(ActionRefused, match=r"Say what the Special Ammo roll for StuG"):
        ammo("")
    ammo("APCR")
    assert Roll.objects.filter(table_id="special_ammo").count() == 2


def test_3_61424_exc_no_british_special_ammo_before_july_15_am(modules, make_user, client):
    """3.61424 "[EXC: British weapons prior to July 15 AM CG Date]": on July 14 PM the
    British may not roll for special ammunition (the page says why); the Axis may."""
    players, _ = campaign_at(
        "sicily", "i", "jul14pm", (make_user("a"), make_user("b")), step="3.614"
    )

    def ammo(side):
        mmg = units.add_unit(
            campaign_id=players.campaign_id, user=players.users[side], name="MMG", kind="sw"
        )
        return steps.roll_on_table(
            campaign_id=players.campaign_id,
            user=players.users[side],
            table_id="special_ammo",
            unit_id=mmg.ref,
            item="AP",
        )

    with pytest.raises(ActionRefused, match=r"not before July 15 AM \(3.61424 EXC\)"):
        ammo("british")
    shown = page(client, players, players.users["british"])
    assert "You may not roll on it now: not before July 15 AM (3.61424 EXC)." in shown
    ammo("axis")


def test_a_compulsory_roll_for_a_unit_of_a_secret_rg_stays_secret(modules, make_user, client):
    """The British hold an armoured car of an RG they have not revealed (purchases
    revealed by their owner): its compulsory repair roll names it, so the roll, its log
    line and its push are the British side's own until the RG is revealed."""
    from campaign.models import Purchase
    from campaign.services import purchases as purchase_services

    players, _ = campaign_at(
        "sicily", "i", "jul15am", (make_user("a"), make_user("b")), step="3.614", policy="owner"
    )
    c = players.campaign
    rg = Purchase.objects.create(
        campaign=c,
        side="british",
        cycle=c.cycle,
        date_index=c.date_index - 1,
        group_id="V6",
        group_type="AC Pltn II",
        cost=5,
        ordinal=1,
        date_ordinal=1,
    )
    car = Unit.objects.create(
        campaign=c,
        side="british",
        name="AEC I",
        kind="vehicle",
        weapons=[{"ref": "w1", "kind": "ma", "name": "MA", "markers": ["malfunctioned"]}],
        purchase=rg,
    )
    brit = players.users["british"]
    steps.roll_on_table(
        campaign_id=c.pk,
        user=brit,
        table_id="weapon_repair",
        unit_id=f"{car.ref}.w1",
        typed={"repair_number": -2},
    )
    roll = Roll.objects.get(table_id="weapon_repair")
    assert roll.secret and roll.revealed_at is None
    axis_page = page(client, players, players.users["axis"])
    assert "AEC I" not in axis_page
    assert "rolled on the Weapon Repair" not in axis_page and "secret roll" not in axis_page
    purchase_services.reveal_purchase(campaign_id=c.pk, user=brit, purchase_id=rg.ref)
    assert Roll.objects.get(pk=roll.pk).revealed_at is not None


def test_a_locked_chit_is_no_done_to_take_back(modules, make_user):
    players, _ = campaign_at(
        "sicily", "i", "jul15am", (make_user("a"), make_user("b")), kind="initiative"
    )
    from campaign.services import initiative

    initiative.lock_initiative(
        campaign_id=players.campaign_id, user=players.users["axis"], chit="idle"
    )
    with pytest.raises(ActionRefused, match="You have not pressed Done"):
        take_back(players, "axis")


def test_3_6141b_an_abandoned_vehicle_owes_no_immobilization_dr(modules, make_user):
    """3.6141b: "Each non-Captured, non-Abandoned, immobilized vehicle must make a dr":
    a vehicle recorded as abandoned is not owed one; an immobilized one is."""
    players, _ = campaign_at(
        "sicily", "i", "jul15am", (make_user("a"), make_user("b")), step="3.614"
    )
    axis = players.users["axis"]
    units.add_unit(
        campaign_id=players.campaign_id,
        user=axis,
        name="StuG IIIG",
        kind="vehicle",
        markers=["abandoned"],
    )
    steps.finish_step(campaign_id=players.campaign_id, user=axis)  # nothing owed
    steps.take_back_done(campaign_id=players.campaign_id, user=axis)
    units.add_unit(
        campaign_id=players.campaign_id,
        user=axis,
        name="Semovente",
        kind="vehicle",
        markers=["immobilized"],
    )
    with pytest.raises(ActionRefused, match=r"Immobilization Repair for Semovente"):
        steps.finish_step(campaign_id=players.campaign_id, user=axis)


def test_c5_35_done_names_the_dsp_that_are_lost(modules, make_user, client):
    """PHD C5.35: "Any unspent DSP are lost": the German's Done at I-C5.35, with his 60
    DSP unspent, names them in its confirmation."""
    german, us = make_user("g"), make_user("u")
    c = host_game("purple-heart-draw", "tm", german, us, side="german", through_start=False)
    players = players_of(c, german, us)
    players.until_step("I-C5.35")
    shown = page(client, players, german)
    assert "60 unspent DSP will be forfeit (C5.35)." in shown
    assert 'hx-confirm="60 unspent DSP will be forfeit (C5.35).' in shown
