"""Template tags of Refit's own.

``action_form`` opens the form of a player action (``{% action_form "buy"
class="inline" %}`` ... ``</form>``): htmx posts it and swaps the returned fragments
out of band; without JavaScript it is a plain POST.  A page has up to a few hundred
of them (a buy button per price of the RG chart), so it is a tag rather than an
include, and each action's URL is reversed once per render.
"""

from __future__ import annotations

from typing import Any

from django import template
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

register = template.Library()

_URLS = "refit.action_urls"  # the render's cache: (campaign id, action) -> URL


@register.simple_tag(takes_context=True)
def action_form(context: template.Context, action: str, **options: Any) -> SafeString:
    """The form's opening tag with its CSRF token and the step's stale-form stamp
    (``at``: the panel ``p``, or the one given).  Options: ``class`` (default
    "action"), ``confirm`` (asked before posting), ``p``."""
    campaign_id = context["view"].campaign_id
    urls: dict[tuple[Any, str], str] | None = context.render_context.get(_URLS)
    if urls is None:
        urls = context.render_context[_URLS] = {}
    url = urls.get((campaign_id, action))
    if url is None:
        url = urls[campaign_id, action] = reverse("act", args=[campaign_id, action])
    panel = options.get("p", context.get("p"))
    confirm = options.get("confirm")
    return format_html(
        '\n<form method="post" action="{0}" hx-post="{0}" hx-swap="none" class="{1}"{2}>\n'
        '  <input type="hidden" name="csrfmiddlewaretoken" value="{3}">\n'
        '  <input type="hidden" name="at" value="{4}">\n',
        url,
        options.get("class") or "action",
        format_html(' hx-confirm="{}"', confirm) if confirm else "",
        context.get("csrf_token") or "",
        getattr(panel, "at", ""),
    )


@register.simple_tag
def options(choices: Any, selected: Any = None) -> SafeString:
    """A select's ``<option>`` elements from (value, label) pairs, ``selected`` marked
    (a page has a few selects per unit and per RG line: a tag, not a template loop)."""
    return format_html_join(
        "",
        '<option value="{}"{}>{}</option>',
        ((value, " selected" if value == selected else "", label) for value, label in choices),
    )
