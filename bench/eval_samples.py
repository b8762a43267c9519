"""Draw the items of the evaluation sets by seeded sampling, before anyone labels them.

Why a script: an evaluation set built by picking examples measures the picker. Here the
targets (rules, glossary entries, rulings, cards) are drawn at random within strata (the
query shapes of the search set; the era and the card's keywords for the linker set), each
item gets its part (dev or test, a third for test) by the same seed, and only then are queries
written and labels given by hand. Rerunning with the same seed and data draws the same items.

    python -m bench.eval_samples OUT_DIR [--seed N]

writes OUT_DIR/search_items.jsonl and OUT_DIR/linking_items.jsonl (to label), reading the
shared data only (the newest CR file, cards.jsonl.gz): no database, no search, no linker.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gzip
import json
import random
import re
from pathlib import Path

from django.utils.text import slugify

from kb.crtext import reading
from kb.crtext.model import term_key

#: Query shapes of the search set and how many items each gets.
SEARCH_SHAPES = {
    "question": 66,  # a player's question whose answer is a rule of the current release
    "paraphrase": 60,  # a ruling told in other words
    "definition": 45,  # "what is X", "X meaning" for a glossary term
    "misspelling": 36,  # a keyword, glossary term or card name typed with a typo
    "french": 45,  # a French term, card name or question
    "number": 24,  # a rule number in one of its usual shapes
    "ruleish": 36,  # a rules phrase whose words also appear in card names
    "card": 24,  # a card by its name
}
#: Linker strata: era of the ruling x whether its card has keyword abilities.
ERAS = (
    ("pre-modern", None, dt.date(2009, 7, 11)),
    ("2009-2016", dt.date(2009, 7, 11), dt.date(2017, 1, 1)),
    ("2017-", dt.date(2017, 1, 1), None),
)
PER_STRATUM = 55
TEST_SHARE = 3  # every third item of a stratum (in drawn order) is test


def _part(i: int, count: int) -> str:
    """Every third item is test, and the leftover of a stratum whose size is not a multiple of
    three (its last item): test is at least a third of every stratum."""
    leftover = i >= count - count % TEST_SHARE
    return "test" if i % TEST_SHARE == 2 or leftover else "dev"


def _cards(data: Path) -> list[dict]:
    with gzip.open(data / "cards" / "cards.jsonl.gz", "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


def _current_rules(data: Path):
    newest = sorted((data / "cr" / "en").glob("*.txt"))[-1]
    return reading.parse_bytes(newest.read_bytes(), source=newest.name)


def search_items(data: Path, rng: random.Random) -> list[dict]:
    doc = _current_rules(data)
    subrules = [
        e for e in doc.entries if e.kind in ("rule", "subrule") and e.number[0] in "1234567"
    ]
    keywords = [
        e for e in doc.entries if e.kind == "rule" and e.number.startswith(("701.", "702."))
    ]
    glossary = [g for g in doc.glossary if not g.obsolete]
    cards = [c for c in _cards(data) if c.get("oracle_text")]
    rulings = [(c, r) for c in cards for r in c.get("rulings", []) if "-----" not in r["text"]]
    french_cards = [c for c in cards if (c.get("fr") or {}).get("name")]
    words = {w.lower() for k in keywords for w in re.findall(r"[A-Za-z]+", k.text.split(".")[0])}
    ruleish_cards = [
        c for c in cards if any(w.lower() in words for w in re.findall(r"[A-Za-z]+", c["name"]))
    ]
    numbers = [e for e in doc.entries if e.kind in ("chapter", "rule", "subrule")]

    def rule(e) -> dict:
        return {"number": e.number, "text": e.text}

    def gloss(g) -> dict:
        return {
            "glossary": slugify(term_key(g.headword))[:90],
            "headword": g.headword,
            "text": g.text,
        }

    def card(c) -> dict:
        fr = c.get("fr") or {}
        return {
            "card": slugify(c["name"])[:180],
            "name": c["name"],
            "name_fr": fr.get("name") or "",
            "oracle_text": c["oracle_text"],
            "keywords": c.get("keywords", []),
        }

    def ruling(pair) -> dict:
        c, r = pair
        return {**card(c), "ruling_date": r["date"], "ruling": r["text"]}

    draw = {
        "question": lambda: rule(rng.choice(subrules)),
        "paraphrase": lambda: ruling(rng.choice(rulings)),
        "definition": lambda: gloss(rng.choice(glossary)),
        "misspelling": lambda: rng.choice(
            [
                lambda: rule(rng.choice(keywords)),
                lambda: gloss(rng.choice(glossary)),
                lambda: card(rng.choice(cards)),
            ]
        )(),
        "french": lambda: rng.choice(
            [
                lambda: rule(rng.choice(keywords)),
                lambda: gloss(rng.choice(glossary)),
                lambda: card(rng.choice(french_cards)),
            ]
        )(),
        "number": lambda: rule(rng.choice(numbers)),
        "ruleish": lambda: card(rng.choice(ruleish_cards)),
        "card": lambda: card(rng.choice(cards)),
    }
    items, seen = [], set()
    for shape, count in SEARCH_SHAPES.items():
        i = 0
        while i < count:
            target = draw[shape]()
            key = (shape, json.dumps(target, sort_keys=True))
            if key in seen:
                continue
            seen.add(key)
            items.append(
                {
                    "id": f"{shape}-{i + 1}",
                    "shape": shape,
                    "part": _part(i, count),
                    "target": target,
                }
            )
            i += 1
    return items


def linking_items(data: Path, rng: random.Random, exclude: set[tuple[str, str]]) -> list[dict]:
    strata: dict[tuple[str, bool], list[dict]] = {}
    for c in _cards(data):
        for r in c.get("rulings", []):
            if "-----" in r["text"] or (c["name"], r["text"]) in exclude:
                continue
            date = dt.date.fromisoformat(r["date"])
            era = next(
                n
                for n, start, end in ERAS
                if (not start or date >= start) and (not end or date < end)
            )
            row = {
                "oracle_id": c.get("oracle_id"),
                "card_name": c["name"],
                "date": r["date"],
                "text": r["text"],
                "oracle_text": c.get("oracle_text") or "",
                "keywords": c.get("keywords", []),
            }
            strata.setdefault((era, bool(c.get("keywords"))), []).append(row)
    items = []
    for (era, has_keywords), rows in sorted(strata.items()):
        for i, row in enumerate(rng.sample(rows, PER_STRATUM)):
            stratum = f"{era}/{'keywords' if has_keywords else 'no-keywords'}"
            items.append(
                {"n": len(items) + 1, "stratum": stratum, "part": _part(i, PER_STRATUM), **row}
            )
    return items


def main() -> None:
    import os

    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")
    django.setup()
    from django.conf import settings

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path, help="folder for the items to label")
    ap.add_argument("--seed", type=int, default=2612, help="the sampling seed")
    args = ap.parse_args()
    data = Path(settings.KB_DATA_DIR)
    tests = Path(settings.BASE_DIR) / "tests" / "rulings"
    exclude = {
        (row["card_name"], row["text"])
        for name in ("linking_sample.jsonl", "linking_holdout.jsonl")
        for row in map(json.loads, (tests / name).read_text(encoding="utf-8").splitlines())
    }
    args.out.mkdir(parents=True, exist_ok=True)
    for name, items in (
        ("search_items.jsonl", search_items(data, random.Random(args.seed))),
        ("linking_items.jsonl", linking_items(data, random.Random(args.seed + 1), exclude)),
    ):
        with (args.out / name).open("w", encoding="utf-8") as fh:
            for item in items:
                fh.write(json.dumps(item, ensure_ascii=False) + "\n")
        print(f"{args.out / name}: {len(items)} items")


if __name__ == "__main__":
    main()
