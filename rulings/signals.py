"""Listen to kb: when a release is imported, replaced or removed, the numbers a link records
(then and now) may change; re-resolve them from the links' lineages."""

from __future__ import annotations

from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from kb.models import Release
from kb.signals import release_changed, text_edited

from . import stamp
from .models import Card, CardFace, Ruling, RulingLink

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
def refresh_link_numbers(**kwargs: object) -> None:
    from .linking import refresh_numbers

    refresh_numbers()


@receiver(text_edited, dispatch_uid="rulings-relink-after-a-rule-edit")
def relink_after_a_rule_edit(*, kind: str = "", lineage_id: int | None = None, **kwargs) -> None:
    """A maintainer changed a rule's text: the rulings linked to it are linked again (an
    inferred link may no longer hold; confirmed and rejected links stay as decided)."""
    if kind != "rule" or lineage_id is None:
        return
    from .linking import link_rulings
    from .models import RulingLink

    ids = list(RulingLink.objects.filter(lineage_id=lineage_id).values_list("ruling_id", flat=True))
    if ids:
        link_rulings(sorted(set(ids)))
