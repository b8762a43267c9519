"""Reading pages (under the language prefix, see config/urls.py)."""

from django.urls import path, register_converter

from kb.sitesearch import views as search_views
from kb.web import downloads, views
from kb.web.feeds import ReleasesFeed, RuleHistoryFeed


class ReleaseConverter:
    """`current` or something shaped like a date; the view validates and resolves it."""

    regex = r"current|\d{4}-\d{2}-\d{2}"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


class NumberConverter:
    """Anything shaped like a rule number (the view answers 404 with suggestions if unknown)."""

    regex = r"[0-9][0-9a-z.]{0,15}"

    def to_python(self, value: str) -> str:
        return value.rstrip(".")

    def to_url(self, value: str) -> str:
        return value


register_converter(ReleaseConverter, "release")
register_converter(NumberConverter, "number")

app_name = "kb"
urlpatterns = [
    path("", views.home, name="home"),
    path("releases/", views.releases, name="releases"),
    path("downloads/", downloads.downloads_page, name="downloads"),
    path("releases.atom", ReleasesFeed(), name="releases_feed"),
    path("search/", search_views.search, name="search"),
    path("search/help/", search_views.search_help, name="search_help"),
    path("search/opensearch.xml", search_views.opensearch, name="opensearch"),
    path("search/suggest/", search_views.suggestions, name="search_suggest"),
    path("rules/<number:number>/", views.rule, name="current_rule"),
    path("rules/<number:number>/history/", views.history, name="current_history"),
    path("rules/<number:number>/history.atom", RuleHistoryFeed(), name="rule_feed"),
    path("<release:release>/rules/<number:number>/history/", views.history, name="history"),
    path("diff/<release:old>..<release:new>/", views.diff, name="diff"),
    path("glossary/<slug:slug>/history/", views.glossary_history, name="glossary_history"),
    path("translation/", views.translation, name="translation"),
    path("translation/<release:release>/", views.translation, name="translation_release"),
    path("<release:release>/anomalies/", views.anomalies, name="anomalies"),
    path("<release:release>/rules/", views.contents, name="contents"),
    path("<release:release>/rules/<number:number>/", views.rule, name="rule"),
    path("<release:release>/glossary/", views.glossary, name="glossary"),
    path("<release:release>/glossary/<slug:slug>/", views.glossary_term, name="glossary_term"),
]
