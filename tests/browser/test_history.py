"""History and diffs in a real browser."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import shot

pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.django_db]


def test_history_unfold_and_a_diff_deep_link(page, server_url) -> None:
    page.goto(server_url + "/en/rules/602.2a/")
    page.get_by_role("link", name="History", exact=True).click()
    expect(page).to_have_url(server_url + "/en/rules/602.2a/history/")
    typo = page.locator("#v-2014-02-01 details")
    expect(typo).not_to_have_attribute("open", "")
    expect(typo.locator(".diff")).to_be_hidden()
    typo.locator("summary").click()
    expect(typo.locator(".diff")).to_be_visible()
    expect(typo.locator(".diff")).to_contain_text("The player announces that he or she")
    expect(page.locator("#v-2024-06-07 .diff ins")).to_contain_text("see rule 701.16a")
    shot(page, "7-history-602.2a")

    page.goto(server_url + "/en/diff/2019-06-14..2019-07-12/")
    expect(page.locator('[data-count="moved"]')).to_have_text("227")
    expect(page.locator('[data-count="typography"]')).to_have_text("0")
    shot(page, "8-tokens-diff")

    page.goto(server_url + "/en/diff/2019-06-14..2019-07-12/#r-112")
    target = page.locator("#r-112")
    expect(target).to_be_in_viewport()
    expect(target).to_contain_text("moved")
    target.get_by_role("link", name="112", exact=True).click()
    expect(page).to_have_url(server_url + "/en/2019-07-12/rules/112/")
    expect(page.get_by_role("heading", level=1)).to_contain_text("112. Spells")
    shot(page, "9-moved-rule")
