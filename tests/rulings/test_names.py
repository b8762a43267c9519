"""Card-name search on the real cards: the frozen 40 queries, French names, faces, prefixes."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.card_names import first_accuracy, top5_accuracy
from rulings.models import Card
from rulings.names import normalize, search_cards

pytestmark = [pytest.mark.slow, pytest.mark.django_db]
QUERIES = Path(__file__).with_name("card_queries.jsonl")


def cards_of(query: str, limit: int = 20) -> list[str]:
    """English names of the cards found, best first."""
    ids = [m.card_id for m in search_cards(query, limit)]
    names = dict(Card.objects.filter(id__in=ids).values_list("id", "name_en"))
    return [names[i] for i in ids]


def test_normalize_folds_case_accents_and_punctuation() -> None:
    assert normalize("Æther Vial") == normalize("aether vial")
    assert normalize("Jace, the Mind-Sculptor") == normalize("jace the mind sculptor")
    assert normalize("Élémental") == normalize("elemental")


def test_the_frozen_card_queries_find_the_card_in_the_top_five(cards) -> None:
    accuracy, misses = top5_accuracy(QUERIES)
    assert accuracy >= 0.9, misses


def test_face_names_and_french_names_find_their_card(cards) -> None:
    assert cards_of("authority")[0] == "Appeal // Authority"
    names = cards_of("porte de la guilde d'izzet")[:3]
    assert sorted(names) == ["Izzet Guildgate", "Izzet Guildgate (a)", "Izzet Guildgate (b)"]
    french = search_cards("foudre")[0]
    assert (french.name, french.lang) == ("Foudre", "fr")
    assert cards_of("foudre")[0] == "Lightning Bolt"


def test_prefix_matches_come_first(cards) -> None:
    results = search_cards("lightning", limit=20)
    assert len(results) == 20
    assert all(normalize(m.name).startswith("lightning") for m in results[:10])
    assert search_cards("") == [] and search_cards("\x00\x01") == []


def test_well_known_cards_come_first_among_names_that_match_alike(cards) -> None:
    """Issue 35: "lightning b" meant Lightning Bolt (printed 30 times), not Lightning Blow;
    "teferis prot" Teferi's Protection, not Teferi's Moat."""
    assert search_cards("lightning b", limit=3)[0].name == "Lightning Bolt"
    assert search_cards("lightnig blot", limit=3)[0].name == "Lightning Bolt"
    assert search_cards("teferis prot", limit=3)[0].name == "Teferi's Protection"
    assert search_cards("urzas b", limit=3)[0].name == "Urza's Bauble"


def test_misspelt_and_partial_names_find_the_intended_card_first(cards) -> None:
    """The sampled set (bench/card_typos.py): the intended card first for 95 % or more."""
    folder = Path(__file__).parent
    for part in ("dev", "test"):
        accuracy, misses = first_accuracy(folder / f"card_typos_{part}.jsonl")
        assert accuracy >= 0.95, (part, misses)
