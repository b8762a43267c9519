"""Where CR texts come from: a file, a folder (with its versions.csv), or an http(s) URL."""

from __future__ import annotations

import csv
import datetime as dt
import io
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from kb.crtext.limits import (
    MAX_DOWNLOAD_BYTES,
    MAX_SET_CODE_CHARS,
    MAX_SET_NAME_CHARS,
    MAX_VERSIONS_CSV_BYTES,
    date_problem,
)

DOWNLOAD_TIMEOUT = 60


class SourceError(Exception):
    """A source that cannot be read at all (missing path, failed download)."""


@dataclass
class Source:
    name: str  # file path or URL, as shown in messages
    data: bytes | None  # None: read from `name` (a path) when needed
    set_names: dict[
        str, tuple[str, str]
    ]  # effective date -> (set name, set code) from versions.csv

    def read(self) -> bytes:
        return self.data if self.data is not None else Path(self.name).read_bytes()


def read_sources(args: list[str]) -> Iterator[Source]:
    """Expand command arguments into sources, folders into their *.txt files."""
    for arg in args:
        if arg.startswith(("http://", "https://")):
            yield Source(arg, _download(arg), {})
            continue
        path = Path(arg)
        if path.is_dir():
            names = read_versions_csv(path / "versions.csv")
            files = sorted(p for p in path.glob("*.txt") if p.is_file())
            if not files:
                raise SourceError(f"{path}: no .txt files in this folder")
            for f in files:
                yield Source(str(f), None, names)
        elif path.is_file():
            yield Source(str(path), None, read_versions_csv(path.parent / "versions.csv"))
        else:
            raise SourceError(f"{arg}: no such file or folder")


def count_sources(args: list[str]) -> int:
    n = 0
    for arg in args:
        path = Path(arg)
        n += len(list(path.glob("*.txt"))) if path.is_dir() else 1
    return n


def read_versions_csv(path: Path) -> dict[str, tuple[str, str]]:
    """Set names and codes by effective date, from an archive's versions.csv (if there is one).

    A file that is not UTF-8 text, too large, or with a bad date, set name or code is refused
    (SourceError naming the file, line and column) before any release is imported."""
    if not path.is_file():
        return {}
    try:
        size = path.stat().st_size
        if size > MAX_VERSIONS_CSV_BYTES:
            raise SourceError(
                f"{path}: larger than {MAX_VERSIONS_CSV_BYTES // 1024} KB: not a versions.csv"
            )
        raw = path.read_bytes()
    except OSError as exc:
        raise SourceError(f"{path}: cannot read: {exc}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise SourceError(
            f"{path}, line {line}: not UTF-8 text (byte 0x{raw[exc.start]:02x})"
        ) from None
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        raise SourceError(f"{path}, line {line}: contains a NUL character")
    out: dict[str, tuple[str, str]] = {}
    try:
        reader = csv.DictReader(io.StringIO(text, newline=""))
        if not reader.fieldnames or "date" not in reader.fieldnames:
            raise SourceError(f"{path}: no 'date' column in the header")
        for row in reader:
            lineno = reader.line_num
            date = _csv_date(path, lineno, (row.get("date") or "").strip())
            name = _csv_text(path, lineno, row, "set_name", MAX_SET_NAME_CHARS)
            code = _csv_text(path, lineno, row, "set_code", MAX_SET_CODE_CHARS)
            out[date] = (name, code)
    except csv.Error as exc:
        raise SourceError(f"{path}, line {reader.line_num}: not CSV: {exc}") from None
    return out


def _csv_date(path: Path, lineno: int, value: str) -> str:
    if not value:
        raise SourceError(f"{path}, line {lineno}: empty date")
    try:
        date = dt.date.fromisoformat(value) if len(value) == 10 else None
    except ValueError:
        date = None
    if date is None:
        raise SourceError(f"{path}, line {lineno}, date: not a YYYY-MM-DD date: {value[:40]!r}")
    problem = date_problem(date)
    if problem is not None:
        raise SourceError(f"{path}, line {lineno}, date: {problem}")
    return value


def _csv_text(path: Path, lineno: int, row: dict, column: str, limit: int) -> str:
    value = row.get(column)
    if value is None:
        return ""
    if not isinstance(value, str):  # a row with more cells than the header: csv gives a list
        raise SourceError(f"{path}, line {lineno}, {column}: not text")
    value = value.strip()
    if len(value) > limit:
        raise SourceError(
            f"{path}, line {lineno}, {column}: longer than {limit} characters ({len(value)})"
        )
    return value


def _download(url: str) -> bytes:
    request = urllib.request.Request(url, headers={"User-Agent": "mtg-rules-kb importer"})
    try:
        with urllib.request.urlopen(request, timeout=DOWNLOAD_TIMEOUT) as response:
            data = response.read(MAX_DOWNLOAD_BYTES + 1)
    except (urllib.error.URLError, TimeoutError, ValueError) as exc:
        raise SourceError(f"{url}: download failed: {exc}") from None
    if len(data) > MAX_DOWNLOAD_BYTES:
        raise SourceError(f"{url}: larger than {MAX_DOWNLOAD_BYTES // (1024 * 1024)} MB")
    return data
