"""An admin edit shows on the public pages and in the search right after save (issue 12), on the
full archive: an English rule text, a French rule text and a vocabulary term. (The French
rule text: tests/kb/archive/test_editing_archive.py; a ruling: tests/rulings/test_edits_visible.py.)

Each edit is an admin POST of the form as rendered. The commit hooks run as they would after
the request's commit (the signal that relinks rulings, the index drain), then the pages are
read by an anonymous client through the page cache (kb/web/page_cache.py), as another worker
would: each page is read and kept before the edit, the edit's purge of the cache is switched
off (it empties only the editing process's store with a per-process cache), and each page is
read twice after it (built under the moved key, then served from the cache). The on-disk index
outlives the test's transaction: each test puts the old value back through the same service
and drains again."""

from __future__ import annotations

import time

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from kb.archive import editing
from kb.models import Release, RuleNumber, RuleVersion, VocabularyTerm
from kb.web import page_cache
from search.indexing import drain
from tests.kb.archive.test_editing_archive import current_602_2a
from tests.kb.html_forms import form_values

pytestmark = [pytest.mark.slow, pytest.mark.django_db]
HEADER = page_cache.HEADER


@pytest.fixture(autouse=True)
def another_workers_page_cache(monkeypatch) -> None:
    """Nobody purges the page cache: only the keys can move (see the module's docstring)."""
    monkeypatch.setattr(page_cache, "purge", lambda: None)


@pytest.fixture
def staff(search_index) -> Client:
    client = Client()
    client.force_login(User.objects.create_superuser("maintainer", "m@example.org", "x"))
    return client


def post_change(client: Client, url: str, form_id: str, changes: dict[str, str], hooks) -> None:
    data = form_values(client.get(url).content.decode(), form_id)
    started = time.perf_counter()
    with hooks():
        response = client.post(url, {**data, **changes})
    saved = time.perf_counter()
    assert response.status_code == 302, response.content.decode()[:3000]
    drain()  # in production the after-commit hook drains; KB_SEARCH_AUTO_DRAIN is off in tests
    print(
        f"\n{url}: admin POST (service, caches, commit hooks) {saved - started:.3f} s, "
        f"index {time.perf_counter() - saved:.3f} s"
    )


def cached_read(url: str) -> str:
    """A page as anonymous readers get it: the first read may build and keep it, the next one
    is served from the page cache with the same bytes."""
    first = Client().get(url)
    again = Client().get(url)
    assert first.status_code == 200, url
    assert again[HEADER] == "hit" and again.content == first.content, url
    return again.content.decode()


def search(q: str, lang: str, kind: str = "") -> list[dict]:
    params = {"q": q, "lang": lang, **({"kind": kind} if kind else {})}
    first = Client().get("/api/v1/search", params)
    again = Client().get("/api/v1/search", params)  # the API answer, kept
    assert again[HEADER] == "hit" and again.json() == first.json()
    return again.json()["hits"]


def test_an_english_rule_text_edit(staff: Client, django_capture_on_commit_callbacks) -> None:
    version = current_602_2a()
    original = version.text_en
    edited = original.replace("activate", "activate (quixotrate)", 1)
    assert edited != original
    # The diff that shows this wording arriving (the release before it .. its first release).
    before = Release.objects.filter(effective_date__lt=version.valid_from).latest("effective_date")
    diff_url = f"/en/diff/{before.effective_date}..{version.valid_from}/"
    assert "quixotrate" not in cached_read(diff_url)  # now cached
    assert "quixotrate" not in cached_read("/en/rules/602/")  # cached too
    assert "quixotrate" not in cached_read("/en/rules/602.2a/")
    post_change(
        staff,
        reverse("admin:kb_ruleversion_change", args=[version.pk]),
        "ruleversion_form",
        {"text_en": edited},
        lambda: django_capture_on_commit_callbacks(execute=True),
    )
    try:
        assert "quixotrate" in cached_read("/en/rules/602.2a/")
        assert "quixotrate" in cached_read("/en/rules/602/")
        hits = search("quixotrate", "en")
        assert hits and hits[0]["number"] == "602.2a"
        assert "quixotrate" in cached_read(diff_url)  # the cache followed
    finally:
        editing.edit_rule_version(version=version, user="t", text_en=original)
        drain()
    assert not search("quixotrate", "en")


def test_a_french_rule_text_edit(staff: Client, django_capture_on_commit_callbacks) -> None:
    """(602.2a's French text: tests/kb/archive/test_editing_archive.py; here another rule, with an
    example, through the rendered form.)"""
    date = Release.objects.latest("effective_date").effective_date
    lineage = RuleNumber.objects.as_of(date).get(number="702.9b").lineage_id
    version = RuleVersion.objects.as_of(date).get(lineage_id=lineage)
    french = "Une créature avec le vol ne peut être bloquée que par un flurbivolant."
    assert "flurbivolant" not in cached_read("/fr/rules/702/")  # now cached
    assert "flurbivolant" not in cached_read("/fr/rules/702.9b/")
    post_change(
        staff,
        reverse("admin:kb_ruleversion_change", args=[version.pk]),
        "ruleversion_form",
        {"text_fr": french, "fr_status": "unofficial"},
        lambda: django_capture_on_commit_callbacks(execute=True),
    )
    try:
        assert french in cached_read("/fr/rules/702.9b/")
        assert french in cached_read("/fr/rules/702/")
        hits = search("flurbivolant", "fr")
        assert hits and hits[0]["number"] == "702.9b"
    finally:
        editing.edit_rule_version(version=version, user="t", text_fr="", fr_status="")
        drain()
    assert not search("flurbivolant", "fr")


def test_a_vocabulary_term_edit(staff: Client, django_capture_on_commit_callbacks) -> None:
    term = VocabularyTerm.objects.get(en="Flying", kind="keyword ability")
    original = term.fr
    rule = cached_read("/en/rules/702.9/")
    assert f"FR</abbr> {original}" in rule
    # The chapter and the glossary, read (and cached) before the edit.
    assert "Volplanure" not in cached_read("/fr/rules/702/")
    assert "Volplanure" not in cached_read("/fr/current/glossary/")
    post_change(
        staff,
        reverse("admin:kb_vocabularyterm_change", args=[term.pk]),
        "vocabularyterm_form",
        {"fr": "Volplanure"},
        lambda: django_capture_on_commit_callbacks(execute=True),
    )
    try:
        rule = cached_read("/en/rules/702.9/")
        assert "FR</abbr> Volplanure" in rule
        assert "Volplanure" in cached_read("/fr/rules/702/")
        assert "Volplanure" in cached_read("/fr/current/glossary/")
        # The French word now reaches the English rule (its indexed French name).
        hits = search("volplanure", "fr", kind="rule")
        assert hits and hits[0]["number"].startswith("702.9")
    finally:
        editing.edit_vocabulary_term(term=term, user="t", fr=original)
        VocabularyTerm.objects.filter(pk=term.pk).update(edited=False, mined_fr="")
        drain()
    assert not search("volplanure", "fr", kind="rule")
