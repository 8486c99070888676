"""Sicily (seed 001), pass 12 part C of the sentence audit (issue 44): the left items of
3.6212 footnote * and British chart footnote i, then sentences of 3.615-3.623 and the RG
charts' footnotes no earlier pass doc quotes, tried through the services as two players
meet them (docs/rules-audit/pass-12-sicc13.md)."""

from __future__ import annotations

import pytest

from campaign.services.errors import ActionRefused
from tests import test_rule_mechanisms as mechanisms
from tests.purchase_helpers import campaign_at, make_rolls
from tests.test_rule_mechanisms import add, buy

users = mechanisms.users
fixed_dice = mechanisms.fixed_dice

pytestmark = [pytest.mark.django_db, pytest.mark.rules]


def _step_page(players, side):
    from django.test import Client

    client = Client()
    client.force_login(players.users[side])
    return client.get(f"/campaigns/{players.campaign_id}/").content.decode()


# --------------------------------------------------------------------------- Part 1


def test_3_6212_star_an_empty_british_roster_is_the_fact_not_a_declaration(users, modules):
    """3.6212 matrix footnote *: "The Attack Chit cannot be selected by the Axis player
    if the British player currently has no on-map Retained units."  When the British
    retained forces (the roster Refit holds) list no unit, that is the fact: the Axis
    Attack is refused with the footnote without any British declaration, and nothing
    is locked; Idle is accepted."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, kind="initiative")
    page = _step_page(players, "axis")
    assert "retained forces list no unit on the map you can see" in page, page
    assert "3.6212 matrix footnote *" in page
    with pytest.raises(ActionRefused) as refused:
        players.chits(axis="attack")
    text = str(refused.value)
    assert "3.6212" in text and "retained" in text, text
    from campaign.models import InitiativeChit

    assert not InitiativeChit.objects.filter(campaign_id=players.campaign_id).exists()
    players.chits(axis="idle")


def test_3_6212_star_a_british_unit_on_the_roster_lets_the_axis_attack(users, modules):
    """3.6212 footnote *: with one unit on the British retained forces the Axis may
    choose Attack (the British have not declared none)."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, kind="initiative")
    add(players, "british", "4-5-8", "squad")
    assert "retained forces list no unit" not in _step_page(players, "axis")
    players.chits(axis="attack")


def test_3_6212_star_a_secret_british_rg_does_not_decide_the_axis_chit(users, modules):
    """3.617 "the RG(s) purchased may all be kept secret" with 3.6212 footnote *: an
    RG the British bought this RePh is not on the map yet (it sets up at 3.622), and
    its lines are secret: the Axis chit is decided by the British units the Axis may
    see, so the Axis learns nothing of the purchase (refused either way)."""
    players, _ = campaign_at(
        "sicily", "i", "jul14n", users, kind="purchase", points=100, policy="owner"
    )
    i1 = buy(players, "british", "I1")
    make_rolls(players, "british", i1)
    from campaign.models import Unit

    assert Unit.objects.filter(campaign_id=players.campaign_id, side="british").exists()
    players.until("initiative")
    with pytest.raises(ActionRefused):
        players.chits(axis="attack")


def test_3_6212_star_the_british_read_that_their_empty_roster_decides(users, modules):
    """3.6212 footnote *, the British page at 3.621: with no unit on their retained
    forces the British read that the Axis cannot choose Attack, with the footnote, and
    are not asked to declare; with a unit listed the declaration is offered again."""
    import html

    players, _ = campaign_at("sicily", "i", "jul14n", users, kind="initiative")
    page = html.unescape(_step_page(players, "british"))
    assert "Your retained forces list no unit on the map the Axis side can see" in page, page
    assert "(3.6212 matrix footnote *)" in page
    assert "Declare: we have no on-map retained units" not in page
    add(players, "british", "4-5-8", "squad")
    page = html.unescape(_step_page(players, "british"))
    assert "Your retained forces list no unit" not in page
    assert "Declare: we have no on-map retained units" in page


# --------------------------------------------------------------------------- Part 2


def _record_line(players, side, purchase):
    from tests.purchase_helpers import roster_of

    return next(ln for ln in roster_of(players.campaign, side).record if ln.id == purchase.ref)


def test_3_6179_p_and_r_count_the_rgs_bought_so_far_in_the_cg(users, modules, fixed_dice):
    """3.6171 "ID: Provides an alphanumeric identification for each RG."; 3.6179 "#P
    (Number Purchased): The total number of friendly RG of this Group Type purchased thus
    far during the CG." and "#R ... subtracting the number in that RG's #P column from
    the number listed in the "Maximum" column (for that RG for that CG)".  Axis I7 (CG I
    Max 3) bought on July 14 N, then again on July 15 AM after an Idle date: the lines
    read I7, #P 1 then 2, #R 2 then 1."""
    from campaign.models import Seat

    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    first = buy(players, "axis", "I7")
    line = _record_line(players, "axis", first)
    assert (line.group_id, line.number_purchased, line.number_remaining) == ("I7", 1, "2")
    players.until("initiative")
    players.chits(axis="idle", british="idle")
    players.until_step("3.617")
    Seat.objects.filter(campaign_id=players.campaign_id).update(points=100)
    second = buy(players, "axis", "I7")
    line = _record_line(players, "axis", second)
    assert (line.group_id, line.number_purchased, line.number_remaining) == ("I7", 2, "1")


def test_axis_footnotes_f_and_i_the_o1_notes_are_on_the_purchase_page(users, modules):
    """Axis chart footnote f: "O1 may fire HE, JR, and Smoke. O2, O3, and O4 may only
    fire HE."; footnote i: "Receives a -2 DRM on its Radio Maintenance DR (C1.22)."
    (O1 "fgik").  Refit plays no scenario: the Axis read both notes beside the chart at
    3.617, the O1 row carrying its letters; British chart footnote h (the same -2 DRM
    for the British O1) is on the British page."""
    import html

    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    axis = html.unescape(_step_page(players, "axis"))
    assert "O1 may fire HE, JR, and Smoke. O2, O3, and O4 may only fire HE." in axis
    assert "Receives a -2 DRM on its Radio Maintenance DR (C1.22)." in axis
    assert 'aria-label="chart notes f g i k"' in axis
    british = html.unescape(_step_page(players, "british"))
    assert "Receives a -2 DRM on its Radio Maintenance DR (C1.22)." in british
    assert 'aria-label="chart notes e f h p"' in british


def test_3_615_ammunition_shortage_the_step_says_to_apply_ssr_cg18(users, modules):
    """3.615 "AMMUNITION SHORTAGE: See CG18." (SSR CG18 is not in the seed): the step's
    page says to apply SSR CG18."""
    import html

    players, _ = campaign_at("sicily", "i", "jul14n", users, step="3.615")
    assert players.step.id == "3.615"
    page = html.unescape(_step_page(players, "axis"))
    assert "CG18" in page


def test_3_620_idle_recon_is_cumulative_to_the_next_scenario(users, modules, fixed_dice):
    """3.620: "The number recorded for each Idle CG Date is cumulative with the number
    recorded for each succeeding CG Date, but not beyond the next CG scenario."  The
    Axis Recon dr on July 14 N (dr 3), both Idle, another on July 15 AM (dr 2): the
    Axis recon step says 5 Locations for the next scenario, adding up over the Idle
    date, and the British page says nothing of it."""
    import html

    from campaign.models import Seat
    from campaign.services import purchases

    players, _ = campaign_at("sicily", "i", "jul14n", users, points=20)
    first = buy(players, "axis", "M2")
    players.until("recon")
    fixed_dice[:] = [[3]]
    purchases.buy_recon(
        campaign_id=players.campaign_id, user=players.users["axis"], purchase_id=first.ref
    )
    players.until("initiative")
    players.chits(axis="idle", british="idle")
    players.until_step("3.617")
    Seat.objects.filter(campaign_id=players.campaign_id).update(points=20)
    second = buy(players, "axis", "M2")
    players.until("recon")
    fixed_dice[:] = [[2]]
    purchases.buy_recon(
        campaign_id=players.campaign_id, user=players.users["axis"], purchase_id=second.ref
    )
    page = html.unescape(_step_page(players, "axis"))
    assert "adding up over Idle dates: 5 (3.620)" in page, page
    assert "adding up over Idle dates" not in html.unescape(_step_page(players, "british"))


def _results(players):
    from campaign.selectors import module_of

    module = module_of(players.campaign)
    players.results(
        **{
            f"{f.id}.{s.id}": (False if f.kind == "bool" else 0)
            for f in module.result_fields
            for s in module.sides
        }
    )


def test_3_6211_attack_chits_on_consecutive_dates_and_3_6214_no_winner(users, modules):
    """3.6211: "(There is no limit otherwise on selecting Attack Chits on consecutive CG
    Dates.)"; 3.6214: "Neither side "wins" or "loses" a CG scenario, only the CG
    itself."  The Axis Attack on July 14 N and again on July 15 AM (CG I's Attack-chit
    numbers, 3.51, are not in the seed: no limit is known): both locked; the scenario's
    result names no winner in the log."""
    from campaign.models import Event, InitiativeChit

    players, _ = campaign_at("sicily", "i", "jul14n", users, kind="initiative")
    add(players, "british", "4-5-8", "squad")
    players.chits(axis="attack", british="idle")
    players.until("results")
    _results(players)
    players.until("initiative")
    players.chits(axis="attack", british="idle")
    assert (
        InitiativeChit.objects.filter(
            campaign_id=players.campaign_id, side="axis", chit="attack"
        ).count()
        == 2
    )
    texts = " ".join(
        Event.objects.filter(campaign_id=players.campaign_id).values_list("text", flat=True)
    )
    assert " wins" not in texts and " loses the scenario" not in texts and "winner" not in texts


def test_3_617_the_roster_line_records_spent_and_left(users, modules):
    """3.617: "After all the RG are selected, write the total CPP expended in the
    "spent" column of the CG Roster for the current CG Date; then write the number of
    CPP remaining in the "Left" column".  The Axis replenished with July 14 N's base (42,
    3.6161), holding 100 CPP (put there by the test: Start 58), buy I7 (12) and M1 (2):
    the July 14 N line reads 58 + 42 = 100, spent 14, left 86, computed; the British
    Roster shows neither figure (3.617 "may all be kept secret")."""
    from tests.purchase_helpers import roster_of

    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    buy(players, "axis", "I7")
    buy(players, "axis", "M1")
    line = next(
        ln for ln in roster_of(players.campaign, "axis").lines if ln.date == "July 14 Night"
    )
    mine = line.sides[0]
    assert (mine.start, mine.repl) == (58, 42), line
    assert (mine.total, mine.spent, mine.left) == (100, 14, 86), line
    theirs = next(
        ln for ln in roster_of(players.campaign, "british").lines if ln.date == "July 14 Night"
    )
    assert (theirs.sides[0].spent, theirs.sides[0].left) == (None, None), theirs


def test_british_footnotes_i_and_j_the_map_sentences_are_on_the_british_page(users, modules):
    """British chart footnote j: "Off board observer is at level 2 in any friendly entry
    area board edge hex."; footnote i: "There are no "spared hexes"." and the Game Turn
    1 LV Hindrance (+1 at ranges ≤ 6 hexes, +2 at ≥ 7).  Refit holds no map: the British
    read them beside the chart at 3.617."""
    import html

    players, _ = campaign_at("sicily", "i", "jul14n", users, points=100)
    british = html.unescape(_step_page(players, "british"))
    assert "Off board observer is at level 2 in any friendly entry area board edge hex." in british
    assert 'There are no "spared hexes".' in british
    assert "+1 LV Hindrance DRM at ranges ≤ 6 hexes" in british


def _british_points(players):
    from campaign.models import Seat

    return Seat.objects.get(campaign_id=players.campaign_id, side="british").points


def test_british_chart_g2_date_max_na_cannot_be_bought(users, modules):
    """British chart G2 "Airlanding AT Pltn | 2/1 | 57L OQF 6-Pounder AT | 8 | NA | 0 |
    0 | 0": Date Max NA and CG Max 0 in each CG (it comes only in an OB): buying one is
    refused with a sentence, nothing spent."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, points=100)
    with pytest.raises(ActionRefused) as refused:
        buy(players, "british", "G2")
    assert "G2" in str(refused.value) or "Airlanding" in str(refused.value), str(refused.value)
    assert _british_points(players) == 100


def test_british_chart_v1_four_a_date_v5_three_in_the_cg(users, modules):
    """British chart V1 "Med Tank Troop | 3/2 | Sherman III(a) | 12 | 4 | 15 | 13 | 0"
    (Date Max 4) and V5 "AC Pltn I | 3/2 | Daimler AC | 4 | 3 | 3 | 3 | 0" (Date Max 3,
    CG I Max 3): four V1 on July 15 AM at 12 each, a fifth refused; three V5, a fourth
    refused; nothing spent by a refusal."""
    players, _ = campaign_at("sicily", "i", "jul15am", users, points=200)
    for _ in range(4):
        buy(players, "british", "V1")
    assert _british_points(players) == 200 - 48
    with pytest.raises(ActionRefused):
        buy(players, "british", "V1")
    for _ in range(3):
        buy(players, "british", "V5")
    assert _british_points(players) == 200 - 48 - 12
    with pytest.raises(ActionRefused):
        buy(players, "british", "V5")
    assert _british_points(players) == 200 - 60


def test_3_6213b_night_dual_attack_says_cloaking_and_no_move(users, modules):
    """3.6213b: "Both sides may use Cloaking as per SSR CG3 (3.4). Neither side is
    restricted by the use of No Move counters (E1.21)": both Attack on July 14 N; both
    players' pages carry the sentences with the result."""
    import html

    players, _ = campaign_at("sicily", "i", "jul14n", users, kind="initiative")
    add(players, "british", "4-5-8", "squad")
    players.chits(axis="attack", british="attack")
    for side in ("axis", "british"):
        page = html.unescape(_step_page(players, side))
        assert "Cloaking as per SSR CG3" in page, side
        assert "No Move counters (E1.21)" in page, side


def test_chart_f1_fb42_one_cpp_once_and_the_british_window(users, modules):
    """Axis chart F1 "FB42 | 2 | FB42a | 1 (2) | 1 | 1 | 1 | 0" (CG I Max 1) and British
    F1 "FB42 | 2 | FB42AK | 1 (2) | 1 | 1 | 0 | 1" (footnote k: "May only be purchased
    on or before July 14PM."): the Axis buy one on July 14 N for 1 CPP, a second is
    refused; the British F1 on July 14 N is refused with footnote k, nothing spent."""
    from campaign.models import Seat

    players, _ = campaign_at("sicily", "i", "jul14n", users, points=10)
    buy(players, "axis", "F1")
    assert Seat.objects.get(campaign_id=players.campaign_id, side="axis").points == 9
    with pytest.raises(ActionRefused):
        buy(players, "axis", "F1")
    with pytest.raises(ActionRefused) as refused:
        buy(players, "british", "F1")
    assert "footnote k" in str(refused.value), str(refused.value)
    assert _british_points(players) == 10
