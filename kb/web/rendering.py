"""Rule and glossary texts to HTML: references as links resolved in the release being read,
symbols drawn, everything else escaped.

References are stored as spans with target numbers; here they meet the release being viewed:
a 2024 text that cites 701.16a links to what 701.16a was in 2024. A target that does not exist
in that release stays readable text marked as such, never a broken link.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from html import escape  # the stdlib one: Django's lazy-aware wrapper costs 3x per call

from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from kb.web.symbols import SYMBOL_RE, symbol_html

#: number -> URL of that number in the release being read, or None if it does not exist there.
Resolver = Callable[[str], str | None]
#: text -> (start, end, html) marks for glossary terms to link in it.
TermLinker = Callable[[str], list[tuple[int, int, str]]]


@dataclass(frozen=True, slots=True)
class Span:
    start: int
    end: int
    target: str
    target_end: str = ""


_DASHES = "–—-"


def _link(text: str, number: str, resolve: Resolver) -> str:
    url = resolve(number)
    if url is None:
        return (
            f'<span class="ref-missing" title="{escape(_("not in this release"))}">'
            f"{escape(text)}</span>"
        )
    return f'<a class="ref" href="{escape(url)}">{escape(text)}</a>'


def _reference_html(text: str, span: Span, resolve: Resolver) -> str:
    cited = text[span.start : span.end]
    if span.target_end:
        for i, ch in enumerate(cited):
            if ch in _DASHES and i > 0:
                return (
                    _link(cited[:i], span.target, resolve)
                    + escape(ch)
                    + _link(cited[i + 1 :], span.target_end, resolve)
                )
    return _link(cited, span.target, resolve)


def render_text(
    text: str, spans: Iterable[Span], resolve: Resolver, terms: TermLinker | None = None
) -> SafeString:
    """Escape `text`, turning reference spans into links, {symbols} into icons and (if given)
    glossary terms into links to their entries."""
    marks: list[tuple[int, int, str]] = [
        (s.start, s.end, _reference_html(text, s, resolve)) for s in spans
    ]
    marks.extend((m.start(), m.end(), symbol_html(m.group(1))) for m in SYMBOL_RE.finditer(text))
    if terms is not None:
        marks.extend(terms(text))
    marks.sort()
    out: list[str] = []
    pos = 0
    for start, end, html in marks:
        if start < pos:  # overlapping marks: the earlier one wins
            continue
        out.append(escape(text[pos:start]))
        out.append(html)
        pos = end
    out.append(escape(text[pos:]))
    return mark_safe("".join(out).replace("\n", "<br>"))


_WORD_RE = re.compile(r"[A-Za-z][A-Za-z’'-]*")


@dataclass(frozen=True, eq=False)
class TermIndex:
    """Multi-word glossary terms of a release, by first word: word -> [(words, slug)],
    longest first. Indexes are compared by identity (one per release and process)."""

    by_first: dict[str, list[tuple[tuple[str, ...], str]]]

    @classmethod
    def build(cls, aliases: dict[str, str]) -> TermIndex:
        by_first: dict[str, list[tuple[tuple[str, ...], str]]] = {}
        for alias, slug in aliases.items():
            words = tuple(alias.split())
            by_first.setdefault(words[0], []).append((words, slug))
        for candidates in by_first.values():
            candidates.sort(key=lambda c: -len(c[0]))
        return cls(by_first)

    def find(self, text: str) -> tuple[tuple[int, int, str], ...]:
        """Every term occurrence in `text` as (start, end, slug); cached per text."""
        return _find_terms(self, text)


def _singular(word: str) -> tuple[str, ...]:
    if word.endswith("ies"):
        return word, word[:-3] + "y"
    if word.endswith("es"):
        return word, word[:-2], word[:-1]
    if word.endswith("s"):
        return word, word[:-1]
    return (word,)


def term_linker(index: TermIndex, url: Callable[[str], str]) -> TermLinker:
    """Link the first occurrence of each multi-word glossary term, once per page.

    One linker serves one page: a term linked in one entry is not linked again further down,
    so the text does not drown in links. Matching walks the words of the text and looks up
    2- to n-word sequences (plurals folded), which stays fast on a 770-entry chapter.
    """
    seen: set[str] = set()

    def link(text: str) -> list[tuple[int, int, str]]:
        marks = []
        for start, end, slug in index.find(text):
            if slug in seen:
                continue
            seen.add(slug)
            marks.append(
                (
                    start,
                    end,
                    f'<a class="term" href="{escape(url(slug))}">{escape(text[start:end])}</a>',
                )
            )
        return marks

    return link


@lru_cache(maxsize=100_000)
def _find_terms(index: TermIndex, text: str) -> tuple[tuple[int, int, str], ...]:
    words = [(m.start(), m.end(), m.group().casefold()) for m in _WORD_RE.finditer(text)]
    found: list[tuple[int, int, str]] = []
    i = 0
    while i < len(words):
        for alias, slug in index.by_first.get(words[i][2], ()):
            n = len(alias)
            if (
                i + n <= len(words)
                and all(words[i + k][2] == alias[k] for k in range(1, n - 1))
                and alias[-1] in _singular(words[i + n - 1][2])
            ):
                found.append((words[i][0], words[i + n - 1][1], slug))
                i += n - 1
                break
        i += 1
    return tuple(found)
