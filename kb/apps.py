from django.apps import AppConfig


class KbConfig(AppConfig):
    name = "kb"
    verbose_name = "Rules knowledge base"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from .documents import register_documents

        register_documents()
