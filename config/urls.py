"""Site URLs: language-prefixed pages (/en/, /fr/), the admin and the JSON API.

`/` redirects to /en/ or /fr/ by the browser's language (LocaleMiddleware with i18n_patterns).
"""

from django.conf.urls.i18n import i18n_patterns
from django.contrib import admin
from django.urls import include, path

from kb.downloads import download_file

from .api import api

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", api.urls),
    # The bulk export's files: one address whatever the page language.
    path("downloads/<path:name>", download_file, name="download_file"),
]
urlpatterns += i18n_patterns(
    path("", include("rulings.urls")),
    path("", include("kb.urls")),
    prefix_default_language=True,
)
