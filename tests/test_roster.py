"""Issue 9: the shared roster — CG Roster, RG Purchase Records, retained forces."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from campaign.models import Campaign, Purchase, Seat, Unit
from campaign.services import purchases, steps, units
from campaign.services.errors import ActionRefused
from tests import test_rule_mechanisms as mechanisms
from tests.purchase_helpers import campaign_at, make_rolls, roster_of
from tests.walk import Players

pytestmark = pytest.mark.django_db

fixed_dice = mechanisms.fixed_dice


@pytest.fixture
def users(make_user):
    return make_user("axis_p"), make_user("brit_p")


def test_roster_lines_show_own_points_and_hide_the_opponents(modules, users, login):
    """Rules: 3.6171, 3.6172, C1.3."""
    players, _ = campaign_at("sicily", "i", "jul14pm", users, points=50)
    purchases.purchase_rg(
        campaign_id=players.campaign_id, user=players.users["axis"], group_id="I4"
    )
    c = players.campaign
    mine = roster_of(c, "axis")
    line = mine.lines[-1]
    assert line.date == "July 14 PM"
    axis, british = line.sides
    assert axis.spent == 15 and axis.rgs == ["I4 (15)"]
    assert british.start is None and british.left is None and british.rgs == []
    theirs = roster_of(c, "british")
    assert theirs.lines[-1].sides[0].rgs == [] and theirs.lines[-1].sides[0].spent is None
    html = login(players.users["british"]).get(f"/campaigns/{c.pk}/roster/").content.decode()
    assert "Fallschirmjäger Signal Coy" not in html and ">I4<" not in html


@pytest.mark.parametrize("dates,buys", [(2, 4), (11, 60)])
def test_roster_page_runs_a_constant_number_of_queries(modules, users, login, dates, buys):
    """11 dates and 60 purchases cost no more queries than 2 dates and 4."""
    players, module = campaign_at("sicily", "i", "jul14pm", users, points=5000)
    c = players.campaign
    Campaign.objects.filter(pk=c.pk).update(date_index=min(dates, len(module.dates)) - 1)
    groups = [g for g in module.chart("axis").groups]
    Purchase.objects.bulk_create(
        Purchase(
            campaign=c,
            side="axis",
            cycle=0,
            date_index=i % dates,
            group_id=groups[i % 5].id,
            group_type=groups[i % 5].type,
            cost=3,
            ordinal=i + 1,
            cg_max=None,
            date_ordinal=i + 1,
            date_max=None,
            revealed_at=None,
        )
        for i in range(buys)
    )
    Unit.objects.bulk_create(Unit(campaign=c, side="axis", name=f"u{i}") for i in range(buys))
    client = login(players.users["axis"])
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(f"/campaigns/{c.pk}/roster/").status_code == 200
    assert len(ctx.captured_queries) <= 20, len(ctx.captured_queries)
    with CaptureQueriesContext(connection) as ctx:
        roster_of(c.pk, "british")
    assert len(ctx.captured_queries) <= 12


def test_units_add_edit_remove_and_only_by_their_owner(modules, users):
    players, _ = campaign_at("sicily", "i", "jul14pm", users)
    axis, brit = players.users["axis"], players.users["british"]
    u = units.add_unit(
        campaign_id=players.campaign_id, user=axis, name="8-1 leader", markers=["wounded"]
    )
    units.update_unit(
        campaign_id=players.campaign_id,
        user=axis,
        unit_id=u.ref,
        name="8-1 leader",
        markers=[],
        location="12G4",
    )
    with pytest.raises(ActionRefused) as exc:
        units.remove_unit(campaign_id=players.campaign_id, user=brit, unit_id=u.ref)
    assert exc.value.status == 404
    with pytest.raises(ActionRefused, match="markers among those listed"):
        units.update_unit(
            campaign_id=players.campaign_id, user=axis, unit_id=u.ref, name="x", markers=["dead"]
        )
    units.remove_unit(campaign_id=players.campaign_id, user=axis, unit_id=u.ref)
    assert not Unit.objects.exists()


def test_a_table_roll_for_a_unit_writes_its_result_back(hosted):
    """Wounded leaders (fixture T3.2): ≥5 evacuated → removed; ≤2 recovers."""
    campaign, alice, bob = hosted
    players = Players(campaign, {"red": alice, "blue": bob})
    players.results(**{"cvp_lost.red": 0, "cvp_lost.blue": 0, "san.red": 2, "san.blue": 2})
    players.until("table")
    outcomes = set()
    for _ in range(12):
        u = units.add_unit(
            campaign_id=campaign.pk,
            user=alice,
            name="9-1 leader",
            kind="leader",
            markers=["wounded"],
        )
        r = steps.roll_on_table(
            campaign_id=campaign.pk, user=alice, table_id="wounded", unit_id=u.ref
        )
        left = Unit.objects.filter(pk=u.pk).first()
        if r.final >= 5:
            assert left is None
            outcomes.add("removed")
        elif r.final <= 2:
            assert left.markers == []
            outcomes.add("recovered")
        else:
            assert left.markers == ["wounded"]
        Unit.objects.filter(pk=u.pk).delete()
    assert outcomes  # the dice decided at least one write-back


def test_rolled_rgs_join_the_retained_forces_secretly(modules, users, login):
    """Rules: 3.6173, 3.6174."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, policy="owner")
    p = purchases.purchase_rg(
        campaign_id=players.campaign_id, user=players.users["british"], group_id="I1"
    )
    make_rolls(players, "british", p)
    names = list(Unit.objects.filter(side="british").values_list("name", flat=True))
    assert any("I1 Lgt Inf Rifle Coy" in n for n in names)
    assert any("leader (I1)" in n for n in names)
    axis_view = roster_of(players.campaign, "axis")
    assert all(not f.units for f in axis_view.forces if not f.mine)


def test_a_group_of_several_unit_types_joins_as_each_type(modules, users, fixed_dice):
    """British chart I1 "4-5-8;4-5-7;4-4-7 (4/3 each)" and footnote s ("If depleted 1
    less of each squad type is received"): the RG joins as 4 (or 3) of each type, each a
    line of its own; Axis I2 "MMG;HMG" at "2;2" as 2 MMG, 2 HMG and a 2-4-8 HS with
    each MG (footnote d).  Rules: 3.617."""
    from campaign.models import Purchase

    players, _ = campaign_at("sicily", "i", "jul14n", users)
    bought = [
        (
            side,
            purchases.purchase_rg(
                campaign_id=players.campaign_id, user=players.users[side], group_id=group_id
            ),
        )
        for side, group_id in (("british", "I1"), ("axis", "I2"))
    ]
    # The Axis I2 rolls first, at Full Strength: a Depleted I2 has no figure in the rules
    # text (3.617 footnote c) and is tried in test_sicily_pass10b.
    fixed_dice.append([1, 1])
    for side, p in reversed(bought):
        make_rolls(players, side, p)
    i1 = Purchase.objects.get(side="british", group_id="I1")
    each = 4 if i1.strength == "full" else 3
    squads = dict(Unit.objects.filter(side="british", kind="squad").values_list("name", "count"))
    assert squads == {f"{t} (I1 Lgt Inf Rifle Coy)": each for t in ("4-5-8", "4-5-7", "4-4-7")}
    axis = dict(Unit.objects.filter(side="axis").values_list("name", "count"))
    assert axis["MMG (I2 Fallschirmjäger MG Pltn)"] == 2
    assert axis["HMG (I2 Fallschirmjäger MG Pltn)"] == 2
    assert axis["2-4-8 HS (I2)"] == 4


def test_chart_svg_shows_the_opponents_line_only_at_the_end(modules, users):
    players, _ = campaign_at("sicily", "i", "jul14pm", users)
    svg = roster_of(players.campaign, "axis").points_chart
    assert svg.startswith("<svg") and "Axis" in svg and "British" not in svg


def test_roster_lists_fortifications_with_their_locations_for_their_owner(modules, users):
    """Rules: 3.6222."""
    players, _ = campaign_at("sicily", "i", "jul14pm", users)
    axis = players.users["axis"]
    purchases.purchase_rg(campaign_id=players.campaign_id, user=axis, group_id="M3")
    players.until("fortify")
    purchases.buy_fortification(
        campaign_id=players.campaign_id, user=axis, item_id="roadblock", location="12H3"
    )
    c = players.campaign
    assert roster_of(c, "axis").fortifications == ["July 14 PM: Axis 1 × Roadblock at 12H3"]
    assert roster_of(c, "british").fortifications == []


def test_owner_records_an_rg_entry_area_which_stays_secret_until_revealed(modules, users, login):
    """Rules: 3.6179."""
    players, _ = campaign_at("sicily", "i", "jul14n", users, policy="owner")
    brit = players.users["british"]
    p = purchases.purchase_rg(campaign_id=players.campaign_id, user=brit, group_id="V6")
    response = login(brit).post(
        f"/campaigns/{players.campaign_id}/act/entry-area/",
        {"purchase": p.ref, "entry_area": "Entry Area B (north road)", "notes": "holding box"},
    )
    assert response.status_code == 302
    p.refresh_from_db()
    assert p.entry_area == "Entry Area B (north road)" and p.notes == "holding box"
    axis_page = login(players.users["axis"]).get(f"/campaigns/{players.campaign_id}/roster/")
    assert "north road" not in axis_page.content.decode()
    with pytest.raises(ActionRefused):
        purchases.record_entry_area(
            campaign_id=players.campaign_id,
            user=players.users["axis"],
            purchase_id=p.ref,
            entry_area="forged",
        )


def test_an_unchanged_roster_is_rendered_once_and_every_page_gets_a_token_that_works(
    modules, users
):
    """A reload renders no part again (``ROSTER_MEMO``), yet each answer carries a CSRF
    token of its own that Django accepts; a change is shown at the next load."""
    from django.test import Client

    from campaign.fragments import ROSTER_MEMO, ROSTER_PARTS, PartMemo, roster_fragments
    from campaign.live_pages import FROM_SEAT

    players, _ = campaign_at("sicily", "i", "jul14pm", users)
    axis = players.users["axis"]
    client = Client(enforce_csrf_checks=True)
    client.force_login(axis)
    url = f"/campaigns/{players.campaign_id}/roster/"
    ROSTER_MEMO.clear()
    first = client.get(url).content.decode()
    memoised = len(ROSTER_PARTS.keys() - FROM_SEAT)  # the unread count: the seat's own
    assert len(ROSTER_MEMO) == memoised
    again = client.get(url).content.decode()
    assert len(ROSTER_MEMO) == memoised  # nothing rendered again
    assert PartMemo.TOKEN not in first + again
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', again)[1]
    added = client.post(
        f"/campaigns/{players.campaign_id}/units/",
        {
            "csrfmiddlewaretoken": token,
            "do": "add",
            "count": "2",
            "name": "8-1 leader",
            "kind": "leader",
            "page": "roster",
        },
        headers={"HX-Request": "true", "X-Refit-Page": "roster"},
    )
    assert added.status_code == 200, added.content[:300]
    assert "8-1 leader" in client.get(url).content.decode()
    # A socket's render (no request) carries an empty token, as it always did.
    view = roster_of(players.campaign, "axis")
    pushed = "".join(html for _, html in roster_fragments(view, ROSTER_PARTS, user=axis))
    assert PartMemo.TOKEN not in pushed and 'name="csrfmiddlewaretoken" value=""' in pushed


def test_a_reload_of_an_unchanged_campaign_reads_only_the_session_user_and_seat(
    modules, users, login
):
    """The roster's view is memoised per seat revision: reloading an unchanged campaign
    reads nothing more.  A change kept secret by one side renews that side's revision
    only, so the opponent's reload stays a memo hit (the same 3 statements, and the
    same time: nothing tells him the opponent acted), while the buyer's next load
    shows it; a change both may see (a reveal, a unit of no RG) renews both."""
    from django.test import Client

    players, _ = campaign_at("sicily", "i", "jul14pm", users)
    cid = players.campaign_id
    url = f"/campaigns/{cid}/roster/"
    axis, british = login(players.users["axis"]), Client()
    british.force_login(players.users["british"])

    def load(client):
        with CaptureQueriesContext(connection) as ctx:
            response = client.get(url)
        assert response.status_code == 200
        html = re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", response.content.decode())
        html = re.sub(r'"X-CSRFToken": "[^"]*"', "", html)
        return html, len(ctx.captured_queries)

    def revisions():
        return dict(Seat.objects.filter(campaign_id=cid).values_list("side", "revision"))

    first, read = load(axis)
    again, reread = load(axis)
    assert again == first and reread == 3 < read  # session, user, seat
    load(british)
    before = revisions()
    bought = purchases.purchase_rg(campaign_id=cid, user=players.users["british"], group_id="M1")
    after = revisions()
    assert after["axis"] == before["axis"] and after["british"] != before["british"]
    assert load(axis) == (first, 3)  # the opponent's secret: not even a re-read
    own, read = load(british)
    assert ">M1<" in own and read > 3  # the buyer's own view, read at its new revision
    purchases.reveal_purchase(
        campaign_id=cid, user=players.users["british"], purchase_id=bought.ref
    )
    shown, read = load(axis)
    assert ">M1<" in shown and read > 3
    units.add_unit(campaign_id=cid, user=players.users["axis"], name="9-2 leader", kind="leader")
    assert "9-2 leader" in load(axis)[0]
    assert "9-2 leader" in load(british)[0]  # a unit of no RG purchase is public


def test_the_part_memo_keeps_the_newest_entries():
    from campaign.fragments import PartMemo

    memo = PartMemo(size=2)
    for key in ("a", "b", "c"):
        memo.put((key,), key.upper())
    memo.get(("b",))
    memo.put(("d",), "D")
    assert len(memo) == 2 and memo.get(("a",)) is None and memo.get(("c",)) is None
    assert memo.get(("b",)) == "B" and memo.get(("d",)) == "D"


def test_choice_labels_are_what_the_models_display():
    """The roster and the purchase records name a state and a chit by
    ``choice_label``: the model's own ``get_FOO_display()``, an unknown value included."""
    from campaign.models import InitiativeChit, Purchase
    from campaign.seat_views.common import choice_label

    for choices, model, field in (
        (Purchase.State, Purchase, "state"),
        (InitiativeChit.Chit, InitiativeChit, "chit"),
    ):
        for value in [*choices.values, "not-a-choice"]:
            shown = getattr(model(**{field: value}), f"get_{field}_display")()
            assert choice_label(choices, value) == shown


def test_points_forfeited_are_not_left_and_one_scenario_is_drawn(modules, users):
    """Issue 47: the 29 CPP the Axis received on July 14 PM and leaves unspent are lost
    when the purchase step ends (3.617 EXC): the roster's "Left" writes them, "even if
    zero" (3.617), and marks them lost, so none are carried to the next Start; a chart
    of one scenario draws its point."""
    players, _ = campaign_at("sicily", "i", "jul14pm", users, points=29)
    for side in ("axis", "british"):
        steps.finish_step(campaign_id=players.campaign_id, user=players.users[side])
    view = roster_of(players.campaign, "axis")
    line = next(ln for ln in view.lines if ln.date == "July 14 PM")
    me = line.sides[[s for s in view.side_names].index("Axis")]
    assert (me.left, me.lost, me.carried) == (29, 29, 0), me
    assert "<circle" in view.cvp_chart


def test_unit_choices_are_made_from_the_rules_vocabularies():
    """Issue 45: ``Unit.Status``, ``Unit.Kind`` and ``Unit.WeaponKind`` are made from
    rules.schema's closed vocabularies and their words (one place), never copied."""
    from typing import get_args

    from rules.schema import (
        UNIT_KIND_WORDS,
        UNIT_STATUS_WORDS,
        WEAPON_KIND_WORDS,
        UnitKind,
        UnitStatus,
        WeaponKind,
    )

    for choices, literal, words in (
        (Unit.Status, UnitStatus, UNIT_STATUS_WORDS),
        (Unit.Kind, UnitKind, UNIT_KIND_WORDS),
        (Unit.WeaponKind, WeaponKind, WEAPON_KIND_WORDS),
    ):
        assert choices.values == list(get_args(literal))
        assert dict(choices.choices) == words
    assert Unit.Status("battle_hardened").label == "battle hardened"


def test_a_vehicles_weapons_are_listed_marked_and_taken_off_in_its_vocabulary(modules, users):
    """Issue 45, Sicily 3.6142 / 3.61421: a vehicle's record lists its MA and MGs, each
    with its markers from the closed vocabulary; a weapon outside it, a second MA, a
    weapon on a squad, a vehicle's line marked for its weapon's condition, or another
    side's vehicle are refused in words, nothing changed; the log says what was done."""
    from campaign.models import Event

    players, _ = campaign_at("sicily", "i", "jul14pm", users)
    axis, brit = players.users["axis"], players.users["british"]
    cid = players.campaign_id
    tank = units.add_unit(campaign_id=cid, user=axis, name="PzIIIN", kind="vehicle")
    squad = units.add_unit(campaign_id=cid, user=axis, name="4-6-7", kind="squad")
    tank = units.add_weapon(campaign_id=cid, user=axis, unit_id=tank.ref, kind="ma")
    tank = units.add_weapon(
        campaign_id=cid,
        user=axis,
        unit_id=tank.ref,
        kind="mg",
        name="CMG",
        markers=["malfunctioned"],
    )
    ma, cmg = (w["ref"] for w in tank.weapons)
    assert [(w["kind"], w["name"], w["markers"]) for w in tank.weapons] == [
        ("ma", "MA", []),
        ("mg", "CMG", ["malfunctioned"]),
    ]
    refusals = [
        (
            "Choose what the weapon is",
            lambda: units.add_weapon(campaign_id=cid, user=axis, unit_id=tank.ref, kind="flak"),
        ),
        (
            "already lists its MA",
            lambda: units.add_weapon(campaign_id=cid, user=axis, unit_id=tank.ref, kind="ma"),
        ),
        (
            "4-6-7 is not a vehicle",
            lambda: units.add_weapon(campaign_id=cid, user=axis, unit_id=squad.ref, kind="mg"),
        ),
        (
            "weapon's markers among those listed",
            lambda: units.update_weapon(
                campaign_id=cid,
                user=axis,
                unit_id=tank.ref,
                weapon_id=cmg,
                name="CMG",
                markers=["jammed"],
            ),
        ),
        (
            "A vehicle's weapons are marked, not the vehicle",
            lambda: units.update_unit(
                campaign_id=cid, user=axis, unit_id=tank.ref, name="PzIIIN", markers=["disabled"]
            ),
        ),
        (
            "You have no such unit",
            lambda: units.remove_weapon(campaign_id=cid, user=brit, unit_id=tank.ref, weapon_id=ma),
        ),
        (
            "carries no such weapon",
            lambda: units.remove_weapon(
                campaign_id=cid, user=axis, unit_id=tank.ref, weapon_id="zzzz"
            ),
        ),
    ]
    for words, change in refusals:
        with pytest.raises(ActionRefused, match=words):
            change()
    tank.refresh_from_db()
    assert (tank.markers, len(tank.weapons)) == ([], 2)
    units.update_weapon(
        campaign_id=cid,
        user=axis,
        unit_id=tank.ref,
        weapon_id=cmg,
        name="CMG",
        markers=["disabled"],
    )
    units.remove_weapon(campaign_id=cid, user=axis, unit_id=tank.ref, weapon_id=ma)
    tank.refresh_from_db()
    assert [(w["name"], w["markers"]) for w in tank.weapons] == [("CMG", ["disabled"])]
    said = list(Event.objects.filter(kind="unit").values_list("text", flat=True))
    assert "Axis marks PzIIIN's CMG (disabled)." in said
    assert "Axis takes MA off the record of PzIIIN." in said
    # The roster shows each weapon under its vehicle, with its markers.
    view = roster_of(players.campaign, "axis")
    line = next(u for f in view.forces if f.mine for u in f.units if u.name == "PzIIIN")
    assert [(w.name, w.markers_label) for w in line.weapons] == [("CMG", "disabled")]


@pytest.mark.parametrize("field", ["weapons", "markers"])
def test_a_units_weapons_and_markers_are_lists_in_the_database(modules, users, field):
    """Issue 45: a unit's weapons (and markers) are a list whatever writes them: the
    database refuses anything else (a CHECK constraint)."""
    from django.db import IntegrityError, transaction

    players, _ = campaign_at("sicily", "i", "jul14pm", users)
    tank = units.add_unit(
        campaign_id=players.campaign_id, user=players.users["axis"], name="PzIIIN", kind="vehicle"
    )
    with pytest.raises(IntegrityError), transaction.atomic():
        Unit.objects.filter(pk=tank.pk).update(**{field: {"ref": "w1", "kind": "ma"}})
    Unit.objects.filter(pk=tank.pk).update(**{field: []})


def test_issue_45_a_backup_written_before_one_state_per_unit_restores_its_markers(hosted):
    """Issue 45: a unit's state is the set of its markers.  A backup written before it
    gave each unit a ``status`` besides its markers: restored, each unit carries its
    status among its markers (each once, in the vocabulary's order; "ok" none), and the
    file written again reads as today's."""
    import json

    from campaign.services.backup import export_campaign, import_campaign

    campaign, alice, _ = hosted
    old = [  # status, markers then; markers now
        ("recalled", ["isolated"], ["isolated", "recalled"]),
        ("captured", ["malfunctioned", "captured"], ["malfunctioned", "captured"]),
        ("ok", ["battle_hardened"], ["battle_hardened"]),
        ("wounded", [], ["wounded"]),
        ("ok", [], []),
    ]
    for n, (_, _, now) in enumerate(old):
        units.add_unit(campaign_id=campaign.pk, user=alice, name=f"unit {n}", markers=now)
    payload = json.loads(export_campaign(campaign_id=campaign.pk))
    rows = [
        o
        for o in payload["objects"]
        if o["model"] == "campaign.unit" and o["fields"]["name"].startswith("unit ")
    ]
    assert len(rows) == len(old)
    for row, (status, markers, _) in zip(rows, old, strict=True):
        row["fields"] |= {"status": status, "markers": markers}
    today = export_campaign(campaign_id=campaign.pk)
    Campaign.objects.all().delete()
    import_campaign(data=json.dumps(payload).encode())
    restored = {
        u.name: u.markers
        for u in Unit.objects.filter(campaign_id=campaign.pk, name__startswith="unit ")
    }
    assert restored == {f"unit {n}": now for n, (_, _, now) in enumerate(old)}
    assert export_campaign(campaign_id=campaign.pk) == today
