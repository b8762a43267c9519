"""Cards in a real browser: a misspelt French name, its suggestion, a ruling's rule link."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import shot

pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.django_db]


def test_misspelt_french_name_to_a_ruling_and_its_rule(page, server_url) -> None:
    page.goto(server_url + "/fr/cards/")
    box = page.get_by_role("combobox")
    box.press_sequentially("catapulte a glans", delay=20)  # accent and a letter missing
    option = page.get_by_role("option", name="Catapulte à glands — Acorn Catapult")
    # The first names query of a fresh server process loads its name tables: a loaded CI
    # machine may take more than the default 5 s.
    expect(option).to_be_visible(timeout=20_000)
    shot(page, "10-card-suggestions")
    box.press("ArrowDown")
    expect(option).to_have_attribute("aria-selected", "true")
    box.press("Enter")
    expect(page).to_have_url(server_url + "/fr/cards/acorn-catapult/")
    expect(page.get_by_role("heading", level=1)).to_contain_text("Acorn Catapult")
    expect(page.locator(".fr-name")).to_contain_text("Catapulte à glands")

    ruling = page.locator("article.ruling", has_text="illegal target")
    notice = ruling.locator(".changed-since")
    expect(notice).to_contain_text("Les règles sur lesquelles elle repose ont changé depuis")
    expect(notice).to_contain_text("608.2b a été reformulée le 27 avril 2018")
    expect(ruling.locator(".ruling-context")).to_contain_text("Règles en vigueur alors")
    shot(page, "11-card-rulings")

    ruling.get_by_role("link", name="608.2b", exact=True).click()
    expect(page).to_have_url(server_url + "/fr/rules/608.2b/")
    panel = page.locator("#rulings")
    expect(panel).to_contain_text("décisions sur cette règle")
    expect(panel.locator("article.ruling")).to_have_count(20)  # newest first, paginated

    notice.page.go_back()
    ruling.locator(".changed-since").get_by_role("link").click()
    expect(page).to_have_url(server_url + "/fr/diff/2011-07-15..2026-08-07/?section=6#r-608.2b")
    expect(page.locator('[id="r-608.2b"]')).to_be_in_viewport()
    shot(page, "12-ruling-diff")
