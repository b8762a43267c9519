"""The PostgreSQL backend's own guarantees beyond the contract (PostgreSQL pass only): a rebuild
killed before its swap leaves the live index answering and is removed by the next writer; the
match table a search asks first follows the index and answers as the language rows do."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from django.db import connection

from search.backend import SearchRequest
from search.backends.postgres.backend import PostgresBackend
from search.documents import SearchDocument
from search.models import IndexedDocument, IndexGeneration
from search.syntax import Group, Phrase, Word
from tests.search.test_contract import DOCS

pytestmark = pytest.mark.django_db
D2024 = dt.date(2024, 1, 1)


def test_a_killed_rebuild_leaves_the_live_index_and_is_cleaned_up(tmp_path: Path) -> None:
    backend = PostgresBackend(tmp_path / "killed")
    backend.index(DOCS)
    live = IndexGeneration.objects.get(name="killed", live=True)
    # What a rebuild killed with -9 leaves: a filled generation never made live.
    half = backend._new_generation(live=False)
    backend._insert(half, DOCS[:3])
    trample = SearchRequest(groups=(Group((Word("trample"),)),))
    assert backend.search(trample).total == 5 and backend.stats().documents == len(DOCS)
    assert backend.clean_up() == [f"killed generation {half}"]
    assert list(IndexGeneration.objects.filter(name="killed")) == [live]
    assert not IndexedDocument.objects.filter(generation_id=half).exists()
    # A rebuild then swaps in a new generation and drops the old one.
    assert backend.rebuild(DOCS[:4]) == 4
    (now,) = IndexGeneration.objects.filter(name="killed")
    assert now.live and now.pk != live.pk and backend.stats().documents == 4
    assert not IndexedDocument.objects.filter(generation_id=live.pk).exists()


def _doc(kind: str, key: str, en: str, fr: str = "", **fields: object) -> SearchDocument:
    bodies = {"en": en, **({"fr": fr} if fr else {})}
    return SearchDocument(
        kind=kind, key=key, group=f"G{key}", ref=f"{kind}-{key}", bodies=bodies, **fields
    )


#: Documents for the match table's shortcuts: groups matched across a document's languages,
#: "at least k of n" groups, collapse groups mixing kinds, phrases (read from the rows).
MATCHING = [
    _doc("rule", "1", "alpha bravo", "charlie delta"),
    _doc("rule", "2", "alpha bravo charlie", valid_to=dt.date(2020, 1, 1)),
    _doc("ruling", "3", "alpha echo", collapse="shared"),
    _doc("card", "4", "alpha echo foxtrot", collapse="shared"),
    _doc("card", "5", "alpha echo", "bravo"),
    _doc("ruling", "6", "bravo delta foxtrot golf"),
]


def _ask(backend: PostgresBackend, *words: str, **options: object):
    groups = tuple(
        Group((Phrase(w) if " " in w else Word(w.rstrip("*"), prefix=w.endswith("*")),))
        for w in words
    )
    return backend.search(SearchRequest(groups=groups, **options))


def _keys(results) -> list[str]:
    return sorted(hit.key for hit in results.hits)


def test_the_match_table_holds_a_row_per_document_and_follows_updates(tmp_path: Path) -> None:
    backend = PostgresBackend(tmp_path / "matches")
    backend.index(MATCHING)
    live = IndexGeneration.objects.get(name="matches", live=True)
    with connection.cursor() as cur:
        cur.execute(
            "SELECT m.vector::text FROM search_indexedmatch m JOIN search_indexeddocument d "
            "ON d.id = m.document_id WHERE m.generation_id = %s AND d.key = '1'",
            [live.pk],
        )
        (vector,) = cur.fetchone()
        # Each lexeme tagged with its language row and column: stemmed (:) and unstemmed (~).
        lexemes = set(vector.split())
        assert {"'en:alpha'", "'fr~charlie'", "'en~bravo'"} <= lexemes
        assert any(lexeme.startswith("'fr:charl") for lexeme in lexemes)
        backend.update(delete=[MATCHING[0].doc_id])
        cur.execute("SELECT count(*) FROM search_indexedmatch WHERE generation_id = %s", [live.pk])
        assert cur.fetchone()[0] == len(MATCHING) - 1
        cur.execute(
            "SELECT indexdef FROM pg_indexes WHERE tablename = 'search_indexedmatch' "
            "AND indexname = 'search_match_vector'"
        )
        assert "gin (vector)" in cur.fetchone()[0]
    backend.rebuild(MATCHING[:2])
    assert IndexGeneration.objects.filter(name="matches").count() == 1
    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM search_indexedmatch WHERE generation_id = %s", [live.pk])
        assert cur.fetchone()[0] == 0


@pytest.mark.parametrize("phrase", [False, True])
def test_groups_match_across_languages_and_at_least_k_of_n(tmp_path: Path, phrase) -> None:
    """The match table's answers (single words) and the rows' (a phrase among the words)
    agree: a document matches a group in any of its languages, min_match counts groups over
    all of them, and a release's validity and the counts hold."""
    backend = PostgresBackend(tmp_path / "kofn")
    backend.index(MATCHING)
    alpha = "alpha echo" if phrase else "alpha"
    # Document 1 has alpha in English and delta in French; 5 has bravo in French.
    assert _keys(_ask(backend, "alpha", "delta")) == ["1"]
    assert _keys(_ask(backend, alpha, "bravo")) == (["5"] if phrase else ["1", "2", "5"])
    found = _ask(backend, alpha, "bravo", "delta", "foxtrot", min_match=2)
    assert _keys(found) == (["1", "4", "5", "6"] if phrase else ["1", "2", "4", "5", "6"])
    if not phrase:
        # Three groups of four rank first; 2 is no longer valid in 2024.
        assert found.hits[0].key in {"1", "6"}
        later = _ask(backend, alpha, "bravo", "delta", "foxtrot", min_match=2, release=D2024)
        assert "2" not in _keys(later) and later.counts == {"rule": 1, "card": 2, "ruling": 1}
    assert _keys(_ask(backend, "charlie", lang="fr")) == ["1"]
    assert _keys(_ask(backend, "charlie", lang="en")) == ["2"]
    assert _keys(_ask(backend, "fox*", "golf")) == ["6"]


def test_a_kind_filter_ranks_its_kind_but_counts_every_kind(tmp_path: Path) -> None:
    """Only the kinds asked for are ranked; a collapse group mixing kinds is still counted
    under the kind of its best document, as without the filter."""
    backend = PostgresBackend(tmp_path / "kinds")
    backend.index(MATCHING)
    everything = _ask(backend, "echo")
    assert sum(everything.counts.values()) == everything.total == 2  # 3 and 4 are one hit
    for kinds in [("card",), ("ruling",)]:
        found = _ask(backend, "echo", kinds=kinds, per_page=1)
        assert found.counts == everything.counts
        expected = [h for h in everything.hits if h.kind in kinds][:1]
        assert [(h.key, h.also) for h in found.hits] == [(h.key, h.also) for h in expected]
