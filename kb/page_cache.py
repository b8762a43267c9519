"""Whole reading pages and API answers kept in one cache alias, `pages` (issue 16).

A reading page costs 30 to 300 ms to build (a chapter, a diff, a search) and is the same for
every anonymous reader until the archive, the cards or the vocabulary change. This middleware
keeps the finished answer (body and the headers that matter: type, language, Vary, ETag,
Cache-Control, Content-Security-Policy) and gives it back without touching the view.

Correctness does not rest on purging: the key holds the stamps of everything a page shows
(kb.stamps.archive_generation's, the vocabulary's and the stamps other apps register in
kb.hooks, the rulings app's for cards and rulings; the search outbox's state, since the index
follows a commit a moment later), so an import or an edit committed by any
process changes every key at once, even with a per-process cache. Imports and edits also
clear the alias (`purge`), so a shared store (files, Redis, Memcached) does not fill with dead
entries. `current` pages thus stay cached until the next import or edit; pages pinned to a
release are cached the same way (no expiry: their key only moves when the data does).

Never cached: anything but GET/HEAD; a request carrying a session (staff, signed-in users,
anything the admin set up) or pending messages; answers that are not 200, set a cookie, or
are private, no-store or streamed; the admin and the API docs (only the kb and rulings pages
and /api/v1/). A search served from the cache still counts against the client's search
throttle (kb.sitesearch.throttling): over the limit, the view answers its 429 as before.

django-csp puts no nonce in these pages (the policy has no 'nonce-…' source and no template
asks for one: scripts and styles are static files), so a replayed Content-Security-Policy
header is the one a fresh answer would carry.
"""

from __future__ import annotations

import functools
import hashlib
import re
import threading
from collections.abc import Callable

from django.conf import settings
from django.core.cache import caches
from django.core.cache.backends.dummy import DummyCache
from django.core.exceptions import DisallowedHost
from django.db import connection, connections, router
from django.http import HttpRequest, HttpResponse
from django.utils.cache import get_conditional_response
from django.utils.translation import get_language_from_request

from search.models import IndexOutbox

from . import glosses, hooks, stamps
from .models import VocabularyTerm
from .stamps import archive_state_sql

ALIAS = "pages"
#: The header saying whether an answer came from the page cache ("hit") or was built ("miss").
HEADER = "X-Page-Cache"
READING_NAMESPACES = frozenset({"kb", "rulings"})
#: Pages that read files, not the database: the downloads page lists the last export.
NEVER = frozenset({"downloads"})
API_PREFIX = "/api/v1/"
#: Searches that count against the per-client throttle (the page with a query, the API).
THROTTLED = re.compile(r"^/(?:[a-z]{2}(?:-[a-z]+)?/search/|api/v1/search)$")
#: Headers a cached answer does not replay (per answer, or set again on the way out).
SKIPPED_HEADERS = frozenset({"set-cookie", "date", HEADER.lower()})


_answer = threading.local()


def do_not_store() -> None:
    """Keep the answer being built out of the page cache: it says something passing (the
    search index is missing or being built) that no stamp in the key would clear."""
    _answer.storable = False


def pages():
    """The page cache alias."""
    return caches[ALIAS]


def purge() -> None:
    """Empty the page cache (after an import or a maintainer's edit): the keys have moved
    already; this drops the dead entries a shared store would otherwise keep."""
    pages().clear()


def purge_on_signal(**_kwargs: object) -> None:
    """kb.signals.release_changed and text_edited (sent after the commit): purge."""
    purge()


class PageCache:
    """Placed right after SecurityMiddleware (and whitenoise): a hit skips the session,
    locale, CSRF, auth and messages middlewares and the view; the answer it stores is the one
    the middlewares inside it finished (ETag, Cache-Control, CSP)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method not in ("GET", "HEAD"):
            return self._answer(request)
        with stamps.remembered():  # the archive's stamp read once a reading request
            return self._answer(request)

    def _answer(self, request: HttpRequest) -> HttpResponse:
        if _switched_off():  # KB_PAGE_CACHE=off: no stamps read for a cache that keeps nothing
            return self.get_response(request)
        key = cache_key(request) if may_read(request) else None
        if key is None:
            return self.get_response(request)
        found = pages().get(key)
        if found is not None and not _throttled(request):
            response = _thaw(found)
            response[HEADER] = "hit"
            # ConditionalGetMiddleware is inside: answer If-None-Match here the same way.
            return get_conditional_response(request, etag=response.get("ETag"), response=response)
        _answer.storable = True
        response = self.get_response(request)
        if request.method == "GET" and _answer.storable and may_store(request, response):
            pages().set(key, _freeze(response), timeout=None)
            response[HEADER] = "miss"
        return response


def _switched_off() -> bool:
    return isinstance(pages(), DummyCache)


def may_read(request: HttpRequest) -> bool:
    """An anonymous reader's GET or HEAD: no session (staff and signed-in users have one),
    no messages waiting, not the admin."""
    if request.method not in ("GET", "HEAD"):
        return False
    cookies = request.COOKIES
    if settings.SESSION_COOKIE_NAME in cookies or "messages" in cookies:
        return False
    return not request.path_info.startswith(("/admin/", "/static/", "/api/docs"))


def cache_key(request: HttpRequest) -> str | None:
    """Address, host and scheme (pages print absolute URLs), language, and the stamps of the
    data pages show. None for a host Django would refuse (the view path answers it)."""
    try:
        host = request.get_host()
    except DisallowedHost:
        return None
    parts = (
        request.scheme,
        host,
        request.path,
        request.META.get("QUERY_STRING", ""),
        get_language_from_request(request, check_path=True),
        data_stamps(),
        glosses.vocabulary_stamp(),
    )
    digest = hashlib.blake2b(repr(parts).encode(), digest_size=16).hexdigest()
    return f"page-{digest}"


def data_stamps() -> tuple[object, ...]:
    """In one query: the archive's stamp (kb.stamps.archive_generation's columns), the
    vocabulary's rows (count, last edit, last id: exact, where glosses.vocabulary_stamp is
    memoised for two seconds per process), the search outbox's state, and the stamps other
    apps registered (kb.hooks.register_page_stamp).

    The outbox: an edit is committed before the index applies it, so a search answered
    meanwhile is keyed apart from the answers given once the outbox is drained (the index is
    written before its entries are deleted).

    Read where the page's own reads go (a read replica, config.routers): a key taken from the
    primary while a lagging replica built the page would keep the old page under the new
    stamps until the next edit."""
    sql, params = _stamps_statement()
    with connections[router.db_for_read(VocabularyTerm)].cursor() as cursor:
        cursor.execute(sql, params)
        row = tuple(cursor.fetchone())
    stamps.remember(row[: stamps.archive_column_count()])  # its first: archive_state_sql's
    return row


@functools.lru_cache(maxsize=1)
def _stamps_statement() -> tuple[str, tuple[object, ...]]:
    """Built once per process: compiling querysets costs more than running this statement."""
    q = connection.ops.quote_name
    vocabulary, outbox = (q(m._meta.db_table) for m in (VocabularyTerm, IndexOutbox))
    columns = [
        archive_state_sql(),
        f"(SELECT COUNT(*) FROM {vocabulary}), (SELECT MAX(edited_at) FROM {vocabulary}), "
        f"(SELECT MAX(id) FROM {vocabulary})",
        f"(SELECT COUNT(*) FROM {outbox}), (SELECT MAX(id) FROM {outbox})",
    ]
    params: list[object] = []
    for queryset in hooks.page_stamps():
        sql, more = queryset.query.sql_with_params()
        columns.append(f"({sql})")
        params.extend(more)
    return "SELECT " + ", ".join(columns), tuple(params)


def may_store(request: HttpRequest, response: HttpResponse) -> bool:
    """A complete, public 200 of a reading page or API answer that sets no cookie, built for
    an anonymous reader with no message pending."""
    if response.status_code != 200 or response.streaming or response.cookies:
        return False
    control = response.get("Cache-Control", "")
    if any(word in control for word in ("private", "no-store")):
        return False
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return False
    storage = getattr(request, "_messages", None)
    if storage is not None and getattr(storage, "_queued_messages", None):
        return False
    match = getattr(request, "resolver_match", None)
    if match is None or match.url_name in NEVER:
        return False
    if request.path.startswith(API_PREFIX):
        return True
    return bool(set(match.namespaces) & READING_NAMESPACES)


def _throttled(request: HttpRequest) -> bool:
    """A cached search still counts against the client's search throttle; over it, the view
    answers (its own check refuses without counting again)."""
    if not settings.KB_SEARCH_THROTTLE or not THROTTLED.match(request.path):
        return False
    if request.path.endswith("/search/") and not request.GET.get("q", "").strip():
        return False  # the bare search form is not counted
    from .sitesearch.throttling import retry_after

    return retry_after(request) is not None


def _freeze(response: HttpResponse) -> tuple[int, bytes, list[tuple[str, str]]]:
    headers = [(k, v) for k, v in response.items() if k.lower() not in SKIPPED_HEADERS]
    return (response.status_code, response.content, headers)


def _thaw(found: tuple[int, bytes, list[tuple[str, str]]]) -> HttpResponse:
    status, content, headers = found
    response = HttpResponse(content, status=status)
    for name, value in headers:
        response[name] = value
    return response
