"""Search throttling per client, for the search page and /api/v1/search (issue 16).

A search is the most expensive request the site answers; a client sending them in a loop
would slow every reader. One mechanism for both: django-ninja's cache-based throttle (a
sliding log of the client's recent requests in the `throttle` cache, shared by the workers),
which the API uses as its `throttle=` and the search page calls itself. The rate comes from
settings.KB_SEARCH_THROTTLE (read on every request, so it can be changed by a test or an
override), None for none.
"""

from __future__ import annotations

import math
import threading

from django.conf import settings
from django.core.cache import BaseCache, caches
from django.http import HttpRequest
from ninja.throttling import BaseThrottle, SimpleRateThrottle

SCOPE = "search"


class _ClientLog(SimpleRateThrottle):
    """One client's recent searches (a new one per request: the throttle keeps state)."""

    scope = SCOPE

    @property
    def cache(self) -> BaseCache:  # type: ignore[override]
        """The `throttle` alias (config.settings): one count per client for all workers."""
        return caches["throttle"]

    def get_cache_key(self, request: HttpRequest) -> str:
        # Every client is counted, signed in or not: a search costs the same.
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class SearchThrottle(BaseThrottle):
    """The throttle the search API declares; thread-safe (ninja shares one per operation)."""

    def __init__(self) -> None:
        self._last = threading.local()

    def allow_request(self, request: HttpRequest) -> bool:
        rate = settings.KB_SEARCH_THROTTLE
        if not rate:
            return True
        log = _ClientLog(rate)
        self._last.log = log
        return log.allow_request(request)

    def wait(self) -> float | None:
        log = getattr(self._last, "log", None)
        return log.wait() if log is not None else None


def retry_after(request: HttpRequest) -> int | None:
    """None when the client may search now, else the seconds to wait (at least 1): what the
    search page answers with a 429 page and a Retry-After header."""
    throttle = SearchThrottle()
    if throttle.allow_request(request):
        return None
    wait = throttle.wait()
    return max(1, math.ceil(wait)) if wait is not None else 1
