"""Links proposed by meaning, for the rulings the linker found nothing for.

Why proposals and not links: the semantic retriever's nearest current rule is a gold rule for
43 % of the linker's dev sample, but only for one in five of the rulings the linker found
nothing for (11 of 56; one of its three nearest for 16), and added to the linker's links it
costs precision (dev 0.765 -> 0.655). Where the linker found nothing (a quarter of the
rulings) a maintainer has nothing to start from, and a candidate to confirm or reject helps:
there the nearest rule is proposed, with its evidence and the runners-up, in the admin's
review queue, and no reader sees it until a maintainer confirms it
(rulings.models.HIDDEN_KINDS). A rejected
proposal stays rejected: the next nearest rule is proposed instead.

The rulings' vectors are computed in the background (the index worker runs `propose` once
every rule has its vector), kept by text hash like the rules', so a corrected ruling is
embedded again and the others never are.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from django.db import transaction

from kb.stamps import archive_generation
from rulings import stamp
from rulings.linking.lineage_numbers import Numbers
from rulings.models import LinkKind, Ruling, RulingLink
from search.documents import Passage
from search.semantic import retriever

#: How many of a ruling's nearest rules are read: the first not rejected is proposed.
CANDIDATES = 5
#: Links that count as the linker (or a maintainer) having found something.
SHOWN_KINDS = (LinkKind.CITED, LinkKind.INFERRED, LinkKind.CONFIRMED)


@dataclass(frozen=True)
class Nearest:
    number: str  # the rule's number in the current release
    cosine: float


def nearest_rules(texts: Sequence[str], *, limit: int = CANDIDATES) -> list[list[Nearest]] | None:
    """Each text's nearest current rules, best first, embedding the texts that have no
    vector yet; None while the rules are not all embedded (or there is no model)."""
    if retriever.embed_queries(texts).reason:
        return None
    matrix, _found = retriever.query_vectors(texts)
    found = retriever.nearest_to(matrix, kinds=("rule",), limit=limit)
    if found is None:
        return None
    return [[Nearest(p.key, score) for p, score in hits] for hits in found]


@dataclass
class ProposalReport(retriever.SyncReport):
    proposed: int = 0
    withdrawn: int = 0


def propose(*, seconds: float | None = None, only: Collection[int] | None = None) -> ProposalReport:
    """Propose the nearest rule for every ruling without a shown or proposed link (or those
    of `only`, ruling ids), embedding rulings for at most `seconds` (None: all); withdraw
    the proposals of rulings that have a shown link now. What remains to embed is in the
    report."""
    if not retriever.status().ready:
        return ProposalReport(reason="the rules are not all embedded yet")
    state = _state()
    if only is None and _settled.get("state") == state:
        return ProposalReport()
    report = _propose(seconds, only)
    if only is None and not report.remaining and not report.reason:
        _settled["state"] = _state()
    return report


def _propose(seconds: float | None, only: Collection[int] | None) -> ProposalReport:
    report = ProposalReport()
    shown = RulingLink.objects.filter(kind__in=SHOWN_KINDS)
    # One statement (a subquery, not 30,000 ids as parameters: PostgreSQL takes 65,535).
    stale = RulingLink.objects.filter(
        kind=LinkKind.PROPOSED, ruling_id__in=shown.values("ruling_id")
    )
    with transaction.atomic():
        report.withdrawn = stale.delete()[0]
    linked = set(shown.values_list("ruling_id", flat=True))
    proposed = set(
        RulingLink.objects.filter(kind=LinkKind.PROPOSED).values_list("ruling_id", flat=True)
    )
    rulings = Ruling.objects.order_by("id")
    if only is not None:
        rulings = rulings.filter(id__in=list(only))
    rows = [
        (rid, date, text)
        for rid, date, text in rulings.values_list("id", "date", "text")
        if rid not in linked and rid not in proposed
    ]
    if not rows:
        return report
    embedded = retriever.embed_queries([text for _, _, text in rows], seconds=seconds)
    report.embedded, report.remaining = embedded.embedded, embedded.remaining
    report.seconds, report.reason = embedded.seconds, embedded.reason
    matrix, found = retriever.query_vectors([text for _, _, text in rows])
    ready = [i for i in range(len(rows)) if found[i]]
    if not ready:
        return report
    nearest = retriever.nearest_to(matrix[ready], kinds=("rule",), limit=CANDIDATES)
    if nearest is None:
        return report
    report.proposed = _save([rows[i] for i in ready], nearest)
    return report


def _save(rows: list[tuple], nearest: list[list[tuple[Passage, float]]]) -> int:
    """One proposal per ruling: its nearest rule that no maintainer rejected for it."""
    numbers = Numbers()
    rejected: dict[int, set[int]] = defaultdict(set)
    for rid, lid in RulingLink.objects.filter(kind=LinkKind.REJECTED).values_list(
        "ruling_id", "lineage_id"
    ):
        rejected[rid].add(lid)
    links = []
    for (rid, date, _text), hits in zip(rows, nearest, strict=True):
        usable = [
            (passage.key, lineage, cosine)
            for passage, cosine in hits
            if (lineage := numbers.lineage_now(passage.key)) is not None
            and lineage not in rejected[rid]
        ]
        if not usable:
            continue
        number, lineage, cosine = usable[0]
        # The runners-up, for the maintainer who rejects it (on the linker's dev sample the
        # nearest rule is right for one unlinked ruling in five, one of three for 29 %).
        others = ", ".join(f"{n} ({c:.2f})" for n, _lid, c in usable[1:3])
        release = numbers.release_at(date)
        links.append(
            RulingLink(
                ruling_id=rid,
                lineage_id=lineage,
                kind=LinkKind.PROPOSED,
                evidence=f"nearest rule by meaning (cosine {cosine:.2f})"
                + (f"; next: {others}" if others else ""),
                release=release,
                number=numbers.number_at(lineage, date) if release else "",
                current_number=number,
                date=date,
            )
        )
    with transaction.atomic():
        RulingLink.objects.bulk_create(links, ignore_conflicts=True, batch_size=500)
    return len(links)


def _state() -> tuple[object, ...]:
    return (stamp.exact(), archive_generation())


#: The rulings' and the archive's state when `propose` last left nothing to do (a worker's
#: memo: the worker asks every few seconds, and reading 44,000 rulings each time is waste).
_settled: dict[str, tuple[object, ...]] = {}
