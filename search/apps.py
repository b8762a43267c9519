from django.apps import AppConfig


class SearchConfig(AppConfig):
    """The search engine: knows documents and kinds, never the apps that register them."""

    name = "search"
    verbose_name = "Search"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from search import indexing

        indexing.connect_signals()
