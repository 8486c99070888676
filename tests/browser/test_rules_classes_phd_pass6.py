"""Issue 44, sixth PHD pass, in real Chromium: a cap the app counts from what a side
holds (class 3: C5.26b's FT/DC per Assault Engineer squad-equivalent), its refusal on
the screen where the player clicked, nothing rolled."""

import pytest

from campaign.models import Roll, Unit
from tests.browser.test_rules_classes_sicily import _open, _refusal
from tests.purchase_helpers import add_unit
from tests.test_phd_pass6 import with_pioneers

# The rules on screen: run once, on PostgreSQL + Redis (the embedded run leaves them out).
pytestmark = [pytest.mark.browser, pytest.mark.rules, pytest.mark.django_db(transaction=True)]


def test_c5_26b_class_3_no_ft_repair_past_the_assault_engineers(
    asgi_server, new_context, browser_login, modules, make_user
):
    """C5.26b: "The total number of FT/DC (each) after the repair phase may not exceed
    the total number of (non-isolated) Assault Engineer squad-equivalents currently
    available": the German retains one Pionier squad (RG footnote e) and one FT; his
    dr for another FT is refused on his page with the counts and the rule, nothing
    rolled; his dr for a DC is made."""
    players, c = with_pioneers((make_user("ge_p"), make_user("us_p")), 1, "C5.26")
    add_unit(players, "german", "FT", "sw")
    assert Unit.objects.filter(campaign=c, side="german", kind="squad").count() == 1
    ge = _open(asgi_server, new_context, browser_login, players, "german")
    table = ge.locator("#table-baz_psk_ft_dc_repair")
    ge.locator("#item-baz_psk_ft_dc_repair").fill("FT of the 4-4-7 in 23K4")
    table.get_by_role("button", name="Roll dr").click()
    said = _refusal(ge, "#table-baz_psk_ft_dc_repair")
    assert "You retain 1 FT and 1 (non-isolated) Assault Engineer squad-equivalents" in said
    assert "(C5.26b)" in said
    assert not Roll.objects.filter(campaign=c, table_id="baz_psk_ft_dc_repair").exists()
    ge.locator("#item-baz_psk_ft_dc_repair").fill("DC in 23K4")
    table.get_by_role("button", name="Roll dr").click()
    ge.locator("#campaign-step .rolls li", has_text="DC in 23K4").wait_for()
