"""Whether a text whose cited numbers changed now cites other rules, or the same rules renumbered.

A version whose words are unchanged once cited numbers are masked differs from the previous one
by its references only, and most such changes follow a renumbering ("see rule 701.16" becoming
"see rule 701.20" because Investigate's rule moved): typography of a kind, folded away. But WAR
-> MH1 changed 605.1b from citing 106.11a to citing 605.1a, another rule: a change of meaning,
which a reader must see. Telling the two apart takes the lineages the numbers held on each
side's date, which only the archive knows, so it is decided here rather than from the hashes.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Iterable

from kb.dbutil import chunks
from kb.models.rules import Reference, RuleNumber
from kb.models.versioning import valid_on

#: (old version id, the date its numbers are read on, new version id, the date of the new one)
CitedPair = tuple[int, dt.date, int, dt.date]


def cite_other_rules(pairs: Iterable[CitedPair]) -> set[int]:
    """The new versions of `pairs` that cite, in some place, another rule than the old version
    cited there: the numbers of both (English text and examples, in order) read as lineages
    on each one's date. A number that names no rule on its date (a chapter range's end, a
    typo) proves nothing, nor does a different count of citations: those stay as they were."""
    pairs = list(pairs)
    if not pairs:
        return set()
    cited = _cited_numbers({v for old, _, new, _ in pairs for v in (old, new)})
    wanted: dict[dt.date, set[str]] = defaultdict(set)
    for old, old_date, new, new_date in pairs:
        wanted[old_date].update(cited.get(old, ()))
        wanted[new_date].update(cited.get(new, ()))
    lineage = _lineages(wanted)
    out = set()
    for old, old_date, new, new_date in pairs:
        before, after = cited.get(old, []), cited.get(new, [])
        if len(before) != len(after):
            continue
        for a, b in zip(before, after, strict=True):
            la, lb = lineage.get((old_date, a)), lineage.get((new_date, b))
            if la is not None and lb is not None and la != lb:
                out.add(new)
                break
    return out


def _cited_numbers(version_ids: set[int]) -> dict[int, list[str]]:
    """Each version's cited numbers in reading order: its text, then its examples; a range
    ("rules 702.19b-d") gives both ends."""
    rows: list[tuple] = []
    for chunk in chunks(sorted(version_ids)):
        rows += Reference.objects.filter(rule_version_id__in=chunk, lang="en").values_list(
            "rule_version_id", "example_position", "start", "target", "target_end"
        )
    rows.sort(key=lambda r: (r[0], -1 if r[1] is None else r[1], r[2]))
    out: dict[int, list[str]] = defaultdict(list)
    for version, _, _, target, end in rows:
        out[version].append(target)
        if end:
            out[version].append(end)
    return out


def _lineages(wanted: dict[dt.date, set[str]]) -> dict[tuple[dt.date, str], int]:
    """(date, number) -> the lineage holding that number on that date (first ordinal)."""
    out: dict[tuple[dt.date, str], int] = {}
    for date, numbers in wanted.items():
        for chunk in chunks(sorted(numbers)):
            for number, lineage in RuleNumber.objects.filter(
                valid_on(date), number__in=chunk, ordinal=0
            ).values_list("number", "lineage_id"):
                out[(date, number)] = lineage
    return out
