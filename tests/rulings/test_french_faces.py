"""French names, type lines and texts per face of multi-face cards
(rulings.importing.french_faces), on
the shapes the real data has and on the real data itself."""

from __future__ import annotations

import gzip
import json

import pytest
from django.test import Client

from rulings.importing.french_faces import french_faces, undouble
from rulings.models import Card
from rulings.names import search_cards as search_names
from tests.conftest import CARDS


def test_a_repeated_french_name_is_said_once() -> None:
    assert undouble("Parer // Parader // Parer // Parader") == ["Parer", "Parader"]
    assert undouble("Ciel // Terre") == ["Ciel", "Terre"]
    assert undouble("Bound") == ["Bound"]


def test_an_english_face_in_the_french_data_is_no_french_name() -> None:
    fr = {
        "name": "Émérite du conflit // Lightning Bolt",
        "face_name": "Émérite du conflit",
        "type_line": None,
        "text": "Initiative",
    }
    card = french_faces(["Emeritus of Conflict", "Lightning Bolt"], fr)
    assert card.name == "Émérite du conflit"
    assert [f.name for f in card.faces] == ["Émérite du conflit", ""]
    assert [f.text for f in card.faces] == ["Initiative", ""]
    doubled = {
        "name": "Experimental Lab // Staff Room // Experimental Lab // Staff Room",
        "type_line": "Enchantement — pièce",
        "text": "Quand vous déverrouillez cet accès, manifestez l'effroi.",
    }
    lab = french_faces(["Experimental Lab", "Staff Room"], doubled)
    assert lab.name == "" and lab.faces[0].type_line == "Enchantement — pièce"
    assert lab.faces[0].text.startswith("Quand vous") and lab.faces[1].text == ""
    # Spelled alike in both languages: kept when its words are French ones.
    same = {"name": "Collision // Colosse", "type_line": "Éphémère", "text": "La Collision…"}
    assert french_faces(["Collision", "Colossus"], same, {"collision"}.__contains__).name == (
        "Collision // Colosse"
    )
    assert french_faces(["Collision", "Colossus"], same).name == "Colosse"


def test_older_records_give_the_other_faces_after_a_separator_line() -> None:
    split = {
        "name": "Bound",
        "type_line": "Éphémère",
        "text": "Sacrifiez une créature.\n//\nDéterminé\n{G}{U}\nÉphémère\nPiochez une carte.",
    }
    card = french_faces(["Bound", "Determined"], split)
    assert [(f.name, f.type_line, f.text) for f in card.faces] == [
        ("", "Éphémère", "Sacrifiez une créature."),
        ("Déterminé", "Éphémère", "Piochez une carte."),
    ]
    flip = {
        "name": "Kitsune Mystic",
        "type_line": "Créature : — renard et sorcier",
        "text": "À la fin du tour, inversez-le.\n-----\nQueue-d'automne, sage kitsune\n"
        "Créature légendaire : renard et sorcier\n4/5\n{1} : Déplacez l'enchantement.",
    }
    card = french_faces(["Kitsune Mystic", "Autumn-Tail, Kitsune Sage"], flip)
    assert card.faces[1].name == "Queue-d'automne, sage kitsune"
    assert card.faces[1].type_line == "Créature légendaire : renard et sorcier"
    assert card.faces[1].text == "{1} : Déplacez l'enchantement."
    assert (
        card.type_line
        == "Créature : — renard et sorcier // Créature légendaire : renard et sorcier"
    )


def _source_multi_face() -> list[dict]:
    with gzip.open(CARDS / "cards.jsonl.gz", "rt", encoding="utf-8") as fh:
        records = [json.loads(line) for line in fh]
    return [r for r in records if r.get("faces") and r.get("fr")]


@pytest.mark.slow
@pytest.mark.django_db
def test_the_nine_doubled_names_and_the_english_faces_are_gone(cards) -> None:
    source = _source_multi_face()
    doubled = [r["name"] for r in source if r["fr"]["name"] == f"{r['name']} // {r['name']}"]
    assert len(doubled) == 9 and "Experimental Lab // Staff Room" in doubled

    def english_inside(name_fr: str, faces: list[str]) -> bool:
        return any(h.casefold() in {f.casefold() for f in faces} for h in name_fr.split(" // "))

    before = [r["name"] for r in source if english_inside(r["fr"]["name"], r["name"].split(" // "))]
    assert len(before) == 69  # the 9 doubled ones and 60 more
    stored = {c.name_en: c for c in Card.objects.filter(name_en__in=before)}
    assert all(" // ".join([h] * 2) not in stored[n].name_fr for n in doubled for h in [n])
    for name in doubled:
        assert len(stored[name].name_fr.split(" // ")) <= 2, stored[name].name_fr
    after = sorted(n for n in before if english_inside(stored[n].name_fr, n.split(" // ")))
    # What is left is spelled alike in both languages, every word a French one.
    assert after == [
        "Carnival // Carnage",
        "Collision // Colossus",
        "Connive // Concoct",
        "Crime // Punishment",
        "Erayo, Soratami Ascendant // Erayo's Essence",
        "Expansion // Explosion",
        "Incubation // Incongruity",
        "Kuon, Ogre Ascendant // Kuon's Essence",
        "Pure // Simple",
        "Sasaya, Orochi Ascendant // Sasaya's Essence",
        "Status // Statue",
    ]
    lab = Card.objects.get(name_en="Experimental Lab // Staff Room")
    assert lab.name_fr == "" and lab.text_fr.startswith("Quand vous déverrouillez cet accès")


@pytest.mark.slow
@pytest.mark.django_db
def test_a_two_faced_card_has_its_french_per_face(cards, client: Client) -> None:
    delver = Card.objects.get(name_en="Delver of Secrets // Insectile Aberration")
    faces = list(delver.faces.all())
    assert [(f.name, f.name_fr) for f in faces] == [
        ("Delver of Secrets", "Sondeur de secrets"),
        ("Insectile Aberration", "Aberration insectoïde"),
    ]
    assert faces[0].type_line_fr == "Créature : humain et sorcier"
    assert faces[0].text_fr.startswith("Au début de votre entretien, regardez la carte")
    assert (faces[1].type_line_fr, faces[1].text_fr) == ("", "")
    html = client.get(f"/fr/cards/{delver.slug}/").content.decode()
    assert "Aberration insectoïde" in html
    assert "Pas de texte français pour cette face dans les données." in html
    bound = Card.objects.get(name_en="Bound // Determined")
    b = list(bound.faces.all())
    assert (b[0].name_fr, b[1].name_fr, b[1].type_line_fr) == ("", "Déterminé", "Éphémère")
    assert b[1].text_fr.startswith("Les autres sorts que vous contrôlez")
    assert bound.type_line_fr == "Éphémère // Éphémère"
    html = client.get(f"/en/cards/{bound.slug}/").content.decode()
    assert "Bound: no French name in the data" in html
    api = client.get(f"/api/v1/cards/{bound.slug}").json()
    assert [f["name_fr"] for f in api["faces"]] == ["", "Déterminé"]


@pytest.mark.slow
@pytest.mark.django_db
def test_lightning_bolt_ranks_above_a_card_with_a_lightning_bolt_face(cards, client) -> None:
    emeritus = Card.objects.get(name_en="Emeritus of Conflict // Lightning Bolt")
    assert emeritus.name_fr == "Émérite du conflit"
    assert [f.name_fr for f in emeritus.faces.all()] == ["Émérite du conflit", ""]
    assert search_names("lightning bolt")[0].name == "Lightning Bolt"
    assert client.get("/api/v1/cards", {"q": "lightning bolt"}).json()[0]["card"] == (
        "lightning-bolt"
    )
    assert client.get("/api/v1/cards", {"q": "foudre"}).json()[0]["card"] == "lightning-bolt"


@pytest.mark.slow
@pytest.mark.django_db
def test_site_search_puts_lightning_bolt_first(search_index, client: Client) -> None:
    hits = client.get("/api/v1/search", {"q": "lightning bolt", "kind": "card"}).json()["hits"]
    assert hits[0]["url"].endswith("/cards/lightning-bolt/")
    emeritus = [i for i, h in enumerate(hits) if "emeritus-of-conflict" in h["url"]]
    assert emeritus == [] or emeritus[0] > 0


def _scryfall(record: dict, text: str) -> dict:
    """The shared data's card as Scryfall's oracle-cards file gives it: no French at all."""
    faces = [
        {
            "object": "card_face",
            "name": f["name"],
            "mana_cost": f.get("mana_cost", ""),
            "type_line": f.get("type_line", ""),
            "oracle_text": f.get("oracle_text", ""),
        }
        for f in record["faces"]
    ]
    faces[0]["oracle_text"] = text
    return {
        "object": "card",
        "oracle_id": record["oracle_id"],
        "name": record["name"],
        "layout": record["layout"],
        "type_line": record["type_line"],
        "cmc": record["mana_value"],
        "colors": record.get("colors", []),
        "keywords": record.get("keywords", []),
        "card_faces": faces,
    }


@pytest.mark.slow
@pytest.mark.django_db
def test_a_reimport_without_french_keeps_the_french_of_each_face(cards, tmp_path) -> None:
    from rulings.importing.cards import import_cards

    record = next(
        r for r in _source_multi_face() if r["name"] == "Delver of Secrets // Insectile Aberration"
    )
    with_french = tmp_path / "mtgjson.jsonl"
    with_french.write_text(json.dumps(record) + "\n", encoding="utf-8")
    import_cards(str(with_french))  # as stored: French per face
    delver = Card.objects.get(name_en=record["name"])
    before = [(f.name, f.name_fr, f.type_line_fr, f.text_fr) for f in delver.faces.all()]
    assert before[1][1] == "Aberration insectoïde" and before[0][3].startswith("Au début")
    # Scryfall's file, with a reworded English text: the faces are rewritten, not their French.
    reworded = record["faces"][0]["oracle_text"] + " (reworded)"
    without = tmp_path / "scryfall.json"
    without.write_text(json.dumps([_scryfall(record, reworded)]), encoding="utf-8")
    result = import_cards(str(without))
    assert result.cards_updated == 1
    delver.refresh_from_db()
    faces = list(delver.faces.all())
    assert faces[0].text == reworded  # the English did change
    assert [(f.name, f.name_fr, f.type_line_fr, f.text_fr) for f in faces] == before
    assert delver.name_fr == "Sondeur de secrets // Aberration insectoïde"
    assert delver.text_fr.startswith("Au début de votre entretien")
    # And the French file again: the French comes from it, the English from it too.
    import_cards(str(with_french))
    assert [
        (f.name, f.name_fr, f.type_line_fr, f.text_fr)
        for f in Card.objects.get(pk=delver.pk).faces.all()
    ] == before
