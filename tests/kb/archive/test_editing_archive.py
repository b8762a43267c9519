"""Maintainers' edits on the full archive (issue 12): an admin edit shows on the page and in
search right after save; replacing the current release keeps maintainers' work. Both print
their timings (the figures of the issue's note)."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.test import Client

from kb.archive import editing
from kb.models import ImportRecord, Release, RuleNumber, RuleVersion
from search.indexing import drain
from tests.conftest import release_files
from tests.kb.helpers import run

pytestmark = [pytest.mark.slow, pytest.mark.django_db]


def current_602_2a() -> RuleVersion:
    date = Release.objects.latest("effective_date").effective_date
    lineage = RuleNumber.objects.as_of(date).get(number="602.2a").lineage_id
    return RuleVersion.objects.as_of(date).get(lineage_id=lineage)


def test_an_admin_french_edit_shows_on_the_page_and_in_search(search_index) -> None:
    staff = Client()
    staff.force_login(User.objects.create_superuser("maintainer", "m@example.org", "x"))
    version = current_602_2a()
    url = f"/admin/kb/ruleversion/{version.pk}/change/"
    page = staff.get(url).content.decode()
    stamp = re.search(r'name="_edit_stamp" value="([^"]*)"', page).group(1)
    french = "Le joueur annonce qu’il active la capacité zygomorphe."
    data = {
        "text_en": version.text_en,
        "text_fr": french,
        "fr_status": "unofficial",
        "fr_release": "",
        "_edit_stamp": stamp,
        "examples-TOTAL_FORMS": "0",
        "examples-INITIAL_FORMS": "0",
        "examples-MIN_NUM_FORMS": "0",
        "examples-MAX_NUM_FORMS": "1000",
    }
    started = time.perf_counter()
    assert staff.post(url, data).status_code == 302
    saved = time.perf_counter()
    drain()  # what the after-commit hook does in production (tests run inside a transaction)
    indexed = time.perf_counter()
    try:
        assert french in Client().get("/fr/rules/602.2a/").content.decode()
        hits = Client().get("/api/v1/search", {"q": "zygomorphe", "lang": "fr"}).json()["hits"]
        assert hits and hits[0]["number"] == "602.2a"
        print(
            f"\nsave of a rule text: admin POST (service, caches) {saved - started:.3f} s, "
            f"index {indexed - saved:.3f} s"
        )
    finally:
        editing.edit_rule_version(version=version, user="t", text_fr="", fr_status="")
        drain()


def test_replace_of_the_current_release_keeps_maintainer_work(archive, tmp_path: Path) -> None:
    latest = release_files()[-1]
    version = current_602_2a()
    editing.edit_rule_version(
        version=version, user="ann", text_fr="Texte français.", fr_status="reviewed"
    )
    editing.add_example(version=version, user="ann", text_en="Example: Added by Ann.")
    lineage = version.lineage_id
    text = latest.read_text(encoding="utf-8")
    changed = tmp_path / latest.name
    changed.write_text(text.replace("is identical to the process", "is the same as the process"))
    started = time.perf_counter()
    run("import_rules", str(changed), "--replace", verbosity=0)
    print(f"\nimport_rules --replace of {latest.name}: {time.perf_counter() - started:.1f} s")
    new = current_602_2a()
    assert new.lineage_id == lineage
    assert (new.text_fr, new.fr_status) == ("Texte français.", "reviewed")
    assert "Example: Added by Ann." in list(new.examples.values_list("text_en", flat=True))
    assert ImportRecord.objects.filter(action="replaced").latest("id").lost == []
