"""Whoosh's hits as the engine's Hit: stored fields, highlighted snippets per language, and
which languages matched."""

from __future__ import annotations

import datetime as dt
import html

from whoosh import highlight
from whoosh.fields import Schema
from whoosh.query import Prefix, Query

from search import analysis, conf
from search.backend import SearchRequest
from search.backends.whoosh.schema import (
    OPEN_END,
    body_field,
    day,
    extra_field,
    field_language,
    title_field,
)
from search.documents import Hit, plain_snippet


class Mark(highlight.Formatter):
    """Matches in <mark>, everything else escaped: snippets are safe to show as HTML."""

    between = " … "

    def format_token(self, text, token, replace=False):
        return f"<mark>{html.escape(highlight.get_text(text, token, replace))}</mark>"

    def format_fragment(self, fragment, replace=False):
        out, index_ = [], fragment.startchar
        text = fragment.text
        for t in fragment.matches:
            if t.startchar is None or t.startchar < index_:
                continue
            out.append(html.escape(text[index_ : t.startchar]))
            out.append(self.format_token(text, t, replace))
            index_ = t.endchar
        out.append(html.escape(text[index_ : fragment.endchar]))
        return "".join(out)


def query_terms(query: Query) -> dict[str, set[str]]:
    """The words the query asks for, by field; a prefix ends with "*"."""
    terms: dict[str, set[str]] = {}
    text_fields = field_language()
    for leaf in query.leaves():
        for name, text in leaf.iter_all_terms(phrases=True):
            if name in text_fields:
                word = text.decode() if isinstance(text, bytes) else text
                terms.setdefault(name, set()).add(f"{word}*" if isinstance(leaf, Prefix) else word)
    return terms


def to_hit(hit, request: SearchRequest, terms: dict[str, set[str]], schema: Schema) -> Hit:
    fields = hit.fields()
    codes = conf.codes()
    snippets = {
        code: _snippet(hit, (body_field(code), extra_field(code)), request, terms, schema)
        for code in codes
    }
    marked = {code for code, s in snippets.items() if "<mark>" in s}
    matched = _matched(fields, terms, marked, not request.snippets, schema)
    return Hit(
        kind=fields["kind"],
        key=fields["key"],
        ref=fields["ref"],
        titles={code: fields.get(title_field(code), "") for code in codes},
        number=fields.get("number", ""),
        chapter=fields.get("chapter", ""),
        label=fields.get("label", ""),
        date=dt.date.fromisoformat(fields["date"]) if fields.get("date") else None,
        valid_from=day(fields.get("valid_from", 0)),
        valid_to=day(fields.get("valid_to", OPEN_END)),
        score=float(hit.score or 0.0),
        snippets=snippets,
        matched=tuple(matched),
        text=fields.get(body_field(codes[0]), "")[:300],
    )


def _matched(
    fields: dict, terms: dict[str, set[str]], marked: set[str], bodies: bool, schema: Schema
) -> list[str]:
    """Languages whose fields hold a word of the query: the highlighted snippets say it for
    the bodies (`marked`); titles are read again, being short (cheaper than asking Whoosh
    to record matched terms for every match)."""
    langs = set(marked)
    for name, lang in field_language().items():
        wanted, text = terms.get(name), fields.get(name)
        if lang in langs or not wanted or not text:
            continue
        if not bodies and not name.startswith("title_"):
            continue
        prefixes = tuple(w[:-1] for w in wanted if w.endswith("*"))
        for token in schema[name].analyzer(text):
            if token.text in wanted or (prefixes and token.text.startswith(prefixes)):
                langs.add(lang)
                break
    return sorted(langs)


def _snippet(
    hit,
    names: tuple[str, ...],
    request: SearchRequest,
    terms: dict[str, set[str]],
    schema: Schema,
) -> str:
    """The marked passages of the first field holding a query word, else the text's start.
    Analysed with this process's schema, not the one pickled in the index: that one is only as
    new as the last full rebuild (an index built before analyzers.WordCache existed
    analysed every word of every snippet again, a third of a results page's time)."""
    text = hit.get(names[0], "")
    if not text:
        return ""
    if request.snippets:
        for name in names:
            wanted = terms.get(name, ())
            if hit.get(name) and _may_match(hit.get(name), wanted):
                marked = highlighted(hit.get(name), schema[name].analyzer, wanted)
                if marked:
                    return marked
    return plain_snippet(text)


_FRAGMENTER = highlight.ContextFragmenter(maxchars=300, surround=80)
_SCORER = highlight.BasicFragmentScorer()
_FORMATTER = Mark()


def highlighted(text: str, analyzer, wanted: set[str] | tuple, top: int = 2) -> str:
    """The `top` passages of `text` with the most of the query's words, those words marked:
    Whoosh's fragmenter, scorer and formatter over the field's tokens, stop words kept as
    Whoosh's highlighter keeps them (the analyzer, a WordCache, analyses each word once)."""
    words = frozenset(w for w in wanted if not w.endswith("*"))
    prefixes = tuple(w[:-1] for w in wanted if w.endswith("*"))

    def marked(tokens):
        for t in tokens:
            t.matched = bool(t.text) and (
                t.text in words or (bool(prefixes) and t.text.startswith(prefixes))
            )
            yield t

    tokens = analyzer(text[: _FRAGMENTER.charlimit], chars=True, mode="index", removestops=False)
    # Whoosh's top_fragments breaks ties between passages by their objects' ids (memory
    # addresses): the earlier passage wins here, so a snippet is the same every time.
    scored = [(_SCORER(f), f) for f in _FRAGMENTER.fragment_tokens(text, marked(tokens))]
    best = sorted(scored, key=lambda sf: (-sf[0], sf[1].startchar))[:top]
    return _FORMATTER.format(sorted((f for score, f in best if score >= 1), key=highlight.FIRST))


def _may_match(text: str, wanted: set[str] | tuple) -> bool:
    """False when no word of the query can be in `text`, so that highlighting it (analysing
    every word again: most of a results page's cost) is skipped. A stem differs from its
    words only at its end ("happi" from "happy"), so its start must appear in the folded
    text; a false "maybe" only costs the highlighting it would have cost anyway."""
    if not wanted:
        return False
    folded = analysis.fold(text)
    for word in wanted:
        stem = word.rstrip("*")
        start = stem[: max(2, len(stem) - 2)]
        if start in folded:
            return True
    return False
