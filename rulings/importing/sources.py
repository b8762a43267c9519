"""Read card and ruling records: MTGJSON-style JSON lines (as in shared/data/cards) or
Scryfall's bulk files (one large JSON array, streamed), gzipped or not, from a path or URL.

Each record comes with where it was found ("line 12" or "item 12"), so errors can name it.
The limits of `rulings.importing.limits` are checked while reading: the size of the decompressed
data, the
length of a line, the nesting of a JSON array's items (ijson's C parser, yajl, would exhaust
memory on a hundred thousand nested brackets: they are counted before it sees them).
"""

from __future__ import annotations

import gzip
import io
import json
import re
import urllib.error
import urllib.request
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import ijson
import numpy as np

from rulings.importing.limits import MAX_DEPTH, MAX_FILE_BYTES, MAX_LINE_BYTES

DOWNLOAD_TIMEOUT = 120
_CHUNK = 1024 * 1024


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
        yield io.BufferedReader(_Limited(stream, name), _CHUNK)
    finally:
        raw.close()


def read_records(name: str) -> Iterator[tuple[str, Any]]:
    """(where, object) for every record of a JSON-lines file or a JSON array.

    A record that is not UTF-8 or not JSON (or nested too deeply to read) comes as a
    `Malformed` naming what is wrong; a file that cannot be read to its end (a truncated
    gzip, a broken array) raises SourceError naming the file and where it broke.
    """
    where = "the start"
    try:
        with open_source(name) as stream:
            head = stream.peek(64).lstrip()[:1]
            if head == b"[":
                try:
                    guarded = io.BufferedReader(_DepthGuard(stream, name), _CHUNK)
                    items = ijson.items(guarded, "item", use_float=True)
                    for i, obj in enumerate(items, start=1):
                        where = f"item {i}"
                        yield where, obj
                except (ijson.JSONError, UnicodeDecodeError, RecursionError) as exc:
                    raise SourceError(f"{name}: not valid JSON after {where}: {exc}") from None
                return
            for lineno, raw in enumerate(_lines(stream), start=1):
                where = f"line {lineno}"
                obj = _parse_line(raw) if raw is not None else _TOO_LONG
                if obj is not _BLANK:
                    yield where, obj
    except (EOFError, OSError, zlib.error) as exc:
        raise SourceError(f"{name}: cannot be read after {where}: {exc}") from None


def _lines(stream: IO[bytes]) -> Iterator[bytes | None]:
    """The file's lines; None for one longer than MAX_LINE_BYTES (read past, never held)."""
    while True:
        line = stream.readline(MAX_LINE_BYTES + 1)
        if not line:
            return
        if len(line) <= MAX_LINE_BYTES or line.endswith(b"\n"):
            yield line if len(line) <= MAX_LINE_BYTES else None
            continue
        while line and not line.endswith(b"\n"):  # skip the rest of the long line
            line = stream.readline(_CHUNK)
        yield None


class _Limited(io.RawIOBase):
    """A stream that refuses to give more than MAX_FILE_BYTES (decompressed: a small gzip
    can inflate to any size)."""

    def __init__(self, inner: IO[bytes], name: str) -> None:
        self.inner, self.name, self.total = inner, name, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self.inner.read(len(buffer))
        self.total += len(data)
        if self.total > MAX_FILE_BYTES:
            raise SourceError(
                f"{self.name}: larger than {MAX_FILE_BYTES // (1024 * 1024)} MB (decompressed): "
                "not a card or rulings file"
            )
        buffer[: len(data)] = data
        return len(data)


_STRUCTURE_RE = re.compile(rb'[\[\]{}"\\]')
_STRING_RE = re.compile(rb'"[^"\\\n]*(?:\\.[^"\\\n]*)*"')
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_STEP = np.zeros(256, dtype=np.int64)
_STEP[list(b"[{")] = 1
_STEP[list(b"]}")] = -1


class _DepthGuard(io.RawIOBase):
    """Passes a JSON array through, refusing items nested deeper than MAX_DEPTH: the brackets
    outside strings are counted before the C parser sees them.

    JSON strings hold no raw line break, so between two line breaks (Scryfall writes one card
    a line) strings are dropped with a regular expression and the brackets counted with numpy;
    the partial lines at a chunk's ends are read a character at a time (escapes skipped), so
    that a file on one line is guarded too (more slowly)."""

    def __init__(self, inner: IO[bytes], name: str) -> None:
        self.inner, self.name = inner, name
        self.depth, self.in_string, self.skip = 0, False, 0
        self.item = 1

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self.inner.read(len(buffer))
        first, last = data.find(b"\n"), data.rfind(b"\n")
        if first == -1:
            self._scan(data)
        else:
            self._scan(data[: first + 1])
            self.in_string, self.skip = False, 0  # a line break is never inside a string
            self._count(data[first + 1 : last + 1])
            self._scan(data[last + 1 :])
        buffer[: len(data)] = data
        return len(data)

    def _refuse(self) -> None:
        raise SourceError(f"{self.name}, item {self.item}: nested deeper than {MAX_DEPTH} levels")

    def _count(self, lines: bytes) -> None:
        """Whole lines: strings dropped, then the brackets' running depth."""
        brackets = _STRING_RE.sub(b"", lines).translate(None, _NOT_BRACKETS)
        if not brackets:
            return
        steps = _STEP[np.frombuffer(brackets, dtype=np.uint8)]
        depth = np.cumsum(steps) + self.depth
        item_ends = (steps < 0) & (depth == 1)
        too_deep = np.flatnonzero(depth > MAX_DEPTH + 1)  # the file's array is one level
        if too_deep.size:
            self.item += int(np.count_nonzero(item_ends[: too_deep[0]]))
            self._refuse()
        self.item += int(np.count_nonzero(item_ends))
        self.depth = int(depth[-1])

    def _scan(self, data: bytes) -> None:
        """Bytes that may end or start inside a string: a character at a time."""
        skip_until = self.skip  # a backslash ending the previous chunk escapes this one's 1st
        for m in _STRUCTURE_RE.finditer(data):
            i = m.start()
            if i < skip_until:
                continue
            c = data[i]
            if self.in_string:
                if c == 0x5C:  # backslash: the next byte is escaped
                    skip_until = i + 2
                elif c == 0x22:
                    self.in_string = False
            elif c == 0x22:
                self.in_string = True
            elif c in (0x5B, 0x7B):  # [ {
                self.depth += 1
                if self.depth > MAX_DEPTH + 1:
                    self._refuse()
            else:  # ] }
                self.depth -= 1
                if self.depth == 1:
                    self.item += 1
        self.skip = max(0, skip_until - len(data))


def _parse_line(raw: bytes) -> Any:
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Malformed(f"not UTF-8 text (byte {exc.start + 1})")
    if not line.strip():
        return _BLANK
    try:
        return json.loads(line)
    except json.JSONDecodeError as exc:
        return Malformed(f"not JSON: {exc.msg}")
    except RecursionError:
        return Malformed("not JSON: nested too deeply")


class Malformed:
    """Stands for a line that is not JSON (reported like any malformed record)."""

    def __init__(self, message: str) -> None:
        self.message = message


_BLANK = object()  # an empty line: skipped
_TOO_LONG = Malformed(f"line longer than {MAX_LINE_BYTES // 1024} KB: not a card record")
