from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("", include("campaign.urls")),
]

handler404 = "campaign.views.http.not_found"
handler403 = "campaign.views.http.forbidden"
