"""Rebuild the whole search index beside the live one and swap it in.

Why: after a backend or analyzer change, or if the index was lost. Searches keep answering from
the old index during the build; changes committed meanwhile are applied after the swap. A
rebuild killed midway leaves its folder: the next one (or check_index) removes it; its indexing
children exit with it (search/backends/whoosh/workers.py).
"""

from __future__ import annotations

import time

from django.core.management.base import BaseCommand, CommandError, CommandParser
from filelock import Timeout

from search.indexing import rebuild


class Command(BaseCommand):
    help = "Rebuild the search index (all rules, glossary, cards, rulings) and swap it in."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--wait",
            type=float,
            default=600,
            help="Seconds to wait for another index writer to finish (default 600).",
        )

    def handle(self, *args, **opts) -> None:
        started = time.perf_counter()
        try:
            count = rebuild(wait=opts["wait"])
        except Timeout:
            raise CommandError(
                f"another process has been writing the index for {opts['wait']:.0f} s; "
                "try again later or raise --wait"
            ) from None
        if opts["verbosity"]:
            self.stdout.write(
                f"Indexed {count} documents in {time.perf_counter() - started:.1f} s."
            )
