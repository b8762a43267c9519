"""What a card or ruling file may hold: the limits `import_cards` checks, in one place.

Why: a record past these bounds is not card data (a wrong file, a corrupt download, junk),
and storing it breaks later steps far from the cause (NaN compares unequal to itself, so every
re-import reported an update; a string of keywords was stored letter by letter). Files are read
by `rulings.sources` (size, line length, encoding) and records validated by `rulings.records`
(types, lengths, depth, NUL characters, numbers, dates); a refusal names the file, the line or
item, and the field, and nothing is imported. The figures leave room above the shared data
(cards.jsonl.gz and rulings.jsonl.gz, 22,192 cards and 43,774 rulings; noted beside each) and
Scryfall's bulk files.
"""

from __future__ import annotations

import datetime as dt

#: A file, decompressed, in bytes (cards.jsonl is 31 MB, Scryfall's oracle-cards ~160 MB).
#: Counted while reading, so a small gzip that inflates without end is stopped too.
MAX_FILE_BYTES = 512 * 1024 * 1024
#: One line of a JSON-lines file, in bytes (the longest card is 22 KB: its printings).
MAX_LINE_BYTES = 1024 * 1024
#: Nesting of a record's objects and lists (the data's deepest is 4, Scryfall's about 5).
MAX_DEPTH = 16
#: The longest text each field holds: the database's column sizes (names: 141 at most).
MAX_LENGTH = {
    "name": 300,
    "layout": 30,
    "mana_cost": 120,
    "type_line": 300,
    "power": 10,
    "toughness": 10,
    "loyalty": 10,
    "defense": 10,
    "data_source": 20,
    "face_name": 300,
    "card_name": 300,
}
#: Any other text (an Oracle text is 842 characters at most, a ruling 1,505).
MAX_TEXT = 20_000
#: Items of a list (printings: 191 at most; keywords 6; faces 5; rulings of a card 32).
MAX_ITEMS = 2_000
#: A mana value is a finite number in this range (NaN and Infinity are refused).
MAX_MANA_VALUE = 1_000_000
#: Rulings are dated from Magic's first year to a few years after today.
FIRST_DATE = dt.date(1993, 1, 1)
YEARS_AHEAD = 3


def last_date(today: dt.date | None = None) -> dt.date:
    """The latest ruling date accepted (9999-12-31 is a typo, not a ruling)."""
    today = today or dt.date.today()
    return dt.date(today.year + YEARS_AHEAD, 12, 31)
