"""The comparison of our release diffs with Venser's Journal's (bench/vensers.py, issue 34), on
the real archive: their files are read, their set codes land on our releases (mid-cycle
updates by their texts, a set we lack read through its two diffs), and the pairs issue 34 named
show none of our four faults."""

from __future__ import annotations

import datetime as dt

import pytest

from bench import vensers
from kb.models import Release
from tests.conftest import CR_EN, SHARED, require_file

pytestmark = [pytest.mark.slow, pytest.mark.django_db]

VJ = SHARED / "cr" / "changes" / "vensersjournal"


@pytest.fixture
def pairs(archive) -> dict[str, vensers.Pair]:
    require_file(VJ, "Venser's Journal's diffs")
    dates = sorted(Release.objects.values_list("effective_date", flat=True))
    found = vensers.pairs_of(vensers.read_diffs(VJ), CR_EN, dates)
    return {p.label: p for p in found}


def test_their_set_codes_land_on_our_releases(pairs: dict[str, vensers.Pair]) -> None:
    assert len(vensers.read_diffs(VJ)) == 41
    spans = {label: (p.old, p.new) for label, p in pairs.items()}
    # Ikoria's companion update: the same set code on both sides, told apart by the texts.
    assert spans["Companions"] == (dt.date(2020, 4, 17), dt.date(2020, 6, 1))
    assert spans["THB-IKO"] == (dt.date(2020, 1, 24), dt.date(2020, 4, 17))
    # War of the Spark is not in the shared data: its two diffs read as one pair.
    assert spans["RNA-WAR-MH1"] == (dt.date(2019, 1, 25), dt.date(2019, 6, 14))
    assert spans["MH1-M20"] == (dt.date(2019, 6, 14), dt.date(2019, 7, 12))


#: Issue 34's four kinds of fault of ours, each fixed by a general rule: moves to a new parent
#: or level, rewrites under the same number, trademark signs counted as wording, and a
#: reference that cites another rule folded as a renumbering (605.1b in WAR -> MH1).
FIXED = (vensers.O_PARENT, vensers.O_REWRITE, vensers.O_SYMBOLS, vensers.O_REFERENCE)


@pytest.mark.parametrize("label", ["MH1-M20", "GRN-RNA", "RNA-WAR-MH1", "AER-AKH", "KLD-C16"])
def test_the_pairs_issue_34_named_show_none_of_our_faults(
    pairs: dict[str, vensers.Pair], label: str
) -> None:
    report = vensers.compare(pairs[label])
    assert {c: report.causes[c] for c in FIXED if report.causes[c]} == {}
    assert report.theirs == len(pairs[label].entries) > 0
    # What we both read the same way is most of it (their own faults aside).
    assert report.count(vensers.AGREED) >= 0.8 * report.theirs


def test_a_removal_they_do_not_list_is_theirs_to_miss(pairs: dict[str, vensers.Pair]) -> None:
    """XLN removed the planeswalker uniqueness rule (306.4, 704.5j); its nearest text in XLN is
    the legend rule, renumbered into 704.5j and continuing its own lineage, so it is a real
    removal, which Venser's Journal does not list. ORI removed the sun symbol (107.13)."""
    for label, number in (("C17-XLN", "306.4"), ("C17-XLN", "704.5j"), ("DTK-ORI", "107.13")):
        report = vensers.compare(pairs[label])
        causes = {
            f.ours[0].old_number: f.cause for f in report.findings if f.entry is None and f.ours
        }
        assert causes[number] == vensers.T_MISSED, (label, number)


def test_a_split_rule_is_either_sides_reading(pairs: dict[str, vensers.Pair]) -> None:
    """Amonkhet split 708.2a in two: "chooses which half" became 708.3, "only that half"
    708.3a. We follow it into the part holding most of its words, Venser's Journal into the
    other: either reading holds. Kaladesh's 603.6d became 603.10 and its subrules: agreed."""
    report = vensers.compare(pairs["AER-AKH"])
    causes = {f.entry.old.number: f.cause for f in report.findings if f.entry and f.entry.old}
    assert causes["708.2a"] == vensers.E_SPLIT
    agreed = vensers.compare(pairs["KLD-C16"])
    assert any(
        f.category == vensers.AGREED and f.entry.old and f.entry.old.number == "603.6d"
        for f in agreed.findings
    )
