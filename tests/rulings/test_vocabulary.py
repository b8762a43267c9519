"""The EN/FR vocabulary: keyword names mined from bilingual cards, the curated list."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.models import VocabularyTerm
from rulings.vocabulary.mining import (
    VocabularyFileError,
    build_vocabulary,
    keywords_in_force,
    mine_keyword_lines,
    read_curated,
)

pytestmark = pytest.mark.django_db


def test_keyword_lines_pair_up_item_by_item() -> None:
    from rulings.vocabulary.mining import Keyword

    keywords = [
        Keyword("Flying", 1, "keyword ability"),
        Keyword("Ward", 2, "keyword ability"),
        Keyword("Enchant", 3, "keyword ability"),
    ]
    pairs = [
        (["Flying, ward {2}", "Draw a card."], ["Vol, parade {2}", "Piochez une carte."]),
        (["Ward—Pay 3 life. (reminder, with a comma)"], ["Parade—Payez 3 points de vie."]),
        (["Enchant creature"], ["Enchanter : créature"]),
        (["Flying"], ["Vol"]),
    ]
    evidence = mine_keyword_lines(pairs, keywords)
    assert evidence["flying"].best() == ("Vol", 2)
    assert evidence["ward"].best() == ("Parade", 2)
    assert evidence["enchant"].votes == {"Enchanter": 1}


def test_a_malformed_curated_row_is_refused_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "terms.csv"
    path.write_text("en,fr,kind,rule,glossary\nStack,pile,zone,405,\nGraveyard,,zone,404,\n")
    with pytest.raises(VocabularyFileError, match=r"terms.csv, line 3: en, fr and kind"):
        read_curated(path)
    path.write_text("english,french\nStack,pile\n")
    with pytest.raises(VocabularyFileError, match="missing columns"):
        read_curated(path)


@pytest.mark.slow
def test_the_cards_name_most_keywords_and_the_known_ones_right(cards) -> None:
    report = build_vocabulary()
    assert report.unresolved == []
    assert report.keywords["keyword ability"] == len(
        [k for k in keywords_in_force() if k.kind == "keyword ability"]
    )
    assert report.mined["keyword ability"] >= 145
    assert report.mined["keyword action"] >= 45
    fr = dict(VocabularyTerm.objects.filter(kind="keyword ability").values_list("en", "fr"))
    # Checked by hand against printed French cards.
    expected = {
        "Trample": "Piétinement",
        "Ward": "Parade",
        "Deathtouch": "Contact mortel",
        "Flying": "Vol",
        "First Strike": "Initiative",
        "Double Strike": "Double initiative",
        "Lifelink": "Lien de vie",
        "Haste": "Célérité",
        "Hexproof": "Défense talismanique",
        "Reach": "Portée",
        "Vigilance": "Vigilance",
        "Cycling": "Recyclage",
        "Equip": "Équipement",
        "Enchant": "Enchanter",
        "Kicker": "Kick",
        "Convoke": "Convocation",
        "Morph": "Mue",
        "Crew": "Pilotage",
    }
    assert {k: fr.get(k) for k in expected} == expected
    trample = VocabularyTerm.objects.get(en="Trample", kind="keyword ability")
    assert (
        trample.source == "cards" and trample.agreeing >= 400 and trample.seen >= trample.agreeing
    )
    assert trample.lineage.numbers.get(valid_to=None).number == "702.19"
    stack = VocabularyTerm.objects.get(en="Stack", kind="zone")
    assert (stack.fr, stack.source) == ("pile", "curated")
    assert stack.lineage.numbers.get(valid_to=None).number == "405"
    activated = VocabularyTerm.objects.get(en="Activated ability")
    assert activated.glossary_term.key == "activated ability"
