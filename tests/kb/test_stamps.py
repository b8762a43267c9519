"""The archive's stamp moves when a migration is applied (issue 34)."""

from __future__ import annotations

import pytest
from django.db.migrations.recorder import MigrationRecorder

from kb import stamps


@pytest.mark.django_db
def test_an_applied_migration_moves_the_stamp() -> None:
    """A data migration may rewrite what is derived from the texts (kb/migrations/0006: the
    hashes and change flags) with no import or edit: caches keyed by the stamp must miss."""
    before = stamps.archive_generation()
    assert stamps.archive_generation() == before
    MigrationRecorder.Migration.objects.create(app="kb", name="9999_rewrites_derived_columns")
    assert stamps.archive_generation() != before
