"""Cache-Control for reading pages and API answers (issue 16).

A page or API answer pinned to a loaded release (`/en/2019-05-03/rules/602/`,
`/api/v1/rules/602.2a?release=2019-05-03`) keeps its text until that release is re-imported or
a maintainer edits one of its texts; only its links to other releases grow when a new release
is imported. Browsers and proxies may keep it for KB_PINNED_MAX_AGE (a day by default: not
`immutable`, since such edits and links do happen).
Everything else (`current` pages, searches, the home page) may be kept too but is revalidated
on every use, so the next import or admin edit shows at once. Django's ConditionalGetMiddleware
(outside this one) gives every answer an ETag of its content and answers a matching
If-None-Match with 304: the ETag changes exactly when the page does, whatever changed it
(an import, an admin edit, a ruling), which no archive-wide stamp could promise.

A signed-in user's pages may differ (staff see anomalies): they are private, never shared.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils.cache import patch_cache_control, patch_vary_headers

from kb.models import Release
from kb.selectors import today

API_PREFIX = "/api/v1/"
#: The API answers about rules texts alone: a search or a rule's rulings also read the cards,
#: which imports change without a release, so they are revalidated like `current` answers.
PINNABLE_API = ("/api/v1/rules/", "/api/v1/diff", "/api/v1/glossary")
#: The URL arguments and API parameters that name a release (a diff names two).
#: A rule's history lists the versions of later releases too: the next import adds to it.
UNPINNED_API = ("/rulings", "/history")
UNPINNED_PAGES = frozenset({"history"})
RELEASE_ARGUMENTS = ("release", "old", "new")
API_RELEASE_PARAMETERS = ("release", "from", "to")


class CacheHeaders:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if (
            request.method not in ("GET", "HEAD")
            or response.status_code != 200
            or response.has_header("Cache-Control")  # the admin's never_cache, a view's own
            or not _is_reading(request)
        ):
            return response
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            patch_cache_control(response, private=True, no_cache=True)
        elif is_pinned(request):
            patch_cache_control(response, public=True, max_age=settings.KB_PINNED_MAX_AGE)
        else:
            patch_cache_control(response, public=True, no_cache=True)
        patch_vary_headers(response, ["Cookie"])
        return response


def _is_reading(request: HttpRequest) -> bool:
    """The site's reading pages and its JSON API (not the admin, not the API docs)."""
    match = getattr(request, "resolver_match", None)
    if match is None:
        return False
    if request.path.startswith(API_PREFIX):
        return True
    return bool(set(match.namespaces) & {"kb", "rulings"})


def is_pinned(request: HttpRequest) -> bool:
    """Whether the answer is about loaded releases only, named by their dates (never
    `current`, nor a date that stands for the release in force on it: the next import may
    change what that date answers; nor a release still to come, whose page says so until
    its date)."""
    if request.path.startswith(API_PREFIX):
        if not request.path.startswith(PINNABLE_API) or request.path.endswith(UNPINNED_API):
            return False
        named = [request.GET.get(p, "") for p in API_RELEASE_PARAMETERS if p in request.GET]
    else:
        if request.resolver_match.url_name in UNPINNED_PAGES:
            return False
        kwargs = request.resolver_match.kwargs
        named = [kwargs[a] for a in RELEASE_ARGUMENTS if a in kwargs]
    if not named:
        return False
    dates = []
    for token in named:
        try:
            dates.append(dt.date.fromisoformat(token))
        except ValueError:
            return False  # `current`, or something the view resolved otherwise
    if max(dates) > today():
        return False  # a release to come: its "not in force yet" goes on its date
    loaded = set(
        Release.objects.filter(effective_date__in=dates).values_list("effective_date", flat=True)
    )
    return loaded == set(dates)
