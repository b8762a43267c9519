"""Site URLs: language-prefixed pages (/en/, /fr/), the admin and the JSON API.

`/` redirects to /en/ or /fr/ by the browser's language (LocaleMiddleware with i18n_patterns).
"""

from django.conf.urls.i18n import i18n_patterns
from django.contrib import admin
from django.http import HttpRequest, HttpResponseRedirect
from django.templatetags.static import static
from django.urls import include, path
from django.utils.cache import patch_cache_control

from config.api import api
from kb.web.downloads import download_file


def favicon(request: HttpRequest) -> HttpResponseRedirect:
    """Browsers and feed readers ask for /favicon.ico whatever the pages link: send them to the
    site's icon among the static files (its hashed name in production)."""
    response = HttpResponseRedirect(static("favicon.svg"))
    patch_cache_control(response, public=True, max_age=24 * 3600)
    return response


urlpatterns = [
    path("favicon.ico", favicon, name="favicon"),
    path("admin/", admin.site.urls),
    path("api/", api.urls),
    # The bulk export's files: one address whatever the page language.
    path("downloads/<path:name>", download_file, name="download_file"),
]
urlpatterns += i18n_patterns(
    path("", include("rulings.urls")),
    path("", include("kb.web.urls")),
    prefix_default_language=True,
)

# What no view caught while an import held the database: 503 and Retry-After, not 500.
handler500 = "kb.web.error_pages.server_error_page"
# The site's 400 page, rendered without the request's context (a Host not allowed would fail it).
handler400 = "kb.web.error_pages.bad_request_page"
