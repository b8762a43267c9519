"""The semantic retriever: passages and queries as vectors, nearest passages by cosine.

Why beside the lexical index: questions in players' words ("my opponent flickered my
creature…") often share no word with the rule that answers them; a sentence encoder finds
the rule by meaning. The kinds that want it register `passages` (search.registry): the
current texts of rules and glossary entries. Their vectors are computed in the background
(`sync`, called by the index worker) and kept by text hash (store); until every passage has
one, `retrieve` says so and the site answers lexically. The engine decides nothing about
*when* to use it: the site's query understanding routes by the shape of the query.

Only `retrieve` runs in a web request: one query embedded (tens of milliseconds) and one
matrix product over a few thousand passages.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path

import numpy as np
from django.conf import settings

from search.documents import Example, Passage
from search.registry import document_types
from search.semantic import adapter, store
from search.semantic.encoder import DIMENSIONS, MODEL_ID, WEIGHTS_SHA256, Encoder, WeightsError
from search.semantic.overlap import Overlap, terms
from search.semantic.query_process import ANSWER_SECONDS, Asked, ChildError, QueryProcess
from search.semantic.weights import weights_path

logger = logging.getLogger(__name__)


@lru_cache(maxsize=1)
def encoder() -> Encoder | None:
    """The encoder, loaded once per process (about a second); None where the weights are
    absent or the retriever is switched off (settings.KB_SEMANTIC): the site stays lexical."""
    if not getattr(settings, "KB_SEMANTIC", True):
        return None
    path = weights_path()
    if not path.is_file():
        logger.warning("semantic search off: no model weights at %s (make install)", path)
        return None
    try:
        loaded = Encoder(path)
    except WeightsError as exc:
        logger.error("semantic search off: %s", exc)
        return None
    _one_blas_thread()
    return loaded


@lru_cache(maxsize=4)
def _weights_present(path: Path) -> bool:
    """Whether the measured weights are at `path`, without loading them: a web process whose
    queries a child embeds (query_process) never loads the model itself."""
    try:
        with path.open("rb") as f:
            digest = hashlib.file_digest(f, "sha256").hexdigest()
    except OSError:
        logger.warning("semantic search off: no model weights at %s (make install)", path)
        return False
    if digest != WEIGHTS_SHA256:
        logger.error("semantic search off: %s is not the weights measured", path)
        return False
    return True


_children: dict[str, QueryProcess] = {}
_children_lock = threading.Lock()  # the warm-up thread and a first request may both ask


def query_process() -> QueryProcess | None:
    """This process's query encoder in a child (settings.KB_SEMANTIC_QUERY_PROCESS, on by
    default), or None: queries are then embedded in a thread of this process."""
    if not settings.KB_SEMANTIC_QUERY_PROCESS:
        return None
    path = weights_path()
    with _children_lock:
        child = _children.get("current")
        if child is None or child.weights != path:
            if child is not None:
                child.close()
            child = _children["current"] = QueryProcess(path)
        return child


def _ask(text: str) -> Future | Asked:
    """Start embedding `text`: in the child where there is one, else in a thread here. Never
    raises: what fails is read from the answer (Pending.result), and the search stays lexical."""
    child = query_process()
    if child is not None:
        try:
            return child.submit(text)
        except ChildError:
            logger.exception("semantic search: the query encoder's child failed; a thread here")
    model = encoder()
    if model is None:  # the weights went bad since status() read them: a failed question
        failed: Future = Future()
        failed.set_exception(WeightsError("the encoder could not be loaded"))
        return failed
    return _pool.submit(lambda: model.queries([text])[0])


@lru_cache(maxsize=1)
def _one_blas_thread() -> None:
    """One BLAS thread per process: web workers and the index worker each take a core, and
    OpenBLAS's own threads, contending with them, made a query ten times slower. Set before
    the first product, the encoder's or the corpus's (a web process whose queries a child
    embeds never loads the encoder: its spinning BLAS threads took 40 % of a second core)."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1, user_api="blas")


def passages() -> list[Passage]:
    """Every registered kind's passages, in registry order."""
    out: list[Passage] = []
    for doc_type in document_types():
        if doc_type.passages is not None:
            out.extend(doc_type.passages())
    return out


def examples() -> list[Example]:
    """Every registered kind's example questions (what players ask its passages)."""
    out: list[Example] = []
    for doc_type in document_types():
        if doc_type.examples is not None:
            out.extend(doc_type.examples())
    return out


def _examples_of(found: list[Passage]) -> tuple[list[str], np.ndarray]:
    """The example questions of the passages in `found` (others' are dropped: a rule gone
    from the release, a subset in the tests), with the index of their passage."""
    where = {(p.kind, p.key): i for i, p in enumerate(found)}
    pairs = [(e.text, where[(e.kind, e.key)]) for e in examples() if (e.kind, e.key) in where]
    return [t for t, _ in pairs], np.array([i for _, i in pairs], dtype=np.int64)


def _map_key(model_id: str, found: list[Passage], texts: list[str], owners: np.ndarray) -> str:
    """What a query map is fitted from: the model, the passages' texts, the examples."""
    digest = hashlib.sha256(model_id.encode())
    for p in found:
        digest.update(f"\x00{p.kind}\x00{p.key}\x00{p.text}".encode())
    for text, owner in zip(texts, owners.tolist(), strict=True):
        digest.update(f"\x01{owner}\x00{text}".encode())
    return digest.hexdigest()


def _version() -> tuple[str, ...]:
    return tuple(
        t.passages_version() if t.passages_version else t.kind
        for t in document_types()
        if t.passages is not None
    )


@dataclass
class _Corpus:
    version: tuple[str, ...]
    passages: list[Passage]
    matrix: np.ndarray
    embedded: int
    stored: int  # the store's count when read: a worker adding vectors changes it
    query_map: np.ndarray | None = None  # adapter.fit's map, once fitted
    nearest: adapter.Nearest | None = None  # the example questions, mapped
    examples: int = 0  # how many the passages have (0: nothing to wait for)

    @property
    def embedded_all(self) -> bool:
        return self.embedded == len(self.passages)

    @property
    def complete(self) -> bool:
        """Every passage embedded, and the examples' map fitted where there are examples."""
        return self.embedded_all and (not self.examples or self.nearest is not None)

    @cached_property
    def overlap(self) -> Overlap:
        """The passages' words, read on the first question that gives words (about a
        second for the current release's rules and glossary; start_warm_up reads it)."""
        return Overlap(p.text for p in self.passages)


_lock = threading.Lock()
_corpus: dict[str, _Corpus] = {}


def _load(version: tuple[str, ...], stored: int) -> _Corpus:
    _one_blas_thread()
    found = passages()
    keys = [store.key(MODEL_ID, p.text) for p in found]
    matrix, mask = store.vectors(keys, dim=DIMENSIONS)
    corpus = _Corpus(version, found, matrix, int(mask.sum()), stored)
    texts, owners = _examples_of(found)
    corpus.examples = len(texts)
    if texts and corpus.embedded_all:
        query_map = store.query_map(_map_key(MODEL_ID, found, texts, owners))
        vectors, have = store.vectors(
            [store.key(MODEL_ID, t, "query") for t in texts], dim=DIMENSIONS
        )
        if query_map is not None and have.all():
            corpus.query_map = query_map
            corpus.nearest = adapter.Nearest(adapter.mapped(query_map, vectors), owners, len(found))
    return corpus


def _current() -> _Corpus:
    """The corpus for this process, re-read when a kind's version changes or, while it is
    incomplete, when the store has gained vectors."""
    version = _version()
    cached = _corpus.get("current")
    if cached and cached.version == version and cached.complete:
        return cached
    stored = store.count()
    if cached and cached.version == version and cached.stored == stored:
        return cached
    with _lock:
        fresh = _load(version, stored)
        _corpus["current"] = fresh
        return fresh


@dataclass
class Retrieval:
    """What the retriever answered: `hits` (passage, score: the cosine, plus the words'
    weight where words re-ranked them), best first, when `ready`;
    otherwise `reason` says why the search is lexical this time."""

    ready: bool
    hits: list[tuple[Passage, float]]
    reason: str = ""
    embedded: int = 0
    total: int = 0
    millis: float = 0.0


def status() -> Retrieval:
    """Whether the retriever can answer, without embedding anything."""
    if not getattr(settings, "KB_SEMANTIC", True):
        return Retrieval(False, [], reason="off")
    if not _weights_present(weights_path()):
        return Retrieval(False, [], reason="no model")
    corpus = _current()
    if not corpus.passages:
        return Retrieval(False, [], reason="nothing to search", total=0)
    if not corpus.embedded_all:
        return Retrieval(
            False, [], reason="embedding", embedded=corpus.embedded, total=len(corpus.passages)
        )
    return Retrieval(True, [], embedded=corpus.embedded, total=len(corpus.passages))


def warm() -> None:
    """Load what a first question needs (the weights, the vectors, the passages' words), so
    that a new web process does not make its first asker wait for it."""
    if status().ready:
        child = query_process()
        if child is not None:
            try:
                child.start()
            except ChildError:
                logger.exception("semantic search: the query encoder's child did not start")
        else:
            encoder()
        _ = _current().overlap


def retrieve(
    text: str, *, limit: int = 50, kinds: tuple[str, ...] = (), words: Iterable[str] = ()
) -> Retrieval:
    """The passages nearest `text` (a query, embedded with e5's "query: " prefix), re-ranked
    by `words` when given (Pending.result)."""
    return Pending(text).result(limit=limit, kinds=kinds, words=words)


#: How many of the nearest passages the query's own words re-rank, and what one unit of
#: word weight (log of inverse passage frequency) is worth against the cosine. Tuned on the
#: players' dev set (retriever alone 0.261; depth 20/50/100 gave 0.336/0.349/0.346; weights
#: 0.002/0.005/0.01/0.02 gave 0.328/0.349/0.345/0.340 at depth 50). Normalising by a
#: passage's length cost 0.03 to 0.08: the longer subrule is more often the answer. With the
#: example questions (search.semantic.adapter) the retriever is surer and the words count for
#: more: 0/0.0075/0.01/0.0125 gave 0.442/0.484/0.490/0.484 (2026-12-05). With the questions
#: from card rulings, surer still, less: 0/0.0025/0.005/0.0075/0.01 gave 0.693/0.708/0.706/
#: 0.689/0.678 (dev, emulated, examples' soft maximum; 2026-12-06).
RERANK_DEPTH = 50
OVERLAP_WEIGHT = 0.005

#: Where there is no child (query_process), query embeddings run in a thread here, beside the
#: request's lexical search: numpy's products release the GIL, so most of a question's 30-40
#: ms forward pass overlaps the index's 20-30 ms.
_pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="semantic")


class Pending:
    """A query whose vector is being computed in the background: start it, search the words
    meanwhile, then ask for `result`. The corpus and its state are read in the caller's
    thread (the request's database connection); the other thread only multiplies arrays."""

    def __init__(self, text: str) -> None:
        self.started = time.perf_counter()
        self.state = status()
        self.vector: Future | None = None
        self.corpus = _corpus.get("current") if self.state.ready else None
        if self.corpus is not None:
            self.vector = _ask(text)

    def result(
        self, *, limit: int = 50, kinds: tuple[str, ...] = (), words: Iterable[str] = ()
    ) -> Retrieval:
        """The nearest passages, scored against the corpus read when the query started (the
        one `status` found complete); with `words` (the query's, and what the site's query
        understanding searched for them), the nearest RERANK_DEPTH are re-ranked by the words
        each shares with the query (search.semantic.overlap). A failure in the encoder's
        thread is logged and the search stays lexical: a question never fails for it."""
        state = self.state
        if self.vector is None or self.corpus is None:
            return state
        corpus = self.corpus
        try:
            vector = adapter.mapped(corpus.query_map, self.vector.result(timeout=ANSWER_SECONDS))
        except Exception:
            logger.exception("semantic search: the query could not be embedded")
            return Retrieval(False, [], reason="failed")
        scores = corpus.matrix @ vector
        if corpus.nearest is not None:
            scores = corpus.nearest.blend(vector, scores)
        if kinds:
            scores = np.where([p.kind in kinds for p in corpus.passages], scores, -1.0)
        top = [int(i) for i in np.argsort(-scores)[: max(limit, RERANK_DEPTH)]]
        top = [i for i in top if scores[i] > -1.0]
        asked = terms(" ".join(words))
        ranked = [(i, float(scores[i])) for i in top]
        if asked:
            overlap = corpus.overlap
            ranked = [(i, s + OVERLAP_WEIGHT * overlap.score(asked, i)) for i, s in ranked]
            ranked.sort(key=lambda pair: -pair[1])
        state.hits = [(corpus.passages[i], score) for i, score in ranked[:limit]]
        state.millis = (time.perf_counter() - self.started) * 1000
        return state


@dataclass
class SyncReport:
    embedded: int = 0
    remaining: int = 0
    seconds: float = 0.0
    reason: str = ""


def sync(
    *,
    seconds: float | None = None,
    batch: int = 64,
    progress: Callable[[int, int], None] | None = None,
) -> SyncReport:
    """Embed the passages that have no vector yet, a batch at a time (each batch committed),
    for at most `seconds` (None: until done). The index worker calls it between drains, so a
    first `make run` serves pages while this runs."""
    started = time.perf_counter()
    model = encoder()
    if model is None:
        return SyncReport(reason="no model")
    version = _version()
    if _synced.get("version") == version:
        return SyncReport()  # nothing changed since every passage had its vector
    found = passages()
    # Shortest first, so that each batch pads little (texts run from 3 words to 700).
    todo = sorted(store.missing(model.model_id, [p.text for p in found]), key=len)
    done = 0
    for start in range(0, len(todo), batch):
        if start and seconds is not None and time.perf_counter() - started > seconds:
            break  # at least one batch a call: listing the passages may take the whole slice
        chunk = todo[start : start + batch]
        store.save(model.model_id, chunk, model.passages(chunk))
        done += len(chunk)
        if progress:
            progress(done, len(todo))
    remaining = len(todo) - done
    if not remaining:
        left = None if seconds is None else max(0.0, seconds - (time.perf_counter() - started))
        remaining = _sync_examples(model, found, left, batch)
    if not remaining:
        _synced["version"] = version
    return SyncReport(embedded=done, remaining=remaining, seconds=time.perf_counter() - started)


def _sync_examples(model: Encoder, found: list[Passage], seconds: float | None, batch: int) -> int:
    """Once every passage has its vector: embed the example questions (as queries), then fit
    the query map on them (adapter.fit, about 20 s for the current rules). What is left to do
    (examples to embed, or 1 for the map); at least a batch or the fit a call."""
    texts, owners = _examples_of(found)
    if not texts:
        return 0
    key = _map_key(model.model_id, found, texts, owners)
    if store.query_map(key) is not None:
        return 0
    started = time.perf_counter()
    todo = sorted(store.missing(model.model_id, texts, "query"), key=len)
    for start in range(0, len(todo), batch):
        if start and seconds is not None and time.perf_counter() - started > seconds:
            return len(todo) - start
        chunk = todo[start : start + batch]
        store.save(model.model_id, chunk, model.queries(chunk), "query")
    if todo and seconds is not None and time.perf_counter() - started > seconds:
        return 1  # the map next time: a web worker may be waiting on this database
    vectors, _have = store.vectors(
        [store.key(model.model_id, t, "query") for t in texts], dim=model.hidden
    )
    passages_matrix, _found = store.vectors(
        [store.key(model.model_id, p.text) for p in found], dim=model.hidden
    )
    fitted = adapter.fit(vectors, owners, passages_matrix)
    store.save_query_map(key, model.model_id, fitted, len(texts))
    logger.info("semantic search: query map fitted on %d example questions", len(texts))
    return 0


def embed_queries(
    texts: Sequence[str], *, seconds: float | None = None, batch: int = 64
) -> SyncReport:
    """Embed, as queries, the texts that have no query vector yet (another app's texts that
    look for their passage: rulings looking for their rule), a batch at a time, for at most
    `seconds`; kept by text hash like the passages' vectors."""
    started = time.perf_counter()
    model = encoder()
    if model is None:
        return SyncReport(reason="no model")
    todo = sorted(store.missing(model.model_id, texts, "query"), key=len)
    done = 0
    for start in range(0, len(todo), batch):
        if start and seconds is not None and time.perf_counter() - started > seconds:
            break
        chunk = todo[start : start + batch]
        store.save(model.model_id, chunk, model.queries(chunk), "query")
        done += len(chunk)
    return SyncReport(
        embedded=done, remaining=len(todo) - done, seconds=time.perf_counter() - started
    )


def query_vectors(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """(matrix, found): the stored query vectors of `texts` (embed_queries), in order."""
    model = encoder()
    if model is None:
        return np.zeros((len(texts), 0), dtype=np.float32), np.zeros(len(texts), dtype=bool)
    keys = [store.key(model.model_id, t, "query") for t in texts]
    return store.vectors(keys, dim=model.hidden)


def nearest_to(
    vectors: np.ndarray, *, kinds: tuple[str, ...] = (), limit: int = 5
) -> list[list[tuple[Passage, float]]] | None:
    """The passages nearest each row of `vectors` (query vectors), best first; None while
    the current passages are not all embedded (an answer then would miss some)."""
    if not status().ready:
        return None
    corpus = _current()
    allowed = np.array([not kinds or p.kind in kinds for p in corpus.passages])
    scores = vectors @ corpus.matrix.T
    scores[:, ~allowed] = -1.0
    out = []
    for row in scores:
        top = np.argsort(-row)[:limit]
        out.append([(corpus.passages[i], float(row[i])) for i in top if row[i] > -1.0])
    return out


#: Work other apps do with the encoder once every passage has its vector (rulings proposes
#: links by meaning): the index worker runs each for a few seconds a pass. Each takes
#: `seconds` and returns a SyncReport saying what remains.
follow_ups: list[Callable[..., SyncReport]] = []


def register_follow_up(work: Callable[..., SyncReport]) -> None:
    if work not in follow_ups:
        follow_ups.append(work)


#: The passages' version when sync last found every vector there (a worker's memo).
_synced: dict[str, tuple[str, ...]] = {}
