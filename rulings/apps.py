from django.apps import AppConfig


class RulingsConfig(AppConfig):
    name = "rulings"
    verbose_name = "Cards and rulings"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from rulings import hooks, signals  # noqa: F401 - register with kb
        from rulings.documents import register_documents
        from rulings.linking import proposals
        from search.semantic import retriever

        register_documents()
        retriever.register_follow_up(proposals.propose)
