"""JSON API for the rules: releases, a rule in any release, the glossary (django-ninja).

Errors are JSON with a message and the right status (404 unknown number or release, 400
malformed date), never 500.
"""

from __future__ import annotations

import datetime as dt

from django.http import HttpRequest
from django.urls import reverse
from ninja import Query, Router, Schema
from ninja.errors import HttpError
from pydantic import Field

from config import languages
from kb import selectors
from kb.crtext.numbers import is_number, kind_of, parent_of
from kb.french.status import FrenchText, attach_examples, french_states
from kb.history import diff_between, diff_overview
from kb.history import rule_history as history_of
from kb.models import Reference, Release
from kb.web.api_types import (
    SOURCE_LANGUAGE,
    ErrorOut,
    LanguageCode,
    ReleaseToken,
    resolve_release,
)
from kb.web.entries import existing_numbers, rendered_glossary
from kb.web.rendering import Span

router = Router(tags=["rules"])


class ReleaseOut(Schema):
    effective_date: dt.date
    set_name: str
    set_code: str
    counts: dict[str, int]
    url: str
    upcoming: bool = Field(
        description="Loaded before its effective date: readable by its date, not in force yet "
        "(`current` is the release in force today)"
    )


class ResolvedTarget(Schema):
    number: str
    exists: bool
    url: str | None


class ReferenceOut(Schema):
    text: str
    start: int
    end: int
    example: int | None
    target: str
    target_end: str
    resolved: list[ResolvedTarget]


class ChildOut(Schema):
    number: str
    kind: str
    text: str
    url: str


class LastChanged(Schema):
    version_since: dt.date
    wording_since: dt.date
    change: str


class ExampleDiffOut(Schema):
    change: str  # added, removed, reworded
    diff: str


class FrenchOut(Schema):
    """The French text of a rule and where it comes from (kb.french.status)."""

    text: str
    status: str  # official, unofficial, reviewed
    translates: dt.date | None  # the English release the French translates
    stale: bool  # the English changed since (typography-only changes do not count)
    english_changed_in: dt.date | None  # the first release whose English differs since
    diff: str | None  # HTML word diff (<del>, <ins>) of that English to the English shown
    # The examples' changes since that English: added, removed or reworded, each with its
    # HTML word diff (empty unless stale).
    example_diffs: list[ExampleDiffOut]


class RuleOut(Schema):
    number: str
    kind: str
    release: ReleaseOut
    lang: str
    text: str
    text_lang: str
    text_en: str
    french: FrenchOut | None
    french_text_loaded: bool
    examples: list[str]
    references: list[ReferenceOut]
    parent: str | None
    children: list[ChildOut]
    lineage: str
    last_changed: LastChanged
    url: str
    pinned_url: str


class TermOut(Schema):
    term: str
    slug: str
    headword: str
    aliases: list[str]
    obsolete: bool
    text: str
    references: list[ReferenceOut]
    url: str


def _release_out(release: Release, request: HttpRequest) -> ReleaseOut:
    return ReleaseOut(
        effective_date=release.effective_date,
        set_name=release.set_name_en or "",
        set_code=release.set_code,
        counts=release.counts,
        url=request.build_absolute_uri(
            reverse("kb:contents", args=[release.effective_date.isoformat()])
        ),
        upcoming=release.effective_date > selectors.today(),
    )


def _references(
    refs: list[Reference], text_of: dict[int | None, str], exists: set[str], url: callable
) -> list[ReferenceOut]:
    out = []
    for ref in refs:
        targets = [ref.target] + ([ref.target_end] if ref.target_end else [])
        out.append(
            ReferenceOut(
                text=text_of[ref.example_position][ref.start : ref.end],
                start=ref.start,
                end=ref.end,
                example=ref.example_position,
                target=ref.target,
                target_end=ref.target_end,
                resolved=[
                    ResolvedTarget(
                        number=t, exists=t in exists, url=url(t) if t in exists else None
                    )
                    for t in targets
                ],
            )
        )
    return out


@router.get("/releases", response=list[ReleaseOut], summary="Every release, oldest first")
def releases(request: HttpRequest) -> list[ReleaseOut]:
    """Every release loaded, those still to come included (marked `upcoming`)."""
    return [_release_out(r, request) for r in selectors.Releases.load().all]


@router.get(
    "/rules/{number}",
    response={200: RuleOut, 400: ErrorOut, 404: ErrorOut},
    summary="A rule as of a release",
)
def rule(
    request: HttpRequest,
    number: str,
    release: ReleaseToken = "current",
    lang: LanguageCode = SOURCE_LANGUAGE,
) -> RuleOut:
    """`release`: `current` (default), an effective date or any date (the release in force on
    it). `lang`: `en` or `fr` (French text where one is loaded, else English, said so).
    `text_en` is always the English; `french` is the French text with its provenance (status,
    the English release it translates, stale when the English changed since, with the diff),
    or null where no version of the rule up to that release has French."""
    lang = lang.value
    rel = resolve_release(release)
    date = rel.effective_date
    if not is_number(number):
        raise HttpError(404, f"{number!r} is not a rule number")
    entries = selectors.entries_for(number, date)
    main = next((e for e in entries if e.number == number), None)
    if main is None:
        raise HttpError(404, f"no rule {number} in the release of {date.isoformat()}")

    def url(n: str) -> str:
        return request.build_absolute_uri(reverse("kb:rule", args=[date.isoformat(), n]))

    version = main.version
    examples = selectors.examples_of(version)
    refs = selectors.references_of(version)
    spans = [Span(r.start, r.end, r.target, r.target_end) for r in refs]
    exists = existing_numbers(spans, date)
    source = f"text_{languages.SOURCE}"
    text_of: dict[int | None, str] = {None: getattr(version, source)}
    text_of.update({ex.position: getattr(ex, source) for ex in examples})
    # The text in the language asked for where one is loaded, else the source's (said so).
    translated = lang != languages.SOURCE and bool(getattr(version, f"text_{lang}"))
    shown = f"text_{lang}" if translated else source
    french = french_states([version], date)[version.pk]
    attach_examples({version.pk: french})
    children = [e for e in entries if e is not main and parent_of(e.number) == number]
    if kind_of(number) == "section":
        children = [e for e in entries if e is not main]
    return RuleOut(
        number=number,
        kind=main.kind,
        release=_release_out(rel, request),
        lang=lang,
        text=getattr(version, shown),
        text_lang=lang if translated else languages.SOURCE,
        text_en=version.text_en,
        french=_french_out(french),
        french_text_loaded=bool(version.text_fr),
        examples=[getattr(ex, shown) or getattr(ex, source) for ex in examples],
        references=_references(refs, text_of, exists, url),
        parent=parent_of(number),
        children=[
            ChildOut(number=c.number, kind=c.kind, text=c.text, url=url(c.number)) for c in children
        ],
        lineage=version.lineage.key,
        last_changed=LastChanged(
            version_since=version.valid_from,
            wording_since=version.wording_since,
            change=version.change,
        ),
        url=request.build_absolute_uri(
            reverse("kb:rule", args=[release, number])
            if release != "current"
            else reverse("kb:current_rule", args=[number])
        ),
        pinned_url=url(number),
    )


def _french_out(french: FrenchText) -> FrenchOut | None:
    """The `french` object of a rule answer (null where no French text exists up to the
    release asked: a stale one from an earlier version is given, marked stale)."""
    if french.missing:
        return None
    return FrenchOut(
        text=french.text,
        status=french.status,
        translates=french.translates,
        stale=french.stale,
        english_changed_in=french.english_changed_in,
        diff=str(french.diff) if french.stale else None,
        example_diffs=[
            ExampleDiffOut(change=change, diff=str(diff)) for change, diff in french.example_diffs
        ],
    )


@router.get(
    "/glossary",
    response={200: list[TermOut], 400: ErrorOut, 404: ErrorOut},
    summary="The glossary of a release",
)
def glossary(request: HttpRequest, release: ReleaseToken = "current") -> list[TermOut]:
    rel = resolve_release(release)
    date = rel.effective_date

    def url(n: str) -> str:
        return request.build_absolute_uri(reverse("kb:rule", args=[date.isoformat(), n]))

    terms = rendered_glossary(date, url)
    refs_by_version = selectors.glossary_references(t.version.pk for t in terms)
    spans = [
        Span(r.start, r.end, r.target, r.target_end)
        for refs in refs_by_version.values()
        for r in refs
    ]
    exists = existing_numbers(spans, date)
    return [
        TermOut(
            term=t.version.alias_list[0] if t.version.alias_list else t.headword,
            slug=t.slug,
            headword=t.headword,
            aliases=t.version.alias_list,
            obsolete=t.version.obsolete,
            text=t.version.text_en,
            references=_references(
                refs_by_version.get(t.version.pk, []), {None: t.version.text_en}, exists, url
            ),
            url=request.build_absolute_uri(
                reverse("kb:glossary_term", args=[date.isoformat(), t.slug])
            ),
        )
        for t in terms
    ]


class HistoryItemOut(Schema):
    effective_date: dt.date
    set_name: str
    number: str
    kinds: list[str]
    previous_number: str
    previous_until: dt.date | None
    text: str | None
    examples: list[str]
    url: str | None


class HistoryOut(Schema):
    number: str
    release: ReleaseOut
    lineage: str
    items: list[HistoryItemOut]


@router.get(
    "/rules/{number}/history",
    response={200: HistoryOut, 400: ErrorOut, 404: ErrorOut},
    summary="Every version of a rule, newest first",
)
def rule_history(
    request: HttpRequest, number: str, release: ReleaseToken = "current"
) -> HistoryOut:
    """`number` is read in `release` (current by default); the history follows the rule's
    lineage through every renumbering. `kinds`: new, moved, wording, examples, reference,
    typography, removed."""
    rel = resolve_release(release)
    version = selectors.rule_version(number, rel.effective_date) if is_number(number) else None
    if version is None:
        raise HttpError(404, f"no rule {number} in the release of {rel.effective_date}")
    releases = selectors.Releases.load()
    texts = selectors.lineage_versions(version)
    items = []
    for item in history_of(version.lineage_id, releases):
        v = texts.get(item.version.pk) if item.version else None
        items.append(
            HistoryItemOut(
                effective_date=item.date,
                set_name=(item.release.set_name_en or "") if item.release else "",
                number=item.number,
                kinds=item.kinds,
                previous_number=item.previous_number,
                previous_until=item.previous_until.effective_date if item.previous_until else None,
                text=v.text_en if v and item.kinds != ["removed"] else None,
                examples=[e.text_en for e in v.examples.all()] if v else [],
                url=request.build_absolute_uri(
                    reverse("kb:rule", args=[item.date.isoformat(), item.number])
                )
                if item.release and item.kinds != ["removed"]
                else None,
            )
        )
    return HistoryOut(
        number=number,
        release=_release_out(rel, request),
        lineage=version.lineage.key,
        items=items,
    )


class DiffItemOut(Schema):
    status: str
    kinds: list[str]
    moved: bool
    noise: bool
    lineage: str
    old_number: str
    new_number: str
    section: str
    chapter: str
    old_text: str | None
    new_text: str | None
    url: str


class TermDiffOut(Schema):
    status: str
    kinds: list[str]
    noise: bool
    slug: str
    old_headword: str
    new_headword: str


class DiffSummaryOut(Schema):
    """The diff page's headline: moves with their wording unchanged are `renumbered`,
    folded into `blocks` of consecutive rules shifted by the same step."""

    reworded: int
    added: int
    removed: int
    renumbered: int
    blocks: int
    noise: int
    glossary: int


class DiffOut(Schema):
    old: ReleaseOut
    new: ReleaseOut
    counts: dict[str, int]
    summary: DiffSummaryOut
    items: list[DiffItemOut]
    glossary: list[TermDiffOut]


def _diff_page_query(page: tuple[str, int] | None) -> str:
    """The page of a sectioned diff that shows an item: its section, and its page if the
    section has more than one."""
    if page is None:
        return ""
    section, number = page
    return f"?section={section}" + (f"&page={number}" if number > 1 else "")


@router.get(
    "/diff",
    response={200: DiffOut, 400: ErrorOut, 404: ErrorOut},
    summary="What changed between any two releases",
)
def diff(
    request: HttpRequest,
    from_: ReleaseToken = Query(..., alias="from"),  # noqa: B008 - ninja names it so
    to: ReleaseToken = "current",
    section: str = "",
    noise: bool = True,
) -> DiffOut:
    """Rules matched by lineage: `status` added, removed, changed or moved; `kinds` wording,
    examples, reference, typography; `noise` marks reference- or typography-only changes.
    `section` (1-9) limits the items; `noise=false` leaves noise out of `items`."""
    result = diff_between(resolve_release(from_), resolve_release(to))
    a, b = result.old, result.new
    items = [i for i in result.items if not section or i.section == section]
    if not noise:
        items = [i for i in items if not i.noise]
    ids = {i.old_version for i in items if i.old_version} | {
        i.new_version for i in items if i.new_version
    }
    texts = selectors.version_texts(ids)
    keys = selectors.lineage_keys(i.lineage_id for i in items)
    b_iso = b.effective_date.isoformat()
    a_iso = a.effective_date.isoformat()
    pages = result.item_pages()
    overview = diff_overview(result)
    return DiffOut(
        old=_release_out(a, request),
        new=_release_out(b, request),
        counts=overview.counts,
        summary=DiffSummaryOut(
            **{k: getattr(overview.summary, k) for k in DiffSummaryOut.model_fields}
        ),
        items=[
            DiffItemOut(
                status=i.status,
                kinds=i.kinds,
                moved=i.moved,
                noise=i.noise,
                lineage=keys[i.lineage_id],
                old_number=i.old_number,
                new_number=i.new_number,
                section=i.section,
                chapter=i.chapter,
                old_text=texts.get(i.old_version) if i.old_version else None,
                new_text=texts.get(i.new_version) if i.new_version else None,
                url=request.build_absolute_uri(
                    reverse("kb:diff", args=[a_iso, b_iso])
                    + _diff_page_query(pages.get(i.lineage_id))
                    + f"#{i.anchor}"
                ),
            )
            for i in items
        ],
        glossary=[
            TermDiffOut(
                status=t.status,
                kinds=t.kinds,
                noise=t.noise,
                slug=t.slug,
                old_headword=t.old_headword,
                new_headword=t.new_headword,
            )
            for t in result.terms
        ],
    )
