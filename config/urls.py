from django.contrib import admin
from django.urls import include, path

# A database that is briefly away answers 503 with a sentence, not a bare 500.
handler500 = "campaign.outage.server_error"

urlpatterns = [
    path("admin/", admin.site.urls),
    path("", include("campaign.urls")),
]

handler404 = "campaign.views.http.not_found"
handler403 = "campaign.views.http.forbidden"
handler400 = "campaign.views.http.bad_request"
