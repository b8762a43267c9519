"""The PostgreSQL full-text search backend: the index lives in the database, so app servers
hold no index of their own (any number of nodes read the same index; see docs/deploy.md).

Selected by KB_SEARCH_BACKEND=search.backends.postgres.backend.PostgresBackend, on a
PostgreSQL database (migration search.0002 creates the text search configurations, the
unaccent and pg_trgm extensions and the GIN indexes). The tables are search.models'
IndexGeneration, IndexedDocument (what a hit shows, the filters, the original texts),
IndexedText (one row per document and language: a weighted tsvector analysed by the
language's configuration, and an unstemmed one for prefixes), IndexedWord (the
did-you-mean dictionary of title words) and, without a model, search_indexedmatch (migration
search.0003: one narrow row per document, its filters and all its words, that a search asks
first so that it reads and ranks the text rows of the documents that can match alone).

The index is named after the last part of its location (KB_INDEX_DIR: `index` by default),
so tests can build as many as they like side by side. A rebuild fills a new generation and
swaps it in with one transaction; every search is one statement (one snapshot), so a search
never sees half an index. Writers take a PostgreSQL advisory lock, which every node shares.

It imports nothing of the Whoosh package, directly or through what it imports (folding and
names come from the backend-neutral search.analysis; tests/search/test_no_whoosh.py checks it
in a fresh interpreter): a node on PostgreSQL loads no Whoosh to search.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import html
import json
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import replace
from itertools import islice
from pathlib import Path

from django.db import connections, router, transaction
from filelock import Timeout
from rapidfuzz import process
from rapidfuzz.distance import OSA

from search import analysis, conf
from search.backend import (
    IndexStats,
    SearchBackend,
    SearchRequest,
    SearchUnavailable,
    Suggestion,
)
from search.backends.postgres import queries
from search.backends.postgres.queries import GT, LT, MATCH_VECTOR, START, STOP, config
from search.documents import Hit, Results, SearchDocument, plain_snippet
from search.models import IndexedDocument
from search.registry import kinds as registered_kinds

BATCH = 2_000
WORK_MEM = "64MB"


def _reader():
    """The connection searches read from: a replica for public pages when one is configured
    (config.routers), else the primary."""
    return connections[router.db_for_read(IndexedDocument)]


def _writer():
    return connections[router.db_for_write(IndexedDocument)]


class PostgresBackend(SearchBackend):
    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.name = (self.root.name or "index")[:64]

    # -- generations -------------------------------------------------------------------------

    def _live(self, *, write: bool = False) -> int | None:
        with (_writer() if write else _reader()).cursor() as cur:
            cur.execute(
                "SELECT id FROM search_indexgeneration WHERE name = %s AND live", [self.name]
            )
            row = cur.fetchone()
        return row[0] if row else None

    def _new_generation(self, *, live: bool) -> int:
        with _writer().cursor() as cur:
            cur.execute(
                "INSERT INTO search_indexgeneration (name, live, created) "
                "VALUES (%s, %s, now()) RETURNING id",
                [self.name, live],
            )
            return cur.fetchone()[0]

    def exists(self) -> bool:
        return self._live() is not None

    def writer_lock(self) -> AdvisoryLock:
        """One writer at a time across every node: a lock in the database, not a file."""
        return AdvisoryLock(f"search-index:{self.name}")

    # -- writing -----------------------------------------------------------------------------

    def update(
        self, add: Iterable[SearchDocument] = (), delete: Iterable[str] = (), *, bulk: bool = False
    ) -> tuple[int, int]:
        add, delete = list(add), list(delete)
        if not add and not delete:
            return 0, 0
        with transaction.atomic(using=_writer().alias):
            generation = self._live(write=True)
            if generation is None:
                generation = self._new_generation(live=True)
            with _writer().cursor() as cur:
                # Serialise writers on this generation (a second node draining at once waits).
                cur.execute(
                    "SELECT id FROM search_indexgeneration WHERE id = %s FOR UPDATE", [generation]
                )
            deleted = self._delete(generation, delete)
            added = self._insert(generation, add)
        return added, deleted

    def _delete(self, generation: int, doc_ids: list[str]) -> int:
        if not doc_ids:
            return 0
        with _writer().cursor() as cur:
            cur.execute(
                "SELECT id FROM search_indexeddocument WHERE generation_id = %s "
                "AND doc_id = ANY(%s)",
                [generation, doc_ids],
            )
            ids = [r[0] for r in cur.fetchall()]
            if not ids:
                return 0
            cur.execute(
                "SELECT title_key FROM search_indexedtext WHERE document_id = ANY(%s)", [ids]
            )
            words = _title_words(r[0] for r in cur.fetchall())
            cur.execute("DELETE FROM search_indexedtext WHERE document_id = ANY(%s)", [ids])
            cur.execute("DELETE FROM search_indexedmatch WHERE document_id = ANY(%s)", [ids])
            cur.execute("DELETE FROM search_indexeddocument WHERE id = ANY(%s)", [ids])
            self._count_words(cur, generation, words, -1)
        return len(ids)

    def _insert(self, generation: int, docs: Iterable[SearchDocument]) -> int:
        count = 0
        iterator = iter(docs)
        while batch := list(islice(iterator, BATCH)):
            count += self._insert_batch(generation, batch)
        return count

    def _insert_batch(self, generation: int, docs: list[SearchDocument]) -> int:
        codes = conf.codes()
        with _writer().cursor() as cur:
            cur.execute(
                "SELECT nextval(pg_get_serial_sequence('search_indexeddocument', 'id')) "
                "FROM generate_series(1, %s)",
                [len(docs)],
            )
            ids = [r[0] for r in cur.fetchall()]
            rows = []
            words: Counter[str] = Counter()
            for pk, doc in zip(ids, docs, strict=True):
                titles = {c: t for c, t in doc.titles.items() if t and c in codes}
                keys = {c: analysis.plain(t) for c, t in titles.items()}
                words.update(_title_words(keys.values()))
                rows.append(
                    (
                        pk,
                        generation,
                        doc.doc_id,
                        doc.kind,
                        doc.group_id,
                        doc.key,
                        doc.ref,
                        doc.ref if doc.lookup else "",
                        doc.label,
                        doc.number.lower(),
                        doc.chapter,
                        doc.date,
                        doc.valid_from,
                        doc.valid_to,
                        _collapse_key(doc.collapse),
                        _json(titles),
                        _json({c: t for c, t in doc.bodies.items() if t and c in codes}),
                        _json({c: t for c, t in doc.extras.items() if t and c in codes}),
                        _json(keys),
                        _json(sorted(_names(titles.values()))),
                    )
                )
            cur.executemany(
                "INSERT INTO search_indexeddocument (id, generation_id, doc_id, kind, grp, key, "
                "ref, handle, label, number, chapter, date, valid_from, valid_to, collapse, "
                "titles, bodies, extras, keys, names) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, "
                "%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                rows,
            )
            # The vectors are computed by the database, from the texts just stored.
            languages = ", ".join(f"('{c}', '{config(c)}')" for c in codes if c.isalpha())
            cur.execute(
                f"""
INSERT INTO search_indexedtext (document_id, generation_id, lang, title_key, vector, words)
SELECT d.id, d.generation_id, l.code, coalesce(d.keys ->> l.code, ''),
  setweight(to_tsvector(l.cfg::regconfig, coalesce(d.titles ->> l.code, '')), 'A')
  || setweight(to_tsvector(l.cfg::regconfig, coalesce(d.bodies ->> l.code, '')), 'B')
  || setweight(to_tsvector(l.cfg::regconfig, coalesce(d.extras ->> l.code, '')), 'C'),
  setweight(to_tsvector('kb_simple', coalesce(d.titles ->> l.code, '')), 'A')
  || setweight(to_tsvector('kb_simple', coalesce(d.bodies ->> l.code, '')), 'B')
FROM search_indexeddocument d CROSS JOIN (VALUES {languages}) AS l(code, cfg)
WHERE d.id = ANY(%s)
  AND (d.titles ? l.code OR d.bodies ? l.code OR d.extras ? l.code)""",
                [ids],
            )
            # What searches filter, count and pre-match by (migration search.0003).
            cur.execute(
                f"""
INSERT INTO search_indexedmatch (document_id, generation_id, kind, number, collapse,
  valid_from, valid_to, vector)
SELECT d.id, d.generation_id, d.kind, d.number, d.collapse, d.valid_from, d.valid_to,
  {MATCH_VECTOR}
FROM search_indexeddocument d WHERE d.id = ANY(%s)""",
                [ids],
            )
            self._count_words(cur, generation, words, 1)
        return len(docs)

    def _count_words(self, cur, generation: int, words: Counter[str], sign: int) -> None:
        if not words:
            return
        items = sorted(words.items())
        cur.execute(
            "INSERT INTO search_indexedword (generation_id, word, count) "
            "SELECT %s, w, n FROM unnest(%s::text[], %s::int[]) AS u(w, n) "
            "ON CONFLICT (generation_id, word) "
            "DO UPDATE SET count = search_indexedword.count + EXCLUDED.count",
            [generation, [w for w, _ in items], [sign * n for _, n in items]],
        )
        if sign < 0:
            cur.execute(
                "DELETE FROM search_indexedword WHERE generation_id = %s AND count <= 0",
                [generation],
            )

    def rebuild(self, docs: Iterable[SearchDocument]) -> int:
        """Fill a new generation (committed batch by batch when not inside a transaction: a
        killed rebuild leaves a generation that is not live, which clean_up removes), then
        make it live in one transaction and drop the old one."""
        self.clean_up()
        generation = self._new_generation(live=False)
        try:
            count = self._insert(generation, docs)
        except BaseException:
            self._drop(generation)
            raise
        with transaction.atomic(using=_writer().alias), _writer().cursor() as cur:
            cur.execute(
                "SELECT id FROM search_indexgeneration WHERE name = %s FOR UPDATE", [self.name]
            )
            old = [r[0] for r in cur.fetchall() if r[0] != generation]
            cur.execute(
                "UPDATE search_indexgeneration SET live = false WHERE name = %s AND live",
                [self.name],
            )
            cur.execute("UPDATE search_indexgeneration SET live = true WHERE id = %s", [generation])
        for previous in old:
            self._drop(previous)
        return count

    def _drop(self, generation: int) -> None:
        with transaction.atomic(using=_writer().alias), _writer().cursor() as cur:
            tables = ("search_indexedtext", "search_indexedmatch", "search_indexedword")
            for table in (*tables, "search_indexeddocument"):
                cur.execute(f"DELETE FROM {table} WHERE generation_id = %s", [generation])
            cur.execute("DELETE FROM search_indexgeneration WHERE id = %s", [generation])

    def clean_up(self) -> list[str]:
        """Generations a killed rebuild left (never made live)."""
        with _writer().cursor() as cur:
            cur.execute(
                "SELECT id FROM search_indexgeneration WHERE name = %s AND NOT live", [self.name]
            )
            leftovers = [r[0] for r in cur.fetchall()]
        for generation in leftovers:
            self._drop(generation)
        return [f"{self.name} generation {g}" for g in leftovers]

    # -- reading -----------------------------------------------------------------------------

    def ids(self, kind: str | None = None, groups: Iterable[str] | None = None) -> set[str]:
        sql = (
            "SELECT doc_id FROM search_indexeddocument WHERE generation_id = "
            "(SELECT id FROM search_indexgeneration WHERE name = %s AND live)"
        )
        params: list[object] = [self.name]
        if groups is not None:
            groups = list(groups)
            if not groups:
                return set()
            sql += " AND grp = ANY(%s)"
            params.append(groups)
        if kind:
            sql += " AND kind = %s"
            params.append(kind)
        with _reader().cursor() as cur:
            cur.execute(sql, params)
            return {r[0] for r in cur.fetchall()}

    def stats(self) -> IndexStats:
        with _reader().cursor() as cur:
            cur.execute(
                "SELECT kind, count(*) FROM search_indexeddocument WHERE generation_id = "
                "(SELECT id FROM search_indexgeneration WHERE name = %s AND live) GROUP BY kind",
                [self.name],
            )
            counts = dict(cur.fetchall())
            cur.execute(
                "SELECT pg_total_relation_size('search_indexeddocument') "
                "+ pg_total_relation_size('search_indexedtext') "
                "+ pg_total_relation_size('search_indexedword')"
            )
            size = cur.fetchone()[0]
        location = f"postgresql:{_reader().settings_dict.get('NAME')}/{self.name}"
        return IndexStats(sum(counts.values()), int(size), location, counts)

    def search(self, request: SearchRequest) -> Results:
        if request.page < 1:
            request = replace(request, page=1)
        offset = (request.page - 1) * request.per_page
        built = queries.search_sql(request, self.name, offset, request.per_page)
        if built is None:
            if not self.exists():
                raise SearchUnavailable(f"no search index {self.name!r} in the database")
            return Results([], 0, request.page, request.per_page)
        sql, params = built
        with _reader().cursor() as cur:
            # A query of common words matches most documents: its bitmap, sorts and
            # aggregates fit in memory with this (the default 4 MB spilled to disk).
            cur.execute(f"SET work_mem = '{WORK_MEM}'")
            cur.execute(sql, params)
            rows = cur.fetchall()
        if not rows or (not _load(rows[0][0]) and not self.exists()):
            raise SearchUnavailable(f"no search index {self.name!r} in the database")
        counts = {k: int(n) for k, n in _load(rows[0][0]).items()}
        order = {k: i for i, k in enumerate(registered_kinds())}
        counts = dict(sorted(counts.items(), key=lambda kv: order.get(kv[0], len(order))))
        kinds = tuple(sorted(request.kinds))
        total = sum(counts.get(k, 0) for k in kinds) if kinds else sum(counts.values())
        if not total:
            return Results([], 0, 1, request.per_page, counts)
        pages = max(1, -(-total // request.per_page))
        if request.page > pages:
            return self.search(replace(request, page=pages))
        hits = [_hit(row, request) for row in rows if row[1] is not None]
        return Results(hits, total, request.page, request.per_page, counts)

    def lookup(
        self, kind: str, *, number: str = "", ref: str = "", release: dt.date | None = None
    ) -> Hit | None:
        p = queries.Params()
        column, value = ("number", number.lower()) if number else ("handle", ref)
        if not value:
            return None
        sql = f"""
SELECT NULL, 0.0, NULL, d.kind, d.key, d.ref, d.label, d.number, d.chapter, d.date,
       d.valid_from, d.valid_to, d.titles, d.bodies, NULL
FROM search_indexeddocument d
WHERE d.generation_id = (SELECT id FROM search_indexgeneration WHERE name = {p(self.name)}
                         AND live)
  AND d.{column} = {p(value)} AND d.kind = {p(kind)} AND {queries.valid_on("d", p, release)}
ORDER BY d.valid_from DESC NULLS LAST, d.id LIMIT 1"""
        with _reader().cursor() as cur:
            cur.execute(sql, p.values)
            row = cur.fetchone()
        return _hit(row, SearchRequest(groups=(), snippets=False)) if row else None

    def suggest(
        self,
        text: str,
        *,
        limit: int = 10,
        release: dt.date | None = None,
        inner: bool = True,
    ) -> list[Suggestion]:
        """Titles starting with what was typed, then (`inner`) titles with a word starting so;
        shorter titles first, kinds in their order, one per kind and title."""
        typed = analysis.plain(text)
        if len(typed) < 2:
            return []
        p = queries.Params()
        like = typed.replace("\\", "\\\\").replace("_", "\\_").replace("%", "\\%")
        starts = f"t.title_key LIKE {p(like + '%')}"
        condition = f"({starts} OR t.title_key LIKE {p('% ' + like + '%')})" if inner else starts
        sql = f"""
SELECT d.kind, d.titles ->> t.lang, d.ref, d.number, t.lang
FROM search_indexedtext t JOIN search_indexeddocument d ON d.id = t.document_id
WHERE t.generation_id = (SELECT id FROM search_indexgeneration WHERE name = {p(self.name)}
                         AND live)
  AND t.title_key <> '' AND {condition} AND {queries.valid_on("d", p, release)}
ORDER BY NOT ({starts}), length(t.title_key), {queries.kind_order_sql()}, d.id
LIMIT 400"""
        with _reader().cursor() as cur:
            cur.execute(sql, p.values)
            rows = cur.fetchall()
        out: list[Suggestion] = []
        seen: set[tuple[str, str]] = set()
        for kind, title, ref, number, lang in rows:
            if (kind, title) in seen:
                continue
            seen.add((kind, title))
            out.append(Suggestion(kind, title, ref, number, lang))
            if len(out) == limit:
                break
        return out

    def names_in(self, text: str, *, kind: str) -> list[str]:
        """The names of `kind` that `text` holds: its runs of words asked of the names the
        documents carry (a GIN index), then the longest taken first."""
        words = analysis.plain(text).split()
        candidates = {
            " ".join(words[i : i + size])
            for size in range(1, min(8, len(words)) + 1)
            for i in range(len(words) - size + 1)
        }
        candidates = sorted(c for c in candidates if len(c) >= 4)
        if not candidates:
            return []
        with _reader().cursor() as cur:
            cur.execute(
                "SELECT DISTINCT n FROM search_indexeddocument d, "
                "jsonb_array_elements_text(d.names) AS n WHERE d.generation_id = "
                "(SELECT id FROM search_indexgeneration WHERE name = %s AND live) "
                "AND d.kind = %s AND d.names ?| %s AND n = ANY(%s)",
                [self.name, kind, candidates, candidates],
            )
            found = frozenset(r[0] for r in cur.fetchall())
        return analysis.named(text, found) if found else []

    def corrections(self, words: Iterable[str]) -> dict[str, str]:
        """Misspelt words -> the closest title word: candidates by trigram similarity
        (pg_trgm), the closest by optimal string alignment, the most frequent among equals."""
        asked = []
        for word in words:
            folded = analysis.fold(word)
            if len(folded) >= 4 and folded.isalpha():
                asked.append(word)
        if not asked:
            return {}
        generation = self._live()
        if generation is None:
            return {}
        out = {}
        unknown = [w for w in asked if not self._known(generation, w)]
        with _reader().cursor() as cur:
            for word in unknown:
                folded = analysis.fold(word)
                cur.execute(
                    "SELECT word, count FROM search_indexedword WHERE generation_id = %s "
                    "AND word %% %s ORDER BY similarity(word, %s) DESC, count DESC LIMIT 50",
                    [generation, folded, folded],
                )
                found = cur.fetchall()
                if not found:
                    continue
                counts = dict(found)
                maxdist = 1 if len(folded) <= 5 else 2
                close = process.extract(
                    folded, list(counts), scorer=OSA.distance, score_cutoff=maxdist, limit=20
                )
                if close:
                    out[word] = min(close, key=lambda f: (f[1], -counts[f[0]]))[0]
        return out

    def _known(self, generation: int, word: str) -> bool:
        """Whether a title or body of any language holds the word (as each analyses it)."""
        p = queries.Params()
        parts = [
            f"(t.lang = {p(code)} AND t.vector @@ plainto_tsquery('{config(code)}', {p(word)}))"
            for code in conf.codes()
        ]
        parts.append(f"t.words @@ plainto_tsquery('kb_simple', {p(word)})")
        sql = (
            f"SELECT EXISTS (SELECT 1 FROM search_indexedtext t WHERE t.generation_id = "
            f"{p(generation)} AND ({' OR '.join(parts)}))"
        )
        with _reader().cursor() as cur:
            cur.execute(sql, p.values)
            return bool(cur.fetchone()[0])


class AdvisoryLock:
    """A PostgreSQL advisory lock with the FileLock interface search.indexing uses
    (acquire(timeout=...) raising filelock.Timeout, release(), a context manager). It is held
    by this thread's connection: every node and process sees it."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.key = int.from_bytes(hashlib.blake2b(name.encode(), digest_size=8).digest(), "big")
        self.key -= 1 << 63 if self.key >= 1 << 63 else 0
        self.held = 0

    def acquire(self, timeout: float = -1, **_: object) -> AdvisoryLock:
        import time

        deadline = None if timeout is None or timeout < 0 else time.monotonic() + timeout
        while True:
            with _writer().cursor() as cur:
                cur.execute("SELECT pg_try_advisory_lock(%s)", [self.key])
                if cur.fetchone()[0]:
                    self.held += 1
                    return self
            if deadline is not None and time.monotonic() >= deadline:
                raise Timeout(self.name)
            time.sleep(0.05)

    def release(self) -> None:
        if self.held:
            with _writer().cursor() as cur:
                cur.execute("SELECT pg_advisory_unlock(%s)", [self.key])
            self.held -= 1

    def __enter__(self) -> AdvisoryLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def _load(value: object) -> object:
    """jsonb as Python: Django's psycopg setup hands jsonb over as text."""
    return json.loads(value) if isinstance(value, str) else value


def _title_words(keys: Iterable[str]) -> Counter[str]:
    """The dictionary's words of folded titles (letters only, three or more)."""
    words: Counter[str] = Counter()
    for key in keys:
        words.update(w for w in set(key.split()) if len(w) > 2 and w.isalpha())
    return words


def _names(titles: Iterable[str]) -> Iterator[str]:
    """Whole titles, faces of "A // B" titles and the part before a comma, folded."""
    names = set()
    for title in titles:
        names |= analysis.title_names(title)
    return (n for n in names if len(n) >= 4)


def _collapse_key(text: str) -> str:
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest() if text else ""


def _snippet(marked: str | None) -> str:
    """ts_headline's output made safe: escaped, its markers turned into <mark>."""
    if marked and START in marked:
        out = html.escape(marked.replace(LT, "<").replace(GT, ">"))
        return out.replace(START, "<mark>").replace(STOP, "</mark>")
    return ""


def _hit(row: tuple, request: SearchRequest) -> Hit:
    (
        _counts,
        score,
        langs,
        kind,
        key,
        ref,
        label,
        number,
        chapter,
        date,
        valid_from,
        valid_to,
        titles,
        bodies,
        also,
        *marked,
    ) = row
    titles, bodies, also = _load(titles) or {}, _load(bodies) or {}, _load(also) or []
    codes = list(queries.languages(request)) if request.groups else []
    snippets = {}
    for code in conf.codes():
        body = bodies.get(code, "")
        snippet = ""
        if code in codes and marked:
            i = codes.index(code)
            snippet = _snippet(marked[2 * i]) or _snippet(marked[2 * i + 1])
        if not snippet and body:
            snippet = plain_snippet(body)
        snippets[code] = snippet
    first = conf.codes()[0]
    return Hit(
        kind=kind,
        key=key,
        ref=ref,
        titles={code: titles.get(code, "") for code in conf.codes()},
        number=number,
        chapter=chapter,
        label=label,
        date=date,
        valid_from=valid_from,
        valid_to=valid_to,
        score=float(score or 0.0),
        snippets=snippets,
        matched=tuple(sorted(langs or ())),
        text=bodies.get(first, "")[:300],
        also=tuple((r, lab) for r, lab in (also or [])),
    )
