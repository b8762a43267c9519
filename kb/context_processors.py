"""Template context for every page: language alternates and the canonical URL."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest
from django.urls import translate_url
from django.utils.translation import get_language


def site(request: HttpRequest) -> dict[str, object]:
    path = request.path
    current = get_language() or settings.LANGUAGE_CODE
    alternates = []
    for code, name in settings.LANGUAGES:
        url = translate_url(path, code)
        alternates.append(
            {
                "code": code,
                "name": name,
                "url": url,
                "absolute": request.build_absolute_uri(url),
                "active": code == current,
            }
        )
    return {
        "alternates": alternates,
        "canonical_url": request.build_absolute_uri(path),
    }
