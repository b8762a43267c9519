"""French glosses on an English rule under /fr/, in a real browser: shown, hidden in one
click, and the choice kept across reloads (localStorage)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import shot

pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.django_db]


def test_a_gloss_is_shown_hidden_in_one_click_and_the_choice_persists(page, server_url) -> None:
    page.goto(server_url + "/fr/rules/702.19b/")
    gloss = page.locator('[id="702.19b"] .gloss').filter(has_text="Piétinement").first
    expect(gloss).to_be_visible()
    expect(gloss).to_have_attribute("lang", "fr")
    shot(page, "glosses-1-shown")

    page.get_by_role("button", name="Masquer les termes français").click()
    expect(gloss).to_be_hidden()
    expect(page.get_by_role("button", name="Afficher les termes français")).to_be_visible()
    shot(page, "glosses-2-hidden")

    page.reload()
    expect(page.locator('[id="702.19b"]')).to_contain_text("with trample")
    expect(gloss).to_be_hidden()  # still off after a reload
    page.get_by_role("button", name="Afficher les termes français").click()
    expect(gloss).to_be_visible()
    page.reload()
    expect(gloss).to_be_visible()


def test_english_pages_have_no_glosses(page, server_url) -> None:
    page.goto(server_url + "/en/rules/702.19b/")
    expect(page.locator('[id="702.19b"]')).to_contain_text("with trample")
    expect(page.locator(".gloss")).to_have_count(0)
    expect(page.locator("button.gloss-toggle")).to_have_count(0)
