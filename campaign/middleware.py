"""Input hygiene at the edge, for every request: an address or a form with a control
character (NUL among them, which PostgreSQL cannot store) is refused with a 400 and
a sentence before any view or query sees it, an oversized form likewise, and
full-width ASCII forms ("１２", "Ｉ４") are folded to ASCII in every parameter
(passwords aside: they are compared as they were set), so every field reads them
alike.  Services check text again with each field's limit
(``campaign.services.text``)."""

from __future__ import annotations

from collections.abc import Callable

from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.http import HttpRequest, HttpResponse, QueryDict
from django.http.multipartparser import MultiPartParserError

from campaign.services.text import control_character, fold_width
from campaign.views.http import refusal, unreadable
from rules.errors import Refused


class PlainInputMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        problem = _problem(request)
        if problem is not None:
            return refusal(request, Refused(problem, status=400))
        return self.get_response(request)


def _problem(request: HttpRequest) -> str | None:
    bad = control_character(request.path)
    if bad:
        return f"The address holds the control character {bad}; Refit takes plain text only."
    try:
        request.GET.lists()
        post = request.POST if request.method == "POST" else None
    except (RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent, MultiPartParserError) as exc:
        return unreadable(exc)
    for params in (request.GET, post):
        if params is None:
            continue
        for key, values in params.lists():
            for text in (key, *values):
                bad = control_character(text)
                if bad:
                    field = key if not control_character(key) else "a field name"
                    return (
                        f"Refit takes plain text only: “{field[:40]}” holds the control "
                        f"character {bad}."
                    )
    request.GET = _folded(request.GET)  # type: ignore[assignment]  # immutable, as Django's
    if post is not None:
        request.POST = _folded(post)  # type: ignore[assignment]
    return None


def _folded(params: QueryDict) -> QueryDict:
    """Full-width forms folded, passwords aside: a password is compared as it was set."""
    folded = QueryDict(mutable=True, encoding=params.encoding)
    for key, values in params.lists():
        if "password" in key:
            folded.setlist(key, values)
        else:
            folded.setlist(fold_width(key), [fold_width(v) for v in values])
    folded._mutable = False
    return folded
