"""Report search documents missing from the index or stale in it, and the outbox's backlog;
remove what a killed rebuild left (when no writer is at work).

Why: to know the index follows the database (after a crash, a restore, or in the concurrency
bench). Exits with status 1 when the index is not up to date.
"""

from __future__ import annotations

import json
import sys

from django.core.management.base import BaseCommand, CommandParser

from search.backend import get_backend
from search.indexing import check


class Command(BaseCommand):
    help = "Check the search index against the database (exit 1 when out of date)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--json", action="store_true", help="Print the report as JSON.")

    def handle(self, *args, **opts) -> None:
        result = check()
        if opts["json"]:
            stats = get_backend().stats()
            self.stdout.write(
                json.dumps(
                    {
                        "clean": result.clean,
                        "documents": result.documents,
                        "indexed": stats.documents,
                        "missing": {k: len(v) for k, v in result.missing.items()},
                        "stale": {k: len(v) for k, v in result.stale.items()},
                        "outbox": result.outbox,
                        "cleaned": result.cleaned,
                    }
                )
            )
        else:
            for line in result.lines():
                self.stdout.write(line)
        if not result.clean:
            sys.exit(1)
