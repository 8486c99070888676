"""Issue 10: property-based bad input over every form and action: never a 500, and a
refused request changes nothing."""

import pytest
from django.contrib.auth.models import User
from django.db.models import F, Func, OuterRef, Subquery
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campaign.models import Campaign, Event, Purchase, Roll, Seat, StepMark, Unit
from campaign.views.actions import ACTIONS as VIEW_ACTIONS
from tests.conftest import examples, load_test_modules
from tests.purchase_helpers import campaign_at

pytestmark = pytest.mark.django_db

FIELDS = [
    "at",
    "chit",
    "group",
    "variant",
    "purchase",
    "table",
    "item",
    "tick",
    "unit",
    "reason",
    "count",
    "location",
    "option",
    "has_units",
    "name",
    "status",
    "do",
    "cvp_lost.axis",
    "cvp_lost.british",
    "san.axis",
    "typed.leader",
    "cg",
    "side",
    "reveal_policy",
    "username",
    "password1",
    "password2",
]
VALUES = st.one_of(
    st.text(max_size=30),
    st.integers(min_value=-(10**12), max_value=10**12).map(str),
    st.sampled_from(
        [
            "",
            "0",
            "-1",
            "1",
            "I4",
            "V6",
            "attack",
            "idle",
            "axis",
            "british",
            "sicily/i",
            "owner",
            "add",
            "save",
            "remove",
            "0.18",
            "999.9",
            "nan",
            "\x00",
            "' OR 1=1 --",
            "<script>x</script>",
            "1e9",
        ]
    ),
)
BODIES = st.dictionaries(st.sampled_from(FIELDS), VALUES, max_size=6)
ACTIONS = list(VIEW_ACTIONS)  # every action the app has
SETTINGS = settings(
    max_examples=examples(25),  # 8 on the embedded run
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def _rows(model):
    """How many rows of ``model`` the campaign has, as a column of the campaign's read."""
    rows = model.objects.filter(campaign=OuterRef("pk")).order_by()
    return Subquery(rows.annotate(n=Func(F("pk"), function="COUNT")).values("n"))


# Named apart from the campaign's reverse relations (``events``, ``units``...).
COUNTED = {
    "n_events": Event,
    "n_purchases": Purchase,
    "n_marks": StepMark,
    "n_rolls": Roll,
    "n_units": Unit,
}


def snapshot(campaign_id):
    """The campaign's position, its seats' points and revisions and how many rows of each
    kind it has, in two reads (every example of the properties below takes two snapshots)."""
    position = (
        Campaign.objects.filter(pk=campaign_id)
        .annotate(**{name: _rows(model) for name, model in COUNTED.items()})
        .values_list("step_index", "cycle", "date_index", *COUNTED)
        .get()
    )
    seats = tuple(
        Seat.objects.filter(campaign_id=campaign_id)
        .order_by("side")
        .values_list("side", "points", "fortification_points", "san", "no_on_map_units", "revision")
    )
    return position, seats


@pytest.fixture(scope="module")
def sicily_purchase_step(module_db):
    """Sicily at its purchase step, walked to once for the module (every test starts
    from it: what a test changes rolls back)."""
    with module_db():
        load_test_modules()
        users = [
            User.objects.create_user(name, password="x-9") for name in ("shared-a", "shared-b")
        ]
        players, _ = campaign_at("sicily", "i", "jul14pm", tuple(users))
    return players


@pytest.fixture
def purchase_campaign(sicily_purchase_step, db, login):
    players = sicily_purchase_step
    return players, login(players.users["axis"])


def test_the_snapshot_sees_what_an_accepted_action_changes(purchase_campaign):
    """The properties below rely on ``snapshot`` to see a change: an RG bought adds a
    purchase and a log line, spends the buyer's points and gives the buyer's seat, and it
    alone, a new revision (the purchase is its secret)."""
    players, client = purchase_campaign
    before = snapshot(players.campaign_id)
    response = client.post(f"/campaigns/{players.campaign_id}/act/buy/", {"group": "M1"})
    assert response.status_code == 302, response.content[:300]  # back to the page
    after = snapshot(players.campaign_id)
    (position, seats), (new_position, new_seats) = before, after
    counted = dict(zip(COUNTED, position[3:], strict=True))
    new_counted = dict(zip(COUNTED, new_position[3:], strict=True))
    assert new_counted["n_purchases"] == counted["n_purchases"] + 1
    assert new_counted["n_events"] > counted["n_events"]
    assert new_seats != seats
    revision = {seat[0]: seat[-1] for seat in seats}
    new_revision = {seat[0]: seat[-1] for seat in new_seats}
    assert new_revision["axis"] != revision["axis"]
    assert new_revision["british"] == revision["british"]


@pytest.mark.parametrize("action", ACTIONS)
def test_actions_never_500_and_refusals_change_nothing(purchase_campaign, action):
    players, client = purchase_campaign

    @SETTINGS
    @given(body=BODIES)
    def check(body):
        before = snapshot(players.campaign_id)
        response = client.post(f"/campaigns/{players.campaign_id}/act/{action}/", body)
        assert response.status_code < 500
        if response.status_code >= 400:
            assert snapshot(players.campaign_id) == before
            assert response.content  # a sentence, not an empty error

    check()


def test_unit_form_never_500(purchase_campaign):
    players, client = purchase_campaign

    @SETTINGS
    @given(body=BODIES)
    def check(body):
        before = snapshot(players.campaign_id)
        response = client.post(f"/campaigns/{players.campaign_id}/units/", body)
        assert response.status_code < 500
        if response.status_code >= 400:
            assert snapshot(players.campaign_id) == before

    check()


@pytest.mark.parametrize("path", ["/campaigns/new/", "/signup/", "/login/", "/join/x/"])
def test_public_forms_never_500(purchase_campaign, path):
    players, client = purchase_campaign

    @SETTINGS
    @given(body=BODIES)
    def check(body):
        campaigns = Campaign.objects.count()
        response = client.post(path, body)
        assert response.status_code < 500
        if response.status_code >= 400:
            assert Campaign.objects.count() == campaigns

    check()


@SETTINGS
@given(cid=st.text(max_size=40), action=st.text(max_size=20))
def test_forged_urls_are_404_not_500(purchase_campaign, cid, action):
    _, client = purchase_campaign
    for path in (f"/campaigns/{cid}/", f"/campaigns/{cid}/act/{action}/"):
        assert client.get(path).status_code < 500
        assert client.post(path).status_code < 500
