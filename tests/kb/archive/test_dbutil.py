"""kb.dbutil.insert_dicts stores what Django's bulk_create of the same instances stores, column
by column (it replaces bulk_create in import_data, where building instances dominated)."""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

import pytest
from django.db import connection, models
from django.utils import timezone, translation

from kb.dbutil import insert_dicts
from kb.models import Example, Lineage, Release, RuleVersion
from rulings.models import Card

pytestmark = pytest.mark.django_db

WRITE_TIMES = {"imported_at", "updated_at"}


def _raw(model: type[models.Model], ids: list[int]) -> list[tuple[Any, ...]]:
    """The stored columns of these rows (plain SQL: the translated base column as stored), the
    id and the write times left out."""
    columns = [f.column for f in model._meta.concrete_fields if not f.primary_key]
    kept = [c for c in columns if c not in WRITE_TIMES]
    qn = connection.ops.quote_name
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {', '.join(map(qn, kept))} FROM {qn(model._meta.db_table)} "
            f"WHERE id IN ({', '.join(['%s'] * len(ids))}) ORDER BY id",
            ids,
        )
        return cursor.fetchall()


def _both(model: type[models.Model], rows: list[dict[str, Any]]) -> tuple[list, list]:
    """The rows as bulk_create stores them (then deleted: unique keys), and as insert_dicts
    stores them."""
    created = [o.pk for o in model.objects.bulk_create([model(**row) for row in rows])]
    before = _raw(model, created)
    model._base_manager.filter(pk__in=created).delete()
    ids = insert_dicts(model, rows, returning=True)
    assert len(ids) == len(rows) and ids == sorted(ids)
    return before, _raw(model, ids)


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_rows_are_stored_as_bulk_create_stores_them(db, lang: str) -> None:
    started = timezone.now()
    with translation.override(lang):
        # Release: set_name read from set_name_en/fr with the English fallback, JSON, a date.
        releases = [
            {
                "effective_date": dt.date(1990, 1, 24 + i),
                "set_name_en": en,
                "set_name_fr": fr,
                "counts": {"rules": 3, "é": [1]},
                "source": "x.txt",
            }
            for i, (en, fr) in enumerate([("Alpha", None), ("Beta", "Bêta"), ("", "Gamma")])
        ]
        before, after = _both(Release, releases)
        assert after == before
        assert [r[1] for r in after] == (
            ["Alpha", "Beta", ""] if lang == "en" else ["Alpha", "Bêta", "Gamma"]
        )
        # Card: a UUID, JSON lists and an object, a float, nullable translations, defaults.
        cards = [
            {
                "key": f"dbutil-{lang}-{i}",
                "slug": f"dbutil-{lang}-{i}",
                "oracle_id": uuid.UUID(int=i) if i else None,
                "name_en": "Forest",
                "name_fr": "Forêt" if i else None,
                "text_en": None,
                "mana_value": 2 if i else None,
                "colors": ["G"],
                "printings": [{"set": "LEA"}],
                "edited": {"name_fr": True} if i else {},
            }
            for i in range(2)
        ]
        before, after = _both(Card, cards)
        assert after == before
        # RuleVersion and Example: nullable keys, booleans, aware datetimes, text_fr only.
        lineage = Lineage.objects.create(key="dbutil@1990-01-24", kind="rule")
        versions = [
            {
                "lineage_id": lineage.id,
                "valid_from": dt.date(1990, 1, 24),
                "text_en": None,
                "text_fr": "Seulement en français.",
                "wording_since": dt.date(1990, 1, 24),
                "fr_release_id": None,
                "fr_edited": True,
                "edited_at": dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.UTC),
            }
        ]
        before, after = _both(RuleVersion, versions)
        assert after == before
        version = RuleVersion.objects.create(**{**versions[0], "valid_from": dt.date(1990, 2, 1)})
        examples = [{"version_id": version.id, "position": 0, "text_en": "Example: a."}]
        before, after = _both(Example, examples)
        assert after == before
    assert Release.objects.filter(imported_at__gte=started).count() == 3
    assert Card.objects.filter(updated_at__gte=started).count() == 2


def test_a_key_that_is_no_column_is_refused(db) -> None:
    with pytest.raises(TypeError, match=r"Lineage has no column \['kinds'\]"):
        insert_dicts(Lineage, [{"key": "dbutil@1990-01-24", "kinds": "rule"}])
    assert not Lineage.objects.filter(key="dbutil@1990-01-24").exists()
    assert insert_dicts(Lineage, []) == []
