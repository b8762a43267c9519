"""A content maintainer's day in a real browser (issue 12): edit 602.2a's French text in the
EN/FR tabs, see it on the public page and in search, find it in the history, revert it, run
into an edit conflict, and publish a release from an uploaded file through preview and
confirmation. The maintainer is a member of the Content maintainers group, not a superuser.

Everything the test writes is committed (the server is another process), so it puts the
archive back as it found it at the end: French text and edit marks of 602.2a, its history
rows, the published release and its import records, the user.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import ARTIFACTS, shot
from tests.conftest import release_files

# No django_db mark: a test transaction (SQLite, IMMEDIATE) would hold the write lock the
# server needs. Database work here runs in autocommit through django_db_blocker.
pytestmark = [pytest.mark.slow, pytest.mark.browser]

NEW = dt.date(2099, 3, 13)  # no real release has this date
FRENCH = "Le joueur annonce qu’il active la capacité périphrastique."
SET_NAME = "Maintainers’ Test Set"
_MARKS = ["text_fr", "fr_status", "fr_release_id", "fr_edited", "edited_by", "edited_at"]


@pytest.fixture
def maintainer(server_url, search_index, django_db_blocker) -> Iterator[tuple[str, str]]:
    """A staff user in the Content maintainers group (the server hashes with PBKDF2)."""
    from django.contrib.auth.hashers import PBKDF2PasswordHasher
    from django.contrib.auth.models import Group, User

    from roles.groups import MAINTAINERS

    with django_db_blocker.unblock():
        User.objects.filter(username="maint").delete()
        user = User.objects.create(username="maint", is_staff=True)
        user.password = PBKDF2PasswordHasher().encode("maint-pw", "maintsalt")
        user.save()
        user.groups.add(Group.objects.get(name=MAINTAINERS))
    yield "maint", "maint-pw"
    with django_db_blocker.unblock():
        User.objects.filter(username="maint").delete()


@pytest.fixture
def current_602_2a(django_db_blocker) -> Iterator[int]:
    """The id of 602.2a's current version; afterwards its French text, edit marks and the
    history rows the test made are put back, and the index follows."""
    from kb.archive import editing
    from kb.models import Release, RuleNumber, RuleVersion
    from search.indexing import drain

    with django_db_blocker.unblock():
        date = Release.objects.latest("effective_date").effective_date
        lineage = RuleNumber.objects.as_of(date).get(number="602.2a").lineage_id
        version = RuleVersion.objects.as_of(date).get(lineage_id=lineage)
        before = RuleVersion.objects.filter(pk=version.pk).values(*_MARKS).get()
        history = set(version.history.values_list("history_id", flat=True))
    yield version.pk
    with django_db_blocker.unblock():
        editing.edit_rule_version(version=version, user="test", text_fr="", fr_status="")
        RuleVersion.objects.filter(pk=version.pk).update(**before)
        version.history.exclude(history_id__in=history).delete()
        drain()


@pytest.fixture
def published(django_db_blocker) -> Iterator[dt.date]:
    """Removes the release the test publishes (through the removal service) and its records."""
    from kb.archive.importer import Importer
    from kb.models import ImportRecord, Release
    from search.indexing import drain

    yield NEW
    with django_db_blocker.unblock():
        if Release.objects.filter(effective_date=NEW).exists():
            Importer(user="test").remove(NEW)
        ImportRecord.objects.filter(effective_date=NEW).delete()
        drain()


def login(page, server_url: str, user: tuple[str, str]) -> None:
    page.goto(server_url + "/admin/login/?next=/admin/")
    page.fill("#id_username", user[0])
    page.fill("#id_password", user[1])
    page.click("input[type=submit]")
    expect(page.locator("#user-tools")).to_contain_text("maint")


def write_french(page, text: str) -> None:
    """The French tab of the EN/FR tabs, then its textarea."""
    page.locator('a[href="#tab_id_text_fr"]').click()
    expect(page.locator("#id_text_fr")).to_be_visible()
    expect(page.locator("#id_text_en")).to_be_hidden()  # the other tab, side by side
    page.fill("#id_text_fr", text)


def test_a_maintainer_edits_reverts_conflicts_and_publishes(
    page, browser, server_url, maintainer, current_602_2a, published, django_db_blocker, tmp_path
) -> None:
    from search.indexing import drain

    page.set_default_timeout(60_000)
    login(page, server_url, maintainer)
    change = f"{server_url}/admin/kb/ruleversion/{current_602_2a}/change/"

    # Edit 602.2a's French text in the tabs and save.
    page.goto(change)
    expect(page.locator('a[href="#tab_id_text_en"]')).to_be_visible()
    write_french(page, FRENCH)
    page.select_option("#id_fr_status", "unofficial")
    shot(page, "30-maintainer-french-tab")
    page.click("input[name=_continue]")
    expect(page.locator(".messagelist")).to_contain_text("was changed successfully")

    # The public French page shows it; the search finds it once the outbox is applied (the
    # test server does not drain after commit: KB_SEARCH_AUTO_DRAIN=0).
    page.goto(server_url + "/fr/rules/602.2a/")
    expect(page.locator("main")).to_contain_text(FRENCH)
    with django_db_blocker.unblock():
        drain()
    page.goto(server_url + "/fr/search/?q=p%C3%A9riphrastique")
    expect(page.locator(".search-results > li").first).to_contain_text("602.2a")
    shot(page, "31-maintainer-french-search")

    # The history lists the edit with its values; revert to the imported state.
    page.goto(change.replace("/change/", "/history/"))
    expect(page.locator("#content")).to_contain_text(FRENCH)
    expect(page.locator("#content")).to_contain_text("maint")
    shot(page, "32-maintainer-history")
    page.locator("#change-history tbody tr").last.locator("a").first.click()
    page.click("input[name=_save]")  # "Revert"
    expect(page.locator(".messagelist")).to_be_visible()
    page.goto(server_url + "/fr/rules/602.2a/")
    expect(page.locator("main")).not_to_contain_text(FRENCH)

    # Two pages on the same object: the second save is refused with both values shown.
    other = page.context.new_page()
    page.goto(change)
    other.goto(change)
    write_french(page, "Première version.")
    page.click("input[name=_continue]")
    expect(page.locator(".messagelist")).to_contain_text("was changed successfully")
    write_french(other, "Seconde version.")
    other.click("input[name=_continue]")
    conflict = other.locator(".errorlist").first
    expect(conflict).to_contain_text("Someone else changed this field")
    expect(conflict).to_contain_text("“Première version.”")
    expect(conflict).to_contain_text("“Seconde version.”")
    other.screenshot(path=str(ARTIFACTS / "33-maintainer-conflict.png"))
    other.close()

    # Publish a release from an uploaded file: preview, confirm with the set name.
    latest = release_files()[-1]
    text = latest.read_text(encoding="utf-8")
    text = re.sub(r"effective as of \w+ \d+, \d{4}", "effective as of March 13, 2099", text)
    text = text.replace(
        "activating an ability is identical to", "activating an ability is the same as"
    )
    upload = tmp_path / "MagicCompRules 20990313.txt"
    upload.write_bytes(text.replace("\n", "\r\n").encode("utf-8"))  # as Wizards ships it
    page.goto(server_url + "/admin/kb/release/")
    page.get_by_role("link", name="Publish a release").click()
    page.set_input_files("#id_file", str(upload))
    page.fill("#id_set_name", SET_NAME)
    page.get_by_role("button", name="Preview").click()
    expect(page.locator("#publish-facts .effective-date")).to_have_text(
        "2099-03-13", timeout=180_000
    )
    expect(page.locator('[data-count="changed"]')).to_have_text("1")
    expect(page.locator('[data-count="added"]')).to_have_text("0")
    expect(page.locator(".list-changed")).to_contain_text("602.2b")
    shot(page, "34-publish-preview")
    page.fill("#id_typed", "maintainers’ test set")
    page.get_by_role("button", name="Publish", exact=True).click()
    expect(page.locator(".messagelist")).to_contain_text(
        "Published the release effective 2099-03-13", timeout=180_000
    )
    page.fill("#searchbar", "Test Set")  # the list holds a hundred releases: find it
    page.keyboard.press("Enter")
    expect(page.locator("#result_list")).to_contain_text(SET_NAME)
    shot(page, "35-published")
    page.goto(server_url + "/en/2099-03-13/rules/602.2b/")
    expect(page.locator("main")).to_contain_text("is the same as the process")


@pytest.mark.django_db
def test_the_maintainers_group_may_publish_and_replace() -> None:
    """(Also makes pytest-django set up the test database when this module runs alone: it
    sets up only the databases that some collected test marks.)"""
    from django.contrib.auth.models import Group

    from roles.groups import MAINTAINERS

    codenames = set(
        Group.objects.get(name=MAINTAINERS).permissions.values_list("codename", flat=True)
    )
    assert {"add_release", "change_release", "view_release"} <= codenames
    assert "delete_release" not in codenames
