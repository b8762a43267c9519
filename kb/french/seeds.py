"""The official French text the seed documents hold, loaded on top of the real archive.

Why: the only official French Comprehensive Rules text we have is rule 602 as of 2010-04-23,
inside seed `003_3215fd40f54ce459.txt` (a page that quotes the French translation, then the
English original). `make run` loads it through the same French import as any official
document, attached to the release it translates, its provenance the seed's file name; a
second run finds it unchanged, and maintainers' French texts are kept as for any import.
This module builds the document; `load_site_data` imports it (kb.archive.french_import).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

SEED_602 = "003_3215fd40f54ce459.txt"
#: Where the seed's French 602 starts and ends (the English original follows it).
FRENCH_START = "La traduction française des règles a dit :"
ENGLISH_START = "La version originale officielle des règles a dit :"
#: The release the seed's French translates: its English 602 is the 2010-04-23 text.
TRANSLATES = dt.date(2010, 4, 23)
#: A document's head, written here: the seed quotes rule 602 alone, without the document's
#: title and date line that the French import reads.
HEADER = (
    "Magic : l'Assemblée",
    "Règles complètes",
    "",
    "Ces règles entrent en vigueur au 23 avril 2010.",
    "",
    "Introduction",
    "",
    "Ce document est un extrait des règles complètes : il ne contient que la règle 602.",
    "",
)


def seed_602_lines(seed: Path) -> list[str]:
    """The seed's French 602 lines, exactly as they are (their defects included)."""
    lines = seed.read_text(encoding="utf-8").split("\n")
    return lines[lines.index(FRENCH_START) + 1 : lines.index(ENGLISH_START)]


def french_602_document(seed: Path, *, date_line: bool = True) -> str:
    """The seed's French 602 as a French CR document (the header above, then its lines)."""
    header = [line for line in HEADER if date_line or "vigueur" not in line]
    return "\n".join([*header, *seed_602_lines(seed)]) + "\n"
