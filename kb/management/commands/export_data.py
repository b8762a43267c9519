"""Write the bulk export: one gzip JSON file per release, the cards and rulings, a manifest.

Why: people who build on the data (deck tools, judges' apps, researchers) want the whole
archive in one download rather than thousands of API calls. The files are deterministic (the
same database gives the same bytes), written into a temporary folder and swapped in, and served
on the downloads page (`/<lang>/downloads/`) with their sha256.
"""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandParser
from tqdm import tqdm

from kb import hooks
from kb.export.bulk import default_folder, export_data
from kb.models import Release


class Command(BaseCommand):
    help = (
        "Write releases/<date>.json.gz per release, the registered parts (cards.json.gz), "
        "manifest.json and SHA256SUMS into a folder (default: KB_EXPORT_DIR, var/exports)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--out",
            default=None,
            help="Folder to write (replaced as a whole when the export is complete; "
            "default: KB_EXPORT_DIR, var/exports, which the downloads page serves).",
        )

    def handle(self, *args, **opts) -> None:
        verbosity = opts["verbosity"]
        total = Release.objects.count() + len(hooks.export_parts())
        bar = tqdm(
            total=total, unit="file", disable=verbosity < 1 or total < 2, file=self.stderr._out
        )

        def progress(line: str) -> None:
            bar.update(1)
            if verbosity >= 2:
                if bar.disable:
                    self.stdout.write(line)
                else:
                    bar.write(line, file=self.stdout._out)

        out = Path(opts["out"]) if opts["out"] else default_folder()
        try:
            result = export_data(out, progress=progress)
        finally:
            bar.close()
        if verbosity:
            self.stdout.write(
                f"Exported {len(result.files)} files ({result.total_bytes / 1e6:.1f} MB) "
                f"to {result.folder} in {result.seconds:.1f} s."
            )
