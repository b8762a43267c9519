"""Typography folding, reference masking and content hashes.

Releases differ in quotes, dashes, trademark signs and `_Magic_` markup alone (the 2019-01-25
file is plain ASCII where its neighbours are curly, and writes "Odyssey(tm)" where they print
"Odyssey™" or no sign at all), and references get renumbered when sections are inserted.
Comparing texts three ways — exact, folded, folded with cited numbers masked — lets a diff say
whether a change is real wording, a renumbered reference, or typography only.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

_FOLD_TABLE = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u2032": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u2033": '"',
        "\u2013": "-",
        "\u2014": "-",
        "\u2212": "-",
        "\u2011": "-",
        "\u00a0": " ",
        "\u2009": " ",
        "\u202f": " ",
        "\u2122": "",
        "\u00ae": "",
        "\ufffd": "",
    }
)
_MARKUP_RE = re.compile(r"_([^_\n]+?)_")
# Trademark and copyright signs as the ASCII releases spell them: "(TM)", "(R)" and "(C)" as
# printed, "(tm)" in any case, and a lowercase "(r)" glued to the name it marks ("Future
# Sight(r)", 2019-01-25). A lowercase "(c)", or an "(r)" after a space, is an enumeration's
# letter ("... and (c) neither ...") and is wording.
_TRADEMARK_RE = re.compile(r"\((?:TM|R|C)\)|\((?i:tm)\)|(?<=[^\W\d_])\(r\)")
_SPACES_RE = re.compile(r"[ \t]+")
_ELLIPSIS_RE = re.compile(r"\u2026|\. \. \.")


def fold(text: str) -> str:
    """Text with typography erased: straight quotes, ASCII dashes, no markup or trademarks."""
    text = text.translate(_FOLD_TABLE)
    text = _MARKUP_RE.sub(r"\1", text)
    text = _TRADEMARK_RE.sub("", text)
    text = _ELLIPSIS_RE.sub("...", text)
    text = _SPACES_RE.sub(" ", text)
    return "\n".join(line.strip() for line in text.split("\n")).strip()


def digest(parts: Iterable[str]) -> str:
    """A short stable hash of several texts (16 hex digits is plenty for equality tests)."""
    h = hashlib.blake2b(digest_size=8)
    for part in parts:
        h.update(part.encode("utf-8"))
        h.update(b"\x1f")
    return h.hexdigest()
