"""Passage vectors in the database, by a hash of the model and the exact text.

Why by text hash: a release repeats almost every text of the one before, and an edit changes
one; keyed by what was embedded, an import or an edit re-embeds only the texts that changed,
and every process (web workers, the index worker, another node) reads the same vectors.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

import numpy as np
from django.db import transaction

from search.models import QueryMap, Vector

DTYPE = np.dtype("<f2")


def key(model_id: str, text: str, role: str = "passage") -> str:
    """A vector's key: the model, the side of the model it was embedded on (a "passage" or a
    "query": e5 embeds the two differently) and the exact text."""
    return hashlib.sha256(f"{model_id}\x00{role}\x00{text}".encode()).hexdigest()


def vectors(keys: Sequence[str], *, dim: int) -> tuple[np.ndarray, np.ndarray]:
    """(matrix, found): the vectors of `keys` in their order as float32 rows (zeros where
    missing) and a mask of the keys that have one. A key listed twice (the same text in two
    passages) fills both rows."""
    matrix = np.zeros((len(keys), dim), dtype=np.float32)
    found = np.zeros(len(keys), dtype=bool)
    rows_of: dict[str, list[int]] = {}
    for i, k in enumerate(keys):
        rows_of.setdefault(k, []).append(i)
    unique = list(rows_of)
    for start in range(0, len(unique), 900):  # SQLite's variable limit
        stored = Vector.objects.filter(key__in=unique[start : start + 900]).values_list(
            "key", "vector"
        )
        for k, blob in stored:
            rows = rows_of[k]
            matrix[rows] = np.frombuffer(bytes(blob), dtype=DTYPE)
            found[rows] = True
    return matrix, found


def missing(model_id: str, texts: Iterable[str], role: str = "passage") -> list[str]:
    """The distinct texts that have no vector yet, in their first order."""
    by_key = {key(model_id, t, role): t for t in texts}
    have: set[str] = set()
    keys = list(by_key)
    for start in range(0, len(keys), 900):
        have.update(
            Vector.objects.filter(key__in=keys[start : start + 900]).values_list("key", flat=True)
        )
    return [t for k, t in by_key.items() if k not in have]


def save(model_id: str, texts: Sequence[str], matrix: np.ndarray, role: str = "passage") -> int:
    """Store one batch (a transaction of its own: a stopped worker loses at most a batch)."""
    rows = [
        Vector(key=key(model_id, t, role), model=model_id, vector=row.astype(DTYPE).tobytes())
        for t, row in zip(texts, matrix, strict=True)
    ]
    with transaction.atomic():
        Vector.objects.bulk_create(rows, ignore_conflicts=True)
    return len(rows)


def sweep(model_id: str, keep: Iterable[str], keep_queries: Iterable[str] = ()) -> int:
    """Delete the vectors of texts no passage (or kept query: rulings awaiting a proposal)
    uses any more (another model's too)."""
    wanted = {key(model_id, t) for t in keep} | {key(model_id, t, "query") for t in keep_queries}
    stale = [k for k in Vector.objects.values_list("key", flat=True) if k not in wanted]
    deleted = 0
    for start in range(0, len(stale), 900):
        deleted += Vector.objects.filter(key__in=stale[start : start + 900]).delete()[0]
    return deleted


def count() -> int:
    """What the store holds (vectors and query maps): a reader re-reads when it changes."""
    return Vector.objects.count() + QueryMap.objects.count()


def query_map(key_: str) -> np.ndarray | None:
    """The query map stored under `key_` (search.semantic.adapter), or None."""
    row = QueryMap.objects.filter(key=key_).values_list("matrix", flat=True).first()
    if row is None:
        return None
    blob = np.frombuffer(bytes(row), dtype="<f4")
    dim = round(len(blob) ** 0.5)
    return blob.reshape(dim, dim).astype(np.float32)


#: Query maps kept: the one just fitted and the one before it (a process that has not yet
#: re-read its passages still finds its own). Each edit of a rule's text fits a new map (half
#: a megabyte): without this they piled up.
MAPS_KEPT = 2


def save_query_map(key_: str, model_id: str, matrix: np.ndarray, examples: int) -> None:
    with transaction.atomic():
        QueryMap.objects.update_or_create(
            key=key_,
            defaults={
                "model": model_id,
                "matrix": matrix.astype("<f4").tobytes(),
                "examples": examples,
            },
        )
        older = QueryMap.objects.exclude(key=key_).order_by("-created", "key")
        stale = list(older.values_list("key", flat=True)[MAPS_KEPT - 1 :])
        QueryMap.objects.filter(key__in=stale).delete()
