"""Import Comprehensive Rules releases from files, folders or URLs.

Why a command: operators pull the official TXT when Wizards publishes a release, and `make run`
loads the whole shared archive the same way. Each release is imported atomically; a file that is
not a CR document is refused with its file and line and changes nothing; the same file again is a
no-op; a different text for a loaded date needs --replace.
"""

from __future__ import annotations

import datetime as dt
import getpass
from typing import TYPE_CHECKING

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from config import languages
from kb.archive.eras import follow_imports
from kb.archive.importer import Importer, ImportRefused, ImportResult, batched
from kb.archive.memory import rare_collections
from kb.archive.parsing import parse_ahead
from kb.archive.sources import SourceError, count_sources, read_sources
from kb.crtext import CRFormatError
from search.indexing import deferred

if TYPE_CHECKING:
    from kb.archive.french_import import FrenchImportBatch


class Command(BaseCommand):
    help = "Import CR releases: PATH... (files or folders with versions.csv) or an http(s) URL."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "sources",
            nargs="+",
            metavar="PATH_OR_URL",
            help="A CR .txt file, a folder of them (its versions.csv supplies set names), "
            "or an http(s):// URL of an official TXT.",
        )
        parser.add_argument(
            "--lang",
            choices=list(languages.CODES),
            default="en",
            help="Language of the documents (default en); fr: official French TXT or PDF "
            "documents, attached to the English release they translate.",
        )
        parser.add_argument(
            "--translates",
            default=None,
            metavar="YYYY-MM-DD",
            help="With --lang fr: the English release the French document translates "
            "(default: the one of its date line).",
        )
        parser.add_argument(
            "--set-name",
            default="",
            help="Set name for the release (only with a single document; versions.csv otherwise).",
        )
        parser.add_argument(
            "--replace",
            action="store_true",
            help="Replace a loaded release whose text differs (otherwise it is refused). "
            "Maintainers' work on it (French texts, corrections, added examples, what other "
            "apps link to its rules) is carried over; what cannot be is listed and refused.",
        )
        parser.add_argument(
            "--rematch",
            action="store_true",
            help="Replace every given release that is loaded, even where its text is unchanged, "
            "so that today's matcher decides again which rule became which (an archive loaded "
            "before the matcher changed: docs/upgrading.md). Maintainers' work is carried as "
            "with --replace.",
        )
        parser.add_argument(
            "--force",
            action="store_true",
            help="With --replace: replace even if some maintainers' work cannot be carried "
            "over (the import record keeps what was lost).",
        )

    def _say(self, bar: tqdm, line: str, error: bool = False) -> None:
        """Write a line without breaking the progress bar."""
        stream = self.stderr if error else self.stdout
        if bar.disable:
            stream.write(line)
        else:
            bar.write(line, file=stream._out)

    def handle(self, *args, **opts) -> None:
        # The search index follows once, after the last release; what other apps derive from
        # the rules (the rulings' links) too, announced once for the whole batch.
        with rare_collections(), deferred(), batched():
            self._handle(opts)

    def _handle(self, opts: dict) -> None:
        language = languages.language(opts["lang"])
        if language is None or not language.rule_texts:
            raise CommandError(f"no Comprehensive Rules are published in {opts['lang']!r}")
        if language.code == "fr":  # French documents: kb.archive.french_import does it all
            return self._import_french(opts)
        if opts.get("translates"):
            raise CommandError("--translates applies to French documents (--lang fr) only")
        verbosity = opts["verbosity"]
        try:
            total = count_sources(opts["sources"])
        except OSError as exc:
            raise CommandError(str(exc)) from None
        if opts["force"] and not (opts["replace"] or opts["rematch"]):
            raise CommandError("--force only applies with --replace or --rematch")
        if opts["set_name"] and total != 1:
            raise CommandError("--set-name applies to a single document; use versions.csv")
        importer = Importer(user=_user())
        errors: list[str] = []
        done = {"created": 0, "replaced": 0, "unchanged": 0}
        changed: set[dt.date] = set()
        # The raw stream: Django's wrapper ends every write with a newline, which turned each
        # redraw of the bar into a line of its own (a hundred on a first `make run`).
        bar = tqdm(
            total=total, unit="release", disable=verbosity < 1 or total < 2, file=self.stderr._out
        )
        try:
            for parsed in parse_ahead(read_sources(opts["sources"])):
                source, doc = parsed.source, parsed.doc
                if doc is None:  # the message names the file and line already
                    errors.append(parsed.error)
                    self._say(bar, f"refused: {parsed.error}", error=True)
                    bar.update(1)
                    continue
                try:
                    set_name, set_code = source.set_names.get(
                        doc.effective_date.isoformat(), ("", "")
                    )
                    result = importer.import_document(
                        doc,
                        checksum=parsed.checksum,
                        source=source.name,
                        set_name=opts["set_name"] or set_name,
                        set_code=set_code,
                        replace=opts["replace"],
                        force=opts["force"],
                        rematch=opts["rematch"],
                    )
                except (CRFormatError, ImportRefused) as exc:
                    errors.append(str(exc))
                    self._say(bar, f"refused: {exc}", error=True)
                    bar.update(1)
                    continue
                done[result.action] += 1
                if result.action != "unchanged":
                    changed.add(result.effective_date)
                if verbosity >= 2 or (verbosity >= 1 and total < 2):
                    self._say(bar, _describe(result))
                bar.update(1)
        except SourceError as exc:
            raise CommandError(str(exc)) from None
        finally:
            bar.close()
        if verbosity >= 1:
            self.stdout.write(
                f"{done['created']} imported, {done['replaced']} replaced, "
                f"{done['unchanged']} unchanged, {len(errors)} refused"
            )
        crossing = follow_imports(changed)
        if crossing is not None and verbosity >= 1:
            self.stdout.write(crossing.describe())
        if errors:
            raise CommandError(f"{len(errors)} document(s) refused:\n" + "\n".join(errors))

    def _import_french(self, opts: dict) -> None:
        """`--lang fr`: the import returns what each document did (printed here, refusals on
        stderr) and raises FrenchImportError, whose message becomes the CommandError's."""
        from kb.archive.french_import import FrenchImportError, import_french_sources

        translates = opts.get("translates")
        if isinstance(translates, str):
            try:
                translates = dt.date.fromisoformat(translates)
            except ValueError:
                raise CommandError(
                    f"--translates {translates!r}: not a date (YYYY-MM-DD)"
                ) from None
        try:
            batch = import_french_sources(opts["sources"], translates=translates, user=_user())
        except FrenchImportError as exc:
            if exc.batch is not None:
                self._report_french(exc.batch, opts["verbosity"])
            raise CommandError(str(exc)) from None
        self._report_french(batch, opts["verbosity"])

    def _report_french(self, batch: FrenchImportBatch, verbosity: int) -> None:
        """Each document in turn: what it did on stdout (at --verbosity 1 and up; every anomaly
        at 2), a refused one on stderr."""
        from kb.archive.french_import import describe

        for outcome in batch.outcomes:
            if outcome.result is None:
                if not outcome.unreadable:
                    self.stderr.write(f"refused: {outcome.error}")
            elif verbosity >= 1:
                for line in describe(outcome.result, verbose=verbosity >= 2):
                    self.stdout.write(line)


def _describe(result: ImportResult) -> str:
    date = result.effective_date.isoformat()
    if result.action == "unchanged":
        return f"{date}: unchanged (already loaded with the same text; nothing changed)"
    c = result.counts
    return (
        f"{date}: {result.action} ({c.get('rules', 0)} rules, {c.get('subrules', 0)} subrules, "
        f"{c.get('glossary', 0)} glossary terms, {result.anomalies} anomalies, "
        f"{result.seconds:.2f} s)"
    )


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return ""
