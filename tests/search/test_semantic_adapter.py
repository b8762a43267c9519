"""The query map and the nearest example questions (search.semantic.adapter, issue 33)."""

from __future__ import annotations

import numpy as np
import pytest

from search.semantic import adapter


def _unit(x: np.ndarray) -> np.ndarray:
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def test_the_map_puts_each_example_nearest_its_own_passage():
    """Examples drawn near a *mixed* copy of their passage: unmapped, most lie nearest the
    wrong passage; the fitted map brings them home, and questions it never saw too. The mix
    is a signed permutation, not a QR rotation: LAPACK's signs differ between machines (CI
    drew a mild rotation that 85 % of the unmapped questions already survived)."""
    rng = np.random.default_rng(1)
    passages = _unit(rng.normal(size=(40, 16)).astype(np.float32))
    permutation = np.eye(16)[rng.permutation(16)] * rng.choice([-1.0, 1.0], size=16)
    rotation = (0.4 * np.eye(16) + 0.6 * permutation).astype(np.float32)

    def asked(owners: np.ndarray) -> np.ndarray:
        noise = 0.1 * rng.normal(size=(len(owners), 16)).astype(np.float32)
        return _unit(passages[owners] @ rotation.T + noise)

    owners = np.repeat(np.arange(40), 5)
    examples = asked(owners)
    unseen_owners = np.arange(40)
    unseen = asked(unseen_owners)

    def right(vectors: np.ndarray, truth: np.ndarray) -> float:
        return float(((vectors @ passages.T).argmax(1) == truth).mean())

    assert right(unseen, unseen_owners) <= 0.4
    w = adapter.fit(examples, owners, passages)
    assert right(adapter.mapped(w, unseen), unseen_owners) >= 0.75
    again = adapter.fit(examples, owners, passages)
    assert np.array_equal(w, again)  # every node fits the same map


def test_a_passage_s_score_blends_in_its_examples_soft_maximum():
    examples = _unit(np.array([[1, 0, 0], [0, 1, 0], [0.9, 0.1, 0], [0, 0, 1]], dtype=np.float32))
    nearest = adapter.Nearest(examples, np.array([2, 0, 2, 3]), passages=4)
    query = np.array([1.0, 0.0, 0.0], dtype=np.float32)
    cosines = np.array([0.1, 0.2, 0.3, 0.4], dtype=np.float32)
    out = nearest.blend(query, cosines)
    w, t = adapter.EXAMPLE_WEIGHT, adapter.SOFTNESS
    assert out[1] == pytest.approx(0.2)  # no example: its own cosine
    # One example: its cosine, exactly (the soft maximum of one is itself).
    assert out[0] == pytest.approx((1 - w) * 0.1 + w * 0.0, abs=1e-6)
    assert out[3] == pytest.approx((1 - w) * 0.4 + w * 0.0, abs=1e-6)
    # Two near examples (cosines 1 and 0.994): more than the nearest alone.
    second = float(examples[2] @ query)
    soft = t * np.log(1 + np.exp((second - 1) / t)) + 1
    assert out[2] == pytest.approx((1 - w) * 0.3 + w * soft)
    assert out[2] > (1 - w) * 0.3 + w * 1.0
    assert np.array_equal(
        adapter.Nearest(examples[:0], np.array([], int), 3).blend(query, cosines), cosines
    )
