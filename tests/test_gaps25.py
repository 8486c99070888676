"""Issue 44: what the rules documents lack reaches a player as ASL words he can act on.

Where a printed rule stops short (the document's line is cut after a "/": Sicily
3.6181's "-1 | Non-Airborne/", 3.613's footnote "* Unit/"), a player reads the printed
words and one plain note, from one helper (``rules.text.printed``): "the printed rule
stops here; agree with your opponent what it means".  Where the app needs what the
printed rules leave out (a table, a chart, a figure), the sentence says so
(``rules.text.left_out``: "the printed rules leave out ...") and who decides: the
players supply it, one proposing and the other accepting.  No transcription marker
("[the rest is missing from the rules text]", "[lost ...]", "(text cut)", "not in the
seed") reaches a page, a log line or a refusal."""

from __future__ import annotations

import re
from typing import Any

import pytest
from pydantic import BaseModel

from campaign.selectors import module_of
from campaign.services import purchases
from rules import loader
from rules.schema import DiceApart, MatrixCell, Missing, Module
from rules.text import CUT, STOPS, left_out, printed
from tests.page_play import Seat
from tests.purchase_helpers import campaign_at, make_rolls
from tests.test_phda18_pass18 import forge
from tests.test_player_words import FORBIDDEN, assert_plain, pages, seen
from tests.test_rule_mechanisms import add

pytestmark = [pytest.mark.django_db, pytest.mark.presentation]


@pytest.fixture
def users(make_user):
    """Two players whose names are words (the pages name them)."""
    return make_user("alice"), make_user("bob")


# The fields of a module a player reads (on a step's page, in a table, a chart's notes, a
# refusal, a log line): its names, titles, summaries, reminders, results, footnotes.  A
# module's ``note`` (its authors'), ``source`` and ids are never shown.
SHOWN = frozenset(
    {
        "label",
        "title",
        "summary",
        "says",
        "text",
        "result",
        "results",
        "footnotes",
        "implies",
        "affirms",
        "not_offered",
        "counted",
        "item_label",
        "instead",
        "gone",
        "name",
        "type",
    }
)


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list | tuple):
        return [s for v in value for s in _strings(v)]
    return []


def shown_texts(node: Any, path: str = "") -> list[tuple[str, str]]:
    """Every text of a module a player reads, with where it is: the ``SHOWN`` fields of
    each of its parts, and the name of each datum the players may supply (a
    ``Missing`` with a ``supply`` path: the Rules data list shows it)."""
    found: list[tuple[str, str]] = []
    if isinstance(node, MatrixCell):  # its result is a result's id
        return []
    if isinstance(node, DiceApart):  # its {white_hexes} and {colored} are filled in
        return [(f"{path}.text", re.sub(r"\{\w+\}", "3", node.text))]
    if isinstance(node, Missing):
        return [(f"{path}.what", node.what)] if node.supply else []
    if isinstance(node, BaseModel):
        for name in type(node).model_fields:
            value = getattr(node, name)
            where = f"{path}.{name}" if path else name
            if name in SHOWN:
                found += [(where, s) for s in _strings(value)]
            if name not in ("note", "source"):
                found += shown_texts(value, where)
    elif isinstance(node, dict):
        for key, value in node.items():
            found += shown_texts(value, f"{path}.{key}")
    elif isinstance(node, list | tuple):
        for i, value in enumerate(node):
            found += shown_texts(value, f"{path}.{i}")
    return found


def _modules() -> dict[str, Module]:
    return loader.load_all()


def test_printed_words_say_where_the_rule_stops_and_who_decides():
    assert printed("Non-Airborne/...") == f"Non-Airborne/… ({STOPS})"
    assert STOPS == "the printed rule stops here; agree with your opponent what it means"
    assert printed("If Isolated") == "If Isolated"
    assert printed(printed("3S/...")) == printed("3S/...")  # read twice, said once
    assert left_out("the Leader Evacuation Table", "C5.19", first=True) == (
        "The printed rules leave out the Leader Evacuation Table (C5.19)"
    )


@pytest.mark.parametrize("module_id", ["sicily", "purple-heart-draw", "pleasant-diversion"])
def test_every_text_a_player_reads_of_a_module_is_free_of_transcription_marks(module_id):
    """Each label, title, summary, reminder, result, footnote and supplied datum's name
    of the three modules, as a player reads it (``printed``), carries no transcription
    marker, no module word and no bare cut: where the printed rule stops, the words say
    so and who decides."""
    module = _modules()[module_id]
    texts = shown_texts(module)
    assert len(texts) > 100  # the walk reaches the module's texts
    bad = {
        where: sorted({m.group(0) for m in FORBIDDEN.finditer(printed(text))})
        for where, text in texts
        if FORBIDDEN.search(printed(text))
    }
    # A footnote's or a chart's letters and a unit kind's code are ids, not words read.
    bad = {w: found for w, found in bad.items() if not w.endswith((".type",))}
    assert not bad, bad
    cut = [(where, text) for where, text in texts if CUT in text]
    for _, text in cut:
        assert STOPS in printed(text) and CUT not in printed(text)
    if module_id == "sicily":  # its document is cut after a "/" in many places
        assert {w.rsplit(".", 1)[-1] for w, _ in cut} >= {"label", "summary", "says", "text"}


def _seat_page(players, side: str, client) -> str:
    client.force_login(players.users[side])
    answer = client.get(f"/campaigns/{players.campaign_id}/")
    assert answer.status_code == 200
    return " ".join(seen(answer.content.decode()).split())


@pytest.mark.parametrize(
    ("step", "words"),
    [
        # 3.602 "MARKER REMOVAL: All markers/" (cut): its summary.
        ("3.602", f"All markers/… ({STOPS})"),
        # 3.603 "All Passenger/" (cut).
        ("3.603", f"All Passenger/… ({STOPS})"),
        # 3.606 footnotes 1 and 5.
        ("3.606", f"Scrounge the vehicle/… ({STOPS})"),
        ("3.606", f"Hero-Creation/… ({STOPS})"),
        # 3.613 Shift Table footnote "* Unit/".
        ("3.613", f"[*] Unit/… ({STOPS})"),
        # 3.615 "See CG18": SSR CG18 is not among these rules.
        ("3.615", "SSR CG18 is not part of these rules: apply it from your copy"),
        # 3.619 footnotes a ("per ⅝"-Counter/") and c ("3S/").
        ("3.619", f"c: 3S/… ({STOPS})"),
        # 3.617 the British chart's notes a and b.
        ("3.617", f"b: SW and/… ({STOPS})"),
    ],
)
def test_a_sicily_step_gives_the_printed_words_where_its_rule_stops(
    users, modules, client, step, words
):
    players, module = campaign_at("sicily", "i", "jul15am", users, step=step)
    page = _seat_page(players, "british", client)
    assert words in page, page[:3000]
    client.force_login(players.users["british"])
    assert_plain(pages(client, players.campaign_id, module, "i"))


def test_a_cut_drm_reads_as_printed_on_the_page_and_in_the_roll(users, modules, client):
    """3.6181 "-1 | Non-Airborne/" (cut): the strength step offers it with its printed
    words and the note; the roll, and the RG Purchase Record's line (which keeps it),
    read it alike (they read "Non-Airborne/[the rest is missing from the rules text]
    RG")."""
    players, module = campaign_at("sicily", "i", "jul14n", users)
    user = players.users["british"]
    bought = purchases.purchase_rg(campaign_id=players.campaign_id, user=user, group_id="I1")
    players.until("strength")
    said = f"-1 Non-Airborne/… ({STOPS})"
    assert said in _seat_page(players, "british", client)
    make_rolls(players, "british", bought, ticked={"rg_strength": ["non_airborne"]})
    page = _seat_page(players, "british", client)
    assert said in page
    # The RG's line keeps the roll's dice and DRMs as the player reads them.
    dice = [r["dice"] for r in bought.details["rolls"] if "Non-Airborne" in r.get("dice", "")]
    assert dice and all(said in d for d in dice), bought.details["rolls"]
    client.force_login(user)
    assert_plain(pages(client, players.campaign_id, module, "i"))


def test_a_refused_cut_drm_is_named_as_printed(users, modules):
    """A DRM whose name the rule cuts, forged onto an RG it is not offered to (3.6183
    "-1 Airborne/" on the Italian I7's leader roll), is refused naming it as printed,
    with the note, never "Airborne/..."."""
    from rules.errors import Refused

    players, _ = campaign_at("sicily", "i", "jul14n", users)
    i7 = purchases.purchase_rg(
        campaign_id=players.campaign_id, user=players.users["axis"], group_id="I7"
    )
    players.until("strength")
    with pytest.raises(Refused) as refused:
        make_rolls(players, "axis", i7, ticked={"leader_allotment": ["airborne"]})
    assert f"'Airborne/… ({STOPS})'" in str(refused.value)
    assert not FORBIDDEN.search(str(refused.value))


def test_phd_lost_rows_say_what_the_printed_rules_leave_out(users, modules, client):
    """PHD C5.24's Leader Promotion Table lost its rows for a DR of 2 or less and 12 or
    more: they read "Not printed: supply this row with your opponent's consent", the
    table says the printed rules leave its rows out, and the Rules data list names the
    datum so (it said "missing from the rules text")."""
    from tests.test_phd_conph import phd_after

    players, module = phd_after(users, "C5.24")
    page = _seat_page(players, "german", client)
    assert "Not printed: supply this row with your opponent's consent (Rules data)" in page
    assert "The printed rules leave out rows of this table" in page
    assert "Leader Promotion Table results for DR ≤2 and ≥12 (the printed rules leave" in (page)
    client.force_login(players.users["german"])
    assert_plain(pages(client, players.campaign_id, module, "tm"))


def test_a_roll_on_a_table_the_printed_rules_leave_out_is_refused_where_clicked(users, modules):
    """PHD C5.19: a roll forged onto the Leader Evacuation Table, whose rows the printed
    rules leave out, is a 409 sentence saying so and who decides; nothing rolled."""
    from campaign.models import Roll
    from tests.test_phd_conph import phd_after

    players, _ = phd_after(users, "C5.19")
    add(players, "us", "8-1 leader", "leader", markers=("wounded",))
    us = Seat(players.users["us"], players.campaign_id)
    us.open()
    assert "Nothing can be rolled at C5.19 yet: the printed rules leave out the Leader" in us.text
    before = Roll.objects.filter(campaign_id=players.campaign_id).count()
    answer = forge(us, "roll", table="leader_evacuation")
    assert answer.status == 409, answer.text[:300]
    assert re.search(
        r"The printed rules leave out the Leader Evacuation Table \(C5\.19\): supply it and "
        r"have your opponent accept it before anyone rolls on it\.",
        answer.text,
    ), answer.text[:500]
    assert Roll.objects.filter(campaign_id=players.campaign_id).count() == before


def test_the_modules_of_a_campaign_keep_no_transcription_marker(users, modules):
    """The modules stored with a campaign (what its pages read) are the files'."""
    players, _ = campaign_at("sicily", "i", "jul14n", users)
    module = module_of(players.campaign)
    for _, text in shown_texts(module):
        assert "missing from the rules text" not in text and "[the rest" not in text


def test_the_at_mines_cost_the_printed_cell_cuts_is_amended_by_consent(users, modules, client):
    """3.619 "AT Mines (d) | 3/": the cell stops after the "/".  The app charges the
    printed 3 FPP, and the Rules data list offers the price to amend, saying what the
    printed cell leaves out and who decides; once proposed and accepted, the new price
    is the campaign's."""
    from tests.test_rule_mechanisms import supply

    players, _ = campaign_at("sicily", "i", "jul15am", users, step="3.619")
    assert _at_mines(players) == 3
    page = _seat_page(players, "british", client)
    assert "FPP cost of AT Mines (the printed cell stops at '3/': 3 FPP is charged; amend it" in (
        page
    )
    supply(players, "fortifications.items.at_mines.cost", {"value": "2"}, by="british")
    assert _at_mines(players) == 2


def _at_mines(players) -> int | None:
    forts = module_of(players.campaign).fortifications
    assert forts is not None
    return next(i for i in forts.items if i.id == "at_mines").cost


def test_the_night_dual_attack_reveal_reads_as_printed_in_both_logs(users, modules, client):
    """3.6213b "... and neither side receives the benefits/" (cut): the reveal's log line,
    which carries the matrix result's text, gives the printed words and the note in
    both players' logs, and no inference remark of the module's authors."""
    from campaign.models import Event
    from tests.purchase_helpers import keep_retained_units

    players, _ = campaign_at("sicily", "i", "jul14n", users, kind="initiative")
    keep_retained_units(players)
    players.chits(axis="attack", british="attack")
    (line,) = [
        t
        for t in Event.objects.filter(campaign_id=players.campaign_id).values_list(
            "text", flat=True
        )
        if "Night Dual Attack" in t and "benefits" in t
    ]
    assert f"neither side receives the benefits/… ({STOPS})" in line, line
    assert not FORBIDDEN.search(line), line
    for side in ("axis", "british"):
        assert f"benefits/… ({STOPS})" in _seat_page(players, side, client)
