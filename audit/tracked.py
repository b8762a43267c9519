"""Which models keep a history of their values (django-simple-history), and where.

The historical tables live in this app, not beside the models they follow: their migrations
are then this app's alone, and kb or rulings can change their own without touching these.
Registered from this app's ready(), which runs after django-modeltranslation has added the
translated columns (text_en, text_fr), as its documentation requires: every language's value
is kept.
"""

from __future__ import annotations

import contextlib

from django.apps import apps
from django.utils import timezone

#: The models a maintainer edits (app label, model name).
TRACKED = (
    ("kb", "Release"),
    ("kb", "RuleVersion"),
    ("kb", "Example"),
    ("kb", "GlossaryTerm"),
    ("kb", "GlossaryVersion"),
    ("kb", "VocabularyTerm"),
    ("rulings", "Card"),
    ("rulings", "CardFace"),
    ("rulings", "Ruling"),
    ("rulings", "RulingLink"),
)


def track() -> None:
    from django.db.models.signals import pre_save
    from simple_history import register
    from simple_history.exceptions import MultipleRegistrationsError

    for app_label, name in TRACKED:
        model = apps.get_model(app_label, name)
        # ready() may run twice in one process (tests): registered once is enough.
        with contextlib.suppress(MultipleRegistrationsError):
            register(model, app="audit", manager_name="history")
        pre_save.connect(keep_the_imported_state, sender=model, dispatch_uid=f"audit.{name}")


#: The change reason of the state a row had before its first tracked change.
IMPORTED = "as imported"


def keep_the_imported_state(sender, instance, raw=False, **kwargs) -> None:
    """Imports write rows in bulk, without history: before a row's first change, its stored
    state becomes its first record, so that the first edit shows its old values and can be
    reverted."""
    if raw or instance.pk is None or instance.history.exists():
        return
    stored = sender._default_manager.filter(pk=instance.pk).first()
    if stored is not None:
        sender.history.bulk_history_create(
            [stored], default_change_reason=IMPORTED, default_date=timezone.now()
        )
