from django.apps import AppConfig


class CampaignConfig(AppConfig):
    name = "campaign"
    verbose_name = "Campaigns"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from campaign import checks  # noqa: F401  (deployment checks)
        from campaign.services import accounts  # noqa: F401  (signal receivers)
