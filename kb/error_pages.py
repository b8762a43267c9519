"""The site's own "not found" page for every address, DEBUG or not.

With DEBUG on (`make run`), Django answers an unknown address or a view's Http404 with its
technical page, which lists every URL pattern: a reader of the development site should see the
page the production site shows. Its place at the end of MIDDLEWARE matters: Django's locale and
common middlewares still see the 404 status and redirect to the language-prefixed or
slash-ended address where one exists.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

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
        return None


def not_found(request: HttpRequest, message: str = "") -> HttpResponse:
    if request.path.startswith(API_PREFIX):
        return JsonResponse({"detail": message or "Not Found"}, status=404)
    # The site's messages say what is missing ("No glossary entry “x” in this release.");
    # Django's own ("No Card matches the given query.") are not for readers.
    if message.endswith("matches the given query."):
        message = ""
    return render(request, "404.html", {"exception": message}, status=404)
