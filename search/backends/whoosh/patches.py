"""One fix to Whoosh 2.7.4 (pinned; the project is no longer maintained upstream).

A segment's per-document reader looks up a field's length column on every posting it writes
or scores, and remembers the column only when it exists: for fields without lengths (the ID
fields: kind, group, number, ...) every lookup asks the file system again. That was a sixth of
a full index build. Segments never change once written, so the answer "no such column" can be
kept like any other.
"""

from __future__ import annotations

from whoosh.codec import whoosh3


def _cached_reader(self, fieldname, column):
    try:
        return self._readers[fieldname]
    except KeyError:
        reader = self.column_reader(fieldname, column) if self.has_column(fieldname) else None
        self._readers[fieldname] = reader
        return reader


def apply() -> None:
    whoosh3.W3PerDocReader._cached_reader = _cached_reader
