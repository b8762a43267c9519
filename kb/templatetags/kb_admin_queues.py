"""`{% review_queues as queues %}`: the review queues the current user may open, counted
(kb.admin.queues), for the admin index. A tag rather than a wrapped index view: any app can
register queues without touching the admin site."""

from __future__ import annotations

from typing import Any

from django import template

from kb.admin.queues import QueueCount, queue_counts

register = template.Library()


@register.simple_tag(takes_context=True)
def review_queues(context: dict[str, Any]) -> list[QueueCount]:
    request = context.get("request")
    user = getattr(request, "user", None)
    return queue_counts(user) if user is not None else []
