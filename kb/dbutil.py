"""Plain-SQL bulk helpers for hot paths (imports), portable across SQLite and PostgreSQL.

Django's bulk_update builds CASE expressions and bulk_create instantiates models (with
modeltranslation's patched __init__): on tens of thousands of rows that dominates an import.
These run one prepared statement for many rows instead.
"""

from __future__ import annotations

import datetime as dt
import json
import uuid
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from django.db import connection, models
from django.db.backends.base.operations import BaseDatabaseOperations
from django.db.models.expressions import DatabaseDefault, Value
from django.utils import timezone
from modeltranslation.fields import TranslationFieldDescriptor

_CHUNK = 900  # stay under SQLite's bound-parameter limit
_PSYCOPG_CACHED_SQL = 4096  # psycopg's MAX_CACHED_STATEMENT_LENGTH


def chunks(ids: Sequence[Any], size: int = _CHUNK) -> list[list[Any]]:
    ids = list(ids)
    return [ids[i : i + size] for i in range(0, len(ids), size)]


def adapt(value: Any) -> Any:
    """A Python value as a database parameter (dates, JSON lists/dicts, UUIDs)."""
    if isinstance(value, uuid.UUID):
        return value.hex if connection.vendor == "sqlite" else value
    if isinstance(value, dt.datetime):
        return connection.ops.adapt_datetimefield_value(value)
    if isinstance(value, dt.date):
        return connection.ops.adapt_datefield_value(value)
    if isinstance(value, list | dict):
        return json.dumps(value, ensure_ascii=False)
    return value


def _insert_sql(model: type[models.Model], fields: list[str], n_rows: int) -> str:
    qn = connection.ops.quote_name
    columns = ", ".join(qn(model._meta.get_field(f).column) for f in fields)
    one = "(" + ", ".join(["%s"] * len(fields)) + ")"
    return f"INSERT INTO {qn(model._meta.db_table)} ({columns}) VALUES " + ", ".join([one] * n_rows)


def insert_rows(model: type[models.Model], fields: list[str], rows: list[tuple[Any, ...]]) -> None:
    """INSERT many plain rows (no ids needed back) without building model instances."""
    if rows:
        with connection.cursor() as cursor:
            cursor.executemany(_insert_sql(model, fields, 1), [tuple(map(adapt, r)) for r in rows])


def insert_returning(
    model: type[models.Model], fields: list[str], rows: list[tuple[Any, ...]]
) -> list[int]:
    """INSERT rows and return their ids in order (multi-row VALUES ... RETURNING, as Django's
    own bulk_create does on SQLite >= 3.35 and PostgreSQL), without model instances."""
    ids: list[int] = []
    per_batch = max(1, 900 // len(fields))
    pk = connection.ops.quote_name(model._meta.pk.column)
    with connection.cursor() as cursor:
        for batch in chunks(rows, per_batch):
            params = [adapt(v) for row in batch for v in row]
            cursor.execute(_insert_sql(model, fields, len(batch)) + f" RETURNING {pk}", params)
            ids.extend(r[0] for r in cursor.fetchall())
    return ids


_MISSING = object()
_NONE = type(None)


class _Values:
    """Attribute access to a row's values, for modeltranslation's descriptor to read."""

    def __init__(self, values: dict[str, Any]) -> None:
        self.__dict__.update(values)


def _default(field: models.Field) -> Any:
    """What bulk_create stores for a field the instance was not given."""
    value = field.get_default()
    if isinstance(value, DatabaseDefault):  # what the column's DEFAULT stores
        value = field.db_default
        if isinstance(value, Value):
            value = value.value
        elif hasattr(value, "resolve_expression"):
            raise NotImplementedError(f"{field}: db_default is not a constant")
    return value


def _identity(value: Any) -> Any:
    return value


def _adapt_integer(ops: BaseDatabaseOperations, internal: str, value: int) -> Any:
    return ops.adapt_integerfield_value(value, internal)


def _shortcut(field: models.Field) -> tuple[tuple[type, ...], Callable[[Any], Any]]:
    """Value types for which the field's get_db_prep_save reduces to one known step on this
    database, and that step (checked against Django's own classes: a field that overrides any
    part of the preparation gets no shortcut), so that the common case skips four calls per
    value. None always stays None in these families."""
    if type(field).get_db_prep_save is not models.Field.get_db_prep_save:
        return (), _identity
    ops = connection.ops
    integers: Callable[[Any], Any] = _identity  # SQLite: unchanged
    if type(ops).adapt_integerfield_value is not BaseDatabaseOperations.adapt_integerfield_value:
        # PostgreSQL wraps ints in its typed dumpers (Int2, Int4, Int8).
        integers = partial(_adapt_integer, ops, field.get_internal_type())
    families: list[tuple[type[models.Field], type, Callable[[Any], Any]]] = [
        (models.CharField, str, _identity),
        (models.TextField, str, _identity),
        (models.BooleanField, bool, _identity),
        (models.IntegerField, int, integers),
        (models.DateField, dt.date, ops.adapt_datefield_value),
    ]
    for base, kind, step in families:
        if isinstance(field, base) and all(
            getattr(type(field), m) is getattr(base, m)
            for m in ("get_db_prep_value", "get_prep_value", "to_python")
        ):
            return (kind, _NONE), step
    return (), _identity


def _preparer(
    model: type[models.Model], field: models.Field, now: dt.datetime
) -> Callable[[dict[str, Any]], Any]:
    """A function of a row (a dict) returning the field's value as bulk_create would send it."""
    prep = field.get_db_prep_save
    if getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False):
        fixed = prep(
            now if isinstance(field, models.DateTimeField) else dt.date.today(), connection
        )
        return lambda row: fixed  # whatever the row says, as pre_save does
    descriptor = model.__dict__.get(field.name)
    if isinstance(descriptor, TranslationFieldDescriptor):
        # The base column of a translated field: read through modeltranslation's descriptor
        # (active language, fallbacks) from the translations, as pre_save does.
        languages = [
            f for f in model._meta.concrete_fields if getattr(f, "translated_field", None) is field
        ]

        def translated(row: dict[str, Any]) -> Any:
            values = {}
            for f in languages:
                value = row.get(f.attname, _MISSING)
                values[f.attname] = _default(f) if value is _MISSING else value
            return prep(descriptor.__get__(_Values(values), model), connection)

        return translated
    key = field.attname
    target = getattr(field, "target_field", None)
    if (
        type(field).get_db_prep_save is models.ForeignKey.get_db_prep_save
        and type(target) in (models.AutoField, models.BigAutoField)
        and type(connection.ops).validate_autopk_value
        is BaseDatabaseOperations.validate_autopk_value
    ):
        # An id: ForeignKey.get_db_prep_save gives ints (and None) back unchanged here.
        def foreign_key(row: dict[str, Any]) -> Any:
            value = row.get(key, _MISSING)
            if value is _MISSING:
                value = _default(field)
            return value if type(value) in (int, _NONE) else prep(value, connection)

        return foreign_key
    kinds, step = _shortcut(field)

    def plain(row: dict[str, Any]) -> Any:
        value = row.get(key, _MISSING)
        if value is _MISSING:
            value = _default(field)
        if type(value) in kinds:
            return None if value is None else step(value)
        return prep(value, connection)

    return plain


def under(row: dict[str, Any], key: str, parent_id: int) -> dict[str, Any]:
    """A nested row (a card's face, a release's anomaly) with its parent's id. A row that
    names a parent of its own is malformed input: refused (ValueError), not silently moved."""
    if key in row:
        raise ValueError(f"{key} given inside the entry of its parent")
    return {**row, key: parent_id}


def insert_dicts(
    model: type[models.Model], rows: list[dict[str, Any]], *, returning: bool = False
) -> list[int]:
    """INSERT rows given as {attname: value} into every concrete column of `model`, storing
    what `bulk_create` of the same instances stores, without building them (model __init__,
    patched by modeltranslation, and the SQL compiler's per-value work dominate a restore).

    What bulk_create does implicitly is done here too, so that a caller cannot forget a
    column: a column the row does not give gets the field's default (or its constant
    db_default, which bulk_create stores through DEFAULT or the literal); auto_now/auto_now_add
    get the time of the call (one for all rows, whatever the row says); the base column of a
    modeltranslation field is read through its descriptor from the row's `*_en`/`*_fr`
    values in the active language (any value given for it is ignored, as on save); every
    value goes through the field's own get_db_prep_save (JSON, UUIDs, datetimes), or the one
    step of it that applies to its type (`_shortcut`: strings, booleans, ids, ints, dates).
    Foreign keys are given by attname (`card_id`). Returns the new ids in row order when
    `returning` (an empty list otherwise); a key that is no column is refused (TypeError)."""
    if not rows:
        return []
    now = timezone.now()
    pk = model._meta.pk
    fields = [f for f in model._meta.concrete_fields if f is not pk]
    preparers = [_preparer(model, f, now) for f in fields]
    known = {f.attname for f in fields}
    for row in rows:
        if not row.keys() <= known:  # a misspelt key would silently store a default
            raise TypeError(f"{model.__name__} has no column {sorted(row.keys() - known)}")
    prepared = [tuple([p(row) for p in preparers]) for row in rows]
    names = [f.name for f in fields]
    sqlite = connection.vendor == "sqlite"
    if not returning and sqlite:  # one prepared statement: SQLite's fastest way
        with connection.cursor() as cursor:
            cursor.executemany(_insert_sql(model, names, 1), prepared)
        return []
    # Multi-row VALUES. SQLite binds at most 999 parameters. psycopg parses a statement's
    # placeholders in Python on each execute (it caches only statements of at most 4096
    # bytes and 50 parameters), and its parse of bulk_create-sized statements took longer
    # than the inserts; measured on the whole archive, statements of about 4 KB cost least
    # (one row per statement: a round trip each; executemany: a server execute per row).
    if sqlite:
        per_batch = max(1, _CHUNK // len(fields))
    else:
        header, row_sql = len(_insert_sql(model, names, 0)), len(", (" + ", %s" * len(fields))
        per_batch = max(1, (_PSYCOPG_CACHED_SQL - header - 40) // row_sql)
    suffix = f" RETURNING {connection.ops.quote_name(pk.column)}" if returning else ""
    ids: list[int] = []
    with connection.cursor() as cursor:
        for batch in chunks(prepared, per_batch):
            params = [v for row in batch for v in row]
            cursor.execute(_insert_sql(model, names, len(batch)) + suffix, params)
            if returning:
                ids.extend(r[0] for r in cursor.fetchall())
    return ids


def update_rows(model: type[models.Model], fields: list[str], rows: list[tuple[Any, ...]]) -> None:
    """UPDATE ... WHERE id = ? for many rows: one prepared statement, no CASE expressions."""
    if not rows:
        return
    qn = connection.ops.quote_name
    columns = [model._meta.get_field(f).column for f in fields]
    sql = (
        f"UPDATE {qn(model._meta.db_table)} SET "
        + ", ".join(f"{qn(c)} = %s" for c in columns)
        + f" WHERE {qn(model._meta.pk.column)} = %s"
    )
    with connection.cursor() as cursor:
        cursor.executemany(sql, [tuple(map(adapt, r)) for r in rows])
