"""French titles beyond the rule pages (issue 13): the diff pages and the search results'
chapter line under /fr/ title sections and chapters as the rule pages do (the French
document's title, else the vocabulary's), the English where no French title is known."""

from __future__ import annotations

import datetime as dt
import html as htmllib
import re

import pytest
from django.test import Client

from kb.archive.french_import import import_french_file
from kb.selectors import chapter_titles_with_french
from tests.crtext.french_fixtures import french_document, requires_seed

pytestmark = [pytest.mark.slow, pytest.mark.django_db]


def test_diff_pages_title_sections_and_chapters_in_french(cards, client: Client) -> None:
    # 2009-09-04 added chapter 408 "Command": the vocabulary names it "zone de commandement".
    french = client.get("/fr/diff/2009-07-11..2009-09-04/", {"section": "4"}).content.decode()
    assert re.search(
        r'>408</a> <span lang="fr">Zone de commandement</span> '
        r'<span class="title-en" lang="en">\(Command\)</span>',
        french,
    )
    # No French title for section 4: its English stays, marked as such.
    assert '<h2 id="s-4">4. <span lang="en">Zones</span></h2>' in french
    english = client.get("/en/diff/2009-07-11..2009-09-04/", {"section": "4"}).content.decode()
    assert re.search(r'>408</a> <span lang="en">Command</span>', english)
    assert "Zone de commandement" not in english


def test_search_results_give_the_chapter_its_french_title(search_index, client) -> None:
    def contexts(lang: str) -> list[str]:
        page = client.get(f"/{lang}/search/", {"q": "stack", "kind": "rule"}).content.decode()
        found = re.findall(r'<p class="hit-context">([^<]*)</p>', page)
        return [htmllib.unescape(c) for c in found]

    french = contexts("fr")
    assert "405. Pile (Stack)" in french
    english = contexts("en")
    assert "405. Stack" in english and not any("Pile" in c for c in english)
    # A chapter the vocabulary does not name keeps its English title under /fr/ too.
    assert chapter_titles_with_french(["100", "405"], dt.date(2026, 8, 7)) == {
        "100": ("General", ""),
        "405": ("Stack", "Pile"),
    }


@requires_seed
def test_a_loaded_french_document_titles_its_chapters(cards) -> None:
    import_french_file(name="regles-602.txt", data=french_document().encode())
    assert chapter_titles_with_french(["602", "601"], dt.date(2010, 4, 23)) == {
        "601": ("Casting Spells", ""),
        "602": ("Activating Activated Abilities", "Activer des capacités activées"),
    }
