from django.apps import AppConfig


class KbConfig(AppConfig):
    name = "kb"
    verbose_name = "Rules knowledge base"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.db.models.signals import post_delete, post_save

        from .documents import register_documents
        from .models import Release
        from .selectors import forget_releases

        register_documents()
        post_save.connect(forget_releases, sender=Release, dispatch_uid="kb.forget_releases")
        post_delete.connect(forget_releases, sender=Release, dispatch_uid="kb.forget_releases")
