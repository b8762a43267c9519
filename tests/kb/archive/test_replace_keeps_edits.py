"""Issue 31, point 1: `import_rules --replace` never relabels or drops a maintainer's correction.

On the real archive, a real release is replaced with a copy of its own file changed in one
place, while a maintainer's work sits before, across or after it: a rule's English correction
and French text, a glossary entry's, an edited printed example and an added one. After each
replacement, kb.archive.ledger.unaccounted checks the invariant: every piece of work is where it
applied, with its flags, or listed as lost in the import record (and the import was refused
without --force); every release's official text is still in the database (the row's own text, or
`source_text` under a correction), the replaced release's being the new file's.

Each test covers one kind of work in the three positions of the replaced release (before the
edited row, inside it with a later release after it, after it), each replacement rolled back
before the next. What failed before the fix: the copy of a split row carried the maintainer's
English marked as not edited (the later release's official wording gone); a glossary entry the
replacement did not change was split all the same (its correction compared as if the source had
printed it) and its English correction dropped without a word; an edited example that a new
official example moved down was declared lost.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.core.management.base import CommandError
from django.db import transaction

from kb.archive import editing, ledger
from kb.archive.publishing import read_document
from kb.crtext import Document
from kb.models import Example, GlossaryVersion, ImportRecord, RuleNumber, RuleVersion
from tests.conftest import CR_EN
from tests.kb.helpers import run

pytestmark = [pytest.mark.slow, pytest.mark.django_db]

K = dt.date(2026, 6, 19)  # the release replaced; 2026-08-07 comes after it
BEFORE_K = dt.date(2026, 4, 17)
AFTER_K = dt.date(2026, 8, 7)


class _Undo(Exception):
    pass


@contextmanager
def rolled_back() -> Iterator[None]:
    """Everything inside is undone (a savepoint), so that each position starts from the
    archive as imported."""
    try:
        with transaction.atomic():
            yield
            raise _Undo
    except _Undo:
        pass


def real_text(date: dt.date) -> str:
    return (CR_EN / f"{date.isoformat()}.txt").read_text(encoding="utf-8")


def rule_line(text: str, number: str) -> str:
    return re.search(rf"^{re.escape(number)}\.? .*$", text, re.M).group()


def reworded_rule(text: str, number: str, old: str, new: str) -> str:
    line = rule_line(text, number)
    assert old in line, (number, line)
    return text.replace(line, line.replace(old, new, 1), 1)


def glossary_text(text: str, headword: str) -> str:
    start = text.rindex("\nGlossary\n")
    return re.compile(rf"^{re.escape(headword)}\n(.*)$", re.M).search(text, start).group(1)


def reworded_glossary(text: str, headword: str, addition: str) -> str:
    start = text.rindex("\nGlossary\n")
    definition = glossary_text(text, headword)
    at = text.index(f"\n{headword}\n{definition}\n", start) + len(headword) + 2
    return text[:at] + definition + addition + text[at + len(definition) :]


def replace(tmp_path: Path, text: str, *, force: bool = False) -> Document:
    """`import_rules --replace [--force]` of the changed copy; returns the parsed copy."""
    path = tmp_path / f"{K.isoformat()}.txt"
    path.write_text(text, encoding="utf-8")
    doc, _ = read_document(path=path)
    run("import_rules", str(path), "--replace", *(["--force"] if force else []), verbosity=0)
    return doc


def last_record(date: dt.date = K) -> ImportRecord:
    return ImportRecord.objects.filter(effective_date=date).latest("id")


def assert_accounted(before: ledger.Ledger, doc: Document) -> None:
    assert ledger.unaccounted(before, lost=last_record(doc.effective_date).lost, document=doc) == []


def rule_row(number: str, date: dt.date) -> RuleVersion:
    lineage = RuleNumber.objects.as_of(date).get(number=number).lineage_id
    return RuleVersion.objects.as_of(date).get(lineage_id=lineage)


def term_row(headword: str, date: dt.date) -> GlossaryVersion:
    return GlossaryVersion.objects.as_of(date).get(headword=headword)


def edit_rule(number: str, date: dt.date) -> RuleVersion:
    row = rule_row(number, date)
    editing.edit_rule_version(
        version=row,
        user="ann",
        text_en=row.text_en + " (Corrected by Ann.)",
        text_fr=f"Règle {number}, traduite par Ann.",
    )
    return RuleVersion.objects.get(pk=row.pk)


def edit_term(headword: str, date: dt.date) -> GlossaryVersion:
    row = term_row(headword, date)
    editing.edit_glossary_version(
        version=row,
        user="ann",
        text_en=row.text_en + " (Corrected by Ann.)",
        text_fr=f"{headword}, traduit par Ann.",
    )
    return GlossaryVersion.objects.get(pk=row.pk)


def assert_edited(row: RuleVersion | GlossaryVersion, official: str, french: str) -> None:
    """The maintainer's English over the official one, both flagged; the French with it."""
    assert row.en_edited and row.text_en == official + " (Corrected by Ann.)"
    assert row.source_text == official
    assert row.fr_edited and row.text_fr == french


def test_rule_corrections_before_inside_and_after_a_replaced_release(archive, tmp_path) -> None:
    # Inside: 602.2b's row runs from 2019-06-14 on; 2026-06-19 is replaced with it reworded.
    with rolled_back():
        row = edit_rule("602.2b", K)
        assert row.valid_from < BEFORE_K and row.valid_to is None
        before = ledger.take(official=True)
        text = reworded_rule(real_text(K), "602.2b", "is identical to", "is the same as")
        with pytest.raises(CommandError, match=r"602\.2b English correction"):
            replace(tmp_path, text)
        assert rule_row("602.2b", K).pk == row.pk and rule_row("602.2b", K).en_edited
        doc = replace(tmp_path, text, force=True)
        official = rule_line(real_text(AFTER_K), "602.2b").partition(" ")[2]
        french = "Règle 602.2b, traduite par Ann."
        assert rule_row("602.2b", BEFORE_K).pk == row.pk
        assert_edited(rule_row("602.2b", BEFORE_K), official, french)
        assert_edited(rule_row("602.2b", AFTER_K), official, french)  # was: not flagged
        replaced = rule_row("602.2b", K)
        assert "is the same as the process" in replaced.text_en and not replaced.en_edited
        assert (replaced.text_fr, replaced.fr_edited) == (french, True)  # carried over
        lost = last_record().lost
        assert [(i["rule"], i["what"], i["releases"]) for i in lost] == [
            ("602.2b", "English correction", ["2026-06-19"])
        ]
        assert_accounted(before, doc)

    # Before: 310.12's row starts at 2026-08-07 (it was 310.11, worded otherwise); the
    # replacement rewords its 2026-06-19 text.
    with rolled_back():
        row = edit_rule("310.12", AFTER_K)
        assert row.valid_from == AFTER_K
        before = ledger.take(official=True)
        doc = replace(tmp_path, reworded_rule(real_text(K), "310.11", "Sieges", "Siege battles"))
        assert RuleVersion.objects.get(pk=row.pk).en_edited
        assert rule_row("310.12", AFTER_K).pk == row.pk
        assert last_record().lost == []
        assert_accounted(before, doc)

    # After: 205.3h's row ends at 2026-06-19, which the replacement rewords.
    with rolled_back():
        row = edit_rule("205.3h", BEFORE_K)
        assert row.valid_to == K
        before = ledger.take(official=True)
        doc = replace(tmp_path, reworded_rule(real_text(K), "205.3h", "subtypes", "kinds"))
        kept = RuleVersion.objects.get(pk=row.pk)
        assert (kept.valid_to, kept.en_edited, kept.fr_edited) == (K, True, True)
        assert last_record().lost == []
        assert_accounted(before, doc)


def test_glossary_corrections_before_inside_and_after_a_replaced_release(archive, tmp_path) -> None:
    # Inside, the case: "Activated Ability" edited in English and French, 2026-06-19
    # replaced with a copy that changes only rule 100.1 (2026-08-07 after it).
    with rolled_back():
        row = edit_term("Activated Ability", K)
        assert row.valid_from < BEFORE_K and row.valid_to is None
        before = ledger.take(official=True)
        text = real_text(K)
        line = rule_line(text, "100.1")
        doc = replace(tmp_path, text.replace(line, line + " (Changed.)", 1))
        versions = GlossaryVersion.objects.filter(
            term_id=row.term_id, valid_from__gte=row.valid_from
        )
        assert list(versions.values_list("pk", "valid_to")) == [(row.pk, None)]  # not split
        official = glossary_text(real_text(AFTER_K), "Activated Ability")
        assert_edited(GlossaryVersion.objects.get(pk=row.pk), official, row.text_fr)
        assert last_record().lost == []
        assert_accounted(before, doc)

    # Inside, reworded: refused without --force; with it, 2026-08-07 keeps the correction.
    with rolled_back():
        row = edit_term("Activated Ability", K)
        before = ledger.take(official=True)
        text = reworded_glossary(real_text(K), "Activated Ability", " Reworded.")
        with pytest.raises(CommandError, match="Activated Ability English correction"):
            replace(tmp_path, text)
        doc = replace(tmp_path, text, force=True)
        official = glossary_text(real_text(AFTER_K), "Activated Ability")
        assert_edited(term_row("Activated Ability", AFTER_K), official, row.text_fr)
        assert_edited(term_row("Activated Ability", BEFORE_K), official, row.text_fr)
        replaced = term_row("Activated Ability", K)
        assert replaced.text_en.endswith(" Reworded.") and not replaced.en_edited
        assert replaced.text_fr == row.text_fr and replaced.fr_edited
        lost = last_record().lost
        assert [(i["glossary"], i["what"], i["releases"]) for i in lost] == [
            ("Activated Ability", "English correction", ["2026-06-19"])
        ]
        assert_accounted(before, doc)

    # Before: "Siege" changed at 2026-08-07; the replacement rewords its 2026-06-19 text.
    with rolled_back():
        row = edit_term("Siege", AFTER_K)
        assert row.valid_from == AFTER_K
        before = ledger.take(official=True)
        doc = replace(tmp_path, reworded_glossary(real_text(K), "Siege", " Reworded."))
        assert term_row("Siege", AFTER_K).pk == row.pk and term_row("Siege", AFTER_K).en_edited
        assert last_record().lost == []
        assert_accounted(before, doc)

    # After: "Boast" changed at 2026-06-19; its earlier row is edited, 2026-06-19 reworded.
    with rolled_back():
        row = edit_term("Boast", BEFORE_K)
        assert row.valid_to == K
        before = ledger.take(official=True)
        doc = replace(tmp_path, reworded_glossary(real_text(K), "Boast", " Reworded."))
        kept = GlossaryVersion.objects.get(pk=row.pk)
        assert (kept.valid_to, kept.en_edited, kept.fr_edited) == (K, True, True)
        assert last_record().lost == []
        assert_accounted(before, doc)


def _edit_examples(number: str, date: dt.date) -> tuple[RuleVersion, Example]:
    """Correct the second printed example (English and French) and add one."""
    row = rule_row(number, date)
    second = Example.objects.get(version=row, position=1)
    editing.edit_example(
        example=second, user="ann", text_en=second.text_en + " (Ann.)", text_fr="Exemple : Ann."
    )
    editing.add_example(version=row, user="ann", text_en="Example: Added by Ann.")
    return row, Example.objects.get(pk=second.pk)


def _example_states(row: RuleVersion) -> list[tuple]:
    return list(
        Example.objects.filter(version=row)
        .order_by("position")
        .values_list("origin", "en_edited", "fr_edited", "text_en")
    )


def test_example_edits_before_inside_and_after_a_replaced_release(archive, tmp_path) -> None:
    # Inside: 613.6's row runs from 2025-02-07 on; the replacement prints a new example before
    # the edited second one (which moves to third place: the edit follows it).
    with rolled_back():
        row, second = _edit_examples("613.6", K)
        assert row.valid_from < BEFORE_K and row.valid_to is None
        before = ledger.take(official=True)
        text = real_text(K)
        first = re.search(r"^613\.6\. .*\n(Example: .*)$", text, re.M).group(1)
        new = "Example: A new official example printed by the replacement."
        doc = replace(tmp_path, text.replace(first, f"{first}\n{new}", 1))
        assert last_record().lost == []
        replaced = rule_row("613.6", K)
        states = _example_states(replaced)
        assert states[1] == ("source", False, False, new.removeprefix("Example: "))
        assert states[2] == ("source", True, True, second.text_en)  # the edit followed
        assert states[-1] == ("maintainer", False, False, "Example: Added by Ann.")
        later = rule_row("613.6", AFTER_K)
        assert later.pk != row.pk and _example_states(later) == _example_states(row)
        assert_accounted(before, doc)

    # Before: the release replaced (2024-11-08) comes just before the edited row (2025-02-07).
    with rolled_back():
        row, second = _edit_examples("613.6", K)
        before = ledger.take(official=True)
        earlier = dt.date(2024, 11, 8)
        text = real_text(earlier)
        first = re.search(r"^613\.6\. .*\n(Example: .*)$", text, re.M).group(1)
        path = tmp_path / f"{earlier.isoformat()}.txt"
        path.write_text(text.replace(first, first + " Reworded.", 1), encoding="utf-8")
        doc, _ = read_document(path=path)
        run("import_rules", str(path), "--replace", verbosity=0)
        assert rule_row("613.6", AFTER_K).pk == row.pk
        assert _example_states(row)[1] == ("source", True, True, second.text_en)
        assert last_record(earlier).lost == []
        assert_accounted(before, doc)

    # After: 107.1b's row [2025-02-07, 2025-06-06) is edited; 2025-06-06 is replaced.
    with rolled_back():
        row, second = _edit_examples("107.1b", dt.date(2025, 4, 4))
        assert row.valid_to == dt.date(2025, 6, 6)
        before = ledger.take(official=True)
        date = dt.date(2025, 6, 6)
        text = real_text(date)
        first = re.search(r"^107\.1b .*\n(Example: .*)$", text, re.M).group(1)
        path = tmp_path / f"{date.isoformat()}.txt"
        path.write_text(text.replace(first, first + " Reworded.", 1), encoding="utf-8")
        doc, _ = read_document(path=path)
        run("import_rules", str(path), "--replace", verbosity=0)
        kept = RuleVersion.objects.get(pk=row.pk)
        assert kept.valid_to == date
        assert _example_states(kept)[1] == ("source", True, True, second.text_en)
        assert last_record(date).lost == []
        assert_accounted(before, doc)


def test_the_ledger_sees_a_relabelled_correction(archive) -> None:
    """The check itself: a correction whose flag is cleared (what the old copy did) is
    reported, and so is an official text changed under no correction."""
    with rolled_back():
        row = edit_rule("602.2b", K)
        before = ledger.take(official=True)
        RuleVersion.objects.filter(pk=row.pk).update(en_edited=False, source_text="")
        problems = ledger.unaccounted(before, lost=[])
        assert any("602.2b: English correction missing" in p for p in problems), problems
        assert any("official text(s) not as printed (rule 602.2b#0)" in p for p in problems)
