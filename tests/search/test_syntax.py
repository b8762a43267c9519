"""The query language: what users type, parsed without ever failing."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from search.backends.whoosh.analyzers import english, french, names
from search.syntax import MAX_ITEMS, MAX_QUERY, Phrase, Word, parse


def test_words_phrases_exclusions_alternatives_and_prefixes() -> None:
    q = parse('"copy an ability" -flying hexproof OR shroud Audaci*')
    assert [g.items for g in q.groups] == [
        (Phrase("copy an ability"),),
        (Word("hexproof"), Word("shroud")),
        (Word("Audaci", prefix=True),),
    ]
    assert q.excluded == [Word("flying")]
    assert q.text == "copy an ability hexproof shroud Audaci"


def test_filters_are_read_and_removed_from_the_words() -> None:
    q = parse("kind:rule,glossary release:2019-01-25 lang:fr 602.2a")
    assert q.kinds == ["rule", "glossary"]
    assert q.release == "2019-01-25"
    assert q.lang == "fr"
    assert q.text == "602.2a"
    assert parse("kind:carte vol").kinds == ["card"]  # French names of kinds
    unknown = parse("kind:spaceship trample")
    assert unknown.ignored == ["kind:spaceship"] and unknown.text == "trample"


def test_broken_input_is_read_as_words() -> None:
    assert parse('"unbalanced quote').groups[0].items == (Phrase("unbalanced quote"),)
    assert parse("((trample)").text == "trample"
    assert parse("OR OR -").empty
    assert parse("- OR trample").text == "trample"
    assert parse("\x00\x1b[31mred\u200b").text == "31mred"
    long = parse("trample " * 5000)
    assert long.truncated and len(long.groups) == MAX_ITEMS


def test_analyzers_fold_accents_before_stemming_and_keep_numbers_whole() -> None:
    def tokens(analyzer, text: str) -> list[str]:
        return [t.text for t in analyzer(text)]

    assert tokens(french(), "piétinement") == tokens(french(), "pietinement") == ["pietin"]
    assert tokens(english(), "copying copies") == ["copi", "copi"]
    assert tokens(english(), "see rule 602.2a.") == ["see", "rule", "602.2a"]
    assert tokens(names(), "Lim-Dûl's Vault") == ["lim", "duls", "vault"]
    assert tokens(names(), "Fiole d'Éther") == ["fiole", "dether", "ether"]
    assert tokens(names(), "Héraut de la guerre") == ["heraut", "de", "la", "guerre"]


@settings(deadline=None, max_examples=300, derandomize=True)
@given(st.text(max_size=600))
def test_any_text_parses(text: str) -> None:
    q = parse(text)
    assert len(q.groups) <= MAX_ITEMS and len(q.excluded) <= MAX_ITEMS
    assert len(q.text) <= MAX_QUERY
    for group in q.groups:
        for item in group.items:
            assert item.text.strip() and any(c.isalnum() for c in item.text)


def test_a_minus_before_a_digit_is_a_sign_not_an_exclusion() -> None:
    """ "-1/-1 counters" are a game term: read as an exclusion, the query lost its words and
    left out every text holding them (and a question so typed was never searched by meaning)."""
    q = parse("modular creature dies from -1/-1 counters -flying")
    assert q.excluded == [Word("flying")]
    assert Word("1/-1") in [g.items[0] for g in q.groups]
    assert parse("gets -2/-0 until end of turn").excluded == []
