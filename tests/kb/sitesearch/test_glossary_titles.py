"""Glossary hits are titled by their headword, not by it and its own words again (issue 35:
"Legend (Obsolete) (Legend)" in the search results and the API)."""

from __future__ import annotations

import re

import pytest

from kb.documents import glossary_documents
from kb.models import GlossaryTerm

pytestmark = [pytest.mark.slow, pytest.mark.django_db]


def test_no_glossary_title_repeats_its_headword(archive) -> None:
    titles = {d.ref: d.titles["en"] for d in glossary_documents(None)}
    assert titles["legend"] == "Legend (Obsolete)"
    assert titles["control-controller"] == "Control, Controller"
    doubled = [t for t in titles.values() if re.search(r"\) \(|\(Obsolete\) \(", t)]
    assert doubled == []


def test_an_alias_that_adds_words_is_still_shown(archive) -> None:
    term = GlossaryTerm.objects.get(slug="legend")
    version = term.versions.order_by("-valid_from").first()
    aliases = ["Legend", "Legendary creature type"]
    type(version).objects.filter(pk=version.pk).update(aliases=aliases)
    (doc,) = [d for d in glossary_documents([str(term.pk)]) if d.key == str(version.pk)]
    assert doc.titles["en"] == "Legend (Obsolete) (Legendary creature type)"
