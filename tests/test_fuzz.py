"""Issue 48: no input from the internet breaks a worker.

Generated hostile input — numbers of thousands of digits (ASCII, full-width, other
scripts), Unicode digits in field names, control characters, oversized values and
names, a field given many times, too many fields — posted to every action and form,
every supplied datum (a grid, a text, an OB), the start sheet, messages, the unit
form, sign-in and sign-up, and sent as queries to every campaign page (the sockets'
frames and queries: ``test_websocket.py``, whose tests commit their data).  Every
answer is below 500; a refusal is a 4xx with a sentence (never
Django's bare page), the campaign is unchanged, and nothing is logged with a
traceback.  (``test_bad_input.py`` posts plausible values; this suite posts hostile
ones.)"""

from __future__ import annotations

import json
import logging
import re
from urllib.parse import urlencode

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from campaign.models import Campaign, Purchase, Supplement
from campaign.selectors import module_of
from campaign.services import purchases
from campaign.views.actions import ACTIONS
from rules import supply
from tests.conftest import examples, load_test_modules
from tests.purchase_helpers import campaign_at
from tests.test_bad_input import FIELDS, snapshot
from tests.test_phd_conph import phd_after
from tests.test_phd_conph_late import OBA
from tests.test_rule_mechanisms import add, phd_with_chart, result_values
from tests.test_rule_mechanisms import users as users  # noqa: PLC0414  (the fixture)
from tests.walk import host_game, players_of

pytestmark = pytest.mark.django_db

HUGE = st.integers(min_value=300, max_value=6000)
DIGITS = st.one_of(
    HUGE.map(lambda n: "9" * n),  # past Python's int-string limit (4300 digits)
    HUGE.map(lambda n: "１" * n),  # full-width
    HUGE.map(lambda n: "-" + "٣" * n),  # Arabic-Indic
    st.text(alphabet=st.characters(categories=["Nd", "No"]), min_size=1, max_size=40),
    st.sampled_from(["²", "1e999", "0x1F", "Infinity", "-0", "+", "１２", "1_000", "١٢"]),
)
CONTROL = st.text(alphabet=st.characters(categories=["Cc", "Cf", "Cs", "Co"]), min_size=1)
OVERSIZED = st.integers(min_value=2_000, max_value=60_000).map(lambda n: "x" * n)
VALUE = st.one_of(DIGITS, CONTROL, OVERSIZED, st.text(max_size=50))
NAME = st.one_of(
    st.sampled_from(FIELDS),
    st.builds(  # a grid's cell with a forged row number
        lambda row, col: f"row-{row}-{col}",
        st.one_of(DIGITS, st.text(max_size=8)),
        st.sampled_from(["range", "result", "effect", "group", "cost", "units", "x"]),
    ),
    st.text(min_size=1, max_size=30),
    st.integers(min_value=500, max_value=20_000).map(lambda n: "n" * n),
)
# A field given once or many times (a list where one value is expected).
BODY = st.dictionaries(NAME, st.one_of(VALUE, st.lists(VALUE, max_size=3)), max_size=5)
FUZZ = hypothesis_settings(
    max_examples=examples(12),  # 4 on the embedded run
    deadline=None,
    derandomize=True,  # the same examples each run: a failure is reproducible
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)
BARE = b"<h1>Bad Request (400)</h1>"


def _encoded(body: dict) -> bytes:
    """As a form post (urlencoded): a name of thousands of characters is read by
    Django's parser, not refused by the multipart header limit first; a lone surrogate
    goes as the bytes that are not UTF-8 it stands for."""
    return urlencode(body, doseq=True, errors="surrogatepass").encode()


def _utf8(value: object) -> object:
    """The test client's multipart encoder writes UTF-8 only: a lone surrogate is sent
    as the replacement character there (the urlencoded posts carry the raw bytes)."""
    if isinstance(value, list):
        return [_utf8(v) for v in value]
    return str(value).encode("utf-8", "surrogatepass").decode("utf-8", "replace")


def _post(client: Client, path: str, body: dict, *, multipart: bool):
    if multipart:
        return client.post(path, {str(_utf8(k)): _utf8(v) for k, v in body.items()})
    return client.post(path, _encoded(body), content_type="application/x-www-form-urlencoded")


def _answered_in_words(response) -> None:
    assert response.status_code < 500, (response.status_code, response.content[:300])
    if response.status_code >= 400:
        assert response.content and BARE not in response.content, response.content[:300]


def _no_traceback(caplog) -> None:
    logged = [r for r in caplog.records if r.exc_info and r.levelno >= logging.WARNING]
    assert not logged, [r.getMessage() for r in logged]


@pytest.fixture(scope="module")
def sicily_purchase(module_db):
    with module_db():
        load_test_modules()
        users = [User.objects.create_user(n, password="x-9") for n in ("fuzz-a", "fuzz-b")]
        players, _ = campaign_at("sicily", "i", "jul14pm", tuple(users))
        start_users = [User.objects.create_user(n, password="x-9") for n in ("fz-c", "fz-d")]
        start = host_game("sicily", "i", *start_users, through_start=False)
        start_players = players_of(start, *start_users)
    return players, start_players


def _as_axis(players):
    client = Client(raise_request_exception=False)  # a 500 is an answer to check
    client.force_login(players.users["axis"])
    return players, client


@pytest.fixture
def at_purchase(sicily_purchase, db):
    return _as_axis(sicily_purchase[0])


@pytest.fixture
def at_start(sicily_purchase, db):
    return _as_axis(sicily_purchase[1])


def _campaign_posts(cid) -> list[str]:
    paths = [reverse("act", args=[cid, a]) for a in ACTIONS]
    paths += [reverse(n, args=[cid]) for n in ("unit", "message", "nudge", "invitation_new")]
    return paths


@pytest.mark.parametrize("multipart", [False, True], ids=["urlencoded", "multipart"])
def test_hostile_posts_to_every_action_and_form_are_refused_in_words(
    at_purchase, multipart, caplog
):
    players, client = at_purchase
    cid = players.campaign_id
    _fuzz_posts(client, _campaign_posts(cid), lambda: snapshot(cid), multipart=multipart)
    _no_traceback(caplog)


def _fuzz_posts(client: Client, paths: list[str], state, *, multipart: bool = False) -> None:
    """Hostile bodies posted to ``paths``: each answered in words, and ``state()`` the
    same after a refusal."""

    @FUZZ
    @given(body=BODY, which=st.integers(min_value=0, max_value=len(paths) - 1))
    def check(body, which):
        before = state()
        response = _post(client, paths[which], body, multipart=multipart)
        _answered_in_words(response)
        if response.status_code >= 400:
            assert state() == before

    check()


def _supplied(players) -> tuple:
    c = Campaign.objects.get(pk=players.campaign_id)
    return c.module_checksum, json.dumps(c.module_data, sort_keys=True), Supplement.objects.count()


def test_hostile_supplied_data_and_start_sheets_are_refused_in_words(at_start, caplog):
    """Every datum the campaign lacks (a grid, a text, lines, an OB) and the start
    sheet: whatever a form carries, nothing is proposed unless it reads as the datum."""
    players, client = at_start
    cid = players.campaign_id
    module = module_of(players.campaign)
    items = supply.suppliable(module, players.campaign.variant, set())
    paths = [reverse("supply", args=[cid, it.path]) for it in items]
    paths += [reverse("start_sheet", args=[cid]), reverse("supply", args=[cid, "no.such"])]
    assert len(paths) > 5
    _fuzz_posts(client, paths, lambda: _supplied(players))
    _no_traceback(caplog)


@pytest.mark.parametrize(
    "path", ["/login/", "/signup/", "/campaigns/new/", "/settings/", "/modules/"]
)
def test_hostile_sign_in_sign_up_and_account_forms(path, caplog, make_user):
    client = Client(raise_request_exception=False)
    if path in ("/campaigns/new/", "/settings/", "/modules/"):
        client.force_login(make_user("fuzzer"))
    names = st.sampled_from(
        ["username", "password", "password1", "password2", "email", "name", "text", "cg"]
    )

    @FUZZ
    @given(body=st.dictionaries(names, VALUE, min_size=1, max_size=4))
    def check(body):
        users, campaigns = User.objects.count(), Campaign.objects.count()
        response = _post(client, path, body, multipart=False)
        _answered_in_words(response)
        if response.status_code >= 400:
            assert (User.objects.count(), Campaign.objects.count()) == (users, campaigns)

    check()
    _no_traceback(caplog)


def test_hostile_queries_on_every_campaign_page(at_purchase, caplog):
    players, client = at_purchase
    cid = players.campaign_id
    names = ("campaign", "state_json", "dice", "roster", "export", "digest", "sheet", "sheet_json")
    paths = [reverse(n, args=[cid]) for n in names]

    @FUZZ
    @given(
        query=st.dictionaries(st.one_of(NAME, st.sampled_from(["page", "since", "at"])), VALUE),
        which=st.integers(min_value=0, max_value=len(paths) - 1),
    )
    def check(query, which):
        response = client.get(f"{paths[which]}?{urlencode(query, errors='surrogatepass')}")
        _answered_in_words(response)

    check()
    _no_traceback(caplog)


@pytest.mark.parametrize("method", ["get", "post"])
def test_too_many_fields_are_a_sentence_not_djangos_bare_page(at_purchase, method, caplog):
    players, client = at_purchase
    cid = players.campaign_id
    many = {f"f{n}": "1" for n in range(settings.DATA_UPLOAD_MAX_NUMBER_FIELDS + 1000)}
    before = snapshot(cid)
    if method == "get":
        response = client.get(reverse("campaign", args=[cid]), many)
    else:
        response = _post(client, reverse("act", args=[cid, "buy"]), many, multipart=False)
    assert response.status_code == 400
    assert b"more fields than any page of Refit sends" in response.content
    assert snapshot(cid) == before
    htmx = client.post(
        reverse("act", args=[cid, "buy"]),
        _encoded(many),
        content_type="application/x-www-form-urlencoded",
        headers={"HX-Request": "true"},
    )
    assert htmx.status_code == 400 and b"<html" not in htmx.content  # beside the click
    _no_traceback(caplog)


def test_a_field_name_too_long_for_the_multipart_parser_is_a_sentence(at_purchase, caplog):
    players, client = at_purchase
    response = client.post(reverse("act", args=[players.campaign_id, "buy"]), {"n" * 9000: "1"})
    assert response.status_code == 400
    assert b"could not be read" in response.content
    _no_traceback(caplog)


# ----------------------------------------------------------------- issue 44, pass 12
# The newest inputs, forged as a hostile client would: a stack's unit ids (PHD C5.13
# "Redeploy as a stack", ``campaign.services.stacks``), the OBA module a C5.34 DR is made
# for, and the Offboard Observer's hex (Sicily British chart footnote j).  Each is
# refused with a sentence (a 4xx), and nothing changes; never a 500.


def _refused_in_words(client: Client, path: str, body: dict, cid) -> None:
    before = snapshot(cid)
    response = _post(client, path, body, multipart=False)
    _answered_in_words(response)
    assert 400 <= response.status_code < 500, (body, response.status_code)
    assert snapshot(cid) == before, body


def _as(players, side) -> Client:
    client = Client(raise_request_exception=False)
    client.force_login(players.users[side])
    return client


def test_forged_stack_unit_ids_are_refused_in_words(users, modules, caplog):
    """C5.13 "Units in the same location may during Redeployment: Redeploy as a stack":
    the US names his M4A1 and, as its stack, ids that are not his units of this
    campaign — the German's squad, a unit of another campaign, a primary key for a
    reference, the unit named itself, garbage, many at once.  Each is refused in words;
    no roll is made."""
    players, _ = phd_after(users, "C5.14")
    mine = add(players, "us", "M4A1 Sherman A", "vehicle")
    theirs = add(players, "german", "4-6-7", "squad")
    elsewhere_users = (User.objects.create_user("fz-e"), User.objects.create_user("fz-f"))
    other = players_of(host_game("purple-heart-draw", "tm", *elsewhere_users), *elsewhere_users)
    foreign = add(other, "us", "M4A1 Sherman B", "vehicle")
    forged = [theirs.ref, foreign.ref, str(mine.pk), mine.ref, "0", "../x", "🛡"]
    cid, client = players.campaign_id, _as(players, "us")
    path = reverse("act", args=[cid, "roll"])
    for ref in forged[:-1]:
        _refused_in_words(
            client, path, {"table": "redeployment", "unit": mine.ref, "stack": [ref]}, cid
        )

    @FUZZ
    @given(stack=st.lists(st.one_of(st.sampled_from(forged), VALUE), min_size=1, max_size=4))
    def check(stack):
        if not any(s.strip() for s in map(str, stack)):
            return  # no stack named: a roll for the M4A1 alone, not under test here
        body = {"table": "redeployment", "unit": mine.ref, "stack": stack}
        _refused_in_words(client, path, body, cid)

    check()
    _no_traceback(caplog)


def test_a_forged_oba_module_choice_is_refused_in_words(users, modules, caplog):
    """C5.34 "To determine the Ammunition of each OBA Module requisitioned, make a DR for
    each": the German holds O2; a DR for a module he does not hold (the chart's O1, the
    US's, none, garbage) is refused in words and nothing is rolled."""
    players, c = phd_with_chart(users, [OBA])
    german = players.users["german"]
    purchases.purchase_rg(campaign_id=c.pk, user=german, group_id="O2")
    players.until("results")
    players.results(**result_values(module_of(c)))
    players.until_step("C5.34")
    client, path = _as(players, "german"), reverse("act", args=[c.pk, "roll"])
    forged = ["O1 105mm OBA Module", "O2", "O2 81mm OBA Module x", "Q9 OBA", "O2 " * 400]

    @FUZZ
    @given(item=st.one_of(st.sampled_from(forged), VALUE))
    def check(item):
        _refused_in_words(client, path, {"table": "oba", "item": item}, c.pk)

    check()
    _no_traceback(caplog)


def test_a_malformed_offboard_observer_hex_is_refused_in_words(users, modules, caplog):
    """Sicily British chart footnote j: "Secretly record the hex prior to German setup":
    a hex that is not one (garbage, a board alone, thousands of digits, control
    characters) posted with the O4's purchase, then on its line, is refused in words;
    nothing is bought or written.  A hex is accepted."""
    players, _ = campaign_at("sicily", "i", "jul15am", users)
    cid, client = players.campaign_id, _as(players, "british")
    purchases.purchase_rg(campaign_id=cid, user=players.users["british"], group_id="O2")
    buy_path = reverse("act", args=[cid, "buy"])
    line_path = reverse("act", args=[cid, "entry-area"])
    forged = ["ZZZ99", "12", "hex", "33B10; drop", "33B100", "0"]
    hexes = st.one_of(VALUE, st.sampled_from(forged))

    def reads_as_hex(where: object) -> bool:
        return bool(re.fullmatch(r"\s*\d{0,3}[A-Za-z]{1,2}\d{1,2}\s*", str(where)))

    @FUZZ
    @given(where=hexes)
    def buying(where):
        if reads_as_hex(where) or not str(where).strip():
            return  # a hex, or none (asked later on the line): not under test here
        _refused_in_words(client, buy_path, {"group": "O4", "hex": where}, cid)

    buying()
    o4 = purchases.purchase_rg(campaign_id=cid, user=players.users["british"], group_id="O4")

    def line() -> tuple:
        return tuple(Purchase.objects.filter(pk=o4.pk).values_list("recorded_hex", "details").get())

    @FUZZ
    @given(where=hexes)
    def on_the_line(where):
        if reads_as_hex(where) or not str(where).strip():
            return
        before = line()
        body = {"purchase": o4.ref, "entry_area": "", "recorded_hex": where}
        _refused_in_words(client, line_path, body, cid)
        assert line() == before

    on_the_line()
    ok = client.post(line_path, {"purchase": o4.ref, "entry_area": "", "recorded_hex": "33b10"})
    assert ok.status_code < 400 and line()[0] == "33B10"
    _no_traceback(caplog)
