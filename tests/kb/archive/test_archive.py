"""The whole shared archive, imported once: counts, golden texts, lineages, moves, references."""

from __future__ import annotations

import datetime as dt
import json
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from kb.archive.importer import release_counts
from kb.models import (
    Anomaly,
    GlossaryTerm,
    Reference,
    Release,
    RuleNumber,
    RuleVersion,
)
from kb.models.versioning import valid_on
from kb.selectors import rule_version
from tests.conftest import SEEDS, expected_counts
from tests.kb.helpers import run

pytestmark = [pytest.mark.slow, pytest.mark.django_db]

CURRENT = dt.date(2026, 8, 7)


def _quotes(text: str) -> str:
    return text.replace("’", "'").replace("‘", "'").replace("“", '"').replace("”", '"')


def test_kb_stats_equals_the_expected_counts_of_every_release(archive) -> None:
    stats = json.loads(run("kb_stats", "--json"))
    expected = expected_counts(legacy=True)
    assert list(stats["releases"]) == sorted(expected)
    for date, counts in stats["releases"].items():
        for key, value in expected[date].items():
            assert counts[key] == value, (date, key)
    totals = stats["totals"]
    assert totals["releases"] == 133  # 32 legacy (1999 to May 2009), 101 modern
    assert totals["versions"] <= 20_000
    assert totals["moves"] == RuleNumber.objects.moves().count() > 5000


def test_counts_stored_at_import_equal_the_rows(archive) -> None:
    for release in Release.objects.all():
        assert release.counts == release_counts(release.effective_date), release


def test_set_names_come_from_versions_csv(archive) -> None:
    names = dict(Release.objects.values_list("effective_date", "set_name_en"))
    assert names[dt.date(2009, 7, 11)] == "Magic 2010"
    assert names[dt.date(2024, 6, 7)] == "Modern Horizons 3"


def test_the_archive_is_small(archive) -> None:
    # 6,054 versions for the 32 legacy releases, 11,552 for the 101 modern ones.
    legacy = RuleVersion.objects.filter(valid_from__lt=dt.date(2009, 7, 11)).count()
    assert legacy <= 6_500
    assert RuleVersion.objects.count() - legacy <= 15_000
    if connection.vendor == "sqlite":
        # The archive's own tables and indexes (the session may also hold the cards).
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT SUM(pgsize) FROM dbstat WHERE name LIKE 'kb%' "
                "OR name LIKE 'sqlite_autoindex_kb%'"
            )
            size = cursor.fetchone()[0]
        assert 10 * 1024 * 1024 <= size <= 40 * 1024 * 1024


def seed_602_2a() -> list[tuple[dt.date | None, str]]:
    """(date, text) from the seed: each "Month D, YYYY · Set" line heads the text below it."""
    lines = (SEEDS / "000_c04a293dde6dc3e5.txt").read_text(encoding="utf-8").splitlines()
    out: list[tuple[dt.date | None, str]] = [(None, lines[0])]
    for i, line in enumerate(lines[:-1]):
        m = re.match(r"^([A-Z][a-z]+ \d{1,2}, \d{4}) · ", line)
        if m:
            out.append((dt.datetime.strptime(m.group(1), "%B %d, %Y").date(), lines[i + 1]))
    return out


def test_602_2a_in_force_on_every_date_of_the_seed(archive) -> None:
    if not SEEDS.is_dir():
        pytest.skip(f"the seed documents are not at {SEEDS}")
    seed = seed_602_2a()
    assert len(seed) == 12
    cut = 0
    for date, text in seed:
        version = rule_version("602.2a", date or CURRENT)
        assert version is not None, date
        stored, wanted = _quotes(version.text_en), _quotes(text.strip())
        if wanted.endswith("."):
            assert stored == wanted, date
        else:  # the seed's source lost the end of these two texts
            assert stored.startswith(wanted), date
            cut += 1
    assert cut == 2
    # The War of the Spark release is missing from the archive: the one in force then is RNA's.
    assert Release.objects.in_force_on(dt.date(2019, 5, 3)).effective_date == dt.date(2019, 1, 25)


def test_602_2a_changes(archive) -> None:
    version = rule_version("602.2a", CURRENT)
    history = {
        v.valid_from: v.change for v in RuleVersion.objects.filter(lineage=version.lineage_id)
    }
    assert [d.isoformat() for d, c in sorted(history.items()) if "wording" in c] == [
        "2009-09-04",
        "2010-02-01",
        "2018-04-27",
        "2024-06-07",
    ]
    assert [d.isoformat() for d, c in sorted(history.items()) if c == "reference"] == ["2025-06-06"]
    assert [d.isoformat() for d, c in sorted(history.items()) if c == "typography"] == [
        "2014-02-01",
        "2019-01-25",
        "2019-06-14",
    ]
    assert version.wording_since == dt.date(2024, 6, 7)
    assert version.valid_from == dt.date(2025, 6, 6)


def test_602_2a_as_of_a_date_is_one_query(archive) -> None:
    with CaptureQueriesContext(connection) as queries:
        version = rule_version("602.2a", dt.date(2016, 5, 20))
    assert len(queries) == 1
    assert version.valid_from == dt.date(2014, 2, 1)
    assert version.text_en.startswith("The player announces that he or she")


def _lineage_numbers(number: str, date: dt.date) -> list[tuple[str, str]]:
    row = RuleNumber.objects.get(valid_on(date), number=number)
    return [
        (n.number, n.valid_from.isoformat())
        for n in RuleNumber.objects.filter(lineage=row.lineage_id).order_by("valid_from")
    ]


def test_reveal_moved_to_701_20a_while_701_16a_became_investigate(archive) -> None:
    numbers = _lineage_numbers("701.20a", CURRENT)
    assert ("701.16a", "2020-07-03") in numbers and numbers[-1] == ("701.20a", "2025-06-06")
    reveal_2025 = RuleNumber.objects.get(valid_on(dt.date(2025, 4, 4)), number="701.16a")
    now = RuleNumber.objects.get(valid_on(CURRENT), number="701.20a")
    assert reveal_2025.lineage_id == now.lineage_id
    investigate = RuleNumber.objects.get(valid_on(CURRENT), number="701.16a")
    assert investigate.valid_from == dt.date(2025, 6, 6)
    assert investigate.lineage_id != now.lineage_id
    assert rule_version("701.16a", CURRENT).text_en.startswith("“Investigate” means")
    assert rule_version("701.16a", dt.date(2024, 6, 7)).text_en.startswith("To reveal a card")


def test_handling_illegal_actions_is_one_lineage_from_714_to_733(archive) -> None:
    numbers = _lineage_numbers("733", CURRENT)
    assert numbers[0] == ("714", "2009-07-11") and numbers[-1] == ("733", "2026-04-17")
    assert rule_version("714", dt.date(2009, 7, 11)).text_en == "Handling Illegal Actions"
    assert rule_version("733", CURRENT).text_en == "Handling Illegal Actions"
    # Its rules moved with it.
    assert _lineage_numbers("733.1", CURRENT)[0] == ("714.1", "2009-07-11")


def test_the_tokens_insertion_renumbers_at_least_180_entries(archive) -> None:
    moves = RuleNumber.objects.moves().filter(valid_from=dt.date(2019, 7, 12))
    assert moves.count() >= 180
    assert moves.filter(previous_number="111", number="112").exists()  # Spells
    assert rule_version("111", dt.date(2019, 7, 12)).text_en == "Tokens"


def test_every_reference_resolves_in_its_release_or_is_recorded_dangling(archive) -> None:
    checked = 0
    for release in Release.objects.all():
        date = release.effective_date
        numbers = set(RuleNumber.objects.filter(valid_on(date)).values_list("number", flat=True))
        dangling = set(
            Anomaly.objects.filter(release=release, kind="dangling_reference").values_list(
                "number", flat=True
            )
        )
        refs = Reference.objects.filter(
            valid_on(date, "rule_version__") | valid_on(date, "glossary_version__")
        ).values_list("target", "target_end")
        for target, end in refs:
            for number in (target, end) if end else (target,):
                assert number in numbers or number in dangling, (date, number)
                checked += 1
    assert checked > 100_000


def test_glossary_terms_are_versioned(archive) -> None:
    tribal = GlossaryTerm.objects.get(key="tribal")
    last = tribal.versions.order_by("valid_from").last()
    assert last.headword == "Tribal (Obsolete)" and last.obsolete
    assert last.valid_from == dt.date(2024, 6, 7)
    kicker = GlossaryTerm.objects.get(key="kicker")
    heads = list(kicker.versions.order_by("valid_from").values_list("headword", flat=True))
    assert heads[0] == "Kicker" and heads[-1] == "Kicker, Kicked"
