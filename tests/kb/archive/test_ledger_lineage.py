"""The ledger finds a maintainer's work by its rule's lineage, never on another rule that took
the rule's number.

On the real archive, a release is replaced (and a new one previewed) with a copy from which
702.19f (Trample), which a maintainer corrected and translated, is removed while 702.19g takes
its number. What failed before: where the lineage had no row on the date any more, the ledger
took the row of whatever rule held the number then, 702.19g's; the import record said the
correction's official text had changed and the French text was not on the row (of the other
rule), and the preview of a new release said the French text was still shown as current because
"only typography or references change". Now the rule is reported as removed; the copy of the
row the import made under a new lineage (2026-08-07 prints 702.19f again) still counts as where
the work is.
"""

from __future__ import annotations

import re

import pytest
from django.core.management.base import CommandError

from kb.archive import editing, ledger
from kb.archive.publishing import preview_release
from tests.conftest import CR_EN
from tests.kb.archive.test_replace_keeps_edits import (
    AFTER_K,
    BEFORE_K,
    K,
    assert_accounted,
    edit_rule,
    last_record,
    real_text,
    replace,
    rolled_back,
    rule_row,
)

pytestmark = [pytest.mark.slow, pytest.mark.django_db]

REMOVED, TAKER = "702.19f", "702.19g"
GONE = "the rule is not in this release any more"


def removed_and_renumbered(text: str) -> str:
    """The text without 702.19f, 702.19g numbered 702.19f in its place."""
    text, n = re.subn(rf"^{re.escape(REMOVED)} .*\n\n", "", text, count=1, flags=re.M)
    assert n == 1
    text, n = re.subn(rf"^{re.escape(TAKER)} ", f"{REMOVED} ", text, count=1, flags=re.M)
    assert n == 1
    return text


def test_a_replacement_reports_the_removed_rule_not_the_one_that_took_its_number(
    archive, tmp_path
) -> None:
    with rolled_back():
        row = edit_rule(REMOVED, K)  # an English correction and a French text
        assert row.valid_from < BEFORE_K and row.valid_to is None
        taker = rule_row(TAKER, K).lineage_id
        text = removed_and_renumbered(real_text(K))

        preview = preview_release(data=text.encode("utf-8"), source="copy.txt")
        assert preview.replaces
        items = [(m.where, m.what, m.fate, m.detail) for m in preview.maintainer]
        assert items == [
            (REMOVED, "English correction", "would be lost", GONE),
            (REMOVED, "French text (unofficial)", "would be lost", GONE),
        ]

        before = ledger.take(official=True)
        with pytest.raises(CommandError, match=rf"{re.escape(REMOVED)} English correction: {GONE}"):
            replace(tmp_path, text)
        doc = replace(tmp_path, text, force=True)
        assert rule_row(REMOVED, K).lineage_id == taker  # the number now names 702.19g's rule
        record = last_record().lost
        lost = sorted((i["rule"], i["what"], i["reason"], i["releases"]) for i in record)
        assert lost == [
            (REMOVED, "English correction", GONE, [K.isoformat()]),
            (REMOVED, "French text", GONE, [K.isoformat()]),
        ]
        # 2026-08-07 prints 702.19f again: the import split the row there, and its copy (under
        # a new lineage) keeps both, so nothing is missing from that release.
        later = rule_row(REMOVED, AFTER_K)
        assert later.lineage_id not in (row.lineage_id, taker)
        assert later.en_edited and later.text_en == row.text_en
        assert later.fr_edited and later.text_fr == row.text_fr
        assert_accounted(before, doc)


def test_a_new_release_without_the_rule_leaves_its_french_text_behind(archive) -> None:
    """The release after 2026-08-07, without 702.19f: its French text stays with the earlier
    releases because the rule is gone (it said: still shown as current, only typography)."""
    with rolled_back():
        editing.edit_rule_version(
            version=rule_row(REMOVED, AFTER_K), user="ann", text_fr="Règle 702.19f, par Ann."
        )
        text = (CR_EN / f"{AFTER_K.isoformat()}.txt").read_text(encoding="utf-8")
        text = re.sub(
            r"effective as of \w+ \d+, \d{4}", "effective as of January 24, 2099", text, count=1
        )
        preview = preview_release(data=removed_and_renumbered(text).encode("utf-8"), source="x")
        assert not preview.replaces and preview.compared_with == AFTER_K
        assert [c.number for c in preview.removed] == [REMOVED]
        items = [(m.where, m.what, m.fate, m.detail) for m in preview.maintainer]
        assert items == [
            (
                REMOVED,
                "French text (unofficial)",
                "stays with the earlier releases (the rule is gone)",
                "",
            )
        ]
