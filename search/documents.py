"""What the search engine indexes and returns: plain dataclasses, the same for every backend.

Apps build documents from their models (kb: rule versions with their examples, glossary
versions; rulings: cards and rulings) and never see a backend's own types.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import html
import json
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from functools import cache, cached_property


@dataclass(frozen=True, kw_only=True)
class SearchDocument:
    """One searchable thing. Versioned documents carry their validity interval
    [valid_from, valid_to) so that one index answers for every release.

    `group` is the unit re-indexed together (a rule lineage, a glossary term, a card): an edit
    re-indexes the documents of its group. `ref` is what the kind needs to build a link.
    Texts are by language code (the languages of settings.SEARCH_LANGUAGES; others are not
    indexed): titles (headings, terms, names), bodies, and extras (examples, type lines),
    which weigh least.
    """

    kind: str
    key: str
    group: str
    titles: Mapping[str, str] = field(default_factory=dict)
    bodies: Mapping[str, str] = field(default_factory=dict)
    extras: Mapping[str, str] = field(default_factory=dict)
    number: str = ""
    chapter: str = ""
    ref: str = ""
    label: str = ""
    date: dt.date | None = None
    valid_from: dt.date | None = None
    valid_to: dt.date | None = None
    lookup: bool = False  # found by its ref (SearchBackend.lookup), e.g. a glossary entry
    #: Documents sharing a collapse key are one result, the best-scored standing for the others
    #: (the same ruling printed on forty cards is one answer, not forty).
    collapse: str = ""

    @cached_property
    def stamp(self) -> str:
        """A hash of everything indexed: an id carrying it changes whenever the content does,
        so comparing id sets tells missing and stale documents apart without reading them.
        Kept once computed (a sync compares ids, then writes the same documents)."""
        # Not dataclasses.asdict: its deep copy was a tenth of a full index build.
        data = json.dumps(
            _without_empty({name: getattr(self, name) for name in _field_names()}),
            default=str,
            sort_keys=True,
            ensure_ascii=False,
        )
        return hashlib.blake2b(data.encode(), digest_size=6).hexdigest()

    @property
    def doc_id(self) -> str:
        return f"{self.kind}:{self.key}:{self.stamp}"

    @property
    def group_id(self) -> str:
        return f"{self.kind}:{self.group}"


@cache
def _field_names() -> tuple[str, ...]:
    """SearchDocument's fields, read once (dataclasses.fields() per document cost a tenth of
    the stamps' time)."""
    return tuple(f.name for f in fields(SearchDocument))


def _without_empty(data: dict) -> dict:
    """Empty texts of a language do not change a document's stamp."""
    for name in ("titles", "bodies", "extras"):
        data[name] = {code: text for code, text in data[name].items() if text}  # a copy
    return data


@dataclass(kw_only=True)
class Hit:
    """One result, with highlighted snippets (safe HTML: the text escaped, matches in <mark>)."""

    kind: str
    key: str
    ref: str
    titles: dict[str, str]  # by language code
    number: str
    chapter: str
    label: str
    date: dt.date | None
    valid_from: dt.date | None
    valid_to: dt.date | None
    score: float
    snippets: dict[str, str] = field(default_factory=dict)  # by language code
    matched: tuple[str, ...] = ()  # codes of the languages whose fields matched
    url: str = ""
    context: str = ""  # e.g. the rule's chapter heading, filled by the service
    via: str = ""  # how a French query reached an English text (the vocabulary term)
    text: str = ""  # the start of the first language's body, plain text
    #: (ref, label) of the other matching documents of its collapse key, best first.
    also: tuple[tuple[str, str], ...] = ()

    def title(self, lang: str) -> str:
        return self.titles.get(lang, "")

    def snippet(self, lang: str) -> str:
        return self.snippets.get(lang, "")


@dataclass
class Results:
    hits: list[Hit]
    total: int
    page: int
    per_page: int
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // self.per_page))


#: The length of a snippet shown without marks (a text no word of the query is in).
SNIPPET_CHARS = 300


def plain_snippet(text: str) -> str:
    """A text's opening as safe HTML, cut at a word: what every backend shows of a hit whose
    texts hold no word of the query to mark."""
    if len(text) > SNIPPET_CHARS:
        text = text[:SNIPPET_CHARS].rsplit(" ", 1)[0] + " …"
    return html.escape(text)


@dataclass(frozen=True)
class Passage:
    """A text the semantic retriever embeds (search.semantic): the current wording of a rule
    or a glossary entry. `key` is what its kind's lookup finds the document by (a rule's
    number, a glossary entry's ref), so a semantic answer becomes an ordinary Hit."""

    kind: str
    key: str
    text: str


@dataclass(frozen=True)
class Example:
    """A question a passage answers, in the words a player would use ("my creature got
    bounced in response, does my aura fizzle?"): the retriever learns from these how players
    ask (search.semantic.adapter) and counts a question near one of them as near its passage.
    `kind` and `key` name the passage (Passage.kind, Passage.key)."""

    kind: str
    key: str
    text: str
