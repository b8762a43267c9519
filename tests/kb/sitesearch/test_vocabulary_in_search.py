"""Search reads only the vocabulary terms the pages show (issue 13): a mined term left out for
too few agreeing cards neither expands French queries nor titles search documents, while a
shown term mined from cards and not yet checked still does."""

from __future__ import annotations

import pytest

from kb.documents import glossary_documents, rule_documents
from kb.models import VocabularyTerm
from kb.selectors import vocabulary_pairs
from kb.sitesearch.service import _expand_french
from search.syntax import parse

pytestmark = [pytest.mark.slow, pytest.mark.django_db]


def _via(query: str) -> dict[str, str]:
    via: dict[str, str] = {}
    _expand_french(list(parse(query).groups), via)
    return via


def _french_titles(term: VocabularyTerm) -> set[str]:
    docs = [
        *rule_documents([str(term.lineage_id)]),
        *glossary_documents([str(term.glossary_term_id)]),
    ]
    return {d.titles.get("fr", "") for d in docs}


def test_left_out_terms_neither_expand_queries_nor_title_documents(cards) -> None:
    ravenous = VocabularyTerm.objects.get(en="Ravenous", kind="keyword ability")
    # One card gives "Voracité": left out of the pages, and of search.
    assert (ravenous.fr, ravenous.agreeing, ravenous.checked) == ("Voracité", 1, False)
    assert VocabularyTerm.objects.left_out().filter(pk=ravenous.pk).exists()
    left_out = set(VocabularyTerm.objects.left_out().values_list("en", "fr"))
    shown = set(VocabularyTerm.objects.shown().values_list("en", "fr"))
    assert len(left_out) >= 10 and set(vocabulary_pairs()) == shown
    assert not set(vocabulary_pairs()) & (left_out - shown)
    assert _via("voracité") == {}
    assert ravenous.lineage_id and ravenous.glossary_term_id
    assert _french_titles(ravenous) == {""}
    # Shown but unverified (mined from cards, enough agreeing cards, nobody checked it yet):
    # still used.
    trample = VocabularyTerm.objects.get(en="Trample", kind="keyword ability")
    assert trample.source == "cards" and not trample.verified and trample.shown
    assert _via("piétinement") == {"piétinement": "Trample"}
    assert _french_titles(trample) == {"Piétinement"}


def test_a_term_a_maintainer_checks_is_used_again(cards) -> None:
    ravenous = VocabularyTerm.objects.get(en="Ravenous", kind="keyword ability")
    ravenous.checked = True
    ravenous.save()
    assert ("Ravenous", "Voracité") in vocabulary_pairs()
    assert _french_titles(ravenous) == {"Voracité"}
