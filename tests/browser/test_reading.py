"""Reading the rules in a real browser."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import shot

# django_db makes pytest-django set up the test database even when only these tests run.
pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.django_db]

#: Chromium majors this Playwright has been checked with. A Chromium outside this range fails
#: here, loudly, instead of making the other browser tests flaky.
CHROMIUM_MAJORS = range(120, 170)


def test_playwright_drives_this_chromium(browser) -> None:
    from importlib.metadata import version

    major = int(browser.version.split(".")[0])
    assert major in CHROMIUM_MAJORS, (
        f"Chromium {browser.version} with Playwright {version('playwright')}: outside the "
        f"checked range {CHROMIUM_MAJORS.start}-{CHROMIUM_MAJORS.stop - 1}; check and widen it"
    )
    assert version("playwright") == "1.56.0"


def test_read_602_2a_follow_a_reference_and_open_an_old_release(page, server_url) -> None:
    page.goto(server_url + "/en/")
    expect(page.get_by_role("heading", level=1)).to_have_text(
        "Magic: The Gathering Comprehensive Rules"
    )
    expect(page.locator(".current-release")).to_contain_text("August 7, 2026")
    shot(page, "1-home")

    page.goto(server_url + "/en/rules/602.2a/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Rule 602.2a")
    expect(page.locator(".entry").first).to_contain_text(
        "The player announces that they are activating the ability."
    )
    shot(page, "2-602.2a")

    page.get_by_role("link", name="701.20a", exact=True).click()
    expect(page).to_have_url(server_url + "/en/rules/701.20a/")
    expect(page.locator(".entry").first).to_contain_text("To reveal a card, show that card")
    shot(page, "3-701.20a")

    page.goto(server_url + "/en/2016-05-20/rules/602.2a/")
    expect(page).to_have_url(server_url + "/en/2016-04-08/rules/602.2a/?on=2016-05-20")
    expect(page.locator(".release-banner")).to_contain_text(
        "Rules in force on May 20, 2016: the April 8, 2016 release."
    )
    expect(page.locator(".entry").first).to_contain_text(
        "The player announces that he or she is activating the ability."
    )
    shot(page, "4-602.2a-2016")

    page.get_by_role("link", name="FR", exact=True).click()
    expect(page).to_have_url(server_url + "/fr/2016-04-08/rules/602.2a/?on=2016-05-20")
    expect(page.get_by_role("heading", level=1)).to_have_text("Règle 602.2a")
    expect(page.locator(".release-banner")).to_contain_text("Règles en vigueur le 20 mai 2016")
    expect(page.locator(".notice")).to_contain_text("Aucun texte officiel français")
    expect(page.get_by_role("link", name="Glossaire")).to_be_visible()
    shot(page, "5-602.2a-fr")


def test_symbols_keyboard_and_cite(page, server_url) -> None:
    page.goto(server_url + "/en/2014-02-01/rules/602.1a/")
    page.evaluate("document.fonts.ready")
    tap = page.get_by_role("img", name="tap symbol").first
    expect(tap).to_be_visible()
    assert page.evaluate("document.fonts.check('14px Mana')")
    page.keyboard.press("/")
    expect(page.locator("#q")).to_be_focused()
    page.keyboard.press("Escape")
    page.locator("body").click(position={"x": 5, "y": 300})
    page.keyboard.press("Tab")
    expect(page.get_by_role("link", name="Skip to content")).to_be_focused()
    cite = page.locator("#cite-text")
    expect(cite).to_have_value(
        re.compile(
            r"^CR 602\.1a \(2014-02-01\) http://127\.0\.0\.1:\d+/en/2014-02-01/rules/602\.1a/$"
        )
    )


def test_a_phone_reads_without_sideways_scrolling(browser, server_url) -> None:
    context = browser.new_context(viewport={"width": 375, "height": 740}, color_scheme="dark")
    page = context.new_page()
    for url in ("/en/", "/en/rules/702/", "/fr/rules/602.2a/", "/en/releases/"):
        page.goto(server_url + url)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 375, (url, width)
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(22, 22, 26)"  # dark mode follows the system
    shot(page, "6-phone-dark-releases")
    context.close()


@pytest.mark.parametrize("width", [375, 1280])
def test_the_citation_shows_whole_with_copy_beside_it(browser, server_url, width: int) -> None:
    context = browser.new_context(viewport={"width": width, "height": 800})
    page = context.new_page()
    page.goto(server_url + "/en/2014-02-01/rules/602.1a/")
    cite = page.locator("#cite-text")
    whole = "(e) => e.scrollHeight <= e.clientHeight + 1 && e.scrollWidth <= e.clientWidth + 1"
    assert cite.evaluate(whole), "the citation is cut"
    box = cite.bounding_box()
    button = page.locator(".cite button.copy").bounding_box()
    assert abs(button["y"] - box["y"]) < 6 and button["x"] >= box["x"] + box["width"] - 1
    context.close()


def test_the_api_docs_show_every_operation_offline(page, server_url) -> None:
    """Swagger UI from the site's own static files renders the schema: its operations are
    listed and nothing is fetched from another site (a schema it cannot parse shows an error
    and no operation)."""
    outside: list[str] = []
    page.on(
        "request", lambda r: outside.append(r.url) if not r.url.startswith(server_url) else None
    )
    page.goto(server_url + "/api/docs")
    expect(page.locator(".opblock").first).to_be_visible(timeout=15_000)
    assert page.locator(".opblock").count() >= 10
    expect(page.get_by_text("/api/v1/search", exact=True).first).to_be_visible()
    assert not page.get_by_text("Unable to render this definition").count()
    assert outside == []
    shot(page, "api-docs")
