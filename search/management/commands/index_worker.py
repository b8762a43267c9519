"""Drain the search outbox in the background: `make run` starts one beside the web server.

Why: a commit drains the outbox itself when no other writer holds the lock; when one does,
the entries wait for the next writer. The worker is that next writer, every --interval seconds.
With --build-missing it first builds the index where there is none (a first `make run`: the
site answers while the index builds, instead of after).

Between drains it also embeds, a few seconds at a time, the passages the semantic retriever
has no vector for yet (search.semantic): the whole current release after a first import
(minutes), the texts an import or an edit changed afterwards (a few). Until every passage has
its vector, questions are answered lexically, and the search page says so.
"""

from __future__ import annotations

import logging
import time

from django.core.management.base import BaseCommand, CommandParser
from django.db import close_old_connections

from search.backend import get_backend
from search.indexing import drain, rebuild
from search.semantic import retriever

logger = logging.getLogger(__name__)

#: Seconds of embedding between two drains (past them, the batch under way is finished: an
#: edit waits this long and one batch more for the index).
EMBED_SECONDS = 5.0


class Command(BaseCommand):
    help = "Apply pending search index changes (the outbox) every few seconds, until stopped."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--interval", type=float, default=2.0, help="Seconds between passes (default 2)."
        )
        parser.add_argument(
            "--once", action="store_true", help="Drain once and exit (for scripts and tests)."
        )
        parser.add_argument(
            "--build-missing",
            action="store_true",
            help="Build the whole index first if there is none yet.",
        )

    def handle(self, *args, **opts) -> None:
        if opts["build_missing"] and not get_backend().exists():
            self.stdout.write("Building the search index in the background …")
            started = time.perf_counter()
            count = rebuild()
            self.stdout.write(
                f"Search index built: {count} documents in {time.perf_counter() - started:.0f} s."
            )
        while True:
            report = drain(wait=opts["interval"])
            if report and report.entries and opts["verbosity"]:
                self.stdout.write(
                    f"applied {report.entries} outbox entries: "
                    f"+{report.added} -{report.deleted} documents"
                )
            try:
                embedded = retriever.sync(seconds=EMBED_SECONDS)
            except Exception:  # a locked database, memory: the outbox must still drain
                logger.exception("semantic search: embedding failed; trying again later")
                embedded = retriever.SyncReport()
            if embedded.embedded and opts["verbosity"]:
                self.stdout.write(
                    f"semantic search: embedded {embedded.embedded} passages, "
                    f"{embedded.remaining} to go"
                )
            if not embedded.remaining and not embedded.reason:
                embedded.remaining = self._follow_ups(opts["verbosity"])
            if opts["once"]:
                return
            if embedded.remaining:
                continue  # more to embed: no pause
            try:
                time.sleep(opts["interval"])
            except KeyboardInterrupt:
                return
            close_old_connections()  # a long-lived process: reconnect if the server went away

    def _follow_ups(self, verbosity: int) -> int:
        """Other apps' work with the encoder (retriever.follow_ups), a few seconds each; what
        remains of it (the worker does not pause while some does)."""
        remaining = 0
        for work in retriever.follow_ups:
            try:
                done = work(seconds=EMBED_SECONDS)
            except Exception:
                logger.exception("semantic follow-up %s failed; trying again later", work)
                continue
            remaining += done.remaining
            if done.embedded and verbosity:
                self.stdout.write(
                    f"{work.__module__}: {done.embedded} done, {done.remaining} to go"
                )
        return remaining
