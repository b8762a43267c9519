"""EN/FR side by side in the admin, with nothing loaded from a CDN.

django-modeltranslation's TabbedTranslationAdmin shows one tab per language, but its media
load jQuery UI from ajax.googleapis.com (its JQUERY_UI_URL setting): the admin would break
offline and leak maintainers' visits. These bases load the same scripts from the site's own
static files: Django admin's bundled jQuery (admin/js/jquery.init.js), modeltranslation's own
static files, and jQuery UI 1.13.2 vendored under static/vendor/ (the version modeltranslation's
default URL names; copied from Debian's libjs-jquery-ui, MIT licence).
"""

from __future__ import annotations

from modeltranslation.admin import (
    TranslationAdmin,
    TranslationStackedInline,
    TranslationTabularInline,
)

JQUERY_UI = "vendor/jquery-ui-1.13.2/jquery-ui.min.js"
TABS_JS = (
    "admin/js/jquery.init.js",
    "modeltranslation/js/force_jquery.js",
    JQUERY_UI,
    "modeltranslation/js/tabbed_translation_fields.js",
)
TABS_CSS = {"all": ("modeltranslation/css/tabbed_translation_fields.css",)}


class LocalTabbedTranslationAdmin(TranslationAdmin):
    """TabbedTranslationAdmin's tabs with local media (ModelAdmin's own media come first)."""

    class Media:
        js = TABS_JS
        css = TABS_CSS


class LocalTabbedStackedInline(TranslationStackedInline):
    class Media:
        js = TABS_JS
        css = TABS_CSS


class LocalTabbedTabularInline(TranslationTabularInline):
    class Media:
        js = TABS_JS
        css = TABS_CSS
