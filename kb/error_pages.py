"""The site's own "not found" and "server error" pages for every address, DEBUG or not (a view's
error under DEBUG still logs its traceback; KB_TECHNICAL_500=1 brings Django's technical page
back for debugging); and "busy" (503, not 500) while an import holds SQLite's write lock.

With DEBUG on (`make run`), Django answers an unknown address or a view's Http404 with its
technical page, which lists every URL pattern: a reader of the development site should see the
page the production site shows. Its place at the end of MIDDLEWARE matters: Django's locale and
common middlewares still see the 404 status and redirect to the language-prefixed or
slash-ended address where one exists.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable

from django.conf import settings
from django.db.utils import OperationalError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.views.defaults import server_error

logger = logging.getLogger("django.request")

#: Seconds a client is asked to wait before trying again while the database is busy.
RETRY_AFTER = 15

API_PREFIX = "/api/"


class SiteNotFound:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if response.status_code == 404 and getattr(request, "resolver_match", None) is None:
            return not_found(request)  # no address matched: no view answered
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, Http404):
            return not_found(request, str(exception))
        if is_busy(exception):
            return busy(request)
        if settings.DEBUG and not settings.KB_TECHNICAL_500:
            # `make run`: the page production shows (the reader's language, the site's
            # layout), the traceback in the console as Django would log it.
            logger.error(
                "Internal Server Error: %s", request.path, exc_info=exception,
                extra={"status_code": 500, "request": request},
            )  # fmt: skip
            response = server_error(request)
            response._has_been_logged = True  # Django would log it again, without traceback
            return response
        return None


def is_busy(exception: BaseException | None) -> bool:
    """SQLite's write lock held longer than the busy timeout (an import runs as one
    transaction per release or card file): the request may succeed a little later."""
    return isinstance(exception, OperationalError) and "database is locked" in str(exception)


def busy(request: HttpRequest) -> HttpResponse:
    """503 with Retry-After, in the reader's language (JSON under /api/): a maintainer's save
    that met an import is refused, never half-done (the transaction rolled back)."""
    if request.path.startswith(API_PREFIX):
        response: HttpResponse = JsonResponse(
            {"detail": "The database is busy (an import is running): try again shortly."},
            status=503,
        )
    else:
        # No request context: its processors would read the database that is busy.
        html = render_to_string("503.html", {"retry_after": RETRY_AFTER})
        response = HttpResponse(html, status=503)
    response["Retry-After"] = str(RETRY_AFTER)
    return response


def server_error_page(request: HttpRequest) -> HttpResponse:
    """handler500: what no view caught (a session saved after the view, say) while the
    database was busy is a 503 too; anything else Django's 500 page (templates/500.html)."""
    if is_busy(sys.exc_info()[1]):
        return busy(request)
    return server_error(request)


def not_found(request: HttpRequest, message: str = "") -> HttpResponse:
    if request.path.startswith(API_PREFIX):
        return JsonResponse({"detail": message or "Not Found"}, status=404)
    # The site's messages say what is missing ("No glossary entry “x” in this release.");
    # Django's own ("No Card matches the given query.") are not for readers.
    if message.endswith("matches the given query."):
        message = ""
    return render(request, "404.html", {"exception": message}, status=404)
