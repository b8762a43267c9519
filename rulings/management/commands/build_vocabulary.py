"""Build the EN/FR rules vocabulary from bilingual cards and the curated list.

Why a command: the vocabulary depends on both the rules archive (which keywords exist) and the
cards (what French calls them), so it is rebuilt after either is imported.
"""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from rulings.vocabulary.mining import CURATED_FILE, VocabularyFileError, build_vocabulary


class Command(BaseCommand):
    help = "Mine French keyword names from bilingual cards and load the curated EN/FR terms."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--curated", default=str(CURATED_FILE), help="The curated EN/FR terms (CSV)."
        )

    def handle(self, *args, **opts) -> None:
        try:
            report = build_vocabulary(Path(opts["curated"]))
        except (OSError, VocabularyFileError) as exc:
            raise CommandError(str(exc)) from exc
        for line in report.lines():
            self.stdout.write(line)
