"""Signals other apps listen to (kb never imports them; they subscribe)."""

from django.dispatch import Signal

#: Sent after a release is imported, replaced or removed and committed.
#: kwargs: effective_date (datetime.date), action ("created", "replaced", "removed").
release_changed = Signal()

#: Sent once the rows of the rules changed and were committed: after one import, replacement
#: or removal (the admin's publish), or once after a batch of them (import_rules, make run's
#: load), so that what other apps derived from the rules' texts follows at once rather than at
#: the next start (the rulings app relinks the rulings that lean on what changed).
#: kwargs: dates (tuple of the effective dates imported, replaced or removed), lineages
#: (frozenset of the rule Lineage ids whose rows changed: wording, examples, number, added or
#: gone), terms (frozenset of the GlossaryTerm ids whose rows changed).
rules_changed = Signal()

#: Sent after a maintainer's edit is committed (kb.archive.editing), so that what leans on the text
#: follows it (the rulings app re-resolves its links to the lineage).
#: sender: the kind, a str; kwargs: kind ("rule", "glossary", "vocabulary"), object_id (the
#: RuleVersion / GlossaryVersion / VocabularyTerm id), lineage_id (Lineage id for "rule" and
#: "vocabulary", GlossaryTerm id for "glossary"; may be None), fields (tuple of the field
#: names changed, "examples" for an added or removed example), user (str).
text_edited = Signal()

#: Sent after the links across Magic 2010 changed and were committed (kb.archive.eras: computed
#: again, or a maintainer confirmed or rejected one), so that what reads a modern rule's legacy
#: past follows (the rulings app re-resolves the number a pre-2009 ruling's rule had then).
#: sender: kb.models.EraLink; no kwargs.
era_links_changed = Signal()
