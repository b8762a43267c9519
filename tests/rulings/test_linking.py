"""Ruling -> rule links on the real data: the Dynamo, citations, evidence, numbers then and
now, the frozen labelled sample, and what survives relinking."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from django.db.models import F

from bench.linking import evaluate
from kb.models import Release, RuleNumber
from kb.models.versioning import valid_on
from kb.signals import release_changed
from rulings.linking import Linker, link_rulings
from rulings.models import LinkKind, Ruling, RulingLink

pytestmark = [pytest.mark.django_db, pytest.mark.slow]
SAMPLE = Path(__file__).with_name("linking_sample.jsonl")
HOLDOUT = Path(__file__).with_name("linking_holdout.jsonl")
DEV = Path(__file__).with_name("linking_dev.jsonl")
TEST = Path(__file__).with_name("linking_test.jsonl")


@pytest.fixture(scope="module")
def linker(cards, django_db_blocker) -> Linker:
    with django_db_blocker.unblock():
        return Linker()


def links_of(text_start: str) -> set[str]:
    ruling = Ruling.objects.get(card__name_en="The Peregrine Dynamo", text__startswith=text_start)
    return set(ruling.links.values_list("current_number", flat=True))


def test_all_cards_and_rulings_are_imported(cards) -> None:
    from rulings.models import Card

    assert Card.objects.count() == 22_192 + 1  # the shared cards and the demo Dynamo
    assert Ruling.objects.count() == 43_774 + 11
    # Three of the source's "rulings" are Gatherer's separator lines: headings, not rulings.
    assert Ruling.objects.proper().count() == 43_771 + 11
    assert Card.objects.exclude(name_fr="").exclude(name_fr=None).count() > 18_000
    assert not Ruling.objects.filter(linked_at=None).exists()


def test_the_peregrine_dynamo_rulings_lean_on_602_603_707_10_and_607(cards) -> None:
    assert "602" in links_of("Activated abilities contain a colon")
    assert "603" in links_of("Triggered abilities use the word")
    assert links_of("The Peregrine Dynamo's ability targets an ability") == {"707.10"}
    assert {"607", "707.10"} <= links_of("If an ability is linked to a second ability")
    assert "607" in links_of("In some cases involving linked abilities")


def test_an_explicit_citation_always_links(linker: Linker) -> None:
    found = linker.find(
        "As rule 702.19c says, assign lethal damage first.", dt.date(2024, 1, 1), [], []
    )
    cited = [f for f in found if f.kind == "cited"]
    assert cited and cited[0].evidence == "702.19c"
    assert linker.number_at(cited[0].lineage_id, linker.current) == "702.19c"


def test_the_cards_own_keyword_is_preferred(linker: Linker) -> None:
    text = "If a creature with trample and flying is blocked, it assigns its damage as usual."
    own = {
        linker.number_at(f.lineage_id, linker.current)
        for f in linker.find(text, dt.date(2024, 1, 1), ["Test Card"], ["Trample"])
    }
    assert "702.19" in own and "702.9" not in own  # flying is named, but not the card's


def test_every_inferred_link_keeps_its_evidence_and_numbers(cards) -> None:
    links = RulingLink.objects.filter(kind=LinkKind.INFERRED)
    assert links.count() > 30_000
    assert not links.filter(evidence="").exists()
    assert not links.filter(current_number="").exists()
    # Rulings of the modern era record the release in force on their date and the number then.
    modern = links.filter(ruling__date__gte=dt.date(2009, 7, 11))
    assert not modern.filter(release=None).exists()
    link = modern.exclude(number=F("current_number")).select_related("ruling", "release").first()
    assert link is not None  # renumbered since (e.g. 702.107 prowess -> 702.108)
    then = RuleNumber.objects.get(valid_on(link.ruling.date), lineage=link.lineage_id)
    now = RuleNumber.objects.filter(lineage=link.lineage_id, valid_to=None).get()
    assert (link.number, link.current_number) == (then.number, now.number)
    assert link.release == Release.objects.filter(effective_date__lte=link.ruling.date).latest(
        "effective_date"
    )


def test_the_labelled_sample_scores(cards, linker: Linker) -> None:
    """The issue's targets are precision 0.85 and recall 0.70; the linker reaches 0.855 and
    0.747. These floors hold that."""
    scores = evaluate(SAMPLE, linker)
    assert scores.rulings >= 100
    assert scores.precision >= 0.85, scores
    assert scores.recall >= 0.74, scores
    assert scores.median_links <= 3


def test_the_held_out_sample_scores(cards, linker: Linker) -> None:
    """60 rulings drawn at random (seed 2026) outside the frozen sample and labelled before
    the linker's output on them was seen: a guard against rules that fit the frozen sample
    only. The linker reaches 0.808 and 0.829 (0.526 and 0.539 before the context rules)."""
    scores = evaluate(HOLDOUT, linker)
    assert scores.rulings == 60
    assert scores.precision >= 0.80, scores
    assert scores.recall >= 0.82, scores
    assert scores.median_links <= 3


def test_the_dev_and_test_sets_score(cards, linker: Linker) -> None:
    """The issue's sets, labelled before tuning (216 dev, 114 test; rule level in 701/702,
    chapter level elsewhere). Tuned on dev only: dev 0.679/0.534 -> 0.692/0.584 -> 0.765/0.626,
    test 0.606/0.404 -> 0.636/0.436 -> 0.644/0.417 (the targets, 0.85/0.75, are not reached;
    the last rules, tuned on dev, did not carry over to test's recall). Floors computed, not
    chosen: each score truncated to two decimals, minus 0.01."""
    dev = evaluate(DEV, linker)
    assert dev.rulings == 216
    assert dev.precision >= 0.75 and dev.recall >= 0.61, dev
    test = evaluate(TEST, linker)
    assert test.rulings == 114
    assert test.precision >= 0.63 and test.recall >= 0.40, test
    assert test.median_links <= 3 and dev.median_links <= 3
    # By stratum (era, keywords or not), as the issue asks them reported.
    assert len(dev.strata) == len(test.strata) == 6
    assert sum(n for _p, _r, n in dev.strata.values()) == 216


def test_context_decides_whether_a_term_is_the_topic(linker: Linker) -> None:
    def numbers(text: str, keywords: list[str]) -> set[str]:
        found = linker.find(text, dt.date(2024, 1, 1), ["Test Card"], keywords)
        return {linker.number_at(f.lineage_id, linker.current) for f in found}

    assert numbers('Triggered abilities use the word "when."', []) == {"603"}
    # The card's own triggered ability, named to say what happens to it: not about 603.
    assert "603" not in numbers("If it leaves before its triggered ability resolves, …", [])
    # The card's own keyword as an example in a general ruling, a keyword a creature lacks.
    assert numbers("Add any cost increases (such as kicker).", ["Kicker"]) == set()
    assert numbers("Creatures without flying can't block it.", []) == set()


def test_curated_terms_all_resolve_on_the_real_archive(linker: Linker) -> None:
    assert linker.unresolved == []


def test_confirmed_and_rejected_links_survive_relinking(cards) -> None:
    ruling = Ruling.objects.get(
        card__name_en="The Peregrine Dynamo", text__startswith="Activated abilities contain"
    )
    # The incidental "activated mana ability" (equip, named as an example, is no link since
    # examples are none) is the inferred link a maintainer rejects.
    wrong = ruling.links.get(current_number="605")
    wrong.kind = LinkKind.REJECTED
    wrong.save()
    right = ruling.links.get(current_number="602")
    right.kind = LinkKind.CONFIRMED
    right.save()
    link_rulings([ruling.pk])
    kinds = dict(ruling.links.values_list("current_number", "kind"))
    assert kinds["605"] == LinkKind.REJECTED  # kept, and not inferred again
    assert kinds["602"] == LinkKind.CONFIRMED
    assert list(ruling.links.values_list("current_number", flat=True)).count("605") == 1


def test_a_release_change_re_resolves_the_numbers(cards) -> None:
    link = RulingLink.objects.filter(current_number="702.19").first()
    RulingLink.objects.filter(pk=link.pk).update(current_number="999.9", number="999.9")
    release_changed.send(sender=Release, effective_date=dt.date(2026, 1, 16), action="replaced")
    link.refresh_from_db()
    assert link.current_number == "702.19"
    assert link.number != "999.9"


def test_a_for_example_sentence_is_no_topic(linker: Linker) -> None:
    """Stallion of Ashmouth's delirium ruling counts card types; its example's "artifact
    creature" (an illustration) is not what it leans on."""
    text = (
        "The number of card types matters, not the number of cards. For example, Wicker Witch "
        "(an artifact creature) along with Catalog (an instant) and Chaplain's Blessing (a "
        "sorcery) will enable delirium."
    )
    found = linker.find(text, dt.date(2016, 4, 8), ["Stallion of Ashmouth"], ["Delirium"])
    numbers = {linker.number_at(f.lineage_id, linker.current) for f in found}
    assert numbers == {"205"}, numbers  # card types; not 301, artifacts


def _numbers(linker: Linker, text: str, keywords: list[str], name: str = "Test Card") -> set[str]:
    found = linker.find(text, dt.date(2024, 1, 1), [name], keywords)
    return {linker.number_at(f.lineage_id, linker.current) for f in found}


def test_a_cards_keywords_are_read_from_its_oracle_text(linker: Linker) -> None:
    """The older card source lists no keywords (8,096 cards): they are read from the text's
    keyword lines (abilities) and from any sentence (actions other than everyday verbs)."""
    text = "Flying, protection from red\nSuspend 2—{2}{B}{B} (Rather than cast this card …)"
    assert {"flying", "protection", "suspend"} <= set(linker.card_keywords([], [text]))
    # A sentence that opens with a keyword is no keyword line.
    assert linker.card_keywords([], ["Flying creatures you control get +1/+1."]) == []
    assert linker.card_keywords([], ["Scry 2. Destroy target creature."]) == ["scry"]
    assert linker.card_keywords(["Trample"], ["Enchant creature"]) == ["Trample", "enchant"]


def test_a_keyword_the_card_prints_but_its_record_omits_is_its_own(cards) -> None:
    """Curse of the Cabal's record (older source) lists no keyword; its text prints suspend."""
    ruling = Ruling.objects.get(
        card__name_en="Curse of the Cabal", text__startswith="A creature cast using suspend"
    )
    assert ruling.card.keywords == []
    assert set(ruling.links.values_list("current_number", flat=True)) == {"702.62"}


def test_an_ing_keyword_is_read_in_the_verb_its_rules_use(linker: Linker) -> None:
    """ "cycle it" is cycling (702.29 writes "cycle"); "phased out" is phasing, while "phase",
    which the rules write far more often for the turn's phases, is not."""
    text = "The top card of your library isn't in your hand, so you can't cycle it."
    assert "702.29" in _numbers(linker, text, [])
    assert "702.26" in _numbers(linker, "A permanent that's phased out is treated as …", [])
    assert "702.26" not in _numbers(linker, "It lasts until the next phase.", [])


def test_the_fallback_keyword_must_share_its_rules_words(linker: Linker) -> None:
    """A ruling naming no rules term is about the card's keyword only when it speaks its
    rules' words; the link's evidence says which."""
    text = 'If an effect puts a card into your hand without using the word "draw," it isn\'t drawn.'
    found = linker.find(text, dt.date(2024, 1, 1), ["Test Card"], ["Miracle"])
    assert [linker.number_at(f.lineage_id, linker.current) for f in found] == ["702.94"]
    assert found[0].evidence.startswith("[miracle: ") and "draw" in found[0].evidence
    other = "Horobi's Whisper can target a creature even if you don't control a Swamp."
    assert _numbers(linker, other, ["Splice"]) == set()


def test_a_ruling_naming_nothing_links_the_chapter_whose_words_it_speaks(linker: Linker) -> None:
    text = (
        "For your life total to become your starting life total (normally 20), you gain or "
        "lose the appropriate amount of life."
    )
    found = linker.find(text, dt.date(2017, 2, 9), ["Exquisite Archangel"], [])
    assert [linker.number_at(f.lineage_id, linker.current) for f in found] == ["119"]
    assert found[0].evidence.startswith("[119: ") and "life" in found[0].evidence


def test_incidental_mentions_are_no_topic(linker: Linker) -> None:
    # A characteristic with a value picks objects; an item of a list is one thing of several.
    text = "You can exile only a card with converted mana cost equal to X."
    assert "202.3" not in _numbers(linker, text, [])
    text = "Augment can change the name, card types, subtypes, and rules text."
    assert "205" not in _numbers(linker, text, [])
    # A kind of ability named as a keyword's own is the keyword's rule.
    assert _numbers(linker, "Cycling is an activated ability.", []) == {"702.29"}
    assert "603" not in _numbers(linker, "Your exalted abilities won't trigger.", [])
    # A step named as a moment.
    numbers = _numbers(linker, "Exalted abilities will resolve before blockers are declared.", [])
    assert numbers == {"702.83"}


def test_one_triggered_ability_said_to_work_as_all_do_is_603(linker: Linker) -> None:
    text = "Midnight Entourage's triggered ability is mandatory. You draw a card."
    assert "603" in _numbers(linker, text, [], name="Midnight Entourage")
    # Named only to say when something happens: not about 603 (as before).
    assert "603" not in _numbers(linker, "If it leaves before its triggered ability resolves.", [])
