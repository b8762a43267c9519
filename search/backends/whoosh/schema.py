"""The index's fields: one title, body and extra field per language, and how a document
fills them.

Field names carry the language code (`title_fr`); which languages exist comes from
search.conf, so a new language is new fields here with no code change.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from functools import lru_cache

from whoosh.fields import ID, NUMERIC, STORED, TEXT, Schema

from search import conf
from search.backends.whoosh import analyzers
from search.documents import SearchDocument

OPEN_END = dt.date.max.toordinal()
NUMBER_BOOST = 30.0
#: Titles weigh most, examples and type lines least.
TITLE_BOOST, BODY_BOOST, EXTRA_BOOST = 4.0, 1.0, 0.3
#: word*: titles are unstemmed; bodies are stemmed, so a prefix there matches stems ("trampl*").
TITLE_PREFIX_BOOST, BODY_PREFIX_BOOST = 2.0, 0.5


def title_field(code: str) -> str:
    return f"title_{code}"


def body_field(code: str) -> str:
    return f"body_{code}"


def extra_field(code: str) -> str:
    return f"extra_{code}"


@lru_cache(maxsize=1)
def language_fields() -> dict[str, tuple[tuple[str, float], ...]]:
    """(field, boost) searched for each language."""
    return {
        code: (
            (title_field(code), TITLE_BOOST),
            (body_field(code), BODY_BOOST),
            (extra_field(code), EXTRA_BOOST),
        )
        for code in conf.codes()
    }


@lru_cache(maxsize=1)
def field_language() -> dict[str, str]:
    """The language of each text field."""
    return {name: code for code, fields in language_fields().items() for name, _ in fields}


@lru_cache(maxsize=1)
def prefix_fields() -> tuple[tuple[str, float], ...]:
    codes = conf.codes()
    return tuple(
        [(title_field(c), TITLE_PREFIX_BOOST) for c in codes]
        + [(body_field(c), BODY_PREFIX_BOOST) for c in codes]
    )


def schema() -> Schema:
    texts = {}
    for code, analyzer in conf.configured():
        # Titles (headings, glossary terms, card names) are unstemmed: prefixes match
        # ("Audaci*") and their words are the did-you-mean dictionary. Titles are also
        # columns: autocomplete reads them all at once (see suggesting.read_catalogue).
        texts[title_field(code)] = TEXT(
            analyzers.names(), stored=True, spelling=True, sortable=True
        )
        texts[body_field(code)] = TEXT(analyzers.text_analyzer(analyzer), stored=True)
        texts[extra_field(code)] = TEXT(analyzers.text_analyzer(analyzer), stored=True)
    return Schema(
        id=ID(unique=True, sortable=True),  # read from its column, not stored twice
        kind=ID(stored=True, sortable=True),
        group=ID,
        key=STORED,
        # Columns too: a collapsed hit lists the refs and labels of the documents it stands for.
        ref=ID(stored=True, sortable=True),
        handle=ID,  # the ref of documents looked up by it (glossary entries)
        label=ID(stored=True, sortable=True),
        collapse=ID(sortable=True),  # a hash of the document's collapse key
        date=STORED,
        chapter=STORED,
        number=ID(stored=True),
        valid_from=NUMERIC(int, bits=32, stored=True),
        valid_to=NUMERIC(int, bits=32, stored=True),
        **texts,
    )


def document_fields(doc: SearchDocument) -> dict:
    """What Whoosh stores and indexes of a document."""
    fields = {
        "id": doc.doc_id,
        "kind": doc.kind,
        "group": doc.group_id,
        "key": doc.key,
        "ref": doc.ref,
        "handle": doc.ref if doc.lookup else "",
        "label": doc.label,
        "collapse": collapse_key(doc.collapse),
        "date": doc.date.isoformat() if doc.date else "",
        "chapter": doc.chapter,
        "number": doc.number.lower(),
        "valid_from": doc.valid_from.toordinal() if doc.valid_from else 0,
        "valid_to": doc.valid_to.toordinal() if doc.valid_to else OPEN_END,
    }
    for code in conf.codes():
        fields[title_field(code)] = doc.titles.get(code, "")
        fields[body_field(code)] = doc.bodies.get(code, "")
        fields[extra_field(code)] = doc.extras.get(code, "")
    return fields


def collapse_key(text: str) -> str:
    """A short stand-in for a collapse key (the keys are whole texts)."""
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest() if text else ""


def day(ordinal: int) -> dt.date | None:
    """A stored day number as a date (None: open or unset)."""
    if not ordinal or ordinal >= OPEN_END:
        return None
    return dt.date.fromordinal(ordinal)
