"""The admin's view of French texts: a list filter on rule versions and the counts of the
translators' queues.

Why here: maintainers write or correct French in the admin. The filter selects the versions
of the current release whose French is missing, stale or unofficial (kb.french.status, the
same answer as the worklist at /<lang>/translation/), and `french_queue_counts` gives the
admin index its counts.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from kb.french.status import TO_DO, french_queue_counts, rule_french_states


class FrenchStateFilter(admin.SimpleListFilter):
    """`?french=missing|stale|unofficial`: the rule versions of the current release whose
    French text needs work (an unknown value filters nothing)."""

    title = _("French text (current release)")
    parameter_name = "french"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
        return [
            ("missing", _("missing")),
            ("stale", _("stale")),
            ("unofficial", _("unofficial")),
        ]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        value = self.value()
        if value not in TO_DO:
            return queryset
        return queryset.filter(pk__in=french_version_ids(value))


def french_version_ids(state: str, date: dt.date | None = None) -> list[int]:
    """The rule versions of a release (current by default) whose French is in `state`."""
    return [vid for vid, french in rule_french_states(date).items() if french.state == state]


__all__ = ["FrenchStateFilter", "french_queue_counts", "french_version_ids"]
