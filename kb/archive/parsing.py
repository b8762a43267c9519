"""Parse sources ahead of the importer, in a worker process.

Parsing is CPU-bound and independent of the database, so on a two-core machine it overlaps with
the import of the previous release instead of adding to it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass

from kb.archive.importer import text_checksum
from kb.archive.sources import Source
from kb.crtext import CRFormatError, Document, decode_bytes, parse_text


@dataclass
class Parsed:
    source: Source
    doc: Document | None
    checksum: str = ""
    error: str = ""


def parse_source(source: Source) -> Parsed:
    """Decode and parse one source; a format error is returned, not raised."""
    try:
        text = decode_bytes(source.read(), source=source.name)
        doc = parse_text(text, source=source.name)
    except CRFormatError as exc:
        return Parsed(source, None, error=str(exc))
    except OSError as exc:
        return Parsed(source, None, error=f"{source.name}: cannot read: {exc}")
    return Parsed(source, doc, text_checksum(text))


def parse_ahead(sources: Iterable[Source], *, ahead: int = 2) -> Iterator[Parsed]:
    """Yield parsed sources in order, parsing up to `ahead` of them in a worker process."""
    sources = iter(sources)
    first = next(sources, None)
    if first is None:
        return
    second = next(sources, None)
    if second is None:  # a single document: no process to start
        yield parse_source(first)
        return
    pending: deque[Future[Parsed]] = deque()
    with ProcessPoolExecutor(max_workers=1) as pool:
        for src in (first, second):
            pending.append(pool.submit(parse_source, src))
        for src in sources:
            while len(pending) > ahead:
                yield pending.popleft().result()
            pending.append(pool.submit(parse_source, src))
        while pending:
            yield pending.popleft().result()
