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
