"""Reads of the glossary: its terms, their citations and names by release, and the vocabulary
pairs search folds."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

from django.utils.safestring import SafeString

from kb.models import (
    GlossaryTerm,
    GlossaryVersion,
    Reference,
    VocabularyTerm,
)
from kb.models.glossary import alias_list
from search.analysis import fold

#: number -> URL in the release being read (the page decides: current or dated links).


@dataclass
class Term:
    slug: str
    version: GlossaryVersion
    html: SafeString | str = ""
    french: VocabularyTerm | None = None

    @property
    def headword(self) -> str:
        return self.version.headword


def glossary_term(slug: str) -> GlossaryTerm | None:
    return GlossaryTerm.objects.filter(slug=slug).first()


def glossary_references(version_ids: Iterable[int]) -> dict[int, list[Reference]]:
    """The English citations of glossary versions, by version, in reading order (one query)."""
    out: dict[int, list[Reference]] = defaultdict(list)
    for ref in Reference.objects.filter(
        glossary_version_id__in=list(version_ids), lang="en"
    ).order_by("start"):
        out[ref.glossary_version_id].append(ref)
    return dict(out)


class GlossaryName(NamedTuple):
    term_id: int
    slug: str
    version_id: int
    headword: str


def glossary_key(name: str) -> str:
    """How a glossary name is compared with a typed or mined one: folded as search folds
    words, "(Obsolete)" left out."""
    return fold(name.replace("(Obsolete)", "")).strip()


def glossary_names(date: dt.date) -> dict[str, GlossaryName]:
    """The glossary entries of the release in force on `date` by `glossary_key` of their
    headword and of each alias (one query). Search and the vocabulary builder both look names
    up in it, so they agree on which entry a name means: a current entry before an obsolete
    one ("Converted Mana Cost (Obsolete)" keeps its name only while no current entry claims
    it), then the older term, whatever order the database returns rows in."""
    out: dict[str, GlossaryName] = {}
    rows = GlossaryVersion.objects.as_of(date).values_list(
        "id", "term_id", "term__slug", "headword", "aliases"
    )
    rows = sorted(rows, key=lambda r: (r[3].rstrip().endswith("(Obsolete)"), r[1], r[0]))
    for vid, term_id, slug, headword, aliases in rows:
        entry = GlossaryName(term_id, slug, vid, headword)
        for name in [headword, *alias_list(aliases)]:
            out.setdefault(glossary_key(name), entry)
    return out


def glossary_citations(version_ids: Iterable[int]) -> dict[int, list[str]]:
    """The rule numbers each glossary version cites, each once, in reading order (one query)."""
    out: dict[int, list[str]] = {}
    for vid, target in (
        Reference.objects.filter(glossary_version_id__in=list(version_ids))
        .order_by("glossary_version_id", "start")
        .values_list("glossary_version_id", "target")
    ):
        if target not in out.setdefault(vid, []):
            out[vid].append(target)
    return out


def vocabulary_pairs() -> list[tuple[str, str]]:
    """The (English, French) pairs search may use: the terms pages show (checked, curated or
    with enough agreeing cards, verified or not). A left-out term (too few agreeing cards, a
    partial mined fragment such as "air" for Airbend) would send French queries to the wrong
    English rules, so it waits for a maintainer like on the pages."""
    return list(VocabularyTerm.objects.shown().values_list("en", "fr"))
