"""The semantic store's query maps: each edit of a rule fits a new one; the old ones go."""

from __future__ import annotations

import numpy as np
import pytest

from search.models import QueryMap
from search.semantic import store

pytestmark = pytest.mark.django_db


def test_a_new_query_map_keeps_the_one_before_and_drops_older_ones() -> None:
    for n in range(4):
        store.save_query_map(f"key-{n}", "model", np.full((3, 3), n, np.float32), examples=n)
    assert set(QueryMap.objects.values_list("key", flat=True)) == {"key-3", "key-2"}
    assert store.query_map("key-3")[0, 0] == 3
    assert store.query_map("key-1") is None
    store.save_query_map("key-3", "model", np.ones((3, 3), np.float32), examples=9)  # again
    assert set(QueryMap.objects.values_list("key", flat=True)) == {"key-3", "key-2"}
