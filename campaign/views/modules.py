"""A player's own CG modules: upload one (validated as ``validatemodule`` does, each
problem shown with its line and column), see the ones he may host, host from one."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from campaign.forms import ModuleUploadForm
from campaign.selectors import visible_modules
from campaign.services import modules as module_service
from campaign.services.errors import ActionRefused
from rules.registry import parse_module


@login_required
@require_http_methods(["GET", "POST"])
def modules(request: HttpRequest) -> HttpResponse:
    form = ModuleUploadForm(request.POST or None, request.FILES or None)
    problems: list[str] = []
    refusal = ""
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["file"]
        content = upload.read(module_service.MAX_UPLOAD + 1) if upload else b""
        content = content or form.cleaned_data["text"].encode()
        filename = upload.name if upload else "pasted module"
        try:
            record = module_service.upload_module(
                user=request.user, content=content, filename=filename
            )
        except module_service.ModuleRefused as exc:
            refusal, problems = exc.message, exc.problems
        except ActionRefused as exc:
            refusal = exc.message
        else:
            module = parse_module(record.checksum, record.data)
            return redirect(f"{reverse('create')}?cg={record.id}/{module.variants[0].id}")
    elif request.method == "POST":
        refusal = "Choose a module file or paste one."
    rows = [
        {
            "record": r,
            "module": parse_module(r.checksum, r.data),
            "mine": r.owner_id == request.user.pk,
        }
        for r in visible_modules(request.user)
        if not r.public
    ]
    context = {"form": form, "problems": problems, "refusal": refusal, "rows": rows}
    status = 400 if refusal else 200
    return render(request, "campaign/modules.html", context, status=status)
