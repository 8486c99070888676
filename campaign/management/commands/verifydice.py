import uuid

from django.core.management.base import BaseCommand, CommandError

from campaign.models import Campaign
from campaign.services.dice import verify


class Command(BaseCommand):
    help = "Recompute every roll of a campaign from its seed and report any mismatch."

    def add_arguments(self, parser):
        parser.add_argument("campaign_id")
        parser.add_argument("--seed", help="check against this disclosed seed instead")

    def handle(self, *args, **options):
        try:
            campaign = Campaign.objects.get(pk=uuid.UUID(options["campaign_id"]))
        except (ValueError, Campaign.DoesNotExist):
            raise CommandError(f"No campaign {options['campaign_id']}.") from None
        problems = verify(campaign, options["seed"])
        for p in problems:
            self.stderr.write(p)
        if problems:
            raise CommandError(f"{len(problems)} mismatch(es).")
        self.stdout.write(f"{campaign.rolls.count()} rolls verified.")
