"""French rule texts in the search: the seed's French 602 (the only real French CR text we have)
imported onto the full archive, indexed with the French analyzer, found by French queries that
say which language matched and show the English the French translates."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from kb.archive.french_import import import_french_file
from kb.models import RuleVersion
from kb.sitesearch.service import search
from search.indexing import sync
from tests.crtext.french_fixtures import french_document, requires_seed

pytestmark = [pytest.mark.django_db, pytest.mark.slow, requires_seed]
APRIL_2010 = dt.date(2010, 4, 23)


@pytest.fixture
def french_602(search_index):
    """The seed's French 602 imported (rolled back after the test) and its lineages indexed;
    the index is put back as it was afterwards."""
    import_french_file(name="regles-602.txt", data=french_document().encode())
    french = RuleVersion.objects.exclude(text_fr__isnull=True).exclude(text_fr="")
    lineages = sorted({str(i) for i in french.values_list("lineage_id", flat=True)})
    assert len(lineages) >= 15  # 602 and its subrules
    sync("rule", lineages)
    try:
        yield
    finally:
        french.update(text_fr="")
        sync("rule", lineages)


def test_a_french_query_finds_the_french_rule_and_says_so(french_602) -> None:
    # Words only the French of 602.2a has ("zone cachée", "sommet de la pile"), stemmed in
    # French ("révèle" for "révéler").
    found = search("révéler zone cachée sommet de la pile", release="2010-04-23", lang="fr")
    top = found.results.hits[0]
    assert top.kind == "rule" and top.number == "602.2a"
    assert top.matched == ("fr",)
    assert "<mark>" in top.snippet("fr") and "cach" in top.snippet("fr")
    # Its English counterpart is the same hit: the English the French translates.
    assert top.snippet("en").startswith("The player announces")


def test_the_results_page_shows_the_french_then_the_english_it_translates(
    client, french_602
) -> None:
    page = client.get(
        "/fr/search/",
        {"q": "révéler zone cachée sommet de la pile", "release": "2010-04-23"},
    )
    assert page.status_code == 200
    html = page.content.decode()
    first = html.index('class="hit hit-rule"')
    hit = html[first : html.index("</li>", first)]
    assert "602.2a" in hit
    fr, en = hit.index('<p class="snippet" lang="fr">'), hit.index('<p class="snippet" lang="en">')
    assert fr < en
    assert ">EN</span>" in hit[en:] and "ability" in hit[en:]  # marked with its language
    # Which languages matched: said once for the page, or on a hit that differs.
    assert re.search(r"trouvé en (anglais et )?français", html)


def test_the_french_is_not_found_where_it_does_not_translate_the_english(french_602) -> None:
    """Today's 602.2a has changed since 2010: its version carries no French, so the French
    words find nothing in today's 602.2a."""
    today = search("révéler zone cachée sommet de la pile", lang="fr", kinds=["rule"])
    assert all(h.number != "602.2a" or "fr" not in h.matched for h in today.results.hits)
    april = search("révéler zone cachée sommet de la pile", release="2010-04-23", lang="fr")
    assert april.release.effective_date == APRIL_2010
