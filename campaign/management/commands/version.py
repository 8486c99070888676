from django.core.management.base import BaseCommand

from campaign.views.health import version


class Command(BaseCommand):
    help = "Print the version of Refit this installation runs (from pyproject.toml)."

    def handle(self, *args, **options):
        self.stdout.write(version())
