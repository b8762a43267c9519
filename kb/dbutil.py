"""Plain-SQL bulk helpers for hot paths (imports), portable across SQLite and PostgreSQL.

Django's bulk_update builds CASE expressions and bulk_create instantiates models (with
modeltranslation's patched __init__): on tens of thousands of rows that dominates an import.
These run one prepared statement for many rows instead.
"""

from __future__ import annotations

import datetime as dt
import json
import uuid
from collections.abc import Sequence
from typing import Any

from django.db import connection, models

_CHUNK = 900  # stay under SQLite's bound-parameter limit


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
