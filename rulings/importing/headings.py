"""Gatherer's separator lines: headings over a card's rulings, not rulings.

Gatherer groups some cards' rulings under lines such as "---------- The following rulings
focus on the phasing keyword ----------". They are stored with the rulings (a source gives
them as rulings, and an import must stay idempotent) but marked as headings: not shown or
counted as rulings, not indexed, and the rulings under them lean on the rule they name.

Which rulings fall under a heading: those following it (same card and date) until the next
heading, when the source kept Gatherer's order. Sources that sort a card's rulings by text
(Scryfall's, the shared data's) put the headings first, one after another: then a ruling falls
under the heading whose topic it names first ("permanents that phase out" under the phasing
heading), and under none if it names none. A maintainer's grouping in the admin is kept.
"""

from __future__ import annotations

import datetime as dt
import itertools
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from django.db import transaction

#: A separator line: a title between runs of dashes.
_SEPARATOR_RE = re.compile(r"^\s*-{3,}\s*(?P<title>\S.*?)\s*-{3,}\s*$", re.DOTALL)
#: "The following rulings focus on X", "The following rulings are about X".
_TOPIC_RE = re.compile(
    r"^the following rulings? (?:focus(?:es)? on|(?:are|is) about|appl(?:y|ies) to) (?P<topic>.+)$",
    re.IGNORECASE,
)
#: Words of a topic that say nothing of which rulings it covers.
_FILLER = frozenset(
    re.findall(
        r"\S+",
        "a an the of on to in if it its it's what that this means mean keyword keywords "
        "ability abilities rules rule rulings following your you can't cannot can from with "
        "and or for is are be how when",
    )
)
_WORD_RE = re.compile(r"[a-z][a-z']*")
_SUFFIX_RE = re.compile(r"(?:ing|ed|es|s|e)$")


def heading_title(text: str) -> str | None:
    """The title of a separator line ("The following rulings focus on the phasing
    keyword"), None for a ruling."""
    m = _SEPARATOR_RE.match(text)
    return m.group("title") if m else None


def heading_topic(text: str) -> str:
    """What a heading says its rulings are about ("the phasing keyword")."""
    title = heading_title(text) or text
    m = _TOPIC_RE.match(title)
    return m.group("topic") if m else title


def _stem(word: str) -> str:
    """Enough of a word to meet its inflections ("phasing", "phases", "phased": "phas")."""
    return _SUFFIX_RE.sub("", word) if len(word) > 4 else word


def topic_stems(text: str) -> frozenset[str]:
    """The words of a heading's topic that say which rulings it covers."""
    words = _WORD_RE.findall(heading_topic(text).casefold().replace("’", "'"))
    return frozenset(_stem(w) for w in words if w not in _FILLER)


def _first_named(text: str, stems: frozenset[str]) -> int | None:
    """Where a ruling first names a word of a topic (None: it names none)."""
    for m in _WORD_RE.finditer(text.casefold().replace("’", "'")):
        if _stem(m.group()) in stems:
            return m.start()
    return None


@dataclass(frozen=True)
class Row:
    """What grouping reads of a ruling: its id (in source order), date and text."""

    id: int
    date: dt.date
    text: str


def groups(rows: Iterable[Row]) -> dict[int, int | None]:
    """The heading each ruling of one card falls under (heading id, or None), by ruling id;
    headings themselves are absent. Pure, so the migration and the import share it."""
    by_date: dict[dt.date, list[Row]] = defaultdict(list)
    for row in sorted(rows, key=lambda r: r.id):
        by_date[row.date].append(row)
    out: dict[int, int | None] = {}
    for day in by_date.values():
        heads = [r for r in day if heading_title(r.text) is not None]
        rulings = [r for r in day if heading_title(r.text) is None]
        if not heads:
            out.update((r.id, None) for r in rulings)
        elif _order_kept(day):
            current = None
            for r in day:
                if heading_title(r.text) is not None:
                    current = r.id
                else:
                    out[r.id] = current
        else:
            stems = [(h.id, topic_stems(h.text)) for h in heads]
            for r in rulings:
                named = [(p, hid) for hid, s in stems if (p := _first_named(r.text, s)) is not None]
                out[r.id] = min(named)[1] if named else None
    return out


def _order_kept(day: list[Row]) -> bool:
    """Whether the source kept Gatherer's order: every heading has rulings after it before
    the next heading (a source sorted by text puts the headings together)."""
    kinds = [heading_title(r.text) is not None for r in day]
    return all(not (a and b) for a, b in itertools.pairwise(kinds)) and not kinds[-1]


@transaction.atomic
def group_rulings(card_ids: Iterable[int]) -> list[int]:
    """Mark the separator lines of these cards' rulings as headings and group the rulings
    under them; rulings a maintainer grouped by hand are left as they are. Idempotent.
    Returns the rulings whose heading changed (their links follow it)."""
    from rulings.models import Ruling

    card_ids = list(card_ids)
    found = Ruling.objects.filter(card_id__in=card_ids).values_list(
        "id", "card_id", "date", "text", "is_heading", "group_id", "grouped_by_hand"
    )
    by_card: dict[int, list[tuple]] = defaultdict(list)
    for row in found:
        by_card[row[1]].append(row)
    changed: list[Ruling] = []
    for rows in by_card.values():
        if not any(heading_title(r[3]) is not None or r[4] for r in rows):
            continue  # the usual card: no headings, nothing to write
        wanted = groups(Row(r[0], r[2], r[3]) for r in rows)
        for rid, _cid, _date, text, is_heading, group_id, by_hand in rows:
            if by_hand:
                continue
            heading = heading_title(text) is not None
            group = None if heading else wanted.get(rid)
            if (heading, group) != (is_heading, group_id):
                changed.append(Ruling(id=rid, is_heading=heading, group_id=group))
    Ruling.objects.bulk_update(changed, ["is_heading", "group"], batch_size=500)
    if changed:
        from rulings.stamp import bump

        bump()  # card pages show the grouping
    return [r.id for r in changed]
