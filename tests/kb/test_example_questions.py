"""The example questions' fixture (fixtures/vocabulary/questions*.jsonl): every question names a
rule of the release it was written for, so none is dropped unseen when kb registers them."""

from __future__ import annotations

import json

import pytest

from kb import example_questions
from kb.models import RuleNumber
from kb.models.versioning import valid_on

pytestmark = pytest.mark.django_db


def test_every_example_question_names_a_rule_of_its_release(archive) -> None:
    numbers = set(
        RuleNumber.objects.filter(valid_on(example_questions.WRITTEN_FOR)).values_list(
            "number", flat=True
        )
    )
    rows = example_questions._rows()
    unknown = sorted({rule for rule, _ in rows if rule not in numbers})
    assert not unknown, f"rules not in the {example_questions.WRITTEN_FOR} release: {unknown}"
    assert len(rows) >= 10_000  # both passes from the rules, and the questions from rulings


def test_the_questions_from_rulings_say_where_they_come_from() -> None:
    path = example_questions.QUESTIONS_FILES[-1]
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    assert len(rows) >= 1_500
    assert {row["lang"] for row in rows} == {"en", "fr"}
    assert all(" ruling " in row["source"] and row["q"].strip() for row in rows)
    # Not one of the players' evaluation sets' situations (tests/kb/sitesearch/players.md).
    sets = [
        path.parents[2] / "tests" / "kb" / "sitesearch" / f"players_{p}.jsonl"
        for p in ("dev", "test")
    ]
    evaluated = {
        json.loads(line)["situation"].rsplit(" ruling ", 1)[0]
        for s in sets
        for line in s.read_text(encoding="utf-8").splitlines()
        if line
    }
    assert not {row["source"].rsplit(" ruling ", 1)[0] for row in rows} & evaluated


def test_a_bad_line_names_its_file_and_line(tmp_path, monkeypatch) -> None:
    bad = tmp_path / "questions.jsonl"
    bad.write_text('{"rule": "100.1", "q": "fine"}\n{"q": "no rule"}\n', encoding="utf-8")
    monkeypatch.setattr(example_questions, "QUESTIONS_FILES", (bad,))
    example_questions._rows.cache_clear()
    try:
        with pytest.raises(ValueError, match=r"questions.jsonl:2: not a question"):
            example_questions._rows()
    finally:
        example_questions._rows.cache_clear()
