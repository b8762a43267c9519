"""The results page's hits as HTML (kb.sitesearch.markup): escaped as the template escaped,
snippets left as the highlighter made them, in the page's language."""

from __future__ import annotations

import datetime as dt

from django.utils import translation

from kb.sitesearch.markup import hit_items
from kb.sitesearch.views import shown
from search.documents import Hit


def _hit(**fields) -> Hit:
    base = dict(
        kind="ruling",
        key="1",
        ref="x",
        titles={"en": "A <b> card"},
        number="",
        chapter="",
        label="Fire & Ice",
        date=dt.date(2008, 10, 1),
        valid_from=None,
        valid_to=None,
        score=1.0,
        snippets={"en": "the <mark>stack</mark> &amp; more"},
        matched=("en",),
        url="/en/cards/fire-ice/?a=1&b=2#ruling-1",
    )
    return Hit(**{**base, **fields})


def test_values_are_escaped_and_snippets_kept() -> None:
    html = hit_items([shown(_hit(context='<i>"x"</i>'))])
    assert (
        '<a href="/en/cards/fire-ice/?a=1&amp;b=2#ruling-1">Fire &amp; Ice, 2008-10-01</a>' in html
    )
    assert '<p class="hit-context">&lt;i&gt;&quot;x&quot;&lt;/i&gt;</p>' in html
    assert '<p class="snippet" lang="en">the <mark>stack</mark> &amp; more</p>' in html
    assert '<span class="kind">ruling</span>' in html and "<i>" not in html


def test_a_ruling_on_many_cards_names_five_and_counts_the_rest() -> None:
    also = tuple((f"card-{n}", f"Card <{n}>") for n in range(8))
    with translation.override("en"):
        html = hit_items([shown(_hit(also=also), usual=("en",))])
    assert html.count('<a href="/en/cards/card-') == 5
    assert "Card &lt;0&gt;</a>, <a" in html and html.endswith(
        "and 3 other cards</p>\n    </li>\n  "
    )
    with translation.override("fr"):
        html = hit_items([shown(_hit(also=also[:6]), usual=("en",))])
    assert '<p class="also">Aussi sur ' in html and "et 1 autre carte</p>" in html


def test_a_rule_shows_its_number_and_heading_and_its_french_term() -> None:
    rule = _hit(
        kind="rule",
        number="702.19",
        titles={"en": "Trample", "fr": "Piétinement"},
        snippets={"en": "x"},
        url="/en/rules/702.19/",
    )
    with translation.override("fr"):
        html = hit_items([shown(rule)])
    assert '<a href="/en/rules/702.19/"><span class="num">702.19</span> Trample</a>' in html
    assert '<span lang="fr" class="other-name" title="terme français">Piétinement</span>' in html
    assert '<span class="kind">règle</span>' in html
    assert '<p class="matched">trouvé en anglais</p>' in html  # not the page's usual language
