"""Words the players read, shared by the three systems (issue 44's Left of pass 18):
a marker's hint that says which units it is for is not repeated on a unit of that kind
("8-1 leader (wounded)", never "(wounded (leader))"); a side the rules give no points
reads no secret about them (APD 3.5: the German receives no Purchase Points); a table
rolled once per side asks for no free "For (unit, weapon, hex…)"; a CG of a module
offering several is shown with its own dates (Sicily CG III ends July 14 PM)."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from campaign.models import marker_words
from tests.page_play import Seat
from tests.test_rule_mechanisms import add, fixed_dice, users

pytestmark = [pytest.mark.django_db]

__all__ = ["fixed_dice", "users"]


def test_a_markers_hint_is_dropped_on_a_unit_of_the_kind_it_names():
    assert marker_words("wounded", "leader") == "wounded"
    assert marker_words("wounded", "hero") == "wounded"
    assert marker_words("wounded") == "wounded (leader)"
    assert marker_words("abandoned", "vehicle") == "abandoned"
    assert marker_words("unpossessed", "sw") == "not possessed"
    assert marker_words("unpossessed", "squad") == "not possessed (SW/Gun)"
    assert marker_words("recalled", "vehicle") == "recalled (BU)"


def test_a_wounded_leaders_choice_and_roster_line_read_wounded(users, modules):
    """APD 3.1 "each wounded leader ... makes a dr": the American's choice of leader
    reads "8-1 leader (wounded)", and the roster "8-1 leader — wounded"."""
    from tests.test_apd17_pass17 import midday

    players, _ = midday(users, "3.1")
    add(players, "american", "8-1 leader", "leader", "wounded")
    american = Seat(players.users["american"], players.campaign_id)
    text = american.open()
    assert "(wounded (leader))" not in text
    assert "8-1 leader (wounded)" in american.html, text[:2000]
    client = Client()
    client.force_login(players.users["american"])
    page = client.get(f"/campaigns/{players.campaign_id}/roster/").content.decode()
    roster = re.sub(r"<[^>]+>", "", page)
    assert "8-1 leader — wounded" in roster
    assert "8-1 leader — wounded (leader)" not in roster


def test_apd_2_92_the_german_receives_no_points_and_the_american_reads_so(users, modules):
    """APD 2.92 / 3.5: only the American receives Purchase Points.  The American's log
    reads that the German receives none, not "German received its PP (secret)" (what
    the German carries stays his); the German's log keeps the American's figure secret."""
    from tests.test_apd17_pass17 import midday

    players, _ = midday(users, "3.1")
    american = Seat(players.users["american"], players.campaign_id)
    german = Seat(players.users["german"], players.campaign_id)
    american_text, german_text = american.open(), german.open()
    assert "German received its PP (secret)" not in american_text
    assert "German receives no PP (2.91-2.92)." in american_text
    assert "German receives no purchase points (2.91-2.92)" in german_text
    assert "American received its PP (secret)" in german_text


def test_a_table_rolled_once_per_side_asks_for_no_free_item(users, modules):
    """PHD C5.23 "Each side makes a secret DR": one DR for the side, about no unit,
    weapon or hex: its form has no free "For …" box."""
    from tests.test_phd_conph import phd_after

    players, _ = phd_after(users, "C5.23")
    add(players, "german", "4-6-7", "squad")
    german = Seat(players.users["german"], players.campaign_id)
    german.open()
    start = german.html.index('id="table-battlefield_promotion"')
    roller = german.html[start : german.html.index("</form>", start)]
    assert 'name="item"' not in roller
    assert "For (unit, weapon, hex" not in german.html
    assert german.press("Roll DR: Battlefield Promotion Table").status == 200


def test_sicily_cg_iii_is_shown_with_its_own_dates(users, modules):
    """Sicily 3.616 EXC names "the July 14 PM date of CG III": CG III's page header reads
    its own dates, not the module's July 17 PM."""
    from tests.test_sica18_pass18 import campaign_at

    players, _ = campaign_at("sicily", "iii", "jul14pm", users, step="3.601")
    axis = Seat(players.users["axis"], players.campaign_id)
    text = axis.open()
    assert "CG III, July 14 AM – July 14 PM" in text
    assert "July 17 PM" not in text
