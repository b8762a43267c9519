"""import_cards: formats, atomicity, idempotence, reworded and missing rulings, bad input."""

from __future__ import annotations

import gzip
import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.core.management.base import CommandError

from kb.models import Lineage
from rulings.models import Card, LinkKind, Ruling, RulingLink
from tests.kb.helpers import run
from tests.rulings.helpers import clear_cards

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def no_cards(db) -> None:
    clear_cards()


BOLT = {
    "oracle_id": "4457ed35-7c10-48c8-9776-456485fdf070",
    "name": "Lightning Bolt",
    "layout": "normal",
    "mana_cost": "{R}",
    "type_line": "Instant",
    "oracle_text": "Lightning Bolt deals 3 damage to any target.",
    "mana_value": 1.0,
    "colors": ["R"],
    "keywords": [],
    "fr": {"name": "Foudre", "type_line": "Éphémère", "text": "La Foudre inflige 3 blessures."},
    "rulings": [
        {"date": "2009-10-01", "text": "Bolt can target a planeswalker."},
        {"date": "2021-03-19", "text": "Bolt deals damage, it isn't a loss of life."},
    ],
}
ICE = {
    "oracle_id": None,
    "name": "Fire // Ice",
    "layout": "split",
    "mana_cost": "{1}{R} // {1}{U}",
    "type_line": "Instant // Instant",
    "oracle_text": "Fire deals 2 damage divided as you choose.\n//\nTap target permanent.",
    "faces": [
        {"name": "Fire", "mana_cost": "{1}{R}", "type_line": "Instant", "oracle_text": "F."},
        {"name": "Ice", "mana_cost": "{1}{U}", "type_line": "Instant", "oracle_text": "I."},
    ],
    "keywords": [],
    "fr": None,
    "rulings": [{"date": "2004-10-04", "text": "Fire and Ice are two halves of one card."}],
}


def write_jsonl(path: Path, *records: object, gz: bool = False) -> str:
    text = "".join(json.dumps(r) + "\n" for r in records)
    if gz:
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text, encoding="utf-8")
    return str(path)


def test_cards_rulings_french_and_faces_are_imported(tmp_path: Path) -> None:
    out = run("import_cards", write_jsonl(tmp_path / "c.jsonl.gz", BOLT, ICE, gz=True), "--no-link")
    assert "cards: 2 created" in out and "rulings: 3 created" in out
    bolt = Card.objects.get(name_en="Lightning Bolt")
    assert (bolt.name_fr, bolt.type_line_fr) == ("Foudre", "Éphémère")
    assert str(bolt.oracle_id) == BOLT["oracle_id"]
    assert bolt.rulings.count() == 2
    ice = Card.objects.get(name_en="Fire // Ice")
    assert ice.oracle_id is None and ice.key  # a stable key from the name
    assert [f.name for f in ice.faces.order_by("position")] == ["Fire", "Ice"]


def test_a_second_import_changes_nothing(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "c.jsonl", BOLT, ICE)
    run("import_cards", path, "--no-link")
    before = list(Ruling.objects.order_by("id").values_list("id", "text", "missing"))
    stamps = list(Card.objects.order_by("id").values_list("updated_at", flat=True))
    assert "nothing changed" in run("import_cards", path, "--no-link")
    assert list(Ruling.objects.order_by("id").values_list("id", "text", "missing")) == before
    assert list(Card.objects.order_by("id").values_list("updated_at", flat=True)) == stamps


def test_a_reworded_ruling_is_updated_in_place_and_keeps_its_confirmed_link(
    tmp_path: Path,
) -> None:
    run("import_cards", write_jsonl(tmp_path / "a.jsonl", BOLT), "--no-link")
    ruling = Ruling.objects.get(text__startswith="Bolt deals damage")
    lineage = Lineage.objects.create(key="test-120", kind="chapter")
    RulingLink.objects.create(ruling=ruling, lineage=lineage, kind=LinkKind.CONFIRMED)
    reworded = json.loads(json.dumps(BOLT))
    reworded["rulings"][1]["text"] = "Lightning Bolt deals damage; it isn't a loss of life."
    out = run("import_cards", write_jsonl(tmp_path / "b.jsonl", reworded), "--no-link")
    assert "1 reworded" in out
    again = Ruling.objects.get(pk=ruling.pk)
    assert again.text == reworded["rulings"][1]["text"] and not again.missing
    assert again.links.get().kind == LinkKind.CONFIRMED
    assert Ruling.objects.count() == 2


def test_a_ruling_missing_from_the_file_is_marked_not_deleted(tmp_path: Path) -> None:
    run("import_cards", write_jsonl(tmp_path / "a.jsonl", BOLT, ICE), "--no-link")
    fewer = dict(BOLT, rulings=BOLT["rulings"][:1])
    out = run("import_cards", write_jsonl(tmp_path / "b.jsonl", fewer), "--no-link")
    assert "1 marked missing" in out
    gone = Ruling.objects.get(text__startswith="Bolt deals damage")
    assert gone.missing
    # Fire // Ice is not in the second file: its ruling is untouched.
    assert not Ruling.objects.get(card__name_en="Fire // Ice").missing
    # It comes back when a file has it again.
    out = run("import_cards", write_jsonl(tmp_path / "c.jsonl", BOLT), "--no-link")
    assert "1 restored" in out
    assert not Ruling.objects.get(pk=gone.pk).missing


def test_a_malformed_record_refuses_the_file_naming_file_and_line(tmp_path: Path) -> None:
    bad = dict(ICE, rulings=[{"date": "2004-13-45", "text": "x"}])
    path = tmp_path / "bad.jsonl"
    path.write_text(
        json.dumps(BOLT) + "\n" + "{not json\n" + json.dumps(bad) + "\n", encoding="utf-8"
    )
    with pytest.raises(CommandError) as exc:
        run("import_cards", str(path), "--no-link")
    message = str(exc.value)
    assert f"{path}, line 2" in message and "not JSON" in message
    assert f"{path}, line 3, ruling 1" in message and "2004-13-45" in message
    assert Card.objects.count() == 0 and Ruling.objects.count() == 0  # nothing imported


def test_skip_invalid_imports_the_rest_and_lists_what_it_skipped(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(BOLT) + "\n[1, 2]\n" + json.dumps(ICE) + "\n", encoding="utf-8")
    out = run("import_cards", str(path), "--no-link", "--skip-invalid")
    assert "skipped 1 malformed record(s)" in out
    assert f"{path}, line 2: a card must be a JSON object" in out
    assert Card.objects.count() == 2


def test_a_ruling_for_an_unknown_card_is_reported(tmp_path: Path) -> None:
    cards = write_jsonl(tmp_path / "c.jsonl", dict(BOLT, rulings=[]))
    rulings = write_jsonl(
        tmp_path / "r.jsonl",
        {
            "oracle_id": None,
            "card_name": "No Such Card",
            "published_at": "2020-01-01",
            "comment": "A ruling.",
        },
    )
    with pytest.raises(CommandError, match=r"r.jsonl, line 1: no card “No Such Card”"):
        run("import_cards", cards, rulings, "--no-link")
    assert Card.objects.count() == 0


def test_a_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="no such file"):
        run("import_cards", str(tmp_path / "absent.jsonl"))


def scryfall_files(tmp_path: Path) -> tuple[str, str]:
    """Scryfall bulk shape: one JSON array per file, faces as card_faces, cmc."""
    cards = [
        {
            "object": "card",
            "oracle_id": BOLT["oracle_id"],
            "name": "Lightning Bolt",
            "layout": "normal",
            "mana_cost": "{R}",
            "cmc": 1.0,
            "type_line": "Instant",
            "oracle_text": "Lightning Bolt deals 3 damage to any target.",
            "colors": ["R"],
            "keywords": [],
        },
        {
            "object": "card",
            "oracle_id": "b8e5e6b1-0d43-4ee3-8fb8-8e4b1a2b2d3e",
            "name": "Fire // Ice",
            "layout": "split",
            "cmc": 4.0,
            "type_line": "Instant // Instant",
            "card_faces": [
                {
                    "name": "Fire",
                    "mana_cost": "{1}{R}",
                    "type_line": "Instant",
                    "oracle_text": "Fire deals 2 damage divided as you choose.",
                },
                {
                    "name": "Ice",
                    "mana_cost": "{1}{U}",
                    "type_line": "Instant",
                    "oracle_text": "Tap target permanent. Draw a card.",
                },
            ],
        },
    ]
    rulings = [
        {
            "object": "ruling",
            "oracle_id": BOLT["oracle_id"],
            "source": "wotc",
            "published_at": "2009-10-01",
            "comment": "Bolt can target a planeswalker.",
        },
        {
            "object": "ruling",
            "oracle_id": "b8e5e6b1-0d43-4ee3-8fb8-8e4b1a2b2d3e",
            "source": "wotc",
            "published_at": "2004-10-04",
            "comment": "Two halves.",
        },
    ]
    c, r = tmp_path / "oracle-cards.json", tmp_path / "rulings.json"
    c.write_text(json.dumps(cards, indent=1), encoding="utf-8")
    r.write_text(json.dumps(rulings, indent=1), encoding="utf-8")
    return str(c), str(r)


def test_scryfall_bulk_arrays_are_streamed_and_keep_french_from_mtgjson(tmp_path: Path) -> None:
    run("import_cards", write_jsonl(tmp_path / "mtgjson.jsonl", BOLT), "--no-link")
    out = run("import_cards", *scryfall_files(tmp_path), "--no-link")
    assert "cards: 1 created, 1 updated" in out
    # Bolt's second ruling is not in Scryfall's file: kept, marked missing.
    assert "1 marked missing, 1 unchanged" in out
    bolt = Card.objects.get(name_en="Lightning Bolt")
    assert bolt.name_fr == "Foudre"  # Scryfall has no French: MTGJSON's is kept
    fire_ice = Card.objects.get(name_en="Fire // Ice")
    assert fire_ice.faces.count() == 2 and fire_ice.mana_value == 4.0
    assert "Tap target permanent" in fire_ice.text_en


def test_a_broken_json_array_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "oracle-cards.json"
    path.write_text('[{"name": "A"}, {"name": ', encoding="utf-8")
    with pytest.raises(CommandError, match="not valid JSON"):
        run("import_cards", str(path), "--no-link")
    assert Card.objects.count() == 0


@pytest.fixture
def http_dir(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    handler = lambda *a, **k: http.server.SimpleHTTPRequestHandler(  # noqa: E731
        *a, directory=str(tmp_path), **k
    )
    http.server.SimpleHTTPRequestHandler.log_message = lambda *a: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", tmp_path
    server.shutdown()


def test_files_are_read_from_a_url(http_dir: tuple[str, Path]) -> None:
    url, folder = http_dir
    write_jsonl(folder / "cards.jsonl.gz", BOLT, ICE, gz=True)
    out = run("import_cards", f"{url}/cards.jsonl.gz", "--no-link")
    assert "cards: 2 created" in out
    with pytest.raises(CommandError, match="download failed"):
        run("import_cards", f"{url}/absent.jsonl", "--no-link")


# A maintainer's work survives every import (issue 12).


def test_a_reimport_keeps_a_maintainers_ruling_text_and_reports_a_source_change(
    tmp_path: Path,
) -> None:
    from rulings.corrections import save_ruling

    path = write_jsonl(tmp_path / "a.jsonl", BOLT)
    run("import_cards", path, "--no-link")
    ruling = Ruling.objects.get(text__startswith="Bolt deals damage")
    ruling.text = "Lightning Bolt deals damage; it isn't a loss of life."
    save_ruling(ruling=ruling, changed=["text"])
    # The same file again: the correction stays and nothing changes.
    assert "nothing changed" in run("import_cards", path, "--no-link")
    assert Ruling.objects.get(pk=ruling.pk).text == ruling.text
    assert Ruling.objects.count() == 2 and not Ruling.objects.filter(missing=True).exists()
    # The source rewords it too: the maintainer's text is kept, the conflict reported.
    reworded = json.loads(json.dumps(BOLT))
    reworded["rulings"][1]["text"] = "Bolt deals damage. It isn't a loss of life."
    out = run("import_cards", write_jsonl(tmp_path / "b.jsonl", reworded), "--no-link")
    assert "Lightning Bolt, ruling" in out and "source changed, maintainer value kept" in out
    again = Ruling.objects.get(pk=ruling.pk)
    assert again.text == ruling.text and again.text_edited
    assert again.source_text == reworded["rulings"][1]["text"]
    # Reported once: the same file again changes nothing.
    assert "nothing changed" in run(
        "import_cards", write_jsonl(tmp_path / "c.jsonl", reworded), "--no-link"
    )


def test_a_reimport_keeps_a_maintainers_card_fields_and_reports_a_source_change(
    tmp_path: Path,
) -> None:
    from rulings.corrections import save_card

    path = write_jsonl(tmp_path / "a.jsonl", BOLT)
    run("import_cards", path, "--no-link")
    bolt = Card.objects.get(name_en="Lightning Bolt")
    bolt.type_line_en, bolt.type_line_fr = "Instant — Arcane", "Éphémère : arcane"
    save_card(card=bolt, changed=["type_line_en", "type_line_fr"])
    assert "nothing changed" in run("import_cards", path, "--no-link")
    bolt = Card.objects.get(pk=bolt.pk)
    assert (bolt.type_line_en, bolt.type_line_fr) == ("Instant — Arcane", "Éphémère : arcane")
    changed = dict(BOLT, type_line="Tribal Instant", mana_cost="{1}{R}")
    out = run("import_cards", write_jsonl(tmp_path / "b.jsonl", changed), "--no-link")
    assert "Lightning Bolt: type_line_en: source changed, maintainer value kept" in out
    assert "type_line_fr" not in out  # the source did not change that one
    bolt = Card.objects.get(pk=bolt.pk)
    assert bolt.type_line_en == "Instant — Arcane" and bolt.mana_cost == "{1}{R}"
    assert bolt.edited["type_line_en"] == "Tribal Instant"
    # Set back to the source's value, the field is no longer an edit: imports update it again.
    bolt.type_line_en = "Tribal Instant"
    save_card(card=bolt, changed=["type_line_en"])
    assert "type_line_en" not in Card.objects.get(pk=bolt.pk).edited


def test_a_cards_file_without_rulings_leaves_the_rulings_alone(tmp_path: Path) -> None:
    run("import_cards", write_jsonl(tmp_path / "a.jsonl", BOLT, ICE), "--no-link")
    bare = {k: v for k, v in BOLT.items() if k != "rulings"}
    out = run("import_cards", write_jsonl(tmp_path / "b.jsonl", bare, dict(ICE, rulings=[])))
    assert "0 marked missing" in out
    assert not Ruling.objects.filter(missing=True).exists()


def test_decided_links_survive_reimports_and_relinking(tmp_path: Path) -> None:
    from rulings.corrections import decide_links
    from rulings.linking import link_rulings

    path = write_jsonl(tmp_path / "a.jsonl", BOLT)
    run("import_cards", path, "--no-link")
    first, second = Ruling.objects.order_by("date")
    lineages = [Lineage.objects.create(key=f"test-{n}", kind="chapter") for n in (1, 2)]
    links = [
        RulingLink.objects.create(ruling=first, lineage=lineages[0]),
        RulingLink.objects.create(ruling=second, lineage=lineages[1]),
    ]
    decide_links(links=links[:1], kind=LinkKind.CONFIRMED)
    decide_links(links=links[1:], kind=LinkKind.REJECTED)
    run("import_cards", path)  # links too
    link_rulings()
    kinds = dict(RulingLink.objects.filter(lineage__in=lineages).values_list("ruling", "kind"))
    assert kinds == {first.pk: LinkKind.CONFIRMED, second.pk: LinkKind.REJECTED}


# Bad input is refused naming the file and the record, and changes nothing (issue 16).


def _refused(path: Path, *expected: str) -> None:
    before = Card.objects.count()
    with pytest.raises(CommandError) as exc:
        run("import_cards", str(path), "--no-link")
    message = str(exc.value)
    assert str(path) in message
    for text in expected:
        assert text in message, message
    assert Card.objects.count() == before


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"keywords": "Flying"}, "“keywords” must be a list of texts, not text"),
        ({"colors": [1]}, "“colors” must be a list of texts"),
        ({"printings": 3}, "“printings” must be a list of objects"),
        ({"rulings": ["x"]}, "“rulings” must be a list of objects"),
        ({"faces": {"name": "A"}}, "“faces” must be a list of objects"),
        ({"mana_value": float("nan")}, "mana value is not a number"),
        ({"mana_value": float("inf")}, "mana value is not a number"),
        ({"name": "Bolt\x00"}, "“name” contains a NUL character"),
        ({"type_line": "x" * 301}, "“type_line” is longer than 300"),
        ({"fr": {"name": "F\x00"}}, "fr: “name” contains a NUL character"),
        ({"rulings": [{"date": "9999-12-31", "text": "Late."}]}, "out of range"),
    ],
)
def test_a_record_of_the_wrong_shape_is_refused(
    tmp_path: Path, change: dict, expected: str
) -> None:
    run("import_cards", write_jsonl(tmp_path / "a.jsonl", ICE), "--no-link")
    path = Path(write_jsonl(tmp_path / "bad.jsonl", ICE, dict(BOLT, **change)))
    _refused(path, "line 2", expected)
    assert not Card.objects.filter(name_en="Lightning Bolt").exists()


def test_invalid_utf8_and_deep_nesting_are_refused_naming_the_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(
        json.dumps(BOLT).encode()
        + b'\n{"name": "Caf\xe9"}\n'
        + b"[" * 100_000
        + b"]" * 100_000
        + b"\n"
    )
    _refused(path, "line 2: not UTF-8 text", "line 3: not JSON: nested too deeply")


def test_a_truncated_gzip_is_refused(tmp_path: Path) -> None:
    full = Path(write_jsonl(tmp_path / "full.jsonl.gz", BOLT, ICE, gz=True)).read_bytes()
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(full[: len(full) // 2])
    _refused(path, "cannot be read")


def test_invalid_utf8_in_a_json_array_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "oracle-cards.json"
    path.write_bytes(b'[{"object": "card", "name": "Caf\xe9"}]')
    _refused(path, "not valid JSON")
