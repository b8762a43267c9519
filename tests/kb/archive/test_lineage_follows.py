"""A lineage follows a rule that changes level or parent, and one rewritten under its number
(issue 34): M20 (2019-06-14 -> 2019-07-12) turned subrules 110.5a-g into rules 111.2-111.8 with
the same words, and rewrote the three mulligan rules (103.4c, 800.5, 903.11g) whole. Venser's
Journal, reading the same releases, calls the first moves and the second rewordings; we showed
fourteen removed and added rules."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.test import Client

from kb.archive.matching import Item, match_rules
from kb.history import diff_between
from kb.models import Release, RuleNumber

M19_END, M20 = dt.date(2019, 6, 14), dt.date(2019, 7, 12)
MOVED = dict(zip(("110.5" + c for c in "abcdefg"), (f"111.{n}" for n in range(2, 9)), strict=True))
REWRITTEN = ("103.4c", "800.5", "903.11g")


def lineage(number: str, date: dt.date) -> int:
    return RuleNumber.objects.as_of(date).get(number=number, ordinal=0).lineage_id


@pytest.mark.slow
@pytest.mark.django_db
def test_m20s_moved_and_rewritten_rules_keep_their_lineage(archive) -> None:
    for old, new in MOVED.items():
        assert lineage(old, M19_END) == lineage(new, M20), (old, new)
    for number in REWRITTEN:
        assert lineage(number, M19_END) == lineage(number, M20), number
    diff = diff_between(
        Release.objects.get(effective_date=M19_END), Release.objects.get(effective_date=M20)
    )
    by_lineage = {item.lineage_id: item for item in diff.items}
    for old, new in MOVED.items():
        item = by_lineage[lineage(new, M20)]
        assert (item.old_number, item.new_number) == (old, new)
        kinds = {
            RuleNumber.objects.get(lineage_id=item.lineage_id, number=n).kind for n in (old, new)
        }
        assert kinds == {"subrule", "rule"}  # a subrule became a rule
        # The same words, but 110.5c: "its subtype" became "its subtype(s)" (nearly the same).
        expected = ("changed", ["wording"]) if old == "110.5c" else ("moved", [])
        assert (item.status, [k for k in item.kinds if k != "reference"]) == expected, old
    for number in REWRITTEN:
        item = by_lineage[lineage(number, M20)]
        assert item.status == "changed" and "wording" in item.kinds, number
    page = Client().get(f"/en/diff/{M19_END}..{M20}/").content.decode()
    for number in REWRITTEN:  # one rule on the diff page, its words diffed
        found = re.search(rf'id="r-{re.escape(number)}">(.*?)(?:id="r-|</section>)', page, re.S)
        assert found and "kind-wording" in found[1] and "<del" in found[1], number
    removed_or_added = {
        i.old_number or i.new_number for i in diff.items if not i.old_number or not i.new_number
    }
    assert not removed_or_added & (set(MOVED) | set(MOVED.values()) | set(REWRITTEN))


def _items(*rows: tuple[str, str, str]) -> list[Item]:
    return [Item(number, kind, text) for number, kind, text in rows]


CHAPTER = ("601", "chapter", "Casting Spells")
RULE = ("601.2", "rule", "To cast a spell is to take it from where it is and put it on the stack.")
OTHER_CHAPTER = ("602", "chapter", "Activating Activated Abilities")
OTHER_RULE = ("602.1", "rule", "Activated abilities have a cost and an effect.")


def test_a_rule_that_took_the_number_of_one_that_moved_away_is_not_its_rewrite() -> None:
    """Same number, same parent, words in common: still not one rule when the old text went on,
    edited, under another parent (where it reads as the same text: as alike as entries paired
    under one parent)."""
    went = "The player announces the spell and puts it onto the stack, then chooses its modes."
    a = _items(CHAPTER, RULE, ("601.2a", "subrule", went), OTHER_CHAPTER, OTHER_RULE)
    b = _items(
        CHAPTER,
        RULE,
        (
            "601.2a",
            "subrule",
            "The player announces the spell and pays its total cost in any order.",
        ),
        OTHER_CHAPTER,
        OTHER_RULE,
        ("602.1a", "subrule", "The player announces the ability and puts it onto the stack."),
    )
    pairs = {a[i].number: b[j].number for i, j in match_rules(a, b)}
    assert "601.2a" not in pairs


def test_a_rewrite_under_its_number_is_paired_and_an_unrelated_rule_is_not() -> None:
    """800.5 in 2019-06-14 and 2019-07-12: 0.30 alike, below what pairs changed entries."""
    old = (
        "In a multiplayer game, the first time a player takes a mulligan, they draw a new hand "
        "of as many cards as they had before. Subsequent hands decrease by one card as normal."
    )
    new = (
        "In a multiplayer game, the first mulligan a player takes doesn't count toward the "
        "number of cards that player will put on the bottom of their library or the number of "
        "mulligans that player may take. Subsequent mulligans are counted toward these numbers "
        "as normal."
    )
    other = "Each team has a shared life total, which starts at 30 life."
    a = _items(CHAPTER, RULE, ("601.2a", "subrule", old), ("601.2b", "subrule", other))
    b = _items(
        CHAPTER,
        RULE,
        ("601.2a", "subrule", new),
        ("601.2b", "subrule", "Poison counters are shared by the team, and so is mana."),
    )
    pairs = {a[i].number: b[j].number for i, j in match_rules(a, b)}
    assert pairs.get("601.2a") == "601.2a"
    assert "601.2b" not in pairs  # words in common: only "the" and "team"


def _split_as_the_old_matcher_did(number_then: str, number_now: str) -> int:
    """Give the rows of `number_now` from M20 on a lineage of their own, as the matcher did
    before issue 34 (a subrule become a rule was a removed rule and an added one); the new
    lineage's id."""
    from kb.models import Lineage, RuleVersion

    old = lineage(number_then, M19_END)
    new = Lineage.objects.create(key=f"{number_now}@{M20.isoformat()}", kind="rule")
    spanning = (
        RuleVersion.objects.filter(lineage_id=old, valid_from__lt=M20, valid_to__gt=M20).first()
        or RuleVersion.objects.filter(
            lineage_id=old, valid_from__lt=M20, valid_to__isnull=True
        ).first()
    )
    if spanning is not None:  # the same words on both sides: one version, cut in two
        end = spanning.valid_to
        RuleVersion.objects.filter(pk=spanning.pk).update(valid_to=M20)
        spanning.pk, spanning.valid_from, spanning.valid_to = None, M20, end
        spanning.save()
    RuleVersion.objects.filter(lineage_id=old, valid_from__gte=M20).update(lineage=new)
    RuleNumber.objects.filter(lineage_id=old, valid_from__gte=M20).update(lineage=new)
    RuleNumber.objects.filter(lineage=new, valid_from=M20).update(previous_number="")
    return new.pk


@pytest.mark.slow
@pytest.mark.django_db
def test_rematching_a_release_matched_by_the_old_rules_keeps_maintainers_work(cards) -> None:
    """`import_rules --rematch` on an archive loaded before the matcher changed: the release
    is matched again (M20's 111.2 continues 110.5a), and a French text a maintainer put on
    the rule, and a ruling link a maintainer confirmed, as the old matching had it, are
    still there."""
    from kb.archive.importer import Importer, text_checksum
    from kb.crtext.reading import parse_text
    from kb.models import ImportRecord, RuleVersion
    from rulings.models import LinkKind, Ruling, RulingLink
    from tests.conftest import release_files

    split = _split_as_the_old_matcher_did("110.5a", "111.2")
    assert lineage("111.2", M20) == split != lineage("110.5a", M19_END)
    version = RuleVersion.objects.get(lineage_id=split, valid_from=M20)
    RuleVersion.objects.filter(pk=version.pk).update(
        text_fr="Texte français d'un mainteneur.", fr_edited=True
    )
    ruling = Ruling.objects.order_by("id").first()
    RulingLink.objects.create(
        ruling=ruling, lineage_id=split, kind=LinkKind.CONFIRMED, evidence="a maintainer"
    )
    (path,) = [p for p in release_files() if p.name == f"{M20.isoformat()}.txt"]
    text = path.read_text(encoding="utf-8")
    result = Importer().import_document(
        parse_text(text), checksum=text_checksum(text), source=path.name, rematch=True
    )
    assert result.action == "replaced"
    assert lineage("111.2", M20) == lineage("110.5a", M19_END)
    now = RuleVersion.objects.as_of(M20).get(lineage_id=lineage("111.2", M20))
    assert now.text_fr == "Texte français d'un mainteneur." and now.fr_edited
    assert ImportRecord.objects.filter(effective_date=M20).latest("id").lost == []
    link = RulingLink.objects.get(ruling=ruling, evidence="a maintainer")
    assert link.lineage_id == lineage("110.5a", M19_END) and link.kind == LinkKind.CONFIRMED
    # Unchanged without --rematch: the same text is a no-op.
    again = Importer().import_document(parse_text(text), checksum=text_checksum(text))
    assert again.action == "unchanged"


KLD_BEFORE, KLD = dt.date(2016, 8, 26), dt.date(2016, 9, 30)
#: Kaladesh rewrote the turn structure: "Third, the active player gets priority" became the
#: step's "Second, …", and "Second, any abilities that triggered … go on the stack" became a
#: subrule of its own number. Venser's Journal reads them so; we showed removed and added.
KLD_STEPS = {
    "503.1": "503.1a",
    "504.3": "504.2",
    "507.3": "507.2",
    "508.2": "508.2b",
    "508.3": "508.2",
    "509.5": "509.4",
    "510.3": "510.3a",
    "510.4": "510.3",
}


@pytest.mark.slow
@pytest.mark.django_db
def test_kaladesh_s_rewritten_steps_keep_their_lineage(archive) -> None:
    for old, new in KLD_STEPS.items():
        assert lineage(old, KLD_BEFORE) == lineage(new, KLD), (old, new)
    diff = diff_between(
        Release.objects.get(effective_date=KLD_BEFORE), Release.objects.get(effective_date=KLD)
    )
    removed = {i.old_number for i in diff.items if i.old_number and not i.new_number}
    assert not removed & set(KLD_STEPS)


#: Rules split in parts, each part carved out of the old text: the old rule goes on as the
#: part holding most of its words, the other parts are new (the dates: the pair's two sides).
SPLITS = [
    # Amonkhet's split cards: "chooses which half" became 708.3, "only that half" 708.3a.
    (dt.date(2017, 1, 20), "708.2a", dt.date(2017, 4, 28), "708.3", ["708.3a"]),
    # The Brothers' War's meld pairs: the list of pairs became a subrule per pair.
    (dt.date(2022, 10, 7), "713.1a", dt.date(2022, 11, 18), "713.2", ["713.2a", "713.2c"]),
    # Kaladesh's look-back triggers: 603.6d became 603.10 and a subrule per kind of trigger.
    (dt.date(2016, 9, 30), "603.6d", dt.date(2016, 11, 11), "603.10", ["603.10a", "603.10g"]),
]


@pytest.mark.slow
@pytest.mark.django_db
def test_a_rule_split_in_parts_goes_on_as_its_largest_part(archive) -> None:
    for before, old, after, new, others in SPLITS:
        assert lineage(old, before) == lineage(new, after), (old, new)
        for other in others:
            assert lineage(other, after) != lineage(old, before), other
        diff = diff_between(
            Release.objects.get(effective_date=before), Release.objects.get(effective_date=after)
        )
        assert old not in {i.old_number for i in diff.items if not i.new_number}, old


def test_boilerplate_shared_by_sibling_keywords_is_no_split() -> None:
    """2004-10-01: snow-covered's "Multiple instances … are redundant" left chapter 502; the
    same sentence under vigilance and defender is not where it went."""
    a = _items(
        ("502", "chapter", "Keyword Abilities"),
        ("502.14", "rule", "Snow-covered"),
        (
            "502.14d",
            "subrule",
            "Multiple instances of snow-covered on the same land are redundant.",
        ),
    )
    b = _items(
        ("502", "chapter", "Keyword Abilities"),
        ("502.14", "rule", "Vigilance"),
        (
            "502.14c",
            "subrule",
            "Multiple instances of vigilance on the same creature are redundant.",
        ),
        ("502.41", "rule", "Defender"),
        (
            "502.41c",
            "subrule",
            "Multiple instances of defender on the same creature are redundant.",
        ),
    )
    pairs = {a[i].number: b[j].number for i, j in match_rules(a, b)}
    assert "502.14d" not in pairs
