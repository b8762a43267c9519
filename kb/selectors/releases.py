"""Which releases exist and which one a request reads: the release tokens of URLs, the
cached list of releases (`Releases`), and the releases a lineage appears in."""

from __future__ import annotations

import bisect
import datetime as dt
import re
import threading
import time
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

from django.db import connection, connections, router
from django.utils.translation import get_language

from kb.models import (
    Release,
    RuleNumber,
)
from kb.models.releases import today

#: number -> URL in the release being read (the page decides: current or dated links).


_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class BadRelease(ValueError):
    """A release token that is neither `current` nor a valid date."""


class NoRelease(LookupError):
    """No release was in force on the date asked (or none is loaded): callers word it their
    way (a 404 page, a JSON 404, a search notice), so the dates travel with the error."""

    def __init__(self, date: dt.date | None, first: dt.date | None) -> None:
        super().__init__(f"no release in force on {date}" if date else "no release loaded")
        self.date = date
        self.first = first


def parse_release_token(token: str) -> dt.date | None:
    """`current` -> None; "2016-05-20" -> the date; anything else -> BadRelease."""
    if token == "current":
        return None
    if not _DATE_RE.match(token or ""):
        raise BadRelease(f"{token!r} is not a date (YYYY-MM-DD) or “current”")
    try:
        return dt.date.fromisoformat(token)
    except ValueError as exc:
        raise BadRelease(f"{token!r} is not a valid date: {exc}") from None


RELEASES_TTL = 60


_releases_cache: dict = {}


_releases_lock = threading.Lock()


def forget_releases(**_kwargs) -> None:
    """Drop the kept list of releases (connected to Release's save and delete signals)."""
    with _releases_lock:
        _releases_cache.clear()


@dataclass
class Releases:
    """All releases, loaded once per request (there are about a hundred)."""

    all: list[Release]

    #: (effective date, set name) of each release by language: kept with the list they were
    #: read from (the search page's release filter lists them all, and reading a hundred
    #: translated names cost a millisecond a page).
    _labels: dict[str, tuple[tuple[str, str], ...]] = field(
        default_factory=dict, repr=False, compare=False
    )

    @classmethod
    def load(cls) -> Releases:
        """Kept per process while the table's stamp is unchanged (an import adds or replaces
        rows) and for at most RELEASES_TTL seconds (another process's edit of a field); an
        edit in this process forgets it at once (`forget_releases`). Every page needs the
        list, and building it cost 2 ms a request (the stamp is plain SQL: compiling it as a
        queryset cost ten times its run)."""
        with connections[router.db_for_read(Release)].cursor() as cursor:  # as the rows below
            cursor.execute(_releases_stamp_sql())
            stamp = cursor.fetchone()
        key = (tuple(stamp), int(time.monotonic() // RELEASES_TTL))
        with _releases_lock:
            if _releases_cache.get("key") == key:
                return cls(list(_releases_cache["all"]), _releases_cache["labels"])
        # The introduction and credits are long texts no page of the list shows.
        found = list(Release.objects.defer("introduction", "credits").order_by("effective_date"))
        labels: dict[str, tuple[tuple[str, str], ...]] = {}
        with _releases_lock:
            _releases_cache.update(key=key, all=found, labels=labels)
        return cls(list(found), labels)

    def labels(self) -> tuple[tuple[str, str], ...]:
        """(effective date as YYYY-MM-DD, set name in the active language), oldest first."""
        language = get_language() or ""
        found = self._labels.get(language)
        if found is None:
            found = tuple((r.effective_date.isoformat(), r.set_name) for r in self.all)
            self._labels[language] = found
        return found

    @cached_property
    def today(self) -> dt.date:
        """The day this list is read for (`today()`, once: a page asks several times)."""
        return today()

    @cached_property
    def current(self) -> Release | None:
        """The release in force today: not the latest loaded, which may take effect later
        (Wizards publish a release days before its effective date). None when every loaded
        release is still to come."""
        return self.in_force(self.today)

    @property
    def latest(self) -> Release | None:
        """The latest release loaded, in force or not."""
        return self.all[-1] if self.all else None

    @property
    def in_force_now(self) -> list[Release]:
        """Every release up to the current one, oldest first (what is no longer to come)."""
        return self.all[: bisect.bisect_right(self._dates, self.today)]

    @property
    def upcoming(self) -> list[Release]:
        """The releases loaded before their effective date, the soonest first: readable by
        their date, not in force yet."""
        return self.all[bisect.bisect_right(self._dates, self.today) :]

    def is_upcoming(self, release: Release) -> bool:
        return release.effective_date > self.today

    def in_force(self, date: dt.date) -> Release | None:
        i = bisect.bisect_right(self._dates, date)
        return self.all[i - 1] if i else None

    @cached_property
    def _dates(self) -> list[dt.date]:
        return [r.effective_date for r in self.all]

    def previous(self, release: Release) -> Release | None:
        i = self.all.index(release)
        return self.all[i - 1] if i > 0 else None

    @property
    def first(self) -> Release | None:
        return self.all[0] if self.all else None


@lru_cache(maxsize=1)
def _releases_stamp_sql() -> str:
    table = connection.ops.quote_name(Release._meta.db_table)
    return f"SELECT COUNT(*), MAX(id), MAX(imported_at), MIN(effective_date) FROM {table}"


def release_for(token: str, releases: Releases) -> Release:
    """The release a URL or parameter names: `current` (the release in force today), an
    effective date, or any date (the release in force on it: a release to come is read by its
    date). The one place tokens are read, so that pages, the API and search agree; BadRelease
    for a malformed token, NoRelease when nothing was (or, for `current`, is yet) in force."""
    date = parse_release_token(token)
    release = releases.current if date is None else releases.in_force(date)
    if release is None:
        first = releases.first
        raise NoRelease(date, first.effective_date if first else None)
    return release


def lineage_releases(lineage_id: int, releases: Releases) -> list[tuple[Release, str]]:
    """Every release in which a lineage exists, with the number it had there (one query)."""
    spans = list(
        RuleNumber.objects.filter(lineage_id=lineage_id)
        .order_by("valid_from")
        .values_list("number", "valid_from", "valid_to")
    )
    out = []
    for r in releases.all:
        d = r.effective_date
        for number, start, end in spans:
            if start <= d and (end is None or d < end):
                out.append((r, number))
                break
    return out


def other_releases_with(number: str) -> list[tuple[dt.date, dt.date | None]]:
    """The intervals over which some lineage held `number` (for "it existed elsewhere")."""
    return list(
        RuleNumber.objects.filter(number=number)
        .order_by("valid_from")
        .values_list("valid_from", "valid_to")
    )
