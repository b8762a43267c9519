"""What a card or ruling file may hold: the limits `import_cards` checks, in one place.

Why: a record past these bounds is not card data (a wrong file, a corrupt download, junk),
and storing it breaks later steps far from the cause (NaN compares unequal to itself, so every
re-import reported an update; a string of keywords was stored letter by letter). Files are read
by `rulings.importing.sources` (size, line length, encoding) and records validated by
`rulings.importing.records`
(types, lengths, depth, NUL characters, numbers, dates); a refusal names the file, the line or
item, and the field, and nothing is imported. The figures leave room above the shared data
(cards.jsonl.gz and rulings.jsonl.gz, 22,192 cards and 43,774 rulings; noted beside each) and
Scryfall's bulk files.
"""

from __future__ import annotations

import datetime as dt
import math

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
#: A card's layout: the layouts of MTGJSON (the shared data: normal, transform, split, saga,
#: scheme, prepare, mutate, leveler, aftermath, meld, flip, prototype, class, adventure,
#: modal_dfc, reversible_card, case) and of Scryfall's oracle-cards; empty where the source
#: gives none. Pages pick how to show a card by it: an unknown value is a typo or junk.
LAYOUTS = frozenset(
    {
        "normal",
        "split",
        "flip",
        "transform",
        "modal_dfc",
        "meld",
        "leveler",
        "class",
        "case",
        "saga",
        "adventure",
        "mutate",
        "prototype",
        "battle",
        "planar",
        "scheme",
        "vanguard",
        "token",
        "double_faced_token",
        "emblem",
        "augment",
        "host",
        "art_series",
        "reversible_card",
        "aftermath",
        "prepare",
    }
)
#: Rulings are dated from Magic's first year to a few years after today.
FIRST_DATE = dt.date(1993, 1, 1)
YEARS_AHEAD = 3


def last_date(today: dt.date | None = None) -> dt.date:
    """The latest ruling date accepted (9999-12-31 is a typo, not a ruling)."""
    today = today or dt.date.today()
    return dt.date(today.year + YEARS_AHEAD, 12, 31)


def text_problem(key: str, value: str) -> str | None:
    """Why a text of a card or ruling is refused (the limit of its field, or MAX_TEXT; a NUL
    character), or None: what `rulings.importing.records` refuses in a file, said of one value."""
    if "\x00" in value:
        return "contains a NUL character"
    limit = MAX_LENGTH.get(key, MAX_TEXT)
    if len(value) > limit:
        return f"is longer than {limit:,} characters ({len(value):,})"
    return None


def layout_problem(layout: str) -> str | None:
    """Why a card layout is refused, or None (empty: the source gave none)."""
    if layout and layout not in LAYOUTS:
        return f"{layout[:40]!r} is not a card layout ({', '.join(sorted(LAYOUTS))})"
    return None


def date_problem(date: dt.date, today: dt.date | None = None) -> str | None:
    """Why a ruling's date is refused, or None."""
    if not FIRST_DATE <= date <= last_date(today):
        return (
            f"out of range ({FIRST_DATE.isoformat()} to {last_date(today).isoformat()}): "
            f"{date.isoformat()}"
        )
    return None


def mana_value_problem(value: float) -> str | None:
    """Why a mana value is refused (NaN, infinite, out of range), or None."""
    if not math.isfinite(value) or not 0 <= value <= MAX_MANA_VALUE:
        return f"a mana value is a number from 0 to {MAX_MANA_VALUE:,}, not {value!r}"
    return None
