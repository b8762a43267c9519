"""The one fix applied to Whoosh (search.backends.whoosh.patches): a field with no length
column is looked up on disk once per segment reader, not once per posting."""

from __future__ import annotations

from pathlib import Path

from whoosh import index
from whoosh.fields import ID, TEXT, Schema

import search.backends.whoosh.backend  # noqa: F401 - importing the backend applies the fix


def test_a_missing_length_column_is_looked_up_once(tmp_path: Path, monkeypatch) -> None:
    ix = index.create_in(tmp_path, Schema(kind=ID(stored=True), body=TEXT))
    with ix.writer() as w:
        w.add_document(kind="rule", body="trample over planeswalkers")
    reader = ix.reader()
    per_doc = reader._perdoc  # the segment's per-document reader
    asked: list[str] = []
    real = per_doc.has_column
    monkeypatch.setattr(per_doc, "has_column", lambda name: asked.append(name) or real(name))
    for _ in range(3):
        assert reader.doc_field_length(0, "kind") == 0  # ID fields keep no lengths
        assert reader.doc_field_length(0, "body") == 3
    assert asked == ["_kind_len", "_body_len"], asked
