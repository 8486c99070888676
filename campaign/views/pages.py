"""Pages: what a signed-in player reads.  Each renders one seat view."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from uuid import UUID

from django.contrib.auth.decorators import login_required
from django.contrib.messages import get_messages
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.middleware.csrf import get_token
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET, require_http_methods

from campaign.forms import CreateCampaignForm
from campaign.fragments import (
    CAMPAIGN_PARTS,
    ROSTER_PARTS,
    Part,
    PartMemo,
    Unread,
    campaign_fragments,
    roster_digest,
    roster_fragments,
    shown_by,
)
from campaign.live_pages import CAMPAIGN, ROSTER
from campaign.seat_views.campaign_page import CampaignView, campaign_view
from campaign.seat_views.common import member_seat
from campaign.seat_views.dashboard import dashboard_rows
from campaign.seat_views.dice import dice_view
from campaign.seat_views.digest import digest as digest_of
from campaign.seat_views.invitation import invitation_view
from campaign.seat_views.roster import roster_view
from campaign.seat_views.sheet import scenario_sheet, sheet_text
from campaign.selectors import module_of
from campaign.services import backup, hosting, presence
from campaign.services.errors import ActionRefused
from campaign.views.http import refusals


def page_origin(request: HttpRequest) -> str:
    return f"{request.scheme}://{request.get_host()}"


@login_required
@require_GET
def dashboard(request: HttpRequest) -> HttpResponse:
    rows = dashboard_rows(request.user)
    your_moves = sum(1 for r in rows if r.your_move)
    return render(request, "campaign/dashboard.html", {"rows": rows, "your_moves": your_moves})


@login_required
@require_http_methods(["GET", "POST"])
@refusals
def create(request: HttpRequest) -> HttpResponse:
    form = CreateCampaignForm(
        request.POST or None, initial={"cg": request.GET.get("cg")}, user=request.user
    )
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


# Whole pages of a seat, rendered once per everything they show (``once_per``'s key):
# the campaign and roster pages a player reloads, opens in another tab or comes back
# to.  About two pages for each of 32 seats.
PAGE_MEMO = PartMemo(size=64)


def once_per(
    request: HttpRequest,
    key: tuple[object, ...],
    template: str,
    context: Callable[[str | None], dict[str, object]],
    shells: Sequence[tuple[object, ...]] = (),
) -> HttpResponse:
    """``template`` rendered once per ``key``, which names everything the page shows
    but its CSRF token (rendered as a placeholder, this request's put in after) and
    one-time messages (a page with any is rendered afresh).  ``context(token)``: the
    page's context with its parts' forms holding ``token`` (None: the request's).
    ``shells``: the keys of what the page shows around its parts (its shell,
    ``_spliced``): the first this render's, the others earlier ones it is still."""
    if len(get_messages(request)):
        return render(request, template, context(None))
    key = (template, request.user.get_username(), *key)
    html = PAGE_MEMO.get(key)
    if html is None:
        placeholder = {**context(PartMemo.TOKEN), "csrf_token": PartMemo.TOKEN}
        if shells:
            html = _spliced(request, template, placeholder, shells)
        else:
            html = render_to_string(template, placeholder, request=request)
        PAGE_MEMO.put(key, html)
    return HttpResponse(html.replace(PartMemo.TOKEN, get_token(request)))


# Pages without their parts (each part a marker), once per what they show around them
# and their user: a change that touches none of what the shell shows (the campaign
# page's title and links: its header's and rules data's inputs) renders its parts and
# puts them in the shell already rendered.  About two pages' shells for each of 32
# seats; a shell is a few kB.
SHELLS = PartMemo(size=64)
# Where a part goes in a shell: random per process (no text a player writes can match
# it), an HTML comment.
_PART_MARK = f"part-{secrets.token_hex(8)}-"


def _spliced(
    request: HttpRequest,
    template: str,
    context: dict[str, object],
    shells: Sequence[tuple[object, ...]],
) -> str:
    """``template`` rendered from ``context`` as its shell (``shells``: the keys it is
    memoised by, this render's first) with ``context["parts"]`` put in."""
    parts = context["parts"]
    assert isinstance(parts, dict)
    key = (template, request.user.get_username(), *shells[0])
    shell = SHELLS.get(key)
    for earlier in shells[1:]:
        if shell is not None:
            break
        shell = SHELLS.get((template, request.user.get_username(), *earlier))
    if shell is None:
        marked = {part: mark_safe(f"<!--{_PART_MARK}{part}-->") for part in parts}
        shell = render_to_string(template, {**context, "parts": marked}, request=request)
    SHELLS.put(key, shell)
    pieces = shell.split(f"<!--{_PART_MARK}")
    html = [pieces[0]]
    for piece in pieces[1:]:
        name, _, rest = piece.partition("-->")
        html += [parts[name], rest]
    return "".join(html)


@login_required
@require_GET
def campaign_page(request: HttpRequest, campaign_id: UUID) -> HttpResponse:
    view = campaign_view(request.user, campaign_id)
    origin = page_origin(request)

    def context(token: str | None) -> dict[str, object]:
        parts = campaign_fragments(
            view,
            CAMPAIGN_PARTS,
            user=request.user,
            origin=origin,
            request=request,
            oob=False,
            token=token,
            earlier=CAMPAIGN.earlier(view.seat),
        )
        return {"view": view, "parts": dict(parts)}

    # The invitation's link names the page's origin.
    key = (*shown_by(view), origin)
    return once_per(request, key, "campaign/campaign.html", context, _campaign_shells(view))


def _campaign_shells(view: CampaignView) -> list[tuple[object, ...]]:
    """The keys of the campaign page's shell at the seat's revision, then at the
    earlier ones since which no change touched what it shows: its title and links
    read only what the header and the rules data to supply show (``SHELL_SHOWS``)."""
    cid, side, revision, players, _ = shown_by(view)
    keys: list[tuple[object, ...]] = [(cid, side, revision, players)]
    for earlier, touched in CAMPAIGN.earlier(view.seat):
        if touched & SHELL_SHOWS:
            break
        keys.append((cid, side, earlier, players))
    return keys


# What the campaign page's shell (``campaign.html`` around its parts) reads of the
# seat's view is what these parts show too (``tests/test_renewals.py`` holds it).
SHELL_SHOWS = frozenset({Part.HEADER, Part.SUPPLIES})


@login_required
@require_GET
def state_json(request: HttpRequest, campaign_id: UUID) -> JsonResponse:
    return JsonResponse(campaign_view(request.user, campaign_id).as_json())


@login_required
@require_GET
def roster(request: HttpRequest, campaign_id: UUID) -> HttpResponse:
    _, seat = member_seat(request.user, campaign_id)
    view = roster_view(seat, unchanged_since=ROSTER.unchanged_since(seat))

    def context(token: str | None) -> dict[str, object]:
        parts = roster_fragments(
            view,
            ROSTER_PARTS,
            user=request.user,
            request=request,
            oob=False,
            token=token,
            unread=Unread.of(seat),
        )
        return {"roster": view, "parts": dict(parts)}

    # Once per what it shows: a new revision whose view is as it was (a change the
    # roster does not show: a log line, a step done elsewhere) serves the same page.
    key = (seat.campaign_id, seat.side, roster_digest(view), seat.messages_unread)
    return once_per(request, key, "campaign/roster.html", context)


@login_required
@require_GET
def sheet(request: HttpRequest, campaign_id: UUID) -> HttpResponse:
    """The seat's scenario sheet, printable."""
    campaign, seat = member_seat(request.user, campaign_id)
    context = {"sheet": scenario_sheet(campaign, seat.side), "unread": Unread.of(seat)}
    return render(request, "campaign/sheet.html", context)


@login_required
@require_GET
def sheet_txt(request: HttpRequest, campaign_id: UUID) -> HttpResponse:
    """The scenario sheet as plain text, to paste into VASL's chat or notes."""
    campaign, seat = member_seat(request.user, campaign_id)
    text = sheet_text(scenario_sheet(campaign, seat.side))
    return HttpResponse(text, content_type="text/plain; charset=utf-8")


@login_required
@require_GET
def sheet_json(request: HttpRequest, campaign_id: UUID) -> JsonResponse:
    """The scenario sheet for tools."""
    campaign, seat = member_seat(request.user, campaign_id)
    return JsonResponse(scenario_sheet(campaign, seat.side).as_json())


@login_required
@require_GET
def dice(request: HttpRequest, campaign_id: UUID) -> HttpResponse:
    campaign, seat = member_seat(request.user, campaign_id)
    context = {"dice": dice_view(campaign, seat.side), "unread": Unread.of(seat)}
    return render(request, "campaign/dice.html", context)


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
def export(request: HttpRequest, campaign_id: UUID) -> HttpResponse:
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


@login_required
@require_GET
def digest(request: HttpRequest, campaign_id: UUID) -> HttpResponse:
    """What happened since the player last opened the campaign page (the page fetches
    it once as it loads; from then on its socket keeps it live)."""
    campaign, seat = member_seat(request.user, campaign_id)
    before = presence.record_visit(seat_id=seat.pk, page=str(request.GET.get("page", "")))
    news = digest_of(campaign, module_of(campaign), seat.side, before)
    return render(request, "campaign/_digest.html", {"digest": news})
