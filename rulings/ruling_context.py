"""What a judge needs under a ruling: the release in force then, whether it predates the modern
rules, whether the rules it relies on changed since, and old wording to be careful with.

Assembled for a whole page of rulings in a constant number of queries.
"""

from __future__ import annotations

import csv
import datetime as dt
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from django.conf import settings
from django.urls import reverse

from kb.models import Release, RuleVersion
from kb.selectors import Releases
from rulings.linking.lineage_numbers import MODERN_CR
from rulings.models import HIDDEN_KINDS, Ruling, RulingLink

OLD_TEMPLATING = Path(settings.BASE_DIR) / "fixtures" / "vocabulary" / "old_templating.csv"


@dataclass
class LinkView:
    number: str  # today's number ("" if the rule is gone)
    number_then: str
    kind: str
    evidence: str
    url: str
    then_url: str
    changed_since: dt.date | None = None
    diff_url: str = ""


@dataclass
class RulingView:
    ruling: Ruling
    release: Release | None
    release_url: str
    predates_modern: bool
    links: list[LinkView] = field(default_factory=list)
    old_wording: list[tuple[str, str, dt.date]] = field(default_factory=list)

    @property
    def changed(self) -> list[LinkView]:
        return [link for link in self.links if link.changed_since]


@lru_cache(maxsize=1)
def _old_templating() -> tuple[tuple[re.Pattern[str], str, str, dt.date], ...]:
    with OLD_TEMPLATING.open(newline="", encoding="utf-8") as fh:
        return tuple(
            (
                re.compile(rf"\b{re.escape(r['phrase'])}\b", re.IGNORECASE),
                r["phrase"],
                r["now"],
                dt.date.fromisoformat(r["since"]),
            )
            for r in csv.DictReader(fh)
        )


@lru_cache(maxsize=1)
def _any_old_phrase() -> re.Pattern[str]:
    return re.compile("|".join(p.pattern for p, _ph, _now, _since in _old_templating()), re.I)


def old_wording(text: str, date: dt.date) -> list[tuple[str, str, dt.date]]:
    """Phrases of a ruling written before the rules changed them ("converted mana cost")."""
    if not _any_old_phrase().search(text):  # one scan for the usual case: none
        return []
    return [
        (phrase, now, since)
        for pattern, phrase, now, since in _old_templating()
        if date < since and pattern.search(text)
    ]


def ruling_views(rulings: list[Ruling], releases: Releases) -> list[RulingView]:
    """Context for each ruling and its rule links (two queries for the whole list).

    Plain rows and URLs built from one reversed pattern each: a page may hold hundreds of
    rulings, and model instances and reverse() per link were most of its time.
    """
    links: dict[int, list[tuple[int, str, str, str, str]]] = {}
    rows = RulingLink.objects.filter(ruling_id__in=[r.pk for r in rulings]).exclude(
        kind__in=HIDDEN_KINDS
    )
    for rid, lid, number, then, kind, evidence in rows.values_list(
        "ruling_id", "lineage_id", "current_number", "number", "kind", "evidence"
    ):
        links.setdefault(rid, []).append((lid, number, then, kind, evidence))
    lineage_ids = {link[0] for group in links.values() for link in group}
    # By lineage only (a handful of versions each), the current one kept here: filtering on
    # valid_to too lets SQLite pick the valid_to index and scan every current version.
    wording = {
        lid: since
        for lid, since, valid_to in RuleVersion.objects.filter(
            lineage_id__in=lineage_ids
        ).values_list("lineage_id", "wording_since", "valid_to")
        if valid_to is None
    }
    urls = _Urls(releases.current)
    current = releases.current
    out = []
    for ruling in rulings:
        release = releases.in_force(ruling.date)
        token = release.effective_date.isoformat() if release else ""
        view = RulingView(
            ruling,
            release,
            urls.contents(token) if release else "",
            ruling.date < MODERN_CR,
            old_wording=old_wording(ruling.text, ruling.date),
        )
        for lid, number, then, kind, evidence in sorted(
            links.get(ruling.pk, []), key=lambda lk: lk[1] or "~"
        ):
            lv = LinkView(
                number,
                then,
                kind,
                evidence,
                urls.rule(number) if number else "",
                urls.rule_in(token, then) if release and then else "",
            )
            since = wording.get(lid)
            # Changed since: the rule existed then (a number then) and was reworded after.
            if since and release and current and since > ruling.date and then:
                lv.changed_since = since
                # Across Magic 2010 a diff of releases matches nothing: the rule's history
                # page shows the legacy rule it came from, with the word diff.
                lv.diff_url = (
                    urls.history(number) if view.predates_modern else urls.diff(token, number)
                )
            view.links.append(lv)
        out.append(view)
    return out


class _Urls:
    """kb URLs for links under rulings, each pattern reversed once."""

    def __init__(self, current: Release | None) -> None:
        self._rule = reverse("kb:current_rule", args=["0"])[:-2]
        self._rule_in = reverse("kb:rule", args=["0000-00-00", "0"])
        self._contents = reverse("kb:contents", args=["0000-00-00"])
        self._diff = (
            reverse("kb:diff", args=["0000-00-00", current.effective_date.isoformat()])
            if current
            else ""
        )

    def rule(self, number: str) -> str:
        return f"{self._rule}{number}/"

    def history(self, number: str) -> str:
        return f"{self._rule}{number}/history/#era-before"

    def rule_in(self, token: str, number: str) -> str:
        return self._rule_in.replace("0000-00-00", token, 1).replace("/0/", f"/{number}/", 1)

    def contents(self, token: str) -> str:
        return self._contents.replace("0000-00-00", token, 1)

    def diff(self, token: str, number: str) -> str:
        base = self._diff.replace("0000-00-00", token, 1)
        return f"{base}?section={number[0]}#r-{number}"
