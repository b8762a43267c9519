"""Rule history and release diffs on the full archive."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from kb.archive.importer import Importer, text_checksum
from kb.crtext import parse_text
from tests.conftest import CR_EN
from tests.kb.helpers import page_queries

pytestmark = [pytest.mark.slow, pytest.mark.django_db]


@pytest.fixture
def client(archive) -> Client:
    return Client()


def _items(html: str) -> dict[str, tuple[bool, str]]:
    """History items by date: (open?, summary text)."""
    out = {}
    for date, opened, summary in re.findall(
        r'<li class="history-item" id="v-([\d-]+)">\s*<details( open)?>\s*<summary>(.*?)</summary>',
        html,
        re.S,
    ):
        out[date] = (bool(opened), re.sub(r"<[^>]+>|\s+", " ", summary))
    return out


def test_602_2a_history(client: Client) -> None:
    html = client.get("/en/rules/602.2a/history/").content.decode()
    items = _items(html)
    wording = [d for d, (_, s) in items.items() if "wording" in s]
    assert sorted(wording) == ["2009-09-04", "2010-02-01", "2018-04-27", "2024-06-07"]
    assert "reference renumbered" in items["2025-06-06"][1]
    for date in ("2014-02-01", "2019-01-25", "2019-06-14"):
        opened, summary = items[date]
        assert "typography only" in summary and not opened  # folded
    assert not items["2025-06-06"][0]
    assert items["2024-06-07"][0]
    assert list(items) == sorted(items, reverse=True)  # newest first
    # The word diff of the 2018 change, every token escaped.
    assert "<del>he</del> <del>or</del>" not in html
    assert "<del>he or she is</del><ins>they are</ins>" in html


def test_a_renumbering_says_what_the_rule_was(client: Client) -> None:
    html = client.get("/en/rules/701.20a/history/").content.decode()
    assert 'was <a href="/en/2025-04-04/rules/701.16a/">701.16a</a> until 2025-04-04' in html
    # Said in words, not as the archive's internal key ("lineage 701.16a@…").
    assert "lineage" not in html and "@20" not in html
    assert "first numbered" in html
    items = _items(html)
    assert "moved" in items["2025-06-06"][1]
    old = client.get("/en/2009-07-11/rules/714/history/").content.decode()
    assert 'was <a href="/en/2026-02-27/rules/732/">732</a> until 2026-02-27' in old


def test_history_api(client: Client) -> None:
    data = client.get("/api/v1/rules/602.2a/history").json()
    kinds = {i["effective_date"]: i["kinds"] for i in data["items"]}
    assert kinds["2025-06-06"] == ["reference"] and kinds["2014-02-01"] == ["typography"]
    assert kinds["2009-07-11"] == ["new"]
    moved = client.get("/api/v1/rules/701.20a/history").json()["items"][0]
    assert (moved["kinds"], moved["previous_number"], moved["previous_until"]) == (
        ["moved"],
        "701.16a",
        "2025-04-04",
    )


def _counts(html: str) -> dict[str, int]:
    return {k: int(v) for k, v in re.findall(r'<dd data-count="(\w+)">(\d+)</dd>', html)}


def _section(client: Client, url: str, section: str) -> str:
    """Every page of a section of a sectioned diff, one after the other (a long section is
    paged by chapter)."""
    first = client.get(url, {"section": section}).content.decode()
    pages = sorted({int(n) for n in re.findall(rf"\?section={section}&amp;page=(\d+)", first)})
    rest = [client.get(url, {"section": section, "page": n}).content.decode() for n in pages[1:]]
    return "".join([first, *rest])


def test_the_tokens_diff(client: Client) -> None:
    html = client.get("/en/diff/2019-06-14..2019-07-12/").content.decode()
    counts = _counts(html)
    assert counts["moved"] >= 180
    assert counts["changed"] + counts["added"] + counts["removed"] < 100  # tens, not hundreds
    assert '<article class="diff-item status-moved" id="r-112.1">' in html
    data = client.get("/api/v1/diff", {"from": "2019-06-14", "to": "2019-07-12"}).json()
    assert (
        data["counts"] == {k: v for k, v in data["counts"].items()}
        and data["counts"]["moved"] == counts["moved"]
    )
    spells = next(i for i in data["items"] if i["old_number"] == "111" and i["new_number"] == "112")
    assert spells["moved"] and spells["url"].endswith("/en/diff/2019-06-14..2019-07-12/#r-112")


def test_typography_is_counted_apart_and_folded(client: Client) -> None:
    url = "/en/diff/2018-10-05..2019-01-25/"
    counts = _counts(client.get(url).content.decode())
    assert counts["typography"] >= 1000
    assert counts["changed"] + counts["added"] + counts["removed"] <= 150
    html = _section(client, url, "7")
    folded = re.findall(r'<details class="noise-group">(.*?)</details>', html, re.S)
    in_folds = sum(f.count('<article class="diff-item') for f in folded)
    # Noise is folded per chapter, and moves (typography changes or not) into their blocks.
    outside = re.sub(
        r'<details class="(?:noise-group|move-block)".*?</details>', "", html, flags=re.S
    )
    shown = re.findall(r'<article class="diff-item[^>]*>(.*?)</article>', outside, re.S)
    assert in_folds > 400
    assert all("typography only" not in item for item in shown)
    assert 0 < len(shown) < 60


def test_2010_to_today_is_sectioned_and_finds_the_moves(client: Client) -> None:
    url = "/en/diff/2010-02-01..2026-08-07/"
    html = client.get(url).content.decode()
    assert "choose a section" in html
    section7 = _section(client, url, "7")
    assert re.search(
        r'id="r-733">\s*<h3><span class="kind kind-moved">moved</span> '
        r'<a href="/en/2010-02-01/rules/714/">714</a> → '
        r'<a href="/en/2026-08-07/rules/733/">733</a>',
        section7,
    )
    assert 'id="r-733.1"' in section7  # its rules moved with it, text changes included
    section6 = _section(client, url, "6")
    assert re.search(
        r'id="r-602.2a">\s*<h3><a href="/en/2026-08-07/rules/602.2a/">602.2a</a>\s*'
        r'<span class="kind kind-wording">',
        section6,
    )


def test_dates_resolve_and_order_is_normalised(client: Client) -> None:
    assert client.get("/en/diff/2026-08-07..2010-02-01/").url == "/en/diff/2010-02-01..2026-08-07/"
    assert client.get("/en/diff/2016-05-20..current/").url == "/en/diff/2016-04-08..2026-08-07/"
    assert client.get("/en/diff/1990-01-01..current/").status_code == 404
    assert client.get("/api/v1/diff", {"from": "x", "to": "current"}).status_code == 400


def test_glossary_history_and_diff(client: Client) -> None:
    html = client.get("/en/diff/2024-04-12..2024-06-07/", {"section": "glossary"}).content.decode()
    assert re.search(
        r'<span lang="en">Tribal</span> → <span lang="en">Tribal \(Obsolete\)</span>', html
    )
    assert re.search(r'id="g-kindred">\s*<h3><span class="kind kind-added">added</span>', html)
    history = client.get("/en/glossary/tribal/history/").content.decode()
    assert "Tribal (Obsolete)" in history and "renamed" in history


def test_releases_link_to_their_diff(client: Client) -> None:
    html = client.get("/en/releases/").content.decode()
    assert 'href="/en/diff/2019-06-14..2019-07-12/">since previous</a>' in html


def test_constant_queries_for_small_and_large_history_and_diffs(client: Client) -> None:
    counts = {
        url: page_queries(client, url)
        for url in (
            "/en/rules/602.2a/history/",
            "/en/rules/100.1/history/",
            "/en/diff/2026-06-19..2026-08-07/",
            "/en/diff/2019-06-14..2019-07-12/",
            "/en/diff/2010-02-01..2026-08-07/?section=7",
            "/en/diff/2018-10-05..2019-01-25/?section=1",
        )
    }
    # 6, and 3 for the links across Magic 2010 (kb.history.across_2010), whatever their number.
    assert counts["/en/rules/602.2a/history/"] == counts["/en/rules/100.1/history/"] <= 9
    # Whole diffs of a few or hundreds of items; sections of diffs of thousands.
    assert counts["/en/diff/2026-06-19..2026-08-07/"] == counts["/en/diff/2019-06-14..2019-07-12/"]
    assert (
        counts["/en/diff/2010-02-01..2026-08-07/?section=7"]
        == counts["/en/diff/2018-10-05..2019-01-25/?section=1"]
    )
    assert max(counts.values()) <= 9


def test_replace_invalidates_a_cached_diff(client: Client, tmp_path) -> None:
    url = "/en/diff/2019-06-14..2019-07-12/"
    before = _counts(client.get(url).content.decode())
    text = (CR_EN / "2019-07-12.txt").read_text(encoding="utf-8")
    edited = text.replace(
        "shuffles the cards in their hand back into their library",
        "shuffles their hand into their library",
    )
    assert edited != text
    Importer().import_document(parse_text(edited), checksum=text_checksum(edited), replace=True)
    after = _counts(client.get(url).content.decode())
    assert after["changed"] == before["changed"]  # 103.4 was already changed: same count
    # Cached items point at version rows; the replaced release has new ones, so fresh items
    # (not the cached ones) are what carry the new text.
    data = client.get("/api/v1/diff", {"from": "2019-06-14", "to": "2019-07-12"}).json()
    item = next(i for i in data["items"] if i["new_number"] == "103.4")
    assert "shuffles their hand into their library" in item["new_text"]
