"""What example questions teach the retriever: how players ask for each passage.

Why: the encoder was trained on the web's questions and answers, not on Magic's. Asked by
players ("my creature got bounced in response, does my aura fizzle?"), its nearest passage was
a right rule for one question in four (players' dev set, retriever alone 0.251). Two uses of
the registered example questions (search.documents.Example: 12,733 for the current rules,
written from the rules and from card rulings, fixtures/vocabulary/questions.md) lift it, as
measured on questions other people wrote from other rulings (0.436 with the first 8,919; the
whole search 0.727 with all of them):

- a **query map**: one 384 x 384 matrix, fitted so that each example question, mapped, lies
  nearest its own passage among all the passages (a softmax over every passage, Adam, in
  numpy: 20 to 40 s on one core, whatever the number of examples; done once per set of
  passages by the index worker and kept in the database). A query is mapped the same way
  before its cosines are taken; passages are not (their stored vectors stay valid). Alone:
  0.251 -> 0.40. A closed-form least-squares map reached only 0.30;
- **nearest examples**: a passage's score blends its own cosine with that of its nearest
  example questions (a question is closer to a question than to a rule's text): 0.40 -> 0.44.

Figures from the dev set only, with the exploration's numbers in docs/benchmarks.md.
"""

from __future__ import annotations

import numpy as np

#: The fit, as tuned on the players' dev set: 600/900/1500 steps gave 0.388/0.404/0.395 (map
#: alone); temperature 0.02 beat 0.05; a little weight decay keeps the map near identity.
STEPS = 1000
BATCH = 256
RATE = 1e-3
TEMPERATURE = 0.02
DECAY = 1e-3
SEED = 20261205
#: A passage's score: (1 - w) x its cosine + w x its examples' (0.4/0.5/0.6/0.7 of the cosine
#: gave 0.422/0.437/0.446/0.440 on dev; with the questions from rulings 0.3/0.5 did no better).
EXAMPLE_WEIGHT = 0.4
#: Its examples' score is a soft maximum of their cosines, SOFTNESS x log(sum of exp((cos - 1)
#: / SOFTNESS)) + 1: the nearest example's cosine where one is near, more where several are.
#: Why: since the questions written from card rulings (2026-12-06), the rules players ask
#: about most have the most examples, and several near examples are more evidence than one.
#: Players' dev set (emulated, the words' weight 0.005): the maximum 0.675, softness 0.05
#: 0.706, 0.03 0.672.
SOFTNESS = 0.05


def fit(
    examples: np.ndarray, owners: np.ndarray, passages: np.ndarray, *, steps: int = STEPS
) -> np.ndarray:
    """The query map W (query -> normalise(query + query @ W)) that puts each row of
    `examples` (query vectors) nearest row `owners[i]` of `passages`. Deterministic: the
    same vectors give the same map on every node."""
    rng = np.random.default_rng(SEED)
    x_all = examples.astype(np.float32)
    p = passages.astype(np.float32)
    dim = x_all.shape[1]
    w = np.zeros((dim, dim), dtype=np.float32)
    first = np.zeros_like(w)
    second = np.zeros_like(w)
    batch = min(BATCH, len(x_all))
    rows = np.arange(batch)
    for t in range(1, steps + 1):
        pick = rng.integers(len(x_all), size=batch)
        x, target = x_all[pick], owners[pick]
        z = x + x @ w
        norm = np.linalg.norm(z, axis=1, keepdims=True)
        q = z / norm
        logits = q @ p.T / TEMPERATURE
        logits -= logits.max(1, keepdims=True)
        grad = np.exp(logits)
        grad /= grad.sum(1, keepdims=True)
        grad[rows, target] -= 1  # d(cross-entropy)/d(logits)
        grad /= batch
        dq = grad @ p / TEMPERATURE
        dz = (dq - q * (dq * q).sum(1, keepdims=True)) / norm  # through the normalisation
        g = x.T @ dz + DECAY * w
        first = 0.9 * first + 0.1 * g
        second = 0.999 * second + 0.001 * g * g
        w -= RATE * (first / (1 - 0.9**t)) / (np.sqrt(second / (1 - 0.999**t)) + 1e-8)
    return w


def mapped(w: np.ndarray | None, vectors: np.ndarray) -> np.ndarray:
    """Query vectors (rows, or one vector) through the map, normalised again."""
    if w is None:
        return vectors
    z = vectors + vectors @ w
    return z / np.linalg.norm(z, axis=-1, keepdims=True)


class Nearest:
    """Each passage's nearest example question, for one query at a time: examples grouped by
    their passage once, then a product and a segment maximum per query."""

    def __init__(self, vectors: np.ndarray, owners: np.ndarray, passages: int) -> None:
        order = np.argsort(owners, kind="stable")
        self.vectors = np.ascontiguousarray(vectors[order])
        owners = owners[order]
        self.starts = np.flatnonzero(np.r_[True, owners[1:] != owners[:-1]])[: len(owners)]
        self.owners = owners[self.starts]
        self.passages = passages

    def blend(self, query: np.ndarray, cosines: np.ndarray) -> np.ndarray:
        """The passages' scores: their cosine with `query`, blended with their examples'
        (a soft maximum, SOFTNESS) where they have examples."""
        if not len(self.vectors):
            return cosines
        near = np.exp((self.vectors @ query - 1.0) / SOFTNESS)  # in (0, 1]: no overflow
        soft = SOFTNESS * np.log(np.add.reduceat(near, self.starts)) + 1.0
        out = cosines.copy()
        out[self.owners] = (1 - EXAMPLE_WEIGHT) * cosines[self.owners] + EXAMPLE_WEIGHT * soft
        return out
