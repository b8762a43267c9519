"""How every benchmark times things and reports them, so their figures compare.

p95 is the nearest-rank percentile: the ceil(0.95 n)-th of the n samples in ascending order,
the smallest sample that at least 95 % of them do not exceed. Why this definition: it is always
a latency that was observed, so a target such as "p95 <= 3 x FTS5" reads "95 % of the searches
took at most this"; it needs no interpolation and holds for any number of samples (a page timed
20 times reports its 19th). The interpolating definitions differ exactly where benches sample
little: statistics.quantiles' default ("exclusive") extrapolates past the slowest sample below
19 samples. The median is statistics.median (the mean of the two middle samples for an even
count). Samples are in milliseconds throughout.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

T = TypeVar("T")

#: Wide enough for every label of the three benches, which `make bench` prints one after another.
LABEL_WIDTH = 52


def figure(name: str, value: str) -> None:
    """Print one measured figure as a row of the bench's table, at once (runs take minutes)."""
    print(f"{name:<{LABEL_WIDTH}} {value}", flush=True)


def p95(samples: Sequence[float]) -> float:
    """The nearest-rank 95th percentile (see the module docstring)."""
    if not samples:
        raise ValueError("p95 of no samples")
    rank = -(-95 * len(samples) // 100)  # ceil(0.95 n) without floating-point rounding
    return sorted(samples)[rank - 1]


def median(samples: Sequence[float]) -> float:
    return statistics.median(samples)


def time_each(call: Callable[[T], object], items: Iterable[T], rounds: int = 1) -> list[float]:
    """Milliseconds each `call(item)` took, for every item, `rounds` times over."""
    items = list(items)
    samples = []
    for _ in range(rounds):
        for item in items:
            started = time.perf_counter()
            call(item)
            samples.append((time.perf_counter() - started) * 1000)
    return samples


def ms_since(started: float) -> float:
    """Milliseconds since `started`, a time.perf_counter() reading."""
    return (time.perf_counter() - started) * 1000
