"""Listen to kb: when a release is imported, replaced or removed, the numbers a link records
(then and now) may change; re-resolve them from the links' lineages."""

from __future__ import annotations

from django.dispatch import receiver

from kb.models import Release
from kb.signals import release_changed


@receiver(release_changed, sender=Release, dispatch_uid="rulings-refresh-link-numbers")
def refresh_link_numbers(**kwargs: object) -> None:
    from .linking import refresh_numbers

    refresh_numbers()
