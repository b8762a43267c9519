"""French beside English in a browser (issue 13): rule 602.2a in French for 2010-04-23 and for
today (both texts, the staleness notice, the diff), stacked on a phone, and the translators'
worklist leading to the English changes to translate.

The seed-003 test document (tests/crtext/french_fixtures.py) is imported into the served test
database and committed (the server process reads it through its own connection), then taken
out again, so that the rest of the session sees the archive without French.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import shot
from tests.crtext.french_fixtures import french_document, requires_seed

# No django_db mark: the import is committed for the server process (see the module doc).
pytestmark = [pytest.mark.slow, pytest.mark.browser, requires_seed]

ROE = dt.date(2010, 4, 23)
#: What sticks out past the right edge (for the failure message).
PAST_THE_EDGE = """() => {
  const w = document.documentElement.clientWidth;
  return [...document.querySelectorAll("main *")]
    .filter((e) => e.getBoundingClientRect().right > w + 1)
    .slice(0, 5)
    .map((e) => `${e.tagName}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`);
}"""


@pytest.mark.django_db
def test_the_served_archive_has_no_french_before_this_module(archive) -> None:
    """(Also makes pytest-django set up the test database when this module runs alone: it
    sets up only the databases that some collected test marks.)"""
    from kb.models import ImportRecord
    from kb.selectors import rule_version

    assert not ImportRecord.objects.filter(lang="fr").exists()
    assert rule_version("602.2a", ROE).text_fr == ""


@pytest.fixture(scope="module")
def french_loaded(server_url, django_db_blocker) -> Iterator[str]:
    """The test document imported and committed; everything it wrote removed afterwards."""
    from kb.archive.french_import import import_french_file
    from kb.models import Anomaly, Example, ImportRecord, RuleVersion
    from search.models import IndexOutbox

    with django_db_blocker.unblock():
        history = RuleVersion.history.model
        last_history = (
            history.objects.order_by("-history_id").values_list("history_id", flat=True).first()
            or 0
        )
        last_outbox = IndexOutbox.objects.order_by("-id").values_list("id", flat=True).first() or 0
        assert not ImportRecord.objects.filter(lang="fr").exists(), "French already loaded"
        result = import_french_file(name="regles-602.txt", data=french_document().encode("utf-8"))
        assert result.translates == ROE and len(result.stored) == 17
    try:
        yield server_url
    finally:
        with django_db_blocker.unblock():
            versions = RuleVersion.objects.filter(fr_release__effective_date=ROE)
            Example.objects.filter(version__in=versions).update(text_fr="")
            versions.update(text_fr="", fr_status="", fr_release=None)
            Anomaly.objects.filter(lang="fr").delete()
            ImportRecord.objects.filter(lang="fr").delete()
            IndexOutbox.objects.filter(id__gt=last_outbox).delete()
            history.objects.filter(history_id__gt=last_history).delete()


def _text(locator) -> str:
    return " ".join(locator.inner_text().replace("\u00a0", " ").split())


def test_602_2a_in_french_in_2010_and_today(french_loaded, page) -> None:
    page.goto(french_loaded + "/fr/2010-04-23/rules/602.2a/")
    fr = page.locator('[id="602.2a"] .col-fr')
    en = page.locator('[id="602.2a"] .col-en')
    expect(fr).to_contain_text("Le joueur annonce qu'il active la capacité.")
    expect(en).to_contain_text("The player announces that he or she is activating the ability.")
    assert fr.bounding_box()["x"] < en.bounding_box()["x"]  # two columns, French first
    expect(page.locator(".fr-stale-notice")).to_have_count(0)
    shot(page, "30-french-602.2a-2010")

    page.goto(french_loaded + "/fr/rules/602.2a/")
    expect(en).to_contain_text("The player announces that they are activating the ability.")
    expect(fr).to_contain_text("Le joueur annonce qu'il active la capacité.")
    notice = page.locator('[id="602.2a"] .fr-stale-notice')
    expect(notice).to_be_visible()
    assert _text(notice.locator("p").first) == (
        "Texte français de la version du 23 avril 2010 ; l’anglais a changé depuis "
        "(version du 27 avril 2018)"
    )
    expect(notice.locator(".diff del").first).to_have_text("he or she is")
    expect(notice.locator(".diff ins").first).to_have_text("they are")
    shot(page, "31-french-602.2a-today")


def test_on_a_phone_the_columns_are_stacked(french_loaded, browser) -> None:
    context = browser.new_context(viewport={"width": 375, "height": 800}, locale="fr-FR")
    page = context.new_page()
    try:
        # The chapter page: its rulings panel's evidence tips, hidden, once stuck out 30 px.
        page.goto(french_loaded + "/en/rules/602/")
        fr = page.locator('[id="602.2a"] .col-fr')
        en = page.locator('[id="602.2a"] .col-en')
        assert en.bounding_box()["y"] < fr.bounding_box()["y"]  # English first under /en/
        overflow = page.evaluate(
            "document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        past = page.evaluate(PAST_THE_EDGE)
        assert overflow <= 0, f"{overflow} px past the right edge: {past}"
        shot(page, "32-french-602.2-phone")
    finally:
        context.close()


def test_the_worklist_leads_to_the_english_to_translate(french_loaded, page) -> None:
    page.goto(french_loaded + "/fr/")
    page.locator("footer").get_by_role("link", name="Traduction").click()
    expect(page.locator("h1")).to_have_text("Travail des traducteurs")
    page.locator(".worklist-counts .state-stale a").click()
    row = page.locator('[id="w-602.2a"]')
    expect(row).to_be_visible()
    expect(page.locator(".worklist-row")).to_have_count(8)
    row.get_by_role("link", name="Modifications anglaises à traduire").click()
    expect(page).to_have_url(french_loaded + "/fr/diff/2010-04-23..2026-08-07/?section=6#r-602.2a")
    expect(page.locator('[id="r-602.2a"]')).to_be_visible()
    shot(page, "33-french-worklist-diff")
