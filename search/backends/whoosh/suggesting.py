"""Autocomplete and did-you-mean from what the titles hold, read once per searcher.

Why not Whoosh's own: a prefix query over titles expands to hundreds of terms (tens of
milliseconds) and its corrector takes a tenth of a second per field; a sorted catalogue of
folded titles answers a prefix with a binary search, and rapidfuzz compares a word with every
title word in a few milliseconds.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Callable

import numpy as np
from rapidfuzz import process
from rapidfuzz.distance import OSA
from whoosh.fields import Schema

from search import analysis, conf
from search.backend import Suggestion
from search.backends.whoosh import segments
from search.backends.whoosh.schema import OPEN_END, body_field, title_field

Catalogue = segments.Catalogue
plain = analysis.plain


def read_names(s, codes: np.ndarray, code: int) -> frozenset[str]:
    """Every name of the documents whose kind is `code`: whole titles, faces and short names
    (before a comma), folded; the short ones (under four letters) are left out."""
    found = segments.names(s, codes, code, analysis.title_names)
    return frozenset(n for n in found if len(n) >= 4)


def scoped(catalogue: Catalogue, scope: np.ndarray) -> Catalogue:
    keys, entries = catalogue
    keep = [i for i, (n, _) in enumerate(entries) if scope[n]]
    return [keys[i] for i in keep], [entries[i] for i in keep]


def suggestions(
    s,
    catalogue: Catalogue,
    typed: str,
    limit: int,
    kind_order: Callable[[str], int],
    *,
    inner: bool = True,
) -> list[Suggestion]:
    """Titles starting with what was typed, then titles with a word starting so ("bolt" ->
    Lightning Bolt); shorter titles first, kinds in their order, one per kind and title."""
    keys, entries = catalogue
    found: list[tuple[tuple, int, str]] = []
    start = bisect.bisect_left(keys, typed)
    for i in range(start, min(start + 400, len(keys))):
        if not keys[i].startswith(typed):
            break
        found.append(((False, len(keys[i])), *entries[i]))
    if inner and len(found) < limit:  # a scan of every title: a few milliseconds
        word_start = f" {typed}"
        for key, entry in zip(keys, entries, strict=True):
            if word_start in key:
                found.append(((True, len(key)), *entry))
                if len(found) >= 400:
                    break
    out: list[Suggestion] = []
    if not found:  # an empty index's reader has no columns to read below
        return out
    seen: set[tuple[str, str]] = set()
    kinds = s.reader().column_reader("kind")
    found.sort(key=lambda f: (f[0], kind_order(kinds[f[1]]), f[1]))
    for _, docnum, lang in found:
        fields = s.stored_fields(docnum)
        title = fields.get(title_field(lang), "")
        if (fields["kind"], title) in seen:
            continue
        seen.add((fields["kind"], title))
        out.append(Suggestion(fields["kind"], title, fields["ref"], fields.get("number", ""), lang))
        if len(out) == limit:
            break
    return out


def read_dictionary(s) -> tuple[list[str], list[int]]:
    """The words of all titles with their document frequencies: each segment's counts summed
    (what Whoosh's reader of the whole index sums too). A segment never changes once written,
    so its counts are read once per process (`segments.of_segment`): after an index change (an
    edit, an import's drain) a new searcher reads only the segments written since, where
    reading every title term again took seconds on a busy machine."""
    counts: Counter[str] = Counter()
    for reader, _offset in s.reader().leaf_readers():
        counts.update(_segment_words(reader))
    words = sorted(counts)
    return words, [counts[w] for w in words]


def _segment_words(reader) -> dict[str, int]:
    def read() -> dict[str, int]:
        counts: dict[str, int] = {}
        for lang in conf.codes():
            for term, info in reader.iter_field(title_field(lang)):
                text = term.decode() if isinstance(term, bytes) else term
                if text.isalpha() and len(text) > 2:
                    counts[text] = counts.get(text, 0) + info.doc_frequency()
        return counts

    return segments.of_segment(reader, ("words",), read)


def closest(word: str, dictionary: tuple[list[str], list[int]]) -> str | None:
    """The title word closest to `word` (optimal string alignment: a transposition is one
    edit), the most frequent among equals: "trampel" -> "trample"."""
    folded = analysis.fold(word)
    words, frequencies = dictionary
    maxdist = 1 if len(folded) <= 5 else 2
    found = process.extract(folded, words, scorer=OSA.distance, score_cutoff=maxdist, limit=20)
    if not found:
        return None
    return min(found, key=lambda f: (f[1], -frequencies[f[2]]))[0]


#: A word held by more documents than this is known without looking at which.
_SURELY_KNOWN = 20


def known(s, schema: Schema, word: str) -> bool:
    """Whether any title or body field of a document still in force holds the word (as that
    field analyses it). A word only superseded releases printed is not one: the legacy
    releases' typos ("abilitise", 2003-05-26) must not stop "abilty" being corrected."""
    codes = conf.codes()
    for name in [title_field(c) for c in codes] + [body_field(c) for c in codes]:
        for token in schema[name].analyzer(word, mode="query"):
            frequency = s.doc_frequency(name, token.text)
            if frequency > _SURELY_KNOWN:
                return True
            if frequency and _in_force(s, name, token.text):
                return True
    return False


def _in_force(s, field: str, text: str) -> bool:
    """Does a document holding the term remain valid (open-ended, or without dates)?"""
    postings = s.postings(field, text)
    return any(
        s.stored_fields(docnum).get("valid_to", OPEN_END) >= OPEN_END
        for docnum in postings.all_ids()
    )
