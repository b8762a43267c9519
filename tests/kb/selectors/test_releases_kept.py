"""The list of releases every page reads is kept per process, never stale after a change."""

from __future__ import annotations

import datetime as dt

import pytest

from kb.models import Release
from kb.selectors import Releases

pytestmark = pytest.mark.django_db

# Dates no real release has (the session database may hold the whole archive).
FIRST, SECOND = dt.date(1990, 1, 24), dt.date(2099, 2, 5)


def _dates() -> list[dt.date]:
    return [r.effective_date for r in Releases.load().all]


def test_the_kept_list_follows_every_change() -> None:
    before = _dates()
    first = Release.objects.create(effective_date=FIRST, sha256="a")
    assert _dates() == [FIRST, *before]
    Release.objects.create(effective_date=SECOND, sha256="b")
    assert Releases.load().latest.effective_date == SECOND
    assert Releases.load().upcoming[-1].effective_date == SECOND  # not current before its date
    first.set_name = "Alpha"  # an edit that changes no count or date
    first.save()
    assert Releases.load().first.set_name == "Alpha"
    Release.objects.filter(pk=first.pk).update(set_name="edited elsewhere")  # no signal
    Release.objects.filter(effective_date=SECOND).delete()
    assert Releases.load().first.set_name == "edited elsewhere"
    assert _dates() == [FIRST, *before]


def test_each_load_is_a_list_of_its_own() -> None:
    Release.objects.create(effective_date=FIRST, sha256="a")
    count = len(Releases.load().all)
    Releases.load().all.clear()
    assert len(Releases.load().all) == count
