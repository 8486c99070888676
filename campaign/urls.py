from django.conf import settings
from django.contrib.auth import views as auth_views
from django.urls import path

from campaign import views
from campaign.views import bench, health

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", health.healthz, name="healthz"),
    path("signup/", views.signup, name="signup"),
    path(
        "login/",
        auth_views.LoginView.as_view(redirect_authenticated_user=True),
        name="login",
    ),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("settings/", views.notification_settings, name="settings"),
    path("campaigns/", views.dashboard, name="dashboard"),
    path("campaigns/new/", views.create, name="create"),
    path("modules/", views.modules, name="modules"),
    path("campaigns/<uuid:campaign_id>/", views.campaign_page, name="campaign"),
    path("campaigns/<uuid:campaign_id>/state.json", views.state_json, name="state_json"),
    path("campaigns/<uuid:campaign_id>/export/", views.export, name="export"),
    path("campaigns/<uuid:campaign_id>/dice/", views.dice, name="dice"),
    path("campaigns/<uuid:campaign_id>/roster/", views.roster, name="roster"),
    path("campaigns/<uuid:campaign_id>/sheet/", views.sheet, name="sheet"),
    path("campaigns/<uuid:campaign_id>/sheet.txt", views.sheet_txt, name="sheet_txt"),
    path("campaigns/<uuid:campaign_id>/sheet.json", views.sheet_json, name="sheet_json"),
    path("campaigns/<uuid:campaign_id>/units/", views.unit, name="unit"),
    path("campaigns/<uuid:campaign_id>/invitation/", views.invitation_new, name="invitation_new"),
    path(
        "campaigns/<uuid:campaign_id>/invitation/revoke/",
        views.invitation_revoke,
        name="invitation_revoke",
    ),
    path("campaigns/<uuid:campaign_id>/act/<slug:action>/", views.act, name="act"),
    path("campaigns/<uuid:campaign_id>/messages/", views.message, name="message"),
    path("campaigns/<uuid:campaign_id>/messages/seen/", views.messages_seen, name="messages_seen"),
    path("campaigns/<uuid:campaign_id>/nudge/", views.nudge, name="nudge"),
    path("campaigns/<uuid:campaign_id>/supply/<str:path>/", views.supply, name="supply"),
    path("campaigns/<uuid:campaign_id>/start-sheet/", views.start_sheet, name="start_sheet"),
    path("campaigns/<uuid:campaign_id>/digest/", views.digest, name="digest"),
    path("join/<str:token>/", views.join, name="join"),
]
if settings.BENCH_ECHO:  # the benchmark's empty request (bench/run.py)
    urlpatterns.append(path("bench/ceiling/", bench.ceiling))
