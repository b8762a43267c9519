"""Score the search against the frozen relevance set (tests/kb/sitesearch/relevance.jsonl).

Each query lists the results that count as right (any of them); the reciprocal rank of the first
right result in the top 10 gives the mean reciprocal rank, and recall@10 is asked of rule-number
and keyword queries.
"""

from __future__ import annotations

import json
import statistics
from dataclasses import dataclass, field
from pathlib import Path

from kb.sitesearch.service import search
from search.documents import Hit

RECALL_CATEGORIES = ("number", "keyword")


def matches(hit: Hit, expected: str) -> bool:
    kind, _, what = expected.partition(":")
    if kind != hit.kind:
        return False
    if kind == "rule":
        return hit.number == what
    if kind == "ruling":
        slug, _, start = what.partition("|")
        # A ruling printed on several cards is one hit standing for all of them.
        slugs = {ref.split("#")[0] for ref in [hit.ref, *(ref for ref, _ in hit.also)]}
        return (slug == "*" or slug in slugs) and hit.text.startswith(start)
    return hit.ref == what


@dataclass
class Scores:
    mrr: float
    recall_at_10: float  # over RECALL_CATEGORIES
    queries: int
    by_category: dict[str, float] = field(default_factory=dict)  # MRR per category
    ranks: list[tuple[str, int | None]] = field(default_factory=list)
    zero_results: int = 0  # queries answered with no result at all

    @property
    def zero_share(self) -> float:
        return self.zero_results / self.queries if self.queries else 0.0

    def lines(self, name: str) -> list[str]:
        """A report: MRR@10, zero-result share, then MRR per category (query shape)."""
        out = [
            f"{name}: {self.queries} queries, MRR@10 {self.mrr:.3f}, "
            f"zero results {self.zero_share:.1%}"
        ]
        out += [f"  {k:<12} {v:.3f}" for k, v in sorted(self.by_category.items())]
        return out

    def misses(self) -> list[tuple[str, int | None]]:
        return [(q, r) for q, r in self.ranks if r != 1]


def load(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def evaluate(path: Path) -> Scores:
    rows = load(path)
    reciprocal: dict[str, list[float]] = {}
    recall: list[bool] = []
    ranks = []
    zero = 0
    for row in rows:
        page = search(row["q"], per_page=10)
        zero += not page.results.total and not page.jump
        rank = next(
            (
                i
                for i, hit in enumerate(page.results.hits[:10], 1)
                if any(matches(hit, e) for e in row["expect"])
            ),
            None,
        )
        ranks.append((row["q"], rank))
        reciprocal.setdefault(row["category"], []).append(1 / rank if rank else 0.0)
        if row["category"] in RECALL_CATEGORIES:
            recall.append(rank is not None)
    everything = [r for values in reciprocal.values() for r in values]
    return Scores(
        mrr=statistics.fmean(everything),
        recall_at_10=sum(recall) / len(recall) if recall else 1.0,
        queries=len(rows),
        by_category={k: statistics.fmean(v) for k, v in reciprocal.items()},
        ranks=ranks,
        zero_results=zero,
    )
