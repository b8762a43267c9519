"""Small presentation helpers for the reading templates."""

from __future__ import annotations

import datetime as dt
from functools import lru_cache

from django import template
from django.utils import formats
from django.utils.html import format_html_join
from django.utils.translation import get_language
from django.utils.translation import gettext as _

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


@register.filter
def change_kinds(kinds: list[str]) -> str:
    """Badges for change kinds (new, moved, wording, examples, reference, typography…)."""
    if not kinds:
        return ""
    labels = _kind_labels(get_language() or "en")
    return format_html_join(
        "", '<span class="kind kind-{}">{}</span>', ((k, labels.get(k, k)) for k in kinds)
    )


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
