"""Issue 47: players read ASL words.  Every string a player can see on each page kind
(text, titles, labels, confirmations), for campaigns of the three CG systems at the
start, at a purchase step and at a table step, for both seats, and on the pages
around a campaign (My campaigns, create, invitation, settings, modules, sign-in), is
free of the module authors' transcription notes and words ("OCR", "module file",
"schema", "transcri...") and of raw vocabulary codes (``half_squad``,
``battle_hardened``, "Tags", any snake_case id)."""

from __future__ import annotations

import html
import re

import pytest

from campaign.selectors import module_of
from campaign.services import purchases
from rules import supply
from rules.text import STOPS
from tests.purchase_helpers import campaign_at, make_rolls
from tests.walk import host_game, players_of

pytestmark = [pytest.mark.django_db, pytest.mark.presentation]

FORBIDDEN = re.compile(
    r"\bOCR\b|module file|\bschema\b|transcri|\[text cut|\bcut after\b|\bpartly cut\b"
    # a gap of the rules text said in the module authors' words, not the players'
    # (issue 44: "the printed rules leave out ...", "the printed rule stops here")
    r"|missing from the rules text|lost from the rules text|rules text lacks|\(text cut\)"
    r"|\bthe seed\b|\bTODO\b|\binferred\b"
    # a bracket of the transcription ("[the rest is ...]", "[lost ...]", "[...]"), not
    # an ASL one: a footnote mark ("[4,5]", "[*]"), "[EXC: ...]", "[ELR: 3, SAN: 3]"
    r"|\[(?:[a-z]{3,}|\.\.\.|…)[^\]]{0,40}"
    r"|half_squad|battle_hardened|\bTags\b"
    # a name the rules text cuts, left cut ("Non-Airborne/... RG")
    r"|/\.\.\."
    # a raw id: words joined by underscores (snake_case)
    r"|\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b"
)
_SCRIPT = re.compile(r"<script\b.*?</script>", re.S)
_TAG = re.compile(r"<[^>]+>")
_SEEN_ATTRS = re.compile(r'\b(?:title|aria-label|hx-confirm|placeholder|alt)="([^"]*)"')


def seen(page: str) -> str:
    """What a player can read of a page: its text and the attributes shown to him."""
    page = _SCRIPT.sub("", page)
    attrs = " ".join(_SEEN_ATTRS.findall(page))
    return html.unescape(_TAG.sub(" ", page) + " " + attrs)


def pages(client, campaign_id, module, variant) -> dict[str, str]:
    paths = ["", "roster/", "sheet/", "sheet.txt", "dice/", "start-sheet/"]
    paths += [f"supply/{it.path}/" for it in supply.suppliable(module, variant, set())]
    out = {}
    for path in paths:
        answer = client.get(f"/campaigns/{campaign_id}/{path}")
        assert answer.status_code == 200, path
        out[path or "campaign"] = answer.content.decode()
    return out


def module_notes(data: object) -> list[str]:
    """Every transcription note of a module (its authors' remarks, not rules text)."""
    if isinstance(data, dict):
        own = [data["note"]] if isinstance(data.get("note"), str) else []
        return own + [n for k, v in data.items() if k != "note" for n in module_notes(v)]
    if isinstance(data, list):
        return [n for v in data for n in module_notes(v)]
    return []


def _notes() -> list[str]:
    """The seed modules' transcription notes long enough to be recognised (their first
    40 characters, spaces collapsed)."""
    from campaign.models import ModuleRecord

    found = {
        " ".join(n.split())[:40]
        for record in ModuleRecord.objects.all()
        for n in module_notes(record.data)
        if len(n) > 30
    }
    assert found  # the modules have notes: the check below means something
    return sorted(found)


# A footnote mark of a table's result ("Becomes Mobile [*]", "Abandoned [4,5]").
MARK = re.compile(r"\[([0-9a-z*]{1,2}(?:,[0-9a-z*]{1,2})*)\]")


def unexplained_marks(page: str) -> set[str]:
    """The marks a page shows whose footnote (a paragraph "[4] ...") it does not."""
    explained = set(re.findall(r"<p>\[([0-9a-z*]{1,2})\] ", page))
    return {
        f"mark [{key}] unexplained"
        for m in MARK.finditer(seen(page))
        for key in m.group(1).split(",")
        if key not in explained
    }


def assert_plain(found: dict[str, str]) -> None:
    notes = _notes()
    bad = {}
    for where, page in found.items():
        text = " ".join(seen(page).split())
        words = {m.group(0) for m in FORBIDDEN.finditer(text)}
        words |= {f"note: {n}" for n in notes if n in text}
        words |= unexplained_marks(page)
        if words:
            bad[where] = sorted(words)
    assert not bad, bad


@pytest.mark.parametrize(
    ("module_id", "variant"),
    [("sicily", "i"), ("purple-heart-draw", "tm"), ("pleasant-diversion", "cg")],
)
def test_the_start_pages_speak_asl(module_id, variant, modules, make_user, client):
    alice, bob = make_user("alice"), make_user("bob")
    c = host_game(module_id, variant, alice, bob, through_start=False)
    client.force_login(alice)
    assert_plain(pages(client, c.pk, module_of(c), variant))


@pytest.mark.parametrize(
    ("module_id", "variant", "date", "step"),
    [
        ("sicily", "i", "jul15am", "3.617"),
        ("sicily", "i", "jul15am", "3.614"),
        ("sicily", "i", "jul15am", "3.619"),
        ("purple-heart-draw", "tm", "t0930", "C5.26"),
        ("purple-heart-draw", "tm", "t0930", "C5.31"),
        ("pleasant-diversion", "cg", "dec6midday", "3.3"),
    ],
)
def test_the_pages_of_a_step_speak_asl(module_id, variant, date, step, modules, make_user, client):
    players, module = campaign_at(
        module_id, variant, date, (make_user("alice"), make_user("bob")), step=step
    )
    for user in players.users.values():
        client.force_login(user)
        found = pages(client, players.campaign_id, module, variant)
        assert_plain(found)
    if step == "3.617":  # a footnote the rules text cuts says so in a player's words
        assert f"presence/… ({STOPS})" in seen(found["campaign"])


def test_the_fortification_step_speaks_asl(modules, make_user, client):
    """Purple Heart Draw's Fortification Table before the Initial TM Scenario (I-C5.35):
    the HIP limit (C5.35 note 3) counts "squad-equivalents", in words."""
    alice, bob = make_user("alice"), make_user("bob")
    c = host_game("purple-heart-draw", "tm", alice, bob, side="german", through_start=False)
    players = players_of(c, alice, bob)
    players.until_step("I-C5.35")
    client.force_login(alice)
    found = pages(client, c.pk, module_of(c), "tm")
    assert "HIP" in seen(found["campaign"])
    assert_plain(found)


def test_the_strength_step_names_its_cut_drms_in_words(modules, make_user, client):
    """Sicily 3.6181/3.6183: the DRMs whose names the rules text cuts ("-1
    Non-Airborne/") are offered, and read back in the rolls, with the printed words and
    that the printed rule stops there (agree what it means), not with a bare "/..."."""
    players, module = campaign_at("sicily", "i", "jul14n", (make_user("a"), make_user("b")))
    user = players.users["british"]
    bought = purchases.purchase_rg(campaign_id=players.campaign_id, user=user, group_id="I1")
    players.until("strength")
    client.force_login(user)
    before = pages(client, players.campaign_id, module, "i")
    assert f"Non-Airborne/… ({STOPS})" in seen(before["campaign"])
    make_rolls(players, "british", bought, ticked={"rg_strength": ["non_airborne"]})
    after = pages(client, players.campaign_id, module, "i")
    assert f"Non-Airborne/… ({STOPS})" in seen(after["dice/"])
    assert_plain({f"{k} before": v for k, v in before.items()} | after)


def test_the_pages_around_a_campaign_speak_asl(modules, make_user, client):
    """My campaigns, create, an invitation, settings, modules; signed out: sign-in,
    sign-up and a page not found."""
    alice, bob = make_user("alice"), make_user("bob")
    host_game("purple-heart-draw", "tm", alice, bob, through_start=False)
    invited = host_game("sicily", "i", make_user("carol"))
    found = {}
    for path in ("/login/", "/signup/", "/no-such-page/"):
        found[path] = client.get(path).content.decode()
    client.force_login(alice)
    token = invited.invitations.get().token
    for path in ("/campaigns/", "/campaigns/new/", f"/join/{token}/", "/settings/", "/modules/"):
        answer = client.get(path)
        assert answer.status_code == 200, path
        found[path] = answer.content.decode()
    assert_plain(found)


def test_a_chart_supplied_with_asl_words_reads_back_in_them(modules, make_user):
    """The chart form takes "half-squad" or "crew" for a unit kind and shows the word
    back, never the code."""
    alice, bob = make_user("alice"), make_user("bob")
    c = host_game("purple-heart-draw", "tm", alice, bob, through_start=False)
    players = players_of(c, alice, bob)
    assert supply.UNIT_KIND_WORDS["crew"] == supply.UNIT_KIND_WORDS["half-squad"] == "half_squad"
    assert supply.UNIT_KIND_WORD["half_squad"] == "half-squad"
    assert players.campaign_id
