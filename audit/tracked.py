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
    from simple_history import register
    from simple_history.exceptions import MultipleRegistrationsError

    for app_label, name in TRACKED:
        model = apps.get_model(app_label, name)
        # ready() may run twice in one process (tests): registered once is enough.
        with contextlib.suppress(MultipleRegistrationsError):
            register(model, app="audit", manager_name="history")
