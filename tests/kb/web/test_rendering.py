"""Texts to HTML: references, symbols with accessible names, escaping."""

from __future__ import annotations

from django.utils import translation

from kb.web.rendering import Span, TermIndex, render_text, term_linker
from kb.web.symbols import describe


def resolve(number: str) -> str | None:
    return None if number == "999.9" else f"/en/2024-06-07/rules/{number}/"


def test_a_reference_links_in_the_release_being_read() -> None:
    html = render_text("revealed (see rule 701.16a).", [Span(19, 26, "701.16a")], resolve)
    assert html == (
        'revealed (see rule <a class="ref" href="/en/2024-06-07/rules/701.16a/">701.16a</a>).'
    )


def test_a_range_links_both_ends() -> None:
    html = render_text("rules 601.2b–h.", [Span(6, 14, "601.2b", "601.2h")], resolve)
    assert 'href="/en/2024-06-07/rules/601.2b/">601.2b</a>–<a class="ref"' in html
    assert 'href="/en/2024-06-07/rules/601.2h/">h</a>.' in html


def test_a_missing_target_stays_readable_text() -> None:
    html = render_text("see rule 999.9.", [Span(9, 14, "999.9")], resolve)
    assert '<span class="ref-missing" title="not in this release">999.9</span>' in html
    assert "<a" not in html


def test_symbols_are_images_with_names_in_the_page_language() -> None:
    text = "{T}, {2/W}, {B/P}, {W}{U}{B}{R}{G}, {C}, {E}, {2}, {X}, {Q}"
    html = render_text(text, [], resolve)
    assert 'class="ms ms-tap ms-cost" role="img" aria-label="tap symbol"' in html
    assert 'aria-label="two generic or white mana"' in html
    assert 'class="ms ms-bp ms-cost" role="img" aria-label="Phyrexian black mana"' in html
    assert html.count('role="img"') == 13
    with translation.override("fr"):
        html = render_text("{T} {W} {2/W} {B/P}", [], resolve)
    assert 'aria-label="symbole d’engagement"' in html
    assert 'aria-label="mana blanc"' in html
    assert 'aria-label="deux manas génériques ou un mana blanc"' in html
    assert 'aria-label="mana noir phyrexian"' in html


def test_an_unknown_symbol_falls_back_to_its_text() -> None:
    assert describe("Z9") is None
    assert render_text("pay {Z9} or {HW}", [], resolve) == "pay {Z9} or {HW}"


def test_everything_else_is_escaped() -> None:
    html = render_text('<script>alert("x")</script> & {T}', [], resolve)
    assert html.startswith("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; <span")


def test_glossary_terms_link_once_per_page() -> None:
    index = TermIndex.build({"activated ability": "activated-ability", "the stack": "stack"})
    link = term_linker(index, lambda slug: f"/en/current/glossary/{slug}/")
    first = render_text("Activated abilities use the stack.", [], resolve, link)
    assert first == (
        '<a class="term" href="/en/current/glossary/activated-ability/">Activated abilities</a>'
        ' use <a class="term" href="/en/current/glossary/stack/">the stack</a>.'
    )
    assert "<a" not in render_text("An activated ability on the stack.", [], resolve, link)
