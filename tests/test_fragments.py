"""A part's fingerprint (``data-fp``) leaves out what differs between renders of the
same content: the CSRF token's value and the out-of-band swap marker."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from campaign.fragments import fingerprint, kept_rows, per_render_removed

pytestmark = pytest.mark.presentation

# The single pass the fingerprint made before: one alternation tried at every character.
ONE_PASS = re.compile(r'hx-swap-oob="true"|(name="csrfmiddlewaretoken" value=")[^"]*')

# Pieces a part is made of, the two markers cut in every way that could confuse them.
ATOMS = st.sampled_from(
    [
        'hx-swap-oob="true"',
        'name="csrfmiddlewaretoken" value="',
        "hx-swap-oob=",
        'name="csrfmiddlewaretoken"',
        ' value="',
        '"true"',
        '"',
        "tok3N",
        " ",
        "<section>",
        "&quot;",
    ]
)


@given(st.lists(ATOMS, max_size=30).map("".join))
def test_removing_what_differs_per_render_is_the_one_pass_it_replaces(html):
    assert per_render_removed(html) == ONE_PASS.sub(r"\1", html)


def test_the_same_content_has_the_same_fingerprint_however_it_was_rendered():
    form = (
        '<form><input type="hidden" name="csrfmiddlewaretoken" value="{}">'
        "<button>Buy</button></form>"
    )
    page = '<section id="campaign-step" >' + form.format("aB3" * 20) + "</section>"
    push = '<section id="campaign-step" hx-swap-oob="true">' + form.format("") + "</section>"
    answer = (
        '<section id="campaign-step" hx-swap-oob="true">' + form.format("Zz9" * 20) + "</section>"
    )
    assert fingerprint(page) == fingerprint(push) == fingerprint(answer)
    assert fingerprint(page) != fingerprint(page.replace("Buy", "Sell"))


def _row(rg: str, cells: str) -> str:
    return f'<tr data-keep class="" id="rg-{rg}">\n<td>{cells}</td></tr>'


def test_a_re_drawn_part_leaves_the_rows_the_page_shows_as_they_are_to_it():
    """A push re-draws a part: each row the page already shows as it is now is sent
    empty, for htmx to keep the page's own (hx-preserve, by id); a row that changed,
    or that the page does not have, is sent whole, and what is not a row as it is."""
    before = (
        '<section id="campaign-step"><p>CPP: 200</p><table>'
        + _row("I1", "18")
        + _row("I4", "15")
        + _row("M1", "4")
        + "</table></section>"
    )
    after = (
        '<section id="campaign-step"><p>CPP: 185</p><table>'
        + _row("I1", "18")
        + _row("I4", "15 (1 left)")
        + _row("M1", "4")
        + _row("V6", "5")
        + "</table></section>"
    )
    sent = kept_rows(before, after)
    kept = '<tr data-keep id="rg-{}" hx-preserve="true"></tr>'
    assert sent == (
        '<section id="campaign-step"><p>CPP: 185</p><table>'
        + kept.format("I1")
        + _row("I4", "15 (1 left)")
        + kept.format("M1")
        + _row("V6", "5")
        + "</table></section>"
    )
    # Nothing shown before (a page's first frame), or no rows: the part as it is.
    assert kept_rows("", after) == after
    assert kept_rows(before, "<section><p>no chart</p></section>") == (
        "<section><p>no chart</p></section>"
    )
