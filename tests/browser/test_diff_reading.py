"""Reading a diff in a real browser: the folded move blocks open, the typography toggle."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import shot

pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.django_db]


def test_move_blocks_expand_and_the_typography_toggle(page, server_url) -> None:
    page.goto(server_url + "/en/diff/2019-06-14..2019-07-12/")
    expect(page.locator(".diff-summary")).to_have_text(
        "18 rules reworded, 8 added, 0 removed; 227 renumbered in 7 blocks; 8 glossary changes."
    )
    block = page.locator("details.move-block", has_text="119–121.6a → 120–122.6a")
    expect(block).not_to_have_attribute("open", "")
    expect(block.locator("#r-120")).to_be_hidden()
    block.locator("summary").click()
    expect(block.locator("#r-120")).to_be_visible()
    expect(block.locator("article.diff-item")).to_have_count(50)
    shot(page, "15-diff-move-block")

    page.get_by_role("link", name="Highlight them too").click()
    expect(page).to_have_url(server_url + "/en/diff/2019-06-14..2019-07-12/?typography=all")
    page.get_by_role("link", name="Highlight wording only").click()
    expect(page.get_by_role("link", name="Highlight them too")).to_be_visible()

    page.goto(server_url + "/en/")
    expect(page.locator(".latest-changes .diff-summary")).to_contain_text("rules reworded")


def test_cite_one_change_of_a_diff(page, server_url) -> None:
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.goto(server_url + "/en/diff/2019-06-14..2019-07-12/")
    item = page.locator("article#r-111\\.10")
    button = item.locator("button.cite-item")
    button.click()
    expect(button).to_have_text("Copied")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == (
        f"CR 111.10, changes 2019-06-14 → 2019-07-12 "
        f"{server_url}/en/diff/2019-06-14..2019-07-12/#r-111.10"
    )
