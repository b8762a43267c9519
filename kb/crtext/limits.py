"""What a rules document may hold: the limits every CR import checks, in one place.

Why: a file past these bounds is not an official document (a typo, a wrong file, a hostile
upload), and letting it in breaks later steps far from the cause (a 34-character number stored,
then every URL built for it fails; a 50 MB file of junk rules parsed and imported for minutes).
The parser (`kb.crtext`), the sources (`kb.archive.sources`: files, folders, versions.csv,
URLs) and the admin's upload (`kb.archive.publishing`) refuse them before anything is written,
naming the file, the line and what is wrong. The figures leave room above the real archive
(measured on the 104 English releases 2009-2026, noted beside each).

Pure Python: `kb.crtext` imports it and imports nothing of Django.
"""

from __future__ import annotations

import datetime as dt
import re

#: A CR text file, in bytes (the largest release, 2026-08-07, is 0.97 MB).
MAX_DOCUMENT_BYTES = 8 * 1024 * 1024
#: A downloaded or uploaded source (a French PDF is larger than its text).
MAX_DOWNLOAD_BYTES = 30 * 1024 * 1024
#: One line of a CR text, in characters (the longest is 2,879: a glossary entry).
MAX_LINE_CHARS = 20_000
#: Numbered entries in one document (the most is 3,162).
MAX_ENTRIES = 20_000
#: One text of an entry: a rule's, an example's or a glossary entry's, in characters, its
#: continuation lines included (the longest are 2,872: 205.3m of 2026-06-19; an example 996; a
#: glossary text 882). The parser refuses a longer one, and the admin the same: a 2 MB text
#: typed or pasted there made the French chapter page it is on take 13 s.
MAX_TEXT_CHARS = MAX_LINE_CHARS
#: Aliases of one glossary headword ("Remove from the Game, Removed, Removed-from-the-Game Zone"
#: has 3, the most), each at most a headword long.
MAX_ALIASES = 20
#: Glossary entries in one document (about 750 today).
MAX_GLOSSARY_ENTRIES = 5_000
#: Digits after the chapter's dot ("702.190"; the most is 3).
MAX_RULE_DIGITS = 4
#: A rule number, in characters: chapter, dot, digits and two letters ("702.100a" is the longest
#: at 8). The URL converter (`kb.web.urls.NumberConverter`, 16) and the columns (12) hold it.
MAX_NUMBER_LENGTH = 3 + 1 + MAX_RULE_DIGITS + 2
#: A glossary headword, in characters (the longest is 176; the column holds 300).
MAX_HEADWORD_CHARS = 300
#: versions.csv beside the releases (today 30 KB) and its set names and codes (the columns).
MAX_VERSIONS_CSV_BYTES = 1024 * 1024
MAX_SET_NAME_CHARS = 200
MAX_SET_CODE_CHARS = 12
#: Effective dates: Magic's first year to the end of the century. A release is announced weeks
#: ahead, so the bound is loose on purpose: the project's tests publish releases dated 2099 (no
#: real release has such a date) and must keep working; 9999-12-31 or 0001-01-01 (typos,
#: junk) are refused. Card rulings are bounded tighter (rulings.importing.limits: a few years
#: ahead).
FIRST_DATE = dt.date(1993, 1, 1)
LAST_DATE = dt.date(2099, 12, 31)


def date_problem(date: dt.date) -> str | None:
    """Why an effective date is refused, or None when it is in the sane range."""
    if not FIRST_DATE <= date <= LAST_DATE:
        return (
            f"effective date {date.isoformat()} is out of range "
            f"({FIRST_DATE.isoformat()} to {LAST_DATE.isoformat()})"
        )
    return None


#: Characters no rules text holds (what `kb.crtext.decode` refuses in a file): C0 controls but
#: tab and line ends, and DEL.
CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")


def text_problem(text: str) -> str | None:
    """Why an entry's text (rule, example, glossary; English or French) is refused, or None:
    what the import refuses in a file, said of one text (the admin shows it on the field)."""
    if len(text) > MAX_TEXT_CHARS:
        return (
            f"this text is {len(text):,} characters long; a rules text holds at most "
            f"{MAX_TEXT_CHARS:,} (the longest official one has about 2,900)"
        )
    bad = CONTROL_RE.search(text)
    if bad is not None:
        return f"this text holds a control character (U+{ord(bad.group()):04X})"
    return None
