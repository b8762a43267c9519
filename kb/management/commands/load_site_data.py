"""Load what the site shows: the shared archive if present, else the demo set.

Why: `make run` must work on a fresh machine with or without ../shared/data. Re-running it is
cheap: releases already loaded with the same text are skipped. Other apps load their part
(cards and rulings) through `kb.hooks.register_site_data_loader`, after the rules.
"""

from __future__ import annotations

import time
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandParser

from kb import hooks
from kb.archive.importer import Importer, batched
from kb.models import Release
from search.backend import get_backend
from search.indexing import deferred, drain, rebuild

DEMO_DIR = Path(settings.BASE_DIR) / "fixtures" / "demo"


class Command(BaseCommand):
    help = (
        "Import the shared CR archive (KB_DATA_DIR/cr/en-legacy and cr/en), or the demo set "
        "when it is absent."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--data-dir",
            default=str(settings.KB_DATA_DIR),
            help="Folder holding cr/en (default: KB_DATA_DIR, ../shared/data).",
        )
        parser.add_argument(
            "--index-in-background",
            action="store_true",
            help="Where there is no search index yet, leave its build to `index_worker "
            "--build-missing` (make run): the site answers while it builds.",
        )

    def handle(self, *args, **opts) -> None:
        with deferred(drain_after=False):
            self._load(opts)
        self._index(opts["verbosity"], opts["index_in_background"])

    def _index(self, verbosity: int, in_background: bool = False) -> None:
        """Build the search index if there is none, else apply what the load changed (unless
        the index is not to follow writes here: KB_SEARCH_AUTO_DRAIN=0, as in tests).

        A first build takes over a minute; with `in_background` the pages answer meanwhile
        (make run), the search page saying the index is being built."""
        if not settings.KB_SEARCH_AUTO_DRAIN:
            self.stdout.write("Search index left as it is (KB_SEARCH_AUTO_DRAIN=0).")
            return
        started = time.perf_counter()
        exists = get_backend().exists()
        if not exists and in_background:
            self.stdout.write(
                "The search index is built in the background (index_worker --build-missing); "
                "the pages answer meanwhile."
            )
            return
        if not exists:
            self.stdout.write("Building the search index …")
            count = rebuild()
            seconds = time.perf_counter() - started
            self.stdout.write(f"Indexed {count} documents in {seconds:.0f} s.")
            return
        report = drain(wait=600)
        if report is not None and verbosity:
            self.stdout.write(
                f"Search index updated: +{report.added} -{report.deleted} documents "
                f"in {time.perf_counter() - started:.1f} s."
            )

    def _load(self, opts: dict) -> None:
        rules = Path(opts["data_dir"]) / "cr" / "en"
        if rules.is_dir():
            demo = list(
                Release.objects.filter(source__startswith=str(DEMO_DIR)).values_list(
                    "effective_date", flat=True
                )
            )
            # What other apps derive from the rules (the rulings' links) follows once, for
            # the removals and imports together, before their own loaders run.
            with batched():
                if demo:
                    self.stdout.write(f"Removing the {len(demo)} demo releases loaded earlier …")
                    importer = Importer()
                    for date in demo:
                        # The real archive replaces the demo: work on a demo release goes,
                        # kept in its import record (the admin's Import records list it).
                        importer.remove(date, force=True)
                # The legacy releases (1999 to May 2009) first: one run in date order.
                legacy = rules.parent / "en-legacy"
                folders = [legacy, rules] if legacy.is_dir() else [rules]
                self.stdout.write(
                    "Importing the Comprehensive Rules archive from "
                    f"{' and '.join(str(f) for f in folders)} …"
                )
                self._import(folders, opts["verbosity"])
                self._load_seed_french()
            self._load_others(Path(opts["data_dir"]), opts["verbosity"])
            return
        self.stdout.write(
            self.style.WARNING(
                f"{rules} not found: loading the demo set from {DEMO_DIR} instead "
                "(a few releases of rule 602 built from the seed documents)."
            )
        )
        self._import([DEMO_DIR / "cr" / "en"], opts["verbosity"])
        self._load_seed_french()
        self._load_others(None, opts["verbosity"])

    def _load_seed_french(self) -> None:
        """The official French rule 602 of 2010 from the seed documents, on top of whatever
        archive was loaded (kb.french.seeds)."""
        from kb.archive.french_import import FrenchImportRefused, describe, import_french_file
        from kb.crtext import CRFormatError
        from kb.french.seeds import SEED_602, TRANSLATES, french_602_document

        if not Release.objects.filter(effective_date=TRANSLATES).exists():
            self.stdout.write(
                f"The seed's French 602 translates the release of {TRANSLATES.isoformat()}, "
                "which is not loaded: not imported."
            )
            return
        seed = Path(settings.KB_SEEDS_DIR) / SEED_602
        if not seed.is_file():
            self.stdout.write(f"No seed documents at {settings.KB_SEEDS_DIR}: no French text.")
            return
        try:
            result = import_french_file(
                name=f"seed {SEED_602} (rule 602 in French)",
                data=french_602_document(seed).encode("utf-8"),
                translates=TRANSLATES,
            )
        except (CRFormatError, FrenchImportRefused) as exc:
            self.stdout.write(self.style.WARNING(f"The seed's French 602 was refused: {exc}"))
            return
        for line in describe(result)[:1]:
            self.stdout.write(f"Seed French 602: {line}")

    def _load_others(self, data_dir: Path | None, verbosity: int) -> None:
        for loader in hooks.site_data_loaders():
            loader(data_dir, self.stdout.write, verbosity)

    def _import(self, folders: list[Path], verbosity: int) -> None:
        call_command(
            "import_rules",
            *(str(f) for f in folders),
            verbosity=verbosity,
            stdout=self.stdout._out,
            stderr=self.stderr._out,
        )
