"""Production overlay (`make serve`, and config/wsgi.py unless told otherwise).

Fails fast on missing secrets and hosts, serves the static files itself (whitenoise: hashed,
compressed, cached forever) and turns every protection `manage.py check --deploy` asks for on.
Everything that depends on the machine comes from the environment; docs/deploy.md has the table.
"""

import os

from django.core.exceptions import ImproperlyConfigured

from config.settings.base import *  # noqa: F403
from config.settings.base import LOGGING, MIDDLEWARE

DEBUG = False

REQUIRED = ("DJANGO_SECRET_KEY", "DJANGO_ALLOWED_HOSTS")


def missing_settings() -> list[str]:
    """The required variables that are unset or empty (all of them at once: an operator fixes
    the environment in one go)."""
    return [name for name in REQUIRED if not os.environ.get(name, "").strip()]


def _flag(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    return (
        default if value is None or value == "" else value.strip().lower() in ("1", "true", "yes")
    )


def _list(name: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, "").split(",") if item.strip()]


if missing_settings():
    raise ImproperlyConfigured(
        " and ".join(missing_settings()) + " must be set in production (see docs/deploy.md)"
    )

SECRET_KEY = os.environ["DJANGO_SECRET_KEY"]
ALLOWED_HOSTS = _list("DJANGO_ALLOWED_HOSTS")
# The https origins a TLS proxy serves the site under ("https://rules.example.org"): the admin's
# POSTs carry them and Django's CSRF check compares them with the Host it sees.
CSRF_TRUSTED_ORIGINS = _list("DJANGO_CSRF_TRUSTED_ORIGINS")
# The header a TLS proxy sets to say the client used https ("X-Forwarded-Proto"): built URLs are
# then https and the SSL redirect does not loop. Set it only behind a proxy that always sets it.
if os.environ.get("DJANGO_SECURE_PROXY_SSL_HEADER"):
    _header = os.environ["DJANGO_SECURE_PROXY_SSL_HEADER"].strip().upper().replace("-", "_")
    SECURE_PROXY_SSL_HEADER = (f"HTTP_{_header}", "https")

# http → https here, unless the TLS proxy does it (DJANGO_SECURE_SSL_REDIRECT=0: check --deploy's
# reminder about it is then silenced on purpose, the proxy being the one that redirects).
SECURE_SSL_REDIRECT = _flag("DJANGO_SECURE_SSL_REDIRECT", True)
if not SECURE_SSL_REDIRECT:
    SILENCED_SYSTEM_CHECKS = ["security.W008"]
SECURE_HSTS_SECONDS = int(os.environ.get("DJANGO_HSTS_SECONDS", 365 * 24 * 3600))
SECURE_HSTS_INCLUDE_SUBDOMAINS = _flag("DJANGO_HSTS_INCLUDE_SUBDOMAINS", True)
SECURE_HSTS_PRELOAD = _flag("DJANGO_HSTS_PRELOAD", True)
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SESSION_COOKIE_HTTPONLY = True
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

# Static files: `make serve` collects them into STATIC_ROOT (var/static) with hashed names and
# gzip/brotli copies; whitenoise serves them from the app server, far-future cached.
# Right after SecurityMiddleware: its redirect and headers cover the static files too.
_AFTER = MIDDLEWARE.index("django.middleware.security.SecurityMiddleware") + 1
MIDDLEWARE = [
    *MIDDLEWARE[:_AFTER],
    "whitenoise.middleware.WhiteNoiseMiddleware",
    *MIDDLEWARE[_AFTER:],
]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

# A Host outside DJANGO_ALLOWED_HOSTS answers 400; the log says so in one line, without the
# traceback Django attaches (config.logfilters).
LOGGING = {
    **LOGGING,
    "filters": {"without_traceback": {"()": "config.logfilters.WithoutTraceback"}},
    "loggers": {
        **LOGGING.get("loggers", {}),
        "django.security.DisallowedHost": {"filters": ["without_traceback"]},
    },
}
