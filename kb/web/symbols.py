"""Mana and other card symbols ({T}, {2/W}, {B/P}…) drawn with the vendored Mana font.

Each symbol becomes an element with role="img" and an accessible name in the page's language;
a symbol the font does not know stays as its text, so nothing ever vanishes.
"""

from __future__ import annotations

import re

from django.utils.html import escape
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

SYMBOL_RE = re.compile(r"\{([^{}\s]{1,12})\}")

_COLORS = {"W": "w", "U": "u", "B": "b", "R": "r", "G": "g", "C": "c"}


def _color_name(code: str) -> str:
    return {
        "W": pgettext("mana", "white"),
        "U": pgettext("mana", "blue"),
        "B": pgettext("mana", "black"),
        "R": pgettext("mana", "red"),
        "G": pgettext("mana", "green"),
        "C": pgettext("mana", "colorless"),
    }[code]


def describe(symbol: str) -> tuple[str, str] | None:
    """(CSS class, accessible name) for a symbol's inner text ("2/W"), or None if unknown."""
    s = symbol.upper()
    fixed = {
        "T": ("tap", _("tap symbol")),
        "Q": ("untap", _("untap symbol")),
        "E": ("e", _("energy symbol")),
        "S": ("s", _("snow mana")),
        "X": ("x", _("X generic mana")),
        "Y": ("y", _("Y generic mana")),
        "Z": ("z", _("Z generic mana")),
        "CHAOS": ("chaos", _("chaos symbol")),
        "½": ("1-2", _("one-half generic mana")),
        "∞": ("infinity", _("infinite generic mana")),
        "P": ("p", _("Phyrexian mana")),
    }
    if s in fixed:
        return fixed[s]
    if s in _COLORS:
        return _COLORS[s], _("%(color)s mana") % {"color": _color_name(s)}
    if s.isdigit() and int(s) <= 20:
        return s, _("%(n)s generic mana") % {"n": s}
    parts = s.split("/")
    if len(parts) == 2 and parts[1] == "P" and parts[0] in _COLORS:
        return f"{_COLORS[parts[0]]}p", _("Phyrexian %(color)s mana") % {
            "color": _color_name(parts[0])
        }
    if len(parts) == 3 and parts[2] == "P" and all(p in _COLORS for p in parts[:2]):
        return f"{parts[0].lower()}{parts[1].lower()}p", _(
            "Phyrexian hybrid %(a)s or %(b)s mana"
        ) % {"a": _color_name(parts[0]), "b": _color_name(parts[1])}
    if len(parts) == 2 and parts[1] in _COLORS and (parts[0] in _COLORS or parts[0] == "2"):
        if parts[0] == "2":
            label = _("two generic or %(color)s mana") % {"color": _color_name(parts[1])}
        else:
            label = _("hybrid %(a)s or %(b)s mana") % {
                "a": _color_name(parts[0]),
                "b": _color_name(parts[1]),
            }
        return f"{parts[0].lower()}{parts[1].lower()}", label
    return None


def symbol_html(symbol: str) -> str:
    """HTML for one symbol's inner text; unknown symbols stay as escaped text."""
    found = describe(symbol)
    if found is None:
        return escape("{" + symbol + "}")
    css, label = found
    return (
        f'<span class="ms ms-{css} ms-cost" role="img" aria-label="{escape(label)}" '
        f'title="{escape("{" + symbol + "}")}"></span>'
    )
