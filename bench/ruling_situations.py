"""Draw the card rulings that example questions are written from (fixtures/vocabulary/
questions_from_rulings.jsonl; how, in questions.md), leaving out every card and ruling an
evaluation set was drawn from.

Why: the example questions written from the rules alone teach the retriever how players ask
about a rule; players ask about situations, which is what card rulings settle. Questions
written from other rulings than the evaluation sets' teach that without measuring it on its
own material: the players' sets' cards, the linker's sets' cards and the rulings the sampled
search sets paraphrase are excluded. Rerunning with the same seed and data draws the same.

    python -m bench.ruling_situations OUT_DIR [--seed N] [--count N] [--files N]

writes OUT_DIR/situations_1.jsonl … (card, type line, Oracle text, ruling date and text),
reading the shared data and the evaluation sets' files only.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "cards"
SITESEARCH = ROOT / "tests" / "kb" / "sitesearch"
LINKING_SETS = ("linking_sample", "linking_holdout", "linking_dev", "linking_test")
#: Shorter rulings rarely settle a situation ("This is a change from previous rulings.").
MIN_CHARS = 60


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def excluded() -> tuple[set[str], list[str]]:
    """(cards, ruling text starts) that the evaluation sets were drawn from."""
    cards = {
        row["situation"].rsplit(" ruling ", 1)[0]
        for part in ("dev", "test")
        for row in _lines(SITESEARCH / f"players_{part}.jsonl")
    }
    for name in LINKING_SETS:
        cards |= {row["card_name"] for row in _lines(ROOT / "tests" / "rulings" / f"{name}.jsonl")}
    starts = [
        expected.split("|", 1)[1]
        for name in ("relevance", "relevance_dev", "relevance_test")
        for row in _lines(SITESEARCH / f"{name}.jsonl")
        for expected in row["expect"]
        if expected.startswith("ruling:") and "|" in expected
    ]
    return cards, [s for s in starts if s]


def draw(seed: int, count: int) -> list[dict]:
    cards_out, starts = excluded()
    with gzip.open(DATA / "cards.jsonl.gz", "rt", encoding="utf-8") as f:
        cards = {c["name"]: c for c in map(json.loads, f)}
    by_card: dict[str, list[dict]] = {}
    with gzip.open(DATA / "rulings.jsonl.gz", "rt", encoding="utf-8") as f:
        for ruling in map(json.loads, f):
            text = ruling["comment"]
            if len(text) < MIN_CHARS or ruling["card_name"] in cards_out:
                continue
            if any(text.startswith(s) for s in starts):
                continue
            by_card.setdefault(ruling["card_name"], []).append(ruling)
    rng = random.Random(seed)
    names = sorted(by_card)
    rng.shuffle(names)
    out = []
    for name in names[:count]:  # one ruling per card
        ruling = rng.choice(by_card[name])
        card = cards.get(name, {})
        faces = card.get("card_faces") or []
        oracle = card.get("oracle_text") or " // ".join(f.get("oracle_text", "") for f in faces)
        out.append(
            {
                "id": f"r{len(out) + 1:04d}",
                "card": name,
                "type_line": card.get("type_line", ""),
                "oracle_text": oracle,
                "ruling_date": ruling["published_at"],
                "ruling": ruling["comment"],
            }
        )
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--seed", type=int, default=20261206)
    parser.add_argument("--count", type=int, default=800)
    parser.add_argument("--files", type=int, default=8)
    args = parser.parse_args()
    drawn = draw(args.seed, args.count)
    args.out.mkdir(parents=True, exist_ok=True)
    size = -(-len(drawn) // args.files)
    for n in range(args.files):
        with (args.out / f"situations_{n + 1}.jsonl").open("w", encoding="utf-8") as f:
            for row in drawn[n * size : (n + 1) * size]:
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{len(drawn)} situations in {args.files} files under {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
