"""Linking stored rulings: the links of a batch recomputed in one transaction.

The linker only reads texts, so a large batch (every ruling, when the rules change) is read in
forked processes, but never `in_process()` (a web request's worker is not forked); maintainers'
confirmed and rejected links survive relinking.
"""

from __future__ import annotations

import multiprocessing as mp
import os
from collections import defaultdict
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from kb.dbutil import chunks, insert_rows
from kb.models import Release
from rulings.linking.linker import Found, Linker
from rulings.models import Card, CardFace, LinkKind, Ruling, RulingLink
from rulings.stamp import bump as bump_stamp

#: From this many rulings, the linker reads them in two processes (the bench's 43,774: 30 s
#: in one, about half in two).
PARALLEL_FROM = 4_000
_worker_linker: Linker | None = None
_may_fork: ContextVar[bool] = ContextVar("rulings_linking_may_fork", default=True)


@contextmanager
def in_process() -> Iterator[None]:
    """Link in this process whatever the batch's size: what runs inside a web request (the
    admin's publish relinks in it) must not fork the server's worker."""
    token = _may_fork.set(False)
    try:
        yield
    finally:
        _may_fork.reset(token)


def _find_one(item: tuple) -> list[Found]:
    assert _worker_linker is not None
    return _worker_linker.find(*item)


def _find_all(linker: Linker, items: list[tuple]) -> list[list[Found]]:
    """Linker.find over many rulings; in forked worker processes for large batches (they
    inherit the linker and never touch the database)."""
    global _worker_linker
    procs = min(2, os.cpu_count() or 1)
    if (
        len(items) < PARALLEL_FROM
        or procs < 2
        or not _may_fork.get()
        or "fork" not in mp.get_all_start_methods()
    ):
        return [linker.find(*item) for item in items]
    _worker_linker = linker
    try:
        with mp.get_context("fork").Pool(procs) as pool:
            return pool.map(_find_one, items, chunksize=500)
    finally:
        _worker_linker = None


@transaction.atomic
def link_rulings(ruling_ids: Iterable[int] | None = None, linker: Linker | None = None) -> int:
    """(Re)compute cited and inferred links of rulings (all by default); confirmed and rejected
    links are kept, and a rejected link is not inferred again. Returns the rulings linked."""
    linker = linker or Linker()
    rulings = (
        Ruling.objects.all()
        if ruling_ids is None
        else Ruling.objects.filter(id__in=list(ruling_ids))
    )
    found_rows = list(
        rulings.values_list("id", "card_id", "date", "text", "is_heading", "group__text")
    )
    if not found_rows:
        return 0
    names, keywords = _names_and_keywords({r[1] for r in found_rows}, linker)
    ids = [r[0] for r in found_rows]
    kept = _clear_computed_links(ids)
    # Headings are not rulings: no links of their own (their rulings get theirs).
    rows = [r[:4] for r in found_rows if not r[4]]
    items = [
        (text, date, names.get(cid, []), keywords.get(cid, []), heading or "")
        for (_, cid, date, text, _h, heading) in (r for r in found_rows if not r[4])
    ]
    found_all = _find_all(linker, items)
    insert_rows(
        RulingLink,
        ["ruling", "lineage", "kind", "evidence", "release", "number", "current_number", "date"],
        _link_rows(linker, rows, found_all, kept),
    )
    now = timezone.now()
    for chunk in chunks(ids):
        Ruling.objects.filter(id__in=chunk).update(linked_at=now)
    bump_stamp()  # rule pages show the rulings linked to them
    return len(found_rows)


def _names_and_keywords(
    card_ids: set[int], linker: Linker
) -> tuple[dict[int, list[str]], dict[int, list[str]]]:
    """The names a ruling may call its card by (blanked before reading: "Flying Crane
    Technique" is not about flying) and the card's keywords (listed or printed), by card."""
    names: dict[int, list[str]] = defaultdict(list)
    keywords: dict[int, list[str]] = {}
    texts: dict[int, list[str]] = defaultdict(list)
    for cid, name_en, name_fr, kws, text in (
        Card.objects.filter(id__in=card_ids).values_list(
            "id", "name_en", "name_fr", "keywords", "text_en"
        )
        if len(card_ids) < 900
        else Card.objects.values_list("id", "name_en", "name_fr", "keywords", "text_en")
    ):
        if cid in card_ids:
            names[cid] += [name_en, *name_en.split(" // "), name_fr or ""]
            keywords[cid] = kws or []
            texts[cid].append(text or "")
    for cid, face, text in (
        CardFace.objects.values_list("card_id", "name", "text")
        if len(card_ids) >= 900
        else CardFace.objects.filter(card_id__in=card_ids).values_list("card_id", "name", "text")
    ):
        if cid in card_ids:
            names[cid].append(face)
            texts[cid].append(text or "")
    keywords = {cid: linker.card_keywords(kws, texts[cid]) for cid, kws in keywords.items()}
    return names, keywords


def _clear_computed_links(ids: list[int]) -> dict[int, dict[int, str]]:
    """Delete the cited and inferred links of rulings; return the links maintainers decided
    (ruling -> lineage -> kind), which relinking must not undo."""
    kept: dict[int, dict[int, str]] = defaultdict(dict)
    for chunk in chunks(ids):
        for rid, lid, kind in RulingLink.objects.filter(
            ruling_id__in=chunk, kind__in=[LinkKind.CONFIRMED, LinkKind.REJECTED]
        ).values_list("ruling_id", "lineage_id", "kind"):
            kept[rid][lid] = kind
        RulingLink.objects.filter(
            ruling_id__in=chunk, kind__in=[LinkKind.CITED, LinkKind.INFERRED]
        ).delete()
    return kept


def _link_rows(
    linker: Linker,
    rows: list[tuple],
    found_all: list[list[Found]],
    kept: dict[int, dict[int, str]],
) -> list[tuple]:
    """RulingLink rows for what the linker found, with the numbers then and now."""
    new_rows = []
    for (rid, _cid, date, _text), found in zip(rows, found_all, strict=True):
        release = linker.release_at(date)
        for f in found:
            if f.lineage_id in kept[rid]:
                continue
            new_rows.append(
                (
                    rid,
                    f.lineage_id,
                    f.kind,
                    f.evidence,
                    release.pk if release else None,
                    linker.number_at(f.lineage_id, date) if release else "",
                    linker.number_at(f.lineage_id, linker.current),
                    date,
                )
            )
    return new_rows


def rules_changed_since_linking() -> bool:
    """True when a release was imported after some ruling was last linked.

    An import relinks what it touched as it is committed (kb.signals.rules_changed,
    rulings.linking.changed) and then marks every linked ruling as linked; this stays true
    only where that did not happen (it failed, or the import ran where the rulings app was
    not listening), and loaders relink everything then.
    """
    last_import = Release.objects.aggregate(last=Max("imported_at"))["last"]
    return last_import is not None and Ruling.objects.filter(linked_at__lt=last_import).exists()
