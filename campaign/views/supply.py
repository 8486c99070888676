"""The form for a datum the rules documents lack: a player fills it in (a grid for a
table or an RG chart, numbers, a side, text) and proposes it to the opponent."""

from __future__ import annotations

from uuid import UUID

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from campaign.seat_views.campaign_page import campaign_view
from campaign.seat_views.supplements import supply_form
from campaign.services import supplements
from campaign.views.http import refusals
from rules.supply import SupplyProblems


@login_required
@require_http_methods(["GET", "POST"])
@refusals
def supply(request: HttpRequest, campaign_id: UUID, path: str) -> HttpResponse:
    view = campaign_view(request.user, campaign_id)
    posted = None
    errors: dict[str, str] = {}
    status = 200
    if request.method == "POST":
        posted = {k: str(v) for k, v in request.POST.items() if k != "csrfmiddlewaretoken"}
        try:
            supplements.propose_supplement(
                campaign_id=campaign_id, user=request.user, path=path, form=posted
            )
        except SupplyProblems as problems:
            errors, status = problems.cells, 400
        else:
            return redirect(reverse("campaign", args=[campaign_id]) + "#campaign-supplies")
    form = supply_form(view.campaign, view.module, path, posted)
    form.errors = errors
    return render(request, "campaign/supply.html", {"view": view, "form": form}, status=status)
