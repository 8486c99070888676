"""How the edge answers a refusal: the player's sentence with its 4xx status.  htmx
shows it beside the form the player submitted (``static/js/refit.js``); a plain post
gets a page of its own."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from rules.errors import Refused

View = Callable[..., HttpResponse]


def refusal(request: HttpRequest, exc: Refused) -> HttpResponse:
    """A refused action: the player's sentence, a 4xx, nothing changed."""
    htmx = bool(getattr(request, "htmx", False))
    template = "campaign/_refusal.html" if htmx else "campaign/refusal.html"
    return render(request, template, {"message": exc.message}, status=exc.status)


def refusals(view: View) -> View:
    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        try:
            return view(request, *args, **kwargs)
        except Refused as exc:
            return refusal(request, exc)

    return wrapped
