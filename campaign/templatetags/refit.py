"""Template tags of Refit's own.

``action_form`` opens the form of a player action (``{% action_form "buy"
class="inline" %}`` ... ``</form>``): htmx posts it and swaps the returned fragments
out of band; without JavaScript it is a plain POST.  A page has dozens of them (a
line of the records each, a few per unit), so it is a tag rather than an include, and
each distinct opening tag is built once per render.
"""

from __future__ import annotations

import html
from typing import Any

from django import template
from django.template.defaultfilters import date, linebreaksbr
from django.urls import get_script_prefix, reverse
from django.utils import timezone, translation
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.timezone import template_localtime  # type: ignore[attr-defined]

from campaign import fragments
from campaign.memo import Memo
from rules.drm import after_value
from rules.text import printed

register = template.Library()

_FORMS = "refit.action_forms"  # the render's cache of opening tags
_OPTIONS = "refit.options"  # ... and of option lists


def _cache(context: template.Context, name: str) -> dict[tuple[Any, ...], SafeString]:
    """A dict that lives as long as this render (``name``: one per tag)."""
    built: dict[tuple[Any, ...], SafeString] | None = context.render_context.get(name)
    if built is None:
        built = context.render_context[name] = {}
    return built


@register.simple_tag(takes_context=True)
def action_form(context: template.Context, action: str, **options: Any) -> SafeString:
    """The form's opening tag with its CSRF token and the step's stale-form stamp
    (``at``: the panel ``p``, or the one given).  Options: ``class`` (default
    "action"), ``confirm`` (asked before posting), ``id`` (for buttons outside the
    form that name it in their ``form`` attribute), ``p``.  The same tag is built once
    per render (a record has one per line and action)."""
    campaign_id = context["view"].campaign_id
    panel = options.get("p", context.get("p"))
    confirm = options.get("confirm")
    css = options.get("class") or "action"
    form_id = options.get("id")
    key = (campaign_id, action, css, confirm, form_id, getattr(panel, "at", ""))
    built = _cache(context, _FORMS)
    tag = built.get(key)
    if tag is None:
        url = reverse("act", args=[campaign_id, action])
        tag = built[key] = format_html(
            '\n<form method="post" action="{0}" hx-post="{0}" hx-swap="none" class="{1}"{2}{3}>\n'
            '  <input type="hidden" name="csrfmiddlewaretoken" value="{4}">\n'
            '  <input type="hidden" name="at" value="{5}">\n',
            url,
            css,
            format_html(' id="{}"', form_id) if form_id else "",
            format_html(' hx-confirm="{}"', confirm) if confirm else "",
            context.get("csrf_token") or "",
            key[-1],
        )
    return tag


# The URLs pages name, by everything ``reverse`` makes one from: the script prefix,
# the URL's name and its arguments.  A campaign page names a few dozen (a link per
# datum of the rules to supply), the same at every render.
_URLS: Memo[str] = Memo(size=4096)


@register.simple_tag
def url_once(name: str, *args: Any) -> str:
    """As ``{% url name args %}`` (and escaped as it is), each distinct URL reversed
    once per process, not at every render."""
    key = (get_script_prefix(), name, *(str(a) for a in args))
    url = _URLS.get(key)
    if url is None:
        url = reverse(name, args=args)
        _URLS.put(key, url)
    return url


def escaped(value: Any) -> str:
    """``value`` escaped as Django's templates escape it (``conditional_escape``), a
    plain string without Django's lazy-text wrapper around ``html.escape`` (which
    ``conditional_escape`` calls for it): a log's 200 lines and a roster's option
    lists escape hundreds of strings per render."""
    return html.escape(value) if type(value) is str else conditional_escape(value)


@register.simple_tag
def log_lines(entries: Any) -> SafeString:
    """The ``<li>`` lines of a log date's entries (``EventView``): a log shows up to
    200, so a tag joining escaped strings, not a template loop."""
    return mark_safe(  # every step id and text escaped here
        "".join(
            f'<li><span class="when">{escaped(e.step_id)}</span> {escaped(e.text)}</li>'
            for e in entries
        )
    )


# The players' thread's lines, each rendered once per process per what it shows (the
# message, its side, whether it is the viewer's) and the time zone and language its
# time is written in: a message renews both seats' pages, whose threads differ from
# the last render by one line.
_THREAD_LINES: Memo[str] = Memo(size=2048)


@register.simple_tag
def thread_lines(messages: Any) -> SafeString:
    """The ``<li>`` lines of the players' thread (``MessageView``), as the loop they
    replace rendered them: who, the time (ISO and "j M, H:i", in the current time
    zone), the text with its line breaks."""
    zone, language = timezone.get_current_timezone_name(), translation.get_language()
    lines = []
    for m in messages:
        key = (m, zone, language)
        line = _THREAD_LINES.get(key)
        if line is None:
            when = template_localtime(m.when)  # as the template's ``date`` filter
            line = (
                f'<li class="{"mine" if m.mine else "theirs"}"><span class="who">'
                f"{'You' if m.mine else escaped(m.who)}</span> "
                f'<time datetime="{escaped(date(when, "c"))}">'
                f"{escaped(date(when, 'j M, H:i'))}</time>"
                f"<p>{linebreaksbr(m.said, autoescape=True)}</p></li>"
            )
            _THREAD_LINES.put(key, line)
        lines.append(line)
    return mark_safe("".join(lines))  # every value escaped above


@register.simple_tag(takes_context=True)
def options(context: template.Context, choices: Any, selected: Any = None) -> SafeString:
    """A select's ``<option>`` elements from (value, label) pairs, ``selected`` marked
    (a page has a few selects per unit and per RG line: a tag, not a template loop,
    and each distinct list is built once per render)."""
    pairs = tuple((value, label) for value, label in choices)
    built = _cache(context, _OPTIONS)
    key = (pairs, selected)
    html = built.get(key)
    if html is None:
        html = built[key] = mark_safe(  # every value and label escaped here
            "".join(
                f'<option value="{escaped(value)}"'
                f"{' selected' if value == selected else ''}>{escaped(label)}</option>"
                for value, label in pairs
            )
        )
    return html


def _token(context: template.Context) -> Any:
    """The render's CSRF token, still lazy: a table without a form does not ask for
    one (nor set the CSRF cookie)."""
    return context.get("csrf_token")


@register.simple_tag(takes_context=True)
def purchase_chart(context: template.Context) -> SafeString:
    """The RG chart of the purchase step's panel ``p``, rendered once per distinct
    chart (``campaign.fragments.purchase_chart``)."""
    return mark_safe(fragments.purchase_chart(context["view"], context["p"], _token(context)))


@register.simple_tag
def chart_rows(chart: fragments.ChartInputs) -> SafeString:
    """The rows of the RG chart ``chart``, each rendered once per distinct row
    (``campaign.fragments.chart_rows``)."""
    return mark_safe(fragments.chart_rows(chart))


@register.simple_tag
def record_rows(record: fragments.RecordInputs) -> SafeString:
    """The lines of the RG Purchase Records ``record``, each rendered once per distinct
    line (``campaign.fragments.record_rows``)."""
    return mark_safe(fragments.record_rows(record))


@register.simple_tag(takes_context=True)
def purchase_record(context: template.Context) -> SafeString:
    """The RG Purchase Records' table, rendered once per distinct record
    (``campaign.fragments.purchase_record``)."""
    return mark_safe(fragments.purchase_record(context["view"], _token(context)))


@register.simple_tag(takes_context=True)
def my_purchases(context: template.Context) -> SafeString:
    """The viewer's RGs at the step of panel ``p``, rendered once per distinct list
    (``campaign.fragments.my_purchases``)."""
    return mark_safe(fragments.my_purchases(context["view"], context["p"], _token(context)))


@register.simple_tag
def refit_version() -> str:
    """The version this worker runs (``pyproject.toml``), for the page footer."""
    from campaign.views.health import version

    return version()


@register.filter(name="printed")
def printed_filter(words: Any) -> str:
    """Module text as a player reads it (a DRM's name, a footnote, a step's summary):
    where the printed rule stops short it says so, and who decides
    (``rules.text.printed``)."""
    return printed(str(words))


@register.filter(name="after_value")
def after_value_filter(label: Any, value: Any) -> str:
    """A DRM's name printed after its signed ``value``: a name that begins with that
    same value, as the rules print it ("+1 Unit is Isolated"), does not say it twice."""
    try:
        number = int(value)
    except (TypeError, ValueError):
        return printed(str(label))
    return after_value(str(label), number)
