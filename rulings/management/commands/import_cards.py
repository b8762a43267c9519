"""Import cards and their rulings, then link the rulings to the rules they lean on.

Why: card data arrives as MTGJSON-style files (shared data) or Scryfall bulk downloads; rulings
carry no id, so the import matches them by card, date and text and never deletes one. A
maintainer's edits are kept; where the source changed an edited field too, the command lists it.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from rulings.importing.cards import CardImportRefused, import_cards
from rulings.importing.sources import SourceError


class Command(BaseCommand):
    help = "Import cards (and rulings) from MTGJSON-style JSON lines or Scryfall bulk JSON."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "cards",
            help="Cards: a .jsonl(.gz) of MTGJSON-style cards or Scryfall's "
            "oracle-cards JSON; a path or an http(s):// URL.",
        )
        parser.add_argument(
            "rulings",
            nargs="?",
            help="Rulings: a .jsonl(.gz) or Scryfall's rulings JSON "
            "(optional: MTGJSON-style cards may carry their rulings).",
        )
        parser.add_argument(
            "--skip-invalid",
            action="store_true",
            help="Import the valid records and list the malformed ones (default: refuse all).",
        )
        parser.add_argument(
            "--no-link", action="store_true", help="Do not link the rulings to rules."
        )

    def handle(self, *args, **opts) -> None:
        from rulings.linking import link_rulings

        verbosity = opts["verbosity"]
        bar = tqdm(unit=" records", disable=verbosity < 1, file=self.stderr)

        def link(result):
            if not opts["no_link"]:
                ids = result.to_link()
                result.linked = link_rulings(ids) if ids is None or ids else 0

        try:
            result = import_cards(
                opts["cards"],
                opts["rulings"],
                skip_invalid=opts["skip_invalid"],
                progress=bar.update,
                after=link,
            )
        except (CardImportRefused, SourceError) as exc:
            raise CommandError(str(exc)) from None
        finally:
            bar.close()
        if result.skipped:
            self.stderr.write(f"skipped {len(result.skipped)} malformed record(s):")
            for line in result.skipped[:200]:
                self.stderr.write(f"  {line}")
        if verbosity >= 1:
            self.stdout.write(
                f"cards: {result.cards_created} created, {result.cards_updated} updated, "
                f"{result.cards_unchanged} unchanged; rulings: {result.rulings_created} created, "
                f"{result.rulings_reworded} reworded, {result.rulings_restored} restored, "
                f"{result.rulings_missing} marked missing, {result.rulings_unchanged} unchanged"
                + (
                    f", {result.rulings_ignored} for cards not in this file"
                    if result.rulings_ignored
                    else ""
                )
                + (
                    f"; {getattr(result, 'linked', 0)} rulings linked"
                    if not opts["no_link"]
                    else ""
                )
            )
            if result.edits_kept:
                self.stdout.write(
                    f"{result.edits_kept} maintainer edit(s) kept (rulings and card fields)"
                )
            if result.conflicts:
                self.stdout.write(
                    f"{len(result.conflicts)} maintainer edit(s) kept where the source changed:"
                )
                for line in result.conflicts:
                    self.stdout.write(f"  {line}")
            if not result.changed():
                self.stdout.write("nothing changed")
