"""A reference that now cites another rule is a change of meaning, not a renumbering folded
away (issue 34): in Modern Horizons' release (2019-06-14) 605.1b cites 605.1a where the
release before (2019-01-25) cited 106.11a, another rule; Venser's Journal calls it reworded,
and so do we now. A reference that follows its rule's new number stays folded."""

from __future__ import annotations

import datetime as dt

import pytest

from kb.history import diff_between
from kb.models import Release, RuleNumber, RuleVersion

pytestmark = [pytest.mark.slow, pytest.mark.django_db]

RNA, MH1 = dt.date(2019, 1, 25), dt.date(2019, 6, 14)
M20 = dt.date(2019, 7, 12)


def diff(a: dt.date, b: dt.date):
    return diff_between(
        Release.objects.get(effective_date=a), Release.objects.get(effective_date=b)
    )


def test_605_1b_cites_another_rule_and_is_reworded(archive) -> None:
    old = RuleVersion.objects.as_of(RNA).get(lineage__numbers__number="605.1b")
    new = RuleVersion.objects.as_of(MH1).get(lineage__numbers__number="605.1b")
    assert "106.11a" in old.text_en and "605.1a" in new.text_en
    assert old.masked_hash == new.masked_hash  # only the cited number differs
    assert (new.change, new.wording_since) == ("wording", MH1)
    item = next(i for i in diff(RNA, MH1).items if i.lineage_id == new.lineage_id)
    assert item.kinds == ["wording"] and not item.noise


def test_references_that_follow_their_rule_stay_folded(archive) -> None:
    """The Tokens release (M20) inserted chapter 111: the references to 111-122 that moved
    with their rules are still reference-only, and none of them became wording."""
    items = diff(MH1, M20).items
    folded = [i for i in items if i.kinds == ["reference"]]
    assert len(folded) >= 50
    assert all(i.noise or i.moved for i in folded)
    stored = RuleVersion.objects.filter(valid_from=M20, change="reference").count()
    assert stored >= 50
    # A sample of the folded ones: each cites the rule its old number cited, renumbered.
    lineage_of = {
        (d, n): lid
        for d in (MH1, M20)
        for n, lid in RuleNumber.objects.as_of(d).values_list("number", "lineage_id")
    }
    assert lineage_of[(MH1, "111.1")] == lineage_of[(M20, "112.1")]
