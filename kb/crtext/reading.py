"""Read a Comprehensive Rules file in whichever layout it is: the legacy one (1999 to May 2009,
"current as of", kb.crtext.legacy_parser) or the modern one (Magic 2010 on, kb.crtext.parser).
"""

from __future__ import annotations

from kb.crtext.decode import decode_bytes
from kb.crtext.errors import CRFormatError
from kb.crtext.legacy_parser import is_legacy, parse_legacy_lines
from kb.crtext.model import Document
from kb.crtext.parser import DATE_RE, DATE_SEARCH_LINES, Parser


def parse_bytes(data: bytes, *, source: str = "") -> Document:
    """Decode and parse a CR file."""
    return parse_text(decode_bytes(data, source=source), source=source)


def parse_text(text: str, *, source: str = "") -> Document:
    """Parse CR text (line ends already normalised to "\\n"), in either layout: the one its
    date line names ("current as of": legacy), else the 1999 banner's (legacy) or modern."""
    lines = text.split("\n")
    try:
        dated = next(filter(None, map(DATE_RE.search, lines[:DATE_SEARCH_LINES])), None)
        legacy = dated.group(1).lower() == "current" if dated else is_legacy(lines)
        if legacy:
            return parse_legacy_lines(lines, source)
        return Parser(lines, source).parse()
    except CRFormatError as exc:
        raise exc.with_source(source) from None
