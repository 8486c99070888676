"""Small wording helpers for sentences a player reads."""

from __future__ import annotations


def count(n: int | None, word: str, plural: str | None = None) -> str:
    """'1 unit', '3 units', '1 entry', '2 entries'."""
    if n is None:
        return f"? {plural or word + 's'}"
    return f"{n} {word if n == 1 else (plural or word + 's')}"


def cited(words: str, rule: str) -> str:
    """``words`` with ``rule`` cited after them, in one bracket where they end with
    their own: "... in Reserve (SSR CG6; 3.4)" citing 3.6175 is "... in Reserve (SSR
    CG6; 3.4; 3.6175)", never two brackets joined."""
    words = words.rstrip(".")
    if not rule:
        return words
    if words.endswith(")") and words.count("(") == words.count(")"):
        return f"{words[:-1]}; {rule})"
    return f"{words} ({rule})"


def with_state(name: str, words: str) -> str:
    """A unit's name with what it is: "4-6-7 (in good order)"; where the words carry a
    bracket of their own, never a bracket in a bracket: "LMG — withdrawn (off map)"."""
    return f"{name} — {words}" if "(" in words else f"{name} ({words})"


# Where the printed rule stops short (the document's line ends in a "/" and what followed
# it is lost, e.g. Sicily 3.6181's "-1 | Non-Airborne/"), a module writes its printed words
# followed by ``CUT``; a player reads them with ``STOPS`` (``printed``), never a marker.
CUT = "/..."
STOPS = "the printed rule stops here; agree with your opponent what it means"


def printed(words: str) -> str:
    """Module text as a player reads it: where the printed rule stops short, its words
    end there and say so, and who decides: "Non-Airborne/… (the printed rule stops
    here; agree with your opponent what it means)"."""
    return words.replace(CUT, f"/… ({STOPS})") if CUT in words else words


def left_out(what: str, rule: str = "", *, first: bool = False) -> str:
    """A datum the printed rules leave out, named: "the printed rules leave out the
    Leader Evacuation Table (C5.19)" (``first``: opening a sentence).  What the app
    then does (the players supply it by consent, or go on without it) is said by the
    sentence that uses it."""
    words = f"{'The' if first else 'the'} printed rules leave out {what}"
    return cited(words, rule) if rule else words
