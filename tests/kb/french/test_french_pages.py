"""French beside English on the full archive (issue 13): the seed-003 test document imported
under its real alignment (2010-04-23), side by side, staleness against today's English with
the word diff, the API's `french` object, the translators' worklist, the French history, the
admin filter, and the query budget of the pages.

The document is built at test time from ../shared/seeds (tests/crtext/french_fixtures.py) and
imported inside each test's transaction: the session's archive stays without French.
"""

from __future__ import annotations

import datetime as dt
import re
import time

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.db.models import F, Q
from django.test import Client
from django.test.utils import CaptureQueriesContext

from kb.admin.french_filters import french_queue_counts, french_version_ids
from kb.archive import editing
from kb.french.status import FrenchText, french_states, rule_french_states, worklist
from kb.models import RuleVersion
from kb.selectors import rule_version
from tests.crtext.french_fixtures import french_document, requires_seed
from tests.kb.helpers import page_queries, run, without_page_cache

pytestmark = [pytest.mark.slow, pytest.mark.django_db, requires_seed]

ROE = dt.date(2010, 4, 23)
TODAY = dt.date(2026, 8, 7)
NOTICE_EN = (
    "French text from the release of 23 April 2010; the English has changed since "
    "(release of 27 April 2018)"
)
NOTICE_FR = (
    "Texte français de la version du 23 avril 2010\u00a0; l’anglais a changé depuis "
    "(version du 27 avril 2018)"
)
FR_602_2A = "Le joueur annonce qu&#x27;il active la capacité."
EN_602_2A_2010 = "The player announces that he or she is activating the ability."
EN_602_2A_TODAY = "The player announces that they are activating the ability."
#: What the seed's 602 is today: stale where the English changed in wording or references
#: since 2010-04-23 (first release of the change), official where only typography changed.
STALE_TODAY = {
    "602.1": dt.date(2010, 7, 16),
    "602.2": dt.date(2011, 5, 1),
    "602.2a": dt.date(2018, 4, 27),
    "602.2b": dt.date(2012, 2, 1),
    "602.5a": dt.date(2018, 4, 27),
    "602.5b": dt.date(2022, 2, 18),
    "602.5d": dt.date(2018, 4, 27),
    "602.5e": dt.date(2018, 4, 27),
}
CURRENT_TODAY = {"602.1c", "602.1d", "602.3", "602.3a", "602.3b", "602.4", "602.5", "602.5c"}


@pytest.fixture
def french(archive, tmp_path) -> None:
    """The test document imported (in the test's transaction): it aligns to 2010-04-23."""
    path = tmp_path / "regles-602.txt"
    path.write_text(french_document(), encoding="utf-8")
    out = run("import_rules", str(path), "--lang", "fr")
    assert "French translating 2010-04-23: created (17 matched, 17 stored" in out


@pytest.fixture
def client(archive) -> Client:
    return Client()


@pytest.fixture
def staff(archive) -> Client:
    c = Client()
    c.force_login(User.objects.create_superuser("frpages", "f@example.org", "x"))
    return c


def _columns(html: str, number: str) -> tuple[str, str, int, int]:
    """The French and English columns of an entry, and where each starts in the page."""
    entry = html[html.index(f'id="{number}"') :]
    end = entry.find('<div class="entry ', 10)
    entry = entry[:end] if end > 0 else entry
    fr_at, en_at = entry.index('class="col col-fr'), entry.index('class="col col-en"')
    return entry[fr_at:], entry[en_at:], fr_at, en_at


def test_side_by_side_in_2010_french_first_under_fr(french, client: Client) -> None:
    html = client.get("/fr/2010-04-23/rules/602.2a/").content.decode()
    assert '<div class="entries bilingual fr-first">' in html
    fr_col, en_col, fr_at, en_at = _columns(html, "602.2a")
    assert fr_at < en_at  # French first under /fr/
    assert FR_602_2A in fr_col[: fr_col.index("</div>")]
    assert EN_602_2A_2010 in en_col[: en_col.index("</div>")]
    assert "fr-stale-notice" not in html  # the French translates this very English
    # The "no French text is loaded" notice is gone where the rule has French.
    assert "Aucun texte officiel français" not in html
    english = client.get("/en/2010-04-23/rules/602.2a/").content.decode()
    assert '<div class="entries bilingual">' in english
    _, _, fr_at, en_at = _columns(english, "602.2a")
    assert en_at < fr_at  # English first under /en/


def test_todays_602_2a_shows_the_2010_french_as_stale_with_the_diff(french, client) -> None:
    html = client.get("/en/rules/602.2a/").content.decode()
    fr_col, en_col, _, _ = _columns(html, "602.2a")
    assert EN_602_2A_TODAY in en_col
    assert FR_602_2A in fr_col and "fr-stale" in fr_col
    assert NOTICE_EN in fr_col
    assert "that <del>he or she is</del><ins>they are</ins> activating" in fr_col
    assert "is revealed<ins> (see rule 701.20a)</ins>." in fr_col
    french_page = client.get("/fr/rules/602.2a/").content.decode()
    assert NOTICE_FR in french_page
    assert "<del>he or she is</del><ins>they are</ins>" in french_page
    # The English is in force today: it is the page's text, the French stands beside it.
    assert rule_version("602.2a", TODAY).text_fr == ""


def test_typography_only_changes_leave_the_french_current(french, client) -> None:
    html = client.get("/en/rules/602.3b/").content.decode()
    fr_col, en_col, _, _ = _columns(html, "602.3b")
    assert "the ability’s controller goes first" in en_col  # the 2010 text had "ability's"
    assert "fr-stale" not in fr_col and "Si la capacité demande à son contrôleur" in fr_col
    states = {
        number: state
        for number, state in _states_of_602(TODAY).items()
        if number in STALE_TODAY or number in CURRENT_TODAY
    }
    assert {n for n, s in states.items() if s.stale} == set(STALE_TODAY)
    assert {n: s.english_changed_in for n, s in states.items() if s.stale} == STALE_TODAY
    assert {n for n, s in states.items() if s.state == "official"} == CURRENT_TODAY
    # 602.1c was 602.1a in 2010: the French follows the rule through its renumbering.
    renumbered = client.get("/fr/rules/602.1c/").content.decode()
    assert "Une capacité activée est la seule sorte" in renumbered


def _states_of_602(date: dt.date) -> dict[str, FrenchText]:
    """The French state of every entry of chapter 602 in force on `date`, by number."""
    rows = list(
        RuleVersion.objects.numbered_as_of(date, Q(lineage__numbers__chapter="602")).annotate(
            number=F("lineage__numbers__number")
        )
    )
    states = french_states(rows, date)
    return {v.number: states[v.pk] for v in rows}


def test_no_french_keeps_the_page_as_it_was(french, client) -> None:
    html = client.get("/en/rules/100.1/").content.decode()
    assert "bilingual" not in html and "col-fr" not in html and "No French text" not in html
    # On the French page, a chapter with French shows a small marker on its rules without one
    # (602.1a is new); on the English page only the entries that have French get a French
    # column: the others read as they would without any (issue 35: 702.19 turned two-column,
    # "No French text" beside every subrule, after one French subrule).
    french_page = client.get("/fr/rules/602/").content.decode()
    fr_col, _, _, _ = _columns(french_page, "602.1a")
    assert "Pas de texte français" in fr_col
    english = client.get("/en/rules/602/").content.decode()
    assert "No French text" not in english
    entry = english[english.index('id="602.1a"') :]
    assert "col-fr" not in entry[: entry.find('<div class="entry ', 10)]
    fr_col, en_col, _, _ = _columns(english, "602.2a")  # it has French: side by side
    assert "Pas de texte français" not in fr_col and "col-en" in en_col


def test_french_titles_of_chapters_and_sections(french, client) -> None:
    chapter = client.get("/fr/2010-04-23/rules/602/").content.decode()
    assert (
        '<h1 id="602">602. <span lang="fr">Activer des capacités activées</span> '
        '<span class="title-other" lang="en">Activating Activated Abilities</span></h1>'
    ) in chapter
    section = client.get("/fr/2010-04-23/rules/6/").content.decode()
    assert '602. <span lang="fr">Activer des capacités activées</span>' in section
    # The chapter's title is unchanged since: today's French page has it too; English pages
    # keep the English title first.
    assert (
        '<span lang="fr">Activer des capacités activées</span>'
        in client.get("/fr/rules/602.2a/").content.decode()
    )
    assert (
        '602. <span lang="en">Activating Activated Abilities</span>'
        in client.get("/en/rules/6/").content.decode()
    )


def test_the_api_gives_text_en_and_the_french_with_its_provenance(french, client) -> None:
    old = client.get("/api/v1/rules/602.2a", {"release": "2010-04-23", "lang": "fr"}).json()
    assert old["text_en"].startswith(EN_602_2A_2010)
    assert old["text"].startswith("2a Le joueur annonce qu'il active la capacité.")
    assert old["french"] == {
        "text": old["text"],
        "status": "official",
        "translates": "2010-04-23",
        "stale": False,
        "english_changed_in": None,
        "diff": None,
        "example_diffs": [],
    }
    today = client.get("/api/v1/rules/602.2a").json()
    assert today["text"] == today["text_en"] and today["text_en"].startswith(EN_602_2A_TODAY)
    french = today["french"]
    assert french["text"] == old["french"]["text"] and french["status"] == "official"
    assert french["translates"] == "2010-04-23" and french["stale"] is True
    assert french["english_changed_in"] == "2018-04-27"
    assert "<del>he or she is</del><ins>they are</ins>" in french["diff"]
    assert client.get("/api/v1/rules/100.1").json()["french"] is None


def test_the_worklist_counts_on_the_real_archive(french, client) -> None:
    with without_page_cache():  # the view's own cost, not a page cache hit
        client.get("/en/translation/")  # warm per-process caches
        with CaptureQueriesContext(connection) as queries:
            started = time.perf_counter()
            response = client.get("/en/translation/")
            seconds = time.perf_counter() - started
    assert response.status_code == 200
    print(f"\nworklist of the current release: {len(queries)} queries, {seconds:.3f} s")
    assert len(queries) <= 6
    html = response.content.decode()
    # 3162 rules and subrules in force today: 8 with a stale French, 8 current, the rest
    # without French.
    work = worklist(TODAY)
    assert work.total == 3162
    assert work.counts == {
        "missing": 3146,
        "stale": 8,
        "unofficial": 0,
        "official": 8,
        "reviewed": 0,
    }
    assert "3162 rules in this release." in html
    assert '<span class="count">3146</span>' in html and '<span class="count">8</span>' in html
    chapter = next(c for s in work.sections for c in s.chapters if c.number == "602")
    assert chapter.counts == {"missing": 3, "stale": 8, "official": 8}
    stale = client.get("/en/translation/", {"state": "stale"}).content.decode()
    rows = re.findall(r'<li class="worklist-row row-(\w+)" id="w-([^"]+)"', stale)
    assert rows == [("stale", n) for n in STALE_TODAY]
    assert (
        'href="/en/diff/2010-04-23..2026-08-07/?section=6#r-602.2a">English changes to translate'
        in stale
    )
    # In the release it translates, only the rules the document lacks are to do.
    assert worklist(ROE).counts["official"] == 16
    assert worklist(ROE).counts["stale"] == 0
    old = client.get("/fr/translation/2010-04-23/", {"state": "missing"}).content.decode()
    assert 'id="w-602.1a"' not in old and 'id="w-100.1"' in old
    assert "Travail des traducteurs" in old
    # Any input answers, never a 500.
    for url in ("/en/translation/?state=nonsense", "/en/translation/?release=xx",
                "/en/translation/1900-01-01/"):  # fmt: skip
        assert client.get(url).status_code in (200, 302, 404)
    assert client.get("/en/translation/", {"release": "2016-05-20"}).url == (
        "/en/translation/2016-05-20/"
    )


def test_the_footer_links_the_worklist(client) -> None:
    assert '<a href="/fr/translation/">Traduction</a>' in client.get("/fr/").content.decode()
    assert '<a href="/en/translation/">Translation</a>' in client.get("/en/").content.decode()


def test_the_history_shows_each_versions_french(french, client) -> None:
    html = client.get("/fr/rules/602.2a/history/").content.decode()
    assert html.count('<div class="history-fr">') == 1  # one version holds it
    block = html[html.index('<div class="history-fr">') :]
    assert "officielle" in block[:400] and "traduit l’anglais du 23 avril 2010" in block[:600]
    assert FR_602_2A in block


def test_maintainers_see_the_imports_anomalies(french, client, staff) -> None:
    assert "doubled_number" in staff.get("/en/2010-04-23/rules/602.2a/").content.decode()
    assert "doubled_number" not in client.get("/en/2010-04-23/rules/602.2a/").content.decode()
    # From the worklist, a maintainer goes to the admin page of today's version to write it.
    version = rule_version("602.2a", TODAY)
    edit = f'<a class="admin-link" href="/admin/kb/ruleversion/{version.pk}/change/">'
    assert edit in staff.get("/en/translation/", {"state": "stale"}).content.decode()
    assert "admin-link" not in client.get("/en/translation/", {"state": "stale"}).content.decode()


def test_the_admin_filter_and_the_queue_counts(french, staff) -> None:
    counts = french_queue_counts()
    assert counts == {"missing": 3146, "stale": 8, "unofficial": 0}
    assert french_queue_counts(ROE) == {"missing": 1660, "stale": 0, "unofficial": 0}
    html = staff.get("/admin/kb/ruleversion/", {"french": "stale"}).content.decode()
    assert "8 rule versions" in html
    stale_ids = set(french_version_ids("stale"))
    assert {rule_version(n, TODAY).pk for n in STALE_TODAY} == stale_ids
    assert (
        "3146 rule versions"
        in staff.get("/admin/kb/ruleversion/", {"french": "missing"}).content.decode()
    )
    # A maintainer's French on today's 602.2a: no longer stale, unofficial (to be reviewed).
    version = rule_version("602.2a", TODAY)
    editing.edit_rule_version(
        version=version, user="frpages", text_fr="Le joueur annonce qu’il active la capacité."
    )
    assert french_queue_counts() == {"missing": 3146, "stale": 7, "unofficial": 1}
    state = rule_french_states()[version.pk]
    # It translates the English of the version it was written on (its first release).
    assert (state.status, state.stale) == ("unofficial", False)
    assert state.translates == version.valid_from == dt.date(2025, 6, 6)


def test_pages_with_french_cost_the_same_queries(french, client) -> None:
    """French beside the English costs no query: the same pages with the French taken away
    make as many. (How many depends on the rulings panel, so on whether the session's cards
    are loaded: compared, not counted.)"""
    urls = ("/en/rules/702/", "/en/rules/602/", "/fr/2010-04-23/rules/602/", "/en/rules/602.2a/")

    def measure() -> dict[str, int]:
        return {url: page_queries(client, url) for url in urls}

    with_french = measure()
    assert 'class="entries bilingual fr-first"' in client.get(urls[2]).content.decode()
    RuleVersion.objects.exclude(text_fr="").update(text_fr="", fr_status="", fr_release=None)
    assert with_french == measure()
    # 11, 3 for a rulings panel, and 1 on a chapter: the archive state keying its cached
    # entries (kb.web.fragments).
    assert max(with_french.values()) <= 15, with_french


def _worklist_rows(html: str) -> list[tuple[str, str]]:
    return re.findall(r'<li class="worklist-row row-(\w+)" id="w-([^"]+)"', html)


def test_the_worklist_is_paged_keeping_its_groups_counts_and_filter(french, client) -> None:
    whole = worklist(TODAY)
    expected = [
        (r.french.state, r.number) for s in whole.sections for c in s.chapters for r in c.rows
    ]
    assert len(expected) == 3146 + 8  # missing and stale: 16 pages of 200
    first = client.get("/en/translation/").content.decode()
    assert "Page 1 of 16" in first and "Rules 1–200 of 3154 to do" in first
    seen, queries = [], []
    for n in range(1, 17):
        if n in (1, 8, 16):  # each worklist page builds the whole release's list: a few reads
            queries.append(page_queries(client, "/en/translation/", {"page": n}))
        html = client.get("/en/translation/", {"page": n}).content.decode()
        rows = _worklist_rows(html)
        assert len(rows) == (200 if n < 16 else 154)
        seen += rows
        # Counts of the whole release on every page, per state and per chapter.
        assert '<span class="count">3146</span>' in html and "3162 rules in this release." in html
        # Every row sits under its section and chapter headings on its own page.
        assert html.count('<section class="worklist-section"') >= 1
        assert html.index('<section class="worklist-section"') < html.index('class="worklist-row')
    assert seen == expected
    assert max(queries) == min(queries) <= 6, queries  # page 16 costs what page 1 does
    # A chapter cut by a page break is said to continue.
    page2 = client.get("/en/translation/", {"page": 2}).content.decode()
    first_chapter = page2[page2.index('<details class="worklist-chapter"') :]
    first_chapter = first_chapter[: first_chapter.index("</summary>")]
    cut = _worklist_rows(first)[-1][1].split(".")[0] == _worklist_rows(page2)[0][1].split(".")[0]
    assert ("(continued)" in first_chapter) == cut
    # The state filter is kept in the page links; any page number answers.
    missing = client.get("/en/translation/", {"state": "missing", "page": 2}).content.decode()
    assert 'href="/en/translation/?state=missing&amp;page=3" rel="next"' in missing
    assert 'href="/en/translation/?state=missing&amp;page=1"' in missing
    assert _worklist_rows(missing)[0][1] == [n for s, n in expected if s == "missing"][200]
    for page in ("0", "-1", "x", "999", "1e9"):
        assert client.get("/en/translation/", {"page": page}).status_code == 200
    assert (
        _worklist_rows(client.get("/en/translation/", {"page": "999"}).content.decode())
        == (seen[3000:])
    )
    # One page when everything fits: no page links.
    stale = client.get("/en/translation/", {"state": "stale"}).content.decode()
    assert 'class="pagination"' not in stale and len(_worklist_rows(stale)) == 8
    assert "Page 1 sur 16" in client.get("/fr/translation/").content.decode()


def test_the_stale_diff_covers_the_examples(client) -> None:
    """111.4's 2025-02-07 version rewords one example ("When Minsc, Beloved Ranger enters" ->
    "When Minsc enters") and keeps its text: a French text of the 2024-07-30 English is stale
    for its example alone, and the translator is shown that example's change; an example a
    maintainer adds today shows as added."""
    old = rule_version("111.4", dt.date(2024, 7, 30))
    assert old.valid_to == dt.date(2025, 2, 7)
    editing.edit_rule_version(
        version=old, user="tester", text_fr="Un jeton créé porte le nom de son sous-type."
    )
    today = rule_version("111.4", TODAY)
    assert today.text_en == old.text_en  # the text did not change, one example did
    html = client.get("/fr/rules/111.4/").content.decode()
    notice = html[html.index('class="fr-stale-notice"') :]
    notice = notice[: notice.index("</div>")]
    changes = re.findall(r'<p class="example diff example-(\w+)">', notice)
    assert changes == ["reworded"]
    assert "Exemple reformulé" in notice and "Minsc" in notice and "Beloved Ranger</del>" in notice
    editing.add_example(version=today, user="tester", text_en="A maintainer's new example.")
    html = client.get("/en/rules/111.4/").content.decode()
    notice = html[html.index('class="fr-stale-notice"') :]
    notice = notice[: notice.index("</div>")]
    assert re.findall(r'<p class="example diff example-(\w+)">', notice) == ["reworded", "added"]
    assert 'Example added:</span> <span lang="en"><ins>A maintainer&#x27;s new example.</ins>' in (
        notice
    )
    api = client.get("/api/v1/rules/111.4").json()["french"]
    assert api["stale"] is True and api["translates"] == "2024-07-30"
    assert [d["change"] for d in api["example_diffs"]] == ["reworded", "added"]
    assert "Beloved Ranger</del>" in api["example_diffs"][0]["diff"]
    assert api["example_diffs"][1]["diff"] == "<ins>A maintainer&#x27;s new example.</ins>"
