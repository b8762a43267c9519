"""The site's own "not found", "forbidden", "bad request" and "server error" pages for every
address, DEBUG or not (a view's error under DEBUG still logs its traceback; KB_TECHNICAL_500=1
brings Django's technical page back for debugging); and "busy" (503, not 500) while an import
holds SQLite's write lock.

An error keeps its meaning under DEBUG: a maintainer opening a page the role does not allow
(PermissionDenied) is answered 403, a request Django refuses to read (1,100 fields, a body too
large: SuspiciousOperation, BadRequest) 400, as in production, each with the site's page in
the reader's language. What fails outside a view (a Host not allowed) reaches handler400
(bad_request_page) and Django's handler403 (templates/403.html) in production; under DEBUG
Django answers those with its technical pages, their status kept.

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
from django.core.exceptions import (
    BadRequest,
    DisallowedRedirect,
    PermissionDenied,
    RequestDataTooBig,
    SuspiciousOperation,
    TooManyFieldsSent,
    TooManyFilesSent,
)
from django.db.utils import OperationalError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.http.multipartparser import MultiPartParserError
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils.log import log_response
from django.utils.translation import gettext as _
from django.views.defaults import server_error

logger = logging.getLogger("django.request")

#: Seconds a client is asked to wait before trying again while the database is busy.
RETRY_AFTER = 15

API_PREFIX = "/api/"

#: What Django answers 400 (its handler400); SuspiciousOperation covers TooManyFieldsSent,
#: RequestDataTooBig and DisallowedHost.
BAD_REQUEST = (BadRequest, SuspiciousOperation, MultiPartParserError)


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
        if isinstance(exception, PermissionDenied):
            return forbidden(request, exception)
        if isinstance(exception, BAD_REQUEST):
            return bad_request(request, exception)
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


def forbidden(request: HttpRequest, exception: PermissionDenied) -> HttpResponse:
    """403 with the site's page in the reader's language (JSON under /api/): what Django's
    handler403 answers in production, under DEBUG too, where the error middleware would
    otherwise turn it into a 500."""
    if request.path.startswith(API_PREFIX):
        response: HttpResponse = JsonResponse({"detail": "Permission denied."}, status=403)
    else:
        response = render(request, "403.html", status=403)
    log_response(
        "Forbidden (Permission denied): %s", request.path,
        response=response, request=request, exception=exception,
    )  # fmt: skip
    return response


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """A view's request Django refuses to read: the 400 page, logged as Django logs it (a
    suspicious operation to `django.security.<name>`, an error)."""
    if isinstance(exception, (RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent)):
        request._mark_post_parse_error()  # type: ignore[attr-defined]  # reading again re-raises
    response = bad_request_page(request, exception)
    if isinstance(exception, SuspiciousOperation):
        security = logging.getLogger(f"django.security.{type(exception).__name__}")
        log_response(
            str(exception), response=response, request=request, exception=exception,
            level="error", logger=security,
        )  # fmt: skip
    else:
        log_response(
            "Bad request: %s", request.path,
            response=response, request=request, exception=exception,
        )  # fmt: skip
    return response


def bad_request_page(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """handler400 too: 400 with a message saying what was refused (too many fields, a body
    too large), in the reader's language (JSON under /api/). Rendered without the request's
    context (Django's own handler400 renders templates/400.html with it): the request may be
    the problem, a Host not allowed that the context processors' absolute URLs would raise
    again."""
    message = bad_request_message(exception)
    if request.path.startswith(API_PREFIX):
        return JsonResponse({"detail": message}, status=400)
    return HttpResponse(render_to_string("400.html", {"message": message}), status=400)


def bad_request_message(exception: Exception | None) -> str:
    """What the reader is told: the limit a request went over, or that it could not be read
    (never the exception's own text, which may echo what was sent)."""
    if isinstance(exception, TooManyFieldsSent):
        return _("The request has too many parameters: the site reads %(limit)s at most.") % {
            "limit": settings.DATA_UPLOAD_MAX_NUMBER_FIELDS
        }
    if isinstance(exception, TooManyFilesSent):
        return _("The request sends too many files: the site reads %(limit)s at most.") % {
            "limit": settings.DATA_UPLOAD_MAX_NUMBER_FILES
        }
    if isinstance(exception, RequestDataTooBig):
        return _("The request is too large for the site to read.")
    if isinstance(exception, DisallowedRedirect):
        # A page sending the reader on to its canonical address, the parameters kept: past
        # Django's limit on a redirect's length (16,384 characters).
        return _("This address is too long: the site cannot follow it.")
    return _("The site could not read this request.")
