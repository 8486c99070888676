"""Query budgets of the pages after a change (issue 49): the campaign page at a step
whose Done waits on compulsory rolls per unit (Sicily 3.610, 3.613 †: a table only a
unit an earlier roll sent to it rolls on) reads the side's rolls of the pass once, for
the rolls made and for the earlier table's results, and runs the same statements with
ten times the data."""

from __future__ import annotations

import uuid

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from campaign.models import Seat
from campaign.selectors import module_of
from tests.purchase_helpers import campaign_at
from tests.test_queries import LARGE, SMALL, _grow, statements


def _after_a_change(client: Client, campaign_id: str, page: str) -> list[str]:
    """The statements of ``page`` loaded at a new revision (what every change does to
    the seats), the data left as it is."""
    Seat.objects.filter(campaign_id=campaign_id).update(revision=uuid.uuid4())
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(f"/campaigns/{campaign_id}/{page}")
    assert response.status_code == 200, response.content[:500]
    return statements(ctx)


def _at_wounded_leaders(make_user, scale, n):
    """Sicily at 3.610 (wounded leaders' rolls), 3.613's Shift and Casualties ahead."""
    date, factor = scale
    users = (make_user(f"axis_w{n}"), make_user(f"brit_w{n}"))
    players, _ = campaign_at("sicily", "i", date, users, step="3.610")
    _grow(players, factor)
    client = Client()
    client.force_login(players.users["axis"])
    return players, client


@pytest.mark.django_db
def test_campaign_page_reads_the_passes_rolls_once_for_owed_rolls_3_613(make_user, modules):
    """Sicily 3.613 †: the units the Shift DR sends to a table owe its roll; the page
    finds them in the same read as the rolls made (one statement on the rolls)."""
    players, client = _at_wounded_leaders(make_user, SMALL, 1)
    module_tables = [t for t in module_of(players.campaign).tables if t.after is not None]
    assert module_tables, "Sicily has a table rolled only after an earlier one (3.613 †)"
    sql = _after_a_change(client, players.campaign_id, "")
    # The step's own rolls (its panel's lists) are read by step; the pass's, which the
    # owed rolls and the Shift's results come from, once.
    of_pass = [s for s in sql if 'FROM "campaign_roll"' in s and '"step_id" =' not in s]
    assert len(of_pass) == 1, "\n".join(of_pass)


@pytest.mark.django_db
def test_pages_after_a_change_run_the_same_queries_with_ten_times_the_data(make_user, modules):
    counts = []
    for n, scale in enumerate((SMALL, LARGE)):
        players, client = _at_wounded_leaders(make_user, scale, n)
        counts.append(
            {
                page or "campaign": len(_after_a_change(client, players.campaign_id, page))
                for page in ("", "roster/")
            }
        )
    small, large = counts
    assert small == large
    # Today's counts, session and user included (the campaign page at 3.610 read the
    # pass's rolls three times until 2026-11-28: 17 statements).
    # (the roster reads the lines removed by mistake, to put back, with its points: C5.1)
    assert small["campaign"] <= 15 and small["roster/"] <= 11, small


def test_url_once_names_what_the_url_tag_names():
    """``url_once`` gives the HTML ``{% url %}`` gives (escaped alike), under another
    script prefix too, and reverses each distinct URL once."""
    from django.template import engines
    from django.urls import set_script_prefix

    from campaign.templatetags import refit

    django = engines["django"]
    source = "{%% load refit %%}<a href=\"{%% %s 'supply' cid path %%}\">"
    context = {"cid": uuid.uuid4(), "path": "tables.a&b <c>"}
    try:
        for prefix in ("/", "/refit/"):
            set_script_prefix(prefix)
            once, plain = (
                django.from_string(source % tag).render(context) for tag in ("url_once", "url")
            )
            assert once == plain and prefix in once, (once, plain)
        calls = []
        real = refit.reverse
        refit.reverse = lambda *a, **k: calls.append(a) or real(*a, **k)
        try:
            for _ in range(3):
                django.from_string(source % "url_once").render({**context, "cid": context["cid"]})
        finally:
            refit.reverse = real
        assert calls == []  # met above under this prefix: not reversed again
    finally:
        set_script_prefix("/")


def _as_from_the_view(view, part="supplies") -> str:
    """``part`` rendered from the whole seat view (how the part was rendered before it
    was rendered from its inputs)."""
    from campaign.fragments import CAMPAIGN_PARTS, Part, PartMemo, fingerprint, render_template

    html = render_template(
        CAMPAIGN_PARTS[Part(part)],
        {"view": view, "oob": False, "csrf_token": PartMemo.TOKEN},
    ).replace(PartMemo.TOKEN, "tok")
    return html.replace("<section", f'<section data-part="{part}" data-fp="{fingerprint(html)}"', 1)


@pytest.mark.django_db
def test_the_rules_data_to_supply_render_from_their_inputs_as_from_the_view(modules, make_user):
    """Sicily's start (the Initial Scenario's OB, SAN, ELR... missing), then a start
    sheet and a datum proposed: the part rendered from its inputs alone is the part
    rendered from the whole view, for both seats; a change that leaves the data as they
    were (a new revision) renders it from the memo."""
    from campaign import fragments
    from campaign.fragments import Part, campaign_fragments
    from campaign.seat_views.campaign_page import campaign_view
    from campaign.services import supplements
    from tests.purchase_helpers import host_game, players_of

    axis, brit = make_user("axis_s"), make_user("brit_s")
    players = players_of(host_game("sicily", "i", axis, brit, through_start=False), axis, brit)
    start = "variants.i.start"

    def parts(whole: bool = True):
        for side in ("axis", "british"):
            user = players.users[side]
            view = campaign_view(user, players.campaign_id)
            ((_, html),) = campaign_fragments(
                view, [Part.SUPPLIES], user=user, origin="http://x", oob=False, token="tok"
            )
            if whole:
                yield html, _as_from_the_view(campaign_view(user, players.campaign_id))
            else:
                yield html, None

    for html, whole in parts():
        assert html == whole and "Supply it" in html
    supplements.propose_start_sheet(
        campaign_id=players.campaign_id,
        user=axis,
        forms={f"{start}.san": {"value.axis": "3", "value.british": "2"}},
    )
    supplements.propose_supplement(
        campaign_id=players.campaign_id,
        user=brit,
        path=f"{start}.elr",
        form={"value.axis": "4", "value.british": "3"},
    )
    for html, whole in parts():
        assert html == whole
        assert "Withdraw the start sheet" in html or "Accept all 1" in html, html

    rendered = []
    real = fragments.render_template
    fragments.render_template = lambda t, *a, **k: rendered.append(t) or real(t, *a, **k)
    try:
        Seat.objects.filter(campaign_id=players.campaign_id).update(revision=uuid.uuid4())
        assert len(list(parts(whole=False))) == 2
    finally:
        fragments.render_template = real
    assert rendered == [], rendered


@pytest.mark.django_db
def test_the_rg_purchase_records_part_is_rendered_once_per_its_lines_3_6179(make_user, modules):
    """Sicily 3.6179's RG Purchase Records: the part is the table of the lines the seat
    sees (the same HTML as rendered from the whole view, for both seats); a change
    that leaves them as they were (a new revision) does not render it again, and a
    purchase does."""
    from campaign import fragments
    from campaign.fragments import Part, campaign_fragments
    from campaign.seat_views.campaign_page import campaign_view
    from tests.purchase_helpers import campaign_at

    players, _ = campaign_at("sicily", "i", "jul14pm", (make_user("axis_r"), make_user("brit_r")))
    cid = players.campaign_id
    at = f"{players.campaign.cycle}.{players.campaign.step_index}"
    client = Client()
    client.force_login(players.users["axis"])
    bought = client.post(
        f"/campaigns/{cid}/act/buy/", {"group": "I4", "at": at}, HTTP_HX_REQUEST="true"
    )
    assert bought.status_code == 200, bought.content[:300]

    def record(side):
        user = players.users[side]
        ((_, html),) = campaign_fragments(
            campaign_view(user, cid),
            [Part.RECORD],
            user=user,
            origin="http://x",
            oob=False,
            token="tok",
        )
        return html

    for side in ("axis", "british"):
        assert record(side) == _as_from_the_view(campaign_view(players.users[side], cid), "record")
    rendered = []
    real = fragments.render_template
    fragments.render_template = lambda t, *a, **k: rendered.append(t) or real(t, *a, **k)
    try:
        Seat.objects.filter(campaign_id=cid).update(revision=uuid.uuid4())
        mine = record("axis")
        assert rendered == [], rendered
        bought = client.post(
            f"/campaigns/{cid}/act/buy/", {"group": "M3", "at": at}, HTTP_HX_REQUEST="true"
        )
        assert bought.status_code == 200, bought.content[:300]
        assert "campaign/_record.html" in rendered  # the buy's answer: a new line
        assert record("axis") != mine
    finally:
        fragments.render_template = real


@pytest.mark.django_db
def test_roster_after_a_change_reads_the_log_once_and_offers_what_to_put_back_c5_1(
    make_user, modules
):
    """PHD C5.1: a line its owner removed by mistake at this step is offered to put back
    on his roster; one removed as eliminated, or put back already, is not.  The roster
    finds those lines in the read of the log it makes for the points columns (one
    statement on the log; 2026-11-28 it made a second one)."""
    from campaign.seat_views.roster import roster_view
    from campaign.services import units
    from tests.test_cvp14 import remove, supply_value
    from tests.test_phd_conph import phd_after
    from tests.test_rule_mechanisms import add

    users = (make_user("us_pb"), make_user("de_pb"))
    players, _ = phd_after(users, "C5.8", cvp_lost_us=5, cvp_lost_german=3)
    tank = add(players, "us", "M4A1 Sherman", "vehicle")
    jeep = add(players, "us", "Jeep", "vehicle")
    back = add(players, "us", "8-0", "leader")
    supply_value(players, "cvp_per_kind.squad", "2", by="us")
    squad = add(players, "us", "6-6-7", "squad")
    for unit in (tank, jeep, back):
        remove(players, "us", unit)
    remove(players, "us", squad, eliminated=True)
    units.put_back_unit(campaign_id=players.campaign_id, user=players.users["us"], unit_id=back.ref)
    client = Client()
    client.force_login(players.users["us"])
    sql = _after_a_change(client, players.campaign_id, "roster/")
    log_reads = [s for s in sql if 'FROM "campaign_event"' in s]
    assert len(log_reads) == 1, "\n".join(log_reads)
    seat = Seat.objects.select_related("campaign").get(campaign_id=players.campaign_id, side="us")
    mine, theirs = sorted(roster_view(seat).forces, key=lambda f: not f.mine)
    assert [line for _, line in mine.put_back] == ["Jeep", "M4A1 Sherman"]
    assert theirs.put_back == ()
