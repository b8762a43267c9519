"""Errors keep their meaning under DEBUG (`make run`) as in production (issue 31): a content
maintainer opening Users or Groups in the admin is answered 403, a request with 1,100 fields
400, a diff address whose redirect would exceed Django's length limit 400 with a clear message;
never the 500 the site's error middleware made of them under DEBUG. Each answer is the site's
own page in the reader's language (JSON under /api/), where production showed a bare 403 and
Django's plain 400."""

from __future__ import annotations

import logging

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client, RequestFactory, override_settings

from roles.groups import MAINTAINERS
from tests.kb.archive.test_editing import version_of
from tests.kb.web.test_pages_demo import client  # noqa: F401 - the demo archive and a client
from tests.test_production import _inline_in, demo, prod  # noqa: F401 - production's settings

pytestmark = pytest.mark.django_db

#: One more than Django's DATA_UPLOAD_MAX_NUMBER_FIELDS (1,000) allows, and then some.
FIELDS = {f"field{i}": "1" for i in range(1100)}
TOO_MANY = "&".join(f"{name}={value}" for name, value in FIELDS.items())
#: A diff between two releases given in the wrong order: the page redirects to the canonical
#: order, its parameters kept, and 20,000 characters are past Django's redirect limit.
LONG_DIFF = "/{lang}/diff/2025-06-06..2019-05-03/?section=" + "7" * 20_000


@pytest.fixture
def maintainer(client: Client) -> Client:  # noqa: F811
    """A content maintainer (the group `setup_roles` makes): no permission on users or groups."""
    user = User.objects.create_user("mai", password="pw", is_staff=True)
    user.groups.add(Group.objects.get(name=MAINTAINERS))
    client.force_login(user)
    return client


def _page(response, status: int) -> str:
    assert response.status_code == status, response.content.decode()[:500]
    html = response.content.decode()
    assert "Traceback" not in html and "technical" not in html.lower()
    return html


@pytest.mark.parametrize("debug", [True, False])
def test_a_maintainer_opening_users_or_groups_gets_the_sites_403(
    maintainer: Client, debug: bool
) -> None:
    own = User.objects.get(username="mai").pk
    with override_settings(DEBUG=debug):
        users = maintainer.get("/admin/auth/user/")
        groups = maintainer.get("/admin/auth/group/", HTTP_ACCEPT_LANGUAGE="fr")
        change = maintainer.get(f"/admin/auth/user/{own}/change/")
    en, fr = _page(users, 403), _page(groups, 403)
    assert "<h1>Access denied</h1>" in _page(change, 403)
    assert "<h1>Access denied</h1>" in en and '<html lang="en"' in en
    assert "<h1>Accès refusé</h1>" in fr and '<html lang="fr"' in fr
    assert "Votre compte n’a pas la permission d’ouvrir cette page." in fr
    for html in (en, fr):
        assert "<header" in html  # the site's layout, as the 404 page
        assert 'href="/admin/"' in html  # back to what the maintainer may open
    assert "Server error" not in en and "Erreur du serveur" not in fr


@pytest.mark.parametrize("debug", [True, False])
def test_1100_fields_answer_400_with_the_sites_page(
    maintainer: Client, debug: bool, caplog
) -> None:
    version = version_of("602.2a")
    before = (version.text_en, version.text_fr)
    change = f"/admin/kb/ruleversion/{version.pk}/change/"
    with override_settings(DEBUG=debug), caplog.at_level("WARNING"):
        edit = maintainer.post(change, FIELDS)
        search = maintainer.get(f"/fr/search/?q=trample&{TOO_MANY}")
        login = Client().post("/admin/login/", FIELDS, HTTP_ACCEPT_LANGUAGE="fr")
        api = maintainer.get(f"/api/v1/search?q=trample&{TOO_MANY}")
    en, fr, login_fr = _page(edit, 400), _page(search, 400), _page(login, 400)
    assert "<h1>Bad request</h1>" in en and '<html lang="en"' in en
    assert "The request has too many parameters: the site reads 1000 at most." in en
    for html in (fr, login_fr):
        assert "<h1>Requête incorrecte</h1>" in html and '<html lang="fr"' in html
        assert "La requête a trop de paramètres : le site en lit 1000 au plus." in html
    assert api.status_code == 400 and api.json() == {
        "detail": "The request has too many parameters: the site reads 1000 at most."
    }
    version.refresh_from_db()
    assert (version.text_en, version.text_fr) == before  # nothing was saved
    # Logged as Django logs a suspicious operation, never as a server error.
    assert not [r for r in caplog.records if r.getMessage().startswith("Internal Server Error")]
    security = [r for r in caplog.records if r.name == "django.security.TooManyFieldsSent"]
    assert len(security) == 4 and all(r.levelno == logging.ERROR for r in security)


@pytest.mark.parametrize("debug", [True, False])
def test_a_diff_address_too_long_to_redirect_is_a_400_not_a_500(
    client: Client,  # noqa: F811
    debug: bool,
) -> None:
    with override_settings(DEBUG=debug):
        en = client.get(LONG_DIFF.format(lang="en"))
        fr = client.get(LONG_DIFF.format(lang="fr"))
        short = client.get("/en/diff/2025-06-06..2019-05-03/?section=7")
    assert short.status_code == 302  # the same redirect, within the limit
    assert short.url == "/en/diff/2019-05-03..2025-06-06/?section=7"
    en_html, fr_html = _page(en, 400), _page(fr, 400)
    assert "This address is too long: the site cannot follow it." in en_html
    assert "Cette adresse est trop longue : le site ne peut pas la suivre." in fr_html
    assert '<html lang="fr"' in fr_html and "<h1>Requête incorrecte</h1>" in fr_html


@pytest.mark.django_db
def test_production_answers_403_and_400_with_the_sites_pages(prod, demo) -> None:  # noqa: F811
    """`make serve`'s settings: the site's pages where Django showed a bare "403 Forbidden"
    and its plain "Bad Request (400)", in the reader's language, under the strict policy."""
    user = User.objects.create_user("mai", password="pw", is_staff=True)
    user.groups.add(Group.objects.get(name=MAINTAINERS))
    signed_in = Client()
    signed_in.force_login(user)
    forbidden = signed_in.get("/admin/auth/user/", secure=True, HTTP_ACCEPT_LANGUAGE="fr")
    bad = signed_in.get(f"/en/search/?{TOO_MANY}", secure=True)
    fr, en = _page(forbidden, 403), _page(bad, 400)
    assert "<h1>Accès refusé</h1>" in fr and "403 Forbidden" not in fr
    assert "The request has too many parameters" in en and "Bad Request (400)" not in en
    for page in (forbidden, bad):
        assert page["Content-Security-Policy"] and page["X-Frame-Options"] == "DENY"
        assert _inline_in(page.content.decode())[0] == []  # nothing the policy blocks


def test_what_fails_outside_a_view_gets_the_sites_400_page_too(client: Client) -> None:  # noqa: F811
    """A Host not allowed is refused before any view, by handler400: the site's 400 page
    (rendered without the request's context, whose absolute URLs would raise again), in the
    active language."""
    from django.utils import translation

    from kb.web.error_pages import bad_request_page

    with override_settings(DEBUG=False):
        en = client.get("/en/", HTTP_HOST="scanner.example.net")
    assert "<h1>Bad request</h1>" in _page(en, 400)
    assert "The site could not read this request." in en.content.decode()
    with translation.override("fr"):
        fr = bad_request_page(RequestFactory().get("/fr/"))
    assert (
        "<h1>Requête incorrecte</h1>" in _page(fr, 400) and '<html lang="fr"' in fr.content.decode()
    )
