"""French glosses on English rule text under /fr/ (kb.french.glosses)."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.utils import translation

from kb.french.glosses import build

TERMS = [
    ("Trample", "Piétinement", "keyword ability", False),
    ("Double Strike", "Double initiative", "keyword ability", True),
    ("Double", "doubler", "keyword action", False),
    ("Stack", "pile", "zone", True),
    ("Exile", "exiler", "keyword action", True),
    ("Exile", "exil", "zone", True),
    ("State-based actions", "actions basées sur un état", "glossary", True),
    ("Vigilance", "Vigilance", "keyword ability", False),
    ("Counter (marker)", "marqueur", "glossary", True),
]


def _glosses(html: str) -> list[str]:
    return re.findall(r'<span class="gloss" lang="fr"[^>]*> \(([^)]*)\)</span>', html)


def test_longest_term_first_first_occurrence_only() -> None:
    g = build(TERMS)
    html = str(g.gloss("A creature with double strike and trample; trample again. Double it."))
    assert _glosses(html) == ["Double initiative", "Piétinement", "doubler"]
    assert html.startswith("A creature with double strike<span")
    assert "trample again" in html  # the second "trample" is left alone


def test_a_block_glosses_a_term_once_across_its_text_and_examples() -> None:
    g = build(TERMS)
    done: set[str] = set()
    text = str(g.gloss("An attacking creature with trample.", done))
    first = str(g.gloss("A 3/3 with trample and the stack.", done))
    second = str(g.gloss("A 6/6 with trample.", done))
    assert _glosses(text) == ["Piétinement"]
    assert _glosses(first) == ["pile"]  # trample glossed in the text already
    assert _glosses(second) == []
    # Without a shared set, each text is a block of its own (glossaries, titles).
    assert _glosses(str(g.gloss("A 6/6 with trample."))) == ["Piétinement"]


def test_never_inside_a_link_or_a_marked_span_and_after_a_linked_term() -> None:
    g = build(TERMS)
    html = str(
        g.gloss(
            'Put it on the <a class="term" href="/fr/g/stack/">stack</a> when '
            '<span class="gloss" lang="fr"> (exil)</span> <abbr title="x">Trample</abbr> '
            '<span class="ms ms-t" role="img" aria-label="tap"></span> then exile it.'
        )
    )
    assert '<a class="term" href="/fr/g/stack/">stack</a><span class="gloss"' in html
    assert not re.search(r"<a [^>]*>[^<]*<span class=\"gloss\"", html)
    assert '<abbr title="x">Trample</abbr> ' in html  # nothing added inside or after it
    assert _glosses(html) == ["pile", "exil", "exiler"]  # the marked span is left as it was
    # A link naming more than a term gets no gloss of a word inside it.
    html = str(g.gloss('The <a href="/g/">active stack</a> goes.'))
    assert _glosses(html) == []


def test_a_determiner_makes_a_shared_name_the_zone_and_same_words_are_not_glossed() -> None:
    g = build(TERMS)
    assert _glosses(str(g.gloss("Cards in exile stay there."))) == ["exil"]
    assert _glosses(str(g.gloss("Exile target creature."))) == ["exiler"]
    assert _glosses(str(g.gloss("It has vigilance."))) == []
    assert _glosses(str(g.gloss("Check state-based actions."))) == ["actions basées sur un état"]
    assert _glosses(str(g.gloss("Put a counter on it."))) == []  # "Counter (marker)" skipped


def test_a_participle_is_not_its_verb_and_a_quoted_title_is_not_glossed() -> None:
    """Issue 35: "An activated (activer) or triggered ability", "is revealed (révéler)" and
    "Spells (sort), Abilities, and Effects" inside a cited section's title were wrong."""
    g = build(
        [
            ("Activate", "activer", "keyword action", True),
            ("Reveal", "révéler", "keyword action", True),
            ("Spell", "sort", "glossary", True),
            ("Tapped", "engagé", "glossary", True),
        ]
    )
    html = str(g.gloss("An activated or triggered ability; the card is revealed. Activate it."))
    assert _glosses(html) == ["activer"] and "Activate<span" in html
    cited = str(
        g.gloss(
            'The ability is not a spell. (See <a href="/fr/rules/6/">section 6</a>, '
            "“Spells, Abilities, and Effects.”) Spells and tapped permanents."
        )
    )
    assert "“Spells, Abilities, and Effects.”" in cited  # the title as printed
    assert _glosses(cited) == ["sort", "engagé"]  # the spell outside it; a term of its own


def test_a_zone_is_glossed_after_its_name_and_a_possessive_keeps_its_ending() -> None:
    g = build(
        [
            ("Command", "zone de commandement", "zone", True),
            ("Owner", "propriétaire", "glossary", True),
        ]
    )
    html = str(g.gloss("Put it into the command zone. It goes to its owner’s graveyard."))
    assert "command zone<span" in html and "owner’s<span" in html
    assert _glosses(html) == ["zone de commandement", "propriétaire"]


def test_glosses_are_escaped_and_marked_for_screen_readers() -> None:
    g = build([("Stack", "pile <b>", "zone", True), ("Trample", "Piétinement", "keyword", False)])
    with translation.override("en"):
        html = str(g.gloss("the stack and trample"))
    assert "(pile &lt;b&gt;)" in html and "<b>" not in html
    assert 'lang="fr" title="French term (unverified)"> (Piétinement)' in html


@pytest.mark.slow
@pytest.mark.django_db
def test_french_rule_page_glosses_trample_and_english_does_not(cards, client: Client) -> None:
    html = client.get("/fr/current/rules/702.19/").content.decode()
    entry = html[html.index('id="702.19b"') :]
    entry = entry[: entry.index("</p>")]
    assert 'with trample<span class="gloss" lang="fr"' in entry
    assert "(Piétinement)</span>" in entry
    # A linked term is glossed after its link, never inside it.
    assert 'attacking creature</a><span class="gloss" lang="fr"' in entry
    assert not re.search(r"<a [^>]*>(?:(?!</a>).)*class=\"gloss\"", html, re.S)
    assert 'class="gloss-toggle" hidden' in html and "Masquer les termes français" in html
    # The keyword's own title is named by its badge, not glossed again.
    title = html[html.index('id="702.19"') :]
    assert title[: title.index("</p>")].count('class="gloss"') == 0
    english = client.get("/en/current/rules/702.19/").content.decode()
    assert 'class="gloss"' not in english and "gloss-toggle" not in english


@pytest.mark.slow
@pytest.mark.django_db
def test_a_term_of_a_rule_is_not_glossed_again_in_its_examples(cards, client: Client) -> None:
    html = client.get("/fr/current/rules/702.19/").content.decode()
    block = html[html.index('id="702.19b"') : html.index('id="702.19c"')]
    examples = block[block.index('class="example"') :]
    # 702.19b says "trample" in its text, twice in its first example and once in its second.
    assert examples.count("trample") == 3 and examples.count('class="example"') == 2
    assert block.count("(Piétinement)</span>") == 1
    assert 'with trample<span class="gloss" lang="fr"' in block[: block.index("</p>")]
    assert "(Piétinement)" not in examples


@pytest.mark.slow
@pytest.mark.django_db
def test_state_based_actions_and_the_stack_are_glossed_on_704(cards, client: Client) -> None:
    html = client.get("/fr/current/rules/704.5/").content.decode()
    assert "(actions basées sur un état)</span>" in html
    assert 'the stack<span class="gloss" lang="fr"' in html and "(pile)</span>" in html
    glossary = client.get("/fr/current/glossary/").content.decode()
    assert 'class="gloss"' in glossary
    assert 'class="gloss"' not in client.get("/en/current/glossary/").content.decode()


@pytest.mark.slow
@pytest.mark.django_db
def test_section_and_chapter_titles_in_french_where_the_vocabulary_names_them(
    cards, client: Client
) -> None:
    html = client.get("/fr/current/rules/405/").content.decode()
    assert (
        '<h1 id="405">405. <span lang="fr">Pile</span> '
        '<span class="title-en" lang="en">(Stack)</span></h1>'
    ) in html
    assert "<title>405. Pile (Stack)" in html
    section = client.get("/fr/current/rules/5/").content.decode()
    assert '506. <span lang="fr">Phase de combat</span>' in section
    assert '<span lang="en">Turn Structure</span>' in section  # no French known: English
    home = client.get("/fr/").content.decode()
    assert '<span lang="fr">Jetons</span> <span class="title-en" lang="en">(Tokens)</span>' in home
    # A chapter whose title is not the term it defines keeps its English title.
    assert (
        '<span lang="en">Activating Activated Abilities</span>'
        in client.get("/fr/current/rules/602/").content.decode()
    )
    english = client.get("/en/current/rules/405/").content.decode()
    assert '<h1 id="405">405. <span lang="en">Stack</span></h1>' in english


@pytest.mark.slow
@pytest.mark.django_db
def test_the_french_glossary_is_sorted_and_filtered_by_french_name(cards, client: Client) -> None:
    html = client.get("/fr/current/glossary/").content.decode()
    order = re.findall(r'<dt id="([^"]+)"', html)
    # "Stack" is listed as "pile", between "phase…" and "pioche…" entries, not under S.
    assert order.index("stack") < order.index("sacrifice")
    p_section = html[html.index('id="letter-P"') : html.index('id="letter-Q"')]
    assert 'id="stack"' in p_section and 'id="trample"' in p_section
    assert '<a href="/fr/current/glossary/trample/" lang="fr">Piétinement</a>' in html
    found = client.get("/fr/current/glossary/", {"q": "pietinement"}).content.decode()
    assert re.findall(r'<dt id="([^"]+)"', found) == ["trample"]
    assert client.get("/fr/current/glossary/", {"q": "zzzz"}).status_code == 200
    english = client.get("/en/current/glossary/").content.decode()
    names = re.findall(r'<dt id="([^"]+)"', english)
    assert names.index("sacrifice") < names.index("stack")  # English order on /en/


@pytest.mark.slow
@pytest.mark.django_db
def test_french_titles_and_glosses_cost_a_fixed_few_queries(cards, client: Client) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from kb.french import glosses

    def count(url: str) -> int:
        glosses.forget()  # the worst case: the vocabulary read again
        with CaptureQueriesContext(connection) as queries:
            assert client.get(url).status_code == 200
        return len(queries)

    # Contents: 130 French titles; 704: hundreds of glosses. A few queries more, not hundreds.
    assert count("/fr/current/rules/") - count("/en/current/rules/") <= 3
    assert count("/fr/current/rules/704/") - count("/en/current/rules/704/") <= 3
