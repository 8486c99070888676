from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_http_methods

from campaign.forms import NotificationSettingsForm, SignUpForm
from campaign.services import notifications
from campaign.services.errors import ActionRefused


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
        login(request, user, backend="campaign.auth.ModelBackend")
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
@require_http_methods(["GET", "POST"])
def notification_settings(request: HttpRequest) -> HttpResponse:
    """The player's e-mail address and how often Refit may e-mail them; the browser
    notification opt-in (per browser) is on the same page."""
    email, frequency = notifications.notification_settings(request.user)  # type: ignore[arg-type]
    form = NotificationSettingsForm(
        request.POST or None, initial={"email": email, "frequency": frequency}
    )
    if request.method == "POST" and form.is_valid():
        try:
            notifications.change_notification_settings(
                user=request.user,
                email=form.cleaned_data["email"],
                frequency=form.cleaned_data["frequency"],
            )
        except ActionRefused as exc:
            form.add_error(None, exc.message)
        else:
            messages.success(request, "Your notification settings are saved.")
            return redirect("settings")
    status = 400 if request.method == "POST" else 200
    return render(request, "campaign/settings.html", {"form": form}, status=status)
