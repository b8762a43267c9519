"""Search benchmarks on the whole shared data: `make bench` (python -m bench.search).

Builds its own throwaway database and index (rules, glossary, cards, rulings, vocabulary), then
prints: the full index build (time, size), relevance (MRR, recall@10), query latency with
highlighting against a plain SQLite FTS5 baseline over the same documents, latency over HTTP,
autocomplete latency, and concurrency (two writer processes and a reader for 60 s; a reader
during a rebuild).
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from bench.environment import setup_inherited, throwaway_var_dir
from bench.measure import figure, median, ms_since, p95, time_each

ROUNDS = 3
BACKENDS = {
    "whoosh": "search.backends.whoosh.backend.WhooshBackend",
    "postgres": "search.backends.postgres.backend.PostgresBackend",
}
CONCURRENCY_SECONDS = int(os.environ.get("KB_BENCH_CONCURRENCY_SECONDS", "60"))


def main() -> int:
    role = sys.argv[1] if len(sys.argv) > 1 else ""
    if "--backend" in sys.argv:
        # The backend to time (`--service --backend postgres` on a PostgreSQL DATABASE_URL).
        os.environ["KB_SEARCH_BACKEND"] = BACKENDS[sys.argv[sys.argv.index("--backend") + 1]]
    if role == "--service":
        _setup_on_database()
        return service_latency()
    if role == "--latency":
        setup_inherited()
        return latency()
    if role == "--served-by-shape":
        setup_inherited()
        return served_by_shape()
    if role == "--relevance":
        setup_inherited()
        return relevance_sets()
    if role in ("--writer", "--reader"):
        setup_inherited()
        return writer(int(sys.argv[2])) if role == "--writer" else reader(float(sys.argv[2]))
    with throwaway_var_dir("search-bench-") as var_dir:
        return run(var_dir)


def run(var_dir: Path) -> int:
    from django.conf import settings
    from django.core.management import call_command

    from bench.relevance import evaluate
    from rulings.vocabulary.mining import build_vocabulary
    from search.backend import get_backend
    from search.indexing import rebuild
    from search.semantic import retriever

    data = Path(settings.KB_DATA_DIR)
    if not (data / "cards" / "cards.jsonl.gz").is_file():
        print(f"no shared data at {data}: nothing to measure", file=sys.stderr)
        return 1
    call_command("migrate", verbosity=0)
    call_command("import_rules", str(data / "cr" / "en"), verbosity=0)
    call_command(
        "import_cards",
        str(data / "cards" / "cards.jsonl.gz"),
        str(data / "cards" / "rulings.jsonl.gz"),
        verbosity=0,
    )
    build_vocabulary()

    started = time.perf_counter()
    count = rebuild()
    seconds = time.perf_counter() - started
    stats = get_backend().stats()
    figure(f"full index build ({count:,} documents)", f"{seconds:.1f} s")
    figure("  by kind", ", ".join(f"{k} {v:,}" for k, v in sorted(stats.by_kind.items())))
    figure("index size on disk", f"{stats.size_bytes / 1e6:.1f} MB")

    started = time.perf_counter()
    call_command("embed_passages", verbosity=0)
    figure(
        f"semantic: current rules and glossary embedded ({retriever.status().total:,} passages)",
        f"{time.perf_counter() - started:.0f} s",
    )

    relevance = Path(settings.BASE_DIR) / "tests" / "kb" / "sitesearch" / "relevance.jsonl"
    scores = evaluate(relevance)  # also warms the searcher and its caches
    figure(f"relevance set ({scores.queries} queries): MRR", f"{scores.mrr:.3f}")
    figure("  recall@10 (rule numbers and keywords)", f"{scores.recall_at_10:.3f}")
    figure(
        "  MRR by category",
        ", ".join(f"{k} {v:.2f}" for k, v in sorted(scores.by_category.items())),
    )
    relevance_sets(old=False)
    queries = query_mix(relevance.parent)
    latency(queries)
    concurrency(var_dir)
    return 0


SETS = ("relevance_dev", "relevance_test", "players_dev", "players_test")


def relevance_sets(*, old: bool = True) -> int:
    """MRR@10 of the frozen sets by query shape (`python -m bench.search --relevance` on
    make run's data: a minute, not the whole bench). The players' sets (issue 33) are
    questions in players' words; their test part is never tuned on."""
    from django.conf import settings

    from bench.relevance import evaluate
    from search.semantic import retriever

    folder = Path(settings.BASE_DIR) / "tests" / "kb" / "sitesearch"
    state = retriever.status()
    print(
        "semantic retriever: "
        + ("ready" if state.ready else f"off ({state.reason})")
        + f", {state.embedded} of {state.total} passages embedded",
        flush=True,
    )
    for name in (("relevance",) if old else ()) + SETS:
        scores = evaluate(folder / f"{name}.jsonl")
        print("\n".join(scores.lines(name)), flush=True)
    return 0


def latency(queries: list[str] | None = None) -> int:
    """The latency figures alone, on the database and index in KB_VAR_DIR (`python -m
    bench.search --latency` on make run's data takes a minute or two, not the whole bench)."""
    from django.conf import settings

    if queries is None:
        queries = query_mix(Path(settings.BASE_DIR) / "tests" / "kb" / "sitesearch")
    figure("latency query mix (every evaluation query)", f"{len(queries)} queries")
    ours = _latencies(queries)
    fts = fts5_latencies(queries)
    figure("query p95, highlighting (ours / FTS5)", f"{p95(ours):.1f} / {p95(fts):.1f} ms")
    figure("  median (ours / FTS5)", f"{median(ours):.1f} / {median(fts):.1f} ms")
    figure("  ratio of p95s (target <= 3)", f"{p95(ours) / p95(fts):.1f}")
    figure("search page, Django test client p95", f"{p95(_http(queries)):.1f} ms")
    page, autocomplete = _served(queries)
    figure("search page over HTTP (runserver, loopback) p95", f"{p95(page):.1f} ms")
    figure("  median", f"{median(page):.1f} ms")
    figure("autocomplete over HTTP p95 (target <= 20)", f"{p95(autocomplete):.1f} ms")
    page, autocomplete = _served_by_gunicorn(queries)
    figure("search page over HTTP (make serve, 1 worker) p95", f"{p95(page):.1f} ms")
    figure("  median", f"{median(page):.1f} ms")
    figure("autocomplete over HTTP (make serve) p95", f"{p95(autocomplete):.1f} ms")
    figure("autocomplete in process p95", f"{p95(_autocomplete(queries)):.1f} ms")
    cold = _cold(queries)
    figure("query cold (no leaf scored) p95 / median", f"{p95(cold):.0f} / {median(cold):.0f} ms")
    return 0


def served_by_shape() -> int:
    """Question-shaped queries (the players' sets: searched by meaning too, their embedding
    included) and the rest of the query mix apart, through `make serve` with one worker
    (`python -m bench.search --served-by-shape` on make run's data, vectors computed)."""
    from django.conf import settings

    from kb.sitesearch.understanding import question_shaped
    from search.semantic import retriever

    folder = Path(settings.BASE_DIR) / "tests" / "kb" / "sitesearch"
    players = [
        json.loads(line)["q"]
        for name in ("players_dev.jsonl", "players_test.jsonl")
        for line in (folder / name).read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    questions = [q for q in players if question_shaped(q)]
    rest = [q for q in query_mix(folder) if not question_shaped(q)]
    figure("retriever", retriever.status().reason or "ready")
    page, _ = _served_by_gunicorn(questions)
    figure(
        f"question-shaped ({len(questions)}) over make serve p50 / p95 (target <= 60)",
        f"{median(page):.1f} / {p95(page):.1f} ms",
    )
    page, _ = _served_by_gunicorn(rest)
    figure(
        f"the rest ({len(rest)}) over make serve p50 / p95",
        f"{median(page):.1f} / {p95(page):.1f} ms",
    )
    figure("load average (1 min)", f"{os.getloadavg()[0]:.2f}")
    return 0


def _setup_on_database() -> None:
    """Django on KB_VAR_DIR and on DATABASE_URL when set (setup_inherited drops it: the
    PostgreSQL backend needs the PostgreSQL database its index lives in)."""
    import django

    os.environ.setdefault("KB_PAGE_CACHE", "off")
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings.base"
    os.environ.setdefault("KB_SEARCH_AUTO_DRAIN", "0")
    os.environ["KB_SEARCH_THROTTLE"] = ""
    django.setup()


def service_latency() -> int:
    """The search service alone, in process, on the configured backend (`python -m
    bench.search --service --backend postgres`): the figure to compare backends by, without
    the FTS5 baseline and the HTTP rounds `--latency` adds."""
    from django.conf import settings

    queries = query_mix(Path(settings.BASE_DIR) / "tests" / "kb" / "sitesearch")
    figure("service query mix", f"{len(queries)} queries x {ROUNDS} rounds")
    figure("backend", settings.KB_SEARCH_BACKEND.rsplit(".", 1)[-1])
    _latencies(queries[:20])  # connections opened, caches filled: not what is measured
    samples = _latencies(queries)
    figure("service p50 / p95", f"{median(samples):.1f} / {p95(samples):.1f} ms")
    figure("load average (1 min)", f"{os.getloadavg()[0]:.2f}")
    return 0


def query_mix(folder: Path) -> list[str]:
    """Every query of the evaluation sets (the old set, the sampled dev and test parts):
    short and long, questions, names, numbers, French."""
    out = []
    for name in ("relevance.jsonl", "relevance_dev.jsonl", "relevance_test.jsonl"):
        lines = (folder / name).read_text(encoding="utf-8").splitlines()
        out += [json.loads(line)["q"] for line in lines if line]
    return out


def _latencies(queries: list[str]) -> list[float]:
    from kb.sitesearch.service import search

    return time_each(lambda q: search(q, per_page=10), queries, rounds=ROUNDS)


def _cold(queries: list[str]) -> list[float]:
    """Each query as the first search of its words on a new searcher: the leaf cache
    emptied before it (the per-searcher tables, built once, are kept)."""
    from kb.sitesearch.service import search
    from search.backend import get_backend

    backend = get_backend()
    forget = getattr(backend, "forget_leaves", lambda: None)
    samples = []
    for q in queries:
        forget()
        t = time.perf_counter()
        search(q, per_page=10)
        samples.append(ms_since(t))
    forget()
    return samples


def _http(queries: list[str]) -> list[float]:
    from django.test import Client

    client = Client()

    def get(q: str) -> None:
        response = client.get("/en/search/", {"q": q, "all": "1"})
        assert response.status_code == 200, q

    return time_each(get, queries, rounds=ROUNDS)


def _served(queries: list[str]) -> tuple[list[float], list[float]]:
    """The search page and autocomplete from a real server in another process (`manage.py
    runserver`, DEBUG off) over loopback: one round to open the index and warm it, then
    ROUNDS measured."""
    import socket

    from django.conf import settings

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "DJANGO_DEBUG": "0", "KB_SEARCH_AUTO_DRAIN": "0", "KB_PAGE_CACHE": "off"}
    server = subprocess.Popen(
        [sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
        cwd=settings.BASE_DIR,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        return _timed_over_http(f"http://127.0.0.1:{port}", queries)
    finally:
        server.terminate()
        server.wait(timeout=30)


def _served_by_gunicorn(queries: list[str]) -> tuple[list[float], list[float]]:
    """The same through `make serve` (gunicorn, production settings, whitenoise) with one
    worker, so that the warm-up round warms the process every measured request reaches."""
    import socket

    from bench.serve import serving

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with serving(port, workers=1) as (base, _seconds):
        return _timed_over_http(base, queries)


def _timed_over_http(base: str, queries: list[str]) -> tuple[list[float], list[float]]:
    import urllib.parse
    import urllib.request

    page = f"{base}/en/search/?all=1&q="
    for _ in range(300):  # up to 30 s to start
        try:
            urllib.request.urlopen(page + "trample", timeout=30).read()
            break
        except OSError:
            time.sleep(0.1)

    def get(q: str) -> None:
        with urllib.request.urlopen(page + urllib.parse.quote(q), timeout=30) as r:
            r.read()
            assert r.status == 200, q

    suggest = f"{base}/en/search/suggest/?q="

    def complete(prefix: str) -> None:
        with urllib.request.urlopen(suggest + urllib.parse.quote(prefix), timeout=30) as r:
            r.read()
            assert r.status == 200, prefix

    prefixes = [q[:n] for q in queries for n in (3, 5, 8) if len(q) > n]
    time_each(get, queries)  # opens the index and warms it
    return time_each(get, queries, rounds=ROUNDS), time_each(complete, prefixes, rounds=1)


def _autocomplete(queries: list[str]) -> list[float]:
    from kb.sitesearch.service import suggest

    prefixes = [q[:n] for q in queries for n in (3, 5, 8) if len(q) > n]
    return time_each(suggest, prefixes, rounds=ROUNDS)


# -- the FTS5 baseline ----------------------------------------------------------------------


def fts5_latencies(queries: list[str]) -> list[float]:
    """The same documents in a plain SQLite FTS5 table (porter stemming, accents removed), the
    same queries as AND of words, scoped to the current release, counts per kind and the top
    10 with snippets: the bar the issue sets."""
    from kb.models import Release
    from kb.sitesearch.service import without_stop_words
    from search.indexing import all_documents
    from search.syntax import Phrase, parse

    db = sqlite3.connect(":memory:")
    db.execute(
        "CREATE VIRTUAL TABLE docs USING fts5(kind UNINDEXED, title_en, title_fr, body_en, "
        "body_fr, extra_en, vf UNINDEXED, vt UNINDEXED, "
        "tokenize='porter unicode61 remove_diacritics 2')"
    )
    db.executemany(
        "INSERT INTO docs VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            (
                d.kind,
                d.titles.get("en", ""),
                d.titles.get("fr", ""),
                d.bodies.get("en", ""),
                d.bodies.get("fr", ""),
                d.extras.get("en", ""),
                d.valid_from.toordinal() if d.valid_from else 0,
                d.valid_to.toordinal() if d.valid_to else 10**7,
            )
            for d in all_documents()
        ),
    )
    today = Release.objects.order_by("-effective_date").first().effective_date.toordinal()
    samples = []
    for _ in range(ROUNDS):
        for q in queries:
            groups = without_stop_words(parse(q).groups)
            words = [
                '"' + item.text.replace('"', "") + '"'
                for g in groups
                for item in g.items[:1]
                if isinstance(item, Phrase) or item.text
            ]
            if not words:
                continue
            # Long queries as ours: any of their words, ranked (ours needs half of them).
            match = (" AND " if len(words) <= 2 else " OR ").join(words)
            t = time.perf_counter()
            db.execute(
                "SELECT kind, count(*) FROM docs WHERE docs MATCH ? AND vf <= ? AND vt > ? "
                "GROUP BY kind",
                (match, today, today),
            ).fetchall()
            db.execute(
                "SELECT kind, title_en, snippet(docs, 3, '<mark>', '</mark>', '…', 16) FROM docs "
                "WHERE docs MATCH ? AND vf <= ? AND vt > ? ORDER BY bm25(docs, 0, 4, 4, 1, 1, "
                "0.3) LIMIT 10",
                (match, today, today),
            ).fetchall()
            samples.append(ms_since(t))
    return samples


# -- concurrency ----------------------------------------------------------------------------


def concurrency(var_dir: Path) -> None:
    from django.db import connections

    from search.indexing import check, drain

    connections.close_all()
    env = {**os.environ, "KB_VAR_DIR": str(var_dir), "KB_SEARCH_AUTO_DRAIN": "1"}
    seconds = CONCURRENCY_SECONDS
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "bench.search", *args],
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
        for args in (["--writer", "1"], ["--writer", "2"], ["--reader", str(seconds)])
    ]
    outputs = [json.loads(p.communicate()[0].strip().splitlines()[-1]) for p in procs]
    writes = sum(o["writes"] for o in outputs[:2])
    errors = sum(o["errors"] for o in outputs)
    reads, empty = outputs[2]["reads"], outputs[2]["empty"]
    drain(wait=60)
    result = check()
    figure(
        f"2 writers + 1 reader for {seconds} s on SQLite",
        f"{writes} edits, {reads} searches, {errors} errors, {empty} empty answers",
    )
    figure("  check_index afterwards", "clean" if result.clean else "; ".join(result.lines()))
    reader_proc = subprocess.Popen(
        [sys.executable, "-m", "bench.search", "--reader", "0"],
        env=env,
        stdout=subprocess.PIPE,
        stdin=subprocess.PIPE,
        text=True,
    )
    time.sleep(2)
    from search.indexing import rebuild

    started = time.perf_counter()
    rebuild()
    took = time.perf_counter() - started
    out = json.loads(reader_proc.communicate("stop\n")[0].strip().splitlines()[-1])
    figure(
        f"a reader during rebuild_index ({took:.0f} s)",
        f"{out['reads']} searches, {out['errors']} errors, {out['empty']} empty answers",
    )


def writer(number: int) -> int:
    """Edit glossary texts one transaction at a time (each drains the outbox after commit when
    the index lock is free) for CONCURRENCY_SECONDS."""
    from django.db import transaction

    from kb.models import GlossaryVersion

    ids = list(GlossaryVersion.objects.filter(valid_to=None).values_list("id", flat=True))
    rng = random.Random(number)
    writes = errors = 0
    end = time.monotonic() + CONCURRENCY_SECONDS
    while time.monotonic() < end:
        try:
            with transaction.atomic():
                version = GlossaryVersion.objects.get(pk=rng.choice(ids))
                base = version.text_en.split(" [edit ")[0]
                version.text_en = f"{base} [edit {number}-{writes}]"
                version.save()
            writes += 1
        except Exception as exc:  # counted and reported: the bench must not stop
            errors += 1
            print(f"writer {number}: {exc!r}", file=sys.stderr)
    print(json.dumps({"writes": writes, "errors": errors}))
    return 0


def reader(seconds: float) -> int:
    """Search without pause for `seconds` (0: until a line arrives on stdin)."""
    import select

    from kb.sitesearch.service import search

    queries = ["trample", "flying", "mulligan", "state-based actions", "lightning bolt"]
    reads = errors = empty = 0
    end = time.monotonic() + seconds
    while True:
        if seconds and time.monotonic() > end:
            break
        if not seconds and select.select([sys.stdin], [], [], 0)[0]:
            break
        try:
            found = search(queries[reads % len(queries)])
            empty += found.results.total == 0
        except Exception as exc:  # counted and reported
            errors += 1
            print(f"reader: {exc!r}", file=sys.stderr)
        reads += 1
    print(json.dumps({"reads": reads, "errors": errors, "empty": empty}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
