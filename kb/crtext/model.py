"""Plain dataclasses for a parsed CR document (no Django: the parser is reusable and fast)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from functools import lru_cache

from kb.crtext.numbers import Kind
from kb.crtext.typography import fold


@dataclass(frozen=True, slots=True)
class Reference:
    """A citation: `text[start:end]` names `target` (through `target_end` for a range)."""

    start: int
    end: int
    target: str
    target_end: str = ""


@dataclass(frozen=True, slots=True)
class Anomaly:
    """A defect of the source kept as data (never silently fixed away)."""

    kind: str
    line: int | None
    number: str = ""
    detail: str = ""


@dataclass(slots=True)
class Entry:
    """A numbered entry: section (6), chapter (602), rule (602.2) or subrule (602.2a)."""

    number: str
    kind: Kind
    text: str
    line: int
    examples: list[str] = field(default_factory=list)
    ordinal: int = 0  # >0 when the same number is printed again in one document


@dataclass(slots=True)
class GlossaryEntry:
    headword: str  # as printed, aliases and "(Obsolete)" included
    terms: list[str]  # the aliases, split on commas outside quotation marks
    text: str
    line: int
    obsolete: bool = False
    ordinal: int = 0

    @property
    def key(self) -> str:
        """The term's identity across releases: headword without "(Obsolete)", folded, casefolded.

        The whole headword, not its first alias: "Active Player, Nonactive Player Order" is a term
        of its own beside "Active Player".
        """
        return term_key(self.headword)


@dataclass(slots=True)
class Document:
    """A parsed CR document. The French document (kb.crtext.french_parser.FrenchDocument) is
    this one with an optional date and what a partial translation needs besides."""

    effective_date: dt.date
    title: str
    introduction: str
    contents: list[str]
    entries: list[Entry]
    glossary: list[GlossaryEntry]
    credits: str
    anomalies: list[Anomaly]
    source: str = ""

    def counts(self) -> dict[str, int]:
        """Counts in the conventions of shared/data/cr/en/expected_counts.csv."""
        out = {"sections": 0, "chapters": 0, "rules": 0, "subrules": 0, "examples": 0}
        for e in self.entries:
            out[e.kind + "s"] += 1
            out["examples"] += len(e.examples)
        out["glossary"] = len(self.glossary)
        return out


@lru_cache(maxsize=50_000)
def term_key(headword: str) -> str:
    """Normalised glossary key: typography folded, quotes dropped, casefolded."""
    bare = headword.removesuffix("(Obsolete)").strip()
    return fold(bare).replace('"', "").casefold()
