"""Helpers for tests that import cards."""

from __future__ import annotations

from django.db import connection

#: Child tables first.
TABLES = ["rulings_rulinglink", "rulings_ruling", "rulings_cardface", "rulings_card"]


def clear_cards() -> None:
    """Empty the cards tables within the test's transaction (rolled back afterwards): the
    session's full card set may be loaded."""
    with connection.cursor() as cursor:
        for table in TABLES:
            cursor.execute(f"DELETE FROM {connection.ops.quote_name(table)}")
