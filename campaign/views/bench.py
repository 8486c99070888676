"""The benchmark's empty request (routed only when ``REFIT_BENCH_ECHO`` is set, as the
bare Channels echo: never in production)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_POST


@require_POST
def ceiling(request: HttpRequest) -> HttpResponse:
    """A signed-in POST through every middleware (session, user, CSRF) that does
    nothing else: what the server stack costs a request, to read a purchase's
    throughput against (``bench/run.py``)."""
    if not request.user.is_authenticated:
        return HttpResponse("Sign in first.", status=403, content_type="text/plain")
    return HttpResponse("ok", content_type="text/plain")
