"""Several nodes with a read replica (docs/deploy.md): the public pages' reads go to the
replica, the admin, posts, sessions and accounts to the primary (config.routers)."""

from __future__ import annotations

from django.contrib.sessions.models import Session
from django.http import HttpResponse
from django.test import RequestFactory

from config.routers import ReplicaReads, ReplicaRouter
from kb.models import RuleVersion
from search.models import IndexedDocument


def _reads_during(method: str, path: str) -> dict[str, str]:
    router, seen = ReplicaRouter(), {}

    def view(request) -> HttpResponse:
        for model in (RuleVersion, IndexedDocument, Session):
            seen[model.__name__] = router.db_for_read(model)
        seen["write"] = router.db_for_write(RuleVersion)
        return HttpResponse()

    ReplicaReads(view)(getattr(RequestFactory(), method)(path))
    return seen


def test_public_pages_read_from_the_replica_and_write_to_the_primary() -> None:
    assert _reads_during("get", "/en/rules/702.19/") == {
        "RuleVersion": "replica",
        "IndexedDocument": "replica",  # searches too: the index is tables
        "Session": "default",  # a login just written may not have reached the replica
        "write": "default",
    }


def test_the_admin_posts_and_commands_use_the_primary() -> None:
    assert set(_reads_during("get", "/admin/kb/ruleversion/").values()) == {"default"}
    assert set(_reads_during("post", "/en/search/").values()) == {"default"}
    router = ReplicaRouter()  # outside a request (imports, index_worker): the primary
    assert router.db_for_read(RuleVersion) == "default"
    assert router.allow_migrate("replica", "kb") is False


class _Recording:
    asked: list[str] = []

    def db_for_read(self, model, **hints) -> str:
        self.asked.append(model.__name__)
        return "default"


def test_the_page_caches_stamps_are_read_where_the_pages_reads_go(db, settings) -> None:
    """A page built from a lagging replica must be keyed with the replica's stamps, not the
    primary's, or the old page would stay cached under the new stamps (kb.web.page_cache)."""
    from kb.web import page_cache

    settings.DATABASE_ROUTERS = [f"{__name__}._Recording"]
    _Recording.asked.clear()
    assert page_cache.data_stamps()
    assert _Recording.asked == ["VocabularyTerm"]
