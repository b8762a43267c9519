from django.core.management.base import BaseCommand, CommandError

from roles.groups import RoleError, setup_roles


class Command(BaseCommand):
    help = (
        "Create or update the site's groups (Content maintainers) with exactly their permissions."
    )

    def handle(self, *args, **options) -> None:
        try:
            done = setup_roles()
        except RoleError as exc:
            raise CommandError(str(exc)) from None
        for name, count in done.items():
            self.stdout.write(f"{name}: {count} permissions")
