"""The query language users type, parsed into a small tree any backend can compile.

Supported: words, "quoted phrases", -word / -"phrase", a OR b, word*, kind:rule,
release:2019-01-25 (or current), lang:fr. Anything else is read as words: the parser never
fails, whatever it is given (unbalanced quotes, lone operators, control characters, 10,000
characters), because a search box must answer every input with a normal page.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from search import conf
from search.registry import kind_named

MAX_QUERY = 500  # characters read; the rest is ignored (and said so by the page)
MAX_ITEMS = 16
MAX_WORD = 64

_TOKEN_RE = re.compile(r'-?"[^"]*"?|\S+')
_FIELD_RE = re.compile(r"^(kind|release|lang):(.*)$", re.IGNORECASE)
_EDGE_PUNCT = "()[]{}<>,;!?¿¡«»“”\"'`~^|\\/=+&"


@dataclass(frozen=True)
class Word:
    text: str
    prefix: bool = False


@dataclass(frozen=True)
class Phrase:
    text: str


Item = Word | Phrase


@dataclass(frozen=True)
class Group:
    """Alternatives joined by OR; a query requires every group."""

    items: tuple[Item, ...]


@dataclass
class ParsedQuery:
    groups: list[Group] = field(default_factory=list)
    excluded: list[Item] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)
    release: str | None = None
    lang: str | None = None
    text: str = ""  # the query without operators and filters, for numbers and spelling
    truncated: bool = False
    ignored: list[str] = field(default_factory=list)  # filters not understood

    @property
    def empty(self) -> bool:
        return not self.groups


def clean(raw: str) -> tuple[str, bool]:
    """Normalised text (NFC, no control or format characters, single spaces) and whether it
    was cut to MAX_QUERY characters."""
    text = unicodedata.normalize("NFC", raw or "")
    text = "".join(
        " " if unicodedata.category(c)[0] in "CZ" else c for c in text if c not in "\u200b\ufeff"
    )
    text = " ".join(text.split())
    return text[:MAX_QUERY].strip(), len(text) > MAX_QUERY


def _word(token: str) -> Word | None:
    prefix = token.endswith("*")
    core = token.strip(_EDGE_PUNCT + "*").strip(".:-")
    if not core or not any(c.isalnum() for c in core):
        return None
    core = core[:MAX_WORD]
    return Word(core, prefix=prefix and len(core) >= 2)


def _phrase(token: str) -> Item | None:
    inner = " ".join(token.strip('-"').split())
    if not any(c.isalnum() for c in inner):
        return None
    if " " not in inner:
        return _word(inner)
    return Phrase(inner[: MAX_WORD * 4])


def _item(token: str) -> Item | None:
    return _phrase(token) if token.lstrip("-").startswith('"') else _word(token)


def parse(raw: str) -> ParsedQuery:
    """Parse what a user typed. Never raises."""
    text, truncated = clean(raw)
    query = ParsedQuery(truncated=truncated)
    free: list[str] = []
    pending_or = False
    for token in _TOKEN_RE.findall(text):
        m = _FIELD_RE.match(token)
        if m and _apply_filter(query, m.group(1).lower(), m.group(2)):
            continue
        if token == "OR":
            pending_or = bool(query.groups)
            continue
        # "-1/-1 counters", "-2": a sign, not an exclusion (nobody excludes a number).
        negated = token.startswith("-") and len(token) > 1 and not token[1].isdigit()
        item = _item(token[1:] if negated else token)
        if item is None:
            continue
        if negated:
            if len(query.excluded) < MAX_ITEMS:
                query.excluded.append(item)
            continue
        free.append(item.text)
        if pending_or and query.groups:
            last = query.groups.pop()
            query.groups.append(Group((*last.items, item)))
        elif len(query.groups) < MAX_ITEMS:
            query.groups.append(Group((item,)))
        pending_or = False
    query.text = " ".join(free)
    return query


def _apply_filter(query: ParsedQuery, name: str, value: str) -> bool:
    value = value.strip().strip('"').lower()
    if not value:
        return False
    if name == "kind":
        kinds = [kind_named(v) for v in value.split(",")]
        if all(kinds):
            query.kinds.extend(k for k in kinds if k and k not in query.kinds)
            return True
    elif name == "lang" and value in conf.codes():
        query.lang = value
        return True
    elif name == "release" and re.fullmatch(r"current|\d{4}-\d{2}-\d{2}", value):
        query.release = value
        return True
    query.ignored.append(f"{name}:{value}")
    return True


__all__ = ["Group", "Item", "ParsedQuery", "Phrase", "Word", "clean", "parse"]
