"""The whole-page cache (kb/web/page_cache.py, issue 16), on the demo set: an anonymous reader's
second request is answered from the `pages` alias without the view; staff, POSTs, errors and
the admin never are; an edit by any process moves the key (tested here with the purge switched
off, as a per-process cache in another worker would be); a cached search still counts against
the client's search throttle."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.cache import caches
from django.db import connection
from django.test import Client, RequestFactory, override_settings
from django.test.utils import CaptureQueriesContext

from kb.archive import editing
from kb.models import Release, RuleNumber, RuleVersion
from kb.web import page_cache
from rulings.corrections import save_card, save_ruling
from rulings.models import Card, Ruling
from search.indexing import rebuild
from tests.kb.helpers import DEMO, clear_archive, run
from tests.rulings.helpers import clear_cards

pytestmark = pytest.mark.django_db
PINNED = "/en/2019-05-03/rules/602/"


@pytest.fixture
def demo(db, tmp_path: Path) -> None:
    """The demo set: a few releases of rule 602 and The Peregrine Dynamo's rulings."""
    clear_archive()
    clear_cards()
    run("load_site_data", "--data-dir", str(tmp_path / "nothing"))
    caches["pages"].clear()


@pytest.fixture
def no_purge(monkeypatch) -> None:
    """Another process's page cache: nobody purges it, only the key can move."""
    monkeypatch.setattr(page_cache, "purge", lambda: None)


def current_602_2a() -> RuleVersion:
    date = Release.objects.latest("effective_date").effective_date
    lineage = RuleNumber.objects.as_of(date).get(number="602.2a").lineage_id
    return RuleVersion.objects.as_of(date).get(lineage_id=lineage)


def test_a_release_pinned_page_is_a_hit_the_second_time_without_the_view(demo) -> None:
    first = Client().get(PINNED)
    assert first.status_code == 200 and first[page_cache.HEADER] == "miss"
    with CaptureQueriesContext(connection) as queries:
        again = Client().get(PINNED)
    assert again[page_cache.HEADER] == "hit"
    assert again.content == first.content
    # Only the stamps the key is made of (archive, cards, search outbox; the vocabulary's is
    # memoised for two seconds): none of the page's own queries.
    assert len(queries) <= 4, [q["sql"] for q in queries]
    assert not any("kb_rulenumber" in q["sql"] for q in queries)
    for header in ("Content-Type", "Content-Language", "ETag", "Cache-Control", "Vary"):
        assert again[header] == first[header], header
    # The policy carries no nonce: the replayed header is the one a fresh answer has.
    assert again["Content-Security-Policy"] == first["Content-Security-Policy"]
    assert "nonce" not in first["Content-Security-Policy"]
    assert Client().get(PINNED, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304


def test_pages_differ_by_language_query_and_host(demo) -> None:
    english = Client().get("/en/rules/602/")
    french = Client().get("/fr/rules/602/")
    assert english.content != french.content and french[page_cache.HEADER] == "miss"
    api_en = Client().get("/api/v1/rules/602.2a")
    api_fr = Client().get("/api/v1/rules/602.2a", {"lang": "fr"})
    assert api_fr[page_cache.HEADER] == "miss" and api_en.json() != api_fr.json()
    other_host = Client(HTTP_HOST="localhost").get("/en/rules/602/")
    assert other_host[page_cache.HEADER] == "miss"
    assert "http://localhost/en/rules/602/" in other_host.content.decode()  # canonical URL


def test_staff_never_get_a_cached_page_nor_fill_the_cache(demo) -> None:
    assert Client().get(PINNED)[page_cache.HEADER] == "miss"
    staff = Client()
    staff.force_login(User.objects.create_superuser("maintainer", "m@example.org", "x"))
    for _ in range(2):
        answer = staff.get(PINNED)
        assert answer.status_code == 200 and page_cache.HEADER not in answer
        assert "private" in answer["Cache-Control"]
    assert page_cache.HEADER not in staff.get("/en/rules/602/")
    assert Client().get("/en/rules/602/")[page_cache.HEADER] == "miss"  # staff stored nothing


def test_posts_errors_and_the_admin_are_never_cached(demo) -> None:
    for _ in range(2):
        missing = Client().get("/en/rules/999.9z/")
        assert missing.status_code == 404 and page_cache.HEADER not in missing
        assert page_cache.HEADER not in Client().get("/admin/login/")
        assert page_cache.HEADER not in Client().post("/en/rules/602/")
        assert page_cache.HEADER not in Client().get("/en/downloads/")  # it reads files
    assert page_cache.HEADER not in Client().head(PINNED)  # a HEAD stores nothing...
    assert Client().get(PINNED)[page_cache.HEADER] == "miss"
    assert Client().head(PINNED)[page_cache.HEADER] == "hit"  # ...but is answered


def test_a_rule_edit_moves_the_key_without_any_purge(demo, no_purge) -> None:
    version = current_602_2a()
    assert "quixotrate" not in Client().get("/en/rules/602.2a/").content.decode()
    assert Client().get("/en/rules/602.2a/")[page_cache.HEADER] == "hit"
    editing.edit_rule_version(version=version, user="t", text_en=version.text_en + " (quixotrate)")
    fresh = Client().get("/en/rules/602.2a/")
    assert fresh[page_cache.HEADER] == "miss" and "quixotrate" in fresh.content.decode()
    editing.edit_rule_version(version=version, user="t", text_fr="Pour activer (zorglub).")
    assert "zorglub" in Client().get("/fr/rules/602.2a/").content.decode()


def test_a_card_or_ruling_edit_moves_the_key_without_any_purge(demo, no_purge) -> None:
    card = Card.objects.get()
    address = f"/fr/cards/{card.slug}/"
    assert Client().get(address).status_code == 200
    assert Client().get(address)[page_cache.HEADER] == "hit"
    card.name_fr = "Dynamo pérégrine de Zorglub"
    save_card(card=card, changed=["name_fr"])
    assert "Dynamo pérégrine de Zorglub" in Client().get(address).content.decode()
    ruling = Ruling.objects.filter(card=card, is_heading=False).order_by("id").first()
    ruling.text = ruling.text + " Snorgleplume."
    save_ruling(ruling=ruling, changed=["text"])
    assert "Snorgleplume" in Client().get(address).content.decode()


def test_imports_and_edits_purge_the_alias(
    demo, tmp_path: Path, django_capture_on_commit_callbacks
) -> None:
    """After the commit: the dead entries go (a shared store would keep them otherwise)."""
    stored = caches["pages"]
    later = tmp_path / "2099-02-03.txt"
    text = (DEMO / "2025-06-06.txt").read_text(encoding="utf-8")
    later.write_text(text.replace("June 6, 2025", "February 3, 2099"), encoding="utf-8")

    def card_edit() -> None:
        card = Card.objects.get()
        card.name_fr = "Dynamo Zorglub"
        save_card(card=card, changed=["name_fr"])

    for edit in (
        card_edit,
        lambda: editing.edit_rule_version(
            version=current_602_2a(), user="t", text_fr="Pour activer."
        ),  # kb.signals.text_edited
        lambda: run("import_rules", str(later)),  # kb.signals.release_changed
    ):
        Client().get(PINNED)
        key = page_cache.cache_key(RequestFactory().get(PINNED))
        assert stored.get(key) is not None
        with django_capture_on_commit_callbacks(execute=True):
            edit()
        assert stored.get(key) is None, edit


@pytest.fixture
def demo_index(demo, tmp_path: Path):
    """The demo set's search index, built in a folder of the test's own."""
    with override_settings(KB_INDEX_DIR=tmp_path / "index"):
        rebuild()
        yield


def test_a_search_without_an_index_is_not_kept(demo, tmp_path: Path) -> None:
    with override_settings(KB_INDEX_DIR=tmp_path / "none"):
        for _ in range(2):
            answer = Client().get("/en/search/?q=activate")
            assert answer.status_code == 200 and "not built yet" in answer.content.decode()
            assert page_cache.HEADER not in answer
        rebuild()
        assert "not built yet" not in Client().get("/en/search/?q=activate").content.decode()


@override_settings(KB_SEARCH_THROTTLE="2/min")
def test_a_cached_search_still_counts_against_the_throttle(demo_index) -> None:
    caches["throttle"].clear()  # the throttle's counts
    address = "/en/search/?q=activate"
    first = Client(REMOTE_ADDR="10.0.0.7").get(address)
    assert first.status_code == 200 and first[page_cache.HEADER] == "miss"
    second = Client(REMOTE_ADDR="10.0.0.7").get(address)
    assert second.status_code == 200 and second[page_cache.HEADER] == "hit"
    third = Client(REMOTE_ADDR="10.0.0.7").get(address)
    assert third.status_code == 429 and page_cache.HEADER not in third
    # Another client is not held back by the first one's count.
    assert Client(REMOTE_ADDR="10.0.0.8").get(address)[page_cache.HEADER] == "hit"
    api = "/api/v1/search?q=activate"
    assert Client(REMOTE_ADDR="10.0.0.9").get(api)[page_cache.HEADER] == "miss"
    assert Client(REMOTE_ADDR="10.0.0.9").get(api)[page_cache.HEADER] == "hit"
    assert Client(REMOTE_ADDR="10.0.0.9").get(api).status_code == 429


def test_switched_off_it_reads_no_stamps(demo, settings, monkeypatch) -> None:
    """KB_PAGE_CACHE=off: pages are built as without the middleware, no stamp read for a
    cache that keeps nothing."""
    settings.CACHES = {**settings.CACHES, "pages": page_cache_off()}

    def no_stamps() -> tuple:
        raise AssertionError("stamps read with the page cache off")

    monkeypatch.setattr(page_cache, "data_stamps", no_stamps)
    for _ in range(2):
        answer = Client().get(PINNED)
        assert answer.status_code == 200 and page_cache.HEADER not in answer


def page_cache_off() -> dict:
    from config.settings.base import page_cache as spec

    return spec("off", Path("unused"))


def test_a_reading_request_reads_the_archives_stamp_once(demo) -> None:
    """The page cache's statement gives the request its archive stamp (kb.stamps): the
    tables kept per stamp ask no more, and the stamp is the one archive_generation reads."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from kb import stamps

    direct = stamps.archive_generation()
    with stamps.remembered():
        page_cache.data_stamps()
        with CaptureQueriesContext(connection) as ctx:
            assert stamps.archive_generation() == direct
    assert len(ctx.captured_queries) == 0
    with CaptureQueriesContext(connection) as ctx:
        stamps.archive_generation()  # outside a request: read each time
    assert len(ctx.captured_queries) == 1
