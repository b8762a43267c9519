"""Long pages in a real browser (issue 15): 702's keyword index, the glossary's filter box,
the cite box's Copy, and the history feed a page announces."""

from __future__ import annotations

import urllib.request

import feedparser
import pytest
from playwright.sync_api import expect

from tests.browser.conftest import shot

pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.django_db]


def test_702s_keyword_index_leads_to_the_keyword(page, server_url) -> None:
    page.goto(server_url + "/fr/rules/702/")
    index = page.locator(".chapter-index-list")
    entry = index.get_by_role("link", name="702.19 Piétinement Trample")
    expect(entry).to_be_visible()
    entry.click()
    expect(page).to_have_url(server_url + "/fr/rules/702/#702.19")
    expect(page.locator('[id="702.19"]')).to_be_in_viewport()
    expect(page.locator(".back-to-top")).to_be_in_viewport()  # sticky while reading
    shot(page, "10-keyword-index")


def test_the_glossary_filters_as_one_types(page, server_url) -> None:
    page.goto(server_url + "/fr/current/glossary/")
    page.fill("#glossary-q", "pietine")
    visible = page.locator("dl.glossary > dt:visible")
    expect(visible).to_have_count(1)
    expect(visible).to_contain_text("Piétinement")
    expect(page.locator("#glossary-count")).to_have_text("1 entrée trouvée")
    page.fill("#glossary-q", "")
    expect(page.locator("dl.glossary > dt:visible")).to_have_count(
        page.locator("dl.glossary > dt").count()
    )


def test_copy_the_citation_and_follow_the_feed(page, server_url) -> None:
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.goto(server_url + "/en/rules/602.2a/")
    button = page.locator(".cite button.copy")
    button.click()
    expect(button).to_have_text("Copied")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.startswith("CR 602.2a (") and copied.endswith("/rules/602.2a/")
    feed = page.locator('link[rel="alternate"][type="application/atom+xml"][href$="history.atom"]')
    href = feed.get_attribute("href")
    with urllib.request.urlopen(server_url + href) as response:
        parsed = feedparser.parse(response.read())
    assert not parsed.bozo and parsed.feed.title == "History of rule 602.2a"
