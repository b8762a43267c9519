"""Rule and glossary texts as HTML for a page or the API: their citations resolved to the
numbers that exist in the release read, their multi-word glossary terms linked, the French
beside where it exists (three queries for a page, whatever its size)."""

from __future__ import annotations

import datetime as dt
import re
from collections import defaultdict
from collections.abc import Callable, Iterable
from functools import lru_cache

from kb.archive.texts import analyse
from kb.french.status import FrenchText
from kb.models import (
    Example,
    GlossaryVersion,
    Reference,
    Release,
    RuleNumber,
    VocabularyTerm,
)
from kb.models.glossary import alias_list
from kb.selectors.glossary import Term, glossary_references

#: number -> URL in the release being read (the page decides: current or dated links).
from kb.selectors.rules import Entry
from kb.stamps import archive_generation
from kb.web.rendering import Span, TermIndex, TermLinker, render_text, term_linker

UrlFor = Callable[[str], str]


def render_entries(
    entries: Iterable[Entry],
    date: dt.date,
    url_for: UrlFor,
    terms: TermLinker | None = None,
    french: dict[int, FrenchText] | None = None,
) -> None:
    """Fill in the rendered HTML of entries and their examples (three queries in all).

    With `french` (kb.french.status states by version id), each entry also gets its French
    text rendered (`entry.fr`) with its examples, in the same three queries: the French
    examples are read with the English ones, and the numbers a current French text cites are
    resolved with the English citations (a stale French text cites the numbers of its own
    release, so its citations stay plain text)."""
    entries = list(entries)
    french = french or {}
    ids = [e.version.pk for e in entries]
    holders = {f.version_id for f in french.values() if f.version_id}
    examples: dict[int, list[Example]] = defaultdict(list)
    for ex in Example.objects.filter(version_id__in={*ids, *holders}).order_by(
        "version_id", "position"
    ):
        examples[ex.version_id].append(ex)
    spans: dict[tuple[int, int | None], list[Span]] = defaultdict(list)
    for ref in Reference.objects.filter(rule_version_id__in=ids, lang="en").order_by("start"):
        spans[(ref.rule_version_id, ref.example_position)].append(
            Span(ref.start, ref.end, ref.target, ref.target_end)
        )
    french_spans = {
        vid: [Span(r.start, r.end, r.target, r.target_end) for r in analyse(f.text).refs]
        for vid, f in french.items()
        if f.text and not f.stale
    }
    cited = [s for group in [*spans.values(), *french_spans.values()] for s in group]
    resolve = resolver(cited, date, url_for)
    for e in entries:
        # Titles of sections and chapters stay plain: a heading full of links reads badly.
        linker = terms if e.kind in ("rule", "subrule") else None
        e.html = render_text(e.text, spans[(e.version.pk, None)], resolve, linker)
        e.examples = [
            render_text(ex.text_en, spans[(e.version.pk, ex.position)], resolve, linker)
            for ex in examples[e.version.pk]
        ]
        fr = french.get(e.version.pk)
        if fr is None:
            continue
        e.fr = fr
        if fr.stale and fr.version_id:  # the examples' changes since, beside the text's
            fr.translated_examples = [ex.text_en for ex in examples[fr.version_id]]
            fr.shown_examples = [ex.text_en for ex in examples[e.version.pk]]
        if fr.text:
            fr.html = render_text(fr.text, french_spans.get(e.version.pk, []), resolve)
            fr.examples = [
                render_text(ex.text_fr, [], resolve) for ex in examples[fr.version_id] if ex.text_fr
            ]


def existing_numbers(spans: Iterable[Span], date: dt.date) -> set[str]:
    """Which of the numbers cited by `spans` exist in the release (one query)."""
    targets = {t for s in spans for t in (s.target, s.target_end) if t}
    if not targets:
        return set()
    return set(
        RuleNumber.objects.as_of(date).filter(number__in=targets).values_list("number", flat=True)
    )


def resolver(spans: Iterable[Span], date: dt.date, url_for: UrlFor) -> Callable[[str], str | None]:
    """A number -> URL function for the cited numbers that exist in the release."""
    existing = existing_numbers(spans, date)
    return lambda number: url_for(number) if number in existing else None


def rendered_glossary(date: dt.date, url_for: UrlFor, slug: str | None = None) -> list[Term]:
    """Glossary entries of a release (or the one with `slug`), rendered (three queries)."""
    qs = GlossaryVersion.objects.as_of(date).select_related("term")
    if slug is not None:
        qs = qs.filter(term__slug=slug)
    terms = [Term(v.term.slug, v) for v in qs]
    terms.sort(key=lambda t: (t.headword.casefold(), t.version.ordinal))
    spans = {
        vid: [Span(r.start, r.end, r.target, r.target_end) for r in refs]
        for vid, refs in glossary_references([t.version.pk for t in terms]).items()
    }
    resolve = resolver([s for g in spans.values() for s in g], date, url_for)
    for t in terms:
        t.html = render_text(t.version.text_en, spans.get(t.version.pk, []), resolve)
    french = VocabularyTerm.objects.shown().filter(
        glossary_term_id__in={t.version.term_id for t in terms}
    )
    by_term = {v.glossary_term_id: v for v in french.order_by("kind")}
    for t in terms:
        t.french = by_term.get(t.version.term_id)
    return terms


def glossary_linker(release: Release, term_url: Callable[[str], str]) -> TermLinker:
    """Links multi-word glossary terms of `release` found in texts (one query per release and
    archive state in each process: kept under the archive's stamp, which a maintainer's
    glossary edit moves in every process, where the release's import checksum did not)."""
    return term_linker(_term_index(release.effective_date, archive_generation()), term_url)


@lru_cache(maxsize=64)
def _term_index(date: dt.date, generation: str) -> TermIndex:
    """The release's multi-word glossary terms, by casefolded alias (`generation`, the
    archive's stamp, keys the cache: nothing needs to clear it)."""
    slugs: dict[str, str] = {}
    for slug, aliases in (
        GlossaryVersion.objects.as_of(date)
        .filter(obsolete=False)
        .values_list("term__slug", "aliases")
    ):
        for alias in alias_list(aliases):
            clean = " ".join(re.findall(r"[A-Za-z][A-Za-z’'-]*", alias)).casefold()
            if len(clean.split()) >= 2 and "[" not in alias:
                slugs.setdefault(clean, slug)
    return TermIndex.build(slugs)
