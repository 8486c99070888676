"""Issue 47: the start agreed in one go.  Every datum the rules documents lack, on one
start sheet, proposed as one package, accepted or refused once (datum by datum stays
possible); RG charts and tables may be pasted as text (tab- or comma-separated) or
uploaded as a CSV file, read cell by cell with the same sentences as typed ones."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from campaign.models import Event, Seat, Supplement
from campaign.selectors import module_of
from campaign.services import supplements
from campaign.services.errors import ActionRefused
from rules.supply import SupplyProblems
from tests.walk import host_game, players_of

pytestmark = pytest.mark.django_db

START = "variants.i.start"
SHEET = {
    f"{START}.points|value.axis": "39",
    f"{START}.points|value.british": "17",
    f"{START}.fortification_points|value.axis": "6",
    f"{START}.fortification_points|value.british": "3",
    f"{START}.ob|rgs.axis": "I5",
    f"{START}.ob|rgs.british": "I2",
    f"{START}.san|value.axis": "3",
    f"{START}.san|value.british": "2",
    f"{START}.elr|value.axis": "4",
    f"{START}.elr|value.british": "3",
    f"{START}.sets_up_first|value": "british",
    f"{START}.moves_first|value": "axis",
    f"{START}.misr|value": "EC: Dry",
    f"{START}.weather|value": "Clear, no wind",
    "variants.i.attack_chits|value.axis": "3",
    "variants.i.attack_chits|value.british": "2",
}


@pytest.fixture
def sicily(modules, make_user):
    axis, brit = make_user("axis_p"), make_user("brit_p")
    c = host_game("sicily", "i", axis, brit, through_start=False)
    return players_of(c, axis, brit)


def state(players):
    c = players.campaign
    return (
        c.module_checksum,
        json.dumps(c.module_data, sort_keys=True),
        sorted(Supplement.objects.values_list("path", "status")),
        sorted(Seat.objects.filter(campaign=c).values_list("side", "points")),
    )


def sheet_url(players) -> str:
    return f"/campaigns/{players.campaign_id}/start-sheet/"


def test_the_sicily_start_is_proposed_on_one_page_and_accepted_at_once(sicily, client):
    """3.51's data, lacking from the seed, proposed as one start sheet; the Axis accepts
    it with one action, and each side gets the start's points."""
    client.force_login(sicily.users["british"])
    page = client.get(sheet_url(sicily)).content.decode()
    for label in ("Initial CPP per side", "Who moves first", "Captured Equipment"):
        assert label in page
    response = client.post(sheet_url(sicily), SHEET)
    assert response.status_code == 302, response.content.decode()[:2000]
    proposals = list(Supplement.objects.filter(status="proposed"))
    # the two tables were left as they came: not part of the proposal
    assert len(proposals) == 10 and len({p.package for p in proposals}) == 1
    package = proposals[0].package
    with pytest.raises(ActionRefused, match="Your opponent accepts"):
        supplements.accept_start_sheet(
            campaign_id=sicily.campaign_id, user=sicily.users["british"], package=package
        )
    supplements.accept_start_sheet(
        campaign_id=sicily.campaign_id, user=sicily.users["axis"], package=package
    )
    assert not Supplement.objects.filter(status="proposed").exists()
    start = module_of(sicily.campaign).variant("i").start
    assert start.missing == [] and start.moves_first == "axis" and start.misr == ["EC: Dry"]
    points = dict(Seat.objects.filter(campaign=sicily.campaign).values_list("side", "points"))
    assert points == {"axis": 39, "british": 17}
    texts = [e.text for e in Event.objects.filter(kind="supply")]
    assert any("British proposes a start sheet of 10 data" in t for t in texts)
    assert any("Axis accepts the start sheet British proposed" in t for t in texts)


def test_a_bad_cell_anywhere_names_its_datum_and_nothing_is_proposed(sicily, client):
    client.force_login(sicily.users["british"])
    before = state(sicily)
    bad = {**SHEET, f"{START}.elr|value.axis": "four", f"{START}.sets_up_first|value": "nobody"}
    response = client.post(sheet_url(sicily), bad)
    assert response.status_code == 400
    page = response.content.decode()
    assert "Nothing was proposed: 2 problems" in page
    assert "ELR per side: Axis: enter a whole number" in page
    assert "Who sets up first in the Initial Scenario: Side: choose one of the sides" in page
    assert 'value="39"' in page  # what was typed comes back
    assert state(sicily) == before


def test_an_empty_sheet_proposes_nothing(sicily, client):
    client.force_login(sicily.users["british"])
    before = state(sicily)
    response = client.post(sheet_url(sicily), {})
    assert response.status_code == 400
    assert "fill in at least one datum" in response.content.decode()
    assert state(sicily) == before


def test_the_sheet_is_refused_at_once_and_single_data_stay_answerable(sicily):
    forms = {
        f"{START}.san": {"value.axis": "3", "value.british": "2"},
        f"{START}.elr": {"value.axis": "4", "value.british": "3"},
    }
    package = supplements.propose_start_sheet(
        campaign_id=sicily.campaign_id, user=sicily.users["axis"], forms=forms
    )
    one = Supplement.objects.get(path=f"{START}.san")
    supplements.accept_supplement(
        campaign_id=sicily.campaign_id, user=sicily.users["british"], ref=one.ref
    )
    with pytest.raises(ActionRefused, match="Say what is wrong"):
        supplements.refuse_start_sheet(
            campaign_id=sicily.campaign_id,
            user=sicily.users["british"],
            package=package,
            reason=" ",
        )
    supplements.refuse_start_sheet(
        campaign_id=sicily.campaign_id,
        user=sicily.users["british"],
        package=package,
        reason="ELR 3 for the Axis",
    )
    statuses = dict(Supplement.objects.values_list("path", "status"))
    assert statuses == {f"{START}.san": "accepted", f"{START}.elr": "refused"}
    with pytest.raises(ActionRefused, match="no such open start sheet"):
        supplements.accept_start_sheet(
            campaign_id=sicily.campaign_id, user=sicily.users["british"], package=package
        )


def test_the_opponents_open_proposal_is_answered_first(sicily):
    supplements.propose_supplement(
        campaign_id=sicily.campaign_id,
        user=sicily.users["axis"],
        path=f"{START}.san",
        form={"value.axis": "3", "value.british": "2"},
    )
    before = state(sicily)
    with pytest.raises(ActionRefused, match="Axis has proposed the Initial SAN per side"):
        supplements.propose_start_sheet(
            campaign_id=sicily.campaign_id,
            user=sicily.users["british"],
            forms={
                f"{START}.elr": {"value.axis": "4", "value.british": "3"},
                f"{START}.san": {"value.axis": "2", "value.british": "2"},
            },
        )
    assert state(sicily) == before


def test_a_forged_package_or_a_stranger_changes_nothing(sicily, make_user, client):
    package = supplements.propose_start_sheet(
        campaign_id=sicily.campaign_id,
        user=sicily.users["axis"],
        forms={f"{START}.elr": {"value.axis": "4", "value.british": "3"}},
    )
    before = state(sicily)
    client.force_login(sicily.users["british"])
    url = f"/campaigns/{sicily.campaign_id}/act/sheet-accept/"
    assert client.post(url, {"package": "nosuchpackage"}).status_code == 404
    stranger = make_user("stranger")
    client.force_login(stranger)
    assert client.post(url, {"package": package}).status_code == 404
    assert client.get(sheet_url(sicily)).status_code == 404
    assert state(sicily) == before


# --------------------------------------------------------------------------- pasted rows

PHD_CHART_TSV = (
    "ID\tGroup type\tUnits\tUnit kind\tFull\tDepl\tCost\tDate max\tCG max Tiger's Moon\t"
    "Group kinds\tFootnotes\tDepletable\n"
    "I1\tRifle Coy\t4-6-7\tsquad\t6\t4\t8\t1\t\tcoy\t\tx\n"
    "I2\tMG Pltn\tMMG;HMG\tSW\t2\t\t5\t1\t\t\tc\t\n"
)


@pytest.fixture
def phd(modules, make_user):
    german, us = make_user("ger_p"), make_user("us_p")
    c = host_game("purple-heart-draw", "tm", german, us, through_start=False)
    return players_of(c, german, us)


def test_an_rg_chart_pasted_from_a_spreadsheet_is_read_cell_by_cell(phd, client):
    """Purple Heart Draw's US chart is not in the seed: pasted as tab-separated rows (a
    first line of column names skipped), proposed, accepted, and sold."""
    client.force_login(phd.users["us"])
    url = f"/campaigns/{phd.campaign_id}/supply/rg_charts.us/"
    response = client.post(url, {"paste": PHD_CHART_TSV})
    assert response.status_code == 302, response.content.decode()[:3000]
    value = Supplement.objects.get().value
    assert [g["id"] for g in value] == ["I1", "I2"]
    assert value[0]["depletable"] is True and value[0]["tags"] == ["coy"]
    assert "grants" not in value[0]  # a column the pasted header does not name stays empty
    assert value[1]["footnotes"] == ["c"] and "depletable" not in value[1]


def test_a_csv_file_is_read_and_a_bad_cell_named_by_its_row(phd, client):
    client.force_login(phd.users["us"])
    url = f"/campaigns/{phd.campaign_id}/supply/rg_charts.us/"
    csv_text = 'I1,Rifle Coy,4-6-7,squad,6,4,eight,1,,,"coy, airborne",,yes\n'
    upload = SimpleUploadedFile("us.csv", csv_text.encode(), content_type="text/csv")
    response = client.post(url, {"csv": upload})
    assert response.status_code == 400
    page = response.content.decode()
    assert "Row 1 cost: enter a whole number (not “eight”)" in page
    assert 'value="coy, airborne"' in page  # the pasted cells come back in the grid
    assert not Supplement.objects.exists()
    too_wide = "I1," * 20 + "\n"  # the grid has 16 columns (C5.32: a cost per set-up)
    response = client.post(url, {"paste": too_wide})
    assert response.status_code == 400 and "Pasted line 1: 20 cells" in response.content.decode()


def test_a_table_pasted_on_the_start_sheet(phd, client):
    client.force_login(phd.users["german"])
    page = client.get(sheet_url(phd)).content.decode()
    assert "Paste the rows instead" in page
    rows = "≤3\tLeader evacuated\teliminate\n≥4\tReturns\tstatus: ok\n"
    response = client.post(sheet_url(phd), {"tables.leader_evacuation|paste": rows})
    assert response.status_code == 302, response.content.decode()[:3000]
    proposal = Supplement.objects.get()
    assert proposal.path == "tables.leader_evacuation" and proposal.package
    assert [r["range"] for r in proposal.value] == ["≤3", "≥4"]


def test_pasted_cells_with_too_many_rows_are_refused():
    from rules import supply
    from rules.loader import MODULE_DIR, load_file

    module = load_file(MODULE_DIR / "purple-heart-draw.yaml")
    it = supply.item(module, "tm", "rg_charts.us", set())
    with pytest.raises(SupplyProblems, match="at most 60 rows"):
        supply.read_pasted(module, it, "I1,x,x,squad,1,,1\n" * 61)


def test_forged_row_names_and_oversized_data_are_refused_in_words(sicily, phd, client):
    """Issue 48: a supply grid's field names with other digits ("row-²-…") or thousands
    of them name no row (never a 500); an OB of thousands of lines, a weather text of
    200 kB, a cell of a kilobyte are refused with their cap, nothing proposed."""
    client.force_login(phd.users["us"])
    url = f"/campaigns/{phd.campaign_id}/supply/rg_charts.us/"
    for name in ("row-²-id", "row-" + "9" * 5000 + "-id", "row--id", "row-"):
        response = client.post(url, {name: "I1", "row-0-id": ""})
        assert response.status_code == 400, name
    response = client.post(url, {"row-0-id": "I1", "row-0-type": "x" * 1000, "row-0-cost": "1"})
    assert response.status_code == 400 and "at most 300 characters" in response.content.decode()
    client.force_login(sicily.users["axis"])
    base = f"/campaigns/{sicily.campaign_id}/supply/variants.i.start."
    too_many = "\n".join(f"{n} x 4-6-7" for n in range(5000))
    response = client.post(base + "ob/", {"units.axis": too_many})
    assert response.status_code == 400 and "at most 100 lines" in response.content.decode()
    response = client.post(base + "weather/", {"value": "rain " * 40000})
    assert response.status_code == 400 and "at most 2000 characters" in response.content.decode()
    assert not Supplement.objects.exists()


@pytest.mark.parametrize("which", ["sicily", "phd"])
def test_each_datum_names_its_rule_once(which, request, client):
    """A datum whose name already cites its rule (PHD's "Leader Table for RG leaders
    (C5.33)") is not followed by the same rule again, on the start sheet and in the
    campaign page's list."""
    import re

    players = request.getfixturevalue(which)
    client.force_login(next(iter(players.users.values())))
    for path in (sheet_url(players), f"/campaigns/{players.campaign_id}/"):
        text = " ".join(re.sub(r"<[^>]+>", " ", client.get(path).content.decode()).split())
        assert not re.search(r"\(([^()]+)\) \(\1\)", text), path
