"""The French bridge's card counts (kb/sitesearch/crosslingual.py): rates kept a while, not
searched again for every French query."""

from __future__ import annotations

from kb.sitesearch import crosslingual
from search.documents import Results
from search.syntax import Phrase, Word


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
