"""The reading pages' long lists formatted in Python (kb.templatetags.kb_tags): the same
escaping as the templates they replaced."""

from __future__ import annotations

import datetime as dt

from django.utils.safestring import mark_safe
from django.utils.translation import override

from kb.history import DiffItem
from kb.templatetags.kb_tags import diff_items, switcher_items


def test_switcher_items_escape_what_they_show() -> None:
    html = switcher_items(
        [
            {
                "date": dt.date(2025, 6, 6),
                "set_name": "Tarkir <Dragonstorm> & co",
                "number": "701.36a",
                "url": "/en/2025-06-06/rules/701.16a/?a=1&b=2",
                "is_this": True,
                "renumbered": True,
            },
            {
                "date": dt.date(2009, 10, 1),
                "set_name": "",
                "number": "701.16a",
                "url": "/en/2009-10-01/rules/701.16a/",
                "is_this": False,
                "renumbered": False,
            },
        ]
    )
    assert html == (
        '<li><a href="/en/2025-06-06/rules/701.16a/?a=1&amp;b=2" aria-current="page">'
        '2025-06-06</a> <span class="muted">Tarkir &lt;Dragonstorm&gt; &amp; co</span> — '
        '<span class="was">701.36a</span></li>\n'
        '<li><a href="/en/2009-10-01/rules/701.16a/">2009-10-01</a></li>\n'
    )


def _item(**kw) -> DiffItem:
    fields = dict(
        status="changed",
        kinds=["wording"],
        lineage_id=1,
        old_number="702.19b",
        new_number="702.19c",
        kind="subrule",
        old_version=1,
        new_version=2,
        sort="",
        old_url="/en/a/",
        new_url="/en/b/",
    )
    return DiffItem(**{**fields, **kw})


def test_diff_items_escape_plain_text_and_keep_marked_diffs() -> None:
    marked = _item(diff=mark_safe("<ins>new</ins> words"), example_diffs=["a < b"])
    with override("en"):
        html = str(diff_items([marked]))
    assert '<p class="diff" lang="en"><ins>new</ins> words</p>' in html
    assert '<span lang="en">a &lt; b</span>' in html
    assert '<span class="kind kind-moved">moved</span> <a href="/en/a/">702.19b</a> → ' in html
    assert 'data-n="702.19c" data-anchor="r-702.19c">Cite</button>' in html
    plain = _item(status="added", old_number="", diff="x < y & z", kinds=[])
    with override("fr"):
        html = str(diff_items([plain]))
    assert '<p class="diff" lang="en">x &lt; y &amp; z</p>' in html
    assert '<span class="kind kind-added">ajoutée</span> <a href="/en/b/">702.19c</a>' in html
