"""Score the ruling linker against a hand-labelled sample (tests/rulings/linking_*.jsonl), as a
whole and by stratum where the set has them (era and whether the card has keywords).

Scored at rule level for keyword abilities and actions (702.19, 701.5) and chapter level
elsewhere (603, 608): that is the granularity the labels were written at.
"""

from __future__ import annotations

import datetime as dt
import json
import statistics
from dataclasses import dataclass, field
from pathlib import Path

from rulings.linking import Linker, scoring_key
from rulings.linking.lineage_numbers import MODERN_CR
from rulings.linking.proposals import nearest_rules
from rulings.models import Card

BEFORE_2009 = "before 2009-07-11"


@dataclass
class Scores:
    precision: float
    recall: float
    median_links: float
    rulings: int
    true_positives: int
    predicted: int
    expected: int
    misses: list[dict] = field(default_factory=list)
    #: stratum ("2017-/keywords") -> (precision, recall, rulings), for sets that have strata.
    strata: dict[str, tuple[float, float, int]] = field(default_factory=dict)
    #: Issue 36: the rulings written against the legacy rules (before 2009-07-11), reported
    #: apart; they cut across the sampled strata, so they are not one of them.
    before_2009: tuple[float, float, int] | None = None
    #: With proposals: rulings the linker found nothing for, and how many of their proposals
    #: (the nearest rule by meaning) a gold label holds.
    unlinked: int = 0
    proposals_right: int = 0


def evaluate(sample: Path, linker: Linker | None = None, *, proposals: bool = False) -> Scores:
    """The linker's precision and recall on a labelled sample; with `proposals`, as if every
    proposal by meaning (rulings.linking.proposals) were confirmed."""
    linker = linker or Linker()
    rows = [json.loads(line) for line in sample.read_text(encoding="utf-8").splitlines() if line]
    nearest = nearest_rules([r["text"] for r in rows]) if proposals else None
    if proposals and nearest is None:
        raise RuntimeError("no proposals: the encoder or the rules' vectors are missing")
    unlinked = right = 0
    cards = {
        (str(c.oracle_id) if c.oracle_id else c.name_en): c
        for c in Card.objects.filter(name_en__in=[r["card_name"] for r in rows]).prefetch_related(
            "faces"
        )
    }
    tp = predicted = expected = 0
    counts = []
    misses = []
    by_stratum: dict[str, list[int]] = {}
    for i, row in enumerate(rows):
        card = cards.get(row["oracle_id"] or row["card_name"])
        names = [row["card_name"], *row["card_name"].split(" // ")]
        keywords: list[str] = []
        if card is not None:
            faces = list(card.faces.all())
            names += [card.name_fr or "", *(f.name for f in faces)]
            keywords = linker.card_keywords(
                card.keywords or [], [card.text_en or "", *(f.text for f in faces)]
            )
        found = linker.find(row["text"], dt.date.fromisoformat(row["date"]), names, keywords)
        got = {scoring_key(linker.number_at(f.lineage_id, linker.current)) for f in found}
        got.discard("")
        want = set(row["labels"])
        if nearest is not None and not got:
            unlinked += 1
            got = {scoring_key(hit.number) for hit in nearest[i][:1]}
            right += bool(got & want)
        tp += len(got & want)
        predicted += len(got)
        expected += len(want)
        groups = [row["stratum"]] if row.get("stratum") else []
        if row["date"] < MODERN_CR.isoformat():
            groups.append(BEFORE_2009)
        for group in groups:
            tally = by_stratum.setdefault(group, [0, 0, 0, 0])
            for k, n in enumerate((len(got & want), len(got), len(want), 1)):
                tally[k] += n
        counts.append(len(found))
        if got != want:
            misses.append(
                {
                    "n": row["n"],
                    "got": sorted(got),
                    "want": sorted(want),
                    "evidence": [f.evidence for f in found],
                    "text": row["text"],
                }
            )
    groups_scored = {
        name: (t / p if p else 1.0, t / e if e else 1.0, n)
        for name, (t, p, e, n) in sorted(by_stratum.items())
    }
    return Scores(
        precision=tp / predicted if predicted else 1.0,
        recall=tp / expected if expected else 1.0,
        median_links=statistics.median(counts) if counts else 0,
        rulings=len(rows),
        true_positives=tp,
        predicted=predicted,
        expected=expected,
        misses=misses,
        unlinked=unlinked,
        proposals_right=right,
        strata={name: ratios for name, ratios in groups_scored.items() if name != BEFORE_2009},
        before_2009=groups_scored.get(BEFORE_2009),
    )


def strata_report(scores: Scores) -> list[str]:
    """One line per stratum: the issue asks for dev and test scores by kind of ruling."""
    rows = list(scores.strata.items())
    if scores.before_2009 is not None:
        rows.append(("all " + BEFORE_2009, scores.before_2009))
    return [
        f"    {name}: {n} rulings, precision {p:.3f}, recall {r:.3f}" for name, (p, r, n) in rows
    ]
