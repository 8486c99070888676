"""Text from players: plain characters only, within each field's limit, and numbers
typed with full-width digits read like any other.

The HTTP edge refuses control characters and folds full-width forms for every
request (``campaign.middleware``); services check again with the field's own limit
and name it, so a caller that is not the web (a command, a test) meets the same
rules and a refusal says what to change.
"""

from __future__ import annotations

import re

from django.db import models

from campaign.services.errors import ActionRefused

# C0 controls but tab, line feed and carriage return; DEL; C1 controls.  NUL among
# them cannot even be stored in PostgreSQL.
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")

# Full-width ASCII (U+FF01..U+FF5E, e.g. "１２" from an East Asian keyboard) and the
# ideographic space fold to their ASCII forms, in every field alike.
_FULL_WIDTH = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)} | {0x3000: 0x20}

# Limits of free text that is not stored in a field of its own.
DISPUTE_REASON_LIMIT = 500
RESULT_TEXT_LIMIT = 500


def max_length(model: type[models.Model], field: str) -> int:
    """The limit the model puts on a text field: the one the form's message names."""
    found = model._meta.get_field(field)
    assert isinstance(found, models.CharField) and found.max_length, f"{field}: no max_length"
    return int(found.max_length)


def fold_width(text: str) -> str:
    """Full-width ASCII forms to ASCII."""
    return text.translate(_FULL_WIDTH)


def control_character(text: str) -> str | None:
    """The first control character in ``text`` as U+XXXX, or None."""
    found = CONTROL.search(text)
    return f"U+{ord(found.group()):04X}" if found else None


def clean_text(value: object, *, what: str, limit: int) -> str:
    """``value`` stripped, folded, and refused with a sentence naming the problem:
    a control character, or more than ``limit`` characters."""
    text = fold_width(value if isinstance(value, str) else "").strip()
    bad = control_character(text)
    if bad:
        raise ActionRefused(
            f"{what}: plain text only, please (it holds the control character {bad})."
        )
    if len(text) > limit:
        raise ActionRefused(
            f"{what}: at most {limit} characters, please (this one has {len(text)})."
        )
    return text


def given_reason(value: object, *, what: str, missing: str) -> str:
    """A reason a player must give (why a proposal is made or refused): plain text of
    at most ``DISPUTE_REASON_LIMIT`` characters; none is refused with ``missing``."""
    said = clean_text(value, what=what, limit=DISPUTE_REASON_LIMIT)
    if not said:
        raise ActionRefused(missing)
    return said


WHOLE_NUMBER = re.compile(r"[+-]?[0-9]+")
MAX_DIGITS = 9  # no figure of a campaign is larger; thousands of digits would not parse


def whole_number(value: object, *, what: str) -> int:
    """A whole number typed in ASCII or full-width digits; anything else refused."""
    text = fold_width(str(value if value is not None else "")).strip()
    if not WHOLE_NUMBER.fullmatch(text):
        raise ActionRefused(f"{what}: enter a whole number.")
    if len(text.lstrip("+-").lstrip("0")) > MAX_DIGITS:
        raise ActionRefused(f"{what}: a number of at most {MAX_DIGITS} digits, please.")
    return int(text)
