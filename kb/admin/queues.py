"""Review queues: what waits for a maintainer, counted on the admin index.

Why a registry: the admin index is kb's (templates/admin/index.html), but the queues belong to
several apps (kb: vocabulary, French texts; rulings: inferred links, corrected rulings). kb must
not import rulings, so each app registers its own queues here (rulings from rulings/admin.py)
and the index shows every registered queue the user may view: its label, its count and a link
to the change list filtered to exactly what the count counts.

A queue's count is a plain function (one query): the same filter as its change-list link, so
the number on the index is the number of rows the link lists. Queues counted together (the
French texts' missing/stale/unofficial counts come from one function) register as a group:
`register_queue_group` calls the shared function once per index page.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from django.contrib.auth.models import AnonymousUser, User
from django.urls import NoReverseMatch, reverse


@dataclass(frozen=True)
class Queue:
    """One queue: `count()` rows wait; the change list `url_name` with `params` lists them."""

    key: str
    label: Any  # a (lazy) translated text
    url_name: str
    params: Mapping[str, str]
    count: Callable[[], int] | None = None
    #: Queues of one group share one counting function (see register_queue_group).
    group: str = ""
    permission: str = ""
    order: int = 100


@dataclass(frozen=True)
class QueueGroup:
    """Queues counted by one function returning {queue key: count}."""

    key: str
    counts: Callable[[], Mapping[str, int]]
    keys: tuple[str, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class QueueCount:
    """A queue as the index shows it."""

    key: str
    label: Any
    count: int
    url: str


_QUEUES: dict[str, Queue] = {}
_GROUPS: dict[str, QueueGroup] = {}


def _permission_for(url_name: str) -> str:
    """admin:<app>_<model>_changelist -> <app>.view_<model>: whoever may open the list."""
    name = url_name.removeprefix("admin:").removesuffix("_changelist")
    app, _, model = name.partition("_")
    return f"{app}.view_{model}"


def register_queue(
    key: str,
    label: Any,
    url_name: str,
    count_fn: Callable[[], int],
    *,
    params: Mapping[str, str] | None = None,
    permission: str = "",
    order: int = 100,
) -> Queue:
    """Register (or replace: apps' ready() may run twice in tests) a queue counted by
    `count_fn`, listed by the admin change list `url_name` filtered by `params`. The queue is
    shown to users with `permission` (default: view permission on the listed model)."""
    queue = Queue(
        key=key,
        label=label,
        url_name=url_name,
        params=dict(params or {}),
        count=count_fn,
        permission=permission or _permission_for(url_name),
        order=order,
    )
    _QUEUES[key] = queue
    return queue


def register_queue_group(
    group: str,
    counts_fn: Callable[[], Mapping[str, int]],
    queues: Sequence[tuple[str, Any, str, Mapping[str, str]]],
    *,
    permission: str = "",
    order: int = 100,
) -> None:
    """Register queues counted together: `counts_fn()` returns {queue key: count}, called
    once per index page. `queues` are (key, label, url_name, params).

    The French texts' queues register here (missing, stale, unofficial), from
    `kb.admin.french_filters.french_queue_counts`, once that module exists: see
    `register_french_queues`."""
    keys = []
    for n, (key, label, url_name, params) in enumerate(queues):
        _QUEUES[key] = Queue(
            key=key,
            label=label,
            url_name=url_name,
            params=dict(params),
            group=group,
            permission=permission or _permission_for(url_name),
            order=order + n,
        )
        keys.append(key)
    _GROUPS[group] = QueueGroup(key=group, counts=counts_fn, keys=tuple(keys))


#: The registration point of the French texts' queues (kb.admin.french_filters registers them).
FRENCH_QUEUE_GROUP = "french"


def register_french_queues(
    counts_fn: Callable[[], Mapping[str, int]],
    queues: Sequence[tuple[str, Any, str, Mapping[str, str]]],
) -> None:
    """Where kb.admin.french_filters plugs in its `french_queue_counts()` (French texts missing,
    stale, unofficial). Until it does, no French queue is shown: a count nobody computed
    would be a made-up number."""
    register_queue_group(FRENCH_QUEUE_GROUP, counts_fn, queues, order=50)


def unregister_queue(key: str) -> None:
    """Forget a queue (and its group once empty)."""
    queue = _QUEUES.pop(key, None)
    if queue is not None and queue.group:
        group = _GROUPS.get(queue.group)
        if group is not None and not any(q.group == queue.group for q in _QUEUES.values()):
            _GROUPS.pop(queue.group, None)


def registered_queues() -> list[Queue]:
    """Every registered queue, in display order."""
    return sorted(_QUEUES.values(), key=lambda q: (q.order, q.key))


def _url(queue: Queue) -> str | None:
    try:
        url = reverse(queue.url_name)
    except NoReverseMatch:  # the model is not in this admin site: nothing to link to
        return None
    return f"{url}?{urlencode(queue.params)}" if queue.params else url


def queue_counts(user: User | AnonymousUser) -> list[QueueCount]:
    """The queues `user` may open, each with its count (one query per queue or group)."""
    shown = [q for q in registered_queues() if user.is_active and user.has_perm(q.permission)]
    group_counts: dict[str, Mapping[str, int]] = {}
    out = []
    for queue in shown:
        url = _url(queue)
        if url is None:
            continue
        if queue.group:
            if queue.group not in group_counts:
                group_counts[queue.group] = _GROUPS[queue.group].counts()
            count = int(group_counts[queue.group].get(queue.key, 0))
        else:
            count = int(queue.count()) if queue.count else 0
        out.append(QueueCount(key=queue.key, label=queue.label, count=count, url=url))
    return out
