"""Which number a rule had on a date, from every number every lineage held.

Links point at lineages, which outlive renumberings; the numbers shown (then and now) are read
from here, so a release import only re-resolves them (refresh_numbers) instead of relinking.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict

from kb.crtext.numbers import kind_of, parent_of
from kb.dbutil import update_rows
from kb.models import EraLink, Release, RuleNumber
from rulings.models import RulingLink
from rulings.stamp import bump as bump_stamp

#: The modern Comprehensive Rules start here; older rulings predate them.
MODERN_CR = dt.date(2009, 7, 11)


class Numbers:
    """Every number every lineage held, in memory: which number a rule had on any date."""

    def __init__(self) -> None:
        self.releases = list(Release.objects.order_by("effective_date"))
        current = Release.objects.current()
        # The number a rule has in the release in force today (not in one loaded to come).
        self.current = current.effective_date if current else dt.date.today()
        self.spans: dict[int, list[tuple[dt.date, dt.date | None, str]]] = defaultdict(list)
        self.by_number: dict[str, list[tuple[dt.date, dt.date | None, int]]] = defaultdict(list)
        for lid, number, start, end in RuleNumber.objects.values_list(
            "lineage_id", "number", "valid_from", "valid_to"
        ):
            self.spans[lid].append((start, end, number))
            self.by_number[number].append((start, end, lid))
        # A modern rule's legacy past (kb.archive.eras): the rules of May 2009 it came from,
        # the most alike first; links point at modern lineages, so a 2005 ruling's rule then is
        # read through them.
        self.origins: dict[int, list[int]] = defaultdict(list)
        for modern, legacy in (
            EraLink.objects.shown()
            .exclude(modern=None)
            .exclude(legacy=None)
            .order_by("modern_id", "-score", "legacy_number")
            .values_list("modern_id", "legacy_id")
        ):
            self.origins[modern].append(legacy)

    def lineage_now(self, number: str) -> int | None:
        return self.lineage_at(number, self.current)

    def lineage_at(self, number: str, date: dt.date) -> int | None:
        for start, end, lid in self.by_number.get(number, ()):
            if start <= date and (end is None or date < end):
                return lid
        return None

    def number_at(self, lineage_id: int, date: dt.date) -> str:
        """The number the rule had on `date`; before Magic 2010, that of the legacy rule it
        came from (empty when neither existed then)."""
        number = self._held(lineage_id, date)
        if not number and date < MODERN_CR:
            for legacy in self.origins.get(lineage_id, ()):
                number = self._held(legacy, date)
                if number:
                    break
        return number

    def _held(self, lineage_id: int, date: dt.date) -> str:
        for start, end, number in self.spans.get(lineage_id, ()):
            if start <= date and (end is None or date < end):
                return number
        return ""

    def release_at(self, date: dt.date) -> Release | None:
        found = None
        for r in self.releases:
            if r.effective_date <= date:
                found = r
        return found


def refresh_numbers() -> int:
    """Re-resolve the numbers links record, then and now (after a release is imported,
    replaced or removed); only links whose numbers changed are written. Returns how many."""
    if not RulingLink.objects.exists():
        return 0
    numbers = Numbers()
    updates = []
    for link_id, lid, date, release_id, then, now in RulingLink.objects.values_list(
        "id", "lineage_id", "ruling__date", "release_id", "number", "current_number"
    ):
        release = numbers.release_at(date)
        values = (
            release.pk if release else None,
            numbers.number_at(lid, date) if release else "",
            numbers.number_at(lid, numbers.current),
        )
        if values != (release_id, then, now):
            updates.append((*values, link_id))
    update_rows(RulingLink, ["release", "number", "current_number"], updates)
    if updates:
        bump_stamp()  # the numbers rule and card pages print
    return len(updates)


def scoring_key(number: str) -> str:
    """The granularity links are scored at: keyword rules (701.5, 702.19), else the chapter."""
    if number.startswith(("701.", "702.")):
        kind = kind_of(number)
        while kind == "subrule":
            number = parent_of(number) or number
            kind = kind_of(number)
        return number
    return number[:3]
