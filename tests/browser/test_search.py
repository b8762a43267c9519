"""Search in a real browser: the header box, French reaching an English rule, the kind
tabs, a misspelling corrected, a rule number opening its rule; the results page's groups,
tabs and more-cards link, and a phone's width."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import shot

pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.django_db]


def test_search_from_the_header_box(page, server_url, search_index) -> None:
    page.goto(server_url + "/fr/")
    page.keyboard.press("/")  # focuses the search box
    page.keyboard.type("piétinement")
    page.keyboard.press("Enter")
    first = page.locator(".search-results > li").first
    expect(first).to_contain_text("702.19 Trample")
    expect(page.locator(".via")).to_contain_text("piétinement → Trample")
    shot(page, "20-search-french")

    page.locator(".tabs").get_by_role("link", name=re.compile(r"^Cartes \d+")).click()
    expect(page.locator(".search-results .hit-card").first).to_be_visible()
    expect(page.locator(".search-results > li:not(.hit-card)")).to_have_count(0)

    page.goto(server_url + "/en/search/?q=deathtuch")
    expect(page.locator(".did-you-mean")).to_contain_text("Showing results for deathtouch")
    page.locator(".search-results > li").first.get_by_role("link").first.click()
    expect(page).to_have_url(server_url + "/en/rules/702.2/")
    shot(page, "21-search-corrected")

    page.goto(server_url + "/en/")
    page.fill("#q", "CR 602.2a")
    page.keyboard.press("Enter")
    expect(page).to_have_url(server_url + "/en/rules/602.2a/")


def test_the_results_page_groups_tabs_and_more_cards(page, server_url, search_index) -> None:
    page.goto(server_url + "/en/search/?q=trample")
    expect(page.locator("#q")).to_have_value("trample")
    expect(page.locator("form[role=search]")).to_have_count(1)  # one search box
    headings = page.locator(".result-group h2")
    expect(headings).to_contain_text(["Rules and glossary", "Rulings", "Cards"])
    first = page.locator(".group-rules .hit").first
    expect(first).to_contain_text("702.19 Trample")
    expect(first.locator(".snippet")).to_contain_text("702.19b The controller of an attacking")
    expect(page.locator(".tabs a[aria-current=page]")).to_have_text(re.compile(r"^All \d+$"))
    shot(page, "22-search-groups")

    more = page.locator(".group-cards .more a")
    # With cards on the page "More cards (992 in all)", without "See the cards (992)".
    expect(more).to_have_text(
        re.compile(r"^(More cards \(\d{3,} in all\)|See the cards \(\d{3,}\))")
    )
    more.click()
    expect(page).to_have_url(re.compile(r"/en/search/\?q=trample&kind=card$"))
    expect(page.locator(".tabs a[aria-current=page]")).to_have_text(re.compile(r"^Cards \d{3,}$"))
    expect(page.locator(".search-results .hit-card").first).to_be_visible()
    expect(page.locator(".search-results > li:not(.hit-card)")).to_have_count(0)
    expect(page.locator(".result-group h2")).to_have_count(0)  # one kind: no group headings

    # Another tab keeps the query and the filters; the filters row keeps the tab.
    page.select_option("#search-release", "2020-06-01")
    page.locator(".search-form button").click()
    expect(page).to_have_url(re.compile(r"kind=card&release=2020-06-01"))
    page.locator(".tabs").get_by_role("link", name=re.compile(r"^Rules \d+")).click()
    expect(page).to_have_url(re.compile(r"q=trample&kind=rule&release=2020-06-01"))
    expect(page.locator(".search-results > li").first).to_contain_text("702.19")
    expect(page.locator(".pagination li")).to_have_count(0)


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_results_page_fits_a_phone(browser, server_url, search_index, lang) -> None:
    context = browser.new_context(viewport={"width": 375, "height": 800}, locale="fr-FR")
    phone = context.new_page()
    try:
        for query in ("piétinement", "lightning bolt", "flying&kind=ruling&page=3"):
            phone.goto(f"{server_url}/{lang}/search/?q={query}")
            expect(phone.locator(".tabs")).to_be_visible()
            widths = phone.evaluate(
                "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
            )
            assert widths[0] <= widths[1] == 375, (query, widths)
            pages = phone.locator(".pagination li")
            if pages.count():  # page links in a row: all on one line
                tops = {round(b["y"]) for b in (li.bounding_box() for li in pages.all())}
                assert len(tops) == 1, tops
        shot(phone, f"23-search-phone-{lang}")
    finally:
        context.close()
