from django.apps import AppConfig


class KbConfig(AppConfig):
    name = "kb"
    verbose_name = "Rules knowledge base"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.db.models.signals import post_delete, post_save

        from kb.documents import register_documents
        from kb.models import Release
        from kb.selectors import forget_releases
        from kb.signals import release_changed, text_edited
        from kb.web import page_cache

        register_documents()
        post_save.connect(forget_releases, sender=Release, dispatch_uid="kb.forget_releases")
        post_delete.connect(forget_releases, sender=Release, dispatch_uid="kb.forget_releases")
        # Both are sent after the commit: the page cache's keys have moved, its entries go.
        release_changed.connect(page_cache.purge_on_signal, dispatch_uid="kb.purge_pages")
        text_edited.connect(page_cache.purge_on_signal, dispatch_uid="kb.purge_pages")
