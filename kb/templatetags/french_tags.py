"""Template helpers for French texts beside English ones (kb.french_status)."""

from __future__ import annotations

import datetime as dt

from django import template
from django.utils import formats
from django.utils.translation import gettext as _

from kb.french_status import FrenchText

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


@register.filter
def french_status_label(status: str) -> str:
    """A French text's state in the page's language."""
    labels = {
        "missing": _("no French text"),
        "stale": _("stale"),
        "official": _("official"),
        "unofficial": _("unofficial"),
        "reviewed": _("reviewed"),
    }
    return labels.get(status, status)
