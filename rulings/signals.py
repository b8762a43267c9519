"""Listen to kb: when a release is imported, replaced or removed, or the links across Magic
2010 change, the numbers a link records (then and now) may change (re-resolved from the links'
lineages), and the rulings leaning on the rules it changed are relinked; a maintainer's English
edit of a rule relinks its rulings."""

from __future__ import annotations

import logging

from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from kb.models import Release
from kb.signals import era_links_changed, release_changed, rules_changed, text_edited
from rulings import stamp
from rulings.models import Card, CardFace, Ruling, RulingLink

logger = logging.getLogger(__name__)

# A save or delete of a card, face, ruling or link made outside the services (an admin
# formset, a shell) moves the pages' stamp too; the services' bulk writes bump it themselves.
for _model in (Card, CardFace, Ruling, RulingLink):
    post_save.connect(
        stamp.bump, sender=_model, dispatch_uid=f"rulings-stamp-save-{_model.__name__}"
    )
    post_delete.connect(
        stamp.bump, sender=_model, dispatch_uid=f"rulings-stamp-delete-{_model.__name__}"
    )


@receiver(release_changed, sender=Release, dispatch_uid="rulings-refresh-link-numbers")
@receiver(era_links_changed, dispatch_uid="rulings-refresh-link-numbers-across-2010")
def refresh_link_numbers(**kwargs: object) -> None:
    from rulings.linking import refresh_numbers

    refresh_numbers()


@receiver(rules_changed, dispatch_uid="rulings-relink-after-rules-changed")
def relink_after_rules_changed(
    *, lineages: frozenset[int] = frozenset(), terms: frozenset[int] = frozenset(), **kwargs
) -> None:
    """A release was published, replaced or removed (or a batch of them): the rulings whose
    links the changed rules can move are relinked now, not at the next start (see
    rulings.linking.changed)."""
    from rulings.linking import relink_changed

    try:
        relink_changed(lineages, terms)
    except Exception:  # the release is committed: never fail its request for the links
        # The rulings keep their links and their link time, so the next start relinks them
        # all (rulings.linking.rules_changed_since_linking), as before this hook existed.
        logger.exception("relinking the rulings after a change of the rules failed")


#: What the linker reads of a rule: its English text and examples (a French text is not read).
_LINKED_FIELDS = {"text_en", "examples"}


@receiver(text_edited, dispatch_uid="rulings-relink-after-a-rule-edit")
def relink_after_a_rule_edit(
    *, kind: str = "", lineage_id: int | None = None, fields: tuple[str, ...] = (), **kwargs
) -> None:
    """A maintainer changed a rule's English text or examples: the rulings linked to it are
    linked again (an inferred link may no longer hold; confirmed and rejected links stay as
    decided). A French-only edit changes nothing the linker reads: nothing is relinked."""
    if kind != "rule" or lineage_id is None:
        return
    if fields and not _LINKED_FIELDS & set(fields):  # no fields named: assume the English
        return
    from rulings.linking import link_rulings
    from rulings.models import RulingLink

    ids = list(RulingLink.objects.filter(lineage_id=lineage_id).values_list("ruling_id", flat=True))
    if ids:
        link_rulings(sorted(set(ids)))
