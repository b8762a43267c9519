"""Formatting helpers the templates and other apps share (rulings' pages, feeds): long dates
in the page's language, set names, card text with its mana symbols, the change-kind labels.
Public here so that no app reaches into kb's template tags for them."""

from __future__ import annotations

import datetime as dt
from functools import lru_cache

from django.utils import formats
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from kb.web.rendering import render_text


def longdate(value: dt.date | None) -> str:
    """August 7, 2026 in English, 7 août 2026 in French."""
    if value is None:
        return ""
    return _long_date(value, (get_language() or "en")[:2])


@lru_cache(maxsize=8192)
def _long_date(value: dt.date, lang: str) -> str:
    """Memoised: pages with hundreds of rulings format the same few dates over and over."""
    return formats.date_format(value, "j F Y" if lang == "fr" else "F j, Y")


def set_name(release: object) -> str:
    """The release's set name in the page's language, English where no translation exists."""
    return getattr(release, "set_name", "") or ""


def symbols(text: str) -> str:
    """Card text with {T}, {2/W}… drawn as symbols (everything else escaped)."""
    return render_text(text or "", [], lambda number: None)


def kind_labels(language: str) -> dict[str, str]:
    """The change-kind labels of a language, for what is not a template (feeds)."""
    return _kind_labels(language)


@lru_cache(maxsize=8)
def _kind_labels(language: str) -> dict[str, str]:
    """Change-kind labels in a language (translated once per process, not once per item)."""
    return {
        "new": _("new"),
        "moved": _("moved"),
        "wording": _("wording"),
        "examples": _("examples"),
        "reference": _("reference renumbered"),
        "typography": _("typography only"),
        "renamed": _("renamed"),
        "removed": _("removed"),
        "added": _("added"),
        "changed": _("changed"),
    }
