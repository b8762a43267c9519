"""Production settings (issue 16): `check --deploy` clean with the documented environment, a
one-line refusal without secrets, production by default for app servers, the security headers
and a Content-Security-Policy that every page of a sample satisfies (no inline script, no
handler attribute, no inline style), admin included, and static files served hashed and
compressed by whitenoise. Demo set only: quick."""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client, override_settings
from django.urls import reverse

from tests.kb.helpers import DEMO, clear_archive, run

ROOT = Path(settings.BASE_DIR)
#: The production environment docs/deploy.md documents (behind a TLS proxy).
DOCUMENTED = {
    "DJANGO_SETTINGS_MODULE": "config.settings.prod",
    "DJANGO_SECRET_KEY": "k" * 20 + "a-long-random-production-secret-0123456789",
    "DJANGO_ALLOWED_HOSTS": "rules.example.org",
    "DJANGO_CSRF_TRUSTED_ORIGINS": "https://rules.example.org",
    "DJANGO_SECURE_PROXY_SSL_HEADER": "X-Forwarded-Proto",
}
#: The settings of config.settings.prod that make it production (the rest is base's).
PROD_NAMES = re.compile(
    r"^(DEBUG|SECRET_KEY|ALLOWED_HOSTS|CSRF_TRUSTED_ORIGINS|SECURE_\w+|SESSION_COOKIE_\w+"
    r"|CSRF_COOKIE_SECURE|X_FRAME_OPTIONS|MIDDLEWARE)$"
)


def _env(**changes: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    env.update(DOCUMENTED, KB_SEARCH_WARM_UP="0")
    for name, value in changes.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return env


def _python(*args: str, **changes: str | None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=_env(**changes), capture_output=True, text=True
    )


def test_check_deploy_has_no_warnings_with_the_documented_environment() -> None:
    done = _python("manage.py", "check", "--deploy", "--fail-level", "WARNING")
    assert done.returncode == 0, done.stderr + done.stdout
    assert "System check identified no issues (0 silenced)." in done.stdout
    # The check is real: HSTS off is reported. Behind a proxy that redirects to https itself
    # (DJANGO_SECURE_SSL_REDIRECT=0) the SSL-redirect reminder, and only it, is silenced.
    weak = _python(
        "manage.py", "check", "--deploy", DJANGO_HSTS_SECONDS="0", DJANGO_SECURE_SSL_REDIRECT="0"
    )  # fmt: skip
    assert "security.W004" in weak.stderr and "security.W008" not in weak.stderr
    assert "(1 silenced)" in weak.stderr


@pytest.mark.parametrize(
    ("unset", "line"),
    [
        (("DJANGO_SECRET_KEY",), "DJANGO_SECRET_KEY must be set"),
        (("DJANGO_ALLOWED_HOSTS",), "DJANGO_ALLOWED_HOSTS must be set"),
        (
            ("DJANGO_SECRET_KEY", "DJANGO_ALLOWED_HOSTS"),
            "DJANGO_SECRET_KEY and DJANGO_ALLOWED_HOSTS must be set",
        ),
    ],
)
def test_serving_without_secrets_is_refused_in_one_line(unset: tuple[str, ...], line: str) -> None:
    done = _python("-m", "config.preflight", **dict.fromkeys(unset))
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"Cannot serve: {line} in production (see docs/deploy.md)"
    ]
    assert _python("-m", "config.preflight").returncode == 0


def test_app_servers_default_to_production_and_manage_py_to_development() -> None:
    show = "from django.conf import settings; print(settings.SETTINGS_MODULE, settings.DEBUG)"
    wsgi = _python("-c", f"import config.wsgi; {show}", DJANGO_SETTINGS_MODULE=None)
    assert wsgi.stdout.split() == ["config.settings.prod", "False"], wsgi.stderr
    manage = _python("manage.py", "shell", "-c", show, DJANGO_SETTINGS_MODULE=None)
    assert manage.stdout.split()[-2:] == ["config.settings.base", "True"], manage.stderr


@pytest.fixture
def prod(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    """The production settings module's own values, applied over the test settings (the test
    client's host allowed too; static files collected where a test says)."""
    for name, value in DOCUMENTED.items():
        monkeypatch.setenv(name, value)
    sys.modules.pop("config.settings.prod", None)
    module = importlib.import_module("config.settings.prod")
    values = {k: getattr(module, k) for k in dir(module) if PROD_NAMES.match(k)}
    values["ALLOWED_HOSTS"] = [*values["ALLOWED_HOSTS"], "testserver"]
    (tmp_path / "static").mkdir()
    with override_settings(**values, STATIC_ROOT=tmp_path / "static"):
        yield values
    sys.modules.pop("config.settings.prod", None)


@pytest.fixture
def demo(db) -> None:
    clear_archive()
    run("import_rules", str(DEMO))


class _Inline(HTMLParser):
    """Everything a strict CSP would block in a page's markup."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []
        self.assets: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        if tag == "script":
            if named.get("src"):
                self.assets.append(named["src"] or "")
            elif named.get("type") not in ("application/json", "application/ld+json"):
                self.found.append(f"inline <script> {named}")
        if tag == "style":
            self.found.append("<style> element")
        if tag == "link" and named.get("rel") in ("stylesheet", "icon"):
            self.assets.append(named.get("href") or "")
        for name, _value in attrs:
            if name.startswith("on") or name == "style":
                self.found.append(f"<{tag} {name}=…>")


def _inline_in(html: str) -> tuple[list[str], list[str]]:
    parser = _Inline()
    parser.feed(html)
    return parser.found, parser.assets


def _policy(header: str) -> dict[str, list[str]]:
    directives = (d.split() for d in header.split(";") if d.strip())
    return {name: sources for name, *sources in directives}


READING = [
    "/en/",
    "/fr/",
    "/en/current/rules/",
    "/en/rules/602.2a/",
    "/fr/rules/602.2a/",
    "/en/2014-02-01/rules/602/",
    "/en/rules/602.2a/history/",
    "/en/diff/2019-05-03..2025-06-06/",
    "/en/releases/",
    "/en/current/glossary/",
    "/en/translation/",
    "/en/search/?q=activate",
    "/fr/search/help/",
    "/en/cards/",
    "/en/no-such-page/",
    "/api/docs",
]


def _admin_pages() -> list[str]:
    return [
        reverse("admin:index"),
        reverse("admin:kb_release_changelist"),
        reverse("admin:kb_release_publish"),
        reverse("admin:kb_ruleversion_changelist"),
        reverse("admin:kb_ruleversion_change", args=[_a_rule_version()]),
        reverse("admin:rulings_card_changelist"),
    ]


def _a_rule_version() -> int:
    from kb.models import RuleVersion

    return RuleVersion.objects.order_by("pk").values_list("pk", flat=True).first()


@pytest.mark.django_db
def test_pages_carry_the_security_headers_and_no_inline_script(prod, demo) -> None:
    client = Client()
    for address in READING:
        page = client.get(address, secure=True)
        assert page.status_code in (200, 404), address
        csp = _policy(page["Content-Security-Policy"])
        assert csp["default-src"] == csp["script-src"] == csp["style-src"] == ["'self'"]
        assert csp["frame-ancestors"] == csp["object-src"] == ["'none'"]
        assert page["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains; preload"
        assert page["X-Content-Type-Options"] == "nosniff"
        assert page["Referrer-Policy"] == "same-origin"
        assert page["Cross-Origin-Opener-Policy"] == "same-origin"
        assert page["X-Frame-Options"] == "DENY"
        inline, assets = _inline_in(page.content.decode())
        assert inline == [], address
        assert assets and all(a.startswith("/static/") for a in assets), (address, assets)


@pytest.mark.django_db
def test_the_customised_admin_pages_work_under_the_policy(prod, demo) -> None:
    client = Client()
    client.force_login(User.objects.create_superuser("csp", "csp@example.org", "x"))
    for address in _admin_pages():
        page = client.get(address, secure=True)
        assert page.status_code == 200, address
        assert _policy(page["Content-Security-Policy"])["script-src"] == ["'self'"]
        inline, assets = _inline_in(page.content.decode())
        assert inline == [], address
        assert all(a.startswith("/static/") or a.startswith("/admin/") for a in assets), assets


@pytest.mark.django_db
def test_behind_a_tls_proxy_urls_are_https_and_the_admin_login_posts(prod, demo) -> None:
    User.objects.create_superuser("op", "op@example.org", "pw")
    client = Client(enforce_csrf_checks=True)
    proxied = {"HTTP_X_FORWARDED_PROTO": "https", "HTTP_HOST": "rules.example.org"}
    plain = client.get("/en/", HTTP_HOST="rules.example.org")
    assert plain.status_code == 301 and plain.url == "https://rules.example.org/en/"
    login = client.get("/admin/login/", **proxied)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', login.content.decode())
    assert token is not None
    posted = client.post(
        "/admin/login/?next=/admin/",
        {"username": "op", "password": "pw", "csrfmiddlewaretoken": token.group(1)},
        HTTP_ORIGIN="https://rules.example.org",
        HTTP_REFERER="https://rules.example.org/admin/login/",
        **proxied,
    )
    assert posted.status_code == 302 and posted.url == "/admin/"
    cookie = client.cookies["sessionid"]
    assert cookie["secure"] and cookie["httponly"]
    canonical = client.get("/en/", **proxied).content.decode()
    assert 'rel="canonical" href="https://rules.example.org/en/"' in canonical


@pytest.mark.django_db
def test_static_files_are_served_hashed_compressed_and_cached_forever(
    prod, demo, tmp_path: Path
) -> None:
    storages = {
        "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
        "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
    }
    with override_settings(STATIC_ROOT=tmp_path / "static", STORAGES=storages):
        # The reading pages' files only (the admin's and Swagger UI's take seconds to compress).
        ignore = ["admin", "ninja", "*.map", "jquery-ui*"]
        call_command("collectstatic", interactive=False, verbosity=0, ignore_patterns=ignore)
        client = Client()
        html = client.get("/en/", secure=True).content.decode()
        css = re.search(r'href="(/static/css/site\.[0-9a-f]{12}\.css)"', html)
        assert css is not None, "site.css is linked by its hashed name"
        served = client.get(css.group(1), secure=True, HTTP_ACCEPT_ENCODING="gzip")
        assert served.status_code == 200 and served["Content-Encoding"] == "gzip"
        assert served["Cache-Control"] == "max-age=315360000, public, immutable"
        favicon = client.get("/favicon.ico", secure=True)
        assert favicon.status_code == 302 and re.fullmatch(
            r"/static/favicon\.[0-9a-f]{12}\.svg", favicon.url
        )
        assert client.get(favicon.url, secure=True).status_code == 200


# A request naming a host the site does not serve, through the production settings' logging.
_UNKNOWN_HOST = """
import django
django.setup()
from django.test import Client
answer = Client().get("/en/", HTTP_HOST="scanner.example.net")
print(answer.status_code)
"""


def test_an_unknown_host_is_logged_in_one_line(tmp_path: Path) -> None:
    """A 400, and one log line naming the host (scanners send many: no traceback each)."""
    done = _python("-c", _UNKNOWN_HOST, DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["400"]
    lines = [line for line in done.stderr.splitlines() if "scanner.example.net" in line]
    assert lines == [
        "Invalid HTTP_HOST header: 'scanner.example.net'. You may need to add "
        "'scanner.example.net' to ALLOWED_HOSTS."
    ]
    assert "Traceback" not in done.stderr, done.stderr
