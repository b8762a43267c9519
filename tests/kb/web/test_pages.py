"""Reading pages on the full archive: releases by any date, links resolved in the release read,
French interface, constant queries, 404s that help."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from tests.kb.helpers import page_queries

pytestmark = [pytest.mark.slow, pytest.mark.django_db]


@pytest.fixture
def client(archive) -> Client:
    return Client()


def test_root_redirects_by_the_browsers_language(client: Client) -> None:
    assert client.get("/", HTTP_ACCEPT_LANGUAGE="fr-FR,fr;q=0.9").url == "/fr/"
    assert client.get("/", HTTP_ACCEPT_LANGUAGE="en-US").url == "/en/"


def test_home_shows_the_current_release_and_its_chapters(client: Client) -> None:
    html = client.get("/en/").content.decode()
    assert "August 7, 2026" in html
    assert 'href="/en/current/rules/602/"' in html
    assert 'href="/en/releases/"' in html
    assert 'role="search"' in html and 'name="q"' in html


def test_any_date_redirects_to_the_release_in_force(client: Client) -> None:
    response = client.get("/en/2016-05-20/rules/602.2a/")
    assert response.status_code == 302
    assert response.url == "/en/2016-04-08/rules/602.2a/?on=2016-05-20"
    html = client.get(response.url).content.decode()
    assert "The player announces that he or she is activating the ability." in html
    assert "April 8, 2016" in html


def test_a_page_asked_for_a_date_says_which_release_stands_for_it(client: Client) -> None:
    html = client.get("/en/2012-03-01/rules/602.2a/", follow=True).content.decode()
    assert "Rules in force on March 1, 2012: the February 1, 2012 release." in html
    assert 'href="/fr/2012-02-01/rules/602.2a/?on=2012-03-01"' in html  # it follows to /fr/
    fr = client.get("/fr/2012-03-01/rules/602.2a/", follow=True).content.decode()
    assert "Règles en vigueur le 1 mars 2012\u00a0: la version du 1 février 2012." in fr
    for url in ("/en/2012-03-01/glossary/", "/en/2012-03-01/rules/"):
        assert "Rules in force on March 1, 2012" in client.get(url, follow=True).content.decode()
    # Read straight, or with a date that is not this release's, the page says nothing of it.
    plain = client.get("/en/2012-02-01/rules/602.2a/").content.decode()
    assert "Rules in force on" not in plain
    other = client.get("/en/2012-02-01/rules/602.2a/?on=2016-05-20").content.decode()
    assert "Rules in force on" not in other
    assert client.get("/en/2012-02-01/rules/602.2a/?on=nonsense").status_code == 200


def test_current_pages_say_which_release_they_show(client: Client) -> None:
    html = client.get("/en/rules/602.2a/").content.decode()
    assert "Current rules: the release effective August 7, 2026" in html
    assert client.get("/en/current/rules/602.2a/").status_code == 200


def test_references_link_what_the_number_meant_in_that_release(client: Client) -> None:
    today = client.get("/en/rules/602.2a/").content.decode()
    assert '<a class="ref" href="/en/rules/701.20a/">701.20a</a>' in today
    in_2024 = client.get("/en/2024-06-07/rules/602.2a/").content.decode()
    assert '<a class="ref" href="/en/2024-06-07/rules/701.16a/">701.16a</a>' in in_2024
    reveal = client.get("/en/2024-06-07/rules/701.16a/").content.decode()
    assert "To reveal a card, show that card to all players" in reveal
    assert "Investigate" in client.get("/en/rules/701.16a/").content.decode()


def test_602_of_2011_links_its_rule_716_reference(client: Client) -> None:
    html = client.get("/en/2011-05-01/rules/602/").content.decode()
    assert '<a class="ref" href="/en/2011-05-01/rules/716/">716</a>' in html
    assert "Handling Illegal Actions" in client.get("/en/2011-05-01/rules/716/").content.decode()


def test_a_chapter_lists_every_entry_with_an_anchor(client: Client) -> None:
    html = client.get("/en/rules/702/").content.decode()
    anchors = re.findall(r'<div class="entry entry-(?:rule|subrule)" id="([^"]+)"', html)
    assert len(anchors) == len(set(anchors)) > 700
    assert "702.19" in anchors and "702.19c" in anchors
    assert '<p class="example"><span class="example-label">Example:</span>' in html


def test_a_section_lists_its_chapters(client: Client) -> None:
    html = client.get("/en/rules/6/").content.decode()
    assert 'href="/en/rules/602/">602. <span lang="en">Activating Activated Abilities' in html


def test_the_contents_page(client: Client) -> None:
    html = client.get("/en/2009-07-11/rules/").content.decode()
    assert "The Game" in html and 'href="/en/2009-07-11/rules/714/"' in html


def test_same_small_number_of_queries_for_small_and_large_pages(
    client: Client, monkeypatch
) -> None:
    """kb's own reads: the panels other apps draw on rule pages (rulings) are theirs to count
    (tests/rulings/test_pages.py), and whether a page has any depends on the data."""
    from kb import hooks

    monkeypatch.setattr(hooks, "_rule_panels", [])
    urls = ("/en/current/rules/", "/en/rules/702/", "/en/rules/100/", "/en/rules/602.2a/")
    counts = {url: page_queries(client, url) for url in urls}
    # A chapter of 1,250 entries as a chapter of 20: the same queries, whatever its size.
    assert counts["/en/rules/702/"] == counts["/en/rules/100/"]
    # 7 (11 before stop 28): headings, neighbours and French states come from tables kept
    # per archive state, whose stamp a reading request reads once (kb.stamps).
    assert max(counts["/en/rules/702/"], counts["/en/rules/602.2a/"]) <= 7, counts
    assert counts["/en/current/rules/"] <= 3, counts


def test_an_unknown_number_gets_a_helpful_404(client: Client) -> None:
    response = client.get("/en/rules/602.9z/")
    assert response.status_code == 404
    html = response.content.decode()
    assert "No rule 602.9z in this release" in html
    assert 'href="/en/rules/602.5/"' in html  # a neighbour in the same chapter
    old = client.get("/en/rules/731.6/")
    assert old.status_code == 404
    assert 'href="/en/2026-02-27/rules/731.6/"' in old.content.decode()  # where it existed
    fr = client.get("/fr/rules/602.9z/").content.decode()
    assert "Pas de règle 602.9z dans cette version" in fr


@pytest.mark.parametrize(
    "url",
    [
        "/en/1990-01-01/rules/602/",
        "/en/2016-13-45/rules/602/",
        "/en/rules/0/",
        "/en/rules/1.2.3.4/",
        "/en/current/glossary/no-such-term/",
        "/de/rules/602/",
        "/en/current/rules/99999999999/",
    ],
)
def test_bad_addresses_are_404_not_500(client: Client, url: str) -> None:
    assert client.get(url).status_code == 404


def test_the_release_switcher_lists_only_releases_of_the_lineage(client: Client) -> None:
    investigate = client.get("/en/rules/701.16a/").content.decode()
    switcher = investigate[investigate.index('<details class="switcher">') :]
    switcher = switcher[: switcher.index("</details>")]
    assert "/en/2025-06-06/rules/701.16a/" in switcher
    # Investigate was 701.36a before 2025-06-06; 701.16a was Reveal then: another lineage.
    assert "/en/2025-04-04/rules/701.16a/" not in switcher
    assert '<a href="/en/2025-04-04/rules/701.36a/">2025-04-04</a>' in switcher
    assert "/en/2021-04-22/" not in switcher  # before Investigate existed
    reveal = client.get("/en/rules/701.20a/").content.decode()
    assert '<a href="/en/2024-06-07/rules/701.16a/">2024-06-07</a>' in reveal
    assert '— <span class="was">701.16a</span>' in reveal


def test_cite_canonical_and_alternates(client: Client) -> None:
    html = client.get("/en/2024-06-07/rules/602.2a/").content.decode()
    cite = re.search(r'<textarea id="cite-text"[^>]*>(.*?)</textarea>', html).group(1)
    assert cite == "CR 602.2a (2024-06-07) http://testserver/en/2024-06-07/rules/602.2a/"
    assert '<link rel="canonical" href="http://testserver/en/2024-06-07/rules/602.2a/">' in html
    assert 'hreflang="fr" href="http://testserver/fr/2024-06-07/rules/602.2a/"' in html


def test_french_interface_dates_and_notice(client: Client, cards) -> None:
    """(`cards`: the glosses and French names come from the vocabulary the cards give.)"""
    html = client.get("/fr/rules/602.2a/").content.decode()
    assert '<html lang="fr">' in html
    assert "Règle 602.2a" in html and "Sommaire" in html and "Glossaire" in html
    assert "version du 7 août 2026" in html
    assert "Aucun texte officiel français des Règles complètes n’est chargé" in html
    # The English text, its terms glossed in French (kb.french.glosses: "player (joueur)").
    assert '<span class="text" lang="en">The player<span class="gloss" lang="fr"' in html
    assert "(joueur)</span> announces" in html
    assert "Formulation modifiée le 7 juin 2024" in html
    english = client.get("/en/rules/602.2a/").content.decode()
    assert 'href="/fr/rules/602.2a/"' in english  # the language switcher keeps the page


def test_symbols_are_drawn(client: Client) -> None:
    html = client.get("/en/rules/107.4/").content.decode()
    assert 'class="ms ms-w ms-cost" role="img" aria-label="white mana"' in html
    fr = client.get("/fr/rules/107.4/").content.decode()
    assert 'aria-label="mana blanc"' in fr


def test_glossary_pages_and_terms_linked_from_rules(client: Client) -> None:
    html = client.get("/en/current/glossary/").content.decode()
    assert html.count('<dt id="') == 739
    term = client.get("/en/current/glossary/trample/").content.decode()
    assert "A keyword ability that modifies how a creature assigns combat damage" in term
    assert 'href="/en/rules/702.19/"' in term
    rule = client.get("/en/rules/602.2a/").content.decode()
    assert (
        '<a class="term" href="/en/current/glossary/activated-ability/">activated ability</a>'
        in rule
    )
    old = client.get("/en/2009-07-11/glossary/").content.decode()
    assert old.count('<dt id="') == 408


def test_the_releases_page(client: Client) -> None:
    html = client.get("/en/releases/").content.decode()
    assert html.count('<tr><td class="date" data-label="Effective date"><a href="/en/') == 133
    assert "Modern Horizons 3" in html and "MH3" in html
    fr = client.get("/fr/releases/").content.decode()
    assert "7 août 2026" in fr


def test_nothing_is_loaded_from_another_site(client: Client) -> None:
    for url in ("/en/", "/en/rules/602.2a/", "/fr/rules/702/", "/en/current/glossary/"):
        html = client.get(url).content.decode()
        for attr in re.findall(r'(?:src|href)="([^"]+)"', html):
            if attr.startswith(("http://", "https://", "//")):
                # Only absolute links to ourselves (canonical, alternates).
                assert attr.startswith("http://testserver/"), (url, attr)
        assert "@import" not in html


def test_a_chapter_page_indexes_its_rules(client: Client, cards) -> None:
    """702's keywords in an index (French names first under /fr/); a chapter of sentences by
    their first words; each entry links to its rule on the page (issue 15)."""
    from kb.models import Release, RuleNumber

    current = Release.objects.order_by("-effective_date").first().effective_date
    rules = RuleNumber.objects.as_of(current).filter(chapter="702", kind="rule").count()
    html = client.get("/fr/rules/702/").content.decode()
    index = re.search(r'<ol class="chapter-index-list">(.*?)</ol>', html, re.S).group(1)
    assert index.count("<li>") == rules > 150
    assert re.search(
        r'<a href="#702\.19"><span class="n">702\.19</span> <span lang="fr">Piétinement</span>',
        index,
    )
    assert f"{rules} règles dans ce chapitre" in html and "Haut de page" in html
    english = client.get("/en/rules/601/").content.decode()
    assert '<a href="#601.2"><span class="n">601.2</span> <span lang="en">To cast a spell is' in (
        english
    )


def test_glossary_entries_and_histories_have_a_whole_citation(client: Client) -> None:
    """Every page a reader may quote carries a cite box pinned to its release (issue 15)."""
    from kb.models import Release

    date = Release.objects.order_by("-effective_date").first().effective_date.isoformat()
    cite = r'<textarea id="cite-text"[^>]*>(.*?)</textarea>'
    term = client.get("/en/current/glossary/trample/").content.decode()
    assert re.search(cite, term).group(1) == (
        f"CR glossary, Trample ({date}) http://testserver/en/{date}/glossary/trample/"
    )
    history = client.get("/fr/rules/602.2a/history/").content.decode()
    assert re.search(cite, history).group(1) == (
        f"CR 602.2a, historique ({date}) http://testserver/fr/{date}/rules/602.2a/history/"
    )


def test_headings_and_neighbours_follow_an_edit_at_once(client: Client) -> None:
    """A rule page's section and chapter headings, the rule above a subrule and the previous
    and next links come from tables kept per release and archive state (kb.selectors): a
    maintainer's edit of a chapter's title shows on the next page read."""
    from kb.archive import editing
    from kb.models import Release, RuleVersion

    date = Release.objects.latest("effective_date").effective_date
    page = client.get("/en/rules/702.19b/").content.decode()
    crumbs = page[page.index('<nav class="breadcrumbs"') :]
    crumbs = crumbs[: crumbs.index("</nav>")]
    assert '7. <span lang="en">Additional Rules</span>' in crumbs, crumbs
    assert '702. <span lang="en">Keyword Abilities</span>' in crumbs
    assert '<a href="/en/rules/702.19/">702.19</a>' in crumbs  # the rule above the subrule
    assert '<a rel="prev" href="/en/rules/702.19a/">' in page
    assert '<a rel="next" href="/en/rules/702.19c/">' in page
    chapter = RuleVersion.objects.as_of(date).get(lineage__numbers__number="702")
    editing.edit_rule_version(version=chapter, user="t", text_en="Keyword Abilities (edited)")
    for url in ("/en/rules/702.19b/", "/en/rules/702.19/"):
        assert (
            '702. <span lang="en">Keyword Abilities (edited)</span>'
            in client.get(url).content.decode()
        )
