"""Browser tests that start at their step: the campaign is walked there through the
services (``tests/walk.py``, copied by the walk cache), the pages are opened where the
test's subject is, and the steps between two subjects are finished through the
services too, not clicked, so that Chromium draws only the pages the test reads.

A page kept for a later step is parked on a blank page meanwhile (no pushes to draw),
and brought back at its step with ``back``.  What a step's panel says, where the test
reads every step of a sequence, is read from the page the server sends that seat
(``panel``): the same HTML the browser would draw, without drawing it."""

from __future__ import annotations

from html.parser import HTMLParser

from django.test import Client

from tests.test_player_words import seen


def park(*pages) -> None:
    """Leave each page on a blank one until its next step (its socket closed: the steps
    walked meanwhile push nothing to it)."""
    for page in pages:
        page.goto("about:blank")


def back(page, url: str) -> None:
    """``page`` at ``url`` again, once its socket is open."""
    page.goto(url)
    page.locator("body[data-live]").wait_for(state="attached")


class _Element(HTMLParser):
    """The HTML inside the element of one id (void elements do not nest)."""

    _VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source"}

    def __init__(self, element_id: str) -> None:
        super().__init__(convert_charrefs=False)
        self.element_id = element_id
        self.depth = 0
        self.parts: list[str] = []

    def handle_starttag(self, tag, attrs) -> None:
        if self.depth:
            self.parts.append(self.get_starttag_text() or "")
            if tag not in self._VOID:
                self.depth += 1
        elif dict(attrs).get("id") == self.element_id and tag not in self._VOID:
            self.depth = 1

    def handle_startendtag(self, tag, attrs) -> None:
        if self.depth:
            self.parts.append(self.get_starttag_text() or "")

    def handle_endtag(self, tag) -> None:
        if self.depth and tag not in self._VOID:
            self.depth -= 1
            if self.depth:
                self.parts.append(f"</{tag}>")

    def handle_data(self, data) -> None:
        if self.depth:
            self.parts.append(data)

    def handle_entityref(self, name) -> None:
        if self.depth:
            self.parts.append(f"&{name};")

    def handle_charref(self, name) -> None:
        if self.depth:
            self.parts.append(f"&#{name};")


def panel(user, campaign_id, element_id: str = "campaign-step") -> str:
    """What ``user`` reads of the element ``element_id`` of his campaign page as the
    server sends it now (its text and the attributes shown to him, as
    ``tests/test_player_words.py`` reads a page)."""
    client = Client()
    client.force_login(user)
    answer = client.get(f"/campaigns/{campaign_id}/")
    assert answer.status_code == 200, answer.status_code
    found = _Element(element_id)
    found.feed(answer.content.decode())
    assert found.parts, f"no #{element_id} on the page"
    return seen("".join(found.parts))


def blank(new_context, browser_login, players, side: str):
    """``side``'s page, signed in, still blank: it loads its first page at its step
    (``back``); the player answers OK to every confirmation the page asks."""
    page = browser_login(new_context(), players.users[side]).new_page()
    page.on("dialog", lambda d: d.accept())
    return page
