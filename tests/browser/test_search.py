"""Search in a real browser: the header box, French reaching an English rule, the kind
filters, a misspelling corrected, a rule number opening its rule."""

from __future__ import annotations

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

    page.get_by_role("link", name="Cartes (").click()
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
