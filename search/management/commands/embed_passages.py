"""Embed every passage the semantic retriever has no vector for, now, with a progress bar.

Why a command when the index worker does it in the background: benchmarks, tests and an
operator who wants the semantic search ready before opening the site (`make bench` prints
how long the whole current release takes).
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from search.semantic import retriever


class Command(BaseCommand):
    help = "Compute the semantic retriever's missing passage vectors (all of them, now)."

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--batch", type=int, default=64, help="Passages stored per transaction (default 64)."
        )

    def handle(self, *args, **opts) -> None:
        if retriever.encoder() is None:
            raise CommandError(
                "no encoder: the model's weights are missing (make install fetches them) "
                "or KB_SEMANTIC is 0"
            )
        bar = tqdm(unit="passage", disable=opts["verbosity"] < 1)

        def progress(done: int, total: int) -> None:
            bar.total = total
            bar.n = done
            bar.refresh()

        report = retriever.sync(batch=opts["batch"], progress=progress)
        bar.close()
        state = retriever.status()
        self.stdout.write(
            f"embedded {report.embedded} passages in {report.seconds:.0f} s; "
            f"{state.embedded} of {state.total} have a vector"
        )
