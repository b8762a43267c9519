"""Build the card-name evaluation set of issue 35: misspelt and partial names, sampled.

    python -m bench.card_typos   (writes tests/rulings/card_typos_{dev,test}.jsonl)

Why generated and how: people look up the cards they know, which are the cards printed many
times; so 180 cards are drawn (seeded) among those printed in 3 sets or more, and each gets
one query of a kind people type, in turn: a letter dropped, two letters swapped, a letter
doubled or a vowel changed (in a word of 5 letters or more), the name cut after the first
letters of its last word ("lightning b"), or typed without its punctuation and cut short
("teferis prot"). The expected answer is the card drawn. Split 120 dev / 60 test, written
before anything is run on it; the tests assert the floor on dev and report test.
"""

from __future__ import annotations

import gzip
import json
import random
import re
from pathlib import Path

from django.conf import settings

SEED = 35
CARDS = 180
DEV = 120
MIN_PRINTINGS = 3
OUT = Path(__file__).resolve().parent.parent / "tests" / "rulings"
KINDS = ("drop", "swap", "double", "vowel", "cut", "unpunctuated")


def _typo(name: str, kind: str, rng: random.Random) -> str | None:
    words = name.split(" ")
    long = [i for i, w in enumerate(words) if len(re.sub(r"\W", "", w)) >= 5]
    if kind in ("drop", "swap", "double", "vowel"):
        if not long:
            return None
        i = rng.choice(long)
        w = words[i]
        letters = [k for k, ch in enumerate(w) if ch.isalpha()]
        k = rng.choice(letters[1:-1] or letters)
        if kind == "drop":
            w = w[:k] + w[k + 1 :]
        elif kind == "swap" and k + 1 < len(w) and w[k + 1].isalpha() and w[k] != w[k + 1]:
            w = w[:k] + w[k + 1] + w[k] + w[k + 2 :]
        elif kind == "double":
            w = w[:k] + w[k] + w[k:]
        elif kind == "vowel":
            vowels = [j for j in letters if w[j].lower() in "aeiou"]
            if not vowels:
                return None
            j = rng.choice(vowels)
            w = w[:j] + rng.choice([v for v in "aeiou" if v != w[j].lower()]) + w[j + 1 :]
        else:
            return None
        words[i] = w
        return " ".join(words).lower()
    if kind == "cut":
        if len(words) < 2 or len(words[-1]) < 3:
            return None
        return " ".join([*words[:-1], words[-1][: rng.randint(1, 3)]]).lower()
    plain = re.sub(r"[^\w\s]", "", name).lower()
    if plain == name.lower() or len(plain) < 8:
        return None
    return plain[: max(6, len(plain) - rng.randint(2, 5))]


def build() -> list[dict]:
    rng = random.Random(SEED)
    pool = []
    with gzip.open(Path(settings.KB_DATA_DIR) / "cards" / "cards.jsonl.gz", "rt") as f:
        for line in f:
            card = json.loads(line)
            if len(card.get("printings") or []) >= MIN_PRINTINGS and " // " not in card["name"]:
                pool.append(card["name"])
    rng.shuffle(pool)
    rows = []
    for name in pool:
        if len(rows) == CARDS:
            break
        kind = KINDS[len(rows) % len(KINDS)]
        query = _typo(name, kind, rng)
        if query and query != name.lower():
            rows.append({"query": query, "expected": name, "why": kind})
    return rows


def main() -> None:
    import os

    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")
    django.setup()
    rows = build()
    for part, chunk in (("dev", rows[:DEV]), ("test", rows[DEV:])):
        path = OUT / f"card_typos_{part}.jsonl"
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in chunk))
        print(f"{path}: {len(chunk)} queries")


if __name__ == "__main__":
    main()
