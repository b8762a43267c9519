"""The PostgreSQL full-text backend on the whole shared data (the PostgreSQL pass of `make
test`): its index built inside the test database from the session's archive and cards, then
the relevance sets and the service's behaviours asked of it through the same search service
the site uses. Floors are its own, measured (ts_rank is not Whoosh's BM25F)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection
from django.test import override_settings

from bench.relevance import evaluate
from kb.sitesearch.service import search
from search.backends.postgres.backend import PostgresBackend
from search.indexing import all_documents, check

pytestmark = [pytest.mark.django_db, pytest.mark.slow]
#: Measured when written: MRR 0.910, recall 1.000 (Whoosh's floors: 0.9 and 1.0, measured 0.95).
MRR_FLOOR, RECALL_FLOOR = 0.88, 0.95
#: Seconds, through the whole service: measured p95 0.15-0.22 s (p50 about 0.03 s) on a fresh
#: test database with the cores shared; 1.0-1.3 s before the match table (search/0003). A
#: ceiling that catches a search gone wrong (a plan reading the whole table), not a benchmark.
P95_CEILING = 3.0
POSTGRES = "search.backends.postgres.backend.PostgresBackend"
SETS = Path(__file__).parents[1] / "kb" / "sitesearch"


@pytest.fixture(scope="session")
def postgres_index(cards, django_db_blocker) -> PostgresBackend:
    """The index of everything, built once per session into the test database (committed,
    like the archive it is built from)."""
    backend = PostgresBackend(Path(settings.KB_INDEX_DIR) / "postgres-index")
    started = time.perf_counter()
    with django_db_blocker.unblock():
        count = backend.rebuild(all_documents())
    print(f"\npostgres search index: {count} documents in {time.perf_counter() - started:.0f} s")
    return backend


@pytest.fixture(autouse=True)
def use_postgres(postgres_index):
    with override_settings(
        KB_SEARCH_BACKEND=POSTGRES, KB_INDEX_DIR=postgres_index.root, KB_SEARCH_AUTO_DRAIN=False
    ):
        yield postgres_index


def test_the_index_holds_every_document(postgres_index) -> None:
    assert connection.vendor == "postgresql"
    result = check(backend=postgres_index)
    assert result.documents > 80_000
    assert not any(result.missing.values()) and not any(result.stale.values())
    stats = postgres_index.stats()
    assert stats.documents == result.documents and stats.by_kind["rule"] > 15_000


def test_the_relevance_set_meets_its_postgres_floors() -> None:
    scores = evaluate(SETS / "relevance.jsonl")
    print("\n" + "\n".join(scores.lines("relevance (postgres)")))
    print(f"recall@10 {scores.recall_at_10:.3f}")
    print("relevance ranks:", scores.misses())
    assert scores.queries >= 60
    assert scores.mrr >= MRR_FLOOR, scores.misses()
    assert scores.recall_at_10 >= RECALL_FLOOR, scores.misses()


#: Measured when written: dev 0.757, test 0.710 (Whoosh's floors 0.78 and 0.71). The dev set
#: (224 queries, two minutes on a busy machine) is left out of `make test`'s PostgreSQL pass
#: to keep it within its time (Makefile POSTGRES_TESTS); run this file to include it.
@pytest.mark.parametrize(("name", "mrr"), [("relevance_dev", 0.73), ("relevance_test", 0.68)])
def test_the_sampled_sets_hold_their_postgres_floors(name: str, mrr: float, monkeypatch) -> None:
    """Each query timed through the whole service (parsing, the backend's searches, the
    correction and relaxation steps): a search on one PostgreSQL server, no warm-up."""
    times: list[float] = []

    def timed(*args, **kwargs):
        started = time.perf_counter()
        try:
            return search(*args, **kwargs)
        finally:
            times.append(time.perf_counter() - started)

    monkeypatch.setattr("bench.relevance.search", timed)
    scores = evaluate(SETS / f"{name}.jsonl")
    times.sort()
    p50, p95 = times[len(times) // 2], times[int(len(times) * 0.95)]
    print("\n" + "\n".join(scores.lines(f"{name} (postgres)")))
    print(f"{name}: search p50 {p50 * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms, max {times[-1]:.2f} s")
    assert scores.queries >= 100
    assert scores.mrr >= mrr, scores.misses()
    assert scores.zero_share <= 0.01, scores.misses()
    assert p95 < P95_CEILING


def test_rule_numbers_keywords_and_cards() -> None:
    found = search("602.2a")
    assert found.jump == "/en/rules/602.2a/" and found.results.hits[0].number == "602.2a"
    hits = search("trample").results.hits
    assert (hits[0].kind, hits[0].number) == ("rule", "702.19")
    assert search("lightning bolt").results.hits[0].kind == "card"
    assert search("701.16", release="2024-01-01").results.hits[0].title("en") == "Reveal"
    assert search("701.16").results.hits[0].title("en") == "Investigate"
