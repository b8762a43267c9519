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
def test_the_seed_card_stays_on_top_of_the_shared_cards_until_they_have_it(
    tmp_path: Path,
) -> None:
    """The card the seed documents are about (The Peregrine Dynamo: the shared card data
    predates its set) is loaded on top of the shared cards, with its dated rulings, linked;
    once the shared cards have a card of that name, the seed's copy goes. `make run` counts
    the vocabulary's worklists instead of listing them (issue 16: its first run's output)."""
    import gzip
    import json

    from rulings.models import Card, Ruling

    data = tmp_path / "data"
    (data / "cr" / "en").mkdir(parents=True)
    for name in ("2026-08-07.txt", "versions.csv"):
        shutil.copy(CR_EN / name, data / "cr" / "en" / name)
    (data / "cards").mkdir()
    with gzip.open(CR_EN.parent.parent / "cards" / "cards.jsonl.gz", "rt") as real:
        lines = [next(real) for _ in range(3)]
    with gzip.open(data / "cards" / "cards.jsonl.gz", "wt") as sample:
        sample.writelines(lines)
    out = run("load_site_data", "--data-dir", str(data))
    assert Card.objects.count() == 4
    dynamo = Ruling.objects.filter(
        card__name_en="The Peregrine Dynamo", card__data_source="seed 001"
    )
    assert dynamo.filter(links__current_number="602").exists()
    assert "(manage.py build_vocabulary lists them)" in out
    assert "no French term from the cards:" not in out
    again = run("load_site_data", "--data-dir", str(data))
    assert "Removing" not in again and Card.objects.count() == 4
    # The shared cards come to hold the card: the seed's copy goes, nothing is doubled.
    record = json.loads(lines[0])
    record["name"] = "The Peregrine Dynamo"
    with gzip.open(data / "cards" / "cards.jsonl.gz", "wt") as sample:
        sample.writelines([json.dumps(record) + "\n", *lines[1:]])
    run("load_site_data", "--data-dir", str(data))
    assert Card.objects.filter(name_en="The Peregrine Dynamo").count() == 1
    assert not Card.objects.filter(data_source="seed 001").exists()


@requires_shared
@pytest.mark.slow
def test_the_seed_s_official_french_602_is_loaded_on_top_of_the_real_archive(
    tmp_path: Path, client
) -> None:
    """The only official French rules text we have (seed 003: rule 602 as of 2010-04-23) is
    imported by the French import like any official document, with its provenance; the rule
    602 pages in French show it side by side, and today's says it is stale."""
    from kb.models import ImportRecord

    data = tmp_path / "data"
    (data / "cr" / "en").mkdir(parents=True)
    for name in ("2010-04-23.txt", "2026-08-07.txt", "versions.csv"):
        shutil.copy(CR_EN / name, data / "cr" / "en" / name)
    out = run("load_site_data", "--data-dir", str(data))
    assert "Seed French 602: French translating 2010-04-23: created" in out
    (record,) = ImportRecord.objects.filter(lang="fr")
    assert record.source == "seed 003_3215fd40f54ce459.txt (rule 602 in French)"
    then = client.get("/fr/2010-04-23/rules/602.2a/").content.decode()
    assert "bilingual" in then and "Aucun texte officiel français" not in then
    assert "active la capacité" in then
    today = client.get("/fr/rules/602.2a/").content.decode()
    assert "fr-stale" in today
    again = run("load_site_data", "--data-dir", str(data))
    assert "French translating 2010-04-23: unchanged" in again
    assert ImportRecord.objects.filter(lang="fr", action="created").count() == 1


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
