"""Load on loopback against `make serve` (2 workers): a mix of reading and search requests at
1, 4, 16 and 64 concurrent clients, each level for a bounded time and number of requests.

    KB_VAR_DIR=var .venv/bin/python -m bench.loadtest [--seconds 30] [--levels 1,4,16,64]
        [--during import|rebuild] [--json PATH]

Needs the data `make run` loads (KB_VAR_DIR). Prints, per level, the throughput and the p50,
p95 and p99 latencies, errors (anything but 200, 304 and 429: a 503 during a write lock is an
error) and 429s apart; then checks the database (SQLite's integrity check) and the index
(`check_index`, after the outbox is drained) are intact afterwards.
Loopback only; every level stops after --seconds or MAX_REQUESTS requests, whichever is first.
The server's output (gunicorn's access log, tracebacks) goes to KB_VAR_DIR/loadtest-serve.log.

`--during` runs a writer over and over while the levels run, as an operator's work would:
`import` replaces the newest release with a copy whose rule 100.1 says one word more, then
with its own file again (`import_rules --replace`: each a transaction holding SQLite's write
lock for seconds; the database ends as it began), `rebuild` runs `rebuild_index` (the whole
index built beside the live one and swapped in). Each run's time and exit status are printed;
a failed run counts as an error.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from bench.serve import ROOT, serving

MAX_REQUESTS = 50_000


def addresses(seed: int = 7) -> list[str]:
    """The mix: rule pages (current and pinned), chapters, histories, diffs of neighbouring
    releases, cards, and searches drawn from the relevance sets' queries."""
    from bench.environment import setup

    setup(os.environ.get("KB_VAR_DIR", str(ROOT / "var")))
    from kb.models import Release, RuleNumber
    from rulings.models import Card

    rng = random.Random(seed)
    dates = sorted(Release.objects.values_list("effective_date", flat=True))
    current = list(RuleNumber.objects.filter(valid_to__isnull=True).values_list("number", "kind"))
    rules = [n for n, kind in current if kind in ("rule", "subrule")]
    # Pinned pages: a number in a release it was valid in (its first).
    pinned = list(
        RuleNumber.objects.filter(kind__in=("rule", "subrule")).values_list("number", "valid_from")
    )
    chapters = [n for n, kind in current if kind == "chapter"]
    cards = list(Card.objects.values_list("slug", flat=True)[:5000])
    queries = []
    for name in ("relevance_dev.jsonl", "relevance.jsonl"):
        path = ROOT / "tests" / "kb" / "sitesearch" / name
        queries += [line.split('"q": "', 1)[1].split('"', 1)[0] for line in path.open()]
    mix = []
    for _ in range(400):
        lang = rng.choice(("en", "fr"))
        mix += [
            f"/{lang}/rules/{rng.choice(rules)}/",
            "/{}/{}/rules/{}/".format(lang, *reversed(rng.choice(pinned))),
            f"/{lang}/rules/{rng.choice(chapters)}/",
            f"/{lang}/rules/{rng.choice(rules)}/history/",
            f"/{lang}/diff/{'..'.join(map(str, _neighbours(rng, dates)))}/",
            f"/{lang}/cards/{rng.choice(cards)}/",
            f"/{lang}/search/?q={urllib.request.quote(rng.choice(queries))}",
            f"/api/v1/search?q={urllib.request.quote(rng.choice(queries))}",
        ]
    rng.shuffle(mix)
    return mix


def _neighbours(rng: random.Random, dates: list) -> tuple:
    i = rng.randrange(1, len(dates))
    return dates[i - 1], dates[i]


def warm_up(base: str, urls: list[str]) -> dict[int, int]:
    """Each worker's caches warmed, as after a few minutes of use; the statuses (a first
    search in a new worker on a starved machine can outlast gunicorn's 30 s timeout: a 500
    here is printed, not hidden, and the levels still run)."""
    statuses: Counter[int] = Counter()
    for url in urls:
        try:
            with urllib.request.urlopen(base + url, timeout=60) as answer:
                answer.read()
                statuses[answer.status] += 1
        except urllib.error.HTTPError as exc:
            statuses[exc.code] += 1
        except OSError:
            statuses[0] += 1
    return dict(statuses)


def level(base: str, urls: list[str], clients: int, seconds: float) -> dict[str, object]:
    """`clients` threads reading `urls` in turn for `seconds` (or MAX_REQUESTS in all)."""
    latencies: list[float] = []
    statuses: Counter[int] = Counter()
    lock = threading.Lock()
    deadline = time.perf_counter() + seconds
    counter = iter(range(MAX_REQUESTS))

    def client(offset: int) -> None:
        i = offset
        while time.perf_counter() < deadline:
            with lock:
                if next(counter, None) is None:
                    return
            url = base + urls[i % len(urls)]
            i += clients
            t = time.perf_counter()
            try:
                with urllib.request.urlopen(url, timeout=60) as answer:
                    answer.read()
                    status = answer.status
            except urllib.error.HTTPError as exc:
                status = exc.code
            except OSError:
                status = 0
            with lock:
                latencies.append((time.perf_counter() - t) * 1000)
                statuses[status] += 1

    started = time.perf_counter()
    threads = [threading.Thread(target=client, args=(n * 97,)) for n in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    cuts = statistics.quantiles(latencies, n=100) if len(latencies) > 1 else [0.0] * 99
    return {
        "clients": clients,
        "requests": len(latencies),
        "rps": len(latencies) / elapsed,
        "p50": cuts[49],
        "p95": cuts[94],
        "p99": cuts[98],
        "errors": sum(n for s, n in statuses.items() if s not in (200, 304, 429)),
        "throttled": statuses[429],
        "statuses": dict(statuses),
    }


def _manage(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, capture_output=True, text=True
    )


def _edited_copy(source: Path, folder: Path) -> Path:
    """`source` (a CR text file) with one word more in rule 100.1, under the same name."""
    text = source.read_text(encoding="utf-8")
    start = text.index("\n100.1. ") + 1
    end = text.index("\n", start)
    copy = folder / source.name
    copy.write_text(text[:end] + " (load test)" + text[end:], encoding="utf-8")
    return copy


@dataclass
class Writer:
    """A writer run over and over in a thread of its own until stopped (see --during)."""

    kind: str  # import or rebuild
    runs: list[tuple[str, float, int, str]] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None
    _folder: tempfile.TemporaryDirectory | None = None

    def commands(self) -> list[list[str]]:
        """One round: the commands that leave the data as they found it."""
        if self.kind == "rebuild":
            return [["rebuild_index"]]
        from kb.models import Release

        newest = Path(Release.objects.latest("effective_date").source)
        self._folder = self._folder or tempfile.TemporaryDirectory(prefix="loadtest-")
        edited = _edited_copy(newest, Path(self._folder.name))
        return [
            ["import_rules", "--replace", str(edited)],
            ["import_rules", "--replace", str(newest)],
        ]

    def start(self) -> None:
        rounds = self.commands()

        def loop() -> None:
            while not self._stop.is_set():
                for command in rounds:  # a round is never cut: the data ends as it began
                    t = time.perf_counter()
                    done = _manage(*command, "-v", "0")
                    tail = (done.stderr.strip().splitlines() or [""])[-1]
                    self.runs.append(
                        (" ".join(command[:2]), time.perf_counter() - t, done.returncode, tail)
                    )

        self._thread = threading.Thread(target=loop, name=f"during-{self.kind}", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self._folder is not None:
            self._folder.cleanup()

    @property
    def failed(self) -> int:
        return sum(1 for run in self.runs if run[2] != 0)

    def lines(self) -> list[str]:
        times = [run[1] for run in self.runs]
        out = [
            f"during: {self.kind}: {len(self.runs)} runs, {self.failed} failed"
            + (f", {min(times):.1f}-{max(times):.1f} s each" if times else "")
        ]
        out += [
            f"  failed: {name} exit {code}: {tail}" for name, _, code, tail in self.runs if code
        ]
        return out


def intact() -> list[str]:
    """The database and the index after the load (the outbox drained first: `make serve`'s
    index_worker stops with it)."""
    out = []
    db = Path(os.environ.get("KB_VAR_DIR", str(ROOT / "var"))) / "kb.sqlite3"
    if db.is_file():
        import sqlite3

        with sqlite3.connect(db) as connection:
            out.append(f"database: {connection.execute('PRAGMA integrity_check').fetchone()[0]}")
    _manage("index_worker", "--once", "-v", "0")
    check = _manage("check_index")
    last = (check.stdout.strip().splitlines() or ["(no output)"])[-1]
    out.append(f"check_index: exit {check.returncode}, {last}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8717)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--levels", default="1,4,16,64")
    parser.add_argument("--during", choices=("import", "rebuild"), help="a writer at work")
    parser.add_argument("--json", type=Path, help="also write the figures here as JSON")
    args = parser.parse_args()
    urls = addresses()
    results = []
    writer = Writer(args.during) if args.during else None
    log = Path(os.environ.get("KB_VAR_DIR", str(ROOT / "var"))) / "loadtest-serve.log"
    with serving(args.port, log=log) as (base, start):
        print(f"make serve answered after {start:.1f} s; {len(urls)} addresses in the mix")
        print(f"warm-up: {warm_up(base, urls[:40])}")
        if writer:
            writer.start()
            print(f"while {writer.kind} runs over and over")
        print("clients  requests  req/s    p50 ms   p95 ms   p99 ms  errors  429")
        try:
            for clients in (int(n) for n in args.levels.split(",")):
                r = level(base, urls, clients, args.seconds)
                results.append(r)
                print(
                    f"{r['clients']:>7}  {r['requests']:>8}  {r['rps']:>5.1f}  {r['p50']:>7.1f}  "
                    f"{r['p95']:>7.1f}  {r['p99']:>7.1f}  {r['errors']:>6}  {r['throttled']:>3}"
                )
                if r["errors"]:
                    print(f"         statuses: {r['statuses']}")
        finally:
            if writer:
                writer.stop()
    if writer:
        for line in writer.lines():
            print(line)
    checks = intact()
    for line in checks:
        print(line)
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "levels": results,
                    "during": args.during,
                    "runs": [list(run) for run in writer.runs] if writer else [],
                    "checks": checks,
                },
                indent=1,
            )
        )


if __name__ == "__main__":
    main()
