"""What a query asks: definitions, questions, card names (no database)."""

from __future__ import annotations

import pytest

from kb.sitesearch import understanding
from kb.sitesearch.service import without_stop_words
from search.backend import Suggestion
from search.syntax import parse


@pytest.mark.parametrize(
    ("query", "term"),
    [
        ("what is ward", "ward"),
        ("What's a token?", "token"),
        ("define bestow", "bestow"),
        ("cycling meaning", "cycling"),
        ("split second rules", "split second"),
        ("what does attach mean", "attach"),
        ("face down definition", "face down"),
        ("qu'est-ce que le piétinement", "pietinement"),
        ("what is the declare blockers step", "declare blockers step"),
        ("cloak meaning mtg", "cloak"),
        ("blight mtg definition", "blight"),
        ("what does it mean for a creature to die", "die"),
        ("what does it mean to be monstrous", "monstrous"),
        ("what counts as an object in magic rules", "object"),
        ("what is considered a spell", "spell"),
    ],
)
def test_a_definition_request_is_about_its_term(query: str, term: str) -> None:
    assert understanding.definition_term(query) == term


@pytest.mark.parametrize(
    "query",
    [
        "trample",
        "what happens when a creature with deathtouch deals damage to another creature",
        "what is the difference between exile and the graveyard for tokens",
        "how does it work",
    ],
)
def test_other_queries_are_not_definition_requests(query: str) -> None:
    assert understanding.definition_term(query) == ""


def _words(query: str) -> list[str]:
    groups = without_stop_words(list(parse(query).groups))
    return [g.items[0].text for g in understanding.without_filler(groups)]


def test_a_questions_words_are_its_topic() -> None:
    assert _words("how does trample work with deathtouch") == ["trample", "deathtouch"]
    assert _words("what happens when a creature dies") == ["creature", "dies"]
    assert _words("can I respond") == ["respond"]


def test_short_queries_and_phrases_keep_every_word() -> None:
    assert _words("how") == ["how"]
    assert _words("does work") == ["does", "work"]  # two words: all topic
    assert _words('what "can be" does it') == ["can be"]


def test_long_queries_need_half_their_words() -> None:
    assert [understanding.min_match(n) for n in (1, 2, 3, 4, 5, 8, 12)] == [0, 0, 2, 2, 3, 4, 6]


def _card(title: str) -> Suggestion:
    return Suggestion("card", title, title.lower().replace(" ", "-"))


def test_a_card_name_is_told_from_a_rules_query() -> None:
    found = [_card("Lightning Bolt"), _card("Lightning Helix")]
    assert understanding.names_a_card("lightning bolt", found)
    assert understanding.names_a_card("lightning blot", found)  # a typo
    assert understanding.names_a_card(
        "Brazen Borrower // Petty Theft", [_card("Brazen Borrower // Petty Theft")]
    )
    assert understanding.names_a_card("petty theft", [_card("Brazen Borrower // Petty Theft")])
    assert not understanding.names_a_card("lightning", found)  # a word of many names
    assert not understanding.names_a_card("counter target spell", [_card("Counterspell")])
    assert not understanding.names_a_card(
        "lightning bolt", [Suggestion("rule", "Lightning Bolt", "1")]
    )


def test_players_shorthand_is_read_from_its_file() -> None:
    table = understanding.jargon()
    assert table[("etb",)][0] == "enters"
    assert "mana value" in table[("cmc",)]
    assert ("sorcery", "speed") in table


@pytest.mark.parametrize(
    "typed",
    [
        # the scene first, then the question, with no question mark
        "creature that's both a pirate and a rogue, does it count as 2 outlaws or just one",
        "sac trigger that uses the mana value; is it checked on the battlefield or in the yard",
        "suspend a card with X in the cost - what's X when it gets cast for free",
        "deux marqueurs sur ma créature, combien de dégâts elle inflige",
    ],
)
def test_a_question_asked_after_its_scene_is_question_shaped(typed: str) -> None:
    text = parse(typed).text  # the service reads the words parsed, the clauses as typed
    assert not understanding.question_shaped(text), "the words alone do not tell"
    assert understanding.question_shaped(text, asked=understanding.asks(typed), typed=typed)
    assert not understanding.asks(typed)  # told: no question mark


@pytest.mark.parametrize(
    "typed",
    [
        "at what point in combat can i cast a spell for its sneak cost",
        "dans quel ordre se résolvent deux capacités déclenchées",
    ],
)
def test_a_preposition_then_a_question_word_opens_a_question(typed: str) -> None:
    assert understanding.question_shaped(parse(typed).text)


@pytest.mark.parametrize(
    "typed",
    [
        "Flying, can't block creatures with power 2 or less",  # a card's text
        "Equipped creature gets +2/+2, has trample and haste",
        "tap an untapped creature you control: add one mana",
        "deathtouch trample damage assignment lethal",
    ],
)
def test_card_texts_and_keyword_lists_are_not_question_shaped(typed: str) -> None:
    text = parse(typed).text
    assert not understanding.question_shaped(text, asked=understanding.asks(typed), typed=typed)


def test_a_question_mark_within_the_query_asks() -> None:
    typed = "two landfall creatures trigger off one land, which one resolves first? do i pick"
    assert understanding.asks(typed)
    assert understanding.question_shaped(parse(typed).text, asked=True, typed=typed)
