"""Text of a CR document published as PDF, in the shape of the TXT files (one paragraph a line).

The French "Règles complètes" are published as PDF. Extracted text (pypdf, a maintained
pure-Python library) comes as printed lines: a paragraph wrapped over several lines, words
hyphenated at line ends, a running header and a page number on every page. The parsers read one
paragraph per line, so this module removes what the page layout added and nothing else:

- headers and footers: the first and last lines of a page that repeat on most pages (digits
  masked, so "Page 3" and "Page 4" are one line), and lone page numbers;
- wrapping: a line continues the paragraph above unless it starts an entry (a rule number,
  "Exemple :", a heading, the date line); a number right after "règle", "et", "," … is a
  citation wrapped to the line start, not a new rule;
- hyphenation: "activa-" + "tion" is "activation", but "elle-" + "même" stays "elle-même"
  (French compounds), as does any hyphenated word the document also prints unbroken.
"""

from __future__ import annotations

import io
import re
from collections import Counter

from kb.crtext.errors import CRFormatError
from kb.crtext.french_parser import heading_of, parse_french_date
from kb.crtext.limits import MAX_DOWNLOAD_BYTES
from kb.crtext.numbers import sort_key

_ENTRY_START_RE = re.compile(
    r"^(?:[1-9]\d\d\.\d+[a-z]{0,2}\.?\s|[1-9]\d\d\.\s+\D|[1-9]\.\s+\S|Exemples?[\s\u00a0\u202f]*:)"
)
_PAGE_NUMBER_RE = re.compile(r"^(?:page\s*)?\d{1,4}(?:\s*(?:/|sur|of)\s*\d{1,4})?$", re.I)
#: A line ending so cannot be followed by a new entry: what comes next is a citation.
_CONTINUES_RE = re.compile(
    r"(?:\b(?:r[èe]gles?|sections?|rules?|et|ou|and|or|à|cf\.|voir)|[–—-])$", re.IGNORECASE
)
_NUMBER_RE = re.compile(r"^([1-9]\d\d\.\d+[a-z]{0,2})\.?\s")
#: The title line of French documents, kept apart from the heading above it.
_TITLE_RE = re.compile(r"^R[èe]gles compl[èe]tes\b", re.IGNORECASE)
_HYPHENATED_RE = re.compile(r"([^\W\d_]+)-$")
#: Second halves of French compounds that keep their hyphen at a line break.
_COMPOUND_TAILS = frozenset(
    {
        *("même", "mêmes", "ci", "là", "dessous", "dessus", "dedans", "dehors", "delà"),
        *("points", "être", "il", "ils", "elle", "elles", "on", "t", "uns", "unes"),
        *("vous", "nous", "moi", "toi", "lui", "eux", "clé", "clés"),
    }
)


def pdf_text(data: bytes, *, source: str = "") -> str:
    """The text of a PDF document, one paragraph per line, as the TXT files are."""
    try:
        from pypdf import PdfReader
        from pypdf.errors import PdfReadError
    except ImportError:  # pragma: no cover - pypdf is a dependency
        raise CRFormatError("PDF support needs pypdf (pip install pypdf)", source=source) from None
    if not data.startswith(b"%PDF"):
        raise CRFormatError("not a PDF file (no %PDF header)", line=1, source=source)
    if len(data) > MAX_DOWNLOAD_BYTES:
        raise CRFormatError(
            f"larger than {MAX_DOWNLOAD_BYTES // (1024 * 1024)} MB: not a rules document",
            source=source,
        )
    try:
        reader = PdfReader(io.BytesIO(data))
        pages = [(page.extract_text() or "").split("\n") for page in reader.pages]
    except (PdfReadError, ValueError, KeyError, TypeError) as exc:
        raise CRFormatError(f"unreadable PDF: {exc}", source=source) from None
    lines = [line for page in strip_page_furniture(pages) for line in page]
    if not any(line.strip() for line in lines):
        raise CRFormatError(
            "the PDF holds no extractable text (a scan? text must be selectable)", source=source
        )
    return "\n".join(join_paragraphs(lines)) + "\n"


def strip_page_furniture(pages: list[list[str]]) -> list[list[str]]:
    """Drop running headers, footers and page numbers from each page's lines."""
    pages = [[line.rstrip() for line in page if line.strip()] for page in pages]
    edges: Counter[str] = Counter()
    for page in pages:
        edges.update({_mask(line) for line in page[:2] + page[-2:]})
    repeated = (
        {key for key, n in edges.items() if n >= 2 and n * 2 >= len(pages)}
        if len(pages) > 1
        else set()
    )
    out = []
    for page in pages:
        head, tail = 0, len(page)
        while head < tail and head < 2 and _is_furniture(page[head], repeated):
            head += 1
        while tail > head and len(page) - tail < 2 and _is_furniture(page[tail - 1], repeated):
            tail -= 1
        out.append(page[head:tail])
    return out


def _mask(line: str) -> str:
    """Digits masked ("Page 3" = "Page 4"), except in a numbered entry: rules are no header."""
    line = line.strip()
    return line if _ENTRY_START_RE.match(line) else re.sub(r"\d+", "#", line)


def _is_furniture(line: str, repeated: set[str]) -> bool:
    return _mask(line) in repeated or bool(_PAGE_NUMBER_RE.match(line.strip()))


def join_paragraphs(lines: list[str]) -> list[str]:
    """Join wrapped lines into paragraphs and undo end-of-line hyphenation."""
    text = "\n".join(lines)
    out: list[str] = []
    last = ""  # the last rule number that started a paragraph
    for raw in lines:
        line = raw.strip()
        if not line:
            continue
        if out and not _starts_paragraph(line, out[-1], last):
            out[-1] = _join(out[-1], line, text)
            continue
        out.append(line)
        m = _NUMBER_RE.match(line)
        if m:
            last = m.group(1)
    return out


def _starts_paragraph(line: str, previous: str, last: str) -> bool:
    """Does `line` start a paragraph, after `previous` and the last rule number `last`?"""
    if heading_of(previous) is not None:
        return True  # a heading is a paragraph of its own
    if line[0].islower():
        return False
    if heading_of(line) is not None or _TITLE_RE.match(line):
        return True
    try:
        if parse_french_date(line) is not None:
            return True
    except CRFormatError:
        return True
    if not _ENTRY_START_RE.match(line) or _CONTINUES_RE.search(previous):
        return False
    m = _NUMBER_RE.match(line)
    if m and previous.endswith(",") and last:
        # "rules 305.1, 305.2" wrapped after the comma: a citation unless it comes next in order.
        return sort_key(m.group(1)) > sort_key(last)
    return True


def _join(previous: str, line: str, whole: str) -> str:
    m = _HYPHENATED_RE.search(previous)
    if m and line[0].isalpha():
        head = m.group(1)
        tail = re.match(r"[^\W\d_]+", line)
        tail_word = tail.group() if tail else ""
        compound = f"{head}-{tail_word}"
        if tail_word.casefold() in _COMPOUND_TAILS or (
            re.search(rf"\b{re.escape(compound)}\b", whole) and head + tail_word not in whole
        ):
            return previous + line
        return previous[:-1] + line
    return f"{previous} {line}"
