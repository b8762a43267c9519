"""Example questions in players' words for the current rules (fixtures/vocabulary/questions.jsonl):
what the semantic retriever learns players' ways of asking from (search.semantic.adapter).

Why a fixture tied to one release: the questions were written from the rules of August 7,
2026, one to four a rule, and from card rulings, each labelled with the rules of that release
that answer it (fixtures/vocabulary/questions.md says how). A later release follows
each rule by its lineage (a renumbered rule keeps its questions; a rule gone drops them), so
the fixture needs no rewrite for a release; a rewritten rule may deserve new ones.
"""

from __future__ import annotations

import datetime as dt
import json
from functools import lru_cache
from pathlib import Path

from kb.models import RuleNumber
from kb.models.versioning import valid_on
from search.documents import Example

_VOCABULARY = Path(__file__).resolve().parents[1] / "fixtures" / "vocabulary"
#: The fixture's three parts (questions.md): two passes written from the rules, and questions
#: written from card rulings (game situations), labelled with the rules that answer them.
QUESTIONS_FILES = (
    _VOCABULARY / "questions.jsonl",
    _VOCABULARY / "questions_second_pass.jsonl",
    _VOCABULARY / "questions_from_rulings.jsonl",
)
#: The release whose rule numbers the fixture gives.
WRITTEN_FOR = dt.date(2026, 8, 7)


@lru_cache(maxsize=1)
def _rows() -> tuple[tuple[str, str], ...]:
    """(rule number on WRITTEN_FOR, question), in the files' order; a bad line names itself."""
    out = []
    for path in QUESTIONS_FILES:
        lines = path.read_text(encoding="utf-8").splitlines()
        for lineno, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                out.append((str(row["rule"]), str(row["q"])))
            except (ValueError, KeyError) as exc:
                raise ValueError(f"{path}:{lineno}: not a question ({exc})") from exc
    return tuple(out)


def rule_examples() -> list[Example]:
    """The questions of the rules in force today, under today's numbers."""
    from kb.models import Release
    from kb.models.releases import today as today_

    release = Release.objects.in_force_on(today_())
    if release is None:
        return []
    today = release.effective_date
    numbers = RuleNumber.objects
    then = dict(numbers.filter(valid_on(WRITTEN_FOR)).values_list("number", "lineage_id"))
    now = dict(numbers.filter(valid_on(today)).values_list("lineage_id", "number"))
    out = []
    for number, question in _rows():
        current = now.get(then.get(number))
        if current:
            out.append(Example(kind="rule", key=current, text=question))
    return out
