"""The Jinja2 environment of the hot parts (issue 49; settings ``TEMPLATES``, engine
``jinja2``; the templates in ``templates/jinja2/``).  ``campaign.fragments`` renders
the RG chart's rows and the CG Roster with it: Django's engine took two to four times
the CPU for the same HTML (``python bench/profiling.py --templates``).  Autoescape is
on, and values are escaped as Django escapes them (``&#x27;``, ``&quot;``, not
MarkupSafe's ``&#39;``, ``&#34;``), so the HTML is Django's byte for byte
(``tests/test_bench_templates.py``).  Filters whose Django twins the templates used:
``join`` (each item escaped as Django escapes), ``none_as`` (``default_if_none``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.utils.html import conditional_escape, escape
from django.utils.safestring import SafeString, mark_safe
from jinja2 import Environment


def finalize(value: Any) -> Any:
    """Escape as Django does; what is already safe (``__html__``) stays as it is."""
    if hasattr(value, "__html__"):
        return value
    return escape(value)


def join(values: Iterable[Any], separator: str = "") -> SafeString:
    """Django's ``join`` under autoescape: each item and the separator escaped."""
    return mark_safe(conditional_escape(separator).join(conditional_escape(v) for v in values))


def none_as(value: Any, text: str) -> Any:
    """Django's ``default_if_none``."""
    return text if value is None else value


def environment(**options: Any) -> Environment:
    env = Environment(**{"finalize": finalize, "keep_trailing_newline": True, **options})
    env.filters["join"] = join
    env.filters["none_as"] = none_as
    return env
