"""Show what the archive holds, counted from the rows valid in each release.

Why: the counts are checked against an independent parse (expected_counts.csv), so they are
computed from the database, not remembered from the import.
"""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandParser

from kb.stats import archive_stats

COLUMNS = [
    "sections",
    "chapters",
    "rules",
    "subrules",
    "examples",
    "glossary",
    "references",
    "anomalies",
]


class Command(BaseCommand):
    help = "Per-release counts (sections … anomalies) and totals (versions, lineages, moves)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--json", action="store_true", help="Print JSON instead of a table.")

    def handle(self, *args, **opts) -> None:
        stats = archive_stats()
        if opts["json"]:
            self.stdout.write(json.dumps(stats, indent=2, ensure_ascii=False))
            return
        self.stdout.write("date        " + " ".join(f"{c[:9]:>9}" for c in COLUMNS))
        for date, row in stats["releases"].items():
            self.stdout.write(f"{date}  " + " ".join(f"{row[c]:>9}" for c in COLUMNS))
        self.stdout.write(", ".join(f"{k}: {v}" for k, v in stats["totals"].items()))
