"""Small presentation helpers for the reading templates."""

from __future__ import annotations

import datetime as dt

from django import template
from django.utils import formats
from django.utils.translation import get_language

register = template.Library()


@register.filter
def longdate(value: dt.date | None) -> str:
    """August 7, 2026 in English, 7 août 2026 in French."""
    if value is None:
        return ""
    fmt = "j F Y" if (get_language() or "en").startswith("fr") else "F j, Y"
    return formats.date_format(value, fmt)


@register.filter
def set_name(release: object) -> str:
    """The release's set name in the page's language, English where no translation exists."""
    return getattr(release, "set_name", "") or ""
