"""The forms for data the rules documents lack: one datum (a grid for a table or an
RG chart, numbers, a side, text), or the start sheet (every datum still lacking, on
one page, proposed as one package).  A grid's rows may also be pasted as text or
uploaded as a CSV file; they are read cell by cell like typed ones."""

from __future__ import annotations

import re
from collections.abc import Mapping
from uuid import UUID

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from campaign.fragments import Unread
from campaign.seat_views.campaign_page import campaign_view
from campaign.seat_views.supplements import (
    SupplyForm,
    prefilled,
    sheet_values,
    supply_form,
)
from campaign.seat_views.supplements import (
    start_sheet as sheet_forms,
)
from campaign.services import supplements
from campaign.views.http import refusals
from rules import supply as rules_supply
from rules.schema import Module
from rules.supply import SupplyProblems

MAX_UPLOAD = 256 * 1024  # a CSV file of an RG chart is a few kilobytes

# Where the module's check places a problem ("variants[0] (tm).start.ob.us: "): the
# author's path, not a player's word; the datum and its cell already say where.
_PLACE = re.compile(
    r"\b[a-z_]+(?:\[\d+\])?(?: \([\w-]+\))?(?:\.[a-z_]+(?:\[\d+\])?)+: "
    r"|\b[a-z_]+\[\d+\](?: \([\w-]+\))?: "
)
_SIDE = re.compile(r"\bside ([a-z_]+)\b")
# The cell a datum with no rows names ("Value"), which says nothing its label does not.
_VALUE = re.compile(r"(^|: )Value: ")


def in_words(module: Module, problems: Mapping[str, str]) -> dict[str, str]:
    """Each problem as players read it: the module's paths dropped, a side named as the
    rules name it ("the American side", not "side us"), a sentence said once."""
    names = {s.id: s.name for s in module.sides}
    plain: dict[str, str] = {}
    for cell, message in problems.items():
        message = _VALUE.sub(r"\1", _PLACE.sub("", message))
        message = _SIDE.sub(lambda m: f"the {names.get(m.group(1), m.group(1))} side", message)
        said: list[str] = []
        for part in message.split("; "):
            if not any(p == part or p.endswith(": " + part) for p in said):
                said.append(part)
        plain[cell] = "; ".join(said)
    return plain


def _posted(request: HttpRequest) -> dict[str, str]:
    return {k: str(v) for k, v in request.POST.items() if k != "csrfmiddlewaretoken"}


def _with_pasted(
    request: HttpRequest,
    module: Module,
    it: rules_supply.Suppliable,
    values: dict[str, str],
    prefix: str = "",
) -> dict[str, str]:
    """The form's cells, the grid's replaced by rows pasted or uploaded (if any)."""
    text = values.pop("paste", "")
    upload = request.FILES.get(f"{prefix}csv")
    if upload is not None:
        if upload.size is not None and upload.size > MAX_UPLOAD:
            raise SupplyProblems({"File": "File: a CSV file of at most 256 KB."})
        raw = upload.read()
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            text = raw.decode("cp1252", errors="replace")
    if not text.strip():
        return values
    cells = rules_supply.read_pasted(module, it, text)
    kept = {k: v for k, v in values.items() if not k.startswith("row-")}
    return kept | cells


@login_required
@require_http_methods(["GET", "POST"])
@refusals
def supply(request: HttpRequest, campaign_id: UUID, path: str) -> HttpResponse:
    view = campaign_view(request.user, campaign_id)
    posted = None
    errors: dict[str, str] = {}
    status = 200
    if request.method == "POST":
        posted = _posted(request)
        it = supply_form(view.campaign, view.module, path).item
        try:
            posted = _with_pasted(request, view.module, it, posted)
            supplements.propose_supplement(
                campaign_id=campaign_id, user=request.user, path=path, form=posted
            )
        except SupplyProblems as problems:
            errors, status = in_words(view.module, problems.cells), 400
        else:
            return redirect(reverse("campaign", args=[campaign_id]) + "#campaign-supplies")
    form = supply_form(view.campaign, view.module, path, posted)
    form.errors = errors
    return render(request, "campaign/supply.html", {"view": view, "form": form}, status=status)


def _filled(values: Mapping[str, str], before: Mapping[str, str]) -> bool:
    """A datum of the start sheet the player filled in: some cell differs from what
    the sheet showed (a datum left as it came is not proposed)."""
    changed = {k for k in values.keys() | before.keys() if values.get(k, "") != before.get(k, "")}
    return any(values.get(k, "").strip() for k in changed)


@login_required
@require_http_methods(["GET", "POST"])
@refusals
def start_sheet(request: HttpRequest, campaign_id: UUID) -> HttpResponse:
    """Every datum the rules lack, on one page, proposed to the opponent at once."""
    view = campaign_view(request.user, campaign_id)
    if request.method == "GET":
        forms = sheet_forms(view.campaign, view.module, view.viewer)
        missing = {form.item.path for form in forms}
        last = {
            k: v
            for k, v in (view.seat.start_sheet_kept or {}).items()
            if k.split("|")[0] in missing
        }
        if last:
            forms = sheet_forms(
                view.campaign, view.module, view.viewer, _with_last(view, forms, last)
            )
        context = {"view": view, "forms": forms, "kept": bool(last), "unread": Unread.of(view.seat)}
        return render(request, "campaign/start_sheet.html", context)
    posted = _posted(request)
    chosen: dict[str, dict[str, str]] = {}
    problems: dict[str, str] = {}
    paths: set[str] = set()
    for form in sheet_forms(view.campaign, view.module, view.viewer):
        it = form.item
        paths.add(it.path)
        values = sheet_values(posted, it.path)
        try:
            values = _with_pasted(request, view.module, it, values, f"{it.path}|")
        except SupplyProblems as bad:
            problems |= {f"{it.path}|{c}": f"{it.label}: {m}" for c, m in bad.cells.items()}
        posted |= {f"{it.path}|{k}": v for k, v in values.items()}
        if _filled(values, prefilled(view.campaign, view.module, it)):
            chosen[it.path] = values
    status = 400
    if not problems:
        try:
            # Kept with the seat: a sheet the opponent refuses (or the player
            # withdraws) comes back filled in, in any browser, to change what was
            # wrong, not retype it.
            supplements.propose_start_sheet(
                campaign_id=campaign_id,
                user=request.user,
                forms=chosen,
                cells={k: v for k, v in posted.items() if k.split("|", 1)[0] in paths},
            )
        except SupplyProblems as bad:
            problems = bad.cells
        else:
            return redirect(reverse("campaign", args=[campaign_id]) + "#campaign-supplies")
    problems = in_words(view.module, problems)
    forms = sheet_forms(view.campaign, view.module, view.viewer, posted)
    _place(forms, problems)
    context = {
        "view": view,
        "forms": forms,
        "problems": list(problems.values()),
        "unread": Unread.of(view.seat),
    }
    return render(request, "campaign/start_sheet.html", context, status=status)


def _with_last(view, forms: list[SupplyForm], last: Mapping[str, str]) -> dict[str, str]:
    """The sheet's cells: each datum the player proposed last time (still missing, so
    refused or withdrawn) as he filled it in, every other as it comes."""
    mine = {k.split("|", 1)[0] for k in last}
    cells: dict[str, str] = {}
    for form in forms:
        path = form.item.path
        if path in mine:
            cells |= {k: v for k, v in last.items() if k.split("|", 1)[0] == path}
        else:
            cells |= {
                f"{path}|{k}": v
                for k, v in prefilled(view.campaign, view.module, form.item).items()
            }
    return cells


def _place(forms: list[SupplyForm], problems: Mapping[str, str]) -> None:
    """Each problem beside its datum."""
    for form in forms:
        head = f"{form.item.path}|"
        form.errors = {k.removeprefix(head): v for k, v in problems.items() if k.startswith(head)}
