"""Reads the pages and the API need, as named functions over the archive."""

from __future__ import annotations

import datetime as dt

from django.db.models import F, Q

from .models import RuleNumber, RuleVersion
from .models.versioning import valid_on


def rule_as_of(number: str, date: dt.date) -> RuleVersion | None:
    """The version of the rule numbered `number` in the release in force on `date`.

    One indexed query: the number row valid on the date, joined to the version row of the same
    lineage valid on the date. The version carries `number` and `ordinal` as annotations.
    """
    return (
        RuleVersion.objects.filter(
            valid_on(date)
            & Q(lineage__numbers__number=number)
            & valid_on(date, "lineage__numbers__")
        )
        .annotate(number=F("lineage__numbers__number"), ordinal=F("lineage__numbers__ordinal"))
        .order_by("ordinal")
        .first()
    )


def numbers_of_lineage(lineage_id: int) -> list[RuleNumber]:
    return list(RuleNumber.objects.filter(lineage_id=lineage_id).order_by("valid_from"))
