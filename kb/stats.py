"""What is loaded: per-release counts (from the rows valid in each release) and totals."""

from __future__ import annotations

from typing import Any

from kb.archive.importer import release_counts
from kb.models import GlossaryTerm, GlossaryVersion, Lineage, Release, RuleNumber, RuleVersion


def archive_stats() -> dict[str, Any]:
    releases = {
        r.effective_date.isoformat(): {
            "set_name": r.set_name_en,
            **release_counts(r.effective_date),
        }
        for r in Release.objects.order_by("effective_date")
    }
    return {
        "releases": releases,
        "totals": {
            "releases": len(releases),
            "versions": RuleVersion.objects.count(),
            "lineages": Lineage.objects.count(),
            "moves": RuleNumber.objects.moves().count(),
            "numbers": RuleNumber.objects.count(),
            "glossary_terms": GlossaryTerm.objects.count(),
            "glossary_versions": GlossaryVersion.objects.count(),
        },
    }
