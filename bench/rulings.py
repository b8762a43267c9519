"""Benchmarks of cards and rulings on the full shared data: `make bench` runs it after kb's.

Why a script: timings are figures for the issue notes, not pass/fail tests. It builds its own
throwaway SQLite database (rules archive, then cards), like bench.kb.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

from bench.environment import pages_in_fresh_process, setup_inherited, throwaway_var_dir
from bench.measure import figure, median, p95, time_each


def main() -> int:
    if "--pages" in sys.argv:
        setup_inherited()
        return pages()
    with throwaway_var_dir("rulings-bench-") as var_dir:
        return run(var_dir)


def run(var_dir: Path) -> int:
    from django.conf import settings
    from django.core.management import call_command

    from bench.card_names import top5_accuracy
    from bench.linking import evaluate
    from rulings.importing.cards import import_cards
    from rulings.linking import link_rulings
    from rulings.vocabulary.mining import build_vocabulary

    data = Path(settings.KB_DATA_DIR)
    cards, rulings = data / "cards" / "cards.jsonl.gz", data / "cards" / "rulings.jsonl.gz"
    if not cards.is_file():
        print(f"no shared cards at {cards}: nothing to measure", file=sys.stderr)
        return 1
    call_command("migrate", verbosity=0)
    call_command("import_rules", str(data / "cr" / "en"), verbosity=0)

    t = time.perf_counter()
    result = import_cards(str(cards), str(rulings))
    figure("import all cards and rulings (no linking)", f"{time.perf_counter() - t:.1f} s")
    figure("cards, rulings", f"{result.cards_created:,}, {result.rulings_created:,}")
    t = time.perf_counter()
    linked = link_rulings()
    figure(f"link all {linked:,} rulings to rules", f"{time.perf_counter() - t:.1f} s")
    t = time.perf_counter()
    import_cards(str(cards), str(rulings))
    figure("re-import all cards and rulings (unchanged)", f"{time.perf_counter() - t:.1f} s")
    t = time.perf_counter()
    report = build_vocabulary()
    figure("build the EN/FR vocabulary", f"{time.perf_counter() - t:.1f} s")
    for line in report.lines()[:2]:
        figure("  " + line.split(":")[0], line.split(":")[1].strip())
    here = Path(settings.BASE_DIR) / "tests" / "rulings"
    scores = evaluate(here / "linking_sample.jsonl")
    figure(
        "linker on the labelled sample (P / R / median)",
        f"{scores.precision:.3f} / {scores.recall:.3f} / {scores.median_links:g}"
        f" ({scores.rulings} rulings)",
    )
    accuracy, _misses = top5_accuracy(here / "card_queries.jsonl")
    figure("card queries: right card in the top 5", f"{accuracy:.0%} of 40")
    pages_in_fresh_process("bench.rulings", var_dir)
    return 0


def _timed(client, urls: list[str], warm: int = 10) -> str:
    """The p95 and median of GET `urls` (each must answer 200), after `warm` of them."""
    for url in urls[:warm]:
        client.get(url)

    def get(url: str) -> None:
        response = client.get(url)
        assert response.status_code == 200, (url, response.status_code)

    samples = time_each(get, urls)
    return f"{p95(samples):.1f} ms (median {median(samples):.1f})"


def _queries(client, url: str) -> int:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as ctx:
        client.get(url)
    return len(ctx.captured_queries)


def pages() -> int:
    """Autocomplete, card and rule pages in a fresh process (like a web worker's)."""
    from django.db import transaction
    from django.test import Client

    from rulings.linking import link_rulings
    from rulings.models import Card, Ruling, RulingLink

    rng = random.Random(3)
    client = Client()
    names = list(Card.objects.values_list("name_en", flat=True))
    queries = []
    for name in rng.sample(names, 300):
        word = name[: rng.randint(3, max(3, len(name)))]
        if rng.random() < 0.3 and len(word) > 4:  # a typo: two letters swapped
            i = rng.randrange(len(word) - 1)
            word = word[:i] + word[i + 1] + word[i] + word[i + 2 :]
        queries.append(word)
    urls = [f"/api/v1/cards/autocomplete?q={q}" for q in queries]
    figure("autocomplete p95 (300 prefixes, 30 % with typos)", _timed(client, urls))

    with transaction.atomic():  # a card with 200 rulings, rolled back afterwards
        ids = rng.sample(list(Ruling.objects.values_list("id", flat=True)), 200)
        texts = list(Ruling.objects.filter(id__in=ids).values_list("date", "text"))
        card = Card.objects.create(key="bench-card", slug="bench-card", name="Bench Card")
        made = Ruling.objects.bulk_create(
            [Ruling(card=card, date=d, text=t, text_hash=f"b{i}") for i, (d, t) in enumerate(texts)]
        )
        link_rulings([r.pk for r in made])
        url = "/en/cards/bench-card/"
        figure("card page with 200 rulings p95", _timed(client, [url] * 60))
        figure("  its queries", str(_queries(client, url)))
        transaction.set_rollback(True)
    small = "/en/cards/acorn-catapult/"
    figure("card page with 2 rulings, queries", str(_queries(client, small)))
    for number in ("608.2b", "603"):
        url = f"/en/current/rules/{number}/"
        count = RulingLink.objects.filter(current_number=number).count()
        figure(f"rule page {number} ({count:,} rulings) p95", _timed(client, [url] * 60))
        figure("  its queries", str(_queries(client, url)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
