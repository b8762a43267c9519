"""Reading big diffs on the full archive: moves folded into blocks after the real changes,
typography folded inside changed items, long sections paged by chapter, the glossary section
reachable, and the summary on the diff and home pages."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

from kb.archive.importer import Importer, text_checksum
from kb.crtext import parse_text
from kb.history import diff_between, diff_summary
from kb.models import Release
from tests.conftest import CR_EN

pytestmark = [pytest.mark.slow, pytest.mark.django_db]

TOKENS = "/en/diff/2019-06-14..2019-07-12/"
LONG = "/en/diff/2010-02-01..2026-08-07/"
_BLOCK_RE = re.compile(r'<details class="move-block"[^>]*>.*?</details>', re.S)


@pytest.fixture
def client(archive) -> Client:
    return Client()


def _pages(client: Client, url: str, section: str, **extra: str) -> list[str]:
    """Every page of one section of a sectioned diff."""
    first = client.get(url, {"section": section, **extra})
    assert first.status_code == 200
    html = first.content.decode()
    numbers = sorted({int(n) for n in re.findall(rf"\?section={section}&amp;page=(\d+)", html)})
    rest = [
        client.get(url, {"section": section, "page": n, **extra}).content.decode()
        for n in numbers[1:]
    ]
    return [html, *rest]


def _summary(html: str) -> str:
    found = re.search(r'<p class="diff-summary">(.*?)</p>', html, re.S)
    assert found, "no summary"
    return found.group(1)


def test_the_tokens_release_moves_fold_into_blocks_after_the_real_changes(client: Client) -> None:
    html = client.get(TOKENS).content.decode()
    blocks = _BLOCK_RE.findall(html)
    assert 1 <= len(blocks) <= 15
    # Every move is in a block, each block lists its rules (expandable without JS).
    assert sum(b.count('<article class="diff-item') for b in blocks) == 227
    assert re.search(
        r'<summary><span class="kind kind-moved">moved</span> 111–114\.7e → 112–115\.7e, '
        r"72 rules, wording unchanged",
        html,
    )
    assert (
        '<span class="kind kind-moved">moved</span> 119–121.6a → 120–122.6a, 50 rules, '
        "text unchanged</summary>" in html
    )
    # The real changes come first, none of them folded.
    first_block = html.index('<details class="move-block"')
    outside = _BLOCK_RE.sub("", html)
    real = re.findall(
        r'<article class="diff-item[^"]*" id="(r-[^"]+)">'
        r"(?:(?!</article>).)*kind-(?:wording|examples)",
        outside,
        re.S,
    )
    assert len(set(real)) == 18  # 200.3 cites chapter 111 where it cited rule 110.5
    assert all(html.index(f'id="{anchor}"') < first_block for anchor in real)
    assert not re.search(
        r"kind-(?:added|removed|wording|examples)", html[first_block:].split('id="s-glossary"')[0]
    )
    # The moved chapter 111 -> 112 is in its block, and a link to it opens the block.
    assert any('<article class="diff-item status-moved" id="r-112">' in b for b in blocks)
    # (site.js, on every page: no inline script)
    site_js = (Path(settings.BASE_DIR) / "static" / "js" / "site.js").read_text(encoding="utf-8")
    assert 'closest("details")' in site_js and "/static/js/site.js" in html


def test_the_summary_numbers_of_the_tokens_release(client: Client) -> None:
    old = Release.objects.get(effective_date="2019-06-14")
    new = Release.objects.get(effective_date="2019-07-12")
    summary = diff_summary(diff_between(old, new))
    assert (summary.reworded, summary.added, summary.removed) == (18, 8, 0)
    assert (summary.renumbered, summary.blocks, summary.glossary) == (227, 7, 8)
    html = client.get(TOKENS).content.decode()
    assert _summary(html) == (
        "18 rules reworded, 8 added, 0 removed; 227 renumbered in 7 blocks; 8 glossary changes."
    )
    counts = dict(re.findall(r'<dd data-count="(\w+)">(\d+)</dd>', html))
    assert counts["moved"] == "227" and counts["changed"] == "18"
    data = client.get("/api/v1/diff", {"from": "2019-06-14", "to": "2019-07-12"}).json()
    assert data["summary"] == {
        "reworded": 18,
        "added": 8,
        "removed": 0,
        "renumbered": 227,
        "blocks": 7,
        "noise": summary.noise,
        "glossary": 8,
    }


def test_the_home_page_heads_with_the_latest_release_summary(client: Client, tmp_path) -> None:
    html = client.get("/en/").content.decode()
    assert 'href="/en/diff/2026-06-19..2026-08-07/"' in html
    before = _summary(html)
    assert (
        before
        == "10 rules reworded, 9 added, 0 removed; 12 renumbered in 5 blocks; 4 glossary changes."
    )
    # A re-import of the latest release is seen at once (the cached summary is keyed by the
    # archive's state): rewording 100.1 makes 11.
    text = (CR_EN / "2026-08-07.txt").read_text(encoding="utf-8")
    edited = text.replace(
        "These Magic rules apply to any Magic game with two or more players",
        "These Magic rules apply to every Magic game with two or more players",
    )
    assert edited != text
    Importer().import_document(parse_text(edited), checksum=text_checksum(edited), replace=True)
    after = _summary(client.get("/en/").content.decode())
    assert after.startswith("11 rules reworded, 9 added, 0 removed")


def test_the_glossary_section_of_a_long_diff_is_reachable_and_paged(client: Client) -> None:
    response = client.get("/en/diff/2010-04-23..current/", {"section": "glossary"}, follow=True)
    assert response.redirect_chain[-1][0].endswith("?section=glossary")
    html = response.content.decode()
    assert 'id="s-glossary"' in html and "choose a section" in html
    assert 'href="?section=glossary" aria-current="page"' in html
    url = response.redirect_chain[-1][0].split("?")[0]
    pages = _pages(client, url, "glossary")
    assert len(pages) >= 2
    slugs = [
        s
        for page in pages
        for s in re.findall(r'<article class="diff-item[^"]*" id="g-([^"]+)"', page)
    ]
    data = client.get("/api/v1/diff", {"from": "2010-04-23", "to": "current"}).json()
    assert sorted(slugs) == sorted(t["slug"] for t in data["glossary"])
    assert len(slugs) == len(set(slugs)) > 400
    assert re.search(r'id="g-mana-ability">\s*<h3>', "".join(pages))


def test_a_long_section_is_paged_by_chapter_under_300_kb(client: Client) -> None:
    pages = _pages(client, LONG, "7")
    assert len(pages) >= 3
    assert max(len(p.encode()) for p in pages) <= 300_000
    anchors = [
        a for p in pages for a in re.findall(r'<article class="diff-item[^"]*" id="r-([^"]+)"', p)
    ]
    data = client.get(
        "/api/v1/diff", {"from": "2010-02-01", "to": "2026-08-07", "section": "7"}
    ).json()
    assert sorted(anchors) == sorted(i["new_number"] or i["old_number"] for i in data["items"])
    # The API links each item to the page that shows it.
    item = next(i for i in data["items"] if i["new_number"] == "733")
    page = re.search(r"\?section=7&page=(\d+)#r-733$", item["url"])
    assert page
    shown = client.get(LONG, {"section": "7", "page": page.group(1)}).content.decode()
    assert 'id="r-733"' in shown
    # A page past the end or not a number reads as the nearest page, never a 500.
    assert client.get(LONG, {"section": "7", "page": "999"}).status_code == 200
    assert client.get(LONG, {"section": "7", "page": "x"}).status_code == 200
    assert "choose a section" in client.get(LONG, {"section": "nope"}).content.decode()


_QUOTES_ONLY = re.compile(r"<(ins|del)>[\"'“”‘’`\s]+</\1>")


def test_quote_only_changes_are_not_highlighted_inside_changed_items(client: Client) -> None:
    url = "/en/diff/2018-10-05..2019-01-25/"
    sections = re.findall(r'href="\?section=(\d)"', client.get(url).content.decode())
    assert len(sections) == 9

    def changed_items(typography: str = "") -> list[str]:
        extra = {"typography": typography} if typography else {}
        html = "".join(p for s in sections for p in _pages(client, url, s, **extra))
        # The noise groups hold typography-only items, which show what changed.
        outside = re.sub(r'<details class="noise-group">.*?</details>', "", html, flags=re.S)
        return re.findall(r'<article class="diff-item status-changed".*?</article>', outside, re.S)

    folded = changed_items()
    # Nine real changes: the eleven rules 2019-01-25 only gave a "(tm)" or "(r)" are
    # typography-only since issue 34, in the noise groups.
    assert len(folded) >= 9
    assert sum("<ins>" in item or "<del>" in item for item in folded) >= 7
    assert not [item for item in folded if _QUOTES_ONLY.search(item)]
    # The toggle shows every change, quotes included.
    every = changed_items("all")
    assert len(every) == len(folded)
    # (The "(tm)" rules held most quote-only changes inside changed texts: one remains.)
    assert sum(1 for item in every if _QUOTES_ONLY.search(item)) >= 1
    assert 'href="?section=1&amp;typography=all"' not in "".join(every)


def test_the_far_diffs_counts_add_up_and_say_what_they_count(client: Client) -> None:
    """The box, the sentence and "N rules differ" of the 2010 -> today diff (issue 34): each
    rule that differs is counted once, in one box; the sentence reads the same counts."""
    html = client.get(LONG).content.decode()
    counts = {k: int(v) for k, v in re.findall(r'<dd data-count="(\w+)">(\d+)</dd>', html)}
    boxes = ("changed", "added", "removed", "moved", "reference", "typography")
    total = int(re.search(r"(\d+) rules differ: choose a section", html)[1])
    assert sum(counts[k] for k in boxes) == total
    assert f"{total} rules differ, each counted once" in html
    assert re.search(
        rf"{counts['changed']} rules reworded, {counts['added']} added, {counts['removed']} "
        rf"removed; {counts['moved']} renumbered in \d+ blocks",
        _summary(html),
    )
    assert ">Renumbered, wording unchanged</dt>" in html and ">Reworded</dt>" in html
    french = client.get(LONG.replace("/en/", "/fr/")).content.decode()
    assert ">Reformulées</dt>" in french and "chacune comptée une fois" in french
