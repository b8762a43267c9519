"""Every edit of a tracked model keeps the values before and after, and who made it."""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.auth.models import User

from audit.tracked import TRACKED
from kb.models import Lineage, Release, RuleVersion

pytestmark = pytest.mark.django_db


def test_every_tracked_model_has_a_history() -> None:
    from django.apps import apps

    for app_label, name in TRACKED:
        model = apps.get_model(app_label, name)
        assert hasattr(model, "history"), name
        assert model.history.model._meta.app_label == "audit"


def test_an_edit_keeps_both_languages_values_and_its_author() -> None:
    release = Release.objects.create(effective_date=dt.date(1990, 1, 24), sha256="a")
    lineage = Lineage.objects.create(key="999.9z@1990-01-24", kind="subrule")
    version = RuleVersion.objects.create(
        lineage=lineage,
        text_en="Old text.",
        valid_from=release.effective_date,
        wording_since=release.effective_date,
    )
    user = User.objects.create_user("mai")
    version.text_fr = "Texte français."
    version._history_user = user
    version.save()
    latest, first = version.history.all()[:2]
    assert latest.history_user == user and latest.text_fr == "Texte français."
    changes = {c.field: (c.old, c.new) for c in latest.diff_against(first).changes}
    assert changes == {"text_fr": (None, "Texte français.")}
