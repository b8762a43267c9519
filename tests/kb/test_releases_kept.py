"""The list of releases every page reads is kept per process, never stale after a change."""

from __future__ import annotations

import datetime as dt

import pytest

from kb.models import Release
from kb.selectors import Releases

pytestmark = pytest.mark.django_db


def test_the_kept_list_follows_every_change() -> None:
    first = Release.objects.create(effective_date=dt.date(2020, 1, 24), sha256="a")
    assert [r.effective_date for r in Releases.load().all] == [dt.date(2020, 1, 24)]
    Release.objects.create(effective_date=dt.date(2021, 2, 5), sha256="b")
    assert Releases.load().current.effective_date == dt.date(2021, 2, 5)
    first.set_name = "Theros Beyond Death"  # an edit that changes no count or date
    first.save()
    assert Releases.load().first.set_name == "Theros Beyond Death"
    Release.objects.filter(pk=first.pk).update(set_name="edited elsewhere")  # no signal
    Release.objects.filter(effective_date=dt.date(2021, 2, 5)).delete()
    assert [r.set_name for r in Releases.load().all] == ["edited elsewhere"]


def test_each_load_is_a_list_of_its_own() -> None:
    Release.objects.create(effective_date=dt.date(2020, 1, 24), sha256="a")
    Releases.load().all.clear()
    assert len(Releases.load().all) == 1
