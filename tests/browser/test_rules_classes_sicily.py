"""Issue 44 in real Chromium, Sicily (seed 001): one test per class of rule this audit
owns, each showing on screen the refusal, the figure counted or the result computed.

* class 3, a cap the app counts (tied to what a side holds, per CG date): AT mines
  only while an airborne MMC is retained (3.619 footnote d), the coy-type RGs per CG
  Date (3.617 Axis chart footnote m);
* class 4, a DRM the app computes, shown with its source (3.610 "+1 if Isolated" from
  the leader's marker), and a typed one outside what it can be refused (3.6142 "-x
  (Weapon Repair Number)");
* class 3 again, a cap on what a side holds: the units withdrawn off map (3.60742
  EXC) refuse Done until the excess is removed;
* class 5, roll discipline: a compulsory roll (3.610) blocks Done with a sentence, is
  made once per leader, and then Done is offered."""

import re
from functools import partial

import pytest

from campaign.models import Purchase, Seat, Unit
from campaign.services import units
from tests.browser.at_step import park
from tests.browser.helpers import live_page
from tests.purchase_helpers import add_unit, campaign_at, make_rolls
from tests.test_rule_mechanisms import buy

# The rules on screen: run once, on PostgreSQL + Redis (the embedded run leaves them out).
pytestmark = [pytest.mark.browser, pytest.mark.rules, pytest.mark.django_db(transaction=True)]


_open = partial(live_page, confirm=False)


def _refusal(page, where: str) -> str:
    """The sentence a refused click shows, beside it or in the page's flash."""
    shown = page.locator(f"{where} .refusal, #flash .refusal, #flash [role=alert]").first
    shown.wait_for()
    return shown.inner_text()


def test_class_3_caps_counted_from_what_the_side_holds_3_619_d_and_3_617_m(
    asgi_server, new_context, browser_login, modules, make_user
):
    """3.617 Axis chart footnote m: "no more than two coy type RG may be purchase on any
    given CG Date": after two, a third coy RG's row on July 14 PM offers no price and
    says why, with the count.  3.619 footnote d: "May only be purchased by the British
    when >= 1 airborne MMC is currently retained": with the squads of their airborne
    RG gone, the AT Mines row says why, and a click is refused with that sentence."""
    players, _ = campaign_at("sicily", "i", "jul14pm", (make_user("ax"), make_user("br")))
    cid = players.campaign_id
    axis = _open(asgi_server, new_context, browser_login, players, "axis")
    for gid, name in (("I5", "Alert Infantry Coy"), ("I7", "Italian Infantry Coy")):
        axis.locator(f"#rg-{gid}").get_by_role("button", name=re.compile(r"^Buy ")).first.click()
        axis.locator(".purchases li", has_text=name).wait_for()
    # The third coy RG's row no longer offers a price: it says why, with the count.
    row = axis.locator("#rg-I10.unavailable")
    row.wait_for(state="attached")  # the chart folds away what cannot be bought
    said = row.locator(".reason").text_content() or ""
    assert "footnote m" in said and "2" in said, said
    assert not row.get_by_role("button", name=re.compile(r"^Buy ")).count()
    assert not Unit.objects.filter(campaign_id=cid).exists()
    assert not Purchase.objects.filter(campaign_id=cid, group_id="I10").exists()

    park(axis)  # done with; the walk to the Fortification step pushes nothing to it
    i2 = buy(players, "british", "I2")
    make_rolls(players, "british", i2)
    for squad in Unit.objects.filter(campaign_id=cid, purchase=i2, kind="squad"):
        units.remove_unit(campaign_id=cid, user=players.users["british"], unit_id=squad.ref)
    Seat.objects.filter(campaign_id=cid).update(fortification_points=20)
    players.until("fortify")
    brit = _open(asgi_server, new_context, browser_login, players, "british")
    row = brit.locator("#fort-at_mines")
    assert "a squad or half-squad of it retained (3.619 footnote d)" in row.inner_text()
    row.get_by_role("button", name="Buy").click()
    said = _refusal(brit, "#fort-at_mines")
    assert "3.619 footnote d" in said, said
    assert Seat.objects.get(campaign_id=cid, side="british").fortification_points == 20


def test_class_4_a_computed_drm_shown_with_its_source_and_a_typed_one_bounded_3_610_3_6142(
    asgi_server, new_context, browser_login, modules, make_user
):
    """3.610 "+1 if Isolated": the panel says it applies by itself, and the dr for a
    leader marked Isolated on the retained forces shows the +1 with its words, its
    Final dr the faces plus one.  3.6142 "-x (Weapon Repair Number)": a Repair Number
    of 7 (typed -7) is refused with the rule, and nothing is rolled."""
    players, _ = campaign_at(
        "sicily", "i", "jul15am", (make_user("ax"), make_user("br")), step="3.610"
    )
    add_unit(players, "axis", "9-1 leader", "leader", "wounded", markers=["isolated"])
    axis = _open(asgi_server, new_context, browser_login, players, "axis")
    roller = axis.locator("#table-wounded_leaders")
    assert "+1 if Isolated — applied by itself when it holds" in roller.inner_text()
    roller.get_by_role("button", name="Roll dr").click()
    roll = axis.locator(".rolls .roll").first
    roll.wait_for()
    text = roll.inner_text()
    assert "+1 if Isolated" in text, text
    faces = int(roll.locator(".faces").inner_text())
    assert int(roll.locator(".final").inner_text()) == faces + 1

    players.until_step("3.614")
    add_unit(players, "axis", "LMG", "sw", "malfunctioned")
    axis.reload()
    repair = axis.locator("#table-weapon_repair")
    repair.locator("input[name='typed.repair_number']").fill("-7")
    repair.get_by_role("button", name="Roll dr").click()
    said = _refusal(axis, "#table-weapon_repair")
    assert "must be between -6 and -1 (3.6142)" in said, said
    assert not players.campaign.rolls.filter(table_id="weapon_repair").exists()


def test_class_5_a_compulsory_roll_blocks_done_and_is_made_once_3_610(
    asgi_server, new_context, browser_login, modules, make_user
):
    """3.610: "Each side makes a dr on the following table for each currently wounded
    Retained Leader": Done is not offered while the dr is owed, and the page says why;
    once made, the leader is offered no second dr, and Done is offered."""
    players, _ = campaign_at(
        "sicily", "i", "jul15am", (make_user("ax"), make_user("br")), step="3.610"
    )
    add_unit(players, "british", "8-1 leader", "leader", "wounded")
    brit = _open(asgi_server, new_context, browser_login, players, "british")
    lacking = brit.locator("#finish-lacking").inner_text()
    assert lacking == (
        "Roll first: the Wounded Leaders for 8-1 leader (3.610). "
        "The rules make this roll compulsory."
    ), lacking
    assert not brit.get_by_role("button", name="Done with 3.610", exact=True).count()
    roller = brit.locator("#table-wounded_leaders")
    roller.get_by_role("button", name="Roll dr").click()
    brit.get_by_role("button", name="Done with 3.610", exact=True).wait_for()
    assert not roller.get_by_role("button", name="Roll dr").count()
    assert players.campaign.rolls.filter(table_id="wounded_leaders").count() == 1


def test_class_3_withdrawn_units_over_the_3_60742_exc_caps_refuse_done(
    asgi_server, new_context, browser_login, modules, make_user
):
    """3.60742 EXC: "No more than three leaders ... may be retained in this fashion; any
    excess units, owners choice, are removed from play": the Axis holding four leaders
    Withdrawn (off map) presses Done and is told, where he clicked, how many to remove
    and why; nothing moves.  Once he has removed one, Done goes."""
    players, _ = campaign_at(
        "sicily", "i", "jul15am", (make_user("ax"), make_user("br")), step="3.608"
    )
    leaders = add_unit(players, "axis", "8-1 leader", "leader", "withdrawn", 4)
    axis = _open(asgi_server, new_context, browser_login, players, "axis")
    axis.get_by_role("button", name="Done with 3.608", exact=True).click()
    axis.get_by_role("alert").filter(
        has_text="no more than 3 leaders withdrawn off map (3.60742 EXC): remove 1"
    ).wait_for()
    assert players.step.id == "3.608"
    units.update_unit(
        campaign_id=players.campaign_id,
        user=players.users["axis"],
        unit_id=leaders.ref,
        name=leaders.name,
        markers=["withdrawn"],
        number=3,
    )
    axis.reload()
    axis.locator("body[data-live]").wait_for(state="attached")
    axis.get_by_role("button", name="Done with 3.608", exact=True).click()
    axis.locator("#campaign-log", has_text="finished 3.608").wait_for()
