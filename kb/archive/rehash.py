"""Stored hashes brought up to date with the code that computes them (a data migration's work).

A version's hashes (kb.archive.texts.hashes: exact, typography folded, references masked, its
examples) are computed when it is imported or edited, and its `change` flags and
`wording_since` are derived from them. When the fold learns a sign it missed (issue 34: the
plain-ASCII 2019-01-25 release writes "Odyssey(tm)" and "Future Sight(r)"), the rows stored
before keep the old hashes and so call a typography change wording. `rehash_versions` computes
every version's hashes again and rewrites those that differ, then the flags of their lineages
and terms. The whole archive is read once (the 101 releases' 14,849 versions in under two
seconds on SQLite; 11 of them were stale in issue 34's case), and an archive already up to date
is left as it is.
"""

from __future__ import annotations

from collections import defaultdict

from django.db import models, transaction

from kb.archive.families import refresh_rule_changes, refresh_term_changes
from kb.archive.texts import hashes
from kb.dbutil import update_rows
from kb.models import Example, GlossaryVersion, RuleVersion
from kb.models.versioning import HASH_FIELDS

_BATCH = 2000


@transaction.atomic
def rehash_versions(
    *,
    rule_model: type[models.Model] = RuleVersion,
    glossary_model: type[models.Model] = GlossaryVersion,
    example_model: type[models.Model] = Example,
) -> int:
    """Hash every rule and glossary version's English text again as it stands (a maintainer's
    edit included: the text is read, never rewritten), store the hashes that changed and derive
    the change flags of their lineages and terms again. Returns how many versions had stale
    hashes. The models are a data migration's historical ones (the current ones by default)."""
    examples = _examples(example_model)
    rules, stale_rules = _rehash(rule_model, "lineage_id", examples)
    refresh_rule_changes(rules, rule_model)
    terms, stale_terms = _rehash(glossary_model, "term_id", {})
    refresh_term_changes(terms, glossary_model)
    return stale_rules + stale_terms


def _examples(example_model: type[models.Model]) -> dict[int, tuple[str, ...]]:
    """Each rule version's examples' English texts, in their order (what refresh_rule_version
    hashes)."""
    texts: dict[int, list[str]] = defaultdict(list)
    rows = example_model.objects.order_by("version_id", "position").values_list(
        "version_id", "text_en"
    )
    for version_id, text in rows.iterator(chunk_size=_BATCH):
        texts[version_id].append(text or "")
    return {version_id: tuple(found) for version_id, found in texts.items()}


def _rehash(
    model: type[models.Model], owner: str, examples: dict[int, tuple[str, ...]]
) -> tuple[set[int], int]:
    """Rewrite the versions whose stored hashes differ from their texts' hashes. Returns the
    lineages (or terms) they belong to and how many there were."""
    updates, owners = [], set()
    rows = model.objects.order_by("id").values_list("id", owner, "text_en", *HASH_FIELDS)
    for version_id, owner_id, text, *stored in rows.iterator(chunk_size=_BATCH):
        h = hashes(text or "", examples.get(version_id, ()))
        fresh = (h.text, h.folded, h.masked, h.examples)
        if tuple(stored) != fresh:
            updates.append((*fresh, version_id))
            owners.add(owner_id)
    update_rows(model, list(HASH_FIELDS), updates)
    return owners, len(updates)
