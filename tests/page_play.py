"""Play a campaign through its pages, as a player's browser does: read the page a seat
is shown, find the button a player would press by its words, post the form that button
belongs to with the fields the page rendered (plus what the player types or picks), and
read the answer's words.

Service-level walks (tests/walk.py) prove a mechanism; this proves the player can reach
it: the option is on the page, the form carries what the service needs, the refusal
comes back as a sentence where the player clicked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html import unescape
from html.parser import HTMLParser
from typing import Any

from django.test import Client


@dataclass
class Form:
    key: str
    action: str
    fields: list[tuple[str, str]] = field(default_factory=list)
    # name -> [(value, words)] of each <select>
    selects: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    # name -> the radio/checkbox values offered
    choices: dict[str, list[str]] = field(default_factory=dict)


@dataclass
class Button:
    words: str
    attrs: dict[str, str]
    owner: str | None


class PageForms(HTMLParser):
    """A page's forms and buttons as a browser reads them: each form's action, its
    fields with the values the page rendered (checked boxes only, a select's selected
    option or else its first, a multiple select's selected options only), each
    select's options, and each button with the form it submits (its ``form``
    attribute, else the form around it) and its words."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.forms: dict[str, Form] = {}
        self.buttons: list[Button] = []
        self._open: list[str] = []
        self._select: tuple[str, str, list[tuple[str, str]], list[str]] | None = None
        self._multiple = False
        self._option: dict[str, str] | None = None
        self._option_words: list[str] = []
        self._button: dict[str, str] | None = None
        self._button_words: list[str] = []
        self._textarea: str | None = None
        self._textarea_words: list[str] = []

    def _form_of(self, a: dict[str, str]) -> str | None:
        return a.get("form") or (self._open[-1] if self._open else None)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form":
            key = a.get("id") or f"#{len(self.forms)}"
            self.forms[key] = Form(key, a.get("action", "") or a.get("hx-post", ""))
            self._open.append(key)
        elif tag == "input" and a.get("name"):
            owner = self._form_of(a)
            if owner is None or owner not in self.forms:
                return
            form = self.forms[owner]
            kind = a.get("type", "text")
            if kind in ("checkbox", "radio"):
                form.choices.setdefault(a["name"], []).append(a.get("value", "on"))
                if "checked" in a:
                    form.fields.append((a["name"], a.get("value", "on")))
            elif kind not in ("submit", "button", "reset"):
                form.fields.append((a["name"], a.get("value", "")))
        elif tag == "select" and a.get("name"):
            self._select = (self._form_of(a) or "", a["name"], [], [])
            self._multiple = "multiple" in a
        elif tag == "option" and self._select is not None:
            self._option = a
            self._option_words = []
        elif tag == "textarea" and a.get("name"):
            self._textarea = a["name"]
            self._textarea_words = []
            self._textarea_owner = self._form_of(a)
        elif tag == "button":
            self._button = a
            self._button_words = []

    def handle_data(self, data: str) -> None:
        if self._option is not None:
            self._option_words.append(data)
        if self._button is not None:
            self._button_words.append(data)
        if self._textarea is not None:
            self._textarea_words.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "form" and self._open:
            self._open.pop()
        elif tag == "option" and self._select is not None and self._option is not None:
            owner, name, options, chosen = self._select
            value = self._option.get("value", " ".join(self._option_words).strip())
            options.append((value, _squash(" ".join(self._option_words))))
            if "selected" in self._option:
                chosen = [*chosen, value] if self._multiple else [value]
            self._select = (owner, name, options, chosen)
            self._option = None
        elif tag == "select" and self._select is not None:
            owner, name, options, chosen = self._select
            if owner in self.forms:
                form = self.forms[owner]
                form.selects[name] = options
                # A single select sends its first option when none is selected; a
                # multiple one sends only what is selected (maybe nothing).
                if not chosen and options and not self._multiple:
                    chosen = [options[0][0]]
                form.fields.extend((name, value) for value in chosen)
            self._select = None
        elif tag == "textarea" and self._textarea is not None:
            owner = self._textarea_owner
            if owner in self.forms:
                self.forms[owner].fields.append((self._textarea, "".join(self._textarea_words)))
            self._textarea = None
        elif tag == "button" and self._button is not None:
            a = self._button
            words = _squash(" ".join(self._button_words)) or a.get("aria-label", "")
            self.buttons.append(Button(words, a, self._form_of(a)))
            self._button = None


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def text_of(html: str) -> str:
    """The words a player reads: no scripts or styles, no tags, spaces squashed."""
    html = re.sub(r"<(script|style|template)\b.*?</\1>", " ", html, flags=re.S)
    return _squash(unescape(re.sub(r"<[^>]+>", " ", html)))


@dataclass
class Answer:
    status: int
    html: str

    @property
    def text(self) -> str:
        return text_of(self.html)

    @property
    def refused(self) -> bool:
        return 400 <= self.status < 500


class Seat:
    """One player at one campaign page, with a browser that sends htmx's headers."""

    def __init__(self, user: Any, campaign_id: int, page: str = "") -> None:
        self.client = Client()
        self.client.force_login(user)
        self.url = f"/campaigns/{campaign_id}/{page}"
        self.html = ""
        self.forms = PageForms()

    def open(self) -> str:
        """Load the page; its words."""
        answer = self.client.get(self.url)
        assert answer.status_code == 200, answer.status_code
        self.html = answer.content.decode()
        self.forms = PageForms()
        self.forms.feed(self.html)
        return text_of(self.html)

    @property
    def text(self) -> str:
        return text_of(self.html)

    def buttons(self) -> list[str]:
        """Each button's aria-label where it has one, else its words."""
        return [b.attrs.get("aria-label") or b.words for b in self.forms.buttons]

    def button(self, words: str) -> Button:
        """The button a player means by ``words``: the one whose words or aria-label are
        exactly ``words``, else the one whose aria-label (what a screen reader reads: a
        price button's is "Buy I1 ... for 15 CPP") contains them, else the one whose
        words contain them."""
        buttons = self.forms.buttons
        for found in (
            [b for b in buttons if words in (b.words, b.attrs.get("aria-label"))],
            [b for b in buttons if words in b.attrs.get("aria-label", "")],
            [b for b in buttons if words in b.words],
        ):
            if found:
                assert len(found) == 1, f"{len(found)} buttons read {words!r}: {self.buttons()}"
                return found[0]
        raise AssertionError(f"no button reads {words!r}: {self.buttons()}")

    def form_of(self, words: str) -> Form:
        owner = self.button(words).owner
        assert owner in self.forms.forms, f"the button {words!r} submits no form"
        return self.forms.forms[owner]

    def options(self, words: str, name: str) -> list[tuple[str, str]]:
        """The options of the select ``name`` in the form the button ``words`` sends."""
        return self.form_of(words).selects.get(name, [])

    def press(self, words: str, **typed: str) -> Answer:
        """Press the button reading ``words`` after typing/picking ``typed`` in its form
        (a value the page does not offer in a select is sent anyway, as a forged post
        would be); the answer, then the page is read again."""
        button = self.button(words)
        form = self.forms.forms.get(button.owner or "")
        action = button.attrs.get("formaction") or (form.action if form else "")
        assert action, f"the button {words!r} posts nowhere"
        data: dict[str, Any] = {}
        for name, value in form.fields if form else []:
            data.setdefault(name, []).append(value)
        if button.attrs.get("name"):
            data[button.attrs["name"]] = [button.attrs.get("value", "")]
        for name, value in typed.items():
            data[name] = [value]
        answer = self.client.post(action, data, HTTP_HX_REQUEST="true")
        result = Answer(answer.status_code, answer.content.decode())
        self.open()
        return result
