"""How a page of hits is shown: a keyword rule's defining subrule (on the whole archive) and
the groups of the All tab (on the session's index)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from kb import selectors
from kb.archive import editing
from kb.models import RuleNumber, RuleVersion
from kb.sitesearch import presenting
from kb.sitesearch.service import search

pytestmark = [pytest.mark.django_db, pytest.mark.slow]
RECENT = dt.date(2025, 6, 6)

#: Keyword rules and the subrule that says what they do (checked by hand in the CR).
DEFINING = {
    "702.19": "702.19b",  # 702.19a: "Trample is a static ability that modifies the rules…"
    "702.2": "702.2b",  # 702.2a: "Deathtouch is a static ability."
    "702.9": "702.9b",  # "Flying is an evasion ability."
    "702.21": "702.21a",  # Ward: "Ward [cost]" means … in its first subrule
    "702.5": "702.5a",  # Enchant: 702.5b only points to rule 303
    "702.80": "702.80a",  # Wither: says what it does after classifying it
    "701.16": "701.16a",  # Investigate: "Investigate" means …
}


def test_a_keyword_rule_is_defined_by_the_subrule_that_says_what_it_does(archive) -> None:
    selectors.rules._subrules_of.cache_clear()  # the per-process cache, emptied
    with CaptureQueriesContext(connection) as queries:
        subrules = selectors.subrules_of([*DEFINING, "999.99"], RECENT)
    assert len(queries) == 2  # the archive's stamp, then every subrule at once
    with CaptureQueriesContext(connection) as queries:
        assert selectors.subrules_of([*DEFINING, "999.99"], RECENT) == subrules
    assert len(queries) == 1  # kept until the stamp changes
    assert "702.190a" not in {s.number for s in subrules["702.19"]}  # 702.190 is Sneak
    names = {n: selectors.rule_version(n, RECENT).text_en for n in DEFINING}
    chosen = {n: presenting.defining(names[n], subrules[n]).number for n in DEFINING}
    assert chosen == DEFINING


def test_a_maintainers_edit_shows_at_once_though_titles_and_subrules_are_kept(archive) -> None:
    """Chapter titles and subrules are kept per archive stamp: the next read after an edit
    (a maintainer's, committed by any process) has the new text."""

    def current(number: str) -> RuleVersion:
        lineage = RuleNumber.objects.as_of(RECENT).get(number=number).lineage_id
        return RuleVersion.objects.as_of(RECENT).get(lineage_id=lineage)

    assert selectors.chapter_titles(["702"], RECENT) == {"702": "Keyword Abilities"}
    before = {s.number: s.texts["en"] for s in selectors.subrules_of(["702.19"], RECENT)["702.19"]}
    editing.edit_rule_version(version=current("702"), user="t", text_en="Keyword Abilities II")
    editing.edit_rule_version(version=current("702.19b"), user="t", text_en="Trample, edited.")
    assert selectors.chapter_titles(["702", "999"], RECENT) == {"702": "Keyword Abilities II"}
    after = {s.number: s.texts["en"] for s in selectors.subrules_of(["702.19"], RECENT)["702.19"]}
    assert after == {**before, "702.19b": "Trample, edited."}


def test_only_heading_rules_get_a_definition(search_index) -> None:
    hits = search("trample").results.hits
    found = presenting.definitions(hits, search("trample").release.effective_date)
    assert found["702.19"].number == "702.19b"
    assert set(found) == {h.number for h in hits if h.kind == "rule" and h.title("en")}
    assert not any(presenting.is_heading(h) for h in hits if h.kind != "rule")


def test_the_words_of_a_definition_are_marked_like_a_snippet(search_index) -> None:
    hits = search("trample").results.hits
    words = presenting.marked_words(hits)
    assert "trample" in words
    text = presenting.highlight("A creature with trample <b> & Trample's", words)
    assert text == (
        "A creature with <mark>trample</mark> &lt;b&gt; &amp; <mark>Trample</mark>&#x27;s"
    )
    assert presenting.highlight("x " * 400, words).endswith(" …")


def test_groups_follow_the_default_order_unless_a_card_leads(search_index) -> None:
    rules = search("trample").results
    groups = presenting.grouped(rules.hits, rules.counts, every_kind=True)
    assert [g.name for g in groups] == ["rules", "rulings", "cards"]
    assert groups[0].total == rules.counts["rule"] + rules.counts["glossary"]
    assert groups[2].more == rules.counts["card"] - len(groups[2].hits) > 0
    assert sorted(presenting.in_order(groups), key=rules.hits.index) == rules.hits
    card = search("lightning bolt").results
    groups = presenting.grouped(card.hits, card.counts, every_kind=True)
    assert groups[0].name == "cards" and groups[0].hits[0].title("en") == "Lightning Bolt"
    assert [g.best for g in groups] == sorted(g.best for g in groups)
    only = search("trample", kinds=["card"]).results
    assert [g.name for g in presenting.grouped(only.hits, only.counts, every_kind=False)] == [
        "cards"
    ]
