"""Relinking after a change of the rules (rulings.linking.changed) runs where the import ran,
the web request of an admin's publish included: it never forks, however many rulings it
relinks, and it decides to relink everything from the links before reading every ruling's text.

Before: from 4,000 rulings the relink read them in a pool of forked processes, inside the
gunicorn worker serving the publish; and a change touching most of the rules first matched
every ruling's text against the terms of all of them, then relinked everything anyway.

On the real archive and cards, through kb.signals.rules_changed as an import sends it once
committed: afterwards every ruling's links are those the session's full link gave.
"""

from __future__ import annotations

import datetime as dt
import multiprocessing.pool
import os

import pytest
from django.utils import timezone

import rulings.linking
from kb.models import Release, RuleNumber
from kb.signals import rules_changed
from rulings.linking import PARALLEL_FROM, changed
from rulings.models import Ruling, RulingLink

pytestmark = [pytest.mark.slow, pytest.mark.django_db]

LATEST = dt.date(2026, 8, 7)


def links() -> set[tuple]:
    return set(
        RulingLink.objects.values_list(
            "ruling_id", "lineage_id", "kind", "evidence", "number", "current_number"
        )
    )


@pytest.fixture
def no_fork(monkeypatch) -> list[str]:
    """Forking or starting a process pool is recorded and refused (the receiver logs and
    swallows errors, so the record is what the test reads); two CPUs are claimed, so that a
    machine with one would not pass for want of a second process."""
    attempts: list[str] = []

    def refuse(what: str):
        def refused(*args, **kwargs):
            attempts.append(what)
            raise AssertionError(f"{what} while relinking after a change of the rules")

        return refused

    monkeypatch.setattr(os, "fork", refuse("os.fork"))
    monkeypatch.setattr(multiprocessing.pool.Pool, "__init__", refuse("a process pool"))
    monkeypatch.setattr(os, "cpu_count", lambda: 4)
    return attempts


@pytest.fixture
def relinks(monkeypatch) -> list[tuple]:
    """The result of each relink after a change (rulings.linking.relink_changed, which the
    receiver calls), and whether it read the rulings' texts (built the patterns they are
    matched against)."""
    results: list[tuple] = []
    read_texts: list[bool] = []
    real_relink, real_patterns = rulings.linking.relink_changed, changed._patterns

    def relink(*args, **kwargs):
        read_texts.clear()
        out = real_relink(*args, **kwargs)
        results.append((out, bool(read_texts)))
        return out

    def patterns(*args, **kwargs):
        read_texts.append(True)
        return real_patterns(*args, **kwargs)

    monkeypatch.setattr(rulings.linking, "relink_changed", relink)
    monkeypatch.setattr(changed, "_patterns", patterns)
    return results


def send(lineages: set[int]) -> None:
    """What an import's commit sends (kb.archive.importer.Changes.send)."""
    rules_changed.send(
        sender=Release, dates=(LATEST,), lineages=frozenset(lineages), terms=frozenset()
    )


def numbered(prefix: str = "") -> set[int]:
    """The lineages of the rules in force in the latest release, under a number's prefix."""
    return set(
        RuleNumber.objects.as_of(LATEST)
        .filter(number__startswith=prefix)
        .values_list("lineage_id", flat=True)
    )


def test_a_change_of_every_rule_relinks_everything_in_process_without_reading_texts(
    cards, no_fork, relinks
) -> None:
    before = links()
    started = timezone.now()
    send(numbered())
    assert no_fork == []
    [(result, read_texts)] = relinks
    total = Ruling.objects.count()
    assert result.everything and result.relinked == total >= PARALLEL_FROM
    assert not read_texts  # the rulings linked to the rules decided it
    assert not Ruling.objects.filter(linked_at__lt=started).exists()
    assert links() == before  # what the session's full link gave


def test_a_large_change_relinks_its_rulings_in_process_as_a_full_link_would(
    cards, no_fork, relinks
) -> None:
    """The triggered abilities (603): thousands of rulings (about 5,900), fewer than half of
    them. (The keyword abilities, 702, touch more than half: they relink everything.)"""
    before = links()
    started = timezone.now()
    send(numbered("603."))
    assert no_fork == []
    [(result, read_texts)] = relinks
    assert not result.everything and read_texts
    assert PARALLEL_FROM <= result.relinked == result.candidates < Ruling.objects.count() // 2
    assert not Ruling.objects.filter(linked_at__lt=started).exists()  # all marked current
    assert links() == before
