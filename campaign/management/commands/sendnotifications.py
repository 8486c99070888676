"""Send the notices that are due: retries after a failed send, and hourly summaries
held back for players who asked for at most one e-mail per hour.  Refit also sends
them after every action that makes one due; run this from cron (or with ``--every``)
so retries and summaries go out when nobody acts."""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.db import close_old_connections

from campaign.services.notifications import deliver_due


class Command(BaseCommand):
    help = "E-mail the notices that are due (retries and hourly summaries)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--every",
            type=int,
            default=0,
            metavar="SECONDS",
            help="keep running, sending what is due every SECONDS (default: once)",
        )

    def handle(self, *args: Any, every: int = 0, **options: Any) -> None:
        while True:
            report = deliver_due()
            self.stdout.write(
                f"sent {report.sent} notice(s) in {report.emails} e-mail(s); "
                f"held for the hourly summary {report.held}; retrying {report.retrying}; "
                f"failed {report.failed}; skipped {report.skipped}; obsolete {report.obsolete}"
            )
            if every <= 0:
                return
            time.sleep(every)
            close_old_connections()  # a long-running loop: no connection kept past its age
