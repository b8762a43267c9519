"""load_site_data: what `make run` loads, with and without the shared archive."""

from __future__ import annotations

import logging
import shutil
import subprocess
from pathlib import Path

import pytest

from kb.archive.snapshot import snapshot
from kb.models import Lineage, Release
from tests.conftest import CR_EN, requires_shared
from tests.kb.helpers import clear_archive, run
from tests.rulings.helpers import clear_cards

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def empty_archive(db) -> None:
    clear_archive()
    clear_cards()


def test_without_the_shared_data_the_demo_set_is_loaded_and_said(tmp_path: Path) -> None:
    out = run("load_site_data", "--data-dir", str(tmp_path / "nothing"))
    assert "not found: loading the demo set" in out
    assert Release.objects.count() == 10
    assert "10 imported" in out
    # Cards too: the demo card built from seed 001, its rulings linked to the demo's rule 602.
    from rulings.models import Ruling

    rulings = Ruling.objects.filter(card__name_en="The Peregrine Dynamo")
    assert rulings.count() == 11
    assert rulings.filter(links__current_number="602").exists()
    assert "10 unchanged" in run("load_site_data", "--data-dir", str(tmp_path / "nothing"))


@requires_shared
@pytest.mark.slow
def test_the_real_data_replaces_a_demo_set_loaded_earlier(tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / "cr" / "en").mkdir(parents=True)
    for name in ("2024-04-12.txt", "2024-06-07.txt", "2024-07-30.txt", "versions.csv"):
        shutil.copy(CR_EN / name, data / "cr" / "en" / name)
    run("load_site_data", "--data-dir", str(data))
    real_only = snapshot()
    clear_archive()
    run("load_site_data", "--data-dir", str(tmp_path / "nothing"))  # the demo set first
    out = run("load_site_data", "--data-dir", str(data))
    assert "Removing the 10 demo releases loaded earlier" in out
    assert snapshot() == real_only
    assert not Lineage.objects.filter(numbers__isnull=True).exists()


@requires_shared
@pytest.mark.slow
def test_switching_from_the_demo_to_real_rules_relinks_the_rulings(tmp_path: Path) -> None:
    """The demo card's rulings, linked to the demo's rule 602, follow the real archive when it
    replaces the demo set (the demo's lineages are gone, the real ones are new)."""
    from rulings.models import RulingLink

    run("load_site_data", "--data-dir", str(tmp_path / "nothing"))
    data = tmp_path / "data"
    (data / "cr" / "en").mkdir(parents=True)
    for name in ("2026-08-07.txt", "versions.csv"):
        shutil.copy(CR_EN / name, data / "cr" / "en" / name)
    out = run("load_site_data", "--data-dir", str(data))
    assert "relinking them all" in out
    numbers = set(
        RulingLink.objects.filter(ruling__card__name_en="The Peregrine Dynamo").values_list(
            "current_number", flat=True
        )
    )
    assert {"602", "603", "607", "707.10"} <= numbers


@requires_shared
@pytest.mark.slow
def test_the_demo_card_only_where_the_shared_cards_are_absent(tmp_path: Path) -> None:
    """The shared cards replace the demo card loaded earlier, and `make run` counts the
    vocabulary's worklists instead of listing them (issue 16: its first run's output)."""
    import gzip

    from rulings.models import Card

    data = tmp_path / "data"
    (data / "cr" / "en").mkdir(parents=True)
    for name in ("2026-08-07.txt", "versions.csv"):
        shutil.copy(CR_EN / name, data / "cr" / "en" / name)
    run("load_site_data", "--data-dir", str(tmp_path / "nothing"))
    assert Card.objects.filter(name_en="The Peregrine Dynamo").exists()
    (data / "cards").mkdir()
    with gzip.open(CR_EN.parent.parent / "cards" / "cards.jsonl.gz", "rt") as real:
        lines = [next(real) for _ in range(3)]
    with gzip.open(data / "cards" / "cards.jsonl.gz", "wt") as sample:
        sample.writelines(lines)
    out = run("load_site_data", "--data-dir", str(data))
    assert "Removing the demo cards loaded earlier (1)" in out
    assert Card.objects.count() == 3
    assert not Card.objects.filter(name_en="The Peregrine Dynamo").exists()
    assert "(manage.py build_vocabulary lists them)" in out
    assert "no French term from the cards:" not in out
    again = run("load_site_data", "--data-dir", str(data))
    assert "Removing" not in again and "demo card" not in again and Card.objects.count() == 3


def test_a_first_load_can_leave_the_index_to_the_worker_while_the_site_answers(
    tmp_path: Path, client, caplog
) -> None:
    """make run: load_site_data --index-in-background, then index_worker --build-missing."""
    from django.core.management import call_command
    from django.test import override_settings

    from search.backend import get_backend

    caplog.set_level(logging.INFO, logger="kb.sitesearch.service")
    with override_settings(KB_SEARCH_AUTO_DRAIN=True, KB_INDEX_DIR=tmp_path / "index"):
        out = run(
            "load_site_data", "--data-dir", str(tmp_path / "nothing"), "--index-in-background"
        )
        assert "built in the background" in out
        assert not get_backend().exists()
        page = client.get("/en/search/", {"q": "activated ability"})
        assert page.status_code == 200 and b"not built yet" in page.content
        assert client.get("/en/rules/602/").status_code == 200
        # Nothing building: an operator must hear of it. A build under way is progress.
        assert [r.levelname for r in caplog.records if "unavailable" in r.message] == ["WARNING"]
        folder = get_backend().folder
        building = folder.new_folder(building=True)  # as rebuild_index marks its folder
        caplog.clear()
        client.get("/en/search/", {"q": "activated ability"})
        assert [r.levelname for r in caplog.records if "being built" in r.message] == ["INFO"]
        gone = subprocess.Popen(["true"])
        gone.wait()  # its process number is free: a killed build's marker
        (folder.root / building / "BUILDING").write_text(str(gone.pid))
        assert folder.unfinished() == [building] and not folder.building()
        caplog.clear()
        client.get("/en/search/", {"q": "activated ability"})
        assert [r.levelname for r in caplog.records if "unavailable" in r.message] == ["WARNING"]
        folder.discard(building)
        call_command("index_worker", "--once", "--build-missing", verbosity=0)
        page = client.get("/en/search/", {"q": "activated ability"})
        assert page.status_code == 200 and b"not built yet" not in page.content
        assert b"602.1" in page.content
