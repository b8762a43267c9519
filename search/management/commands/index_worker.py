"""Drain the search outbox in the background: `make run` starts one beside the web server.

Why: a commit drains the outbox itself when no other writer holds the lock; when one does,
the entries wait for the next writer. The worker is that next writer, every --interval seconds.
"""

from __future__ import annotations

import time

from django.core.management.base import BaseCommand, CommandParser
from django.db import close_old_connections

from search.indexing import drain


class Command(BaseCommand):
    help = "Apply pending search index changes (the outbox) every few seconds, until stopped."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--interval", type=float, default=2.0, help="Seconds between passes (default 2)."
        )
        parser.add_argument(
            "--once", action="store_true", help="Drain once and exit (for scripts and tests)."
        )

    def handle(self, *args, **opts) -> None:
        while True:
            report = drain(wait=opts["interval"])
            if report and report.entries and opts["verbosity"]:
                self.stdout.write(
                    f"applied {report.entries} outbox entries: "
                    f"+{report.added} -{report.deleted} documents"
                )
            if opts["once"]:
                return
            try:
                time.sleep(opts["interval"])
            except KeyboardInterrupt:
                return
            close_old_connections()  # a long-lived process: reconnect if the server went away
