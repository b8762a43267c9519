"""Settings shared by every environment; overlays (test, prod) import this and adjust.

Everything that differs between machines comes from the environment: DATABASE_URL (SQLite file by
default, PostgreSQL when given), KB_DATA_DIR (the shared archive `make run` imports), KB_INDEX_DIR
(the search index folder).
"""

from __future__ import annotations

import os
from pathlib import Path

import dj_database_url
from django.utils.translation import gettext_lazy as _

from config import languages

BASE_DIR = Path(__file__).resolve().parent.parent.parent
VAR_DIR = Path(os.environ.get("KB_VAR_DIR", BASE_DIR / "var"))

SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "dev-only-not-secret")
DEBUG = os.environ.get("DJANGO_DEBUG", "1") == "1"
ALLOWED_HOSTS = os.environ.get("DJANGO_ALLOWED_HOSTS", "127.0.0.1,localhost,testserver").split(",")

INSTALLED_APPS = [
    "modeltranslation",  # must precede django.contrib.admin
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "ninja",  # its templates and static files: /api/docs served offline (no CDN)
    "search",
    "kb",
    "rulings",
    "simple_history",
    "audit",  # after kb and rulings: it registers their models' history
    "roles",  # last: its groups are set up after the other apps' migrations
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "kb.web.page_cache.PageCache",  # whole anonymous pages, keyed by the data's stamps (CACHES)
    "csp.middleware.CSPMiddleware",  # the Content-Security-Policy below
    "django.middleware.http.ConditionalGetMiddleware",  # ETag on every page, 304 when unchanged
    "kb.web.http_cache.CacheHeaders",  # Cache-Control: release-pinned long, `current` revalidated
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "simple_history.middleware.HistoryRequestMiddleware",  # who made an edit
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "kb.web.error_pages.SiteNotFound",  # last: the middlewares above still see the 404 status
]
if os.environ.get("DATABASE_REPLICA_URL"):
    MIDDLEWARE.insert(0, "config.routers.ReplicaReads")  # config/routers.py

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.i18n",
                "kb.web.context_processors.site",
            ],
        },
    },
]

DEFAULT_SQLITE = f"sqlite:///{VAR_DIR / 'kb.sqlite3'}"
if "DATABASE_URL" not in os.environ:
    VAR_DIR.mkdir(parents=True, exist_ok=True)  # a fresh clone has no var/ yet
DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL", DEFAULT_SQLITE), conn_max_age=60
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL lets readers work while the importer writes; the busy timeout makes a second writer wait
    # instead of failing with "database is locked".
    DATABASES["default"]["OPTIONS"] = {
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        "timeout": 20,
        "transaction_mode": "IMMEDIATE",
    }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# A PostgreSQL read replica for the public pages (docs/deploy.md, "Several nodes"): reads of
# GET/HEAD requests outside the admin go to it, everything else to the primary.
if os.environ.get("DATABASE_REPLICA_URL"):
    DATABASES["replica"] = dj_database_url.parse(
        os.environ["DATABASE_REPLICA_URL"], conn_max_age=60
    )
    DATABASES["replica"]["TEST"] = {"MIRROR": "default"}
    DATABASE_ROUTERS = ["config.routers.ReplicaRouter"]

# The site's languages are declared once, in config/languages.py.
LANGUAGE_CODE = languages.SOURCE
LANGUAGES = [(lang.code, _(lang.name)) for lang in languages.LANGUAGES]
MODELTRANSLATION_DEFAULT_LANGUAGE = languages.SOURCE
MODELTRANSLATION_LANGUAGES = languages.CODES
# (code, analyzer) of each language, for the search engine (it imports nothing of the site).
SEARCH_LANGUAGES = tuple((lang.code, lang.analyzer) for lang in languages.LANGUAGES)
# Rule and glossary texts must never show English as if it were French: fallbacks are off for
# them (see kb/translation.py); only set names fall back to English.
MODELTRANSLATION_FALLBACK_LANGUAGES: tuple[str, ...] = ()
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "static"

KB_DATA_DIR = Path(os.environ.get("KB_DATA_DIR", BASE_DIR.parent / "shared" / "data"))
# The seed documents (../shared/seeds): `make run` loads the official material they hold (the
# French rule 602 of 2010, The Peregrine Dynamo's rulings) on top of the real data.
KB_SEEDS_DIR = Path(os.environ.get("KB_SEEDS_DIR", BASE_DIR.parent / "shared" / "seeds"))
KB_INDEX_DIR = Path(os.environ.get("KB_INDEX_DIR", VAR_DIR / "index"))
# Where `manage.py export_data` writes the bulk export and the downloads page serves it from.
KB_EXPORT_DIR = Path(os.environ.get("KB_EXPORT_DIR", VAR_DIR / "exports"))
# The search backend (search.backend.SearchBackend) and whether a commit that changes indexed
# data drains the outbox right away (else `manage.py index_worker` or the next writer does).
KB_SEARCH_BACKEND = os.environ.get(
    "KB_SEARCH_BACKEND", "search.backends.whoosh.backend.WhooshBackend"
)
KB_SEARCH_AUTO_DRAIN = os.environ.get("KB_SEARCH_AUTO_DRAIN", "1") == "1"
# A web process warms the search index in a thread when it starts (config/wsgi.py).
KB_SEARCH_WARM_UP = os.environ.get("KB_SEARCH_WARM_UP", "1") == "1"
# The semantic retriever (search/semantic): where `make install` puts the encoder's weights
# (one copy for every var folder), and whether question-shaped queries use it at all.
KB_MODEL_DIR = Path(os.environ.get("KB_MODEL_DIR", BASE_DIR / "var" / "models"))
KB_SEMANTIC = os.environ.get("KB_SEMANTIC", "1") == "1"
# Questions embedded in a child process of each web process (search.semantic.query_process),
# beside the lexical search on another core; "0": in a thread of the web process.
KB_SEMANTIC_QUERY_PROCESS = os.environ.get("KB_SEMANTIC_QUERY_PROCESS", "1") == "1"
# The day the site reads as today (kb.models.releases.today), unset: the real one.
KB_TODAY = os.environ.get("KB_TODAY") or None
# The page cache's bound in bytes (kb.web.page_cache).
KB_PAGE_CACHE_MAX_BYTES = int(os.environ.get("KB_PAGE_CACHE_MAX_BYTES", str(256 * 1024 * 1024)))

# Content-Security-Policy (django-csp 4): nothing inline, nothing from another site. The pages
# load their scripts and styles from static files (no <script> without src, no on*= handler,
# no style attribute); Swagger UI at /api/docs draws its icons as data: images. Django's own
# debug pages (DEBUG with a 404 or 500) are left without it by django-csp.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}

# HTTP caching (kb/web/http_cache.py): pages and API answers pinned to a release may be kept this
# long by browsers and proxies (an admin edit of an old release's text shows after it, or
# at once on a revalidation: every answer carries an ETag of its content).
KB_PINNED_MAX_AGE = int(os.environ.get("KB_PINNED_MAX_AGE", 24 * 3600))


# Caches: `default` (per process) holds fragments, diffs and the search throttle's counts;
# `pages` holds whole anonymous pages and API answers (kb/web/page_cache.py), keyed by the data's
# stamps and purged by imports and edits. KB_PAGE_CACHE picks its store: `file` (default:
# VAR_DIR/page-cache, shared by the app server's workers), `locmem` (per process),
# `redis://host:6379/1` (pip install redis) or `memcached://host:11211` (pip install
# pymemcache) to share it between machines, `off` for none.
def page_cache(spec: str, folder: Path) -> dict[str, object]:
    """The `pages` alias described by KB_PAGE_CACHE."""
    spec = spec.strip()
    if spec in ("off", "none", "0"):
        return {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}
    if spec == "locmem":
        return {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": "kb-pages",
            "OPTIONS": {"MAX_ENTRIES": 5000},
        }
    if spec.startswith(("redis://", "rediss://")):
        return {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": spec}
    if spec.startswith("memcached://"):
        return {
            "BACKEND": "django.core.cache.backends.memcached.PyMemcacheCache",
            "LOCATION": spec.removeprefix("memcached://"),
        }
    if spec in ("", "file"):
        return {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(folder),
            "OPTIONS": {"MAX_ENTRIES": 50_000},
        }
    raise ValueError(f"KB_PAGE_CACHE: {spec!r} is not file, locmem, off, redis:// or memcached://")


CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
    "pages": page_cache(os.environ.get("KB_PAGE_CACHE", "file"), VAR_DIR / "page-cache"),
}
# The default cache every node shares when the site runs on several (docs/deploy.md, "Several
# nodes"): DJANGO_CACHE_BACKEND=django.core.cache.backends.redis.RedisCache (or PyMemcacheCache,
# or db.DatabaseCache) and DJANGO_CACHE_LOCATION; unset, each process keeps its own.
if os.environ.get("DJANGO_CACHE_BACKEND"):
    CACHES["default"] = {
        "BACKEND": os.environ["DJANGO_CACHE_BACKEND"],
        "LOCATION": os.environ.get("DJANGO_CACHE_LOCATION", ""),
    }
# The search throttle's counts (kb.sitesearch.throttling): shared by every worker, so a client
# gets the rate it is given, not that rate times the workers: the shared default cache where
# there is one (several nodes), else files every worker of this machine reads.
CACHES["throttle"] = (
    CACHES["default"]
    if os.environ.get("DJANGO_CACHE_BACKEND")
    else {
        "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
        "LOCATION": str(VAR_DIR / "throttle"),
        "OPTIONS": {"MAX_ENTRIES": 20_000},
    }
)

# Search throttling per client (kb/sitesearch/throttling.py), for the search page and
# /api/v1/search: "N/s|min|hour|day", or empty for none. Counted in the default cache (per
# process with the local-memory cache; a shared cache makes it per site). Behind a proxy,
# KB_NUM_PROXIES says how many X-Forwarded-For hops to trust (0: the peer address).
KB_SEARCH_THROTTLE = os.environ.get("KB_SEARCH_THROTTLE", "120/min") or None
NINJA_NUM_PROXIES = int(os.environ.get("KB_NUM_PROXIES", "0"))

# Under DEBUG a view's error shows the site's own 500 page (kb.web.error_pages), the traceback in
# the log; 1 shows Django's technical page instead, for debugging.
KB_TECHNICAL_500 = os.environ.get("KB_TECHNICAL_500", "") == "1"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("KB_LOG_LEVEL", "WARNING")},
    # Django's own records go to the root's handler only: its default console handler (on
    # under DEBUG) printed each of them a second time ("Not Found: …" twice under runserver).
    "loggers": {"django": {"handlers": [], "level": "INFO", "propagate": True}},
}
