"""Questions searched by meaning (issue 33), on the real archive and the real encoder, over a
few of the current release's passages (the whole release takes minutes to embed)."""

from __future__ import annotations

import pytest
from django.db import transaction

from kb.sitesearch import meaning, service
from kb.sitesearch.understanding import question_shaped
from search.models import Vector
from search.semantic import retriever, store
from search.semantic.overlap import terms
from tests.semantic_subset import forget, retriever_on_subset

pytestmark = [pytest.mark.slow, pytest.mark.django_db]


@pytest.fixture
def semantic(search_index, settings, monkeypatch):
    """The retriever on, its corpus the current rules under SUBSET (real passages)."""
    yield from retriever_on_subset(settings, monkeypatch)


QUESTION = "my opponent's creature blocking mine got removed, does my trampler still deal damage?"


def _numbers(page) -> list[str]:
    return [h.number or h.ref for h in page.results.hits]


def test_a_question_is_answered_by_words_only_until_the_vectors_exist_and_says_so(semantic):
    state = semantic.status()
    assert not state.ready and state.reason == "embedding" and state.embedded == 0
    page = service.search(QUESTION, per_page=10)
    assert any("searching by meaning is being prepared (0 of" in n for n in page.notices)
    assert "702.19e" not in _numbers(page)  # the words alone miss the rule that answers


def test_once_embedded_the_rule_that_answers_comes_up(semantic):
    report = semantic.sync()
    assert report.remaining == 0 and report.embedded == semantic.status().total > 20
    page = service.search(QUESTION, per_page=10)
    assert "702.19e" in _numbers(page)[:5]
    assert any("Also searched by meaning" in n for n in page.notices)
    lexical = service.search("trampler blocking creature removed deal damage", per_page=10)
    assert not any("meaning" in n for n in lexical.notices)  # not a question: words only
    # The scene, then the question, with no question mark: a question too.
    told = service.search("blocker of my trampler got removed - does it still deal damage")
    assert any("Also searched by meaning" in n for n in told.notices)


def test_questions_are_embedded_in_a_child_and_a_thread_here_answers_the_same(semantic, settings):
    """The web process never loads the weights: its questions go to a child on another core
    (search.semantic.query_process); switched off, a thread here embeds them the same."""
    semantic.sync()  # the index worker's part: it loads the encoder here
    semantic.encoder.cache_clear()
    settings.KB_SEMANTIC_QUERY_PROCESS = True
    by_child = _numbers(service.search(QUESTION, per_page=10))
    assert semantic.encoder.cache_info().currsize == 0  # not loaded to answer it
    child = semantic.query_process()
    assert child is not None and child._proc.poll() is None
    settings.KB_SEMANTIC_QUERY_PROCESS = False
    assert semantic.query_process() is None
    by_thread = _numbers(service.search(QUESTION, per_page=10))
    assert semantic.encoder.cache_info().currsize == 1
    assert "702.19e" in by_child[:5] and by_child == by_thread


def test_a_question_the_child_fails_is_answered_by_its_words(semantic, settings, caplog):
    semantic.sync()
    settings.KB_SEMANTIC_QUERY_PROCESS = True
    child = semantic.query_process()
    child.start()
    child._proc.kill()
    child._proc.wait()
    original = child.submit

    def broken(text):
        asked = original(text)
        child._proc.kill()  # dies before it answers
        return asked

    child.submit = broken
    try:
        page = service.search(QUESTION, per_page=10)
    finally:
        del child.submit
    assert page.results.hits and not any("Also searched by meaning" in n for n in page.notices)
    assert "could not be embedded" in caplog.text
    page = service.search(QUESTION, per_page=10)  # a new child answers the next one
    assert "702.19e" in _numbers(page)[:5]


def test_every_hit_of_the_words_page_stays_on_it(semantic, settings):
    semantic.sync()
    settings.KB_SEMANTIC = False
    lexical = service.search(QUESTION, per_page=10)
    settings.KB_SEMANTIC = True
    fused = service.search(QUESTION, per_page=10)
    # Page 2 is the lexical results after the first 10: none of those may be lost.
    assert set(_numbers(lexical)) <= set(_numbers(fused))
    assert "702.19e" in _numbers(fused) and "702.19e" not in _numbers(lexical)


def test_filters_the_retriever_cannot_answer_stay_lexical_and_say_nothing(semantic):
    for kinds, lang in ((["card"], None), (["ruling"], None), ([], "fr")):
        page = service.search(QUESTION, kinds=kinds, lang=lang, per_page=10)
        assert not any("meaning" in n for n in page.notices), (kinds, lang)


def test_switched_off_it_says_nothing(search_index, settings):
    settings.KB_SEMANTIC = False
    forget()
    page = service.search(QUESTION, per_page=10)
    assert not any("meaning" in n for n in page.notices)


def test_only_changed_texts_are_embedded_again(semantic):
    assert semantic.sync().embedded > 0
    assert semantic.sync().embedded == 0  # nothing changed: nothing to do
    retriever._synced.clear()
    assert semantic.sync().embedded == 0  # the vectors are found by their texts' hashes
    model = semantic.encoder()
    first = semantic.passages()[0]
    with transaction.atomic():
        Vector.objects.filter(key=store.key(model.model_id, first.text)).delete()
    retriever._synced.clear()
    assert semantic.sync().embedded == 1


def test_rule_numbers_names_and_short_queries_stay_lexical():
    assert question_shaped("does my trampler still deal damage if the blocker dies?")
    assert question_shaped("si je sacrifie ma créature en réponse, le sort est-il contrecarré")
    assert question_shaped("blocked creature removed from combat damage still dealt?")
    assert question_shaped("doesn't my trampler deal damage if the blocker is removed")
    assert question_shaped("peut-on sacrifier une créature en réponse à un sort")
    for lexical in ("702.19c", "Lightning Bolt", "what is trample", "trample damage", "flash"):
        assert not question_shaped(lexical)


def test_without_the_model_the_page_says_searching_by_meaning_is_not_installed(settings, tmp_path):
    settings.KB_SEMANTIC = True
    settings.KB_MODEL_DIR = tmp_path  # no weights there
    retriever.encoder.cache_clear()
    try:
        assert retriever.encoder() is None
        assert "not installed" in meaning.unavailable_notice()
    finally:
        retriever.encoder.cache_clear()


def test_a_question_mark_makes_a_question_whatever_its_first_word(semantic):
    """The parser drops punctuation: the question mark is read from the query as typed (it
    was not, and nine in ten of the players' questions never reached the retriever)."""
    semantic.sync()
    asked = "trampler blocked and the blocker got removed, damage still dealt?"
    page = service.search(asked, per_page=10)
    assert any("Also searched by meaning" in n for n in page.notices)
    assert "702.19e" in _numbers(page)[:5]
    told = service.search(asked.rstrip("?"), per_page=10)
    assert not any("meaning" in n for n in told.notices)


def test_the_question_s_words_rerank_the_nearest_passages(semantic):
    """Among the nearest passages, the one sharing the question's rarer words comes first."""
    semantic.sync()
    plain = semantic.retrieve(QUESTION, limit=10).hits
    assert len(plain) == 10
    first, second = plain[0][0], plain[1][0]
    distinctive = sorted(terms(second.text) - terms(first.text))
    assert distinctive
    reranked = semantic.retrieve(QUESTION, limit=10, words=distinctive).hits
    assert reranked[0][0] == second
    deeper = semantic.retrieve(QUESTION, limit=semantic.RERANK_DEPTH).hits
    assert {p.key for p, _ in reranked} <= {p.key for p, _ in deeper}


@pytest.fixture
def with_examples(search_index, settings, monkeypatch):
    yield from retriever_on_subset(settings, monkeypatch, examples=True)


def test_example_questions_are_embedded_and_a_query_map_fitted_once(with_examples):
    semantic = with_examples
    from kb.example_questions import rule_examples
    from search.models import QueryMap

    report = semantic.sync()
    assert report.remaining == 0
    corpus = semantic._current()
    keys = {p.key for p in corpus.passages}
    wanted = [e for e in rule_examples() if e.key in keys]
    assert corpus.examples == len(wanted) > 10  # the subset's rules' questions, today's numbers
    assert corpus.query_map is not None and corpus.nearest is not None
    assert QueryMap.objects.count() == 1
    assert semantic.sync().remaining == 0 and QueryMap.objects.count() == 1  # not fitted again
    numbers = _numbers(service.search(QUESTION, per_page=10))
    assert numbers[0].startswith("702.19")  # trample's rules lead
