"""Small wording helpers for sentences a player reads."""

from __future__ import annotations


def count(n: int | None, word: str, plural: str | None = None) -> str:
    """'1 unit', '3 units', '1 entry', '2 entries'."""
    if n is None:
        return f"? {plural or word + 's'}"
    return f"{n} {word if n == 1 else (plural or word + 's')}"
