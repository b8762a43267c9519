"""Trademark signs are typography (issue 34), on the full archive, and the data migration that
rewrites the hashes of archives imported before the fold knew them (kb.archive.rehash).

The plain-ASCII 2019-01-25 release writes "Odyssey(tm)" and "Future Sight(r)" where 2018-10-05
and 2019-06-14 print no sign: eleven rules whose words did not change either way.
"""

from __future__ import annotations

import datetime as dt
import importlib
import re
from collections.abc import Iterator

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

import kb.crtext.typography as typography
from kb.archive import texts
from kb.archive.families import refresh_rule_changes
from kb.archive.rehash import rehash_versions
from kb.dbutil import update_rows
from kb.history import diff_between
from kb.models import Example, Release, RuleVersion
from kb.models.versioning import HASH_FIELDS
from kb.selectors.rules import rule_version

GRN, RNA, M19 = dt.date(2018, 10, 5), dt.date(2019, 1, 25), dt.date(2019, 6, 14)
#: Rules 2019-01-25 prints with "(tm)" or "(r)" and whose words are otherwise those of its
#: neighbours; 711.1a's were also reworded in 2019-06-14 ("Ixalan and Rivals of Ixalan cards").
SIGNED = (
    "106.4",
    "107.9",
    "107.10",
    "206.2",
    "207.3",
    "700.2",
    "700.8a",
    "700.8b",
    "700.8c",
    "711.1a",
    "905.1",
)
REWORDED_IN_M19 = {"711.1a"}
MIGRATION = "0006_fold_trademark_signs"


def _version(number: str, date: dt.date, *, new: bool = True) -> RuleVersion:
    """The version of `number` in force on `date`, a new one that day unless `new` is false."""
    version = rule_version(number, date)
    assert version is not None and (version.valid_from == date or not new), (number, date)
    return version


@pytest.mark.slow
@pytest.mark.django_db
def test_trademark_signs_are_typography(archive) -> None:
    for number in SIGNED:
        before = _version(number, GRN, new=False)
        signed, after = _version(number, RNA), _version(number, M19)
        assert "(tm)" in signed.text_en or "(r)" in signed.text_en, number
        assert signed.change == "typography", number
        assert signed.folded_hash == before.folded_hash, number  # the French stay current
        assert signed.wording_since == before.wording_since <= GRN, number
        if number in REWORDED_IN_M19:
            assert after.change == "wording" and after.wording_since == M19, number
        else:
            assert after.change == "typography", number
            assert after.folded_hash == before.folded_hash, number
            assert after.wording_since == before.wording_since, number


@pytest.mark.slow
@pytest.mark.django_db
def test_the_diffs_list_none_of_them_as_reworded(archive) -> None:
    releases = {
        r.effective_date: r for r in Release.objects.filter(effective_date__in=[GRN, RNA, M19])
    }
    for old, new, reworded in ((GRN, RNA, set()), (RNA, M19, REWORDED_IN_M19)):
        lineages = {_version(n, new).lineage_id: n for n in SIGNED}
        items = {
            lineages[i.lineage_id]: i
            for i in diff_between(releases[old], releases[new]).items
            if i.lineage_id in lineages
        }
        assert set(items) == set(SIGNED), (old, new)  # each listed once, as changed
        for number, item in items.items():
            wanted = ["wording"] if number in reworded else ["typography"]
            assert (item.status, item.kinds) == ("changed", wanted), (old, new, number)


def _old_hashes(text: str, examples: tuple[str, ...]) -> tuple[str, ...]:
    """The hashes as the fold computed them before issue 34 ("(TM)", "(R)", "(C)" only)."""
    new = typography._TRADEMARK_RE
    typography._TRADEMARK_RE = re.compile(r"\((?:TM|R|C)\)")
    texts.analyse.cache_clear()
    texts.hashes.cache_clear()
    try:
        h = texts.hashes(text, examples)
        return (h.text, h.folded, h.masked, h.examples)
    finally:
        typography._TRADEMARK_RE = new
        texts.analyse.cache_clear()
        texts.hashes.cache_clear()


def _state(ids: list[int]) -> dict[int, tuple]:
    rows = RuleVersion.objects.filter(id__in=ids).values_list(
        "id", "text_en", "source_text", "en_edited", *HASH_FIELDS, "change", "wording_since"
    )
    return {row[0]: row[1:] for row in rows}


@pytest.fixture
def stale(archive) -> Iterator[tuple[list[RuleVersion], dict[int, tuple]]]:
    """Four 2019-01-25 versions as an archive imported before issue 34 holds them: old hashes,
    and their lineages' change flags derived from them; with the state of their lineages' rows
    since 2018-10-05 before (the test writes under an unchanged stamp: it reads no diff)."""
    versions = [_version(n, RNA) for n in ("107.9", "107.10", "711.1a", "905.1")]
    lineages = RuleVersion.objects.filter(
        lineage_id__in={v.lineage_id for v in versions}, valid_from__gte=GRN
    )
    before = _state(list(lineages.values_list("id", flat=True)))
    rows = []
    for v in versions:
        examples = tuple(
            Example.objects.filter(version=v).order_by("position").values_list("text_en", flat=True)
        )
        rows.append((*_old_hashes(v.text_en, examples), v.pk))
    update_rows(RuleVersion, list(HASH_FIELDS), rows)
    refresh_rule_changes({v.lineage_id for v in versions})
    yield versions, before


@pytest.mark.slow
@pytest.mark.django_db
def test_the_migration_fixes_rows_hashed_the_old_way(stale) -> None:
    versions, before = stale
    broken = _state(list(before))
    # What the bug looked like: 2019-01-25 reworded, wording_since moved to it.
    for v in versions:
        assert broken[v.pk][-2:] == ("wording", RNA), v.label()
        assert broken[v.pk][3:7] != before[v.pk][3:7], v.label()
    # A maintainer's edit is hashed as it stands, and kept.
    edited = versions[0]
    edited_text = edited.text_en + " (A maintainer's note.)"
    RuleVersion.objects.filter(pk=edited.pk).update(
        text_en=edited_text, source_text=edited.text_en, en_edited=True
    )

    migration = importlib.import_module(f"kb.migrations.{MIGRATION}")
    apps = MigrationExecutor(connection).loader.project_state(("kb", MIGRATION)).apps
    migration.rehash(apps, None)

    fixed = _state(list(before))
    for pk, row in fixed.items():
        if RuleVersion.objects.get(pk=pk).lineage_id != edited.lineage_id:
            assert row == before[pk], pk  # hashes, flags and wording_since as a fresh import's
    text, source, en_edited, *hashes, change, since = fixed[edited.pk]
    assert (text, source, en_edited) == (edited_text, edited.text_en, True)
    h = texts.hashes(edited_text, ())
    assert tuple(hashes) == (h.text, h.folded, h.masked, h.examples)
    assert "(tm)" in text and h.folded != _old_hashes(edited_text, ())[1]
    assert (change, since) == ("wording", RNA)  # the maintainer's note: a real change
    assert rehash_versions() == 0  # once is enough


@pytest.mark.django_db
def test_the_migration_on_an_empty_archive_writes_nothing() -> None:
    assert RuleVersion.objects.count() == 0
    assert rehash_versions() == 0
