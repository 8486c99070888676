"""Sicily (seed 001), the eighteenth pass of the sentence audit (issue 44): 3.615 to the
end played through the page's own buttons (tests/page_play.py), each side's page read
beside the seed's sentences of the step, on paths the earlier tests use little (CG II
and III, late and night dates, a Dual Attack at night, the British holding only
off-map RGs, points at zero) (docs/rules-audit/pass-18-sicb18.md)."""

from __future__ import annotations

import pytest

from campaign.models import Event, InitiativeChit, Purchase, ReconBuy
from campaign.models import Seat as SeatRow
from tests import test_rule_mechanisms as mechanisms
from tests.page_play import Seat
from tests.purchase_helpers import campaign_at, keep_retained_units

users = mechanisms.users
fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


def _seats(players):
    return {side: Seat(players.users[side], players.campaign_id) for side in ("axis", "british")}


def _press_through(seats, *steps):
    """Each side presses Done at each of ``steps`` on its page, British first where the
    page offers it (as two players would, each at his own page)."""
    for step in steps:
        for side in ("axis", "british"):
            seat = seats[side]
            seat.open()
            answer = seat.press(f"Done with {step}")
            assert answer.status == 200, answer.text[:300]


# ----------------------------------------------------------------------- 3.6212 matrix *


def test_3_6212_star_a_british_bombardment_is_no_on_map_retained_unit(users, modules):
    """3.6212 matrix footnote *: "The Attack Chit cannot be selected by the Axis player if
    the British player currently has no on-map Retained units."  The last date of CG I
    (July 17 PM): the British retained forces hold only the B1 they bought this date (a
    Pregame Bombardment, resolved off the map and then eliminated, British chart
    footnote i), bought through the page with its Pre-Registered hex.  At 3.621 the Axis
    press "Lock Attack": refused with the footnote's sentence shown where they clicked,
    no chit locked; "Lock Idle" is accepted."""
    players, _ = campaign_at("sicily", "i", "jul17pm", users, points=60)
    seats = _seats(players)
    british = seats["british"]
    british.open()
    refused = british.press("Buy B1 Bombardment for 3 CPP")
    assert refused.refused and "Pre-Registered hex" in refused.text, refused.text[:300]
    bought = british.press("Buy B1 Bombardment for 3 CPP", hex="21C5")
    assert bought.status == 200, bought.text[:300]
    _press_through(seats, "3.617", "3.618", "3.619", "3.620")
    assert players.step.id == "3.621", players.step.id
    axis = seats["axis"]
    said = axis.open()
    assert "3.6212 matrix footnote *" in said and "choose Idle" in said, said[:2000]
    answer = axis.press("Lock Attack")  # posted as a stale page would
    assert answer.refused, "the Axis locked Attack against a side holding only a Bombardment"
    assert "3.6212" in answer.text and "choose Idle" in answer.text, answer.text[:400]
    assert not InitiativeChit.objects.filter(campaign_id=players.campaign_id).exists()
    assert axis.press("Lock Idle").status == 200


def _forge(seat, action, **fields):
    """What a forged post (or a stale page) sends: ``action``'s form as the page of the
    other side renders it, posted by ``seat``'s player with htmx's header."""
    from tests.page_play import Answer

    seat.open()
    at = next((v for f in seat.forms.forms.values() for n, v in f.fields if n == "at" and v), "")
    url = seat.url + f"act/{action}/"
    answer = seat.client.post(url, {"at": at, **fields}, HTTP_HX_REQUEST="true")
    return Answer(answer.status_code, answer.content.decode())


# ----------------------------------------------------------------------------- 3.616 EXC


def test_3_616_exc_only_the_british_forgo_on_cg_iii_july_14_pm_through_the_page(users, modules):
    """3.616 EXC: "On the July 14 PM date of CG III the British player may fore go all or
    a portion of the allotted CPP. The number of CPP fore gone is subtracted from the
    Axis CPP base."  CG III, July 14 PM: the British page offers "Forgo and finish" with
    the bound (12, their base for the date, 3.6161); the Axis page offers nothing and
    waits.  Typed -1, 13 and "abc" are refused with a sentence where the British
    clicked, nothing changed; 12 is accepted and the Axis lose 12."""
    players, _ = campaign_at("sicily", "iii", "jul14pm", users, step="3.616", points=40)
    seats = _seats(players)
    british, axis = seats["british"], seats["axis"]
    said = british.open()
    assert "You may forgo up to 12 CPP; the Axis lose as many (3.616 EXC)" in said
    assert "Forgo and finish" in british.buttons()
    axis_said = axis.open()
    assert "Forgo and finish" not in axis.buttons() and "forgo" not in axis_said.lower()
    for typed, words in (
        ("-1", "Forgo between 0 and 12 CPP"),
        ("13", "Forgo between 0 and 12 CPP"),
        ("abc", "enter a whole number"),
    ):
        answer = british.press("Forgo and finish", amount=typed)
        assert answer.refused and words in answer.text, (typed, answer.text[:300])
        assert "Nothing was changed" in answer.text
        assert players.step.id == "3.616"
    points = dict(
        SeatRow.objects.filter(campaign_id=players.campaign_id).values_list("side", "points")
    )
    assert british.press("Forgo and finish", amount="12").status == 200
    after = dict(
        SeatRow.objects.filter(campaign_id=players.campaign_id).values_list("side", "points")
    )
    assert after["axis"] == points["axis"] - 12, (points, after)
    assert after["british"] == points["british"] - 12, (points, after)


# ---------------------------------------------------------------- 3.617-3.620, last date


def test_3_617_to_3_620_refusals_and_a_roll_made_once_through_the_page_on_the_last_date(
    users, modules
):
    """The last date of CG I (July 17 PM), through the pages' own buttons.  3.617 Axis
    chart footnote m: "A total of no more than two coy type RG may be purchase on any
    given CG Date": the I6 and I7 bought, a third coy posted is refused with the
    footnote, nothing bought.  British chart footnote i: a B1 pressed without its
    Pre-Registered hex is refused asking for it.  3.619: 0 FPP, a Foxhole pressed is
    refused ("not enough FPP").  3.620: "Each side may now make a Recon dr, provided it
    first expends the required CPP": each side's M2 gives its dr once, by its button;
    the button is gone after, and a second dr posted is refused."""
    players, _ = campaign_at("sicily", "i", "jul17pm", users, points=60)
    seats = _seats(players)
    axis, british = seats["axis"], seats["british"]
    axis.open()
    british.open()
    assert axis.press("Buy I6 Fallschirmjäger Coy for 17 CPP").status == 200
    assert axis.press("Buy I7 Italian Infantry Coy for 12 CPP").status == 200
    third = axis.press("Buy I8 Italian MG Coy for 6 CPP", group="I1")
    assert third.refused and "3.617 Axis chart footnote m" in third.text, third.text[:300]
    assert Purchase.objects.filter(campaign_id=players.campaign_id, side="axis").count() == 2
    assert axis.press("Buy M2 Recon for 2 CPP, Recon bought for 2 CPP (+5 drm)").status == 200
    b1 = british.press("Buy B1 Bombardment for 3 CPP")
    assert b1.refused and "Pre-Registered hex" in b1.text and "footnote i" in b1.text
    assert british.press("Buy M2 Recon for 1 CPP").status == 200
    _press_through(seats, "3.617", "3.618")
    for seat in (axis, british):
        seat.open()
        fox = seat.press("Buy Foxhole")
        assert fox.refused and "not enough FPP" in fox.text, fox.text[:300]
    _press_through(seats, "3.619")
    assert players.step.id == "3.620"
    for side, seat in seats.items():
        seat.open()
        (recon,) = [b for b in seat.buttons() if b.startswith("Recon dr for M2")]
        assert seat.press(recon).status == 200
        assert not [b for b in seat.buttons() if b.startswith("Recon dr")], seat.buttons()
        assert "Recon Locations for your next scenario" in seat.text
        again = _forge(
            seat,
            "recon",
            purchase=Purchase.objects.get(
                campaign_id=players.campaign_id, side=side, group_id="M2"
            ).ref,
        )
        assert again.refused and again.text, again.text[:300]
    assert ReconBuy.objects.filter(campaign_id=players.campaign_id).count() == 2


# ------------------------------------------------------- 3.6213a/b, 3.622, 3.623 at night


def test_3_6213b_3_623_a_night_dual_attack_through_the_page_set_up_then_moves_first_dr(
    users, modules, fixed_dice
):
    """CG II, July 16 Night, both sides press "Lock Attack": 3.6213b Night Dual Attack;
    3.6213a "The British player makes a dr to determine which side sets up first: if <= 3
    the British do; otherwise the Axis does" (dr 5: the Axis).  Both pages name the
    result and who sets up first; at 3.622 only the Axis page offers Done; the British
    read why and a Done they post is refused (3.6222), nothing changes.  3.6213a "The
    side moving first however, is not determined until after all setup is complete (step
    3.623)" and 3.623's dr: made once, after both Dones of 3.6223, its result on both
    pages (dr 2: the British); "Each side announces its current SAN" in the log of
    both."""
    players, _ = campaign_at("sicily", "ii", "jul16n", users, kind="initiative")
    keep_retained_units(players)
    seats = _seats(players)
    seats["axis"].open()
    assert seats["axis"].press("Lock Attack").status == 200
    fixed_dice[:] = [[5]]
    seats["british"].open()
    assert seats["british"].press("Lock Attack").status == 200
    assert players.step.id == "3.622"
    for seat in seats.values():
        said = seat.open()
        assert "→ Night Dual Attack; Axis sets up first." in said, said[:600]
        assert "moves first" not in said.split("Step ·")[0]
    assert "Done with 3.622" in seats["axis"].buttons()
    assert "Done with 3.622" not in seats["british"].buttons()
    assert "Not yet: the Axis set up first (3.6222)" in seats["british"].text
    forged = _forge(seats["british"], "finish")
    assert forged.refused and "3.6222" in forged.text, forged.text[:300]
    assert players.step.id == "3.622"
    seats["axis"].open()
    assert seats["axis"].press("Done with 3.622").status == 200
    seats["british"].open()
    assert seats["british"].press("Done with 3.622").status == 200
    assert players.step.id == "3.6223"

    def moves_first_drs():
        events = Event.objects.filter(campaign_id=players.campaign_id).visible_to("axis")
        return [e.shown for e in events if "rolled who moves first" in e.shown]

    assert not moves_first_drs()
    fixed_dice[:] = [[2]]
    _press_through(seats, "3.6223")
    assert moves_first_drs() == ["British rolled who moves first: dr 2 → British (3.623)."]
    for side, seat in seats.items():
        said = seat.open()
        assert "Night Dual Attack; Axis sets up first; British moves first." in said, said[:600]
        log = " ".join(
            e.shown for e in Event.objects.filter(campaign_id=players.campaign_id).visible_to(side)
        )
        assert "Each side announces its current SAN: Axis" in log and "(3.623)" in log


# ------------------------------------------------------------------- 3.6179 Str, 3.6181


def test_3_6179_str_is_recorded_for_the_rgs_3_6181_depletes_only(users, modules):
    """3.6179: "Str: The RG's strength, as determined in RePh step 3.6181. Record "F" for
    a Full, "D" for a Depleted, RG."; 3.6181: "Each RG whose ID begins with "I", "V", or
    "G" is subject to Depletion."  CG II, July 16 Night: the British buy an O2 (an OBA
    module), an M2 (Recon) and a G3 through the page and press each RG's button at
    3.618.  The G3's line reads its strength; the O2's and the M2's lines, on the
    British page, on the Axis's RG Purchase Record and on the scenario sheet, read none
    (no strength was determined for them)."""
    players, _ = campaign_at("sicily", "ii", "jul16n", users, points=60)
    seats = _seats(players)
    british = seats["british"]
    british.open()
    for price in (
        "Buy O2 Lgt Arty for 8 CPP",
        "Buy M2 Recon for 1 CPP",
        "Buy G3 Mtr Pltn for 6 CPP",
    ):
        assert british.press(price).status == 200, price
    _press_through(seats, "3.617")
    british.open()
    for n, (rg, button) in enumerate(
        (
            ("O2 Lgt Arty", "Record it"),
            ("M2 Recon", "Record it"),
            ("G3 Mtr Pltn", "Make its secret rolls"),
        ),
        start=1,
    ):  # an O or M RG has no secret roll (3.6181): its button records it
        assert british.press(f"{button}: RG {n} of the list, {rg}").status == 200
    said = british.open()
    assert "G3 Mtr Pltn — 6 CPP, July 16 Night · " in said, said
    for rg, cost in (("O2 Lgt Arty", 8), ("M2 Recon", 1)):
        assert f"{rg} — {cost} CPP, July 16 Night · F" not in said, said
    _press_through(seats, "3.618")
    axis = seats["axis"].open()
    for rg in ("O2 Lgt Arty 1 3", "M2 Recon 1 5"):
        assert f"{rg} in the OB" in axis, axis[axis.find("RG Purchase Records") :][:800]
    sheet = Seat(players.users["british"], players.campaign_id, "sheet/").open()
    assert "80+mm OBA Module Full" not in sheet, sheet[:1500]


def test_3_6212_star_equipment_alone_is_no_retained_unit(users, modules):
    """3.6212 matrix footnote *: "... if the British player currently has no on-map
    Retained units"; 3.6221/3.6222 tell "Retained units, Equipment, and new
    Fortifications" apart.  July 14 N: the British retained forces list only a radio
    (an SW) and a 57L AT Gun whose crew is gone: Equipment, no unit; the Axis Attack is
    refused.  A 2-2-8 crew added (a unit): the Axis may choose Attack."""
    from campaign.services.errors import ActionRefused
    from tests.purchase_helpers import add_unit

    players, _ = campaign_at("sicily", "i", "jul14n", users, kind="initiative")
    add_unit(players, "british", "radio", "sw")
    add_unit(players, "british", "57L OQF 6-Pounder AT", "gun")
    with pytest.raises(ActionRefused, match=r"3\.6212"):
        players.chits(axis="attack")
    add_unit(players, "british", "2-2-8 crew", "half_squad")
    players.chits(axis="attack")
