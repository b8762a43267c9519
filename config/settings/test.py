"""Test overlay: a throwaway database and index under var/ unless told otherwise.

The SQLite test database is a file (not in memory) so that browser tests can serve it from a
separate server process once the session has imported the archive into it.
"""

from config.settings.base import *  # noqa: F403
from config.settings.base import DATABASES, VAR_DIR, page_cache

DEBUG = False
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
KB_INDEX_DIR = VAR_DIR / "test-index"
# The session's fixtures import the archive and the cards once; the search tests build the
# index once from them (tests/conftest.py) rather than on every commit.
KB_SEARCH_AUTO_DRAIN = False
# No warm-up thread when a web process starts (tests time nothing; it is tested on its own).
# A searcher replacing another is still warmed in the background, as in production.
KB_SEARCH_WARM_UP = False
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test-kb.sqlite3")}
# The page cache in memory: each test session starts empty (a file store would outlive it).
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
    "pages": page_cache("locmem", VAR_DIR / "test-page-cache"),
    "throttle": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "kb-t"},
}
# Search throttling is off in tests, except where a test turns it on.
KB_SEARCH_THROTTLE = None
# The semantic retriever is off: the tests of search results measure the lexical engine, and
# the whole release's vectors take minutes. tests/kb/sitesearch/test_meaning.py turns it on
# over a few passages.
KB_SEMANTIC = False
