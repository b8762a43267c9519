"""The review queue of inferred ruling links at 1280 px: every column in view, nothing past the
right edge; the admin index shows how many links wait."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import ARTIFACTS

pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.django_db]

WIDTH = 1280


@pytest.fixture(scope="session")
def reviewer(server_url, django_db_blocker) -> tuple[str, str]:
    """A superuser in the served test database (committed: the server is another process)."""
    from django.contrib.auth.models import User

    with django_db_blocker.unblock():
        if not User.objects.filter(username="reviewer").exists():
            User.objects.create_superuser("reviewer", "r@example.org", "review-pw")
    return "reviewer", "review-pw"


def test_the_review_queue_fits_1280_px(browser, server_url, reviewer) -> None:
    context = browser.new_context(viewport={"width": WIDTH, "height": 900}, locale="en-US")
    page = context.new_page()
    try:
        page.goto(server_url + "/admin/login/?next=/admin/")
        page.fill("#id_username", reviewer[0])
        page.fill("#id_password", reviewer[1])
        page.click("input[type=submit]")
        queue = page.locator("#ruling-review-queues .queue-inferred")
        expect(queue).to_contain_text("Inferred ruling links")
        assert int(queue.locator(".count").inner_text()) > 0
        queue.get_by_role("link").click()
        expect(page.locator("#result_list")).to_be_visible()
        for header in ("Ruling", "Card", "Rule then", "Current number", "Evidence", "Kind"):
            cell = page.locator("#result_list thead th", has_text=header).first
            box = cell.bounding_box()
            assert box is not None and box["x"] + box["width"] <= WIDTH, header
        overflow = page.evaluate(
            "document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        assert overflow <= 0, f"{overflow} px past the right edge"
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "20-ruling-review-queue.png"))
    finally:
        context.close()
