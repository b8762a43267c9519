"""A release loaded before its effective date is not current yet (issue 31), on the real archive.

The day is moved with the setting KB_TODAY (kb.selectors.today) to 2026-07-01, between the last
two real releases: 2026-06-19 is then the release in force and 2026-08-07 a release to come,
exactly as when Wizards publish a release days before it takes effect. Between the two, 310.7
says "If a battle's defense is 0" and becomes "If a Siege battle's defense is 0"; 122.1j (hone
counters) and the glossary's Hone Counter only exist from 2026-08-07.
"""

from __future__ import annotations

import datetime as dt
import re

import feedparser
import pytest
from django.test import Client

from kb.sitesearch import service
from tests.conftest import legacy_files, release_files

pytestmark = [pytest.mark.slow, pytest.mark.django_db]

BEFORE = "2026-07-01"
IN_FORCE, TO_COME = dt.date(2026, 6, 19), dt.date(2026, 8, 7)
OLD_310_7 = "If a battle’s defense is 0"
NEW_310_7 = "If a Siege battle’s defense is 0"


@pytest.fixture
def before_next(archive, settings) -> Client:
    """The real archive on 2026-07-01: its last release is still to come."""
    assert [p.stem for p in release_files()[-2:]] == [IN_FORCE.isoformat(), TO_COME.isoformat()]
    settings.KB_TODAY = BEFORE
    return Client()


def _text(client: Client, url: str, status: int = 200) -> str:
    answer = client.get(url)
    assert answer.status_code == status, url
    return answer.content.decode()


def test_current_pages_read_the_release_in_force_today(before_next: Client) -> None:
    client = before_next
    rule = _text(client, "/en/rules/310.7/")
    assert OLD_310_7 in rule and NEW_310_7 not in rule
    assert "Current rules: the release effective June 19, 2026" in rule
    assert "Not in force yet" not in rule
    _text(client, "/en/rules/122.1j/", 404)  # the hone counter rule is not in force yet
    contents = _text(client, "/en/current/rules/")
    assert "Current rules: the release effective June 19, 2026" in contents
    home = _text(client, "/en/")
    current = re.search(r'<p class="current-release">.*?</p>', home, re.S).group(0)
    assert "June 19, 2026" in current and "August 7, 2026" not in current
    assert "Coming: the release effective August 7, 2026, not in force yet." in home
    assert 'href="/en/diff/2026-06-19..2026-08-07/"' in home  # what it will change
    assert 'href="/en/diff/2026-04-17..2026-06-19/"' in home  # what the current one changed
    glossary = _text(client, "/en/current/glossary/")
    assert "Hone Counter" not in glossary and "Trample" in glossary
    _text(client, "/en/current/glossary/hone-counter/", 404)


def test_a_release_to_come_is_read_by_its_date_with_a_notice(before_next: Client) -> None:
    client = before_next
    answer = client.get("/en/2026-08-07/rules/310.7/")
    page = answer.content.decode()
    assert NEW_310_7 in page
    assert "Not in force yet: this release takes effect on August 7, 2026." in page
    assert 'href="/en/rules/310.7/">See the current rules' in page
    # Not kept by browsers for a day like a past release's page: its notice goes on its date.
    assert "max-age" not in answer["Cache-Control"]
    assert "Not in force yet" in _text(client, "/en/2026-08-07/glossary/hone-counter/")
    releases = _text(client, "/en/releases/")
    row = r'datetime="([\d-]+)">[^<]*</time></a>(?: <span class="badge (\w+)")?'
    marks = dict(re.findall(row, releases))  # effective date -> its badge
    assert marks["2026-08-07"] == "upcoming" and marks["2026-06-19"] == "current"
    assert marks["2026-04-17"] == "" and len(marks) == len(release_files()) + len(legacy_files())
    history = _text(client, "/en/rules/310.7/history/")
    item = re.search(r'<li class="history-item" id="v-2026-08-07">.*?</summary>', history, re.S)
    assert item and "not in force yet" in item.group(0)
    earlier = re.search(r'<li class="history-item" id="v-2023-04-14">.*?</summary>', history, re.S)
    assert earlier and "not in force yet" not in earlier.group(0)


def test_the_api_answers_for_today_and_marks_the_release_to_come(before_next: Client) -> None:
    client = before_next
    rule = client.get("/api/v1/rules/310.7").json()
    assert rule["text"].startswith(OLD_310_7)
    assert rule["release"]["effective_date"] == "2026-06-19"
    assert rule["release"]["upcoming"] is False
    assert client.get("/api/v1/rules/122.1j").status_code == 404
    ahead = client.get("/api/v1/rules/122.1j", {"release": "2026-08-07"}).json()
    assert ahead["text"].startswith("A hone counter on an Equipment gives +1/+0")
    assert ahead["release"]["upcoming"] is True
    releases = client.get("/api/v1/releases").json()
    assert [r["effective_date"] for r in releases if r["upcoming"]] == ["2026-08-07"]
    glossary = client.get("/api/v1/glossary").json()
    assert "Trample" in {t["headword"] for t in glossary}
    assert "Hone Counter" not in {t["headword"] for t in glossary}


def test_feeds_announce_a_release_on_its_date_not_before(before_next: Client, settings) -> None:
    client = before_next
    feed = feedparser.parse(client.get("/en/releases.atom").content)
    assert feed.entries[0].link == "http://testserver/en/diff/2026-04-17..2026-06-19/"
    assert not any("2026-08-07" in e.link for e in feed.entries)
    history = feedparser.parse(client.get("/en/rules/310.7/history.atom").content)
    assert history.entries and not any(e.updated.startswith("2026-08-07") for e in history.entries)
    settings.KB_TODAY = "2026-08-07"
    feed = feedparser.parse(client.get("/en/releases.atom").content)
    assert feed.entries[0].link == "http://testserver/en/diff/2026-06-19..2026-08-07/"
    history = feedparser.parse(client.get("/en/rules/310.7/history.atom").content)
    assert history.entries[0].updated.startswith("2026-08-07")


def test_it_becomes_current_on_its_date_with_nothing_done(before_next: Client, settings) -> None:
    """The page cache keeps the page of 2026-07-01 (a hit the second time), and gives it no
    more on 2026-08-07: nothing was imported, edited or purged meanwhile."""
    client = before_next
    for _ in range(2):
        assert OLD_310_7 in _text(client, "/en/rules/310.7/")
        assert client.get("/api/v1/rules/310.7").json()["text"].startswith(OLD_310_7)
    assert client.get("/en/rules/310.7/")["X-Page-Cache"] == "hit"
    assert "Hone Counter" not in _text(client, "/en/current/glossary/")
    settings.KB_TODAY = "2026-08-07"
    page = _text(client, "/en/rules/310.7/")
    assert NEW_310_7 in page and "Current rules: the release effective August 7, 2026" in page
    assert client.get("/api/v1/rules/310.7").json()["text"].startswith(NEW_310_7)
    assert "Hone Counter" in _text(client, "/en/current/glossary/")
    assert "on an Equipment gives +1/+0" in _text(client, "/en/rules/122.1j/")
    assert "Coming:" not in _text(client, "/en/")


def test_the_search_of_current_rules_is_today_s(before_next: Client) -> None:
    found = service.search("310.7")
    assert found.release.effective_date == IN_FORCE and found.is_current
    assert found.jump == "/en/rules/310.7/"
    ahead = service.search("310.7", release="2026-08-07")
    assert ahead.release.effective_date == TO_COME and not ahead.is_current
    assert ahead.jump == "/en/2026-08-07/rules/310.7/"
    assert any("not in force yet" in n for n in ahead.notices)
    assert not any("not in force yet" in n for n in found.notices)


def test_search_results_of_current_rules_hold_today_s_texts(before_next, search_index) -> None:
    """The index holds both releases' texts, each over its own interval: the current
    search answers with the 2026-06-19 ones until 2026-08-07."""
    current = service.search("hone counter", kinds=["rule", "glossary"])
    assert current.is_current
    assert "122.1j" not in {h.number for h in current.results.hits}
    assert "hone-counter" not in {h.ref for h in current.results.hits if h.kind == "glossary"}
    battles = service.search("battle defense 0 graveyard", kinds=["rule"])
    texts = {h.number: h.text for h in battles.results.hits}
    assert "310.7" in texts and "Siege" not in texts["310.7"]
    ahead = service.search("hone counter", kinds=["rule"], release="2026-08-07")
    assert "122.1j" in {h.number for h in ahead.results.hits}
