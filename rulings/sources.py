"""Read card and ruling records: MTGJSON-style JSON lines (as in shared/data/cards) or
Scryfall's bulk files (one large JSON array, streamed), gzipped or not, from a path or URL.

Each record comes with where it was found ("line 12" or "item 12"), so errors can name it.
"""

from __future__ import annotations

import gzip
import io
import json
import urllib.error
import urllib.request
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import ijson

DOWNLOAD_TIMEOUT = 120


class SourceError(Exception):
    """A file that cannot be read at all (missing, undownloadable, not JSON)."""


@contextmanager
def open_source(name: str) -> Iterator[IO[bytes]]:
    """A binary stream over a path or http(s) URL, gunzipped if it is gzip."""
    if name.startswith(("http://", "https://")):
        try:
            raw: IO[bytes] = urllib.request.urlopen(
                urllib.request.Request(name, headers={"User-Agent": "mtg-rules-kb importer"}),
                timeout=DOWNLOAD_TIMEOUT,
            )
        except (urllib.error.URLError, TimeoutError, ValueError) as exc:
            raise SourceError(f"{name}: download failed: {exc}") from None
    else:
        path = Path(name)
        if not path.is_file():
            raise SourceError(f"{name}: no such file")
        raw = path.open("rb")
    try:
        stream = io.BufferedReader(raw) if not isinstance(raw, io.BufferedReader) else raw
        if stream.peek(2)[:2] == b"\x1f\x8b":
            stream = io.BufferedReader(gzip.GzipFile(fileobj=stream))
        yield stream
    finally:
        raw.close()


def read_records(name: str) -> Iterator[tuple[str, Any]]:
    """(where, object) for every record of a JSON-lines file or a JSON array.

    A record that is not UTF-8 or not JSON (or nested too deeply to read) comes as a
    `_Malformed` naming what is wrong; a file that cannot be read to its end (a truncated
    gzip, a broken array) raises SourceError naming the file and where it broke.
    """
    where = "the start"
    try:
        with open_source(name) as stream:
            head = stream.peek(64).lstrip()[:1]
            if head == b"[":
                try:
                    items = ijson.items(stream, "item", use_float=True)
                    for i, obj in enumerate(items, start=1):
                        where = f"item {i}"
                        yield where, obj
                except (ijson.JSONError, UnicodeDecodeError, RecursionError) as exc:
                    raise SourceError(f"{name}: not valid JSON after {where}: {exc}") from None
                return
            for lineno, raw in enumerate(stream, start=1):
                where = f"line {lineno}"
                obj = _parse_line(raw)
                if obj is not _BLANK:
                    yield where, obj
    except (EOFError, OSError, zlib.error) as exc:
        raise SourceError(f"{name}: cannot be read after {where}: {exc}") from None


def _parse_line(raw: bytes) -> Any:
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return _Malformed(f"not UTF-8 text (byte {exc.start + 1})")
    if not line.strip():
        return _BLANK
    try:
        return json.loads(line)
    except json.JSONDecodeError as exc:
        return _Malformed(f"not JSON: {exc.msg}")
    except RecursionError:
        return _Malformed("not JSON: nested too deeply")


class _Malformed:
    """Stands for a line that is not JSON (reported like any malformed record)."""

    def __init__(self, message: str) -> None:
        self.message = message


_BLANK = object()  # an empty line: skipped
