"""Sicily (seed 001), the twentieth pass of the sentence audit (issue 44): 3.615 to the
end, pass 19's Left, sentences drawn at random from the seed (random.Random(20)), the
ledger's `offered` and `computed` claims and what the other systems fixed in pass 19,
each tried through the page's own buttons (tests/page_play.py) on paths earlier passes
used little (docs/rules-audit/pass-20-sicb20.md)."""

from __future__ import annotations

import re

import pytest

from tests import test_rule_mechanisms as mechanisms
from tests.page_play import Seat
from tests.purchase_helpers import campaign_at, keep_retained_units  # noqa: F401
from tests.test_sicb18_pass18 import _press_through, _seats

users = mechanisms.users
fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.django_db, pytest.mark.rules]

AHEAD = "Done with 3.622 to 3.6223 Recon Inspection and Bombardment (declare no Recon Location)"


def _step_part(said: str) -> str:
    """The words of the step's panel (from the step's title to the amendment form)."""
    return said.split("Notification settings", 1)[1].split("Amend the scenario result")[0]


def _at_set_up(users, *, recon: bool):
    """CG I, July 17 AM: the British buy an M2 Recon (+5) and make its dr through the
    page (``recon``), or buy nothing; the Axis buy nothing; the British lock Attack, the
    Axis Idle (a British Assault: the Axis set up first, 3.6213c), at 3.622."""
    players, _ = campaign_at("sicily", "i", "jul17am", users, points=30)
    seats = _seats(players)
    british = seats["british"]
    if recon:
        british.open()
        assert british.press("Buy M2 Recon for 2 CPP").status == 200
        players.until_step("3.620")
        british.open()
        assert british.press("Recon dr for M2 (+5 drm)").status == 200
    players.until("initiative")
    players.chits(axis="idle", british="attack")
    assert players.step.id == "3.622"
    return players, seats


# ------------------------------------------------- 3.6223: Pass 19's Left L3


@pytest.mark.parametrize("recon", [True, False])
def test_3_6223_every_side_finishes_set_up_declaring_no_recon_location_in_one_click(
    users, modules, recon
):
    """3.6223: "After all setup is complete ... each side may declare the Location(s)
    they wish to reconnoiter (3.620), if any".  A side with no Recon Location to declare
    (and, for the British, no B1 to resolve) clicked Done at 3.622 and once more at
    3.6223 for nothing.  Every side, whatever it holds, is now offered one button that
    finishes 3.622 and 3.6223 for it, declaring no Recon Location; the side setting up
    first (3.6222) presses it first, then the other; the step goes on to 3.623 (and
    the scenario).  The British holding a Recon number (an M2's dr) or none: the Axis
    page reads the same (nothing told by the offer)."""
    players, seats = _at_set_up(users, recon=recon)
    axis, british = seats["axis"], seats["british"]
    assert AHEAD in axis.open() and AHEAD in axis.buttons()
    british.open()
    assert AHEAD not in british.buttons()  # the Axis set up first (3.6222)
    before = _step_part(axis.text)
    answer = axis.press(AHEAD)
    assert answer.status == 200, answer.text[:300]
    assert players.step.id == "3.622"
    waiting = _step_part(axis.text)
    assert "Waiting for your opponent." in waiting
    said = british.open()
    assert AHEAD in british.buttons() and "Done with 3.622" in british.buttons(), said[:2000]
    answer = british.press(AHEAD)
    assert answer.status == 200, answer.text[:300]
    assert players.step.id not in ("3.622", "3.6223"), players.step.id  # 3.623 passes
    log = axis.open()
    assert "British finished 3.622 Unit Set Up to 3.6223 Recon Inspection and Bombardment." in log
    assert "Axis finished 3.622 Unit Set Up to 3.6223 Recon Inspection and Bombardment." in log
    _seen[recon] = (before, waiting)
    if len(_seen) == 2:
        assert _seen[True] == _seen[False]


_seen: dict[bool, tuple[str, str]] = {}


# ----------------------------------------- 3.620: Pass 19's Left, no Recon at the start


def test_3_620_no_recon_rg_on_the_initial_scenario_page_with_cpp_to_spend(users, modules):
    """3.620: a Recon dr is made "provided ... the players are not preparing to play an
    Initial Scenario".  CG I's start with 40 / 20 initial CPP supplied and accepted
    (3.51 is not in the rules text): at I-3.617 each side's page offers RGs it can
    afford but no M2 Recon, its row saying why with the rule; a buy posted anyway is
    refused with the rule where the player clicked, the CPP unchanged."""
    from campaign.models import Purchase
    from campaign.models import Seat as SeatRow
    from campaign.services import supplements
    from tests.test_sicb18_pass18 import _forge
    from tests.walk import host_game, players_of

    a, b = users
    c = host_game("sicily", "i", a, b, through_start=False)
    players = players_of(c, a, b)
    proposal = supplements.propose_supplement(
        campaign_id=c.pk,
        user=players.users["british"],
        path="variants.i.start.points",
        form={"value.axis": "40", "value.british": "20"},
    )
    supplements.accept_supplement(campaign_id=c.pk, user=players.users["axis"], ref=proposal.ref)
    players.until("purchase")
    assert players.step.id == "I-3.617"
    for side, cpp in (("axis", 40), ("british", 20)):
        seat = Seat(players.users[side], c.pk)
        said = seat.open()
        buys = [x for x in seat.buttons() if x.startswith("Buy ")]
        assert buys, said[:2000]
        assert not [x for x in buys if "M2 Recon" in x], buys
        assert "no Recon while preparing the Initial Scenario (3.620)" in said, said[:3000]
        row = SeatRow.objects.get(campaign=c, side=side)
        assert row.points == cpp
        m2 = _forge(seat, "buy", group="M2")
        assert m2.refused and "3.620" in m2.text, m2.text[:300]
        row.refresh_from_db()
        assert row.points == cpp
        assert not Purchase.objects.filter(campaign=c, side=side, group_id="M2").exists()


# ------------------------------------------- 3.617, 3.620: Pass 19's Left, row 25


def test_3_617_3_620_the_rosters_rows_chain_on_the_dates_own_replenishment(users, modules):
    """3.617: "write the total CPP expended in the "spent" column ... the number of CPP
    remaining, even if zero, in the "Left" column"; 3.620: the side "records the new total
    in the "Start" column of the next CG Date".  CG I, July 17 AM reached by the walk with
    no points set by the test (the date's own replenishment only, 3.616): the British buy
    an M2 at 2 CPP (+5) and an I3 at 7 through the page; both Idle; on July 17 PM the
    British roster's row starts with the 7 left on July 17 AM and adds the date's 16;
    the Axis roster shows its own chain and a "·" for each British figure."""
    from campaign.models import Campaign
    from campaign.selectors import module_of
    from rules import machine
    from tests.walk import host_game, players_of

    a, b = users
    c = host_game("sicily", "i", a, b)
    module = module_of(c)
    Campaign.objects.filter(pk=c.pk).update(date_index=machine.date_index(module, "jul17am") - 1)
    players = players_of(c, a, b)
    players.results(
        **{
            f"{f.id}.{s.id}": (False if f.kind == "bool" else 0)
            for f in module.result_fields
            for s in module.sides
        }
    )
    players.until("purchase")
    british = _seats(players)["british"]
    assert "You have 16 CPP" in british.open()
    assert british.press("Buy M2 Recon for 2 CPP").status == 200
    assert british.press("Buy I3 Lgt Inf Assault Pltn for 7 CPP").status == 200
    players.until_step("3.620")
    british.open()
    assert british.press("Recon dr for M2 (+5 drm)").status == 200
    players.until("initiative")
    players.chits(axis="idle", british="idle")
    players.until("purchase")
    assert "You have 23 CPP" in british.open()
    mine = Seat(players.users["british"], c.pk, "roster/").open()
    assert "July 17 AM — · · · · · Idle 0 16 16 9 7 M2 (2), I3 (7)" in mine, mine[:3000]
    assert "July 17 PM — · · · · · 7 16 23 0 23" in mine, mine[:3000]
    theirs = Seat(players.users["axis"], c.pk, "roster/").open()
    assert "July 17 AM — 0 12 12 0 12 Idle · · · · · M2, I3" in theirs, theirs[:3000]
    assert "July 17 PM — 12 12 24 0 24 · · · · ·" in theirs, theirs[:3000]


# ------------------------------------------------------------- drawn 3: 3.6175


def _last_date(users, british_areas: str | None = None):
    """CG I's last date, July 17 PM, at 3.617 after a July 17 AM scenario, each side with
    40 CPP; ``british_areas``: the British 3.605 Setup Area list (the Axis list A),
    posted on the pages (None: neither lists)."""
    from campaign.models import Campaign
    from campaign.models import Seat as SeatRow
    from campaign.selectors import module_of
    from rules import machine
    from tests.walk import host_game, players_of

    a, b = users
    c = host_game("sicily", "i", a, b)
    module = module_of(c)
    Campaign.objects.filter(pk=c.pk).update(date_index=machine.date_index(module, "jul17pm") - 1)
    players = players_of(c, a, b)
    values = {
        f"{f.id}.{s.id}": (False if f.kind == "bool" else 0)
        for f in module.result_fields
        for s in module.sides
    }
    players.results(**values)
    if british_areas is not None:
        from tests.test_sicsa_pass24 import _listed

        players.until_step("3.605")
        _listed(players, "A", british_areas)
    players.until("purchase")
    SeatRow.objects.filter(campaign=c).update(points=40)
    return players, _seats(players)


def test_3_6175_no_british_setup_area_the_chart_says_why_no_on_map_price(users, modules):
    """3.6175: "A British RG may be purchased for Standard On-Map Setup only if there is
    >= one Set Up Area on the Map."  CG I's last date, July 17 PM, the British 3.605
    list naming no Setup Area (pass 26: the list, not a yes/no of the result): the
    British chart had no On-map +20% column and said nothing of it; it now says why,
    with the list and the rule.  A buy posted at that price is refused with them, the
    CPP unchanged.  The Axis chart keeps its On-map price, and says nothing of the
    British list."""
    from tests.test_sicb18_pass18 import _forge

    players, seats = _last_date(users, british_areas="")
    british, axis = seats["british"], seats["axis"]
    said = british.open()
    assert not [b for b in british.buttons() if "On-Map" in b and b.startswith("Buy")]
    assert (
        "I RG for Standard On-Map Setup (20% more, FRU): not offered: you listed no Setup "
        "Area at 3.605" in said
    ), said[:3000]
    forged = _forge(british, "buy", group="I3", variant="on_map")
    assert forged.refused and "(3.6175)" in forged.text, forged.text[:300]
    assert "You have 40 CPP" in british.open()
    theirs = axis.open()
    assert [b for b in axis.buttons() if "On-Map Setup" in b]
    assert "not offered: you listed no" not in theirs


# ------------------------------------------- drawn 5, 19, 20, 21, 22: the last date


def test_last_date_hip_cap_set_up_order_and_the_bombardment_leaves_the_retained_forces(
    users, modules
):
    """CG I's last date, July 17 PM, the British page throughout.  3.619 footnote b: "No
    more than 10% (FRU) of a side's Retained Infantry squads may use HIP in a daytime
    Scenario": with an I3's three 4-5-8 a second HIP is refused with the footnote.
    3.6213d: "The Axis sets up first and the British move first": the header says so;
    3.6222: "Once the side setting up first has completed its setup, the other side
    follows": a British Done posted before the Axis finish is refused.  British chart
    footnote i: "After the Bombardment has been fully resolved, its FFE:C is removed and
    that Bombardment RG is Eliminated": the B1 recorded at 3.618 had joined the retained
    forces as a "Pregame Bombardment" line (pass 19), which stayed there in good order
    after its error DR eliminated the RG; it now leaves with it, logged, and a second
    roll is refused ("Each Bombardment is fully resolved before conducting another")."""
    from campaign.models import Purchase, Unit
    from tests.test_sicb18_pass18 import _forge

    players, seats = _last_date(users)
    british, axis = seats["british"], seats["axis"]
    british.open()
    assert british.press("Buy I3 Lgt Inf Assault Pltn for 7 CPP").status == 200
    assert british.press("Buy M3 Fortification for 2 CPP").status == 200
    assert british.press("Buy B1 Bombardment for 3 CPP", hex="21C5").status == 200
    _press_through(seats, "3.617")
    british.open()
    for button in [b for b in british.buttons() if b.startswith(("Make its secret", "Record it"))]:
        british.open()
        assert british.press(button).status == 200, button
    _press_through(seats, "3.618")
    assert players.step.id == "3.619"
    squads = Unit.objects.filter(
        campaign_id=players.campaign_id, side="british", kind="squad"
    ).count()
    british.open()
    allowed = -(-squads // 10)  # FRU
    for _ in range(allowed):
        assert british.press("Buy HIP").status == 200
    over = british.press("Buy HIP")
    assert over.refused and "3.619 footnote b" in over.text, over.text[:300]
    _press_through(seats, "3.619")
    players.until("initiative")
    players.chits(axis="idle", british="attack")
    header = british.open().split("Step ·")[0]
    assert "Axis sets up first; British moves first." in header, header
    early = _forge(british, "finish")
    assert early.refused and "the Axis set up first (3.6222)" in early.text, early.text[:300]
    assert players.step.id == "3.622"
    axis.open()
    assert axis.press("Done with 3.622").status == 200
    british.open()
    assert british.press("Done with 3.622").status == 200
    axis.open()
    assert axis.press("Done with 3.6223").status == 200
    british.open()
    assert british.press("Roll DR: Bombardment error DR").status == 200
    b1 = Purchase.objects.get(campaign_id=players.campaign_id, side="british", group_id="B1")
    assert b1.state == Purchase.State.ELIMINATED
    said = british.open()
    assert not Unit.objects.filter(purchase=b1).exists(), list(Unit.objects.filter(purchase=b1))
    left = re.search(
        r"3\.6223 British's [^.]*Pregame Bombardment[^.]*leaves the retained forces", said
    )
    assert left, said.split("Messages")[-1][:2500]
    assert "Roll DR: Bombardment error DR" not in british.buttons()


# ------------------------------------- drawn 7, 10, 14, 16, 18, 24: CG II, the Axis side


def test_cg_ii_the_axis_side_secret_allotment_guns_crews_chits_and_recon_to_the_next_scenario(
    users, modules
):
    """CG II, July 16 AM, each side's page.  3.617: "Each player now secretly allots CPP":
    the British buy an M2 at 2 CPP, "the number of CPP that must be subtracted from the
    current CPP total" (3.6175): 40 -> 38 on their page; the Axis page names no British
    M2 before the reveal.  Axis chart footnote e: "Each Gun is accompanied by a 2-2-8
    crew": the Axis G5 recorded by its button gives its guns and a crew line.  3.6212:
    each chit "hidden from the opponent's view": the British read only that the Axis has
    chosen.  3.6222 EXC: the Axis page (setting up second in an Axis Assault) names its
    immobilized StuG, the British page none.  3.620: "cumulative ... but not beyond the
    next CG scenario": the British Recon number (the M2's dr) shows at 3.6223 on July 16
    AM, the Axis page none; after that scenario, on July 16 PM, no Recon number is
    shown."""
    from campaign.models import Unit
    from tests.purchase_helpers import add_vehicle

    players, module = campaign_at("sicily", "ii", "jul16am", users, points=40)
    keep_retained_units(players)
    add_vehicle(players, "axis", "StuG IIIG", status="immobilized", location="12K4")
    seats = _seats(players)
    british, axis = seats["british"], seats["axis"]
    assert "You have 40 CPP" in british.open()
    assert british.press("Buy M2 Recon for 2 CPP").status == 200
    assert "You have 38 CPP" in british.open()
    theirs = axis.open()
    assert "M2 Recon (Recon bought" not in theirs
    assert axis.press("Buy G5 AT Section for 5 CPP").status == 200
    _press_through(seats, "3.617")
    axis.open()
    (rolls,) = [b for b in axis.buttons() if b.startswith("Make its secret rolls") and "G5" in b]
    assert axis.press(rolls).status == 200
    names = set(
        Unit.objects.filter(
            campaign_id=players.campaign_id, side="axis", purchase__group_id="G5"
        ).values_list("name", flat=True)
    )
    assert "2-2-8 crew (G5)" in names, names
    players.until_step("3.620")
    british.open()
    assert british.press("Recon dr for M2 (+5 drm)").status == 200
    players.until("initiative")
    axis.open()
    assert axis.press("Lock Attack").status == 200
    said = british.open()
    assert "Axis : has chosen" in said and "Axis locked" not in said, said[:2000]
    assert british.press("Lock Idle").status == 200
    assert players.step.id == "3.622"
    assert "(3.6222 EXC; 3.6071): your StuG IIIG (immobilized; in Setup Area 12K4)." in axis.open()
    assert "Each Immobile vehicle must remain" not in british.open().split("Amend")[0]
    players.until_step("3.6223")
    recon = re.findall(r"Recon Locations for your next scenario[^.]*: (\d+)", british.open())
    assert recon and int(recon[0]) >= 6, recon  # the dr + 5
    assert "Recon Locations for your next scenario" not in axis.open()
    players.until("results")
    players.results(
        **{
            f"{f.id}.{s.id}": (False if f.kind == "bool" else 0)
            for f in module.result_fields
            for s in module.sides
        }
    )
    players.until("initiative")
    players.chits(axis="attack", british="idle")
    players.until_step("3.6223")
    assert "Recon Locations for your next scenario" not in british.open()
