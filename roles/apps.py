from django.apps import AppConfig


class RolesConfig(AppConfig):
    name = "roles"
    verbose_name = "Roles"

    def ready(self) -> None:
        from django.db.models.signals import post_migrate

        from roles.groups import after_migrate

        # After every app's migrations (their permissions exist only then).
        post_migrate.connect(after_migrate, dispatch_uid="roles.after_migrate")
