"""Relink stored rulings to the rules they lean on.

Why: the linker changes (a new curated concept, a tuned context rule) without any release or
card file changing, and nothing else would relink what is stored. Confirmed and rejected links
are kept; reruns give the same links.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from rulings.models import Card, Ruling


class Command(BaseCommand):
    help = "Recompute the cited and inferred links of stored rulings (all, or some cards')."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--card",
            action="append",
            default=[],
            metavar="SLUG",
            help="Only this card's rulings (its slug; repeat for several cards).",
        )

    def handle(self, *args, **opts) -> None:
        from rulings.linking import Linker, link_rulings

        ids = None
        if opts["card"]:
            cards = list(Card.objects.filter(slug__in=opts["card"]).values_list("slug", "id"))
            unknown = set(opts["card"]) - {slug for slug, _ in cards}
            if unknown:
                raise CommandError(f"no card with the slug {', '.join(sorted(unknown))}")
            ids = list(
                Ruling.objects.filter(card_id__in=[i for _, i in cards]).values_list(
                    "id", flat=True
                )
            )
        linker = Linker()
        if opts["verbosity"] >= 1:
            self.stdout.write(f"Linking {'every' if ids is None else len(ids)} ruling(s) …")
        done = link_rulings(ids, linker)
        if opts["verbosity"] >= 1:
            self.stdout.write(f"{done} ruling(s) linked.")
