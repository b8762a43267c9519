"""Propose links by meaning for every ruling the linker found nothing for, now.

Why a command when the index worker does it in the background: an operator who wants the
review queue filled at once, and benchmarks (how long the rulings take to embed).
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from rulings.linking import proposals


class Command(BaseCommand):
    help = "Propose the nearest rule by meaning for the rulings without links (all, now)."

    def handle(self, *args, **opts) -> None:
        report = proposals.propose()
        if report.reason:
            raise CommandError(
                f"nothing proposed: {report.reason} (manage.py embed_passages computes the "
                "rules' vectors; make install fetches the model's weights)"
            )
        self.stdout.write(
            f"embedded {report.embedded} rulings in {report.seconds:.0f} s; "
            f"{report.proposed} links proposed, {report.withdrawn} withdrawn"
        )
