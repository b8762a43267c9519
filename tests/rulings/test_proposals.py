"""Links proposed by meaning (issue 33), on the real archive and rulings and the real encoder,
over a few of the current release's rules (the whole release takes minutes to embed): a
ruling the linker found nothing for is given its nearest rule, hidden from readers until a
maintainer confirms it; a rejected proposal gives way to the next nearest."""

from __future__ import annotations

import pytest
from django.db import transaction

from kb.admin.queues import registered_queues
from kb.selectors import Releases
from rulings.corrections import decide_links
from rulings.linking import proposals
from rulings.models import LinkKind, Ruling, RulingLink
from rulings.ruling_context import ruling_views
from rulings.selectors import link_counts
from tests.semantic_subset import forget, retriever_on_subset

pytestmark = [pytest.mark.slow, pytest.mark.django_db]


@pytest.fixture
def rules_embedded(cards, settings, monkeypatch):
    proposals._settled.clear()
    for embedded in retriever_on_subset(settings, monkeypatch, kinds=("rule",)):
        assert embedded.sync().remaining == 0
        yield
    proposals._settled.clear()


def _forget() -> None:
    forget()
    proposals._settled.clear()


def _unlinked_trample_ruling() -> Ruling:
    """A real ruling about trample's damage, its links removed as if the linker had found
    nothing (the case proposals are for)."""
    ruling = (
        Ruling.objects.filter(
            text__icontains="trample", text__contains="assign", links__current_number="702.19"
        )
        .order_by("id")
        .first()
    )
    assert ruling is not None
    with transaction.atomic():
        RulingLink.objects.filter(ruling=ruling).delete()
    return ruling


def _shown(ruling: Ruling) -> list[str]:
    (view,) = ruling_views([ruling], Releases.load())
    return [link.number for link in view.links]


def test_a_ruling_without_links_gets_a_proposal_no_reader_sees(rules_embedded):
    ruling = _unlinked_trample_ruling()
    counts_before = link_counts()
    report = proposals.propose(only=[ruling.pk])
    assert report.proposed == 1 and not report.reason
    (link,) = RulingLink.objects.filter(ruling=ruling)
    assert link.kind == LinkKind.PROPOSED
    assert link.current_number.startswith("702.19")  # trample, not flash or mulligans
    assert link.number and link.release is not None  # the number on the ruling's date
    assert "by meaning" in link.evidence
    assert _shown(ruling) == []  # the card page and the API read these views
    assert link_counts() == counts_before  # the rule page's count of rulings
    queues = {q.key: q for q in registered_queues()}
    assert queues["proposed"].count() >= 1  # the maintainers' queue
    # Asked again: nothing new (one proposal per ruling).
    assert proposals.propose(only=[ruling.pk]).proposed == 0


def test_confirmed_it_is_shown_and_rejected_the_next_nearest_is_proposed(rules_embedded):
    ruling = _unlinked_trample_ruling()
    proposals.propose(only=[ruling.pk])
    (first,) = RulingLink.objects.filter(ruling=ruling)
    decide_links(links=[first], kind=LinkKind.REJECTED)
    proposals.propose(only=[ruling.pk])
    second = RulingLink.objects.get(ruling=ruling, kind=LinkKind.PROPOSED)
    assert second.lineage_id != first.lineage_id
    assert _shown(ruling) == []
    decide_links(links=[second], kind=LinkKind.CONFIRMED)
    assert _shown(ruling) == [second.current_number]


def test_a_proposal_is_withdrawn_once_the_ruling_has_a_link(rules_embedded):
    ruling = _unlinked_trample_ruling()
    proposals.propose(only=[ruling.pk])
    proposal = RulingLink.objects.get(ruling=ruling)
    other = RulingLink.objects.exclude(ruling=ruling).exclude(lineage=proposal.lineage).first()
    with transaction.atomic():
        RulingLink.objects.create(
            ruling=ruling, lineage_id=other.lineage_id, kind=LinkKind.INFERRED, evidence="test"
        )
    assert proposals.propose(only=[ruling.pk]).withdrawn == 1
    assert not RulingLink.objects.filter(ruling=ruling, kind=LinkKind.PROPOSED).exists()


def test_without_the_rules_vectors_nothing_is_proposed(cards, settings):
    settings.KB_SEMANTIC = False
    _forget()
    try:
        report = proposals.propose()
        assert report.proposed == 0 and report.reason
    finally:
        _forget()


def test_the_command_refuses_without_the_rules_vectors(cards, settings):
    from django.core.management import CommandError, call_command

    settings.KB_SEMANTIC = False
    _forget()
    try:
        with pytest.raises(CommandError, match="nothing proposed"):
            call_command("propose_links")
    finally:
        _forget()
