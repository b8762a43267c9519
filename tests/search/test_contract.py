"""The contract every search backend passes: Whoosh in every test run, PostgreSQL full-text
search in the PostgreSQL pass of `make test` (its index lives in the test database; add a
future backend, OpenSearch say, to BACKENDS)."""

from __future__ import annotations

import datetime as dt
import re
import threading
from dataclasses import replace
from pathlib import Path

import pytest
from django.db import connection
from django.utils.module_loading import import_string

from search.backend import SearchBackend, SearchRequest, SearchUnavailable
from search.documents import SearchDocument
from search.syntax import Group, Phrase, Word

WHOOSH = "search.backends.whoosh.backend.WhooshBackend"
POSTGRES = "search.backends.postgres.backend.PostgresBackend"
#: PostgreSQL's backend needs a PostgreSQL database: the PostgreSQL pass runs it.
BACKENDS = [WHOOSH, *([POSTGRES] if connection.vendor == "postgresql" else [])]
D = dt.date


def _doc(**fields: object) -> SearchDocument:
    """A document written with one keyword per field and language (title_en=, body_fr=)."""
    texts: dict[str, dict[str, object]] = {"titles": {}, "bodies": {}, "extras": {}}
    for name in [n for n in fields if re.fullmatch(r"(title|body|extra)_[a-z]{2}", n)]:
        part, code = name.rsplit("_", 1)
        texts[{"title": "titles", "body": "bodies", "extra": "extras"}[part]][code] = fields.pop(
            name
        )
    return SearchDocument(**fields, **texts)


DOCS = [
    _doc(
        kind="rule",
        key="1",
        group="L1",
        title_en="Trample",
        title_fr="Piétinement",
        body_en="Trample",
        number="702.19",
        chapter="702",
        ref="702.19",
        valid_from=D(2013, 7, 13),
    ),
    _doc(
        kind="rule",
        key="2",
        group="L2",
        number="702.19b",
        chapter="702",
        ref="702.19b",
        body_en="The controller of an attacking creature with trample first assigns damage "
        "to the creature(s) blocking it (old wording).",
        valid_from=D(2009, 7, 11),
        valid_to=D(2020, 1, 24),
    ),
    _doc(
        kind="rule",
        key="3",
        group="L2",
        number="702.19b",
        chapter="702",
        ref="702.19b",
        body_en="The controller of an attacking creature with trample first assigns lethal "
        "damage to all blockers (new wording).",
        valid_from=D(2020, 1, 24),
    ),
    _doc(
        kind="rule",
        key="4",
        group="L3",
        number="707.10",
        chapter="707",
        ref="707.10",
        body_en="To copy a spell, activated ability, or triggered ability means to put a copy "
        "of it onto the stack.",
        extra_en="Example: Copying an ability.",
        valid_from=D(2009, 7, 11),
    ),
    _doc(
        kind="glossary",
        key="5",
        group="G1",
        title_en="Trample",
        title_fr="Piétinement",
        body_en="A keyword ability that modifies how a creature assigns combat damage. "
        "See rule 702.19.",
        ref="trample",
        valid_from=D(2009, 7, 11),
        lookup=True,
    ),
    _doc(
        kind="card",
        key="6",
        group="C1",
        title_en="Herald of War",
        title_fr="Héraut de la guerre",
        body_en="Flying. Whenever this creature attacks, put a +1/+1 counter on it.",
        body_fr="Vol. Piétinements et <b>balises</b>.",
        extra_en="Creature — Angel",
        ref="herald-of-war",
    ),
    _doc(
        kind="card",
        key="7",
        group="C2",
        title_en="Audacity",
        title_fr="Audace",
        body_en="Enchanted creature has trample. <script>alert(1)</script>",
        ref="audacity",
    ),
    _doc(
        kind="ruling",
        key="8",
        group="C1",
        body_en="The +1/+1 counter is put on Herald of War before blockers are declared.",
        label="Herald of War",
        ref="herald-of-war#ruling-8",
        date=D(2012, 5, 1),
    ),
]


@pytest.fixture(params=BACKENDS)
def backend(request, tmp_path: Path) -> SearchBackend:
    if request.param == POSTGRES:
        request.getfixturevalue("db")  # the index is tables: the test's transaction rolls back
    b = import_string(request.param)(tmp_path / "contract")
    b.index(DOCS)
    return b


def ask(backend: SearchBackend, *groups, **kwargs):
    request = SearchRequest(
        groups=tuple(Group(tuple(g) if isinstance(g, tuple) else (g,)) for g in groups),
        **kwargs,
    )
    return backend.search(request)


def keys(results) -> list[str]:
    return [h.key for h in results.hits]


def test_english_words_match_their_other_forms(backend: SearchBackend) -> None:
    assert keys(ask(backend, Word("copying"))) == ["4"]
    assert "2" in keys(ask(backend, Word("blocking"), Word("assigns")))


def test_french_accents_are_folded_before_stemming(backend: SearchBackend) -> None:
    for word in ("piétinement", "pietinement", "PIÉTINEMENTS"):
        found = ask(backend, Word(word), kinds=("card",))
        assert keys(found) == ["6"], word
        assert found.hits[0].matched == ("fr",)


def test_names_match_without_accents_and_in_either_language(backend: SearchBackend) -> None:
    assert keys(ask(backend, Word("heraut"), Word("guerre"))) == ["6"]
    assert keys(ask(backend, Phrase("Héraut de la guerre"))) == ["6"]
    assert keys(ask(backend, Word("Audaci", prefix=True))) == ["7"]
    assert keys(ask(backend, Word("auda", prefix=True), kinds=("card",))) == ["7"]


def test_phrases_exclusions_and_alternatives(backend: SearchBackend) -> None:
    assert keys(ask(backend, Phrase("copy a spell"))) == ["4"]
    assert ask(backend, Phrase("spell copy")).total == 0
    with_trample = set(keys(ask(backend, Word("trample"))))
    assert {"1", "3", "5", "7"} <= with_trample
    assert set(keys(ask(backend, Word("trample"), excluded=(Word("enchanted"),)))) == (
        with_trample - {"7"}
    )
    assert set(keys(ask(backend, (Word("audacity"), Word("herald"))))) >= {"6", "7"}


def test_titles_rank_first_and_rule_numbers_match_exactly(backend: SearchBackend) -> None:
    found = ask(backend, Word("trample"), release=D(2026, 1, 1))
    assert {found.hits[0].key, found.hits[1].key} == {"1", "5"}  # the rule and the entry
    assert keys(ask(backend, Word("702.19b"), release=D(2026, 1, 1)))[0] == "3"


def test_long_queries_need_only_some_of_their_words(backend: SearchBackend) -> None:
    """min_match: a document matching fewer groups than asked is found, below those matching
    more (coordination); fewer than the minimum is not."""
    words = ("assigns", "lethal", "blockers", "blocking", "zebra")
    asked = [Word(w) for w in words]
    assert ask(backend, *asked).total == 0  # every word required
    found = ask(backend, *asked, min_match=2)
    assert keys(found) == ["3", "2"]  # 702.19b's new wording (3 words) before the old (2)
    assert found.hits[0].score > found.hits[1].score
    assert keys(ask(backend, *asked, min_match=3)) == ["3"]
    assert ask(backend, *asked, min_match=4).total == 0


def test_kinds_can_be_weighed(backend: SearchBackend) -> None:
    found = ask(backend, Word("trample"), release=D(2026, 1, 1))
    cards_last = ask(
        backend, Word("trample"), release=D(2026, 1, 1), kind_weights=(("card", 0.01),)
    )
    assert cards_last.total == found.total and cards_last.counts == found.counts
    assert [h.kind for h in cards_last.hits][-1] == "card"
    rules_last = ask(
        backend, Word("trample"), release=D(2026, 1, 1), kind_weights=(("rule", 0.0001),)
    )
    assert rules_last.hits[0].kind != "rule" and rules_last.hits[-1].kind == "rule"


def test_a_release_sees_the_versions_valid_on_its_date(backend: SearchBackend) -> None:
    old = ask(backend, Word("702.19b"), release=D(2015, 1, 1))
    new = ask(backend, Word("702.19b"), release=D(2020, 1, 24))
    assert keys(old) == ["2"] and "old wording" in old.hits[0].text
    assert keys(new) == ["3"] and new.hits[0].valid_from == D(2020, 1, 24)
    assert set(keys(ask(backend, Word("702.19b")))) == {"2", "3"}  # no release: every version
    assert ask(backend, Word("trample"), release=D(2010, 1, 1)).counts.get("rule") == 1


def test_lookup_by_rule_number_or_ref(backend: SearchBackend) -> None:
    old = backend.lookup("rule", number="702.19b", release=D(2015, 1, 1))
    new = backend.lookup("rule", number="702.19b", release=D(2026, 1, 1))
    assert (old.key, new.key) == ("2", "3")
    assert backend.lookup("glossary", ref="trample").title("en") == "Trample"
    assert backend.lookup("rule", number="702.19b", release=D(2000, 1, 1)) is None
    assert backend.lookup("card", ref="herald-of-war") is None  # not looked up by ref


def test_lookup_many_finds_what_lookup_finds_at_once(backend: SearchBackend) -> None:
    wanted = [
        ("rule", "702.19b", True),
        ("glossary", "trample", False),
        ("rule", "999.9z", True),  # no such rule: left out
        ("card", "herald-of-war", False),  # not looked up by ref: left out
    ]
    found = backend.lookup_many(wanted, release=D(2026, 1, 1))
    assert set(found) == {("rule", "702.19b"), ("glossary", "trample")}
    assert found[("rule", "702.19b")].key == "3"
    assert found[("glossary", "trample")].title("en") == "Trample"
    assert (
        backend.lookup_many([("rule", "702.19b", True)], release=D(2015, 1, 1))[
            ("rule", "702.19b")
        ].key
        == "2"
    )
    assert backend.lookup_many([]) == {}


def test_kinds_filter_the_hits_but_counts_cover_every_kind(backend: SearchBackend) -> None:
    found = ask(backend, Word("herald"), kinds=("ruling",))
    assert keys(found) == ["8"] and found.total == 1
    assert found.counts == {"card": 1, "ruling": 1}
    assert found.hits[0].date == D(2012, 5, 1) and found.hits[0].label == "Herald of War"


@pytest.mark.django_db
def test_documents_sharing_a_collapse_key_are_one_hit(tmp_path: Path) -> None:
    shared = "Cycling is an activated ability."
    rulings = [
        _doc(
            kind="ruling",
            key=str(n),
            group=f"C{n}",
            body_en=shared,
            extra_en=name,
            label=name,
            ref=f"{name.lower()}#ruling-{n}",
            collapse=shared,
        )
        for n, name in enumerate(["Akroma", "Angelsong", "Hundroog"], start=1)
    ]
    alone = _doc(kind="ruling", key="9", group="C9", body_en="Cycling is optional.", ref="x#9")
    for path in BACKENDS:
        b = import_string(path)(tmp_path / path)
        b.index([*rulings, alone])
        found = ask(b, Word("cycling"))
        assert found.total == 2 and found.counts == {"ruling": 2}
        (hit,) = [h for h in found.hits if h.key != "9"]
        others = {hit.ref, *(ref for ref, _ in hit.also)}
        assert others == {r.ref for r in rulings} and len(hit.also) == 2
        assert {label for _, label in hit.also} | {hit.label} == {"Akroma", "Angelsong", "Hundroog"}
        # The document that matches best stands for the others: here the card named.
        named = ask(b, Word("cycling"), Word("hundroog"), min_match=1)
        assert named.total == 2 and named.hits[0].label == "Hundroog"
        assert [h.also for h in found.hits if h.key == "9"] == [()]


def test_a_language_filter_searches_that_language_alone(backend: SearchBackend) -> None:
    assert keys(ask(backend, Word("guerre"), lang="fr")) == ["6"]
    assert ask(backend, Word("herald"), lang="fr").total == 0  # English texts only
    assert set(keys(ask(backend, Word("herald"), lang="en"))) == {"6", "8"}
    assert keys(ask(backend, Word("trample"), Word("enchanted"), lang="en")) == ["7"]


def test_pages(backend: SearchBackend) -> None:
    first = ask(backend, Word("trample"), per_page=2)
    second = ask(backend, Word("trample"), per_page=2, page=2)
    beyond = ask(backend, Word("trample"), per_page=2, page=99)
    assert first.total == second.total == beyond.total and first.pages == -(-first.total // 2)
    assert not set(keys(first)) & set(keys(second))
    assert beyond.page == first.pages and beyond.hits


def test_snippets_are_escaped_with_matches_marked(backend: SearchBackend) -> None:
    hit = ask(backend, Word("enchanted")).hits[0]
    assert "<mark>Enchanted</mark>" in hit.snippet("en")
    assert "<script>" not in hit.snippet("en") and "&lt;script&gt;" in hit.snippet("en")
    card = ask(backend, Word("balises")).hits[0]
    assert "<b>" not in card.snippet("fr") and "<mark>balises</mark>" in card.snippet("fr")


def test_update_deletes_and_adds_in_one_commit(backend: SearchBackend) -> None:
    ids = backend.ids("card")
    assert len(ids) == 2 and all(i.startswith("card:") for i in ids)
    assert backend.ids(groups=["card:C1", "ruling:C1"]) == {DOCS[5].doc_id, DOCS[7].doc_id}
    renamed = replace(DOCS[6], titles={**DOCS[6].titles, "en": "Audacious Idea"})
    assert backend.update([renamed], [DOCS[6].doc_id]) == (1, 1)
    assert keys(ask(backend, Word("idea"))) == ["7"]
    assert ask(backend, Word("audacity")).total == 0
    assert backend.stats().documents == len(DOCS)


def test_suggestions_and_corrections(backend: SearchBackend) -> None:
    titles = [s.title for s in backend.suggest("tram")]
    assert titles[:2] == ["Trample", "Trample"]  # the rule and the glossary entry
    assert [s.title for s in backend.suggest("hérau")] == ["Héraut de la guerre"]
    assert backend.corrections(["trampel", "herld", "trample", "creature"]) == {
        "trampel": "trample",
        "herld": "herald",
    }


# Committed for real (the reader thread has a connection of its own on PostgreSQL); only the
# search app's tables are emptied afterwards, the session's archive stays.
@pytest.mark.django_db(transaction=True, available_apps=["search"])
@pytest.mark.parametrize("path", BACKENDS)
def test_a_rebuild_swaps_while_searches_keep_answering(path: str, tmp_path: Path) -> None:
    backend = import_string(path)(tmp_path / "rebuilt")
    backend.index(DOCS)
    errors: list[str] = []
    done = threading.Event()
    searched = [0]

    def read() -> None:
        try:
            while not done.is_set():
                try:
                    if ask(backend, Word("trample")).total == 0:
                        errors.append("no results during the rebuild")
                    searched[0] += 1
                except Exception as exc:  # pragma: no cover - the failure reported below
                    errors.append(repr(exc))
        finally:
            connection.close()  # this thread's own connection (PostgreSQL)

    reader = threading.Thread(target=read)
    reader.start()
    try:
        for _ in range(3):
            assert backend.rebuild(DOCS) == len(DOCS)
    finally:
        done.set()
        reader.join()
    assert errors == [] and searched[0] > 0
    assert backend.stats().documents == len(DOCS)


@pytest.mark.django_db
def test_no_index_yet_is_reported_not_crashed(tmp_path: Path) -> None:
    for path in BACKENDS:
        b = import_string(path)(tmp_path / path)
        assert not b.exists() and b.ids() == set() and b.suggest("tram") == []
        with pytest.raises(SearchUnavailable):
            b.search(SearchRequest(groups=(Group((Word("trample"),)),)))
