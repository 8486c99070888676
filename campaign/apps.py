from django.apps import AppConfig


class CampaignConfig(AppConfig):
    name = "campaign"
    verbose_name = "Campaigns"
    default_auto_field = "django.db.models.BigAutoField"
