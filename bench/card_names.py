"""Measure the card-name search against the frozen queries in tests/rulings/card_queries.jsonl.

An evaluation, not part of the app: the slow test asserts its floor, bench.rulings prints it.
"""

from __future__ import annotations

import json
from pathlib import Path

from rulings.models import Card
from rulings.names import search_cards


def first_accuracy(path: Path) -> tuple[float, list[tuple[str, str, list[str]]]]:
    """Issue 35's measure: the share of queries whose intended card comes first."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    misses = []
    for row in rows:
        results = search_cards(row["query"], limit=5)
        if not results or results[0].name != row["expected"]:
            misses.append((row["query"], row["expected"], [m.name for m in results]))
    return 1 - len(misses) / len(rows), misses


def top5_accuracy(path: Path) -> tuple[float, list[tuple[str, str, list[str]]]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    ids = dict(
        Card.objects.filter(name_en__in=[r["expected"] for r in rows]).values_list("name_en", "id")
    )
    misses = []
    hits = 0
    for row in rows:
        results = search_cards(row["query"], limit=5)
        if ids.get(row["expected"]) in {m.card_id for m in results}:
            hits += 1
        else:
            misses.append((row["query"], row["expected"], [m.name for m in results]))
    return hits / len(rows), misses
