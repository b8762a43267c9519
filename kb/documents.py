"""kb's search documents: one per rule version and number held (with its examples), one per
glossary version; each carries its validity interval so one index answers for every release.

A rule version is cut where its number changed (a renumbering keeps the text but not the
number), so a document has one text and one number over its whole interval: about 16,000
documents for the 101 releases, not 101 copies of 3,000 rules.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Collection, Iterator
from urllib.parse import urlencode

from django.urls import NoReverseMatch, reverse
from django.utils.translation import gettext_lazy as _

from config.languages import CODES, SOURCE
from kb.example_questions import rule_examples
from kb.models import (
    Example,
    GlossaryTerm,
    GlossaryVersion,
    Lineage,
    RuleNumber,
    RuleVersion,
    VocabularyTerm,
)
from kb.models.glossary import alias_list
from kb.models.rules import is_heading
from kb.models.versioning import valid_on
from search.analysis import plain
from search.documents import Hit, Passage, SearchDocument
from search.registry import DocumentType, register


def _overlap(
    a: tuple[dt.date, dt.date | None], b: tuple[dt.date, dt.date | None]
) -> tuple[dt.date, dt.date | None] | None:
    start = max(a[0], b[0])
    ends = [e for e in (a[1], b[1]) if e is not None]
    end = min(ends) if ends else None
    return (start, end) if end is None or start < end else None


def _french_terms(field: str, ids: Collection[int] | None) -> dict[int, list[str]]:
    """French names of the rules terms (the vocabulary is an English/French table): only the
    terms pages show (VocabularyTerm.objects.shown()); a left-out mined term would title a
    rule with a wrong or partial French word ("air" for Airbend) that French queries match."""
    qs = VocabularyTerm.objects.shown().exclude(**{f"{field}__isnull": True})
    if ids is not None:
        qs = qs.filter(**{f"{field}__in": ids})
    out: dict[int, list[str]] = defaultdict(list)
    for owner, fr in qs.order_by("id").values_list(field, "fr"):
        if fr and fr not in out[owner]:
            out[owner].append(fr)
    return out


def rule_documents(groups: Collection[str] | None) -> Iterator[SearchDocument]:
    """Documents of these lineages (None: every lineage)."""
    lineages = None if groups is None else [int(g) for g in groups if g.isdigit()]
    versions = RuleVersion.objects.order_by("lineage_id", "valid_from")
    numbers = RuleNumber.objects.order_by("lineage_id", "valid_from")
    examples = Example.objects.order_by("version_id", "position")
    if lineages is not None:
        versions = versions.filter(lineage_id__in=lineages)
        numbers = numbers.filter(lineage_id__in=lineages)
        examples = examples.filter(version__lineage_id__in=lineages)
    held: dict[int, list[dict]] = defaultdict(list)
    for n in numbers.values(
        "id", "lineage_id", "number", "kind", "chapter", "valid_from", "valid_to"
    ):
        held[n["lineage_id"]].append(n)
    texts: dict[int, list[str]] = defaultdict(list)
    for version_id, text in examples.values_list("version_id", f"text_{SOURCE}"):
        texts[version_id].append(text)
    french = _french_terms("lineage_id", lineages)
    rows = versions.values("id", "lineage_id", *_texts("text"), "valid_from", "valid_to")
    for v in rows.iterator(chunk_size=2000):
        for n in held[v["lineage_id"]]:
            span = _overlap((v["valid_from"], v["valid_to"]), (n["valid_from"], n["valid_to"]))
            if span is None:
                continue
            text = v[f"text_{SOURCE}"] or ""
            yield SearchDocument(
                kind="rule",
                key=f"{v['id']}-{n['id']}",
                group=str(v["lineage_id"]),
                titles={
                    SOURCE: text if is_heading(n["kind"], text) else "",
                    "fr": " · ".join(french.get(v["lineage_id"], [])),
                },
                bodies=_by_language(v, "text"),
                extras={SOURCE: "\n".join(texts.get(v["id"], []))},
                number=n["number"],
                chapter=n["chapter"],
                ref=n["number"],
                valid_from=span[0],
                valid_to=span[1],
            )


def _says_nothing_more(alias: str, headword: str) -> bool:
    """An alias whose words the headword already holds ("Legend" beside "Legend
    (Obsolete)"): shown in the title it would read "Legend (Obsolete) (Legend)", and the
    headword finds it anyway."""
    return set(plain(alias).split()) <= set(plain(headword).split())


def glossary_documents(groups: Collection[str] | None) -> Iterator[SearchDocument]:
    """Documents of these glossary terms (None: every term)."""
    terms = None if groups is None else [int(g) for g in groups if g.isdigit()]
    qs = GlossaryVersion.objects.order_by("term_id", "valid_from", "ordinal")
    if terms is not None:
        qs = qs.filter(term_id__in=terms)
    slugs = dict(
        (
            GlossaryTerm.objects.filter(id__in=terms) if terms is not None else GlossaryTerm.objects
        ).values_list("id", "slug")
    )
    french = _french_terms("glossary_term_id", terms)
    fields = (
        "id",
        "term_id",
        "headword",
        "aliases",
        *_texts("text"),
        "valid_from",
        "valid_to",
    )
    for g in qs.values(*fields).iterator(chunk_size=2000):
        aliases = [a for a in alias_list(g["aliases"]) if not _says_nothing_more(a, g["headword"])]
        yield SearchDocument(
            kind="glossary",
            key=str(g["id"]),
            group=str(g["term_id"]),
            titles={
                SOURCE: g["headword"] + (f" ({', '.join(aliases)})" if aliases else ""),
                "fr": " · ".join(french.get(g["term_id"], [])),
            },
            bodies=_by_language(g, "text"),
            ref=slugs.get(g["term_id"], ""),
            lookup=True,
            valid_from=g["valid_from"],
            valid_to=g["valid_to"],
        )


def _current_date() -> dt.date | None:
    """The effective date of the release in force today (kb.models.releases.today)."""
    from kb.models import Release
    from kb.models.releases import today

    release = Release.objects.in_force_on(today())
    return release.effective_date if release else None


def rule_passages() -> list[Passage]:
    """The current release's rules for the semantic retriever, each prefixed with the heading
    it sits under ("Trample. With trample, …", "Casting Spells. 601.2a's text"): a subrule
    rarely names its topic, and the heading is what a question is about. Bare headings are
    passages too (a question about a keyword as a whole finds 702.19)."""
    date = _current_date()
    if date is None:
        return []
    numbers = dict(RuleNumber.objects.filter(valid_on(date)).values_list("lineage_id", "number"))
    texts = dict(
        RuleVersion.objects.filter(valid_on(date)).values_list("lineage_id", f"text_{SOURCE}")
    )
    by_number = {n: (texts.get(lineage) or "").strip() for lineage, n in numbers.items()}
    out = []
    for number, text in sorted(by_number.items()):
        if not text:
            continue
        heading = _heading_of(number, by_number)
        prefix = f"{heading}. " if heading and heading != text else ""
        out.append(Passage(kind="rule", key=number, text=prefix + text))
    return out


def _heading_of(number: str, texts: dict[str, str]) -> str:
    """The title a rule sits under: its own rule's when that is a bare heading ("702.19"
    "Trample" for 702.19c), else its section's ("601" "Casting Spells" for 601.2a)."""
    rule = number.rstrip("abcdefghijklmnopqrstuvwxyz") if "." in number else number
    rule_text = texts.get(rule, "")
    if rule != number and rule_text and is_heading("rule", rule_text):
        return rule_text.rstrip(".")
    section = number.split(".")[0]
    return texts.get(section, "").rstrip(".")


def glossary_passages() -> list[Passage]:
    """The current release's glossary entries: "Headword: definition"."""
    date = _current_date()
    if date is None:
        return []
    slugs = dict(GlossaryTerm.objects.values_list("id", "slug"))
    rows = GlossaryVersion.objects.filter(valid_on(date)).order_by("term_id", "ordinal")
    out = []
    for term_id, headword, text in rows.values_list("term_id", "headword", f"text_{SOURCE}"):
        if slugs.get(term_id) and text:
            out.append(Passage(kind="glossary", key=slugs[term_id], text=f"{headword}: {text}"))
    return out


def passages_version() -> str:
    """The archive's stamp and today's release: the passages change with either."""
    from kb.stamps import archive_generation

    return f"{archive_generation()}|{_current_date()}"


def _texts(field: str) -> list[str]:
    """The translated columns of a field, one per language (modeltranslation's `text_fr`)."""
    return [f"{field}_{code}" for code in CODES]


def _by_language(row: dict, field: str) -> dict[str, str]:
    return {code: row[f"{field}_{code}"] or "" for code in CODES}


def rule_url(hit: Hit, release: str | None) -> str:
    """The hit's rule page. An index built before numbers were bounded (kb.crtext.limits) may hold
    a "number" no URL fits: that hit links to a search for it rather than failing the page."""
    try:
        if release is None:
            return reverse("kb:current_rule", args=[hit.ref])
        return reverse("kb:rule", args=[release, hit.ref])
    except NoReverseMatch:
        return f"{reverse('kb:search')}?{urlencode({'q': hit.ref})}"


def glossary_url(hit: Hit, release: str | None) -> str:
    return reverse("kb:glossary_term", args=[release or "current", hit.ref])


def _vocabulary_lineage(term: VocabularyTerm) -> list[str]:
    return [str(term.lineage_id)] if term.lineage_id else []


def _vocabulary_glossary(term: VocabularyTerm) -> list[str]:
    return [str(term.glossary_term_id)] if term.glossary_term_id else []


def register_documents() -> None:
    """Called from kb's AppConfig.ready: edits made in the admin re-index their group."""
    register(
        DocumentType(
            kind="rule",
            label=_("rules"),
            documents=rule_documents,
            url=rule_url,
            versioned=True,
            aliases=("rules", "regle", "règle"),
            order=10,
            passages=rule_passages,
            passages_version=passages_version,
            examples=rule_examples,
            models={
                Lineage: lambda lineage: [str(lineage.pk)],
                RuleVersion: lambda v: [str(v.lineage_id)],
                Example: lambda e: [str(e.version.lineage_id)],
                RuleNumber: lambda n: [str(n.lineage_id)],
                VocabularyTerm: _vocabulary_lineage,
            },
        )
    )
    register(
        DocumentType(
            kind="glossary",
            label=_("glossary"),
            documents=glossary_documents,
            url=glossary_url,
            versioned=True,
            aliases=("glossaire",),
            order=20,
            passages=glossary_passages,
            passages_version=passages_version,
            models={
                GlossaryTerm: lambda t: [str(t.pk)],
                GlossaryVersion: lambda g: [str(g.term_id)],
                VocabularyTerm: _vocabulary_glossary,
            },
        )
    )
