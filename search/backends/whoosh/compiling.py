"""A parsed request as a Whoosh query: every item searched in the fields of the requested
languages, rule numbers boosted, prefixes over titles and stems, exclusions last."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

from whoosh.fields import Schema
from whoosh.query import And, AndNot, NumericRange, Or, Phrase, Prefix, Query, Term

from search import analysis
from search.backend import SearchRequest
from search.backends.whoosh.schema import NUMBER_BOOST, OPEN_END, language_fields, prefix_fields
from search.backends.whoosh.scoring import AtLeast
from search.syntax import Item
from search.syntax import Phrase as PhraseItem

Fields = list[tuple[str, float]]


def compile_request(request: SearchRequest, schema: Schema) -> Query | None:
    fields = [
        (name, boost * request.title_weight if name.startswith("title_") else boost)
        for lang, fs in language_fields().items()
        if request.lang in (None, lang)
        for name, boost in fs
    ]
    groups = [_group(g.items, fields, schema) for g in request.groups]
    groups = [g for g in groups if g is not None]
    if not groups:
        return None
    query: Query
    if len(groups) == 1:
        query = groups[0]
    elif 0 < request.min_match < len(groups):
        query = AtLeast(groups, minimum=request.min_match)
    else:
        query = And(groups)
    excluded = [_item(i, fields, schema) for i in request.excluded]
    excluded = [e for e in excluded if e is not None]
    if excluded:
        query = AndNot(query, Or(excluded))
    return query


def _group(items: Iterable[Item], fields: Fields, schema: Schema) -> Query | None:
    alternatives = [q for q in (_item(i, fields, schema) for i in items) if q is not None]
    if not alternatives:
        return None
    return Or(alternatives) if len(alternatives) > 1 else alternatives[0]


def _item(item: Item, fields: Fields, schema: Schema) -> Query | None:
    clauses: list[Query] = []
    if isinstance(item, PhraseItem):
        text, prefix = item.text, False
    else:
        text, prefix = item.text, item.prefix
        if text[:1].isdigit():
            clauses.append(Term("number", text.lower().rstrip("."), boost=NUMBER_BOOST))
    if prefix:
        stem = analysis.fold(text)
        clauses += [Prefix(f, stem, boost=b) for f, b in prefix_fields()]
    else:
        for name, boost in fields:
            tokens = [t.text for t in schema[name].analyzer(text, mode="query")]
            if len(tokens) == 1:
                clauses.append(Term(name, tokens[0], boost=boost))
            elif tokens:
                clauses.append(Phrase(name, tokens, boost=boost))
    if not clauses:
        return None
    return Or(clauses) if len(clauses) > 1 else clauses[0]


def release_filter(date: dt.date) -> Query:
    """Documents valid on `date`: valid_from <= date < valid_to."""
    day = date.toordinal()
    return And(
        [
            NumericRange("valid_from", None, day),
            NumericRange("valid_to", min(day + 1, OPEN_END), None),
        ]
    )
