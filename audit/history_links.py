"""Who made an edit, on the admin's History pages: a link to the editor's admin page only for
a viewer who may open it.

django-simple-history links every editor's name to the user model's change page, which a
content maintainer (no permission on users, roles.groups) may not open: the link led to a
403. The name stays, as plain text, for a viewer without the permission.
"""

from __future__ import annotations

from django.contrib import admin
from django.contrib.admin.sites import AdminSite, all_sites
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.http import HttpRequest
from django.urls import NoReverseMatch, reverse


def editor_admin_url(request: HttpRequest | None, editor: AbstractBaseUser | None) -> str:
    """The admin change page of `editor` when the request's user may view it (what that page
    itself checks: the user model's admin `has_view_or_change_permission`), else ''."""
    if request is None or editor is None:
        return ""
    site = _site(getattr(request, "current_app", None) or admin.site.name)
    model_admin = site._registry.get(get_user_model())
    if model_admin is None or not model_admin.has_view_or_change_permission(request, editor):
        return ""
    opts = model_admin.model._meta
    try:
        return reverse(
            f"{site.name}:{opts.app_label}_{opts.model_name}_change",
            args=[editor.pk],
            current_app=site.name,
        )
    except NoReverseMatch:
        return ""


def _site(name: str) -> AdminSite:
    return next((s for s in all_sites if s.name == name), admin.site)
