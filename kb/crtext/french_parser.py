"""Parse an official French Comprehensive Rules document ("Règles complètes").

The French document has the English numbered structure with French conventions: the date line
("Ces règles entrent en vigueur au 1er février 2010."), French headings (Introduction, Sommaire,
Glossaire, Crédits), "Exemple :" lines with a plain or non-breaking space before the colon,
« » quotes and non-breaking spaces before : ; ? !. The numbered entries are read by the English
parser's own code (same numbers, same defects), so the two languages line up entry by entry.

French documents reach us in worse shape than the English ones (extracted from PDF, quoted on
web pages): a number printed twice ("602.2a 2a"), a symbol lost in extraction ("le symbole
d'engagement ()", "avant les deux-points (."), an example cut short. Each is kept as printed and
reported as an anomaly with its line, never repaired here: a maintainer decides. A partial
document (some chapters, or one rule with its subrules) is accepted; the date line is optional
(the importer then infers or asks which English release it translates).
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from dataclasses import dataclass, field

from kb.crtext.decode import decode_bytes
from kb.crtext.errors import CRFormatError
from kb.crtext.limits import date_problem
from kb.crtext.model import Anomaly, Document, Entry
from kb.crtext.parser import CHAPTER_RE, FIRST_RULE_RE, SECTION_RE, Parser, paragraphs

FRENCH_MONTHS = {
    "janvier": 1,
    "fevrier": 2,
    "mars": 3,
    "avril": 4,
    "mai": 5,
    "juin": 6,
    "juillet": 7,
    "aout": 8,
    "septembre": 9,
    "octobre": 10,
    "novembre": 11,
    "decembre": 12,
}

#: Spaces a French text may hold: plain, non-breaking (U+00A0) and narrow non-breaking (U+202F).
_SP = r"[ \t\u00a0\u202f]"
_DATE_RE = re.compile(
    rf"en{_SP}+vigueur{_SP}+(?:au|à{_SP}+compter{_SP}+du|à{_SP}+partir{_SP}+du|le|dès{_SP}+le)"
    rf"{_SP}+(\d{{1,2}})(?:{_SP}*(?:er|ER|re))?{_SP}+([^\W\d_]+){_SP}+(\d{{4}})",
    re.IGNORECASE,
)
_ENGLISH_DATE_RE = re.compile(r"\beffective as of [A-Z][a-z]+ \d{1,2}, \d{4}")
_EXAMPLE_RE = re.compile(rf"^Exemples?{_SP}*:{_SP}*")
_HEADINGS = {
    "introduction": "Introduction",
    "sommaire": "Sommaire",
    "glossaire": "Glossaire",
    "credits": "Crédits",
}
_DATE_SEARCH_LINES = 60

# Anomaly detectors of the text of one entry (kept as printed; reported with the line).
_LOST_SYMBOL_RE = re.compile(rf"\({_SP}*\)|\({_SP}*[.,;:]")
_ENDS_SENTENCE = (".", "!", "?", "»", ")", "…", '"', "”", ":")
_CUT_ENDINGS = ("«", "(", ",", "–", "—")


@dataclass(slots=True)
class FrenchDocument(Document):
    """A parsed French document: the English `Document` (its fields and `counts()`), with an
    optional date and the chapters it holds.

    `effective_date` is None when the document has no date line (the importer then infers or
    asks which English release it translates); `date_line` is that line's number. `chapters`
    lists the chapters the document holds (a partial document has only some).
    """

    effective_date: dt.date | None  # narrowed to a date in English: optional in French only
    date_line: int | None = None
    chapters: list[str] = field(default_factory=list)


def parse_french_bytes(data: bytes, *, source: str = "") -> FrenchDocument:
    """Decode (UTF-8, cp1252, UTF-16…) and parse a French CR text file."""
    return parse_french_text(decode_bytes(data, source=source), source=source)


def parse_french_text(text: str, *, source: str = "") -> FrenchDocument:
    """Parse French CR text (line ends normalised to "\\n")."""
    try:
        return _FrenchParser(text.split("\n"), source).parse()
    except CRFormatError as exc:
        raise exc.with_source(source) from None


def parse_french_date(line: str) -> dt.date | None:
    """The date of a French date line ("… entrent en vigueur au 1er février 2010."), or None.

    Raises CRFormatError (without a line: the caller knows it) for an unknown month or an
    impossible date, so that a typo is not read as "no date".
    """
    m = _DATE_RE.search(line)
    if not m:
        return None
    month = FRENCH_MONTHS.get(_bare(m.group(2)))
    if month is None:
        raise CRFormatError(f"unknown French month {m.group(2)!r} in the date line")
    try:
        return dt.date(int(m.group(3)), month, int(m.group(1)))
    except ValueError as exc:
        raise CRFormatError(f"invalid effective date: {exc}") from None


def _bare(word: str) -> str:
    """Casefolded, accents removed: "Février", "FEVRIER" and "février" are one month."""
    decomposed = unicodedata.normalize("NFKD", word.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def heading_of(line: str) -> str | None:
    """The French heading a line is ("Glossaire", "Crédits"…), whatever its case and accents."""
    return _HEADINGS.get(_bare(line.strip()))


class _FrenchParser(Parser):
    """The English parser's entries, glossary and headings machinery with the French
    conventions: "Exemple :", headings in any case and accents, an optional date line and a
    document that may hold only part of the rules."""

    example_re = _EXAMPLE_RE

    def is_heading(self, line: str, heading: str) -> bool:
        """Headings in any case and accents: "GLOSSAIRE" is "Glossaire", "Credits" "Crédits"."""
        return heading_of(line) == heading

    def parse(self) -> FrenchDocument:
        """The whole document; what a partial document lacks (date, headings) is left empty."""
        date_idx, date = self._french_date()
        first_rule = next(
            (i for i, line in enumerate(self.lines) if FIRST_RULE_RE.match(line.strip())), None
        )
        if first_rule is None:
            raise CRFormatError(
                "not a Comprehensive Rules document: no numbered rules found "
                "(a line such as « 100.1. … »)",
                line=1,
            )
        self._refuse_english(first_rule)
        body_start = self._french_body_start(first_rule)
        glossary_idx = self.heading_after("Glossaire", first_rule)
        credits_idx = self.heading_after("Crédits", glossary_idx or first_rule)
        body_end = next((i for i in (glossary_idx, credits_idx) if i is not None), len(self.lines))
        head_start = date_idx + 1 if date_idx is not None else 0
        contents_idx = self.heading_after("Sommaire", head_start - 1, body_start)
        intro_end = contents_idx if contents_idx is not None else body_start
        title = next(
            (
                line.strip()
                for line in self.lines[: date_idx if date_idx is not None else body_start]
                if line.strip()
            ),
            "",
        )
        introduction = paragraphs(
            self.lines[head_start:intro_end] if date_idx is not None else [],
            skip_heading="Introduction",
        )
        contents = (
            [line.strip() for line in self.lines[contents_idx + 1 : body_start] if line.strip()]
            if contents_idx is not None
            else []
        )
        entries = self.read_entries(body_start, body_end)
        glossary = (
            self.read_glossary(glossary_idx + 1, credits_idx or len(self.lines))
            if glossary_idx is not None
            else []
        )
        credits = paragraphs(self.lines[credits_idx + 1 :]) if credits_idx is not None else ""
        # A partial document has chapters without their section, or one rule without its
        # chapter: that is no defect (a subrule without its rule still is).
        anomalies = [a for a in self.anomalies if a.kind not in ("orphan_chapter", "orphan_rule")]
        anomalies.extend(entry_anomalies(entries, self._example_lines(entries, body_end)))
        anomalies.sort(key=lambda a: (a.line or 0, a.kind))
        return FrenchDocument(
            effective_date=date,
            date_line=date_idx + 1 if date_idx is not None else None,
            title=title,
            introduction=introduction,
            contents=contents,
            entries=entries,
            glossary=glossary,
            credits=credits,
            anomalies=anomalies,
            source=self.source,
            chapters=sorted({e.number[:3] for e in entries if e.kind != "section"}),
        )

    def _french_body_start(self, first_rule: int) -> int:
        """Back up from the first rule over its chapter and section headings (a partial
        document may start at a chapter, or at the rule itself)."""
        start = i = first_rule
        while i > 0:
            prev = self.lines[i - 1].strip()
            if prev and not (SECTION_RE.match(prev) or CHAPTER_RE.match(prev)):
                break
            i -= 1
            if prev:
                start = i
                if SECTION_RE.match(prev):
                    break
        return start

    def _example_lines(self, entries: list[Entry], stop: int) -> dict[tuple[int, int], int]:
        """(entry line, example index) -> the example's own line, for precise anomalies."""
        out: dict[tuple[int, int], int] = {}
        owner: Entry | None = None
        starts = {e.line: e for e in entries}
        count = 0
        for idx in range(entries[0].line - 1 if entries else 0, stop):
            if idx + 1 in starts:
                owner, count = starts[idx + 1], 0
            elif owner is not None and self.example_re.match(self.lines[idx].strip()):
                out[(owner.line, count)] = idx + 1
                count += 1
        return out

    def _french_date(self) -> tuple[int | None, dt.date | None]:
        for i, line in enumerate(self.lines[:_DATE_SEARCH_LINES]):
            try:
                date = parse_french_date(line)
            except CRFormatError as exc:
                raise CRFormatError(exc.message, line=i + 1) from None
            if date is not None:
                problem = date_problem(date)
                if problem is not None:
                    raise CRFormatError(problem, line=i + 1)
                return i, date
        return None, None

    def _refuse_english(self, first_rule: int) -> None:
        """An English document given as French would store English as French: refuse it."""
        for i, line in enumerate(self.lines[:_DATE_SEARCH_LINES]):
            if _ENGLISH_DATE_RE.search(line):
                raise CRFormatError(
                    "this is an English document (“These rules are effective as of …”), "
                    "not a French one: import it without --lang fr",
                    line=i + 1,
                )
        for i in range(first_rule, min(len(self.lines), first_rule + 2000)):
            if self.lines[i].strip().startswith("Example:"):
                raise CRFormatError(
                    "English “Example:” line in a French document: is this the English text?",
                    line=i + 1,
                )


def entry_anomalies(
    entries: list[Entry], example_lines: dict[tuple[int, int], int] | None = None
) -> list[Anomaly]:
    """Defects of the French texts themselves, kept as printed and reported with their line.

    - doubled_number: the text starts with (the end of) its own number: "602.2a 2a Le joueur…";
    - lost_symbol: an empty "()" or "(." where a mana or tap symbol was lost in extraction;
    - cut_short: a rule's text ending mid-sentence ("… qui dit «,");
    - example_cut_short: the same for an example.
    """
    out: list[Anomaly] = []
    for e in entries:
        if e.kind in ("section", "chapter"):
            continue
        first = e.text.split(maxsplit=1)[0].rstrip(".") if e.text.strip() else ""
        if _is_own_number(first, e.number):
            out.append(Anomaly("doubled_number", e.line, e.number, f"printed “{e.number} {first}”"))
        lines = example_lines or {}
        texts = [
            ("text", e.text, e.line),
            *(
                (f"example {i + 1}", x, lines.get((e.line, i), e.line))
                for i, x in enumerate(e.examples)
            ),
        ]
        for where, text, line in texts:
            for m in _LOST_SYMBOL_RE.finditer(text):
                out.append(
                    Anomaly(
                        "lost_symbol",
                        line,
                        e.number,
                        f"{where}: “{_around(text, m.start(), m.end())}” (a symbol was lost)",
                    )
                )
        if _ends_mid_sentence(e.text):
            out.append(Anomaly("cut_short", e.line, e.number, f"ends “…{e.text[-30:]}”"))
        for i, example in enumerate(e.examples):
            if _ends_mid_sentence(example, min_words=1):
                out.append(
                    Anomaly(
                        "example_cut_short",
                        lines.get((e.line, i), e.line),
                        e.number,
                        f"example {i + 1} ends “…{example[-30:]}”",
                    )
                )
    return out


def _is_own_number(token: str, number: str) -> bool:
    """Is `token` the number (or its tail, "2a" of 602.2a) printed again?"""
    if not token or not token[0].isdigit():
        return False
    if token == number:
        return True
    # A tail with a letter ("2a", "2.a") is unambiguous; a bare digit could be text ("2 joueurs").
    return any(c.isalpha() for c in token) and number.endswith(token) and len(token) >= 2


def _ends_mid_sentence(text: str, min_words: int = 5) -> bool:
    """A text that stops without a sentence's end (short titles like "Piétinement" are fine)."""
    last = text.rstrip().rsplit("\n", 1)[-1].rstrip(" \u00a0\u202f")
    if not last:
        return False
    if last.endswith(_CUT_ENDINGS):
        return True
    return len(last.split()) >= min_words and not last.endswith(_ENDS_SENTENCE)


def _around(text: str, start: int, end: int, width: int = 20) -> str:
    return text[max(0, start - width) : end + width].replace("\n", " ")
