"""A canonical, id-free picture of the archive's derived data.

Two databases that imported the same releases in different orders must hold the same versions,
lineages and moves; comparing snapshots is how tests (and operators) check it.
"""

from __future__ import annotations

from typing import Any

from kb.models import (
    Example,
    GlossaryTerm,
    GlossaryVersion,
    Lineage,
    Reference,
    RuleNumber,
    RuleVersion,
)


def snapshot() -> dict[str, Any]:
    numbers = sorted(
        (key, number, ordinal, str(start), str(end), prev)
        for key, number, ordinal, start, end, prev in RuleNumber.objects.values_list(
            "lineage__key", "number", "ordinal", "valid_from", "valid_to", "previous_number"
        )
    )
    examples: dict[int, int] = {}
    for vid in Example.objects.values_list("version_id", flat=True):
        examples[vid] = examples.get(vid, 0) + 1
    refs: dict[int, int] = {}
    for vid in Reference.objects.filter(rule_version__isnull=False).values_list(
        "rule_version_id", flat=True
    ):
        refs[vid] = refs.get(vid, 0) + 1
    versions = sorted(
        (key, str(start), str(end), th, change, str(since), examples.get(vid, 0), refs.get(vid, 0))
        for vid, key, start, end, th, change, since in RuleVersion.objects.values_list(
            "id", "lineage__key", "valid_from", "valid_to", "text_hash", "change", "wording_since"
        )
    )
    glossary = sorted(
        (key, headword, str(start), str(end), th, change)
        for key, headword, start, end, th, change in GlossaryVersion.objects.values_list(
            "term__key", "headword", "valid_from", "valid_to", "text_hash", "change"
        )
    )
    return {
        "lineages": sorted(Lineage.objects.values_list("key", flat=True)),
        "terms": sorted(GlossaryTerm.objects.values_list("key", flat=True)),
        "numbers": numbers,
        "versions": versions,
        "glossary": glossary,
    }
