"""How the edge answers a refusal: the player's sentence with its 4xx status.  htmx
shows it beside the form the player submitted (``static/js/refit.js``); a plain post
gets a page of its own."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.http import Http404, HttpRequest, HttpResponse
from django.http.multipartparser import MultiPartParserError
from django.shortcuts import render
from django.urls import NoReverseMatch, reverse
from django_htmx.middleware import HtmxDetails

from rules.errors import Refused

View = Callable[..., HttpResponse]


class HtmxHttpRequest(HttpRequest):
    """A request as ``django_htmx.middleware.HtmxMiddleware`` leaves it: ``htmx``
    says whether htmx sent it, and what of the page it names (django-htmx's typing
    recipe)."""

    htmx: HtmxDetails


NOTHING_CHANGED = "Nothing was changed."
ALSO_CHANGED = "; nothing was changed."


def refusal(request: HttpRequest, exc: Refused) -> HttpResponse:
    """A refused action: the player's sentence, a 4xx, nothing changed.  A form made
    for a step the campaign has left also offers the page as it is now."""
    htmx = bool(getattr(request, "htmx", False))  # a 404 page's request may predate it
    template = "campaign/_refusal.html" if htmx else "campaign/refusal.html"
    # The page says "Nothing was changed." after every refusal: a sentence of a service
    # that says it already ("...; nothing was changed." too) is not read twice.
    message = exc.message.removesuffix(NOTHING_CHANGED).rstrip()
    if message.endswith(ALSO_CHANGED):
        message = message.removesuffix(ALSO_CHANGED) + "."
    context = {"message": message, "fresh": _fresh_page(request) if exc.stale else ""}
    return render(request, template, context, status=exc.status)


def _fresh_page(request: HttpRequest) -> str:
    match = request.resolver_match
    campaign_id = match.kwargs.get("campaign_id") if match else None
    try:
        return reverse("campaign", args=[campaign_id]) if campaign_id else ""
    except NoReverseMatch:
        return ""


def _sentence(exception: Exception | None, default: str) -> str:
    """Our own refusals are sentences; Django's internals (a URL resolver's report)
    are not shown to players."""
    args = getattr(exception, "args", ())
    if args and isinstance(args[0], str) and args[0]:
        return args[0]
    return default


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    default = "There is nothing here, or it is not yours to see."
    message = _sentence(exception, default) if isinstance(exception, Http404) else default
    return render(request, "404.html", {"message": message}, status=404)


def forbidden(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    message = _sentence(exception, "This is not yours to do or to see.")
    return render(request, "403.html", {"message": message}, status=403)


def unreadable(exception: Exception | None) -> str:
    """Why Django could not read a request, in words (never its internals)."""
    if isinstance(exception, TooManyFieldsSent | TooManyFilesSent):
        fields = settings.DATA_UPLOAD_MAX_NUMBER_FIELDS
        return (
            f"This request carries more fields than any page of Refit sends (at most "
            f"{fields}). Reload the page and try again."
        )
    if isinstance(exception, RequestDataTooBig):
        size = settings.DATA_UPLOAD_MAX_MEMORY_SIZE // 1024
        return f"The form is too large: at most {size} kB, please."
    if isinstance(exception, MultiPartParserError):
        return (
            "This form could not be read (a field's name or its headers are too long). "
            "Reload the page and try again."
        )
    return "This request could not be read. Reload the page and try again."


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """Django's refusals before any view (too many fields, an unreadable body): a
    sentence where the player clicked, as every other refusal."""
    return refusal(request, Refused(unreadable(exception), status=400))


def refusals(view: View) -> View:
    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        try:
            return view(request, *args, **kwargs)
        except Refused as exc:
            return refusal(request, exc)

    return wrapped
