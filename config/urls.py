"""Site URLs: language-prefixed pages, the admin and the JSON API."""

from django.contrib import admin
from django.urls import path

urlpatterns = [
    path("admin/", admin.site.urls),
]
