"""Parse the text of a modern (Magic 2010 onward) Comprehensive Rules release (`kb.crtext.reading`
chooses between this parser and the legacy one).

The archive is real and imperfect: indented rule lines, `702. 37a`, `505.54.` for 505.5, a number
printed twice, subrules whose rule is missing, `Example:Example:`, a stray one-letter line,
glossary terms glued to their definitions. Each defect is read as meant and recorded as an
anomaly, so that counts match the document and nothing is dropped.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator

from kb.crtext.errors import CRFormatError, LegacyLayoutError
from kb.crtext.limits import (
    MAX_ALIASES,
    MAX_ENTRIES,
    MAX_GLOSSARY_ENTRIES,
    MAX_HEADWORD_CHARS,
    MAX_LINE_CHARS,
    MAX_NUMBER_LENGTH,
    MAX_RULE_DIGITS,
    MAX_TEXT_CHARS,
    date_problem,
)
from kb.crtext.model import Anomaly, Document, Entry, GlossaryEntry
from kb.crtext.numbers import MODERN_LAYOUT_START, next_letters, parent_of

#: Month names as the English documents print them, to their numbers.
MONTHS = {
    m: i
    for i, m in enumerate(
        [
            "January",
            "February",
            "March",
            "April",
            "May",
            "June",
            "July",
            "August",
            "September",
            "October",
            "November",
            "December",
        ],
        1,
    )
}
#: The date line: "effective as of" (modern) or "current as of" (legacy), month, day, year.
DATE_RE = re.compile(
    r"\b(effective|current) as of ([A-Z][a-z]+)\s+(\d{1,2}),\s+(\d{4})", re.IGNORECASE
)
# The numbering is the same in every language (the French document prints "602.2a" too), so the
# three patterns below are shared with kb.crtext.french_parser: one definition of what a section,
# a chapter and the first rule look like keeps the two languages' entries lined up.
#: A section heading ("6. Spells, Abilities, and Effects"): its digit, its title.
SECTION_RE = re.compile(r"^([1-9])\.\s+(\S.*)$")
#: A chapter heading ("602. Activating Activated Abilities"): its number, its title.
CHAPTER_RE = re.compile(r"^([1-9]\d\d)\.\s+(\D.*)$")
_RULE_RE = re.compile(r"^([1-9]\d\d)\.( ?)(\d+)([a-z]{1,2})?(\.?)\s*(.*)$")
#: A numbered rule line ("100.1. …"): where the body of a document starts, in any language.
FIRST_RULE_RE = re.compile(r"^[1-9]\d\d\.\d+\.?\s")
_EXAMPLE_RE = re.compile(r"^Example:\s*")
_GLUED_TERM_RE = re.compile(r"^(.*?[A-Za-z)”\"])(1\.\s+\S.*)$")
#: How far down a modern document prints its date line.
DATE_SEARCH_LINES = 60


class Parser:
    """Reads one document's lines into a `Document`, recording its defects as anomalies.

    Public because kb.crtext.french_parser builds on it: a French document has the same numbered
    entries and glossary blocks with other headings, date line and example prefix. What a
    subclass may use or override is public and says so (`lines`, `source`, `anomalies`,
    `anomaly`, `example_re`, `is_heading`, `heading_after`, `read_entries`, `read_glossary`);
    the rest is this parser's own and may change.
    """

    #: How an example line starts ("Example:"); the French parser reads "Exemple :".
    example_re: re.Pattern[str] = _EXAMPLE_RE

    def __init__(self, lines: list[str], source: str) -> None:
        self.lines = lines
        self.source = source
        self.anomalies: list[Anomaly] = []
        check_line_lengths(lines)

    def anomaly(self, kind: str, line: int | None, number: str = "", detail: str = "") -> None:
        """Record a defect of the source (kept as data, never silently fixed away)."""
        self.anomalies.append(Anomaly(kind, line, number, detail))

    # -- document frame -------------------------------------------------------------------

    def parse(self) -> Document:
        """The whole document: date, title, introduction, contents, entries, glossary, credits."""
        date_idx, date = self._effective_date()
        first_rule = next(
            (i for i, line in enumerate(self.lines) if FIRST_RULE_RE.match(line.strip())), None
        )
        if first_rule is None:
            raise CRFormatError("no numbered rules found (a line such as “100.1. …”)")
        body_start = self._body_start(first_rule)
        glossary_idx = self.heading_after("Glossary", first_rule)
        if glossary_idx is None:
            raise CRFormatError(
                "the document is cut off: no Glossary after the rules",
                line=len(self.lines),
            )
        credits_idx = self.heading_after("Credits", glossary_idx)
        if credits_idx is None:
            raise CRFormatError(
                "the document is cut off: no Credits after the Glossary", line=len(self.lines)
            )
        contents_idx = self.heading_after("Contents", date_idx, body_start)
        intro_end = contents_idx if contents_idx is not None else body_start
        title = next((line.strip() for line in self.lines if line.strip()), "")
        introduction = paragraphs(self.lines[date_idx + 1 : intro_end], skip_heading="Introduction")
        contents = (
            [line.strip() for line in self.lines[contents_idx + 1 : body_start] if line.strip()]
            if contents_idx is not None
            else []
        )
        entries = self.read_entries(body_start, glossary_idx)
        glossary = self.read_glossary(glossary_idx + 1, credits_idx)
        credits = paragraphs(self.lines[credits_idx + 1 :])
        return Document(
            effective_date=date,
            title=title,
            introduction=introduction,
            contents=contents,
            entries=entries,
            glossary=glossary,
            credits=credits,
            anomalies=self.anomalies,
            source=self.source,
        )

    def _effective_date(self) -> tuple[int, dt.date]:
        head = self.lines[:DATE_SEARCH_LINES]
        for i, line in enumerate(head):
            m = DATE_RE.search(line)
            if not m:
                continue
            month = MONTHS.get(m.group(2).capitalize())
            if month is None:
                raise CRFormatError(f"unknown month {m.group(2)!r} in the date", line=i + 1)
            try:
                date = dt.date(int(m.group(4)), month, int(m.group(3)))
            except ValueError as exc:
                raise CRFormatError(f"invalid effective date: {exc}", line=i + 1) from None
            if date < MODERN_LAYOUT_START:
                raise LegacyLayoutError(
                    f"a release of {date.isoformat()} in the modern layout (“effective as of”): "
                    "releases before Magic 2010 say “current as of” and are numbered otherwise",
                    line=i + 1,
                )
            problem = date_problem(date)
            if problem is not None:
                raise CRFormatError(problem, line=i + 1)
            return i, date
        raise CRFormatError(
            "not a Comprehensive Rules document: no effective date "
            f"(“These rules are effective as of …”) in the first {DATE_SEARCH_LINES} lines",
            line=1,
        )

    def _body_start(self, first_rule: int) -> int:
        """Back up from rule 100.1 over its chapter and section headings."""
        i = first_rule
        while i > 0:
            prev = self.lines[i - 1].strip()
            if not prev or SECTION_RE.match(prev) or CHAPTER_RE.match(prev):
                i -= 1
                if SECTION_RE.match(prev):
                    return i
            else:
                break
        return first_rule

    def is_heading(self, line: str, heading: str) -> bool:
        """Is `line` the heading `heading` ("Glossary")? Exactly, in English; the French parser
        overrides it (its headings vary in case and accents)."""
        return line.strip() == heading

    def heading_after(self, heading: str, start: int, stop: int | None = None) -> int | None:
        """The index of the first line after `start` (and before `stop`) that is `heading`.

        Shared so that both languages find their Contents, Glossary and Credits the same way,
        through `is_heading`.
        """
        stop = len(self.lines) if stop is None else stop
        return next(
            (i for i in range(start + 1, stop) if self.is_heading(self.lines[i], heading)), None
        )

    # -- numbered rules -------------------------------------------------------------------

    def read_entries(self, start: int, stop: int) -> list[Entry]:
        """The numbered entries of lines `start` to `stop`, with their examples and
        continuation lines; numbering defects become anomalies.

        Shared with the French parser on purpose: the same numbers read with the same repairs
        (`702. 37a`, a number printed twice) line a French entry up with its English one.
        """
        entries: list[Entry] = []
        seen: dict[str, Entry] = {}
        current: Entry | None = None
        in_example = False
        last_rule: dict[str, int] = {}  # chapter -> last rule number seen
        last_letters: dict[str, str] = {}  # rule -> last subrule letters seen
        for idx in range(start, stop):
            raw = self.lines[idx]
            line = raw.strip()
            lineno = idx + 1
            if not line:
                continue
            entry = self._numbered(line, lineno, last_rule)
            if entry is not None:
                if len(entries) >= MAX_ENTRIES:
                    raise CRFormatError(
                        f"more than {MAX_ENTRIES} numbered rules: not a Comprehensive Rules "
                        "document",
                        line=lineno,
                    )
                if entry.number in seen:
                    entry.ordinal = sum(1 for e in entries if e.number == entry.number)
                    self.anomaly("duplicate_number", lineno, entry.number, "printed again")
                seen.setdefault(entry.number, entry)
                self._check_sequence(entry, seen, last_rule, last_letters)
                entries.append(entry)
                current, in_example = entry, False
                continue
            ex = self.example_re.match(line)
            if ex:
                body = line[ex.end() :]
                doubled = self.example_re.match(body)
                if doubled:
                    self.anomaly(
                        "doubled_example_prefix", lineno, current.number if current else ""
                    )
                    body = body[doubled.end() :]
                if current is None:
                    raise CRFormatError("an example before the first rule", line=lineno)
                current.examples.append(body)
                in_example = True
                continue
            if len(line) <= 2 and line.isalpha():
                self.anomaly("stray_line", lineno, current.number if current else "", repr(line))
                continue
            if current is None:
                raise CRFormatError(f"text before the first rule: {line[:60]!r}", line=lineno)
            # A continuation paragraph (often indented) of the entry or its last example.
            if in_example:
                current.examples[-1] += "\n" + line
                _check_text(current.examples[-1], lineno)
            else:
                current.text += "\n" + line
                _check_text(current.text, lineno)
        return entries

    def _numbered(self, line: str, lineno: int, last_rule: dict[str, int]) -> Entry | None:
        m = _RULE_RE.match(line)
        if m:
            chapter, space, rule_digits, letters, _dot, text = m.groups()
            if len(rule_digits) > MAX_RULE_DIGITS:
                raise CRFormatError(
                    f"rule number {chapter}.{rule_digits[:12]}… is too long (at most "
                    f"{MAX_RULE_DIGITS} digits after the dot, {MAX_NUMBER_LENGTH} characters)",
                    line=lineno,
                )
            if space:
                self.anomaly("stray_space_in_number", lineno, f"{chapter}. {rule_digits}")
            rule_no = int(rule_digits)
            expected = last_rule.get(chapter, 0) + 1
            if not letters and rule_no != expected and rule_no > expected:
                fixed = _drop_one_digit(rule_digits, expected)
                if fixed is not None:
                    self.anomaly(
                        "stray_digit_in_number",
                        lineno,
                        f"{chapter}.{fixed}",
                        f"printed {chapter}.{rule_digits}",
                    )
                    rule_no = fixed
            number = f"{chapter}.{rule_no}" + (letters or "")
            if not text:
                raise CRFormatError(f"rule {number} has no text", line=lineno)
            if not letters:
                last_rule[chapter] = rule_no
            return Entry(number, "subrule" if letters else "rule", text, lineno)
        m = CHAPTER_RE.match(line)
        if m:
            return Entry(m.group(1), "chapter", m.group(2).strip(), lineno)
        m = SECTION_RE.match(line)
        if m:
            return Entry(m.group(1), "section", m.group(2).strip(), lineno)
        return None

    def _check_sequence(
        self,
        entry: Entry,
        seen: dict[str, Entry],
        last_rule: dict[str, int],
        last_letters: dict[str, str],
    ) -> None:
        if entry.ordinal:
            return
        parent = parent_of(entry.number)
        if parent is not None and parent not in seen:
            self.anomaly("orphan_" + entry.kind, entry.line, entry.number, f"no {parent}")
        if entry.kind == "subrule":
            rule, letters = (
                entry.number.rstrip("abcdefghijklmnopqrstuvwxyz"),
                entry.number[len(entry.number.rstrip("abcdefghijklmnopqrstuvwxyz")) :],
            )
            prev = last_letters.get(rule)
            expected = "a" if prev is None else next_letters(prev)
            if letters != expected:
                self.anomaly(
                    "subrule_letter_sequence",
                    entry.line,
                    entry.number,
                    f"expected {rule}{expected}",
                )
            last_letters[rule] = letters

    # -- glossary -------------------------------------------------------------------------

    def read_glossary(self, start: int, stop: int) -> list[GlossaryEntry]:
        """The glossary blocks of lines `start` to `stop` (a headword, then its definition).

        Shared with the French parser: the French glossary has the same blocks and limits.
        """
        out: list[GlossaryEntry] = []
        seen: dict[str, int] = {}
        for lineno, block in _blocks(self.lines, start, stop):
            head, rest = block[0], block[1:]
            glued = _GLUED_TERM_RE.match(head)
            if glued and len(head) > 40:
                head = glued.group(1)
                rest = [glued.group(2), *rest]
                self.anomaly("glued_glossary_term", lineno, "", head)
            if not rest:
                self.anomaly("glossary_term_without_text", lineno, "", head)
            if len(head) > MAX_HEADWORD_CHARS:
                raise CRFormatError(
                    f"glossary headword longer than {MAX_HEADWORD_CHARS} characters "
                    f"({len(head)}): {head[:40]!r}…",
                    line=lineno,
                )
            if len(out) >= MAX_GLOSSARY_ENTRIES:
                raise CRFormatError(
                    f"more than {MAX_GLOSSARY_ENTRIES} glossary entries: not a Comprehensive "
                    "Rules document",
                    line=lineno,
                )
            obsolete = head.endswith("(Obsolete)")
            bare = head[: -len("(Obsolete)")].strip() if obsolete else head
            entry = GlossaryEntry(head, split_aliases(bare), "\n".join(rest), lineno, obsolete)
            _check_text(entry.text, lineno)
            if len(entry.terms) > MAX_ALIASES:
                raise CRFormatError(
                    f"glossary headword with more than {MAX_ALIASES} aliases: {head[:40]!r}…",
                    line=lineno,
                )
            key = entry.key
            if key in seen:
                entry.ordinal = seen[key]
                self.anomaly("duplicate_glossary_term", lineno, "", head)
            seen[key] = seen.get(key, 0) + 1
            out.append(entry)
        return out


def check_line_lengths(lines: list[str]) -> None:
    """Refuse a line longer than `MAX_LINE_CHARS` (the official files' longest is 2,879):
    such a file is not a rules document, and reading it further only costs time."""
    for i, line in enumerate(lines):
        if len(line) > MAX_LINE_CHARS:
            raise CRFormatError(
                f"line longer than {MAX_LINE_CHARS} characters ({len(line)}): "
                "not a Comprehensive Rules document",
                line=i + 1,
            )


def _check_text(text: str, lineno: int) -> None:
    """Refuse an entry whose lines add up to more than `MAX_TEXT_CHARS` (kb.crtext.limits: the
    admin refuses a longer text too)."""
    if len(text) > MAX_TEXT_CHARS:
        raise CRFormatError(
            f"an entry's text longer than {MAX_TEXT_CHARS} characters: not a Comprehensive "
            "Rules document",
            line=lineno,
        )


def _drop_one_digit(digits: str, expected: int) -> int | None:
    for i in range(len(digits)):
        candidate = digits[:i] + digits[i + 1 :]
        if candidate and int(candidate) == expected:
            return expected
    return None


def _blocks(lines: list[str], start: int, stop: int) -> Iterator[tuple[int, list[str]]]:
    block: list[str] = []
    first = start
    for i in range(start, stop):
        line = lines[i].strip()
        if line:
            if not block:
                first = i + 1
            block.append(line)
        elif block:
            yield first, block
            block = []
    if block:
        yield first, block


def paragraphs(lines: list[str], skip_heading: str = "") -> str:
    """The paragraphs of `lines` (blank-line separated) joined by a blank line, a leading
    `skip_heading` paragraph dropped.

    Shared with the French parser, whose introduction and credits are laid out the same way.
    """
    paras = ["\n".join(b) for _, b in _blocks(lines, 0, len(lines))]
    if paras and skip_heading and paras[0] == skip_heading:
        paras = paras[1:]
    return "\n\n".join(paras)


_OPEN_QUOTES = '“"'
_CLOSE_QUOTES = '”"'


def split_aliases(headword: str) -> list[str]:
    """Split "Banding, “Bands with Other”" on commas outside quotation marks.

    A closing quote followed by an opening one also separates aliases
    ("Partner, “Partner—[text],” “Partner with [name]”").
    """
    out: list[str] = []
    buf: list[str] = []
    quoted = False
    i = 0
    while i < len(headword):
        ch = headword[i]
        if ch == "“" or (ch == '"' and not quoted):
            quoted = True
        elif ch == "”" or (ch == '"' and quoted):
            quoted = False
            buf.append(ch)
            rest = headword[i + 1 :]
            stripped = rest.lstrip()
            if stripped.startswith(("“", '"')) and len(stripped) < len(rest):
                out.append("".join(buf).strip())
                buf = []
                i += 1 + (len(rest) - len(stripped))
                continue
            i += 1
            continue
        if ch == "," and not quoted:
            out.append("".join(buf).strip())
            buf = []
        else:
            buf.append(ch)
        i += 1
    if "".join(buf).strip():
        out.append("".join(buf).strip())
    return [a for a in out if a]
