"""`make serve` timed: how long until it answers, and a few requests through gunicorn.

    KB_VAR_DIR=var .venv/bin/python -m bench.serve [--port 8716] [--repeat 10]

Runs `make serve` on loopback with a throwaway secret (plain http: DJANGO_SECURE_SSL_REDIRECT=0)
on the data of KB_VAR_DIR (load it first with `make run`), waits for the first 200 of /en/,
then times each address REPEAT times (median and max, milliseconds), checks a conditional GET
answers 304, and stops it. Bounded (one client, a few dozen requests), loopback only: not a load
test.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
import signal
import statistics
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ADDRESSES = [
    "/en/",
    "/en/rules/602.2a/",
    "/fr/rules/602.2a/",
    "/en/2019-05-03/rules/602/",
    "/en/rules/602.2a/history/",
    "/en/diff/2019-05-03..2025-06-06/",
    "/en/search/?q=activate",
    "/api/v1/rules/602.2a?release=2019-05-03",
    "/api/v1/search?q=activate",
    "/api/docs",
]


def get(url: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str]]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            answer.read()
            return answer.status, dict(answer.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers)


@contextlib.contextmanager
def serving(port: int, workers: int = 2, log: Path | None = None) -> Iterator[tuple[str, float]]:
    """`make serve` on loopback (a throwaway secret, plain http, no search limit) on the data of
    KB_VAR_DIR; yields its base URL and the seconds it took to answer, and stops it whole
    (SIGTERM, then SIGKILL past gunicorn's 30 s of grace). `log`: where its output goes."""
    env = {
        **os.environ,
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
        "DJANGO_SECURE_SSL_REDIRECT": "0",
        "KB_SEARCH_THROTTLE": "",
    }
    base = f"http://127.0.0.1:{port}"
    started = time.perf_counter()
    server = subprocess.Popen(
        ["make", "serve", f"PORT={port}", f"WORKERS={workers}"],
        cwd=ROOT,
        env=env,
        stdout=log.open("w") if log else subprocess.DEVNULL,
        stderr=subprocess.STDOUT if log else subprocess.DEVNULL,
        start_new_session=True,  # its own process group: stopped whole below
    )
    try:
        while True:
            try:
                if get(base + "/en/")[0] == 200:
                    break
            except OSError:
                pass
            if server.poll() is not None or time.perf_counter() - started > 180:
                raise SystemExit("make serve did not answer")
            time.sleep(0.1)
        yield base, time.perf_counter() - started
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=45)
        except subprocess.TimeoutExpired:  # requests still running past the grace period
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8716, help="loopback port for gunicorn")
    parser.add_argument("--repeat", type=int, default=10, help="requests per address")
    args = parser.parse_args()
    with serving(args.port) as (base, seconds):
        print(f"make serve: first 200 after {seconds:.1f} s")
        for address in ADDRESSES:
            times = []
            for _ in range(args.repeat):
                t = time.perf_counter()
                status, _headers = get(base + address)
                times.append((time.perf_counter() - t) * 1000)
            print(
                f"{address:45} {status}  median {statistics.median(times):6.1f} ms"
                f"  max {max(times):6.1f} ms"
            )
        status, headers = get(base + "/en/rules/602.2a/")
        again, _ = get(base + "/en/rules/602.2a/", {"If-None-Match": headers.get("ETag", "")})
        print(f"conditional GET of a current page: {status} then {again}")


if __name__ == "__main__":
    main()
