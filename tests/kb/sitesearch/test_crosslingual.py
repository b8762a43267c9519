"""The French bridge's card counts (kb/sitesearch/crosslingual.py): rates kept a while, not
searched again for every French query."""

from __future__ import annotations

from kb.sitesearch import crosslingual
from search.documents import Hit, Results
from search.syntax import Group, Phrase, Word


class CountingBackend:
    def __init__(self, total: int) -> None:
        self.total = total
        self.requests: list = []

    def search(self, request) -> Results:
        self.requests.append(request)
        return Results([], self.total, 1, request.per_page)


def test_the_cards_holding_a_term_are_counted_once_a_period(monkeypatch) -> None:
    backend = CountingBackend(7)
    assert crosslingual._cards_with(backend, "first strike") == 7
    assert crosslingual._cards_with(backend, "first strike") == 7
    assert crosslingual._cards_with(backend, "trample") == 7
    first, second = backend.requests
    assert first.groups[0].items == (Phrase("first strike"),) and first.kinds == ("card",)
    assert second.groups[0].items == (Word("trample"),) and second.lang == "en"
    # The next period counts again: an import's new cards reach the rates.
    period = crosslingual.time.monotonic() // crosslingual.COUNTS_TTL
    monkeypatch.setattr(
        crosslingual.time, "monotonic", lambda: (period + 1) * crosslingual.COUNTS_TTL
    )
    backend.total = 9
    assert crosslingual._cards_with(backend, "trample") == 9
    assert len(backend.requests) == 3
    # Another backend (another index) is counted apart.
    assert crosslingual._cards_with(CountingBackend(3), "trample") == 3


class SampleBackend:
    """French cards that all print the same six rules terms (in `texts`), and few English."""

    def __init__(self, texts: list[str]) -> None:
        self.texts = texts

    def search(self, request) -> Results:
        if request.lang == "en":
            return Results([], 0, 1, request.per_page)
        hits = [
            Hit(
                kind="card",
                key=str(n),
                ref=str(n),
                titles={"fr": f"Carte {n}"},
                number="",
                chapter="",
                label="",
                date=None,
                valid_from=None,
                valid_to=None,
                score=1.0,
                text=text,
            )
            for n, text in enumerate(self.texts)
        ]
        return Results(hits, len(hits), 1, request.per_page)


def test_terms_as_frequent_as_the_fifth_are_all_weighed(monkeypatch) -> None:
    """Six terms on every sampled card: the one rarest among all cards wins, whatever order
    the cards print them in (a cut at five among equals once followed a set's order, which
    changes with each process's hash seed: "mobilise" went to Mobilize or to "end step")."""
    names = {k: (k, []) for k in ("draw", "end step", "flying", "haste", "mobilize", "token")}
    everywhere = {"draw": 900, "end step": 300, "flying": 800, "haste": 400, "token": 500}
    monkeypatch.setattr(crosslingual, "_card_count", lambda backend: 10_000)
    weighed: set[str] = set()

    def cards_with(backend, key: str) -> int:
        weighed.add(key)
        return everywhere.get(key, 20)

    monkeypatch.setattr(crosslingual, "_cards_with", cards_with)
    orders = [sorted(names), sorted(names, reverse=True), sorted(names, key=lambda k: k[::-1])]
    for order in orders:
        backend = SampleBackend([" ".join(order) + f" {n}" for n in range(8)])
        found = crosslingual.bridge(backend, [Group((Word("mobilise"),))], None, names)
        assert found == crosslingual.Bridge("mobilise", "mobilize"), order
        assert weighed == set(names)  # all six, not the first five met
