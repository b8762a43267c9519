"""The site's roles as Django groups, with exactly the permissions each job needs.

A content maintainer edits texts, translations, examples, the glossary, the vocabulary,
rulings and their links, and publishes releases (adds them); manages no users and deletes no
release, lineage or import record: those are the archive's identity and its audit trail. Kept
as data here, applied by `manage.py setup_roles` and after every `migrate` (idempotent: the
group ends with exactly these permissions, whatever was added or removed by hand).
"""

from __future__ import annotations

from django.contrib.auth.models import Group, Permission
from django.db import transaction

MAINTAINERS = "Content maintainers"

#: (app label, model) -> the actions a maintainer has on it.
MAINTAINER_PERMISSIONS: dict[tuple[str, str], tuple[str, ...]] = {
    ("kb", "release"): ("view", "add", "change"),
    ("kb", "lineage"): ("view",),
    ("kb", "rulenumber"): ("view",),
    ("kb", "ruleversion"): ("view", "change"),
    ("kb", "example"): ("view", "add", "change", "delete"),
    ("kb", "reference"): ("view",),
    ("kb", "glossaryterm"): ("view", "change"),
    ("kb", "glossaryversion"): ("view", "change"),
    ("kb", "vocabularyterm"): ("view", "add", "change", "delete"),
    ("kb", "anomaly"): ("view",),
    ("kb", "importrecord"): ("view",),
    ("rulings", "card"): ("view", "change"),
    ("rulings", "cardface"): ("view", "change"),
    ("rulings", "ruling"): ("view", "add", "change"),
    ("rulings", "rulinglink"): ("view", "add", "change", "delete"),
    ("search", "indexoutbox"): ("view",),
}

ROLES = {MAINTAINERS: MAINTAINER_PERMISSIONS}


class RoleError(LookupError):
    """A role names a permission that does not exist (a model renamed or removed)."""


def setup_roles() -> dict[str, int]:
    """Create or update every role's group to exactly its permissions; returns the number
    of permissions of each. Refuses, changing nothing, when a permission is unknown."""
    out = {}
    with transaction.atomic():
        for name, spec in ROLES.items():
            wanted = _permissions(spec)
            group, _ = Group.objects.get_or_create(name=name)
            group.permissions.set(wanted)
            out[name] = len(wanted)
    return out


def _permissions(spec: dict[tuple[str, str], tuple[str, ...]]) -> list[Permission]:
    codenames = {
        (app, f"{action}_{model}") for (app, model), actions in spec.items() for action in actions
    }
    found = {
        (p.content_type.app_label, p.codename): p
        for p in Permission.objects.select_related("content_type").filter(
            codename__in={c for _, c in codenames}
        )
    }
    missing = sorted(f"{app}.{code}" for app, code in codenames - found.keys())
    if missing:
        raise RoleError(f"unknown permissions: {', '.join(missing)}")
    return [found[c] for c in sorted(codenames)]


def after_migrate(sender, app_config=None, **kwargs) -> None:
    """Once the last app's migrations ran (its permissions now exist), set the roles up."""
    if app_config is None or app_config.label != "roles":
        return
    from django.apps import apps

    if not all(apps.is_installed(a) for a in ("kb", "rulings", "search")):
        return
    setup_roles()
