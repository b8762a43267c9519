"""Search relevance and linker quality on the evaluation sets, dev and test reported apart.

    python -m bench.quality [search|linking] [--misses dev] [--test]

Reads the database and index `make run` built (settings as configured: var/kb.sqlite3 and
var/index by default), so a tuning loop takes seconds; `make bench` prints the same figures
on a database of its own. Tune on dev only; the test parts are for reporting.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent / "tests"
SEARCH_SETS = {
    "old set (regression floor)": TESTS / "kb" / "sitesearch" / "relevance.jsonl",
    "dev": TESTS / "kb" / "sitesearch" / "relevance_dev.jsonl",
    "test": TESTS / "kb" / "sitesearch" / "relevance_test.jsonl",
}
LINKING_SETS = {
    "old sample (regression floor)": TESTS / "rulings" / "linking_sample.jsonl",
    "old holdout (regression floor)": TESTS / "rulings" / "linking_holdout.jsonl",
    "dev": TESTS / "rulings" / "linking_dev.jsonl",
    "test": TESTS / "rulings" / "linking_test.jsonl",
}


def _sets(sets: dict[str, Path], test: bool) -> list[tuple[str, Path]]:
    """The sets to report: the test part only when asked (never while tuning)."""
    return [(name, path) for name, path in sets.items() if test or name != "test"]


def search_report(misses: str = "", test: bool = False) -> list[str]:
    from bench.relevance import evaluate

    out = []
    for name, path in _sets(SEARCH_SETS, test):
        scores = evaluate(path)
        out += scores.lines(name)
        if name == misses:
            out += [f"    miss: {q!r} rank {r}" for q, r in scores.ranks if r != 1]
    return out


def linking_report(misses: str = "", test: bool = False) -> list[str]:
    from bench.linking import evaluate, strata_report

    out = []
    for name, path in _sets(LINKING_SETS, test):
        s = evaluate(path)
        out.append(
            f"{name}: {s.rulings} rulings, precision {s.precision:.3f}, recall {s.recall:.3f}, "
            f"median links {s.median_links}"
        )
        if name in ("dev", "test"):
            out += strata_report(s)
            p = evaluate(path, proposals=True)
            out.append(
                f"  with proposals confirmed: precision {p.precision:.3f}, recall "
                f"{p.recall:.3f}; the nearest rule right for {p.proposals_right} of the "
                f"{p.unlinked} rulings the linker found nothing for"
            )
        if name == misses:
            out += [f"    miss {m['n']}: got {m['got']} want {m['want']}" for m in s.misses]
    return out


def main() -> None:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")
    os.environ.setdefault("KB_SEARCH_WARM_UP", "0")
    django.setup()
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("what", nargs="?", choices=["search", "linking"], help="one report only")
    ap.add_argument("--misses", default="", help="list the misses of this set (e.g. dev)")
    ap.add_argument("--test", action="store_true", help="the test parts too (not while tuning)")
    args = ap.parse_args()
    if args.what in (None, "search"):
        print("\n".join(search_report(args.misses, args.test)))
    if args.what in (None, "linking"):
        print("\n".join(linking_report(args.misses, args.test)))


if __name__ == "__main__":
    main()
