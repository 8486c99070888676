"""A part's fingerprint (``data-fp``) leaves out what differs between renders of the
same content: the CSRF token's value and the out-of-band swap marker."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from campaign.fragments import fingerprint, per_render_removed

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
