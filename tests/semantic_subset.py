"""The semantic retriever on, over a few of the current release's real rule passages: the
whole release takes minutes to embed. Shared by the search and the proposals tests."""

from __future__ import annotations

from collections.abc import Iterator

from search.semantic import retriever
from search.semantic.weights import weights_path
from tests.conftest import require_file

#: Trample, flash, mulligans, deathtouch, combat damage: enough rules for an answer to be
#: chosen among others.
SUBSET = ("702.19", "702.8", "103.5", "702.2", "510.1")


def forget() -> None:
    """What the retriever keeps per process: the encoder, the corpus, the sync memo."""
    retriever.encoder.cache_clear()
    retriever._corpus.clear()
    retriever._synced.clear()


def retriever_on_subset(
    settings, monkeypatch, *, kinds: tuple[str, ...] = (), examples: bool = False
) -> Iterator:
    """Yield the retriever with its corpus the current passages under SUBSET (of `kinds`),
    without the example questions unless asked: a query map fitted on a few dozen passages
    learns to tell those apart, not how players ask (test_meaning tests it on its own)."""
    require_file(weights_path(), "the encoder's weights (make install fetches them)")
    settings.KB_SEMANTIC = True
    everything = retriever.passages
    monkeypatch.setattr(
        retriever,
        "passages",
        lambda: [
            p for p in everything() if p.key.startswith(SUBSET) and (not kinds or p.kind in kinds)
        ],
    )
    if not examples:
        monkeypatch.setattr(retriever, "examples", list)
    forget()
    yield retriever
    forget()
