"""Site URLs: language-prefixed pages (/en/, /fr/), the admin and the JSON API.

`/` redirects to /en/ or /fr/ by the browser's language (LocaleMiddleware with i18n_patterns).
"""

from django.conf.urls.i18n import i18n_patterns
from django.contrib import admin
from django.urls import include, path

from .api import api

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", api.urls),
]
urlpatterns += i18n_patterns(
    path("", include("rulings.urls")),
    path("", include("kb.urls")),
    prefix_default_language=True,
)
