"""Views: parse a request, call one service, render from the seat view.  No rule is
computed here."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from campaign.forms import CreateCampaignForm, SignUpForm
from campaign.fragments import render_fragments, roster_fragments
from campaign.seat_view import (
    dashboard_rows,
    dice_view,
    invitation_view,
    member_seat,
    roster_digest,
    roster_view,
    seat_view,
)
from rules.services import backup, hosting, initiative, purchases, sequence, units
from rules.services.errors import ActionRefused


def refusal(request: HttpRequest, exc: ActionRefused) -> HttpResponse:
    """A refused action: the player's sentence, a 4xx, nothing changed."""
    template = "campaign/_refusal.html" if request.htmx else "campaign/refusal.html"
    response = render(request, template, {"message": exc.message}, status=exc.status)
    if request.htmx:
        response["HX-Retarget"] = "#flash"
        response["HX-Reswap"] = "innerHTML"
    return response


def refusals(view: Callable) -> Callable:
    @wraps(view)
    def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        try:
            return view(request, *args, **kwargs)
        except ActionRefused as exc:
            return refusal(request, exc)

    return wrapped


def home(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("dashboard")
    return signup(request)


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("dashboard")
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        target = request.GET.get("next", "")
        if not url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}):
            target = reverse("dashboard")
        return redirect(target)
    status = 400 if request.method == "POST" else 200
    return render(
        request,
        "registration/signup.html",
        {"form": form, "next": request.GET.get("next", "")},
        status=status,
    )


@login_required
@require_GET
def dashboard(request: HttpRequest) -> HttpResponse:
    return render(request, "campaign/dashboard.html", {"rows": dashboard_rows(request.user)})


@login_required
@require_http_methods(["GET", "POST"])
@refusals
def create(request: HttpRequest) -> HttpResponse:
    form = CreateCampaignForm(request.POST or None, initial={"cg": request.GET.get("cg")})
    if request.method == "POST" and form.is_valid():
        campaign = hosting.create_campaign(
            host=request.user,
            module_id=form.module_id,
            variant_id=form.variant_id,
            side=form.cleaned_data["side"],
            name=form.cleaned_data["name"],
            reveal_policy=form.cleaned_data["reveal_policy"],
        )
        return redirect("campaign", campaign_id=campaign.pk)
    status = 400 if request.method == "POST" else 200
    return render(request, "campaign/create.html", {"form": form}, status=status)


@login_required
@require_GET
def campaign_page(request: HttpRequest, campaign_id) -> HttpResponse:
    campaign, seat = member_seat(request.user, campaign_id)
    view = seat_view(campaign, seat.side)
    origin = f"{request.scheme}://{request.get_host()}"
    return render(request, "campaign/campaign.html", {"view": view, "origin": origin})


@login_required
@require_GET
def state_json(request: HttpRequest, campaign_id) -> JsonResponse:
    campaign, seat = member_seat(request.user, campaign_id)
    return JsonResponse(seat_view(campaign, seat.side).as_json())


@login_required
@require_GET
def roster(request: HttpRequest, campaign_id) -> HttpResponse:
    campaign, seat = member_seat(request.user, campaign_id)
    view = roster_view(campaign, seat.side)
    return render(request, "campaign/roster.html", {"roster": view, "digest": roster_digest(view)})


@login_required
@require_POST
@refusals
def unit(request: HttpRequest, campaign_id) -> HttpResponse:
    """Add, edit or remove one of the player's own retained units."""
    member_seat(request.user, campaign_id)
    post = request.POST
    action = post.get("do", "")
    if action == "add":
        units.add_unit(
            campaign_id=campaign_id,
            user=request.user,
            name=post.get("name", ""),
            status=post.get("status", "ok"),
            location=post.get("location", ""),
        )
    elif action == "save":
        units.update_unit(
            campaign_id=campaign_id,
            user=request.user,
            unit_id=post.get("unit"),
            name=post.get("name", ""),
            status=post.get("status", ""),
            location=post.get("location", ""),
        )
    elif action == "remove":
        units.remove_unit(campaign_id=campaign_id, user=request.user, unit_id=post.get("unit"))
    else:
        raise ActionRefused("Add, save or remove a unit.")
    if not request.htmx:
        return redirect("roster", campaign_id=campaign_id)
    campaign, seat = member_seat(request.user, campaign_id)
    html = '<div id="flash" hx-swap-oob="true"></div>' + "".join(
        h
        for _, h in roster_fragments(
            roster_view(campaign, seat.side), user=request.user, request=request
        )
    )
    return HttpResponse(html)


@login_required
@require_GET
def dice(request: HttpRequest, campaign_id) -> HttpResponse:
    campaign, seat = member_seat(request.user, campaign_id)
    return render(request, "campaign/dice.html", {"dice": dice_view(campaign, seat.side)})


@login_required
@require_POST
@refusals
def invitation_new(request: HttpRequest, campaign_id) -> HttpResponse:
    member_seat(request.user, campaign_id)
    hosting.regenerate_invitation(campaign_id=campaign_id, host=request.user)
    return redirect(reverse("campaign", args=[campaign_id]) + "#invitation")


@login_required
@require_POST
@refusals
def invitation_revoke(request: HttpRequest, campaign_id) -> HttpResponse:
    member_seat(request.user, campaign_id)
    hosting.revoke_invitation(campaign_id=campaign_id, host=request.user)
    return redirect(reverse("campaign", args=[campaign_id]) + "#invitation")


@require_http_methods(["GET", "POST"])
@refusals
def join(request: HttpRequest, token: str) -> HttpResponse:
    if not request.user.is_authenticated:
        return redirect(f"{reverse('signup')}?next={request.path}")
    if request.method == "POST":
        campaign = hosting.join_campaign(token=token, user=request.user)
        return redirect("campaign", campaign_id=campaign.pk)
    return render(
        request, "campaign/join.html", {"invitation": invitation_view(token, request.user)}
    )


@login_required
@require_GET
@refusals
def export(request: HttpRequest, campaign_id) -> HttpResponse:
    campaign, _ = member_seat(request.user, campaign_id)
    if campaign.host_id != request.user.pk:
        raise ActionRefused("Only the host can export the whole campaign.", status=403)
    opponent_joined = campaign.seats.filter(user__isnull=False).count() > 1
    if opponent_joined and campaign.ended_at is None:
        raise ActionRefused(
            "A full backup holds your opponent's secrets too, so it can be downloaded once "
            "the CG has ended. Your server's operator can back it up at any time "
            "(manage.py exportcampaign).",
            status=403,
        )
    data = backup.export_campaign(campaign_id=campaign.pk)
    response = HttpResponse(data, content_type="application/json")
    response["Content-Disposition"] = f'attachment; filename="refit-campaign-{campaign.pk}.json"'
    return response


def _int(raw: str, what: str) -> int:
    try:
        return int(raw)
    except (TypeError, ValueError):
        raise ActionRefused(f"{what}: enter a whole number.") from None


def _typed(post) -> dict[str, int]:
    typed = {}
    for key, raw in post.items():
        if key.startswith("typed.") and raw.strip():
            try:
                typed[key.removeprefix("typed.")] = int(raw)
            except ValueError:
                raise ActionRefused("A typed DRM must be a whole number, e.g. -2.") from None
    return typed


# One player action per name: what the form posts, and the service it calls.
ACTIONS: dict[str, Callable] = {
    "finish": lambda r, cid, at: sequence.finish_step(campaign_id=cid, user=r.user, at=at),
    "roll": lambda r, cid, at: sequence.roll_on_table(
        campaign_id=cid,
        user=r.user,
        at=at,
        table_id=r.POST.get("table", ""),
        item=r.POST.get("item", ""),
        ticked=r.POST.getlist("tick"),
        typed=_typed(r.POST),
        unit_id=r.POST.get("unit") or None,
    ),
    "result": lambda r, cid, at: sequence.enter_scenario_result(
        campaign_id=cid, user=r.user, at=at, values=r.POST.dict()
    ),
    "confirm": lambda r, cid, at: sequence.confirm_scenario_result(
        campaign_id=cid, user=r.user, at=at
    ),
    "dispute": lambda r, cid, at: sequence.dispute_scenario_result(
        campaign_id=cid, user=r.user, at=at, reason=r.POST.get("reason", "")
    ),
    "chit": lambda r, cid, at: initiative.lock_initiative(
        campaign_id=cid, user=r.user, at=at, chit=r.POST.get("chit", "")
    ),
    "buy": lambda r, cid, at: purchases.purchase_rg(
        campaign_id=cid,
        user=r.user,
        at=at,
        group_id=r.POST.get("group", ""),
        cost_variant=r.POST.get("variant", ""),
    ),
    "cancel": lambda r, cid, at: purchases.cancel_purchase(
        campaign_id=cid, user=r.user, at=at, purchase_id=r.POST.get("purchase")
    ),
    "rg-roll": lambda r, cid, at: purchases.roll_for_purchase(
        campaign_id=cid, user=r.user, at=at, purchase_id=r.POST.get("purchase")
    ),
    "reveal-rg": lambda r, cid, at: purchases.reveal_purchase(
        campaign_id=cid, user=r.user, purchase_id=r.POST.get("purchase")
    ),
    "entry-area": lambda r, cid, at: purchases.record_entry_area(
        campaign_id=cid,
        user=r.user,
        purchase_id=r.POST.get("purchase"),
        entry_area=r.POST.get("entry_area", ""),
        notes=r.POST.get("notes", ""),
    ),
    "fortify": lambda r, cid, at: purchases.buy_fortification(
        campaign_id=cid,
        user=r.user,
        at=at,
        item_id=r.POST.get("item", ""),
        count=_int(r.POST.get("count", "1"), "How many"),
        location=r.POST.get("location", ""),
    ),
    "recon": lambda r, cid, at: purchases.buy_recon(
        campaign_id=cid, user=r.user, at=at, option=_int(r.POST.get("option", ""), "Recon option")
    ),
    "declare": lambda r, cid, at: initiative.declare_on_map_units(
        campaign_id=cid, user=r.user, at=at, has_units=r.POST.get("has_units") == "yes"
    ),
}


@login_required
@require_POST
@refusals
def act(request: HttpRequest, campaign_id, action: str) -> HttpResponse:
    """A player's action on the current step: one service call.  htmx gets the
    campaign's fragments for this seat back; a plain form post is redirected."""
    member_seat(request.user, campaign_id)
    if action not in ACTIONS:
        raise ActionRefused("There is no such action.", status=404)
    ACTIONS[action](request, campaign_id, request.POST.get("at"))
    if not request.htmx:
        return redirect("campaign", campaign_id=campaign_id)
    campaign, seat = member_seat(request.user, campaign_id)
    origin = f"{request.scheme}://{request.get_host()}"
    html = '<div id="flash" hx-swap-oob="true"></div>' + render_fragments(
        seat_view(campaign, seat.side), user=request.user, origin=origin, request=request
    )
    return HttpResponse(html)
