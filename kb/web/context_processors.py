"""Template context for every page: language alternates and the canonical URL."""

from __future__ import annotations

from urllib.parse import urlencode

from django.conf import settings
from django.http import HttpRequest
from django.urls import translate_url
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from config import languages


def site(request: HttpRequest) -> dict[str, object]:
    path = request.path
    current = get_language() or settings.LANGUAGE_CODE
    alternates = []
    # The date a reader asked for (kb.web.views.ASKED_ON) follows them to the other language.
    asked = request.GET.get("on", "")
    keep = f"?{urlencode({'on': asked})}" if asked else ""
    for code, name in settings.LANGUAGES:
        url = translate_url(path, code)
        alternates.append(
            {
                "code": code,
                "name": name,
                "url": url + keep,
                "absolute": request.build_absolute_uri(url),
                "active": code == current,
            }
        )
    language = languages.language(current)
    return {
        "alternates": alternates,
        "canonical_url": request.build_absolute_uri(path),
        # The language's name when pages show rules in the source language instead of it.
        "translated_language": (
            _(language.name) if language and language.code != languages.SOURCE else ""
        ),
    }
