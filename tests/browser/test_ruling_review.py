"""The review queue of inferred ruling links at 1280 px: every column in view, nothing past the
right edge; the admin index shows how many links wait."""

from __future__ import annotations

import sqlite3
from contextlib import closing

import pytest
from django.db import connection
from playwright.sync_api import expect

from tests.browser.conftest import ARTIFACTS

# No django_db mark: its transaction (SQLite, IMMEDIATE) would hold the write lock while the
# server process logs the reviewer in. The database work is done before Chromium starts.
pytestmark = [pytest.mark.slow, pytest.mark.browser]

WIDTH = 1280
HEIGHT = 800


@pytest.fixture(scope="session")
def reviewer(server_url, django_db_blocker) -> tuple[str, str]:
    """A superuser in the served test database, written through a connection of its own and
    committed: a write in the test's transaction would hold SQLite's lock while the server
    process logs the reviewer in. The server hashes passwords with PBKDF2 (tests use MD5)."""
    from django.contrib.auth.hashers import PBKDF2PasswordHasher

    with django_db_blocker.unblock():
        db = connection.settings_dict["NAME"]
    password = PBKDF2PasswordHasher().encode("review-pw", "reviewsalt")
    with closing(sqlite3.connect(db)) as raw, raw:
        raw.execute("DELETE FROM auth_user WHERE username = 'reviewer'")
        raw.execute(
            "INSERT INTO auth_user (username, password, is_superuser, is_staff, is_active, "
            "first_name, last_name, email, date_joined) "
            "VALUES ('reviewer', ?, 1, 1, 1, '', '', '', datetime('now'))",
            (password,),
        )
    return "reviewer", "review-pw"


def test_the_review_queue_fits_1280_px(server_url, reviewer, browser) -> None:
    context = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT}, locale="en-US")
    page = context.new_page()
    try:
        page.goto(server_url + "/admin/login/?next=/admin/")
        page.fill("#id_username", reviewer[0])
        page.fill("#id_password", reviewer[1])
        page.click("input[type=submit]")
        queue = page.locator("#review-queues .queue-inferred")
        expect(queue).to_contain_text("Inferred ruling links")
        assert int(queue.locator(".count").inner_text()) > 0
        queue.get_by_role("link").click()
        expect(page.locator("#result_list")).to_be_visible()
        for header in ("Ruling", "Card", "Rule then", "Current number", "Evidence", "Kind"):
            cell = page.locator("#result_list thead th", has_text=header).first
            box = cell.bounding_box()
            assert box is not None and box["x"] + box["width"] <= WIDTH, header
        # The cells too, row by row: the rule's number then and now, and the evidence (cut
        # short, the whole of it in the title attribute).
        rows = page.locator("#result_list tbody tr")
        assert rows.count() >= 10
        for i in range(10):
            row = rows.nth(i)
            for column in ("number_then", "current_number", "evidence_short"):
                box = row.locator(f"td.field-{column}").bounding_box()
                assert box is not None and box["x"] + box["width"] <= WIDTH, (i, column)
            evidence = row.locator("td.field-evidence_short span")
            shown, title = evidence.inner_text(), evidence.get_attribute("title") or ""
            assert title and len(shown) <= 70 and shown.rstrip("…") in title, (shown, title)
        overflow = page.evaluate(
            "document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        assert overflow <= 0, f"{overflow} px past the right edge"
    finally:
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "20-ruling-review-queue.png"))
        context.close()


@pytest.mark.django_db
def test_the_real_data_has_inferred_links_to_review(cards) -> None:
    """(Also makes pytest-django set up the test database when this module runs alone: it
    sets up only the databases that some collected test marks.)"""
    from rulings.models import LinkKind, RulingLink

    assert RulingLink.objects.filter(kind=LinkKind.INFERRED).count() > 1000
