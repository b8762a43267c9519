"""Search on the whole shared data: the frozen relevance set, rule numbers, releases, French,
spelling, filters (the index of the session, built once by the search_index fixture)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bench.relevance import evaluate
from kb.selectors import rule_version
from kb.sitesearch.service import search

pytestmark = [pytest.mark.django_db, pytest.mark.slow]
RELEVANCE = Path(__file__).with_name("relevance.jsonl")
RELEVANCE_DEV = Path(__file__).with_name("relevance_dev.jsonl")
RELEVANCE_TEST = Path(__file__).with_name("relevance_test.jsonl")


def test_the_relevance_set_meets_its_targets(search_index) -> None:
    scores = evaluate(RELEVANCE)
    print(f"\nrelevance: MRR {scores.mrr:.3f}, by category {scores.by_category}")
    print("relevance ranks:", scores.ranks)
    assert scores.queries >= 60
    assert scores.mrr >= 0.9, scores.misses()  # target 0.8; measured 0.95
    assert scores.recall_at_10 == 1.0, scores.misses()  # target 0.95 (numbers and keywords)


@pytest.mark.parametrize(
    ("path", "mrr", "zero"),
    [(RELEVANCE_DEV, 0.78, 0.01), (RELEVANCE_TEST, 0.71, 0.01)],
    ids=["dev", "test"],
)
def test_the_sampled_sets_hold_their_floors(search_index, path: Path, mrr: float, zero: float):
    """The hand-labelled sets of sampled queries (frozen before tuning; tuned on dev only).
    Measured at this commit: docs/benchmarks.md (issue 14's target, 0.85, is not
    met yet)."""
    scores = evaluate(path)
    print("\n" + "\n".join(scores.lines(path.stem)))
    assert scores.queries >= 100
    assert scores.mrr >= mrr, scores.misses()
    assert scores.zero_share <= zero, scores.misses()


@pytest.mark.parametrize(
    ("query", "targets"),
    [
        (  # the issue's own example, 12 words
            "what happens when a creature with deathtouch deals damage to another creature",
            ("702.2",),
        ),
        (
            "what happens to combat damage when the creature with trample is blocked by "
            "several creatures",
            ("702.19",),
        ),
        (
            "what happens when two legendary permanents with the same name are on the battlefield",
            ("704.5j",),
        ),
    ],
)
def test_a_long_question_finds_the_rule_that_answers_it(search_index, query, targets) -> None:
    assert len(query.split()) >= 12
    top = [h.number for h in search(query).results.hits[:3] if h.kind == "rule"]
    assert any(n.startswith(targets) for n in top), top


@pytest.mark.parametrize(
    ("query", "ruling"),
    [
        ("does Tarmogoyf count itself while it sits in my graveyard", "The ability that defines"),
        (
            "Phantasmal Image copying a token gets the token's original values, not a token itself",
            "If the chosen creature is a token",
        ),
    ],
)
def test_a_ruling_is_found_by_a_paraphrase(search_index, query: str, ruling: str) -> None:
    top = [h.text for h in search(query).results.hits[:3] if h.kind == "ruling"]
    assert any(text.startswith(ruling) for text in top), top


def test_a_query_sharing_words_with_card_names_puts_the_rules_first(search_index) -> None:
    hits = search("ten poison counters").results.hits
    assert [h.kind for h in hits[:3]] == ["rule", "rule", "rule"]
    assert "704.5c" in [h.number for h in hits[:5]]  # ten or more poison counters: loses


def test_a_query_no_document_fully_matches_gets_the_closest_not_nothing(search_index) -> None:
    found = search("rol a d20")  # "rol": too short to correct; no text has it
    assert found.results.total and any("some of them" in n for n in found.notices)
    assert "roll-a-d20" in [h.ref for h in found.results.hits[:3]]


def test_a_card_name_still_puts_the_card_first(search_index) -> None:
    for query in ("lightning bolt", "atraxa", "snapcaster"):
        assert search(query).results.hits[0].kind == "card", query


@pytest.mark.parametrize(
    "query",
    ["602.2a", "602.2 a", "CR 602.2a", "cr602.2a", "R602.2a", "rule 602.2a", "règle 602.2a"],
)
def test_a_rule_number_in_any_usual_shape_opens_the_rule(search_index, query: str) -> None:
    found = search(query)
    assert found.jump == "/en/rules/602.2a/"
    assert found.results.hits[0].number == "602.2a"


def test_a_release_scopes_rules_to_their_text_then(search_index) -> None:
    found = search("release:2019-01-25 602.2a")
    assert found.jump == "/en/2019-01-25/rules/602.2a/"
    hit = found.results.hits[0]
    then = rule_version("602.2a", dt.date(2019, 1, 25))
    assert (hit.valid_from, hit.valid_to) == (then.valid_from, then.valid_to)
    assert hit.valid_to == dt.date(2019, 6, 14)
    assert hit.text == then.text_en[:300]
    # The same words in 2010 and today find different rule counts: each release its own rules.
    assert search("companion", release="2010-02-01").results.counts.get("rule", 0) == 0
    assert search("companion").results.counts["rule"] > 0
    # Investigate took Reveal's old number in 2025: the number finds what it was then.
    assert search("701.16", release="2024-01-01").results.hits[0].title("en") == "Reveal"
    assert search("701.16").results.hits[0].title("en") == "Investigate"


def test_a_keyword_ranks_its_rule_then_its_glossary_entry(search_index) -> None:
    hits = search("trample").results.hits
    assert [(h.kind, h.number or h.ref) for h in hits[:2]] == [
        ("rule", "702.19"),
        ("glossary", "trample"),
    ]
    assert hits[0].url == "/en/rules/702.19/" and hits[0].context == "702. Keyword Abilities"
    mulligan = search("mulligan").results.hits
    assert mulligan[0].number == "103.5" and mulligan[1].ref == "mulligan"
    sickness = search("summoning sickness").results.hits  # the entry is "… Rule"
    assert sickness[0].number == "302.6" and sickness[1].ref == "summoning-sickness-rule"


def test_french_reaches_english_rules_through_the_vocabulary(search_index) -> None:
    found = search("piétinement")
    assert found.via == {"piétinement": "Trample"}
    assert found.results.hits[0].number == "702.19"
    cards = search("piétinement", kinds=["card"]).results.hits
    assert any("fr" in h.matched for h in cards)  # French card texts matched in French
    assert search("contact mortel").results.hits[0].number == "702.2"
    assert search("la pile").results.hits[0].number == "405"
    only_fr = search("trample", lang="fr").results
    assert all(h.matched == ("fr",) for h in only_fr.hits)
    # A French term with stop words in it is matched as typed, before stop words are dropped.
    sba = search("actions basées sur un état")
    assert sba.via == {"actions basées sur un état": "State-based actions"}
    assert sba.results.hits[0].number == "704"


def test_french_words_the_vocabulary_lacks_are_bridged_through_the_cards(search_index) -> None:
    """Cards printed in both languages say which rules term French words stand for."""
    tap = search("engager")  # the vocabulary has no keyword action for it: "tap" is not one
    assert tap.via == {"engager": "tap"}
    assert tap.results.hits[0].number == "701.26"  # Tap and Untap
    leaves = search("quitter le champ de bataille")
    assert leaves.via == {"quitter le champ de bataille": "leaves the battlefield"}
    assert any(h.kind == "glossary" for h in leaves.results.hits[:3])
    # A card's French name, or an English name, is not a term to bridge: the card is the answer.
    assert search("ange de serra").via == {}
    tarmogoyf = search("tarmogoyf")
    assert tarmogoyf.via == {} and tarmogoyf.results.hits[0].ref == "tarmogoyf"


def test_card_names_tolerate_accents_punctuation_typos_and_languages(search_index) -> None:
    def first(q: str) -> str:
        return search(q, kinds=["card"]).results.hits[0].ref

    assert first("heraut de la guerre") == "herald-of-war"
    assert first("Héraut de la guerre") == "herald-of-war"
    assert first("lim duls vault") == "lim-duls-vault"
    assert first("insectile aberration") == "delver-of-secrets-insectile-aberration"
    assert first("Audaci*") in {"audacity", "audacious-infiltrator", "audacious-thief"}
    typo = search("lightnin bolt")
    assert typo.corrected and typo.correction == "lightning bolt"
    assert typo.results.hits[0].ref == "lightning-bolt"


def test_did_you_mean_and_suggestions(search_index) -> None:
    found = search("deathtuch")
    assert (found.correction, found.corrected) == ("deathtouch", True)
    assert found.results.hits[0].number == "702.2"
    mulligan = search("mulligen").results.hits  # corrected, then its definitions first
    assert (mulligan[0].number, mulligan[1].ref) == ("103.5", "mulligan")
    nothing = search("zzxqv")
    assert nothing.results.total == 0 and not nothing.corrected
    assert search("trample").correction == ""  # a known word is not corrected
    # A typo only a superseded release printed ("abilitise" in 2003-05-26's glossary: the same
    # stem as "abilty") does not make the misspelling a known word.
    assert search("abilty word").correction == "ability word"


def test_filters_counts_and_pages(search_index) -> None:
    everything = search("flying")
    counts = everything.results.counts
    # Every match is counted whatever the page size (Whoosh's pruning must stay off).
    assert search("flying", per_page=1).results.counts == counts
    assert set(counts) == {"rule", "glossary", "card", "ruling"}
    assert everything.results.total == sum(counts.values())
    rulings = search("flying", kinds=["ruling"], page=2, per_page=10)
    assert rulings.results.total == counts["ruling"] and rulings.results.page == 2
    assert all(h.kind == "ruling" and h.url.startswith("/en/cards/") for h in rulings.results.hits)
    assert all("#ruling-" in h.url for h in rulings.results.hits)
    typed = search("kind:glossary flying")
    assert {h.kind for h in typed.results.hits} == {"glossary"}


def test_rulings_are_found_by_their_text(search_index) -> None:
    hit = search("tarmogoyf counts card types", kinds=["ruling"]).results.hits[0]
    assert hit.label == "Tarmogoyf" and hit.text.startswith("Tarmogoyf counts card types")
    assert hit.date == dt.date(2021, 3, 19)


def test_a_ruling_printed_on_many_cards_is_one_hit_naming_them(search_index) -> None:
    from rulings.models import Ruling
    from search.analysis import plain

    found = search("cycling is an activated ability stifle", kinds=["ruling"])
    # One hit per text, compared whole as the collapse key is: a hit's `text` is the first
    # 300 characters, which two rulings may share (Kederekt Leviathan's and First-Sphere
    # Gargantua's differ after them, in the spell they name).
    ids = [int(h.ref.rpartition("#ruling-")[2]) for h in found.results.hits]
    full = dict(Ruling.objects.filter(id__in=ids).values_list("id", "text"))
    texts = [plain(full[i]) for i in ids]
    assert len(texts) == len(set(texts))
    hit = found.results.hits[0]
    assert hit.text.startswith("Cycling is an activated ability")
    cards = {hit.label, *(label for _, label in hit.also)}
    assert {"Hundroog", "Akroma's Blessing", "Angelsong"} <= cards and len(cards) >= 10


def test_players_shorthand_searches_the_rules_words(search_index) -> None:
    found = search("cmc of a split card")
    assert any("mana value" in n for n in found.notices)
    numbers = [h.number for h in found.results.hits[:5]]
    assert any(n.startswith("709.4") or n.startswith("202.3") for n in numbers), numbers


def test_a_definition_request_by_its_first_words_finds_the_term(search_index) -> None:
    hits = search("what does it mean to exile target creature").results.hits[:3]
    assert ("glossary", "exile") in [(h.kind, h.ref) for h in hits] or "701.13" in [
        h.number for h in hits
    ]
    hits = search("cloak meaning mtg").results.hits[:3]
    assert "701.58" in [h.number for h in hits]


def test_the_rule_an_entry_cites_that_names_the_term_comes_first(search_index) -> None:
    """Activated Ability's entry cites 113 (Abilities) before 602 (Activating Activated
    Abilities); Face Down cites section 4 (Zones) before 110.5, which says what face down
    is. The rule sharing the term's words leads; the other cited rules follow, then the entry."""
    first = [(h.kind, h.number or h.ref) for h in search("activated ability").results.hits[:3]]
    assert first == [("rule", "602"), ("rule", "113"), ("glossary", "activated-ability")]
    first = [(h.kind, h.number or h.ref) for h in search("capacité activée").results.hits[:1]]
    assert first == [("rule", "602")]
    numbers = [h.number for h in search("face down definition").results.hits[:3]]
    assert numbers[0] == "110.5" and "4" in numbers[1:]


def test_a_term_asked_for_with_another_ending_finds_its_entry(search_index) -> None:
    """ "Destroying" asks for Destroy: the glossary's names are compared by their stems."""
    hits = search("what counts as destroying a permanent").results.hits[:2]
    assert [(h.kind, h.number or h.ref) for h in hits] == [
        ("rule", "701.8"),
        ("glossary", "destroy"),
    ]


def test_a_misspelt_card_name_finds_the_card_and_is_corrected(search_index) -> None:
    """Issue 35: "lightnig blot" gave Blot Out ("Did you mean lightning blot?"); the cards
    are found as the Cards page finds them (rulings.names, through kb.hooks.name_finders)."""
    for typed in ("lightnig blot", "lightning blot"):
        page = search(typed, per_page=10)
        assert page.results.hits[0].ref == "lightning-bolt", typed
        assert page.correction == "Lightning Bolt", typed
    # A rules term the words find whole stays first, whatever card reads like it.
    assert search("first strike", per_page=10).results.hits[0].kind == "rule"
    assert search("flash", per_page=10).results.hits[0].number == "702.8"


def test_the_header_suggestions_are_the_cards_page_s(search_index) -> None:
    from kb.sitesearch.service import suggest

    assert suggest("lightning b")[0][0].title == "Lightning Bolt"
    first, url = suggest("teferis prot")[0]
    assert first.title == "Teferi's Protection" and url == "/en/cards/teferis-protection/"
    # Rules first where the index put a rule first ("tramp": Trample).
    assert suggest("tramp")[0][0].kind == "rule"
