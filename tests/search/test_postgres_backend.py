"""The PostgreSQL backend's own guarantees beyond the contract (PostgreSQL pass only): a rebuild
killed before its swap leaves the live index answering and is removed by the next writer."""

from __future__ import annotations

from pathlib import Path

import pytest

from search.backend import SearchRequest
from search.backends.postgres.backend import PostgresBackend
from search.models import IndexedDocument, IndexGeneration
from search.syntax import Group, Word
from tests.search.test_contract import DOCS

pytestmark = pytest.mark.django_db


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
