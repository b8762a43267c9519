from django.apps import AppConfig


class AuditConfig(AppConfig):
    name = "audit"
    verbose_name = "History of edits"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from audit.tracked import track

        track()
