"""Pass 20's shared words: what a player reads where the app names the units a roll or
an exchange is for."""

import pytest

from campaign.services.units import describe_filter
from rules.schema import UnitFilter
from tests.page_play import text_of
from tests.test_rule_mechanisms import users  # noqa: F401  (a fixture)


def test_the_units_a_roll_is_for_read_with_one_bracket():
    """Sicily 3.6141a / 3.6042: the words that narrow the units come in one bracket,
    never two side by side ("(not immobilized or abandoned or withdrawn) (not a
    prisoner)")."""
    said = describe_filter(
        UnitFilter(
            kinds=["vehicle"],
            not_statuses=["immobilized", "abandoned", "withdrawn"],
            not_named=["prisoner"],
        )
    )
    assert said == "vehicles (not immobilized or abandoned or withdrawn, not a prisoner)"
    said = describe_filter(
        UnitFilter(kinds=["vehicle"], all_statuses=["isolated"], named=["Sherman"])
    )
    assert said == "isolated vehicles (a Sherman)"
    assert ") (" not in describe_filter(
        UnitFilter(kinds=["squad"], not_statuses=["captured"], named=["Hero"], not_named=["crew"])
    )


@pytest.mark.parametrize(
    ("module_id", "variant", "side", "last", "before"),
    [
        ("sicily", "i", "axis", "jul17pm", "jul17am"),
    ],
)
def test_done_at_the_cgs_last_purchase_names_the_points_it_leaves_unused(
    users,  # noqa: F811
    modules,
    client,
    module_id,
    variant,
    side,
    last,
    before,
):
    """Sicily 3.617 / PHD C5.31: points unspent are kept for a later date; at the CG's
    last date no later use comes, so the Done that leaves points unspent says so in its
    confirmation, with the figure; a date before, it does not."""
    from tests.purchase_helpers import campaign_at

    for date_id, warned in ((before, False), (last, True)):
        players, _ = campaign_at(module_id, variant, date_id, users, points=7)
        client.force_login(players.users[side])
        html = client.get(f"/campaigns/{players.campaign_id}/").content.decode()
        said = "7 unspent" in html and "cannot be used later" in html
        assert said == warned, (date_id, text_of(html)[:3000])


def test_apd_3_4_the_afternoons_purchase_is_the_last_use_of_the_pp(users, modules, client):  # noqa: F811
    """APD 3.4 "Unused Purchase Points may be retained for future use": none follows the
    Afternoon's purchase (its scenario is the CG's last, CG Dates; 1.2).  The American
    Reinforcement Table is missing from the rules text, so the step offers "Go on
    without it": there, its confirmation says his unspent PP cannot be used later; at
    the Midday's it says they stay unspent."""
    from tests.test_apd12_pass12 import apd, supply_value
    from tests.test_rule_mechanisms import result_values

    players, module = apd(users, "3.4")
    supply_value(players, "dates.dec6midday.vp_required", "120")
    client.force_login(players.users["american"])
    html = client.get(f"/campaigns/{players.campaign_id}/").content.decode()
    assert "Go on without it? You have bought no RG at 3.4; your 33 PP stay unspent." in html
    assert "cannot be used later" not in html
    players.until("results")
    players.results(**result_values(module, vp_american=40, cvp_lost_american=10))
    players.until_step("3.4")
    html = client.get(f"/campaigns/{players.campaign_id}/").content.decode()
    said = (
        "unspent PP cannot be used later and are lost with the CG&#x27;s end: December 6 "
        "Afternoon is the last scenario of the CG"
    )
    assert said in html, text_of(html)[:3000]


def test_a_drm_named_by_its_sign_alone_reads_once_after_its_value():
    """PHD C5.8 / Sicily 3.6041's 1TC: "- the unit's Morale" computed as -7 reads
    "-7 the unit's Morale", never "-7 - the unit's Morale"."""
    from rules.drm import after_value

    assert after_value("- the unit's Morale (a 1TC is passed by a DR <= Morale)", -7) == (
        "the unit's Morale (a 1TC is passed by a DR <= Morale)"
    )
    assert after_value("+1 Unit is Isolated", 1) == "Unit is Isolated"
    assert after_value("- the unit's Morale", 2) == "- the unit's Morale"


def test_a_drm_counted_at_a_rate_reads_as_its_rate():
    """Sicily 3.606 "+1 per HS-equivalent > one HS using the same Escape DR" counted as +2
    reads "+2 at +1 per HS-equivalent ...", never "+2 +1 per ..."; PHD C5.14's "+/-
    Leadership" as -1 reads "-1 Leadership"."""
    from rules.drm import after_value

    label = "+1 per HS-equivalent > one HS using the same Escape DR (NA to vehicles)"
    assert after_value(label, 2) == f"at {label}"
    assert after_value(label, 1) == label.removeprefix("+1 ")
    assert after_value("-1 per 10 CVP (FRD) suffered", -3) == "at -1 per 10 CVP (FRD) suffered"
    assert after_value("+/- Leadership (including Armour Leader)", -1) == (
        "Leadership (including Armour Leader)"
    )
    assert after_value("-1 If lone", -2) == "-1 If lone"


def test_c5_24_a_table_with_lost_rows_says_so_beside_it_with_the_link(
    users,  # noqa: F811  (the fixture)
    modules,
    client,
):
    """PHD C5.24's Leader Promotion Table lost its rows for DR ≤2 and ≥12: its step's page
    says, beside the table, that the players may supply them, and links to the form;
    once supplied, the line is gone (the rows are the players')."""
    from tests import test_rule_mechanisms as mechanisms
    from tests.test_phd_conph import LEADER_ROWS, page_of, phd_after

    players, _ = phd_after(users, "C5.24")
    said = "The printed rules leave out rows of this table"
    page = page_of(players, "german", client)
    assert said in page and "/supply/tables.leader_promotion" in page.split(said, 1)[1][:600]
    mechanisms.supply(players, "tables.leader_promotion", mechanisms.row_table(LEADER_ROWS))
    assert said not in page_of(players, "us", client)


def test_c5_22_a_units_markers_with_a_bracket_of_their_own_read_without_a_bracket_in_a_bracket(
    users,  # noqa: F811  (the fixture)
    modules,
    client,
):
    """A 6-6-7 marked Isolated and Low Ammo, added at PHD C5.22: its markers' words carry
    a bracket of their own ("Low Ammo (Ammunition Shortage, A19.131)"), so its log line
    reads "6-6-7 — squad, isolated, Low Ammo (...)", never "(..., Low Ammo (...))"."""
    from tests.test_phd_conph import page_of, phd_after
    from tests.test_rule_mechanisms import add

    players, _ = phd_after(users, "C5.22")
    add(players, "us", "6-6-7", "squad", "isolated", markers=("low_ammo",))
    page = text_of(page_of(players, "us", client))
    assert "6-6-7 — squad, isolated, Low Ammo (Ammunition Shortage, A19.131) to its" in page
    assert "A19.131))" not in page


def test_a_refusal_that_says_nothing_was_changed_does_not_say_it_twice(rf):
    """A service's refusal that ends "Nothing was changed." (PHD C5.21, Sicily 3.606's
    one roll) is shown with the page's own "Nothing was changed." once, not twice."""
    from campaign.services.errors import ActionRefused
    from campaign.views.http import refusal

    request = rf.post("/")
    request.htmx = True
    said = refusal(request, ActionRefused("You may not. Nothing was changed.")).content.decode()
    assert said.count("Nothing was changed.") == 1 and "You may not." in said
    said = refusal(request, ActionRefused("You may not.")).content.decode()
    assert said.count("Nothing was changed.") == 1
