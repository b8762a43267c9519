"""Load a bulk export (made by `export_data`) into an empty database.

Why: anyone can rebuild the site's data from the published files, and the round trip export →
import → export is how the export is shown to be complete (the files come out identical).
Refuses a database that holds data, files whose checksum does not match the manifest, and
unreadable files; all or nothing. The search index is left alone: run `rebuild_index` after.
"""

from __future__ import annotations

import time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from kb.export.bulk import import_data
from kb.export.files import ExportError


class Command(BaseCommand):
    help = "Load an export folder (manifest.json, releases/, cards.json.gz) into an empty database."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("folder", help="A folder written by export_data.")

    def handle(self, *args, **opts) -> None:
        folder = Path(opts["folder"])
        if not folder.is_dir():
            raise CommandError(f"{folder}: no such folder")
        verbosity = opts["verbosity"]

        def progress(line: str) -> None:
            if verbosity >= 2:
                self.stdout.write(line)

        started = time.perf_counter()
        try:
            counts = import_data(folder, progress=progress)
        except ExportError as exc:
            raise CommandError(f"{folder}: {exc}") from exc
        if verbosity:
            summary = "; ".join(
                f"{name}: " + ", ".join(f"{v} {k}" for k, v in c.items())
                for name, c in counts.items()
            )
            self.stdout.write(
                f"Imported {summary} in {time.perf_counter() - started:.1f} s. "
                "Run `manage.py rebuild_index` to build the search index."
            )
