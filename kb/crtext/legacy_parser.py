"""Parse a Comprehensive Rules release of the legacy era (1999-04-23 to 2009-05-01).

Before Magic 2010 the document had another frame: "These rules are current as of …" (at the end
of the file too, or only there), five or six sections, banners and underlines of dashes (1999),
an Index after the Glossary (1999), "EXAMPLE:" in capitals, subrules printed without their
rule's digits ("408.f"). Seven files are hard-wrapped at about 100 columns, so a line may begin
with what looks like a rule number ("217.5c." ending a sentence of 217.5b): those are read
paragraphs first, and only then as numbered entries.

The entries themselves are numbered like the modern ones (sections, chapters "409.", rules
"409.1.", subrules "409.1a"), so once the frame is read and the wrapping undone, the modern
parser's entry and glossary readers do the rest, with the same repairs and anomalies.
"""

from __future__ import annotations

import datetime as dt
import re

from kb.crtext.errors import CRFormatError
from kb.crtext.limits import date_problem
from kb.crtext.model import Document
from kb.crtext.numbers import is_legacy_date, next_letters
from kb.crtext.parser import FIRST_RULE_RE, MONTHS, Parser, paragraphs

#: A file whose longest line is this short was wrapped by hand (the wrapped files' longest
#: lines are 115–142 characters; the unwrapped ones hold paragraphs of 700 and more).
WRAPPED_MAX_LINE = 160

_CURRENT_RE = re.compile(r"\bcurrent as of ([A-Z][a-z]+)\s+(\d{1,2}),\s+(\d{4})")
_BANNER_RE = re.compile(r"COMPREHENSIVE RULES\s+(\d\d)/(\d\d)/(\d\d)\b")
_RULER_RE = re.compile(r"^\s*(?:-{4,}|={4,})\s*$")
_EXAMPLE_RE = re.compile(r"^(?:Example|EXAMPLE):\s*")
#: A subrule printed without its rule's digits ("408.f" for 408.2f in 1999-11-01).
_LETTERS_ONLY_RE = re.compile(r"^([1-9]\d\d)\.([a-z]{1,2})\s+(.*)$")
_RULE_NUMBER_RE = re.compile(r"^([1-9]\d\d)\.(\d+)\.?\s")
_SUBRULE_RE = re.compile(r"^([1-9]\d\d)\.(\d+)([a-z]{1,2})\.?\s+(.*)$")


def is_legacy(lines: list[str]) -> bool:
    """Does this document use the legacy frame? Its date line says "current as of" (the modern
    one "effective as of"), or it opens with the 1999 banner."""
    return any(_CURRENT_RE.search(line) or _BANNER_RE.search(line) for line in lines)


def parse_legacy_lines(lines: list[str], source: str = "") -> Document:
    """The legacy document in `lines` (line ends normalised), as a modern `Document`."""
    return LegacyParser(lines, source).parse()


class LegacyParser(Parser):
    """Reads the legacy frame, undoes hard wrapping, then reads entries like the modern parser.

    Entries and anomalies carry the line numbers of the file as printed, not of the unwrapped
    text, so that a maintainer finds them in the source.
    """

    example_re = _EXAMPLE_RE

    def __init__(self, lines: list[str], source: str) -> None:
        super().__init__(lines, source)
        self.printed = lines
        self.line_of: list[int] = list(range(1, len(lines) + 1))

    def parse(self) -> Document:
        try:
            return self._parse()
        except CRFormatError as exc:
            if exc.line is not None and self.lines is not self.printed:
                exc.line = self._printed_line(exc.line)
                exc.args = (str(exc),)
            raise

    def _parse(self) -> Document:
        raw = [("" if _RULER_RE.match(line) else line.rstrip()) for line in self.printed]
        date = self._date(raw)
        first_rule = next(
            (i for i, line in enumerate(raw) if FIRST_RULE_RE.match(line.strip())), None
        )
        if first_rule is None:
            raise CRFormatError("no numbered rules found (a line such as “100.1. …”)")
        self.lines = raw
        body_start = self._body_start(first_rule)
        glossary_idx = self.heading_after("Glossary", first_rule)
        if glossary_idx is None:
            raise CRFormatError(
                "the document is cut off: no Glossary after the rules", line=len(raw)
            )
        credits_idx = self.heading_after("Credits", glossary_idx)
        if credits_idx is None:
            raise CRFormatError(
                "the document is cut off: no Credits after the Glossary", line=len(raw)
            )
        # 1999 prints an Index of rule numbers between the Glossary and the Credits.
        glossary_end = self.heading_after("Index", glossary_idx, credits_idx) or credits_idx
        wrapped = max((len(line) for line in raw), default=0) <= WRAPPED_MAX_LINE
        if wrapped:
            self.anomaly("hard_wrapped", None, "", f"longest line {max(map(len, raw))} chars")

        title = next((line.strip() for line in raw if line.strip()), "")
        front = raw[:body_start]
        contents_idx = self.heading_after("Contents", -1, body_start)
        intro_idx = next(
            (i for i in range(body_start - 1, -1, -1) if raw[i].strip() == "Introduction"),
            None,
        )
        contents: list[str] = []
        if contents_idx is not None:
            stop = intro_idx if intro_idx is not None and intro_idx > contents_idx else body_start
            contents = [line.strip() for line in raw[contents_idx + 1 : stop] if line.strip()]
        if intro_idx is not None:
            stop = contents_idx if contents_idx is not None and contents_idx > intro_idx else None
            intro_lines = raw[intro_idx + 1 : stop if stop is not None else body_start]
        else:
            intro_lines = front[1 : contents_idx if contents_idx is not None else body_start]
        introduction = paragraphs([line for line in intro_lines if not _CURRENT_RE.search(line)])
        if wrapped:
            introduction = _unwrap_text(introduction)

        body, body_map = self._logical(raw, body_start, glossary_idx, wrapped, glossary=False)
        gloss, gloss_map = self._logical(
            raw, glossary_idx + 1, glossary_end, wrapped, glossary=True
        )
        body = self._repair_numbers(body)
        self.lines = [*body, "", *gloss]
        self.line_of = [*body_map, glossary_idx + 1, *gloss_map]
        entries = self.read_entries(0, len(body))
        glossary = self.read_glossary(len(body) + 1, len(self.lines))
        for entry in entries:
            entry.line = self._printed_line(entry.line)
        for gentry in glossary:
            gentry.line = self._printed_line(gentry.line)
        self.anomalies = [
            a if a.line is None else type(a)(a.kind, self._printed_line(a.line), a.number, a.detail)
            for a in self.anomalies
        ]
        credits = paragraphs(raw[credits_idx + 1 :])
        return Document(
            effective_date=date,
            title=title,
            introduction=introduction,
            contents=contents,
            entries=entries,
            glossary=glossary,
            credits=_unwrap_text(credits) if wrapped else credits,
            anomalies=self.anomalies,
            source=self.source,
        )

    def _printed_line(self, logical: int) -> int:
        """The file's line number for line `logical` (1-based) of the unwrapped text."""
        if 1 <= logical <= len(self.line_of):
            return self.line_of[logical - 1]
        return logical

    def _date(self, raw: list[str]) -> dt.date:
        """ "current as of Month D, YYYY" wherever it is (1999 prints it at the end only), else
        the 1999 banner's MM/DD/YY."""
        found: tuple[int, dt.date] | None = None
        for i, line in enumerate(raw):
            m = _CURRENT_RE.search(line)
            if m:
                month = MONTHS.get(m.group(1))
                if month is None:
                    raise CRFormatError(f"unknown month {m.group(1)!r} in the date", line=i + 1)
                found = (i, _make_date(int(m.group(3)), month, int(m.group(2)), i + 1))
                break
        if found is None:
            for i, line in enumerate(raw):
                m = _BANNER_RE.search(line)
                if m:
                    month, day, year = (int(g) for g in m.groups())
                    year += 1900 if year > 50 else 2000
                    found = (i, _make_date(year, month, day, i + 1))
                    break
        if found is None:
            raise CRFormatError(
                "not a Comprehensive Rules document: no date (“These rules are current as of …”)",
                line=1,
            )
        line, date = found
        if not is_legacy_date(date):
            raise CRFormatError(
                f"a release of {date.isoformat()} in the legacy layout (“current as of”): "
                "releases from Magic 2010 on say “effective as of”",
                line=line + 1,
            )
        return date

    def _logical(
        self, raw: list[str], start: int, stop: int, wrapped: bool, *, glossary: bool
    ) -> tuple[list[str], list[int]]:
        """Lines `start`..`stop` as logical lines (one per paragraph, blank lines kept between
        blocks), with the printed line number of each.

        Unwrapped files already hold a paragraph per line. In a wrapped file a line continues
        the one above unless the block starts there, it opens an example, it is indented deeper
        than the line above (a glossary entry's second paragraph, an indented 1999 example), or,
        in the glossary, it follows the headword. A numbered rule always follows a blank line in
        these files, so a line that looks numbered inside a paragraph ("See rule\n103.4. If a
        player…", "…has\n217.5c.") is wrapped text.
        """
        out: list[str] = []
        where: list[int] = []
        indented: list[bool] = []
        prev_blank = True
        prev_indent = 0
        block_line = 0
        for i in range(start, stop):
            line = raw[i]
            text = line.strip()
            if not text:
                if not prev_blank:
                    out.append("")
                    where.append(i + 1)
                    indented.append(False)
                prev_blank = True
                continue
            indent = len(line) - len(line.lstrip())
            new = (
                prev_blank
                or not wrapped
                or bool(self.example_re.match(text))
                or indent > prev_indent
                or (glossary and block_line == 1)
            )
            block_line = 1 if prev_blank else block_line + 1
            if (
                glossary
                and not wrapped
                and not prev_blank
                and indent == 0
                and out[-1].endswith(_SENTENCE_ENDS)
                and _looks_like_headword(text)
            ):
                # In an unwrapped glossary a definition's paragraphs are sentences: a short
                # line at the margin after one, no sentence itself, is
                # the next headword printed without a blank line ("Floor Rules", 2008-02-01 to
                # 2009-02-01; "Source", "Effect" in 2003-05-26).
                out.append("")
                where.append(i + 1)
                indented.append(False)
                block_line = 1
            if new:
                out.append(text)
                where.append(i + 1)
                indented.append(indent > 0)
            else:
                out[-1] = f"{out[-1]} {text}"
            prev_blank = False
            prev_indent = indent
        if glossary:
            return _join_continued_blocks(out, where, indented)
        return out, where

    def _repair_numbers(self, body: list[str]) -> list[str]:
        """Two misprints the legacy files make, read as meant, each recorded as an anomaly:
        a subrule without its rule's digits ("408.f" for 408.2f, 1999-11-01), and a subrule
        printed under an earlier rule of its chapter while it continues the current rule's
        letters ("306.1c" after 306.3b, 2008-10-01)."""
        last_rule: dict[str, str] = {}  # chapter -> its latest rule's digits
        last_letters: dict[str, str] = {}  # rule -> its latest subrule's letters
        out = []
        for idx, line in enumerate(body):
            lm = _LETTERS_ONLY_RE.match(line)
            if lm and lm.group(1) in last_rule:
                chapter, letters, rest = lm.groups()
                number = f"{chapter}.{last_rule[chapter]}{letters}"
                self.anomaly("rule_digits_missing", idx + 1, number, f"printed {chapter}.{letters}")
                line = f"{number} {rest}"
            m = _SUBRULE_RE.match(line)
            if m:
                chapter, digits, letters, rest = m.groups()
                current = last_rule.get(chapter)
                rule = f"{chapter}.{current}"
                if (
                    current is not None
                    and int(digits) < int(current)
                    and letters == next_letters(last_letters.get(rule, ""))
                ):
                    number = f"{rule}{letters}"
                    self.anomaly(
                        "wrong_rule_digits", idx + 1, number, f"printed {chapter}.{digits}{letters}"
                    )
                    line = f"{number} {rest}"
                    digits = current
                last_letters[f"{chapter}.{digits}"] = letters
            else:
                m = _RULE_NUMBER_RE.match(line)
                if m:
                    last_rule[m.group(1)] = m.group(2)
            out.append(line)
        return out


#: A glossary paragraph that cannot open an entry: the second of a numbered definition.
_NUMBERED_PARAGRAPH_RE = re.compile(r"^\d{1,2}\.\s")


def _join_continued_blocks(
    lines: list[str], where: list[int], indented: list[bool]
) -> tuple[list[str], list[int]]:
    """Drop the blank line before a glossary block that goes on with the entry above.

    A headword is never indented, so an indented block is a further paragraph of the entry
    ("Effect" in 1999, the table of expansion symbols); so is "2. A game ends in a draw…" after
    "Draw / 1. A player draws…", whatever follows a line ending in a colon ("The expansion
    symbols to date are:" / "Expansions and Editions"), a line alone between indented
    blocks of an entry (the table's "Promotional Cards"), and a definition printed a blank line
    below its headword ("Effect", "Untap" in 2003-05-26).
    """
    out: list[str] = []
    out_where: list[int] = []
    after_indented = False  # the block above went on with the entry before it
    for i, line in enumerate(lines):
        if not line and out and i + 1 < len(lines) and lines[i + 1]:
            nxt = lines[i + 1]
            alone = i + 2 < len(lines) and not lines[i + 2]  # a one-line block
            if (
                indented[i + 1]
                or _NUMBERED_PARAGRAPH_RE.match(nxt)
                or out[-1].rstrip().endswith(":")
                or (after_indented and alone and _indented_block_at(lines, indented, i + 3))
                or (
                    (len(out) == 1 or not out[-2])
                    and _looks_like_headword(out[-1])
                    and not _looks_like_headword(nxt)
                )
            ):
                after_indented = True
                continue
            after_indented = False
        out.append(line)
        out_where.append(where[i])
    return out, out_where


_SENTENCE_ENDS = (".", ":", '"', "”", ")")


def _looks_like_headword(text: str) -> bool:
    if len(text) > 60:
        return False
    return text.endswith("(Obsolete)") or not text.endswith((*_SENTENCE_ENDS, ",", ";"))


def _indented_block_at(lines: list[str], indented: list[bool], i: int) -> bool:
    """Does an indented block start at line `i`? (After a one-line block, inside an entry's
    list, that one line is a sub-heading of the list: "Promotional Cards" among the expansion
    symbols.)"""
    return i < len(lines) and bool(lines[i]) and indented[i]


def _unwrap_text(text: str) -> str:
    return "\n\n".join(" ".join(p.split("\n")) for p in text.split("\n\n"))


def _make_date(year: int, month: int, day: int, line: int) -> dt.date:
    try:
        date = dt.date(year, month, day)
    except ValueError as exc:
        raise CRFormatError(f"invalid date: {exc}", line=line) from None
    problem = date_problem(date)
    if problem is not None:
        raise CRFormatError(problem, line=line)
    return date
