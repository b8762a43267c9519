"""The site's own error pages, DEBUG or not, in both languages (issue 15): an unknown address
or a missing object shows the site's 404 page, never Django's technical one."""

from __future__ import annotations

import pytest
from django.test import Client, override_settings

from tests.kb.web.test_pages_demo import client  # noqa: F401 - the demo archive and a client

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("debug", [True, False])
def test_unknown_addresses_show_the_sites_404_page(client: Client, debug: bool) -> None:  # noqa: F811
    with override_settings(DEBUG=debug):
        en = client.get("/en/no-such-page/")
        fr = client.get("/fr/no-such-page/")
        card = client.get("/en/cards/no-such-card/")
        term = client.get("/en/current/glossary/no-such-term/")
        api = client.get("/api/no-such-endpoint")
    assert (en.status_code, fr.status_code, card.status_code, term.status_code) == (404,) * 4
    for page in (en, fr, card, term):
        html = page.content.decode()
        assert 'class="site-header"' in html or "<header" in html  # the site's layout
        assert "Using the URLconf" not in html and "Technical" not in html
    assert "Page introuvable" in fr.content.decode() and "Not found" in en.content.decode()
    assert "matches the given query" not in card.content.decode()
    assert "No glossary entry “no-such-term” in this release." in term.content.decode()
    assert api.status_code == 404 and api.json() == {"detail": "Not Found"}


def test_known_addresses_still_redirect_to_their_slash_and_language(client: Client) -> None:  # noqa: F811
    with override_settings(DEBUG=True):
        assert client.get("/en/rules/602").url == "/en/rules/602/"
        assert client.get("/rules/602/", HTTP_ACCEPT_LANGUAGE="fr").url == "/fr/rules/602/"
        # A missing rule keeps its own page (nearest numbers, other releases).
        assert "602.2a" in client.get("/en/rules/602.9z/").content.decode()


def test_the_500_page_speaks_the_readers_language() -> None:
    from django.template.loader import render_to_string
    from django.utils import translation

    with translation.override("fr"):
        html = render_to_string("500.html")
    assert 'lang="fr"' in html and "Erreur du serveur" in html and 'href="/fr/"' in html


def _locked(*args, **kwargs):
    from django.db.utils import OperationalError

    raise OperationalError("database is locked")


def test_a_view_meeting_the_write_lock_answers_503(client: Client, monkeypatch) -> None:  # noqa: F811
    """SQLite's "database is locked" (an import holds the write lock past the busy timeout)
    is a 503 with Retry-After in the reader's language, JSON under /api/ (issue 16)."""
    from kb import selectors

    monkeypatch.setattr(selectors.Releases, "load", staticmethod(_locked))
    fr = client.get("/fr/current/glossary/")
    assert fr.status_code == 503 and fr["Retry-After"] == "15"
    assert "Occupé" in fr.content.decode() and "réessayer dans 15 secondes" in fr.content.decode()
    en = client.get("/en/current/glossary/")
    assert en.status_code == 503 and "try again in 15 seconds" in en.content.decode()
    api = client.get("/api/v1/releases")
    assert api.status_code == 503 and "busy" in api.json()["detail"]


def test_a_save_after_the_view_meeting_the_lock_answers_503(client: Client, monkeypatch) -> None:  # noqa: F811
    """What no view caught (the session saved on the way out) reaches handler500, which
    answers 503 for a busy database and the 500 page otherwise."""
    from django.contrib.sessions.middleware import SessionMiddleware

    monkeypatch.setattr(SessionMiddleware, "process_response", _locked)
    client.raise_request_exception = False
    response = client.get("/en/rules/602/")
    assert response.status_code == 503 and response["Retry-After"] == "15"

    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(SessionMiddleware, "process_response", broken)
    assert client.get("/en/rules/602/").status_code == 500


def test_a_views_error_under_debug_shows_the_sites_500_page_and_logs_it(
    client: Client,  # noqa: F811
    monkeypatch,
    caplog,
    settings,
) -> None:
    """`make run` (DEBUG) shows the page production shows, in the reader's language; the
    traceback goes to the log, once. KB_TECHNICAL_500 brings Django's technical page back."""
    from kb.web import views

    def broken(*args, **kwargs):
        raise RuntimeError("a bug in a view")

    monkeypatch.setattr(views, "_page", broken)
    client.raise_request_exception = False
    settings.DEBUG = True
    with caplog.at_level("ERROR", logger="django.request"):
        fr = client.get("/fr/rules/602/")
    html = fr.content.decode()
    assert fr.status_code == 500 and "Erreur du serveur" in html and 'lang="fr"' in html
    assert "Traceback" not in html and "a bug in a view" not in html
    errors = [r for r in caplog.records if r.levelname == "ERROR"]
    assert len(errors) == 1 and errors[0].exc_info and "/fr/rules/602/" in errors[0].getMessage()
    settings.KB_TECHNICAL_500 = True
    technical = client.get("/en/rules/602/")
    assert technical.status_code == 500 and "a bug in a view" in technical.content.decode()
