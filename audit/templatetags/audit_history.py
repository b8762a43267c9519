"""Template tags of the admin's History pages (templates/simple_history/)."""

from __future__ import annotations

from typing import Any

from django import template

from audit.history_links import editor_admin_url

register = template.Library()


@register.simple_tag(takes_context=True)
def editor_url(context: template.Context, editor: Any) -> str:
    """The editor's admin page for a viewer allowed to open it, else '' (audit.history_links)."""
    return editor_admin_url(context.get("request"), editor)
