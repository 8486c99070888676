import sys
import uuid

from django.core.management.base import BaseCommand, CommandError

from campaign.models import Campaign
from campaign.services.backup import export_campaign


class Command(BaseCommand):
    help = "Write a whole campaign (both sides, all secrets, rolls, events) to one file."

    def add_arguments(self, parser):
        parser.add_argument("campaign_id")
        parser.add_argument("-o", "--output", help="file to write (default: standard output)")

    def handle(self, *args, **options):
        try:
            campaign_id = uuid.UUID(options["campaign_id"])
            data = export_campaign(campaign_id=campaign_id)
        except (ValueError, Campaign.DoesNotExist):
            raise CommandError(f"No campaign {options['campaign_id']}.") from None
        if options["output"]:
            with open(options["output"], "wb") as fh:
                fh.write(data)
            self.stdout.write(f"wrote {options['output']}")
        else:
            sys.stdout.buffer.write(data)
