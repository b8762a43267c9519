"""The languages the site speaks, declared once.

Everything that varies by language reads this module: Django's LANGUAGES and
modeltranslation's fields (settings), the search fields and analyzers (the search app reads
`settings.SEARCH_LANGUAGES`, built from it), the language filters of pages and API, and the
language switcher. Adding a language is an entry here plus its translations and its data
(docs/languages.md).

Plain Python, no Django: settings import it before Django is set up.
"""

from __future__ import annotations

from dataclasses import dataclass


def gettext_noop(text: str) -> str:
    """Marks a language's name for makemessages; pages translate it where they show it."""
    return text


@dataclass(frozen=True)
class Language:
    code: str  # ISO 639-1, as in URLs (/fr/) and field suffixes (text_fr)
    name: str  # in English; pages show it translated (gettext_lazy in settings)
    analyzer: str  # the search analyzer of its texts (search.analysis.ANALYZERS)
    rule_texts: bool  # official Comprehensive Rules exist in it (rule texts can be imported)


#: The official rules are written in this language; the others translate it.
SOURCE = "en"

LANGUAGES: tuple[Language, ...] = (
    Language("en", gettext_noop("English"), analyzer="english", rule_texts=True),
    Language("fr", gettext_noop("French"), analyzer="french", rule_texts=True),
)

CODES: tuple[str, ...] = tuple(lang.code for lang in LANGUAGES)
#: Languages a text of the source language is translated into.
TRANSLATIONS: tuple[str, ...] = tuple(code for code in CODES if code != SOURCE)


def language(code: str | None) -> Language | None:
    """The declared language of that code, if any (None for an unknown or missing code)."""
    return next((lang for lang in LANGUAGES if lang.code == code), None)


def supported(code: str | None) -> str | None:
    """`code` if the site speaks it, else None: how pages and API read a `lang` parameter."""
    return code if language(code) is not None else None
