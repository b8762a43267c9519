"""Template helpers for French texts beside English ones (kb.french.status)."""

from __future__ import annotations

import datetime as dt
from functools import lru_cache

from django import template
from django.utils import formats
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from kb.french.status import FrenchText, WorkChapter

register = template.Library()


def notice_date(value: dt.date | None) -> str:
    """ "23 April 2010" / "23 avril 2010": the staleness notice writes the day first in both
    languages (the wording issue 13 asks for)."""
    return formats.date_format(value, "j F Y") if value else ""


@register.simple_tag
def french_stale_notice(fr: FrenchText) -> str:
    """The notice above a stale French text: which English it translates, when the English
    changed since."""
    values = {"old": notice_date(fr.translates), "new": notice_date(fr.english_changed_in)}
    if fr.english_changed_in is None:
        return _("French text from the release of %(old)s; the English has changed since.") % values
    notice = _(
        "French text from the release of %(old)s; the English has changed since "
        "(release of %(new)s)"
    )
    return notice % values


@register.simple_tag
def worklist_rows(chapter: WorkChapter) -> SafeString:
    """A chapter's worklist rows as HTML, built here rather than in a template loop: the
    current release lists 3000+ rows, and the template engine took seconds over them."""
    labels = _labels(get_language() or "en")
    translates = _("translates %(old)s")
    to_translate = escape(_("English changes to translate"))
    edit = escape(_("Edit the French"))
    out = []
    for row in chapter.rows:
        state = row.french.state
        parts = [
            f'<li class="worklist-row row-{state}" id="w-{escape(row.number)}">'
            f'<a class="num" href="{escape(row.url)}">{escape(row.number)}</a> '
            f'<span class="fr-state fr-state-{state}">{escape(labels.get(state, state))}</span>'
        ]
        if row.french.stale and row.french.translates:
            old = row.french.translates.isoformat()
            parts.append(f' <span class="muted">{escape(translates % {"old": old})}</span>')
            if row.diff_url:
                parts.append(
                    f' <a class="diff-link" href="{escape(row.diff_url)}">{to_translate}</a>'
                )
        if row.admin_url:
            parts.append(f' <a class="admin-link" href="{escape(row.admin_url)}">{edit}</a>')
        parts.append("</li>")
        out.append("".join(parts))
    return mark_safe("\n".join(out))  # every value above is escaped


@register.filter
def french_status_label(status: str) -> str:
    """A French text's state in the page's language."""
    return _labels(get_language() or "en").get(status, status)


@lru_cache(maxsize=8)
def _labels(language: str) -> dict[str, str]:
    """State labels in a language, translated once per process (the worklist shows thousands
    of rows)."""
    return {
        "missing": _("no French text"),
        "stale": _("stale"),
        "official": _("official"),
        "unofficial": _("unofficial"),
        "reviewed": _("reviewed"),
    }
