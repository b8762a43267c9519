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

Never cached: anything but GET/HEAD; a request carrying the session of a signed-in user
(staff, maintainers: checked against the session store, not guessed from the cookie's
presence) or pending messages; answers that are not 200, set a cookie, or are private,
no-store or streamed; the admin and the API docs (only the kb and rulings pages and /api/v1/).

What a page is kept under is what changes it: a view declares the query parameters it reads
(`reads`; the API's are those its OpenAPI schema declares) and the others are dropped before
the key is made and the view called, so parameters a page ignores make no new entries. The
store is bounded in bytes (`bound`, settings.KB_PAGE_CACHE_MAX_BYTES), not only in entries.

A search served from the cache still counts against the client's search throttle
(kb.sitesearch.throttling): over the limit, the view answers its 429 as before.

django-csp puts no nonce in these pages (the policy has no 'nonce-…' source and no template
asks for one: scripts and styles are static files), so a replayed Content-Security-Policy
header is the one a fresh answer would carry.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import logging
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from importlib import import_module
from pathlib import Path
from typing import TypeVar

from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.core.cache import caches
from django.core.cache.backends.dummy import DummyCache
from django.core.cache.backends.filebased import FileBasedCache
from django.core.cache.backends.locmem import LocMemCache
from django.core.exceptions import DisallowedHost
from django.db import connection, connections, router
from django.http import HttpRequest, HttpResponse, QueryDict
from django.urls import Resolver404, resolve
from django.utils import translation
from django.utils.cache import get_conditional_response
from django.utils.translation import get_language_from_request

from kb import hooks, selectors, stamps
from kb.french import glosses
from kb.models import Release, VocabularyTerm
from kb.stamps import archive_state_sql
from search.models import IndexOutbox

log = logging.getLogger(__name__)
_View = TypeVar("_View")

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
    with _sizes_lock:
        _sizes.clear()


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
        if not may_read(request):
            return self.get_response(request)
        keep_read_parameters(request)  # before the key: the view sees what the key holds
        key = cache_key(request)
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
            frozen = _freeze(response)
            pages().set(key, frozen, timeout=None)
            bound(key, len(frozen[1]))
            response[HEADER] = "miss"
        return response


def _switched_off() -> bool:
    return isinstance(pages(), DummyCache)


def may_read(request: HttpRequest) -> bool:
    """An anonymous reader's GET or HEAD: not signed in (a session cookie alone does not
    make a reader signed in: see `signed_in`), no messages waiting, not the admin."""
    if request.method not in ("GET", "HEAD"):
        return False
    if request.path_info.startswith(("/admin/", "/static/", "/api/docs")):
        return False
    if "messages" in request.COOKIES:
        return False
    return not signed_in(request)


def signed_in(request: HttpRequest) -> bool:
    """Whether the request carries the session of a signed-in user (or one holding messages):
    the only sessions whose pages differ. Any `sessionid` cookie used to skip the cache, so a
    made-up one (or a session left by a visit to the admin's login page) skipped it too.
    Cheap: the session engine's own lookup of one key (one indexed row for the database
    engine), the user not read: a session naming a user whose password has changed since is
    still treated as signed in, which only costs that reader the cache."""
    key = request.COOKIES.get(settings.SESSION_COOKIE_NAME)
    if not key:
        return False
    try:
        session = _session_store()(key)
        return session.get(SESSION_KEY) is not None or "_messages" in session
    except Exception:  # a session store that cannot answer: treat the reader as signed in
        log.warning("page cache: the session store did not answer", exc_info=True)
        return True


@functools.lru_cache(maxsize=1)
def _session_store() -> type:
    return import_module(settings.SESSION_ENGINE).SessionStore


# -- what a page reads of its address ---------------------------------------------------------

#: The attribute `reads` sets on a view: the query parameters that change its answer.
READS = "page_cache_reads"


def reads(*names: str) -> Callable[[_View], _View]:
    """Declare the query parameters a view reads (`@page_cache.reads("q", "page")`; none:
    `@page_cache.reads()`). For a declared view the page cache keeps only those parameters,
    in one order, and hands the view that address: `?q=x&utm_source=y` and `?utm=z&q=x` are
    one entry, not one per variant (300 variants of one address made 300 entries, 19 MB).
    An undeclared view is keyed on its whole query string, as it may read any of it."""

    def mark(view: _View) -> _View:
        setattr(view, READS, frozenset(names))
        return view

    return mark


def keep_read_parameters(request: HttpRequest) -> None:
    """Leave in the request only the query parameters its view declared (`reads`), in the
    order they came: the view never sees a parameter the key ignores, so a page kept holds
    nothing another address would not give (a search's page links echo its parameters).
    The key reads them sorted (cache_key): one entry whatever their order, whose links may
    list them in another order, the same address. Undeclared or unknown addresses are left
    as they are."""
    query = request.META.get("QUERY_STRING", "")
    if not query:
        return
    wanted = parameters_read(request)
    if wanted is None:
        return
    asked = QueryDict(query)
    kept = QueryDict(mutable=True)
    for name in asked:
        if name in wanted:
            kept.setlist(name, asked.getlist(name))
    normal = kept.urlencode()
    if normal != query:
        request.META["QUERY_STRING"] = normal
        request.GET = QueryDict(normal)


def parameters_read(request: HttpRequest) -> frozenset[str] | None:
    """The query parameters the request's view declared, None where it declared none or the
    address resolves to no view (the view answers it as it is)."""
    path = request.path_info
    if path.startswith(API_PREFIX):
        return _api_parameters().get(path) or _api_route_parameters(path)
    language = get_language_from_request(request, check_path=True)
    return _page_parameters(path, language)


@functools.lru_cache(maxsize=4096)
def _page_parameters(path: str, language: str) -> frozenset[str] | None:
    """Per address and language (resolving is the cost: a few dozen microseconds)."""
    with translation.override(language):
        try:
            match = resolve(path)
        except Resolver404:
            return None
    return getattr(match.func, READS, None)


@functools.lru_cache(maxsize=4096)
def _api_route_parameters(path: str) -> frozenset[str] | None:
    try:
        route = resolve(path).route
    except Resolver404:
        return None
    return _api_parameters().get("/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route))


#: The project's API schema (config.api hands it over: kb does not import the project's API).
_api_schema: list[Callable[[], dict]] = []


def declare_api(schema: Callable[[], dict]) -> None:
    """Called by config.api with its OpenAPI schema's builder: the API's query parameters
    (what an API answer's cache key keeps) are read from it on the first API request."""
    _api_schema[:] = [schema]
    _api_parameters.cache_clear()
    _api_route_parameters.cache_clear()


@functools.lru_cache(maxsize=1)
def _api_parameters() -> dict[str, frozenset[str]]:
    """The API's query parameters by path template ("/api/v1/rules/{number}"), as its
    OpenAPI schema declares them: a django-ninja operation reads those and no other."""
    if not _api_schema:
        return {}
    out: dict[str, frozenset[str]] = {}
    for path, operations in _api_schema[0]()["paths"].items():
        get = operations.get("get")
        if get is not None:
            names = (p["name"] for p in get.get("parameters", []) if p.get("in") == "query")
            out[path] = frozenset(names)
    return out


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
        _sorted_query(request.META.get("QUERY_STRING", "")),
        get_language_from_request(request, check_path=True),
        data_stamps(),
        glosses.vocabulary_stamp(),
    )
    digest = hashlib.blake2b(repr(parts).encode(), digest_size=16).hexdigest()
    return f"page-{digest}"


def _sorted_query(query: str) -> str:
    """The query string with its parameters sorted by name (each name's values in order)."""
    if "&" not in query:
        return query
    asked = QueryDict(query)
    return "&".join(f"{n}={asked.getlist(n)}" for n in sorted(asked))


def data_stamps() -> tuple[object, ...]:
    """In one query: the archive's stamp (kb.stamps.archive_generation's columns), the
    vocabulary's rows (count, last edit, last id: exact, where glosses.vocabulary_stamp is
    memoised for two seconds per process), the search outbox's state, the stamps other
    apps registered (kb.hooks.register_page_stamp), and the effective date of the release in
    force today (kb.selectors.today), which moves on its own when a release's date comes.

    The outbox: an edit is committed before the index applies it, so a search answered
    meanwhile is keyed apart from the answers given once the outbox is drained (the index is
    written before its entries are deleted).

    Read where the page's own reads go (a read replica, config.routers): a key taken from the
    primary while a lagging replica built the page would keep the old page under the new
    stamps until the next edit."""
    sql, params = _stamps_statement()
    db = connections[router.db_for_read(VocabularyTerm)]
    day = db.ops.adapt_datefield_value(selectors.today())
    with db.cursor() as cursor:
        cursor.execute(sql, (*params, day))
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
    # Last, its parameter today's date (data_stamps): the release in force today, so that a
    # release loaded ahead of its date becomes `current` in every cached page on that date.
    release = q(Release._meta.db_table)
    columns.append(f"(SELECT MAX(effective_date) FROM {release} WHERE effective_date <= %s)")
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
    from kb.sitesearch.throttling import retry_after

    return retry_after(request) is not None


# -- a bound in bytes ------------------------------------------------------------------------

#: The most the page cache may hold, in bytes (settings.KB_PAGE_CACHE_MAX_BYTES): its
#: entries are whole pages (a chapter is hundreds of KB), so a bound in entries alone
#: (50,000 files) allowed some 3 GB of disk. Past it, the oldest entries go.
DEFAULT_MAX_BYTES = 256 * 1024 * 1024
#: After a cull, the store is brought down to this share of the bound (not one entry under
#: it, which would cull again at the next store).
CULL_TO = 0.8
#: The share of the bound a process stores between two looks at the folder's size.
LOOK_EVERY = 1 / 16

_sizes_lock = threading.Lock()
#: Per process: bytes stored since the folder was last measured; for a store in this
#: process's memory, each key's size, oldest first.
_written = [0]
_sizes: OrderedDict[str, int] = OrderedDict()


def max_bytes() -> int:
    return int(getattr(settings, "KB_PAGE_CACHE_MAX_BYTES", DEFAULT_MAX_BYTES))


def bound(key: str, size: int) -> None:
    """Keep the page cache under `max_bytes` after storing `size` bytes under `key`.

    A file store (the default, shared by the workers of a machine): its folder is measured
    once every LOOK_EVERY of the bound written by this process, and the least recently
    written files go down to CULL_TO of it (a reader of a removed file just misses). A store
    in this process's memory: its entries' sizes are counted here, exactly. A shared server
    (Redis, Memcached) bounds its own memory (maxmemory, -m)."""
    store = pages()
    limit = max_bytes()
    if isinstance(store, FileBasedCache):
        with _sizes_lock:
            _written[0] += size
            due = _written[0] >= limit * LOOK_EVERY
            if due:
                _written[0] = 0
        if due:
            _cull_folder(Path(settings.CACHES[ALIAS]["LOCATION"]), limit)
    elif isinstance(store, LocMemCache):
        with _sizes_lock:
            _sizes.pop(key, None)
            _sizes[key] = size
            total = sum(_sizes.values())
            dropped = []
            while total > limit and _sizes:
                old, old_size = _sizes.popitem(last=False)
                total -= old_size
                dropped.append(old)
        store.delete_many(dropped)


def _cull_folder(folder: Path, limit: int) -> None:
    files = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.name.endswith(FileBasedCache.cache_suffix):
                    try:
                        stat = entry.stat()
                    except FileNotFoundError:
                        continue
                    files.append((stat.st_mtime, stat.st_size, entry.path))
    except FileNotFoundError:
        return
    total = sum(size for _, size, _ in files)
    if total <= limit:
        return
    files.sort()
    for _, size, path in files:
        if total <= limit * CULL_TO:
            break
        with contextlib.suppress(FileNotFoundError):
            os.remove(path)
        total -= size


def _freeze(response: HttpResponse) -> tuple[int, bytes, list[tuple[str, str]]]:
    headers = [(k, v) for k, v in response.items() if k.lower() not in SKIPPED_HEADERS]
    return (response.status_code, response.content, headers)


def _thaw(found: tuple[int, bytes, list[tuple[str, str]]]) -> HttpResponse:
    status, content, headers = found
    response = HttpResponse(content, status=status)
    for name, value in headers:
        response[name] = value
    return response
