"""The engine's settings: the languages it indexes: (code, analyzer name) pairs from settings.

The engine learns them from `settings.SEARCH_LANGUAGES` (the project builds it from its own
declaration of languages) and imports nothing of the site; without the setting it indexes
English only.
"""

from __future__ import annotations

from django.conf import settings

_DEFAULT = (("en", "english"),)


def configured() -> tuple[tuple[str, str], ...]:
    """(code, analyzer) of each language, the first being the one texts are written in."""
    found = getattr(settings, "SEARCH_LANGUAGES", None) if settings.configured else None
    return tuple(tuple(pair) for pair in found) if found else _DEFAULT


def codes() -> tuple[str, ...]:
    return tuple(code for code, _ in configured())
