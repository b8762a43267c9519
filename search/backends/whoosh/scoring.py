"""Evaluating a compiled Whoosh query a whole posting list at a time.

Whoosh walks a query document by document through a tree of matchers in pure Python. A query
of frequent words searched in five fields ("triggered ability": 8,400 matches, a union of ten
term matchers under an intersection) spent 80-180 ms there, most of it in the union matchers'
`is_active` recursion, not in scoring. Here each leaf (a term, phrase or prefix in one field) is
still matched and scored by Whoosh, with the same BM25F weighting, but once per searcher: its
document numbers and scores are kept as arrays, and the tree above the leaves (And, Or, AndNot)
is combined with numpy over arrays as long as the index. A warm query then costs about a
millisecond whatever its number of matches; a cold leaf costs what Whoosh takes to score it.

The arithmetic is Whoosh's: an intersection or a union scores the sum of its matching children,
a negation the score of its positive side, ties go to the lower document number.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
from whoosh.query import And, AndNot, Or, Query

from search.backends.whoosh import postings


class AtLeast(Or):
    """Documents matching at least `minimum` of the subqueries, scored as the sum of those
    they match times the share they match (coordination): a long query's documents that match
    more of its words come first, and a word missing from every document does not empty the
    results. Evaluated here (Whoosh's own Or has no working minimum)."""

    def __init__(self, subqueries: list[Query], minimum: int, boost: float = 1.0) -> None:
        super().__init__(subqueries, boost=boost)
        self.minimum = minimum

    def __repr__(self) -> str:
        return f"AtLeast({self.subqueries!r}, minimum={self.minimum}, boost={self.boost})"

    def __eq__(self, other: object) -> bool:
        return super().__eq__(other) and getattr(other, "minimum", None) == self.minimum

    def __hash__(self) -> int:
        return hash((super().__hash__(), self.minimum))


#: How strongly a long query's documents are ranked by the share of its words they match.
COORDINATION = 1.0

#: Postings kept per searcher (two arrays of 4 and 8 bytes each: about 60 MB at most).
BUDGET = 5_000_000


class LeafCache:
    """The (document numbers, scores) of each leaf query already evaluated on one searcher,
    least recently used first out once the budget of postings is spent."""

    def __init__(self, searcher, budget: int = BUDGET) -> None:
        self.searcher = searcher
        self.budget = budget
        self.size = self.searcher.doc_count_all()
        self._context = searcher.context()
        self._lengths = postings.Lengths(searcher)
        self._leaves: OrderedDict[str, tuple[np.ndarray, np.ndarray]] = OrderedDict()
        self._queries: dict[str, Query] = {}
        self._postings = 0
        self._lock = threading.Lock()

    def leaf(self, query: Query) -> tuple[np.ndarray, np.ndarray]:
        key = repr(query)
        with self._lock:
            found = self._leaves.get(key)
            if found is not None:
                self._leaves.move_to_end(key)
                return found
        found = self._score(query)
        with self._lock:
            if key not in self._leaves:
                self._leaves[key] = found
                self._queries[key] = query
                self._postings += len(found[0])
                while self._postings > self.budget and len(self._leaves) > 1:
                    gone, (ids, _scores) = self._leaves.popitem(last=False)
                    del self._queries[gone]
                    self._postings -= len(ids)
        return found

    def recent(self, postings: int) -> list[Query]:
        """The most recently used leaves, newest first, up to that many postings in all."""
        out: list[Query] = []
        with self._lock:
            for key in reversed(self._leaves):
                size = len(self._leaves[key][0])
                if size <= postings:
                    postings -= size
                    out.append(self._queries[key])
        return out

    def _score(self, query: Query) -> tuple[np.ndarray, np.ndarray]:
        """Every match of one leaf with its score, as Whoosh computes it: a term or a phrase
        from its posting blocks (see postings), anything else by Whoosh's own matcher."""
        fast = postings.score_term(self.searcher, query, self._lengths)
        if fast is None:
            fast = postings.score_phrase(self.searcher, query, self._lengths)
        if fast is not None:
            return fast
        ids: list[int] = []
        scores: list[float] = []
        matcher = query.matcher(self.searcher, self._context)
        active, doc, score, step = matcher.is_active, matcher.id, matcher.score, matcher.next
        while active():
            ids.append(doc())
            scores.append(score())
            step()
        return np.array(ids, dtype=np.int32), np.array(scores, dtype=np.float64)


def evaluate(query: Query, cache: LeafCache) -> tuple[np.ndarray, np.ndarray]:
    """A boolean array of the documents `query` matches and an array of their scores, both
    indexed by document number (scores outside the matches are meaningless)."""
    kind = type(query)
    if kind is AndNot:
        mask, scores = evaluate(query.a, cache)
        excluded, _ = evaluate(query.b, cache)
        mask &= ~excluded
        return mask, scores * query.boost if query.boost != 1.0 else scores
    if kind is AtLeast:
        return _at_least(query, cache)
    if _compound(query):
        subs = query.subqueries
        if not subs:
            return np.zeros(cache.size, dtype=bool), np.zeros(cache.size)
        if len(subs) == 1:  # Whoosh matches a lone child as itself, its parent's boost unused
            return evaluate(subs[0], cache)
        # How many children each document matches; scores summed child by child, in order.
        # A leaf child adds at its own matches only: no array as long as the index for it.
        count = np.zeros(cache.size, dtype=np.int16)
        scores = np.zeros(cache.size)
        for sub in subs:  # one child at a time: a long query must not hold them all
            if _compound(sub):
                sub_mask, sub_scores = evaluate(sub, cache)
                # A compound child's scores outside its matches are partial sums: only matches.
                np.add(scores, sub_scores, out=scores, where=sub_mask)
                count += sub_mask
            else:
                ids, leaf_scores = cache.leaf(sub)
                scores[ids] += leaf_scores  # a leaf's document numbers are distinct
                count[ids] += 1
        mask = count == len(subs) if kind is And else count > 0
        return mask, scores * query.boost if query.boost != 1.0 else scores
    ids, leaf_scores = cache.leaf(query)
    mask = np.zeros(cache.size, dtype=bool)
    mask[ids] = True
    scores = np.zeros(cache.size)
    scores[ids] = leaf_scores
    return mask, scores


def _compound(query: Query) -> bool:
    """Whether a query is combined here from its children, not matched as a leaf. Exact
    types: subclasses (Ordered is an And) and options (Or's minmatch and scale) mean something
    else, so such a query is a leaf, matched and scored by Whoosh as a whole."""
    kind = type(query)
    if kind is And or kind is AndNot or kind is AtLeast:
        return True
    return kind is Or and not query.minmatch and query.scale is None


def _at_least(query: AtLeast, cache: LeafCache) -> tuple[np.ndarray, np.ndarray]:
    count = np.zeros(cache.size, dtype=np.int16)
    weight = np.zeros(cache.size)
    total = 0.0
    scores = np.zeros(cache.size)
    for sub in query.subqueries:
        sub_mask, sub_scores = evaluate(sub, cache)
        count += sub_mask
        # A word's share of the coordination is its rarity (its idf), not one in n: matching
        # "goad" counts for more than matching "player".
        idf = np.log(cache.size / (1.0 + np.count_nonzero(sub_mask))) + 1.0
        np.add(weight, idf, out=weight, where=sub_mask)
        total += idf
        np.add(scores, sub_scores, out=scores, where=sub_mask)
    scores *= (weight / max(total, 1e-9)) ** COORDINATION
    return count >= query.minimum, scores * query.boost if query.boost != 1.0 else scores


def top(scores: np.ndarray, candidates: np.ndarray, limit: int) -> list[tuple[float, int]]:
    """The best `limit` of `candidates` (document numbers) as Whoosh orders them: score
    descending, then document number ascending."""
    if limit < 1:
        return []
    if len(candidates) > limit:
        chosen = scores[candidates]
        threshold = np.partition(chosen, len(chosen) - limit)[len(chosen) - limit]
        candidates = candidates[chosen >= threshold]  # ties at the threshold all stay
    order = np.lexsort((candidates, -scores[candidates]))[:limit]
    return [(float(scores[candidates[i]]), int(candidates[i])) for i in order]


@dataclass(frozen=True)
class Collapsed:
    """The matches with one document per collapse group, and each group's other matches."""

    matched: np.ndarray  # boolean by document number
    members: np.ndarray  # grouped matches, by group then best first
    groups: np.ndarray  # the group of each of `members`

    def others(self, docnum: int, group: int) -> np.ndarray:
        """The other matches of `group`, best first."""
        if group < 0 or not len(self.members):
            return self.members[:0]
        start, end = np.searchsorted(self.groups, [group, group + 1])
        found = self.members[start:end]
        return found[found != docnum]


def collapse(matched: np.ndarray, scores: np.ndarray, groups: np.ndarray) -> Collapsed:
    """Only the best-scored match of each group stays matched (ties: the lowest document
    number, as `top` orders); `groups` is -1 for documents in no group."""
    grouped = np.flatnonzero(matched & (groups >= 0))
    if len(grouped) < 2:
        return Collapsed(matched, grouped, groups[grouped])
    ordered = grouped[np.lexsort((grouped, -scores[grouped], groups[grouped]))]
    of = groups[ordered]
    later = np.empty(len(ordered), dtype=bool)
    later[0] = False
    later[1:] = of[1:] == of[:-1]
    matched = matched.copy()
    matched[ordered[later]] = False
    return Collapsed(matched, ordered, of)
