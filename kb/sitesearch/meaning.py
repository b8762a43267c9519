"""Questions searched by meaning too: the semantic retriever's rules fused with the words'.

Why only some queries: players ask about situations ("my opponent flickered my creature, does
it come back tapped?") in words no rule uses, and for half of such questions the lexical top
50 holds no right answer at all; a sentence encoder finds them. But fused into every long
query it hurt paraphrased rulings, and rule numbers, card names and terms are the lexical
engine's strength. So the shape of the query decides (understanding.question_shaped), and the
rest of the search is unchanged.

Fusion is reciprocal-rank fusion (Cormack et al. 2009): each list contributes weight / (k +
rank) to a result, so neither engine's scores need to be comparable. The semantic list holds
the current release's rules and glossary entries; a semantic answer the lexical page lacks is
looked up in the index (a Hit like any other, its link and chapter filled by the service).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext as _

from search.backend import SearchRequest
from search.documents import Hit
from search.semantic import retriever

#: Reciprocal-rank fusion's constant: on the dev sets K 30 or 60 made no difference.
RRF_K = 60
#: How many semantic answers enter the fusion.
SEMANTIC_DEPTH = 50
SEMANTIC_KINDS = ("rule", "glossary")


@dataclass(frozen=True)
class Blend:
    """How a question's two lists are fused: the semantic list's weight against the lexical
    one's (1), whether the lexical first answer stays first when the retriever cannot judge
    it (a ruling, a card), and whether the query's words re-rank the semantic list."""

    semantic_weight: float
    keep_lexical_first: bool
    words_rerank: bool


#: A query that asks (it ends with a question mark: "is food a creature type?") wants the rule
#: that answers it: the semantic list, re-ranked by the query's words, leads. Players' dev
#: questions (161, nine in ten end so): 0.248 with TOLD's blend, 0.338 with this one (0.219
#: before the question mark was read at all: the parser had dropped it); re-ranking by the
#: words is worth 0.06 of it, not keeping the lexical first answer 0.06 too, and a semantic
#: weight of 100 (the semantic list alone) 0.002 more than 2. Since the retriever learnt from
#: example questions (search.semantic.adapter) it is the better judge: weights 2/4/100 give
#: 0.452/0.458/0.490, so it leads and the lexical list only breaks its ties.
ASKED = Blend(semantic_weight=100.0, keep_lexical_first=False, words_rerank=True)
#: A situation told without a question mark (a ruling paraphrased: "fight spell where one of
#: the targets becomes illegal, does any damage happen") is as often answered by a card's own
#: ruling, which the words find and the retriever cannot judge: equal weights, the lexical
#: first answer kept. Sampled dev paraphrases: 0.669 so, 0.502 with ASKED's blend; sampled
#: dev questions (42 of 44 without "?") 0.687 so, 0.635 with the words' re-ranking.
TOLD = Blend(semantic_weight=1.0, keep_lexical_first=True, words_rerank=False)


def blend_for(asked: bool) -> Blend:
    return ASKED if asked else TOLD


@dataclass
class Fused:
    hits: list[Hit]
    notice: str
    millis: float = 0.0


def _key(hit: Hit) -> tuple[str, str]:
    return (hit.kind, hit.number if hit.kind == "rule" else hit.ref)


def applies(kinds: list[str], lang: str | None) -> bool:
    """Whether a search's filters leave the retriever anything to answer: it holds rules and
    glossary entries (not cards or rulings), in English (a language filter asks for texts in
    that language, which it cannot judge)."""
    return not lang and (not kinds or bool(set(kinds) & set(SEMANTIC_KINDS)))


def warm() -> None:
    """The retriever's model, vectors and words loaded ahead of a first question."""
    retriever.warm()


@dataclass
class Question:
    """A question being embedded (`pending`) and whether it was typed with a question mark
    (which blend fuses its answers)."""

    pending: retriever.Pending
    asked: bool

    @property
    def state(self) -> retriever.Retrieval:
        return self.pending.state


def start(text: str, *, asked: bool) -> Question:
    """Begin embedding a question before its lexical search, which then runs meanwhile."""
    return Question(retriever.Pending(text), asked)


def fuse(
    hits: list[Hit], question: Question, backend, request: SearchRequest, *, per_page: int
) -> Fused | None:
    """The first page of a question: lexical `hits` and the retriever's answers to the
    `question` embeds, fused. None when the retriever cannot answer (no model,
    vectors still being computed): the page is lexical, and `unavailable_notice` says why."""
    kinds = tuple(k for k in SEMANTIC_KINDS if not request.kinds or k in request.kinds)
    blend = blend_for(question.asked)
    words = (
        [item.text for group in request.groups for item in group.items]
        if blend.words_rerank
        else []
    )
    found = question.pending.result(limit=SEMANTIC_DEPTH, kinds=kinds, words=words)
    if not found.ready:
        return None
    # A first answer the retriever cannot judge (a ruling, a card: it embeds rules and
    # glossary entries only) stays first where the blend says so: the words found that
    # card's own ruling.
    keep = blend.keep_lexical_first and hits and hits[0].kind not in SEMANTIC_KINDS
    head = [hits[0]] if keep else []
    scores: dict[tuple[str, str], float] = {}
    by_key: dict[tuple[str, str], Hit] = {}
    for rank, hit in enumerate(hits, start=1):
        key = _key(hit)
        by_key.setdefault(key, hit)
        scores[key] = scores.get(key, 0.0) + 1.0 / (RRF_K + rank)
    for rank, (passage, _cosine) in enumerate(found.hits, start=1):
        key = (passage.kind, passage.key)
        scores[key] = scores.get(key, 0.0) + blend.semantic_weight / (RRF_K + rank)
    first = {_key(h) for h in head}
    ordered = [k for k in sorted(scores, key=lambda k: -scores[k]) if k not in first]
    # Every hit of the lexical page stays on it (reordered): page 2 and on are the lexical
    # results after it, so a hit pushed off page 1 would be on no page. The retriever's
    # answers join where they rank within the page, which may then hold a few more.
    # The retriever's answers the lexical page lacks are looked up all at once.
    kept = [
        key
        for position, key in enumerate(ordered, start=len(head))
        if key in by_key or position < per_page
    ]
    missing = [(kind, ref, kind == "rule") for kind, ref in kept if (kind, ref) not in by_key]
    looked_up = backend.lookup_many(missing, release=request.release) if missing else {}
    out: list[Hit] = list(head)
    for key in kept:
        hit = by_key.get(key) or looked_up.get(key)
        if hit is not None:
            out.append(hit)
    return Fused(
        out, _("Also searched by meaning: rules that answer questions like this one."), found.millis
    )


def unavailable_notice(pending: Question | None = None) -> str:
    """Why a question was searched by its words only (shown on the page), or ""."""
    state = pending.state if pending is not None else retriever.status()
    if state.ready:
        return ""
    if state.reason == "embedding":
        return _(
            "Searched by words only: searching by meaning is being prepared "
            "(%(done)d of %(total)d texts ready)."
        ) % {"done": state.embedded, "total": state.total}
    if state.reason == "off":
        return ""
    if state.reason == "no model":
        return _("Searched by words only: searching by meaning is not installed on this site.")
    return ""
