"""Atom feeds to follow changes, on the real archive (issue 15): they parse cleanly, say what
changed and link to the rule as each release has it; pages announce them."""

from __future__ import annotations

import re

import feedparser
import pytest
from django.test import Client

pytestmark = [pytest.mark.slow, pytest.mark.django_db]


@pytest.fixture
def client(archive) -> Client:
    return Client()


def _parse(client: Client, url: str) -> feedparser.FeedParserDict:
    response = client.get(url)
    assert response.status_code == 200 and response["Content-Type"].startswith(
        "application/atom+xml"
    )
    feed = feedparser.parse(response.content)
    assert not feed.bozo, feed.get("bozo_exception")
    assert feed.version == "atom10"
    return feed


def test_a_rules_history_feed(client: Client) -> None:
    feed = _parse(client, "/en/rules/602.2a/history.atom")
    assert feed.feed.title == "History of rule 602.2a"
    history = client.get("/en/rules/602.2a/history/").content.decode()
    dates = re.findall(r'<li class="history-item" id="v-([\d-]+)">', history)
    assert [e.updated[:10] for e in feed.entries] == dates  # every change, newest first
    wording = next(e for e in feed.entries if e.updated.startswith("2018-04-27"))
    assert wording.title == "602.2a: wording (April 27, 2018)"
    assert wording.link == "http://testserver/en/2018-04-27/rules/602.2a/"
    assert "<del>he or she is</del><ins>they are</ins>" in wording.summary
    assert len({e.id for e in feed.entries}) == len(feed.entries)


def test_a_renumbered_rules_feed_says_what_it_was_in_french(client: Client) -> None:
    feed = _parse(client, "/fr/rules/701.20a/history.atom")
    assert feed.feed.title == "Historique de la règle 701.20a"
    moved = next(e for e in feed.entries if e.updated.startswith("2025-06-06"))
    assert "701.16a" in moved.summary


def test_pages_announce_the_feed_and_unknown_rules_have_none(client: Client) -> None:
    link = '<link rel="alternate" type="application/atom+xml"'
    for url in ("/en/rules/602.2a/", "/en/rules/602.2a/history/"):
        html = client.get(url).content.decode()
        href = 'href="/en/rules/602.2a/history.atom"'
        assert f'{link} title="History of rule 602.2a" {href}>' in html
    pinned = client.get("/en/2010-04-23/rules/602.2a/").content.decode()
    assert "history.atom" not in pinned  # a release's page: the releases feed only
    assert client.get("/en/rules/999.9z/history.atom").status_code == 404


def test_the_releases_feed_gives_each_releases_summary_and_diff(client: Client) -> None:
    from kb.models import Release

    feed = _parse(client, "/en/releases.atom")
    assert feed.feed.title == "Comprehensive Rules releases"
    dates = list(
        Release.objects.order_by("-effective_date").values_list("effective_date", flat=True)
    )
    assert [e.updated[:10] for e in feed.entries] == [d.isoformat() for d in dates[:20]]
    latest = feed.entries[0]
    assert latest.link == f"http://testserver/en/diff/{dates[1]}..{dates[0]}/"
    home = client.get("/en/").content.decode()
    summary = re.search(r'<p class="diff-summary">(.*?)</p>', home).group(1)
    assert summary in latest.summary and "rules reworded" in summary
    # Every page announces it.
    assert 'type="application/atom+xml" title="Comprehensive Rules releases"' in home
    french = _parse(client, "/fr/releases.atom")
    assert french.feed.title == "Versions des Règles complètes"


def test_the_releases_feed_pages_back_to_the_first_release(client: Client) -> None:
    """RFC 5005 paging: the newest 20 releases first, `next` links back to 1999 (the legacy
    releases included), each release once; a page past the last is a 404."""
    url, dates, pages = "/en/releases.atom", [], 0
    while url:
        feed = _parse(client, url)
        pages += 1
        dates += [e.updated[:10] for e in feed.entries]
        links = {link.rel: link.href for link in feed.feed.links}
        assert links["first"] == "http://testserver/en/releases.atom"
        url = links.get("next", "").replace("http://testserver", "")
    assert dates == sorted(dates, reverse=True) and len(set(dates)) == len(dates)
    assert dates[-1] == "1999-04-23" and len(dates) == 133  # every release is in force by now
    assert pages == 7 and links["last"] == "http://testserver/en/releases.atom?page=7"
    assert client.get("/en/releases.atom?page=8").status_code == 404
    assert client.get("/en/releases.atom?page=first").status_code == 404
