"""Typed action inputs: a frozen dataclass per action, each field declaring the form
field it reads and how (``text``, ``number``, ``many``...).  ``read`` builds the
service's keyword arguments from a post; a field that cannot be read (a number that
is not one) is refused with its sentence, before the service is called, as a 4xx.

The dataclass field's name is the service's keyword; its annotation, the type the
reader gives.  Nothing here knows an action: ``campaign.views.actions`` declares them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from django.http import QueryDict

from campaign.services.errors import ActionRefused
from campaign.services.text import whole_number

Reader = Callable[[QueryDict], Any]


def _declare(reader: Reader) -> Any:
    return dataclasses.field(metadata={"read": reader})


def read(input_type: type[Any], post: QueryDict) -> dict[str, Any]:
    """The service's keyword arguments, read from ``post`` by ``input_type``'s fields
    (an instance is made first: its types are the declaration's)."""
    given = {f.name: f.metadata["read"](post) for f in dataclasses.fields(input_type)}
    made = input_type(**given)
    return {f.name: getattr(made, f.name) for f in dataclasses.fields(made)}


def _one(post: QueryDict, name: str, default: str) -> str:
    value = post.get(name, default)
    return value if isinstance(value, str) else default


def text(name: str, default: str = "") -> Any:
    """The field's text (``default`` when the form has no such field)."""
    return _declare(lambda post: _one(post, name, default))


def optional(name: str, *, blank: bool = True) -> Any:
    """The field's text, None when the form has no such field (``blank=False``: nor
    an empty one)."""
    return _declare(lambda post: post.get(name) if blank else (post.get(name) or None))


def flag(name: str, value: str) -> Any:
    """Whether the field says ``value`` (a checkbox, or one button of several)."""
    return _declare(lambda post: _one(post, name, "") == value)


def number(name: str, what: str, default: str) -> Any:
    """A whole number (``what``: how its refusal names it)."""
    return _declare(lambda post: whole_number(_one(post, name, default), what=what))


def many(name: str, *, shown: str | None = None) -> Any:
    """Every value of the field (ticked boxes, a multiple select); with ``shown``:
    None unless the form drew the field (its marker field ``shown`` is posted)."""
    return _declare(lambda post: post.getlist(name) if shown is None or shown in post else None)


def numbers(prefix: str, what: str, *, skip_blank: bool = False) -> Any:
    """The whole numbers of the fields named ``prefix<key>``, by key."""

    def reader(post: QueryDict) -> dict[str, int]:
        return {
            key.removeprefix(prefix): whole_number(str(raw), what=what)
            for key, raw in post.items()
            if key.startswith(prefix) and not (skip_blank and not str(raw).strip())
        }

    return _declare(reader)


def pairs(name: str, sep: str = ":") -> Any:
    """The field's values ``a<sep>b``, as the ``b``s of each ``a`` (an RG's claimed
    DRMs, by table)."""

    def reader(post: QueryDict) -> dict[str, list[str]]:
        claimed: dict[str, list[str]] = {}
        for value in post.getlist(name):
            first, _, second = value.partition(sep)
            claimed.setdefault(first, []).append(second)
        return claimed

    return _declare(reader)


def whole_form() -> Any:
    """Every field, its last value (a form drawn from the module: a result's figures)."""
    return _declare(lambda post: post.dict())


def choice(name: str, values: Mapping[str, Any], refusal: str) -> Any:
    """One of ``values``' keys, as its value; anything else is refused in words."""

    def reader(post: QueryDict) -> Any:
        given = _one(post, name, "")
        if given not in values:
            raise ActionRefused(refusal)
        return values[given]

    return _declare(reader)
