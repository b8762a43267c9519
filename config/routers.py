"""Reads from a PostgreSQL read replica, writes to the primary (docs/deploy.md, "Several
nodes"); installed only when DATABASE_REPLICA_URL is set.

Why per request and not per model: a maintainer must see their own edit at once, and an import
or an index drain must read what it writes. So only the public pages' reads (GET and HEAD
outside the admin, flagged by ReplicaReads) go to the replica; the admin, every form post,
management commands and the search index's writers use the primary. Sessions and accounts are
always read from the primary (a login just written may not have reached the replica yet).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

REPLICA = "replica"
PRIMARY_ONLY = frozenset({"sessions", "auth", "admin", "contenttypes"})
_state = threading.local()


class ReplicaRouter:
    def db_for_read(self, model, **hints) -> str:
        if getattr(_state, "replica", False) and model._meta.app_label not in PRIMARY_ONLY:
            return REPLICA
        return "default"

    def db_for_write(self, model, **hints) -> str:
        return "default"

    def allow_relation(self, obj1, obj2, **hints) -> bool:
        return True  # the replica is a copy of the primary: the same rows

    def allow_migrate(self, db: str, app_label: str, **hints) -> bool:
        return db == "default"


class ReplicaReads:
    """Marks the reads of a public page (GET or HEAD, not the admin) for the replica."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        _state.replica = request.method in ("GET", "HEAD") and not request.path.startswith(
            "/admin/"
        )
        try:
            return self.get_response(request)
        finally:
            _state.replica = False
