from django.core.management.base import BaseCommand, CommandError

from campaign.services.backup import import_campaign
from campaign.services.errors import ActionRefused


class Command(BaseCommand):
    help = "Import a campaign file written by exportcampaign (or the host's download)."

    def add_arguments(self, parser):
        parser.add_argument("path")

    def handle(self, *args, **options):
        try:
            with open(options["path"], "rb") as fh:
                campaign = import_campaign(data=fh.read())
        except OSError as exc:
            raise CommandError(f"{options['path']}: {exc.strerror}") from exc
        except ActionRefused as exc:
            raise CommandError(exc.message) from exc
        self.stdout.write(f"imported {campaign.name} ({campaign.pk})")
